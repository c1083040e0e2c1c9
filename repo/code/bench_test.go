package code

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// BenchmarkCapture times a snapshot of projects of 200 and 20,000 files
// (repotest.CodeProject) — the first, into an empty code store, and one after a
// file changed (steady) — beside `git stash create` on the same tree after
// the same change, started as a process each time. Every iteration's
// setup (the store removed, the file changed) is outside the timer.
func BenchmarkCapture(b *testing.B) {
	for _, n := range []int{200, 20000} {
		root := b.TempDir()
		tracked := repotest.CodeProject(b, root, n)
		gitDir := filepath.Join(root, ".code-agent", "plans", "s", ".git")
		if err := os.MkdirAll(gitDir, 0o755); err != nil {
			b.Fatal(err)
		}
		capture := func(b *testing.B) {
			s, err := Open(gitDir, root)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Capture(Options{Message: "bench"}); err != nil {
				b.Fatal(err)
			}
		}
		edits := 0
		change := func(b *testing.B) {
			edits++
			name := tracked[edits*31%len(tracked)]
			p := filepath.Join(root, filepath.FromSlash(name))
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, fmt.Appendf(data, "// edit %d\n", edits), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("files=%d/first", n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				if err := os.RemoveAll(filepath.Join(gitDir, StoreDir)); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				capture(b)
			}
		})
		b.Run(fmt.Sprintf("files=%d/steady", n), func(b *testing.B) {
			capture(b)
			for b.Loop() {
				b.StopTimer()
				change(b)
				b.StartTimer()
				capture(b)
			}
		})
		b.Run(fmt.Sprintf("files=%d/git-stash-create", n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				change(b)
				b.StartTimer()
				cmd := exec.Command("git", "stash", "create")
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("git stash create: %v\n%s", err, out)
				}
			}
		})
	}
}

// BenchmarkOpenNotGit is what a step change in a project outside git
// pays for code snapshots: finding that there is no git work tree.
func BenchmarkOpenNotGit(b *testing.B) {
	root := filepath.Join(b.TempDir(), "a", "b", "project")
	gitDir := filepath.Join(root, ".code-agent", "plans", "s", ".git")
	if err := os.MkdirAll(gitDir, 0o755); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Open(gitDir, root); err != ErrNotGit {
			b.Fatalf("Open outside git: %v", err)
		}
	}
}
