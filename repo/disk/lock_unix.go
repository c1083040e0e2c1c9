//go:build unix

package disk

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// The session lock is an flock on the session's .git directory itself:
// deleting a lock file (people do, to "unstick" a tool), or the whole of
// .git/plangit with the intent record, the caches and the queue, changes
// nothing about who holds it. These are its parts, shared by plangit and
// the hook binary, which counts a tool use under it.

// NoFollow makes an open fail on a symbolic link instead of following it.
const NoFollow = syscall.O_NOFOLLOW

// NonBlock keeps an open of something that is not a regular file (a FIFO
// put where a working file belongs) from waiting forever.
const NonBlock = syscall.O_NONBLOCK

// IsLinkErr reports whether an open with NoFollow failed because the path
// is a symbolic link (ELOOP; EMLINK on FreeBSD and NetBSD).
func IsLinkErr(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}

// OpenLockTarget opens what the session lock is taken on, the .git
// directory holding privateDir, never through a symbolic link; path is
// what was opened. (Earlier versions locked privateDir itself, which a
// person could delete while a change held it: a second writer then took
// a lock of its own on the new one.)
func OpenLockTarget(privateDir string) (f *os.File, path string, err error) {
	path = filepath.Dir(privateDir)
	f, err = os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
	if errors.Is(err, syscall.ENOTDIR) {
		// Linux answers a link with ENOTDIR before O_NOFOLLOW's ELOOP:
		// say it is a link.
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			err = &os.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
		}
	}
	return f, path, err
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

// Release releases the lock f holds and closes f. Closing alone releases
// an flock only once no descriptor refers to the open file: a program
// another goroutine of this process starts at that moment holds a copy of
// every descriptor from its fork until its exec, and the lock with it, so
// whoever tried the lock just after would find it taken. LOCK_UN releases
// it at once, whatever copies exist.
func Release(f *os.File) error {
	flock(f, syscall.LOCK_UN)
	return f.Close()
}

// LockAppend makes f's appends take turns with other appenders'. Unix
// writes each O_APPEND write whole, so there is nothing to take.
func LockAppend(f *os.File) error { return nil }

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

// TryLockSession takes the session lock of privateDir if it is free right
// now: the open directory, which Release releases; nil when another
// process holds it or it cannot be taken.
func TryLockSession(privateDir string) *os.File {
	f, path, err := OpenLockTarget(privateDir)
	if err != nil {
		return nil
	}
	ok, err := TryLock(f, true)
	if !ok || err != nil {
		f.Close()
		return nil
	}
	if !SameFile(f, path) {
		Release(f)
		return nil
	}
	return f
}
