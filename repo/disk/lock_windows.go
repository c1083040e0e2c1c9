//go:build windows

package disk

import (
	"errors"
	"os"
	"syscall"
	"unsafe"
)

// The session lock on Windows is LockFileEx on the lock file's first
// byte, called through kernel32 so that this package needs nothing beyond
// the standard library.

var lockFileEx = syscall.NewLazyDLL("kernel32.dll").NewProc("LockFileEx")

const (
	lockfileFailImmediately = 0x1
	lockfileExclusiveLock   = 0x2
	errorLockViolation      = syscall.Errno(33)
)

func lockFile(f *os.File, flags uint32) error {
	var ov syscall.Overlapped
	r, _, err := lockFileEx.Call(f.Fd(), uintptr(flags), 0, 1, 0, uintptr(unsafe.Pointer(&ov)))
	if r != 0 {
		return nil
	}
	return err
}

func lockFlags(exclusive bool) uint32 {
	if exclusive {
		return lockfileExclusiveLock
	}
	return 0
}

// TryLock takes a lock on f without waiting. ok is false when another
// open file holds a conflicting lock.
func TryLock(f *os.File, exclusive bool) (bool, error) {
	err := lockFile(f, lockFlags(exclusive)|lockfileFailImmediately)
	if errors.Is(err, errorLockViolation) {
		return false, nil
	}
	return err == nil, err
}

// LockWait takes a lock on f, waiting for it.
func LockWait(f *os.File, exclusive bool) error { return lockFile(f, lockFlags(exclusive)) }
