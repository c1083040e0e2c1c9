//go:build unix

package repo

import (
	"errors"
	"os"
	"syscall"

	"github.com/plangit/plangit/hooks/hookwire"
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
// itself (hookwire.OpenLockTarget). A directory cannot be deleted while it
// holds plangit's files, and deleting a lock file inside it (people do, to
// "unstick" a tool) changes nothing.
func openLockTarget(privateDir string) (*os.File, string, error) {
	f, err := hookwire.OpenLockTarget(privateDir)
	return f, privateDir, err
}

// tryLockFile takes an flock on f without waiting: exclusive, or shared.
// ok is false when another open file holds a conflicting lock.
func tryLockFile(f *os.File, exclusive bool) (ok bool, err error) {
	return hookwire.TryLock(f, exclusive)
}

// lockFileWait takes a shared or exclusive flock on f, waiting as long as
// another open file holds a conflicting one.
func lockFileWait(f *os.File, exclusive bool) error { return hookwire.LockWait(f, exclusive) }
