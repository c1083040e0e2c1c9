package disk

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// RemoveAll removes path and everything under it, as os.RemoveAll does,
// one file at a time: depth first, each entry by os.Remove, and where
// that fails, again once its read-only attribute or mode is cleared (git
// writes its objects read-only; a directory without write permission
// keeps its entries). Symbolic links are removed, never followed. It
// relies on nothing but removing one name — not on os.RemoveAll, whose
// Windows deletion Wine answers "Invalid function" — so it removes a
// session alike on Linux, macOS, Windows and under Wine. What does not
// exist is not an error; on failure it goes on with the rest and
// returns the first error.
func RemoveAll(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var first error
	if fi.IsDir() {
		first = removeEntries(path, fi)
	}
	if err := removeOne(path, fi); err != nil && first == nil {
		first = err
	}
	return first
}

// removeEntries removes what directory dir holds, made writable first
// when it is not.
func removeEntries(dir string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o700 != 0o700 {
		os.Chmod(dir, fi.Mode().Perm()|0o700)
	}
	entries, err := os.ReadDir(dir)
	var first error
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		first = err
	}
	for _, e := range entries {
		if err := RemoveAll(filepath.Join(dir, e.Name())); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// removeOne removes one name; where that fails, it clears the read-only
// mode (on Windows, the read-only attribute) and tries once more.
func removeOne(path string, fi fs.FileInfo) error {
	err := os.Remove(path)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		mode := os.FileMode(0o666)
		if fi.IsDir() {
			mode = 0o777
		}
		if os.Chmod(path, mode) == nil {
			if err2 := os.Remove(path); err2 == nil || errors.Is(err2, fs.ErrNotExist) {
				return nil
			}
		}
	}
	return err
}
