//go:build unix

package disk

import "syscall"

// Running reports whether a process with this id runs (or may: one that
// belongs to another user counts): a temporary file or directory named
// for its writer is debris once it does not.
func Running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
