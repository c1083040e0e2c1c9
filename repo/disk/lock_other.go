//go:build !unix

package disk

import (
	"errors"
	"os"
	"path/filepath"
)

// NoFollow and NonBlock are zero here: other systems' opens have no such
// flags.
const (
	NoFollow = 0
	NonBlock = 0
)

// IsLinkErr reports whether an open failed because the path is a
// symbolic link or junction: on Windows, an open through OpenFile or
// OpenShared, which refuse one.
func IsLinkErr(err error) bool { return errors.Is(err, errLink) }

// OpenLockTarget opens what the session lock is taken on: here, a lock
// file in privateDir, which path names, never through a symbolic link or
// junction (on Windows; OpenFile).
func OpenLockTarget(privateDir string) (f *os.File, path string, err error) {
	path = filepath.Join(privateDir, "lock")
	f, err = OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	return f, path, err
}

// TryLockSession is for Unix systems alone: elsewhere the hook binary
// hands every change to plangit, which locks as the system allows.
func TryLockSession(privateDir string) *os.File { return nil }

// Release releases the lock f holds and closes f. Here a lock goes with
// its handle, which no program this process starts inherits.
func Release(f *os.File) error { return f.Close() }
