package disk

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestReplaceWaitsForAFileHeldOpen: a working file another process holds
// open for a moment (an editor saving, an indexer reading) is replaced
// once it is let go — on Windows, which refuses the rename meanwhile, too;
// one held open longer is not, and the error says what to do.
func TestReplaceWaitsForAFileHeldOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "task_plan.md")
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("task_plan.md", "old\n")
	held, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		held.Close()
	}()
	if err := Replace(write("new", "new\n"), path); err != nil {
		t.Fatalf("Replace of a file held open for a moment: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Fatalf("the file reads %q after Replace", b)
	}

	if runtime.GOOS != "windows" {
		return // only Windows refuses to replace a file held open
	}
	held, err = os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	err = Replace(write("newer", "newer\n"), path)
	if err == nil || !strings.Contains(err.Error(), "holds "+path+" open") || !strings.Contains(err.Error(), "the next plangit command finishes") {
		t.Fatalf("Replace of a file held open throughout: %v", err)
	}
}
