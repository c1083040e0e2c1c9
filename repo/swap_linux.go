//go:build linux

package repo

import (
	"errors"

	"golang.org/x/sys/unix"
)

// replace puts the file at tmp in place of the one at path, as a rename
// does, by exchanging the two and removing the one displaced. On ext4 a
// rename over an existing file first writes the new file's data to disk
// (auto_da_alloc), which made each replacement a tenth of a millisecond:
// most of a commit's file work. plangit's session files are written for a
// killed process, which the page cache outlives (README, "Crash safety");
// files a person owns go through WriteFileAtomic's rename and fsync.
func replace(tmp, path string) error {
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		if rerr := unix.Unlink(tmp); rerr != nil {
			// A directory was at path (unlink removes no directory):
			// put it back, and fail as a rename would.
			if err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE); err != nil {
				return err
			}
			return renameOver(tmp, path)
		}
		return nil
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return renameOver(tmp, path) // nothing at path, or a file system without exchange
	}
	return err
}

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
