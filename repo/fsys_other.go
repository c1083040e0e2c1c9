//go:build !unix && !windows

package repo

import (
	"errors"
	"os"
)

var errNoLocks = errors.New("file locks are not supported on this system")

func tryLockFile(f *os.File, exclusive bool) (bool, error) { return false, errNoLocks }

func lockFileWait(f *os.File, exclusive bool) error { return errNoLocks }
