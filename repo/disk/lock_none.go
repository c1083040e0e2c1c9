//go:build !unix && !windows

package disk

import (
	"errors"
	"os"
)

var errNoLocks = errors.New("file locks are not supported on this system")

// TryLock cannot lock here.
func TryLock(f *os.File, exclusive bool) (bool, error) { return false, errNoLocks }

// LockWait cannot lock here.
func LockWait(f *os.File, exclusive bool) error { return errNoLocks }

// LockAppend makes f's appends take turns with other appenders'.
func LockAppend(f *os.File) error { return errNoLocks }
