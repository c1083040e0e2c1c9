package repo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
)

// The session lock is an flock on the session's .git directory (on
// Windows, on a lock file in .git/plangit/). It is opened without
// following a symbolic link, and it holds whatever happens to the files in
// .git: deleting a lock file, or .git/plangit/ with everything in it,
// leaves it held (a change whose intent record went with it starts over,
// see commit). A process that locked a directory no longer at the path
// (replaced while it waited) starts over on the one that is, and a holder
// checks that its directory is still the one at the path at the start of
// every attempt at a change and again before it moves the branch.

// errLockLost says the locked directory was replaced while this process
// held it, so another process may have locked the new one: the change
// starts over under a fresh lock.
var errLockLost = errors.New("the session's lock was replaced while held")

// lockPoll bounds how long a waiter sleeps between tries.
const lockPoll = 8 * time.Millisecond

// lockPrivate takes the session lock of dir (.git/plangit), waiting at most
// wait (zero: one try), and no longer once giveUp (if set) says so. busy is
// true when another process held it all that time.
func lockPrivate(dir string, wait time.Duration, giveUp func() bool) (f *os.File, path string, busy bool, err error) {
	deadline := time.Now().Add(wait)
	delay := time.Millisecond
	for {
		f, path, err = disk.OpenLockTarget(dir)
		if err != nil {
			if disk.IsLinkErr(err) {
				return nil, "", false, plan.Errorf(plan.CodeIOError, "%s is a symbolic link; plangit never follows one (remove it)", path)
			}
			return nil, "", false, err
		}
		for {
			ok, err := disk.TryLock(f, true)
			if err != nil {
				f.Close()
				return nil, "", false, err
			}
			if ok {
				break
			}
			if !time.Now().Before(deadline) || giveUp != nil && giveUp() {
				f.Close()
				return nil, "", true, nil
			}
			time.Sleep(min(delay, time.Until(deadline)))
			delay = min(2*delay, lockPoll)
		}
		if sameFile(f, path) {
			return f, path, false, nil
		}
		disk.Release(f) // replaced while we waited: lock the one at the path
	}
}

// sameFile reports whether f is the file at path now.
func sameFile(f *os.File, path string) bool { return disk.SameFile(f, path) }

// EnsurePrivate makes .git/plangit/ if it is missing, and refuses one that
// is not a real directory, so that nothing plangit writes there can land
// outside the session.
func (s *Session) EnsurePrivate() error { return ensurePrivate(filepath.Join(s.gitDir, privateDir)) }

// ensurePrivate makes dir, a session's .git/plangit/, as EnsurePrivate
// does.
func ensurePrivate(dir string) error {
	for try := 0; ; try++ {
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) && try < 20 {
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return plan.WrapError(plan.CodeIOError, err, "cannot create %s", dir)
			}
			continue // and look again: it may be gone already
		}
		if err != nil {
			return plan.WrapError(plan.CodeIOError, err, "cannot read %s", dir)
		}
		if !fi.IsDir() {
			return plan.Errorf(plan.CodeIOError, "%s is not a directory (a symbolic link?); plangit never follows one", dir)
		}
		return nil
	}
}

// sessionLock is the session lock as this process holds it: whether it
// does, and the file it locked at its path in dir (.git/plangit/).
type sessionLock struct {
	dir    string   // .git/plangit/, where the lock is taken
	id     string   // the session's id, for messages
	held   bool     // this process holds the session lock
	file   *os.File // what it locked
	target string   // and its path
}

// take takes the session's exclusive lock, waiting at most wait (zero:
// defaultWait), and returns the function that releases it. A process that
// holds the lock already (replaying queued hook events inside a change)
// takes it again for free. With giveUp, it stops waiting as soon as
// giveUp says so — queued hook events show that others are waiting too:
// the caller queues its change behind theirs instead.
func (l *sessionLock) take(wait time.Duration, giveUp func() bool) (func(), error) {
	if l.held {
		return func() {}, nil
	}
	if err := ensurePrivate(l.dir); err != nil {
		return nil, err
	}
	if wait <= 0 {
		wait = defaultWait
	}
	f, path, busy, err := lockPrivate(l.dir, wait, giveUp)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot lock session %s", l.id)
	}
	if busy {
		return nil, plan.Errorf(plan.CodeLockTimeout, "session %s is busy: another plangit process held its lock for %s; try again", l.id, wait).With("session", l.id)
	}
	return l.hold(f, path), nil
}

// try takes the lock if it is free right now. It is for optional work
// done by a reader: completing a change a killed process left unfinished,
// applying queued hook events, saving a repaired cache.
func (l *sessionLock) try() (func(), bool) {
	if l.held {
		return func() {}, true
	}
	if fi, err := os.Lstat(l.dir); err != nil || !fi.IsDir() {
		return nil, false
	}
	f, path, busy, err := lockPrivate(l.dir, 0, nil)
	if err != nil || busy {
		return nil, false
	}
	return l.hold(f, path), true
}

func (l *sessionLock) hold(f *os.File, path string) func() {
	l.held, l.file, l.target = true, f, path
	return func() {
		l.held, l.file, l.target = false, nil, ""
		disk.Release(f)
	}
}

// intact reports whether what this process locked is still what is at
// the lock's path.
func (l *sessionLock) intact() bool {
	return l.file == nil || sameFile(l.file, l.target)
}
