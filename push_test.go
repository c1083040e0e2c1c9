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

	"github.com/plangit/plangit/repo/repotest"
	"github.com/plangit/plangit/repo/share"
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
	pp := newPushProject(t)
	base, bare, a := pp.base, pp.bare, pp.root
	git, plangit, must := pp.git, pp.plangit, pp.must
	b := filepath.Join(base, "b")
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
		if got, want := strings.TrimSpace(git(bare, "rev-parse", share.RemoteRef("s1"))), head(dirs[0]); got != want {
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
	if got, want := strings.TrimSpace(git(bare, "rev-parse", share.RemoteRef("s1"))), head(a); got != want {
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

// pushProject is a project with a commit, pushed to a bare remote
// (remote.git, its origin), and the plangit binary to run in it, with a
// git configuration of its own.
type pushProject struct {
	t                     *testing.T
	env                   []string
	bin, base, bare, root string
}

func newPushProject(t *testing.T) *pushProject {
	t.Helper()
	repotest.RequireTool(t, "git")
	pp := &pushProject{t: t, base: t.TempDir()}
	pp.bin = buildPlangit(t)
	pp.env = append(os.Environ(), "HOME="+pp.base, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(pp.base, "gitconfig"),
		"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com", "GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com",
		"PLANGIT_ACTOR=agent", "PLANGIT_SESSION=s1")
	pp.bare, pp.root = filepath.Join(pp.base, "remote.git"), filepath.Join(pp.base, "a")
	pp.git(pp.base, "init", "-q", "--bare", pp.bare)
	pp.git(pp.base, "init", "-q", pp.root)
	os.WriteFile(filepath.Join(pp.root, "main.go"), []byte("package main\n"), 0o644)
	pp.git(pp.root, "add", "main.go")
	pp.git(pp.root, "commit", "-q", "-m", "first")
	pp.git(pp.root, "remote", "add", "origin", pp.bare)
	pp.git(pp.root, "push", "-q", "origin", "HEAD")
	return pp
}

func (pp *pushProject) git(dir string, args ...string) string {
	pp.t.Helper()
	c := exec.Command("git", args...)
	c.Dir, c.Env = dir, pp.env
	out, err := c.CombinedOutput()
	if err != nil {
		pp.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (pp *pushProject) plangit(dir string, args ...string) (string, error) {
	return pp.plangitIn(dir, "", args...)
}

func (pp *pushProject) plangitIn(dir, stdin string, args ...string) (string, error) {
	c := exec.Command(pp.bin, args...)
	c.Dir, c.Env, c.Stdin = dir, pp.env, strings.NewReader(stdin)
	out, err := c.CombinedOutput()
	return string(out), err
}

func (pp *pushProject) must(dir string, args ...string) string {
	pp.t.Helper()
	out, err := pp.plangit(dir, args...)
	if err != nil {
		pp.t.Fatalf("plangit %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TestPushRunsNothingTheSessionConfigures: the session's .git/config is in
// the project's work tree, where an agent confined to it can write. A
// receivepack there runs nothing and a second url sends nothing, on
// plangit push as on the push the Stop hook starts (push_on stop), which
// no person watches; both pushes still publish the session to origin.
func TestPushRunsNothingTheSessionConfigures(t *testing.T) {
	t.Parallel()
	pp := newPushProject(t)
	a := pp.root
	marker := filepath.Join(pp.base, "pwned")
	evil := filepath.Join(pp.base, "evil.git")
	pp.git(pp.base, "init", "-q", "--bare", evil)
	pp.must(a, "init", "Poisoned", "--goal", "push runs nothing of the session's", "--session", "s1")
	config := filepath.Join(a, ".code-agent", "plans", "s1", ".git", "config")
	pp.git(a, "config", "--file", config, "remote.origin.receivepack", "touch '"+marker+"'; exec git-receive-pack")
	pp.git(a, "config", "--file", config, "remote.origin.url", evil)
	head := func() string {
		return strings.TrimSpace(pp.git(filepath.Join(a, ".code-agent", "plans", "s1"), "rev-parse", "HEAD"))
	}
	onRemote := func(bare string) string {
		out, _ := exec.Command("git", "--git-dir="+bare, "for-each-ref", "--format=%(objectname)", share.RemoteRef("s1")).Output()
		return strings.TrimSpace(string(out))
	}
	check := func(how string) {
		t.Helper()
		if got, want := onRemote(pp.bare), head(); got != want {
			t.Errorf("%s: origin holds %q, the session %s", how, got, want)
		}
		if got := onRemote(evil); got != "" {
			t.Errorf("%s: the session's second url received %s", how, got)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s ran the session's receivepack", how)
			os.Remove(marker)
		}
	}

	if out := pp.must(a, "push"); !strings.Contains(out, "created s1 on origin") {
		t.Errorf("plangit push: %s", out)
	}
	check("plangit push")

	pp.must(a, "config", "set", "push_on", "stop")
	pp.must(a, "step", "add", "Pushed by the Stop hook")
	payload, err := os.ReadFile(filepath.Join("testdata", "hooks", "stop.json"))
	if err != nil {
		t.Fatal(err)
	}
	stop := strings.NewReplacer("{{SESSION}}", "s1", "{{CWD}}", a).Replace(string(payload))
	if out, err := pp.plangitIn(a, stop, "hook", "Stop"); err != nil {
		t.Fatalf("plangit hook Stop: %v\n%s", err, out)
	}
	// The background push is over once it has recorded what it did.
	share := filepath.Join(a, ".code-agent", "plans", "s1", ".git", "plangit", "share.json")
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(share); bytes.Contains(b, []byte(`"rev": "`+head()+`"`)) {
			break
		}
	}
	check("the Stop hook's push")
	if log, err := os.ReadFile(filepath.Join(a, ".code-agent", "plangit.log")); err == nil && bytes.Contains(log, []byte("push")) {
		t.Errorf("the background push logged a failure:\n%s", log)
	}
	for _, dir := range []string{pp.bare, a} {
		if out := pp.git(dir, repotest.FsckArgs(dir)...); strings.TrimSpace(out) != "" {
			t.Errorf("git fsck --strict in %s:\n%s", dir, out)
		}
	}
	repotest.CheckAll(t, a)
}
