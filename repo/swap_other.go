//go:build !linux

package repo

import "errors"

// swapIn puts the file at tmp in place of the one at path. Without an
// atomic exchange, a save landing between the caller's check and this
// rename is replaced.
func swapIn(tmp, path string, exists bool) (bool, error) {
	return true, renameOver(tmp, path)
}

func swapBack(tmp, path string) error { return errors.ErrUnsupported }

// replace puts the file at tmp in place of the one at path.
func replace(tmp, path string) error { return renameOver(tmp, path) }
