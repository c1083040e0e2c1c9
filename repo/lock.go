package repo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/plangit/plangit/plan"
)

// The session lock is an flock on .git/plangit/lock. plangit never follows
// a symbolic link there, and it holds even if the file is deleted or
// replaced: a process that locked a file no longer at the path starts over
// on the one that is, and the holder checks that its file is still the one
// at the path before it moves the branch (see commit).

// errLockLost says the lock file was deleted or replaced while this process
// held it, so another process may have taken the new one: the change starts
// over under a fresh lock.
var errLockLost = errors.New("the session lock file was replaced while held")

// lockPoll bounds how long a waiter sleeps between tries.
const lockPoll = 8 * time.Millisecond

// lockPath opens path, never through a symbolic link, and takes an flock
// on it, waiting at most wait (zero: one try), and no longer once giveUp
// (if set) says so. busy is true when another process held it all that
// time.
func lockPath(path string, exclusive bool, wait time.Duration, giveUp func() bool) (f *os.File, busy bool, err error) {
	deadline := time.Now().Add(wait)
	delay := time.Millisecond
	for {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|oNoFollow, 0o644)
		if err != nil {
			if isLinkErr(err) {
				return nil, false, plan.Errorf(plan.CodeIOError, "%s is a symbolic link; plangit never follows one (remove it)", path)
			}
			return nil, false, err
		}
		for {
			ok, err := tryLockFile(f, exclusive)
			if err != nil {
				f.Close()
				return nil, false, err
			}
			if ok {
				break
			}
			if !time.Now().Before(deadline) || giveUp != nil && giveUp() {
				f.Close()
				return nil, true, nil
			}
			time.Sleep(min(delay, time.Until(deadline)))
			delay = min(2*delay, lockPoll)
		}
		if sameFile(f, path) {
			return f, false, nil
		}
		f.Close() // deleted or replaced while we waited: lock the file at the path
	}
}

// sameFile reports whether f is the file at path now.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// ensurePrivate makes .git/plangit/ if it is missing, and refuses one that
// is not a real directory, so that nothing plangit writes there can land
// outside the session.
func (s *Session) ensurePrivate() error {
	dir := filepath.Join(s.gitDir, privateDir)
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return plan.WrapError(plan.CodeIOError, err, "cannot create %s", dir)
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot read %s", dir)
	}
	if !fi.IsDir() {
		return plan.Errorf(plan.CodeIOError, "%s is not a directory (a symbolic link?); plangit never follows one", dir)
	}
	return nil
}

// lock takes the session's exclusive lock, waiting at most wait (zero:
// defaultWait), and returns the function that releases it. A process that
// holds the lock already (replaying queued hook events inside a change)
// takes it again for free. With yield, it stops waiting as soon as queued
// hook events show that others are waiting too: the caller queues its
// change behind theirs instead.
func (s *Session) lock(wait time.Duration, yield ...bool) (func(), error) {
	if s.locked {
		return func() {}, nil
	}
	if err := s.ensurePrivate(); err != nil {
		return nil, err
	}
	if wait <= 0 {
		wait = defaultWait
	}
	var giveUp func() bool
	if len(yield) > 0 && yield[0] {
		giveUp = s.Queued
	}
	f, busy, err := lockPath(s.lockPath(), true, wait, giveUp)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot lock session %s", s.ID)
	}
	if busy {
		return nil, plan.Errorf(plan.CodeLockTimeout, "session %s is busy: another plangit process held its lock for %s; try again", s.ID, wait).With("session", s.ID)
	}
	s.locked, s.lockFile = true, f
	return func() { s.locked, s.lockFile = false, nil; f.Close() }, nil
}

// tryExclusive takes the lock if it is free right now. It is for optional
// work done by a reader: completing a change a killed process left
// unfinished, draining queued hook events, saving a repaired cache.
func (s *Session) tryExclusive() (func(), bool) {
	if s.locked {
		return func() {}, true
	}
	if _, err := os.Lstat(filepath.Join(s.gitDir, privateDir)); err != nil {
		return nil, false
	}
	f, busy, err := lockPath(s.lockPath(), true, 0, nil)
	if err != nil || busy {
		return nil, false
	}
	s.locked, s.lockFile = true, f
	return func() { s.locked, s.lockFile = false, nil; f.Close() }, true
}

func (s *Session) lockPath() string { return filepath.Join(s.gitDir, privateDir, lockName) }

// holdsLock reports whether the file this process locked is still the lock
// file at the path.
func (s *Session) holdsLock() bool {
	return s.lockFile == nil || sameFile(s.lockFile, s.lockPath())
}
