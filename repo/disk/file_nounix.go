//go:build !unix

package disk

import (
	"io"
	"os"
)

// ReadFile reads the regular file at path, never through a symbolic link
// or junction where the system can refuse one (OpenShared does on
// Windows, as O_NOFOLLOW does on Unix).
func ReadFile(path string) ([]byte, error) {
	f, err := OpenShared(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// AppendFile appends data to the file at path in one write, creating it
// (mode 0644) when missing, never through a symbolic link or junction
// where the system can refuse one.
func AppendFile(path string, data []byte) error {
	f, err := OpenShared(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// CanWrite reports why this process may not write the file at path; here
// only a read-only file says so.
func CanWrite(path string) error {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 == 0 {
		return &os.PathError{Op: "access", Path: path, Err: os.ErrPermission}
	}
	return nil
}
