//go:build unix

package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestShellJoinRunsInSh: the POSIX form, as Codex, Cursor and Gemini CLI
// run it on Unix (and Git Bash on Windows), run for real by sh -c: a
// program whose directory has spaces, quotes, & ^ % ! $ ` and non-ASCII
// letters gets exactly its arguments.
func TestShellJoinRunsInSh(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("no sh: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "it's \u2019a\u2019 & b ^ 50% !x $HOME `id` (ü) \\n;")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "argv")
	spy := filepath.Join(dir, "plangit")
	os.WriteFile(spy, []byte("#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" >\"$ARGV_OUT\"\n"), 0o755)
	argv := []string{spy, "hook", "SessionStart", "--host", "codex"}
	line, err := ShellPOSIX.Join(argv)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, "-c", line)
	cmd.Env = append(os.Environ(), "ARGV_OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sh -c %s: %v\n%s", line, err, b)
	}
	b, _ := os.ReadFile(out)
	if got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); !reflect.DeepEqual(got, argv) {
		t.Errorf("sh -c %s ran %q", line, got)
	}
}
