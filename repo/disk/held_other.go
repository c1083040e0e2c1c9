//go:build !windows

package disk

// heldOpen reports whether err is the system refusing a rename or a
// removal because another process holds the file open: never here.
func heldOpen(err error) bool { return false }
