package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
)

// TestConcurrentPushes runs `plangit push` of one session many at once, as
// hooks and people do: half from one project and half from a second
// project holding the same session; then, after a new revision, more from
// the first (8 and 4 in go test ./...; 24 and 24, in 5 rounds, with
// PLANGIT_LONG=1). Pushes on one machine take turns (a lock); those of the
// other project race at the remote, where a push whose ref update loses to
// another push of the same revision is success. Every push succeeds, the
// remote ends on the session's head, and every repository passes git fsck
// --strict. A background push (push_on) records no failure.
func TestConcurrentPushes(t *testing.T) {
	t.Parallel()
	repotest.RequireTool(t, "git")
	bin := buildPlangit(t)
	base := t.TempDir()
	env := append(os.Environ(), "HOME="+base, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(base, "gitconfig"),
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com",
		"PLANGIT_ACTOR=agent", "PLANGIT_SESSION=s1")
	git := func(dir string, args ...string) string {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir, c.Env = dir, env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	plangit := func(dir string, args ...string) (string, error) {
		c := exec.Command(bin, args...)
		c.Dir, c.Env = dir, env
		out, err := c.CombinedOutput()
		return string(out), err
	}
	must := func(dir string, args ...string) string {
		t.Helper()
		out, err := plangit(dir, args...)
		if err != nil {
			t.Fatalf("plangit %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	bare := filepath.Join(base, "remote.git")
	git(base, "init", "-q", "--bare", bare)
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	git(base, "init", "-q", a)
	os.WriteFile(filepath.Join(a, "main.go"), []byte("package main\n"), 0o644)
	git(a, "add", "main.go")
	git(a, "commit", "-q", "-m", "first")
	git(a, "remote", "add", "origin", bare)
	git(a, "push", "-q", "origin", "HEAD")
	git(base, "clone", "-q", bare, b)
	must(a, "init", "Concurrent pushes", "--goal", "every push succeeds", "--session", "s1")
	must(a, "step", "add", "Push from everywhere")
	// The second project holds the very same session, as a copy.
	if out, err := exec.Command("cp", "-a", filepath.Join(a, ".code-agent"), b).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}

	head := func(dir string) string {
		return strings.TrimSpace(git(filepath.Join(dir, ".code-agent", "plans", "s1"), "rev-parse", "HEAD"))
	}
	burst := func(round, n int, dirs ...string) {
		t.Helper()
		var wg sync.WaitGroup
		fails := make([]string, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if out, err := plangit(dirs[i%len(dirs)], "push"); err != nil {
					fails[i] = fmt.Sprintf("push %d: %v\n%s", i, err, out)
				}
			}()
		}
		wg.Wait()
		for _, f := range fails {
			if f != "" {
				t.Errorf("round %d: %s", round, f)
			}
		}
		if got, want := strings.TrimSpace(git(bare, "rev-parse", repo.RemoteRef("s1"))), head(dirs[0]); got != want {
			t.Errorf("round %d: the remote holds %s, the session %s", round, got, want)
		}
	}
	rounds, first, second := 1, 4, 2
	if repotest.Long() {
		rounds, first, second = 5, 24, 24
	}
	start := time.Now()
	for round := range rounds {
		burst(round, first, a, b)
		must(a, "step", "add", fmt.Sprintf("Round %d", round))
		burst(round, second, a)
		if out := must(b, "fetch"); !strings.Contains(out, "s1") {
			t.Errorf("round %d: fetch in the second project: %s", round, out)
		}
	}
	t.Logf("%d pushes in %s", rounds*(first+second), time.Since(start).Round(time.Millisecond))

	// A background push (push_on) of a session the remote already holds
	// records success, not a failure.
	must(a, "step", "add", "Pushed in the background")
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plangit(a, "push", "--background")
		}()
	}
	wg.Wait()
	if out := must(a, "sessions"); strings.Contains(out, "failed") {
		t.Errorf("after background pushes, plangit sessions says:\n%s", out)
	}
	if log, err := os.ReadFile(filepath.Join(a, ".code-agent", "plangit.log")); err == nil && bytes.Contains(log, []byte("push")) {
		t.Errorf("background pushes logged a failure:\n%s", log)
	}
	if got, want := strings.TrimSpace(git(bare, "rev-parse", repo.RemoteRef("s1"))), head(a); got != want {
		t.Errorf("after background pushes the remote holds %s, the session %s", got, want)
	}

	for _, dir := range []string{bare, a, b} {
		if out := git(dir, repotest.FsckArgs(dir)...); strings.TrimSpace(out) != "" {
			t.Errorf("git fsck --strict in %s:\n%s", dir, out)
		}
	}
	repotest.CheckAll(t, a)
	repotest.CheckAll(t, b)
}
