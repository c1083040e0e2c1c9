//go:build linux

package repo

import (
	"errors"
	"os"
	"syscall"

	"github.com/plangit/plangit/hooks/hookwire"
)

// replace puts the file at tmp in place of the one at path, as a rename
// does, by exchanging the two (hookwire.Swap) and removing the one
// displaced. On ext4 a
// rename over an existing file first writes the new file's data to disk
// (auto_da_alloc), which made each replacement a tenth of a millisecond:
// most of a commit's file work. plangit's session files are written for a
// killed process, which the page cache outlives (README, "Crash safety");
// files a person owns go through WriteFileAtomic's rename and fsync.
func replace(tmp, path string) error {
	displaced, err := hookwire.Swap(tmp, path)
	if displaced {
		os.Remove(tmp) // gone already, if a sweep took it: the file is in place
	}
	return err
}

// swapIn puts the file at tmp in place of the one at path atomically and
// leaves the file it displaced at tmp (none, if path did not exist), so
// the caller can look at what it replaced and put it back: a person's save
// landing between a check and a rename is never lost.
func swapIn(tmp, path string, exists bool) (swapped bool, err error) {
	if !exists {
		err = hookwire.Renameat2(tmp, path, hookwire.RenameNoReplace)
		if errors.Is(err, syscall.EEXIST) {
			return false, nil // created meanwhile: not ours to replace
		}
		return err == nil, err
	}
	err = hookwire.Renameat2(tmp, path, hookwire.RenameExchange)
	if errors.Is(err, syscall.ENOENT) {
		return false, nil // removed meanwhile
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS) {
		return true, renameOver(tmp, path) // a file system without exchange
	}
	return err == nil, err
}

// swapBack undoes swapIn.
func swapBack(tmp, path string) error {
	return hookwire.Renameat2(tmp, path, hookwire.RenameExchange)
}
