//go:build unix

package repotest

import (
	"os"
	"syscall"
)

// lockBuild waits for an exclusive lock on f.
func lockBuild(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
