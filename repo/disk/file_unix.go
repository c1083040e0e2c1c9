//go:build unix

package disk

import (
	"os"
	"syscall"
)

// ReadFile reads the regular file at path, never through a symbolic link,
// with plain system calls: os.Open offers every file to the network
// poller, which on Linux refuses a regular file only after five system
// calls more, on every open; hooks open three or four files each.
func ReadFile(path string) ([]byte, error) {
	fd, err := open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EINVAL} // a FIFO would wait for a writer
	}
	size := 512
	if st.Size > 0 && st.Size < 1<<30 {
		size = int(st.Size) + 1
	}
	b := make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if n > 0 {
			b = b[:len(b)+n]
		}
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return b, nil
		}
	}
}

// AppendFile appends data to the file at path in one write, creating it
// (mode 0644) when missing, never through a symbolic link.
func AppendFile(path string, data []byte) error {
	fd, err := open(path, syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	if _, err := syscall.Write(fd, data); err != nil {
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

func open(path string, mode int, perm uint32) (int, error) {
	for {
		fd, err := syscall.Open(path, mode|syscall.O_CLOEXEC, perm)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// CanWrite reports, as the system would answer this process, why it may
// not write the file or directory at path (nil: it may): permission
// denied, a read-only file system.
func CanWrite(path string) error {
	if err := syscall.Access(path, 2); err != nil { // W_OK
		return &os.PathError{Op: "access", Path: path, Err: err}
	}
	return nil
}
