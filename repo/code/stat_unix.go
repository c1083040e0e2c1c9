//go:build !windows

package code

import (
	"os"
	"syscall"
)

// inode is a file's inode number, as git's index keeps it (0 where the
// system has none).
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// execBits says whether the file system keeps the executable bit.
const execBits = true
