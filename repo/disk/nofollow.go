package disk

import (
	"errors"
	"os"
)

// How Windows opens a file without following a symbolic link or junction
// (OpenFile, OpenShared): CreateFile with FILE_FLAG_OPEN_REPARSE_POINT
// opens the link itself, whose attributes then say what it is, and the
// open is refused. Windows has no O_NOFOLLOW; these are the decisions,
// kept apart from the system calls so that every system tests them.

// Windows' values for CreateFile's dispositions and the attributes read.
const (
	winCreateNew        = 1
	winCreateAlways     = 2
	winOpenExisting     = 3
	winOpenAlways       = 4
	winTruncateExisting = 5

	winAttrDirectory    = 0x10
	winAttrReparsePoint = 0x400
)

// errLink is why an open that follows no link refused one.
var errLink = errors.New("is a symbolic link or junction")

// errIsDir is why an open of a file refused a directory.
var errIsDir = errors.New("is a directory")

// openDisposition is how CreateFile is to open for flag (os.O_*), and
// whether the file is then to be truncated: never by the open itself
// (CREATE_ALWAYS, TRUNCATE_EXISTING), which would cut a link's target or
// the link before the open is seen to be of one.
func openDisposition(flag int) (disposition uint32, truncate bool) {
	truncate = flag&os.O_TRUNC != 0
	switch {
	case flag&os.O_CREATE != 0 && flag&os.O_EXCL != 0:
		return winCreateNew, false // a new file: no link, nothing to cut
	case flag&os.O_CREATE != 0:
		return winOpenAlways, truncate
	default:
		return winOpenExisting, truncate
	}
}

// refusal is why an open whose handle has attrs is refused — a link or
// junction (errLink), a directory — or nil.
func refusal(attrs uint32) error {
	switch {
	case attrs&winAttrReparsePoint != 0:
		return errLink
	case attrs&winAttrDirectory != 0:
		return errIsDir
	}
	return nil
}
