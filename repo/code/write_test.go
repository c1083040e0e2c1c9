package code

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/plangit/plangit/repo/repotest"
)

func TestApply(t *testing.T) {
	root, gitDir := newProject(t)
	s, err := Open(gitDir, root)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Capture(Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := s.Files(snap.Commit)
	readme, main := files["README.md"], files["src/main.go"]
	newBlob, err := s.WriteBlob([]byte("#!/bin/sh\necho hi\n"))
	if err != nil {
		t.Fatal(err)
	}
	statusBefore := repotest.Git(t, root, "status", "--porcelain")
	headBefore := repotest.Git(t, root, "rev-parse", "HEAD")

	// A write whose From no longer holds changes nothing.
	stale := []Write{
		{Path: "bin/run.sh", To: &File{Mode: filemode.Executable, Hash: newBlob}},
		{Path: "README.md", From: &main, To: &readme},
	}
	if err := s.Apply(stale); !errors.Is(err, ErrChanged) {
		t.Fatalf("a stale From: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "bin")); err == nil {
		t.Fatal("a refused write made bin/")
	}

	ws := []Write{
		{Path: "bin/run.sh", To: &File{Mode: filemode.Executable, Hash: newBlob}},
		{Path: "README.md", From: &readme, To: &main},
		{Path: "src/util.go", From: ptr(files["src/util.go"])},
	}
	if err := s.Apply(ws); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "README.md")); string(b) != "package main\n\nfunc main() {}\n" {
		t.Errorf("README.md: %q", b)
	}
	if fi, err := os.Stat(filepath.Join(root, "bin", "run.sh")); err != nil || runtime.GOOS != "windows" && fi.Mode()&0o100 == 0 {
		t.Errorf("bin/run.sh: %v %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(root, "src", "util.go")); err == nil {
		t.Error("src/util.go is still there")
	}
	if err := s.Apply(Reverse(ws)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, "bin")); err == nil {
		t.Error("undoing the write left bin/")
	}
	back, err := s.Capture(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Commit != snap.Commit {
		t.Error("the reversed write did not bring the work tree back")
	}
	if got := repotest.Git(t, root, "status", "--porcelain"); got != statusBefore {
		t.Errorf("git status: %q, was %q", got, statusBefore)
	}
	if got := repotest.Git(t, root, "rev-parse", "HEAD"); got != headBefore {
		t.Error("HEAD moved")
	}
}

func ptr(f File) *File { return &f }

func TestApplyRefusesHostilePaths(t *testing.T) {
	root, gitDir := newProject(t)
	s, err := Open(gitDir, root)
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.WriteBlob([]byte("owned\n"))
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	hostile := []string{"../escape.txt", "/etc/plangit-test", "a/../../x", ".git/config", "src/.GIT/hooks/pre-commit", "a//b", "./x"}
	if repotest.Symlink(t, outside, filepath.Join(root, "linked")) {
		hostile = append(hostile, "linked/x.txt")
	}
	for _, p := range hostile {
		ws := []Write{{Path: "fine.txt", To: &File{Mode: filemode.Regular, Hash: h}}, {Path: p, To: &File{Mode: filemode.Regular, Hash: h}}}
		if err := s.Apply(ws); !errors.Is(err, ErrUnsafe) {
			t.Errorf("%q: %v, want ErrUnsafe", p, err)
		}
	}
	if err := s.Apply([]Write{{Path: "sub", To: &File{Mode: filemode.Submodule, Hash: h}}}); !errors.Is(err, ErrUnsafe) {
		t.Errorf("a submodule: %v", err)
	}
	for _, p := range []string{"fine.txt", filepath.Join(outside, "x.txt")} {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, ".git", "config")); string(b) == "owned\n" {
		t.Error(".git/config was written")
	}
}

// A file where a directory was, and a directory where a file was: the
// removals go first.
func TestApplyFileAndDirectory(t *testing.T) {
	root, gitDir := newProject(t)
	s, err := Open(gitDir, root)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Capture(Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := s.Files(snap.Commit)
	main, old := files["src/main.go"], files["old.txt"]
	ws := []Write{
		{Path: "src/main.go", From: &main},
		{Path: "src/util.go", From: ptr(files["src/util.go"])},
		{Path: "src", To: &main},
		{Path: "old.txt", From: &old},
		{Path: "old.txt/inside.txt", To: &old},
	}
	if err := s.Apply(ws); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "old.txt", "inside.txt")); err != nil || string(b) != "to be renamed\n" {
		t.Errorf("old.txt/inside.txt: %q %v", b, err)
	}
	if fi, err := os.Lstat(filepath.Join(root, "src")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("src: %v %v", fi, err)
	}
	if err := s.Apply(Reverse(ws)); err != nil {
		t.Fatal(err)
	}
	if back, _ := s.Capture(Options{}); back.Commit != snap.Commit {
		t.Error("the reversed write did not bring the work tree back")
	}
}
