//go:build windows

package repo

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// oNoFollow is zero here: Windows opens do not follow symbolic links to
// files the way Unix opens do, and plangit's target is Unix.
const oNoFollow = 0

const oNonBlock = 0

func isLinkErr(err error) bool { return false }

// openLockTarget opens what the session lock is taken on: here, a lock
// file in .git/plangit/.
func openLockTarget(privateDir string) (*os.File, string, error) {
	path := filepath.Join(privateDir, "lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	return f, path, err
}

func lockFlags(exclusive bool) uint32 {
	if exclusive {
		return windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	return 0
}

// tryLockFile takes a lock on f without waiting.
func tryLockFile(f *os.File, exclusive bool) (bool, error) {
	err := windows.LockFileEx(windows.Handle(f.Fd()), lockFlags(exclusive)|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &windows.Overlapped{})
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}

// lockFileWait takes a lock on f, waiting for it.
func lockFileWait(f *os.File, exclusive bool) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), lockFlags(exclusive), 0, 1, 0, &windows.Overlapped{})
}
