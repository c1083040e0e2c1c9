package hookwire

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/plangit/plangit/repo/disk"
)

// WorktreeSeparate reads the worktree setting of the project at main (a
// main git worktree, disk.FindRoot) from its config.json: separate is
// true for "separate", false for "shared" or no setting (no file, or no
// key). ok is false when the file cannot be read, is not a JSON object,
// or holds another value: plangit reads it then, and says what is wrong.
func WorktreeSeparate(main string) (separate, ok bool) {
	b, err := os.ReadFile(filepath.Join(main, disk.ProjectDir, "config.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return false, true
	}
	if err != nil {
		return false, false
	}
	mode, seen := "shared", false
	if Members(b, func(key string, value []byte) error {
		if key == "worktree" {
			mode, seen = "", true
			if s, isString := String(value); isString && value[0] == '"' {
				mode = s
			}
		}
		return nil
	}) != nil {
		return false, false
	}
	switch {
	case mode == "separate":
		return true, true
	case mode == "shared", !seen:
		return false, true
	}
	return false, false
}
