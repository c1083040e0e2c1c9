//go:build !linux

package hookwire

import "os"

// statID has no inode to give here; size and modification time decide.
func statID(fi os.FileInfo) string { return "" }
