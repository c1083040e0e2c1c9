//go:build windows

package disk

import (
	"os"
	"syscall"
)

// OpenShared opens the file at path for reading (os.O_RDONLY) or for
// appending (os.O_WRONLY|os.O_APPEND, with os.O_CREATE to create it with
// mode perm), never through a symbolic link or junction, and lets other
// processes rename and delete it while it is open, as Unix does: os.Open
// on Windows shares no deletion, and a file one process holds open then
// cannot be renamed by another.
func OpenShared(path string, flag int, perm os.FileMode) (*os.File, error) {
	return openNoFollow(path, flag, perm, syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE)
}

// OpenFile is os.OpenFile never through a symbolic link or junction at
// path, as O_NOFOLLOW does on Unix: the open fails, and IsLinkErr says
// why. Other processes may read and write the file while it is open, as
// with os.OpenFile, but not rename or delete it.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	return openNoFollow(path, flag, perm, syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE)
}

// openNoFollow opens path with CreateFile, which FILE_FLAG_OPEN_REPARSE_POINT
// keeps from following a link or junction, and refuses what the handle
// then is if it is one, or a directory (refusal).
func openNoFollow(path string, flag int, perm os.FileMode, share uint32) (*os.File, error) {
	name, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var access uint32
	switch {
	case flag&os.O_RDWR != 0:
		access = syscall.GENERIC_READ | syscall.GENERIC_WRITE
	case flag&os.O_WRONLY != 0:
		access = syscall.GENERIC_WRITE
	default:
		access = syscall.GENERIC_READ
	}
	if flag&os.O_APPEND != 0 && access&syscall.GENERIC_WRITE != 0 {
		// Appending: the data only, as os.OpenFile asks for it.
		access = access&^syscall.GENERIC_WRITE | syscall.FILE_APPEND_DATA | syscall.FILE_WRITE_ATTRIBUTES | syscall.SYNCHRONIZE
	}
	disposition, truncate := openDisposition(flag)
	// FILE_FLAG_BACKUP_SEMANTICS opens a junction or directory too, to be
	// named in the refusal rather than denied.
	attrs := uint32(syscall.FILE_ATTRIBUTE_NORMAL | syscall.FILE_FLAG_OPEN_REPARSE_POINT | syscall.FILE_FLAG_BACKUP_SEMANTICS)
	if perm&0o200 == 0 {
		attrs = syscall.FILE_ATTRIBUTE_READONLY | syscall.FILE_FLAG_OPEN_REPARSE_POINT | syscall.FILE_FLAG_BACKUP_SEMANTICS
	}
	h, err := syscall.CreateFile(name, access, share, nil, disposition, attrs, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var info syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(h, &info); err != nil {
		syscall.CloseHandle(h)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := refusal(info.FileAttributes); err != nil {
		syscall.CloseHandle(h)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(h), path)
	if truncate {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}
