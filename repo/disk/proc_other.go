//go:build !unix

package disk

// Running cannot tell here: a temporary file is debris once it is stale.
func Running(pid int) bool { return pid > 0 }
