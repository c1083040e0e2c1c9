//go:build !unix && !windows

package repo

import (
	"errors"
	"os"
)

const oNoFollow = 0

const oNonBlock = 0

func isLinkErr(err error) bool { return false }

var errNoLocks = errors.New("file locks are not supported on this system")

func tryLockFile(f *os.File, exclusive bool) (bool, error) { return false, errNoLocks }

func lockFileWait(f *os.File, exclusive bool) error { return errNoLocks }
