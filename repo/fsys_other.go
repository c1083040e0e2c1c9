//go:build !unix && !windows

package repo

import (
	"errors"
	"os"
	"path/filepath"
)

const oNoFollow = 0

const oNonBlock = 0

func isLinkErr(err error) bool { return false }

// openLockTarget opens what the session lock is taken on: here, a lock
// file in .git/plangit/.
func openLockTarget(privateDir string) (*os.File, string, error) {
	path := filepath.Join(privateDir, "lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	return f, path, err
}

var errNoLocks = errors.New("file locks are not supported on this system")

func tryLockFile(f *os.File, exclusive bool) (bool, error) { return false, errNoLocks }

func lockFileWait(f *os.File, exclusive bool) error { return errNoLocks }
