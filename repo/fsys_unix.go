//go:build unix

package repo

import (
	"errors"
	"os"
	"syscall"
)

// oNoFollow makes an open fail on a symbolic link instead of following it.
const oNoFollow = syscall.O_NOFOLLOW

// oNonBlock keeps an open of something that is not a regular file (a FIFO
// put where a working file belongs) from waiting forever.
const oNonBlock = syscall.O_NONBLOCK

// isLinkErr reports whether an open with oNoFollow failed because the path
// is a symbolic link (ELOOP; EMLINK on FreeBSD and NetBSD).
func isLinkErr(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}

// openLockTarget opens what the session lock is taken on: .git/plangit/
// itself. A directory cannot be deleted while it holds plangit's files, and
// deleting a lock file inside it (people do, to "unstick" a tool) changes
// nothing.
func openLockTarget(privateDir string) (*os.File, string, error) {
	f, err := os.OpenFile(privateDir, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
	return f, privateDir, err
}

// tryLockFile takes an flock on f without waiting: exclusive, or shared.
// ok is false when another open file holds a conflicting lock.
func tryLockFile(f *os.File, exclusive bool) (ok bool, err error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// lockFileWait takes a shared or exclusive flock on f, waiting as long as
// another open file holds a conflicting one.
func lockFileWait(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
