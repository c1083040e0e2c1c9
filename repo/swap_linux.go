//go:build linux

package repo

import (
	"errors"

	"golang.org/x/sys/unix"
)

// swapIn puts the file at tmp in place of the one at path atomically and
// leaves the file it displaced at tmp (none, if path did not exist), so
// the caller can look at what it replaced and put it back: a person's save
// landing between a check and a rename is never lost.
func swapIn(tmp, path string, exists bool) (swapped bool, err error) {
	if !exists {
		err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_NOREPLACE)
		if errors.Is(err, unix.EEXIST) {
			return false, nil // created meanwhile: not ours to replace
		}
		return err == nil, err
	}
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOENT) {
		return false, nil // removed meanwhile
	}
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return true, renameOver(tmp, path) // a file system without exchange
	}
	return err == nil, err
}

// swapBack undoes swapIn.
func swapBack(tmp, path string) error {
	return unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE)
}
