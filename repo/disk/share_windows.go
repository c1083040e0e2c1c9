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
	name, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	access := uint32(syscall.GENERIC_READ)
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		access = syscall.FILE_APPEND_DATA | syscall.FILE_WRITE_ATTRIBUTES | syscall.SYNCHRONIZE
		if flag&os.O_RDWR != 0 {
			access |= syscall.GENERIC_READ
		}
	}
	create := uint32(syscall.OPEN_EXISTING)
	if flag&os.O_CREATE != 0 {
		create = syscall.OPEN_ALWAYS
	}
	attrs := uint32(syscall.FILE_ATTRIBUTE_NORMAL | syscall.FILE_FLAG_OPEN_REPARSE_POINT)
	if perm&0o200 == 0 {
		attrs = syscall.FILE_ATTRIBUTE_READONLY | syscall.FILE_FLAG_OPEN_REPARSE_POINT
	}
	h, err := syscall.CreateFile(name, access, syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE, nil, create, attrs, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var info syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(h, &info); err != nil {
		syscall.CloseHandle(h)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if info.FileAttributes&(syscall.FILE_ATTRIBUTE_REPARSE_POINT|syscall.FILE_ATTRIBUTE_DIRECTORY) != 0 {
		syscall.CloseHandle(h)
		err := error(errLink)
		if info.FileAttributes&syscall.FILE_ATTRIBUTE_REPARSE_POINT == 0 {
			err = syscall.EISDIR
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
