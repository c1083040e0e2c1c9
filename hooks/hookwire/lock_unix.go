//go:build unix

package hookwire

import (
	"errors"
	"os"
	"syscall"
)

// The session lock is an flock on the session's .git/plangit/ directory
// (package repo says why a directory). These are its parts, shared by
// plangit and the hook binary, which counts a tool use under it.

// OpenLockTarget opens what the session lock is taken on: the directory
// dir itself, never through a symbolic link.
func OpenLockTarget(dir string) (*os.File, error) {
	return os.OpenFile(dir, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
}

// TryLock takes an flock on f without waiting: exclusive, or shared. ok
// is false when another open file holds a conflicting lock.
func TryLock(f *os.File, exclusive bool) (ok bool, err error) {
	err = flock(f, how(exclusive)|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// LockWait takes a shared or exclusive flock on f, waiting as long as
// another open file holds a conflicting one.
func LockWait(f *os.File, exclusive bool) error { return flock(f, how(exclusive)) }

func how(exclusive bool) int {
	if exclusive {
		return syscall.LOCK_EX
	}
	return syscall.LOCK_SH
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// TryLockSession takes the session lock on privateDir if it is free right
// now: the open directory, to be closed to release it; nil when another
// process holds it or it cannot be taken.
func TryLockSession(privateDir string) *os.File {
	f, err := OpenLockTarget(privateDir)
	if err != nil {
		return nil
	}
	if ok, err := TryLock(f, true); !ok || err != nil || !SameFile(f, privateDir) {
		f.Close()
		return nil
	}
	return f
}
