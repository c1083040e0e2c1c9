//go:build windows

package repo

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

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
