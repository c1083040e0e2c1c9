package disk

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPathsAsJoined: the paths the hooks build without filepath.Join are
// the ones it makes of clean directories, a root among them.
func TestPathsAsJoined(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{filepath.FromSlash("/"), filepath.FromSlash("/a"), filepath.FromSlash("/a/b c/.code-agent/plans/s-1"), filepath.Join(t.TempDir(), "x")} {
		if got, want := under(dir, "name"), filepath.Join(dir, "name"); got != want {
			t.Errorf("under(%q) = %q, want %q", dir, got, want)
		}
		if got, want := PrivatePath(dir, IntentFile), filepath.Join(dir, ".git", PrivateDir, IntentFile); got != want {
			t.Errorf("PrivatePath(%q) = %q, want %q", dir, got, want)
		}
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ProjectDir), 0o755)
	os.MkdirAll(filepath.Join(root, "sub", "deeper"), 0o755)
	for _, dir := range []string{root, root + "/", filepath.Join(root, "sub", "deeper"), root + "/sub/./deeper/"} {
		if got := FindRoot(dir, nil); got != root {
			t.Errorf("FindRoot(%q) = %q, want %q", dir, got, root)
		}
	}
	if got := FindRoot("/", nil); got != "/" {
		t.Errorf("FindRoot(/) = %q", got)
	}
}
