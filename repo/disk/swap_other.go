//go:build !linux

package disk

import (
	"errors"
)

// Without renameat2, a file is put in place by a rename (see
// swap_linux.go).

// Replace puts the file at tmp in place of the one at path.
func Replace(tmp, path string) error { return Rename(tmp, path) }

// SwapIn puts the file at tmp in place of the one at path. Without an
// atomic exchange, a save landing between the caller's check and this
// rename is replaced.
func SwapIn(tmp, path string, exists bool) (bool, error) {
	return true, Rename(tmp, path)
}

// SwapBack cannot undo SwapIn here.
func SwapBack(tmp, path string) error { return errors.ErrUnsupported }
