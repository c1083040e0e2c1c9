package repo_test

import (
	"os"
	"syscall"
)

// peakMemory is the largest resident set, in bytes, of a finished process
// and of the processes it waited for (Linux counts Maxrss in KiB).
func peakMemory(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return ru.Maxrss << 10, true
}
