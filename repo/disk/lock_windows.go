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

func lockFile(f *os.File, flags uint32) error { return lockByte(f, flags, 0) }

// lockByte locks one byte at 2^62 + offset. Windows' byte-range locks are
// mandatory: no handle writes within a shared lock's range, its holder's
// included, and none but its holder within an exclusive one. A lock on a
// byte the file holds would fail the queue's appends, which write under a
// shared lock and, into an empty queue, at offset 0; no file plangit
// writes reaches 2^62.
func lockByte(f *os.File, flags, offset uint32) error {
	ov := syscall.Overlapped{Offset: offset, OffsetHigh: 1 << 30}
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

// LockAppend makes f's appends take turns with other appenders' that hold
// a lock on the file (LockWait, shared), until f is closed. Unix writes
// each O_APPEND write whole; Windows does not promise to, and under Wine
// appends made at once were seen to spoil each other's line.
// The lock is on the byte after LockWait's, so that it does not hold off
// a reader's exclusive lock.
func LockAppend(f *os.File) error { return lockByte(f, lockfileExclusiveLock, 1) }
