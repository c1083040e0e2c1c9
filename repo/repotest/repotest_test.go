package repotest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// FsckArgs switches off git fsck's commit-graph and multi-pack-index checks
// only where the repository has neither file: with a commit-graph written,
// fsck checks it, and finds it damaged.
func TestFsckArgs(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) ([]byte, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir,
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		return cmd.CombinedOutput()
	}
	must := func(args ...string) {
		t.Helper()
		if out, err := git(args...); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	must("init", "-q")
	must("commit", "-q", "--allow-empty", "-m", "one")

	if args := FsckArgs(dir); !slices.Contains(args, "core.commitGraph=false") {
		t.Errorf("no commit-graph, yet the check stays on: %q", args)
	}
	if args := FsckArgs(dir, "--no-dangling"); args[len(args)-1] != "--no-dangling" {
		t.Errorf("flags not passed on: %q", args)
	}

	must("commit-graph", "write", "--reachable")
	args := FsckArgs(dir)
	if slices.Contains(args, "core.commitGraph=false") {
		t.Fatalf("a commit-graph is there, yet its check is off: %q", args)
	}
	must(args...)
	graph := filepath.Join(dir, ".git", "objects", "info", "commit-graph")
	b, err := os.ReadFile(graph)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-30] ^= 0xff // inside the trailing checksum's reach
	if err := os.Chmod(graph, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(graph, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := git(FsckArgs(dir)...); err == nil {
		t.Errorf("git fsck passed a damaged commit-graph:\n%s", out)
	}
}
