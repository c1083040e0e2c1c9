//go:build !linux

package repo_test

import "os"

// peakMemory is not read here: the memory bound is checked on Linux.
func peakMemory(*os.ProcessState) (int64, bool) { return 0, false }
