package disk

import (
	"os"
	"strconv"
	"syscall"
)

// AppendFileKey appends path's FileKey: size, modification time, inode,
// device and change time, from one lstat into the stack (the hot path
// makes five of these a call).
func AppendFileKey(b []byte, path string) []byte {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return append(b, '-')
	}
	b = strconv.AppendInt(b, st.Size, 10)
	b = strconv.AppendInt(append(b, ':'), st.Mtim.Nano(), 10)
	b = strconv.AppendUint(append(b, ':'), st.Ino, 10)
	b = strconv.AppendUint(append(b, ':'), uint64(st.Dev), 10)
	return strconv.AppendInt(append(b, ':'), st.Ctim.Nano(), 10)
}

// Lstat is what the hot path asks of a file: whether it is there, what
// kind it is and its size — from one lstat into the stack (os.Lstat
// allocates a FileInfo each time); Stat follows a symbolic link.
func Lstat(path string) (Info, error) { return stat(path, false) }

// Stat is Lstat following a symbolic link.
func Stat(path string) (Info, error) { return stat(path, true) }

// stat calls stat or lstat itself, not through a function value, which
// would put st on the heap.
func stat(path string, follow bool) (Info, error) {
	var st syscall.Stat_t
	for {
		var err error
		if follow {
			err = syscall.Stat(path, &st)
		} else {
			err = syscall.Lstat(path, &st)
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return Info{}, &os.PathError{Op: "stat", Path: path, Err: err}
		}
		break
	}
	i := Info{Size: st.Size}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		i.Regular = true
	case syscall.S_IFDIR:
		i.Dir = true
	}
	return i, nil
}
