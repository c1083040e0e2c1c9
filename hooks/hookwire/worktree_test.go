package hookwire

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWorktreeSeparate: the hook binary reads worktree from config.json
// as plangit does, and leaves to plangit any file it cannot read so.
func TestWorktreeSeparate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		config       string // "-" for no file
		separate, ok bool
	}{
		{"-", false, true},
		{`{}`, false, true},
		{`{"retention_days": 3}`, false, true},
		{`{"worktree": "shared"}`, false, true},
		{`{"worktree": "separate"}`, true, true},
		{`{"worktree": "both"}`, false, false},
		{`{"worktree": null}`, false, false},
		{`{"worktree": true}`, false, false},
		{`{"worktree": "separate"`, false, false},
		{`[]`, false, false},
	} {
		main := t.TempDir()
		if c.config != "-" {
			os.MkdirAll(filepath.Join(main, ".code-agent"), 0o755)
			os.WriteFile(filepath.Join(main, ".code-agent", "config.json"), []byte(c.config), 0o644)
		}
		if separate, ok := WorktreeSeparate(main); separate != c.separate || ok != c.ok {
			t.Errorf("%s: %v, %v; want %v, %v", c.config, separate, ok, c.separate, c.ok)
		}
	}
}
