package code

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/repo/repotest"
)

// project makes a git project with a session directory's .git beside it,
// as plangit lays them out, and returns the project root and the session's
// .git.
func newProject(t *testing.T) (root, gitDir string) {
	t.Helper()
	root = t.TempDir()
	repotest.Git(t, root, "init", "-q", "-b", "main")
	repotest.Git(t, root, "config", "user.name", "Project Dev")
	repotest.Git(t, root, "config", "user.email", "dev@example.com")
	write(t, root, ".gitignore", ".env\nbuild/\n*.log\n")
	write(t, root, "src/main.go", "package main\n\nfunc main() {}\n")
	write(t, root, "src/util.go", "package main\n")
	write(t, root, "README.md", "# project\n")
	write(t, root, "old.txt", "to be renamed\n")
	write(t, root, "gone.txt", "to be deleted\n")
	write(t, root, "logo.bin", "\x00\x01\x02binary\xff")
	repotest.Git(t, root, "add", "-A")
	repotest.Git(t, root, "commit", "-q", "-m", "first")
	gitDir = filepath.Join(root, ".code-agent", "plans", "s1", ".git")
	write(t, root, ".code-agent/.gitignore", "*\n")
	if err := os.MkdirAll(gitDir, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, gitDir
}

func write(t *testing.T, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitTree is the tree git itself makes of the work tree with `git add -A`
// into a throwaway index: tracked and untracked files, never ignored ones.
func gitTree(t *testing.T, root string) string {
	t.Helper()
	idx := filepath.Join(t.TempDir(), "index")
	b, err := os.ReadFile(filepath.Join(root, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(idx, b, 0o644)
	t.Setenv("GIT_INDEX_FILE", idx)
	repotest.Git(t, root, "add", "-A")
	tree := strings.TrimSpace(repotest.Git(t, root, "write-tree"))
	os.Unsetenv("GIT_INDEX_FILE")
	return tree
}

// projectState is what plangit must never change in the project.
func projectState(t *testing.T, root string) string {
	t.Helper()
	idx, _ := os.ReadFile(filepath.Join(root, ".git", "index"))
	return repotest.Git(t, root, "status", "--porcelain", "--untracked-files=all") + "|" +
		repotest.Git(t, root, "stash", "list") + "|" + repotest.Git(t, root, "for-each-ref") + "|" +
		repotest.Git(t, root, "rev-parse", "HEAD") + "|" + string(idx)
}

func TestCaptureIsGitsTree(t *testing.T) {
	root, gitDir := newProject(t)
	s, err := Open(gitDir, root)
	if err != nil {
		t.Fatal(err)
	}
	before := projectState(t, root)
	first, err := s.Capture(Options{Message: "init"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := first.Tree.String(), gitTree(t, root); got != want {
		t.Fatalf("first snapshot's tree is %s, git's is %s", got, want)
	}
	// Step 1: modified, untracked, deleted, renamed, binary, executable,
	// symlink, ignored files.
	time.Sleep(10 * time.Millisecond)
	write(t, root, "src/main.go", "package main\n\nfunc main() { println(1) }\n")
	write(t, root, "src/new.go", "package main // new\n")
	write(t, root, "docs/guide.md", "guide\n")
	os.Remove(filepath.Join(root, "gone.txt"))
	os.Rename(filepath.Join(root, "old.txt"), filepath.Join(root, "renamed.txt"))
	write(t, root, "logo.bin", "\x00\x01\x02binary changed\xff")
	write(t, root, ".env", "SECRET=1\n")
	write(t, root, "build/out.o", "object\n")
	write(t, root, "debug.log", "log\n")
	if runtime.GOOS != "windows" {
		write(t, root, "run.sh", "#!/bin/sh\n")
		os.Chmod(filepath.Join(root, "run.sh"), 0o755)
		os.Symlink("src/main.go", filepath.Join(root, "link"))
	}
	before = projectState(t, root)
	second, err := s.Capture(Options{Message: "step 1"})
	if err != nil {
		t.Fatal(err)
	}
	if after := projectState(t, root); after != before {
		t.Fatalf("the capture changed the project:\n%s\n----\n%s", before, after)
	}
	if got, want := second.Tree.String(), gitTree(t, root); got != want {
		t.Fatalf("second snapshot's tree is %s, git's is %s", got, want)
	}
	files, err := s.Files(second.Commit)
	if err != nil {
		t.Fatal(err)
	}
	for _, never := range []string{".env", "build/out.o", "debug.log", "gone.txt", "old.txt"} {
		if _, ok := files[never]; ok {
			t.Errorf("snapshot holds %s", never)
		}
	}
	// Nothing changed: the head again, no new commit.
	third, err := s.Capture(Options{Message: "again"})
	if err != nil {
		t.Fatal(err)
	}
	if third.Commit != second.Commit {
		t.Errorf("an unchanged work tree made a new snapshot")
	}
	if !s.Ancestor(first.Commit, second.Commit) {
		t.Errorf("the head does not reach the first snapshot")
	}
	if out := repotest.Git(t, root, "log", "--all", "--format=%H"); strings.Count(out, "\n") != 1 {
		t.Errorf("git log --all in the project shows more than its one commit:\n%s", out)
	}
	out := repotest.Git(t, s.Dir(), repotest.FsckArgs(s.Dir(), "--no-dangling")...)
	if strings.TrimSpace(out) != "" {
		t.Errorf("fsck of the code store: %s", out)
	}
}

// The project's gc never loses a snapshot's object: the store holds its
// own link to every object it borrowed.
func TestCaptureSurvivesProjectGC(t *testing.T) {
	root, gitDir := newProject(t)
	repotest.Git(t, root, "gc", "-q") // everything packed
	s, err := Open(gitDir, root)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Capture(Options{Message: "init"})
	if err != nil {
		t.Fatal(err)
	}
	// The project forgets its history entirely.
	write(t, root, "src/main.go", "rewritten\n")
	repotest.Git(t, root, "checkout", "-q", "--orphan", "other")
	repotest.Git(t, root, "add", "-A")
	repotest.Git(t, root, "commit", "-q", "-m", "orphan")
	repotest.Git(t, root, "branch", "-D", "main")
	repotest.Git(t, root, "reflog", "expire", "--expire=now", "--all")
	repotest.Git(t, root, "gc", "-q", "--prune=now")
	files, err := s.Files(snap.Commit)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range files {
		if _, err := s.Blob(f.Hash, 0); err != nil {
			t.Errorf("%s lost after the project's gc: %v", name, err)
		}
	}
	if _, ok := files["src/main.go"]; !ok {
		t.Fatal("snapshot lacks src/main.go")
	}
	if out := repotest.Git(t, s.Dir(), repotest.FsckArgs(s.Dir(), "--no-dangling")...); strings.TrimSpace(out) != "" {
		t.Errorf("fsck of the code store: %s", out)
	}
}

func TestCaptureLargeAndNotGit(t *testing.T) {
	root, gitDir := newProject(t)
	s, err := Open(gitDir, root)
	if err != nil {
		t.Fatal(err)
	}
	write(t, root, "big.dat", strings.Repeat("x", 2000))
	snap, err := s.Capture(Options{Message: "init", MaxFile: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Large) != 1 || snap.Large[0] != (Large{Path: "big.dat", Size: 2000}) {
		t.Errorf("large files: %+v", snap.Large)
	}
	again, err := s.Snapshot(snap.Commit)
	if err != nil || len(again.Large) != 1 {
		t.Errorf("large files read back: %+v %v", again, err)
	}
	files, _ := s.Files(snap.Commit)
	if _, ok := files["big.dat"]; ok {
		t.Error("a large file is in the tree")
	}
	if _, err := Open(gitDir, t.TempDir()); err != ErrNotGit {
		t.Errorf("a directory outside git: %v", err)
	}
}
