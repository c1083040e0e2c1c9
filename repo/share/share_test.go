package share_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
	"github.com/plangit/plangit/repo/share"
)

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// world is a project's git remote and two clones of it, the machines of an
// agent and of a reviewer, each a plangit project.
type world struct {
	t        *testing.T
	bare     string // the remote's repository
	url      string // how the clones reach it
	agent    repo.Project
	reviewer repo.Project
	now      time.Time
}

// newWorld makes the remote and its clones. serve starts a server for the
// remote's directory, if the transport needs one, and returns the URL.
func newWorld(t *testing.T, serve func(t *testing.T, base string) string) *world {
	t.Helper()
	repotest.RequireTool(t, "git")
	base := t.TempDir()
	w := &world{t: t, bare: filepath.Join(base, "remote.git"), now: t0}
	w.git(base, "init", "-q", "--bare", "-b", "main", w.bare)
	seed := filepath.Join(base, "seed")
	w.git(base, "init", "-q", "-b", "main", seed)
	os.WriteFile(filepath.Join(seed, "main.go"), []byte("package main\n"), 0o644)
	w.git(seed, "add", "main.go")
	w.git(seed, "commit", "-q", "-m", "the project's own first commit")
	w.git(seed, "push", "-q", w.bare, "main")
	w.url = serve(t, base)
	for _, p := range []*repo.Project{&w.agent, &w.reviewer} {
		dir := filepath.Join(base, map[*repo.Project]string{&w.agent: "agent", &w.reviewer: "reviewer"}[p])
		// Each clone holds its person in its own git configuration, where
		// plangit finds it. The process's environment holds no identity and
		// no git configuration of the user's (repotest.NoIdentity), and a
		// world leaves it as it is, so that worlds run in parallel.
		w.git(base, "clone", "-q", "-c", "user.name=Project Dev", "-c", "user.email=dev@example.com", w.url, dir)
		*p = repo.Project{Root: dir}
	}
	return w
}

// globalConfig gives the test a git configuration of the user's own
// (git config --global), in a home of its own: the test runs alone.
func globalConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
}

func (w *world) git(dir string, args ...string) string {
	w.t.Helper()
	return gitIn(w.t, dir, args...)
}

// gitIn runs the real git with the test's environment.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return gitStdin(t, dir, "", args...)
}

func (w *world) opts() share.SyncOptions {
	w.now = w.now.Add(time.Minute)
	return share.SyncOptions{Options: repo.Options{Now: w.now, Meta: repo.Meta{Actor: "user"}, LockWait: 5 * time.Second}}
}

// start makes a session with a three-step plan and one more revision.
func (w *world) start(p repo.Project, id string) *repo.Session {
	w.t.Helper()
	pl, err := plan.New(id, "Add caching "+id, "cache lookups", []string{"Build"}, w.now, false)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, text := range []string{"Analyze", "Design", "Build"} {
		pl.AddStep(plan.StepSpec{Text: text}, w.now)
	}
	s, _, err := p.Create(id, &plan.State{Plan: pl}, plan.Change{Op: "init", Summary: "init: Add caching"}, w.opts().Options)
	if err != nil {
		w.t.Fatal(err)
	}
	w.change(s, func(p *plan.Plan) (plan.Change, error) {
		return p.Transition("1", plan.ActStart, plan.TransitionOpts{}, w.now)
	})
	return s
}

func (w *world) change(s *repo.Session, fn func(*plan.Plan) (plan.Change, error)) string {
	w.t.Helper()
	res, err := s.Update(w.opts().Options, func(st *plan.State) (plan.Change, error) { return fn(st.Plan) })
	if err != nil || res.Commit == nil {
		w.t.Fatalf("change: %v %+v", err, res)
	}
	return res.Commit.Hash
}

func (w *world) addStep(s *repo.Session, text string) string {
	return w.change(s, func(p *plan.Plan) (plan.Change, error) {
		st, err := p.AddStep(plan.StepSpec{Text: text}, w.now)
		if err != nil {
			return plan.Change{}, err
		}
		return plan.Change{Op: "step.add", Step: st.ID, Summary: "step " + st.ID + " added: " + text}, nil
	})
}

// note records a finding: a change a finished plan takes too.
func (w *world) note(s *repo.Session, title string) string {
	w.t.Helper()
	res, err := s.Update(w.opts().Options, func(st *plan.State) (plan.Change, error) {
		st.Findings.Add(plan.Finding{Category: plan.CatInsight, Title: title}, w.now)
		return plan.Change{Op: "finding.add", Summary: "finding: " + title}, nil
	})
	if err != nil || res.Commit == nil {
		w.t.Fatalf("note: %v %+v", err, res)
	}
	return res.Commit.Hash
}

// shared starts a session on the agent's machine, pushes it and fetches
// it on the reviewer's; it returns the agent's copy and both remotes.
func (w *world) shared(id string) (s *repo.Session, agent, reviewer *share.Remote) {
	w.t.Helper()
	s = w.start(w.agent, id)
	agent, reviewer = w.remote(w.agent), w.remote(w.reviewer)
	statuses(w.t, agent.Push([]string{id}, w.opts()), id+":created")
	statuses(w.t, reviewer.Fetch([]string{id}, w.opts()), id+":new")
	return s, agent, reviewer
}

func (w *world) remote(p repo.Project) *share.Remote {
	w.t.Helper()
	r, err := share.NewRemote(p, share.RemoteOptions{What: "test"})
	if err != nil {
		w.t.Fatal(err)
	}
	return r
}

func (w *world) open(p repo.Project, id string) *repo.Session {
	w.t.Helper()
	s, err := p.Open(id)
	if err != nil {
		w.t.Fatal(err)
	}
	return s
}

func head(t testing.TB, s *repo.Session) string {
	t.Helper()
	h, err := s.Head()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// statuses checks each result's status, and that only the expected ones
// failed.
func statuses(t testing.TB, results []share.SyncResult, want ...string) {
	t.Helper()
	var got []string
	for _, r := range results {
		got = append(got, r.Session+":"+r.Status)
		conflicts := r.Status == "merged" && r.Code == plan.CodeConflict // a merge that recorded conflicts
		if (r.Err() != nil) != (r.Status == "failed" || r.Status == "diverged" || r.Status == "behind" || conflicts) {
			t.Errorf("%s: status %s with error %v", r.Session, r.Status, r.Err())
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("results %v, want %v (%+v)", got, want, results)
	}
}

// projectState is what plangit must never change in the project's own
// repository: its refs, its objects, its files in .git.
func projectState(t testing.TB, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(gitIn(t, dir, "for-each-ref"))
	b.WriteString(gitIn(t, dir, "count-objects", "-v"))
	entries, _ := os.ReadDir(filepath.Join(dir, ".git"))
	for _, e := range entries {
		b.WriteString(e.Name() + "\n")
	}
	return b.String()
}

func fsckAll(t testing.TB, w *world) {
	t.Helper()
	for _, dir := range []string{w.bare, w.agent.Root, w.reviewer.Root} {
		// A pruned session leaves its commits dangling on the remote: unreferenced, not damaged.
		if out := gitIn(t, dir, repotest.FsckArgs(dir, "--no-dangling")...); strings.TrimSpace(out) != "" {
			t.Errorf("git fsck --strict in %s:\n%s", dir, out)
		}
	}
	repotest.CheckAll(t, w.agent.Root)
	repotest.CheckAll(t, w.reviewer.Root)
}

// fileRemote is a bare repository reached over file://.
func fileRemote(t *testing.T, base string) string {
	return "file://" + filepath.Join(base, "remote.git")
}

// httpRemote is the bare repository behind git http-backend, served by an
// HTTP server the test starts and stops.
func httpRemote(t *testing.T, base string) string {
	backend := filepath.Join(strings.TrimSpace(gitIn(t, base, "--exec-path")), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		repotest.Missing(t, "git-http-backend", "git-http-backend is not installed: "+err.Error())
	}
	gitIn(t, filepath.Join(base, "remote.git"), "config", "http.receivepack", "true")
	srv := httptest.NewServer(&cgi.Handler{Path: backend, Env: []string{
		"GIT_PROJECT_ROOT=" + base, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + base}})
	t.Cleanup(srv.Close)
	return srv.URL + "/remote.git"
}

// daemonRemote is the bare repository behind a git daemon on a free port
// of the loopback interface, started by the test and killed at its end.
// The port is free when chosen but may be taken before the daemon binds
// it: the daemon says when it listens ("Ready to rumble"), and one that
// exits first is started again on another port.
func daemonRemote(t *testing.T, base string) string {
	if err := exec.Command("git", "daemon", "--help").Run(); err != nil {
		if out, _ := exec.Command("git", "daemon", "-h").CombinedOutput(); !bytes.Contains(out, []byte("usage: git daemon")) {
			repotest.Missing(t, "git daemon", "git daemon is not available")
		}
	}
	var why string
	for range 5 {
		port, log, ok := startDaemon(t, base)
		if ok {
			return fmt.Sprintf("git://127.0.0.1:%d/remote.git", port)
		}
		why = log
	}
	t.Fatalf("git daemon did not listen, five times over:\n%s", why)
	return ""
}

// startDaemon starts git daemon on a port that was free a moment ago and
// waits until it listens (ok) or exits (its log says why).
func startDaemon(t *testing.T, base string) (port int, log string, ok bool) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("git", "daemon", "--verbose", "--reuseaddr", "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--base-path="+base, "--export-all", "--enable=receive-pack", "--informative-errors", base)
	var out lockedBuffer
	cmd.Stderr = &out
	startGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		stopGroup(cmd)
		<-exited
	})
	for deadline := time.Now().Add(10 * time.Second); ; {
		if strings.Contains(out.String(), "Ready to rumble") {
			return port, "", true
		}
		select {
		case <-exited:
			return port, out.String(), false
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("git daemon did not listen on port %d within 10 s:\n%s", port, out.String())
		}
	}
}

// lockedBuffer is a bytes.Buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestShareRoundTrip plays an agent's machine and a reviewer's against one
// remote — over file://, and with PLANGIT_LONG=1 over git daemon and
// git-http-backend too: push, list, fetch, changes on both sides, a
// divergence merged by the push that found it, another settled by fetch
// --theirs, and the same commits on both machines at the end.
func TestShareRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		serve func(*testing.T, string) string
	}{{"file", fileRemote}, {"git-daemon", daemonRemote}, {"http-backend", httpRemote}} {
		if tc.name != "file" && !repotest.Long() {
			continue // the network transports: PLANGIT_LONG=1 (.ci/run)
		}
		t.Run(tc.name, func(t *testing.T) { roundTrip(t, newWorld(t, tc.serve)) })
	}
}

func roundTrip(t *testing.T, w *world) {
	s1 := w.start(w.agent, "s1")
	s2 := w.start(w.agent, "s2")
	branches := gitIn(t, w.bare, "for-each-ref", "refs/heads", "refs/tags")
	agentBefore := projectState(t, w.agent.Root)

	ra := w.remote(w.agent)
	if ra.Name != "origin" || ra.URL != w.url {
		t.Fatalf("remote %s at %s, want origin at %s", ra.Name, ra.URL, w.url)
	}
	// One git push carries both sessions.
	res := ra.Push([]string{"s1", "s2"}, w.opts())
	statuses(t, res, "s1:created", "s2:created")
	if res[0].Revisions != 2 {
		t.Errorf("created with %d revisions, want 2", res[0].Revisions)
	}
	for _, s := range []*repo.Session{s1, s2} {
		if got := strings.TrimSpace(gitIn(t, w.bare, "rev-parse", "refs/plangit/sessions/"+s.ID)); got != head(t, s) {
			t.Errorf("the remote holds %s for %s, the session is at %s", got, s.ID, head(t, s))
		}
	}
	if got := projectState(t, w.agent.Root); got != agentBefore {
		t.Errorf("push changed the project's repository:\n%s\n---\n%s", agentBefore, got)
	}
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:up-to-date")

	// A plain git fetch on the reviewer's machine brings none of it.
	w.git(w.reviewer.Root, "fetch", "-q")
	if refs := w.git(w.reviewer.Root, "for-each-ref"); strings.Contains(refs, "plangit") {
		t.Errorf("git fetch brought plangit's refs:\n%s", refs)
	}

	// The reviewer lists the sessions without fetching their history.
	rr := w.remote(w.reviewer)
	list, skipped, err := rr.List()
	if err != nil || skipped != 0 || len(list) != 2 {
		t.Fatalf("List: %v, %d skipped, %+v", err, skipped, list)
	}
	l := list[0]
	if l.ID != "s1" || l.Title != "Add caching s1" || l.Status != plan.PlanRunning || l.Done != 0 || l.Total != 3 ||
		l.Rev != head(t, s1) || !l.LastChange.Equal(lastTime(t, s1)) || l.Summary != "step 1: pending → in_progress" || l.Here != "not-fetched" {
		t.Errorf("listed %+v", l)
	}
	if _, err := os.Stat(w.reviewer.PlansDir()); !os.IsNotExist(err) {
		t.Errorf("listing made %s: %v", w.reviewer.PlansDir(), err)
	}

	// The reviewer fetches s1: a normal session, the same commits.
	res = rr.Fetch([]string{"s1"}, w.opts())
	statuses(t, res, "s1:new")
	r1 := w.open(w.reviewer, "s1")
	sameHistory(t, s1, r1)
	if st, _ := share.StatusOf(r1); st == nil || st.Origin == nil || st.Origin.Remote != "origin" || len(st.Remotes) != 1 || st.Remotes[0].State != "in-sync" {
		t.Errorf("share status %+v", st)
	}
	if list, _, _ := rr.List(); list[0].Here != "in-sync" || list[1].Here != "not-fetched" {
		t.Errorf("after fetch, listed %+v", list)
	}

	// The reviewer changes it and pushes back; the agent fetches.
	w.change(r1, func(p *plan.Plan) (plan.Change, error) {
		return p.Transition("1", plan.ActDone, plan.TransitionOpts{}, w.now)
	})
	res = rr.Push([]string{"s1"}, w.opts())
	statuses(t, res, "s1:pushed")
	if res[0].Revisions != 1 {
		t.Errorf("pushed %d revisions, want 1", res[0].Revisions)
	}
	if list, _, _ := ra.List(); list[0].Here != "behind" {
		t.Errorf("the agent sees s1 as %s, want behind", list[0].Here)
	}
	statuses(t, ra.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	sameHistory(t, s1, r1)
	statuses(t, ra.Fetch([]string{"s1"}, w.opts()), "s1:up-to-date")

	// Both change it. The agent pushes first; the reviewer's push finds
	// the histories diverged, merges them by meaning and pushes the merge;
	// the agent's fetch is a fast-forward to it.
	w.addStep(s1, "agent's step")
	reviewerTip := w.addStep(r1, "reviewer's step")
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:pushed")
	agentTip := head(t, s1)
	res = rr.Push([]string{"s1"}, w.opts())
	statuses(t, res, "s1:merged")
	if m := res[0].Merge; m == nil || !res[0].Published || len(m.Renumbered) != 1 || len(m.Conflicts) != 0 {
		t.Fatalf("the merge: %+v", res[0])
	}
	if parents := strings.Fields(w.git(r1.Dir, "log", "-1", "--format=%P")); !slices.Equal(parents, []string{reviewerTip, agentTip}) {
		t.Errorf("the merge's parents are %v", parents)
	}
	for rev, want := range map[string]string{"HEAD^2": agentTip, "HEAD^1": reviewerTip, agentTip[:8]: agentTip, "origin/main^2": agentTip, "origin/main": head(t, r1)} {
		if got, err := r1.Resolve(rev); err != nil || got != want {
			t.Errorf("%s is %s (%v), want %s", rev, got, err, want)
		}
	}
	st, _ := r1.State()
	if texts := stepTexts(st.Plan); !slices.Contains(texts, "agent's step") || !slices.Contains(texts, "reviewer's step") {
		t.Errorf("the merge lost a step: %q", texts)
	}
	d, err := history.Between(r1, "HEAD^2", "HEAD")
	if err != nil || len(d.Changes) == 0 || !strings.Contains(d.Changes[0].Detail, "reviewer's step") {
		t.Errorf("diff HEAD^2 HEAD: %v %+v", err, d)
	}
	log, err := history.Log(r1, history.LogOptions{Rev: "HEAD^2"})
	if err != nil || log[0].Hash != agentTip || log[0].Summary != "step 4 added: agent's step" {
		t.Errorf("log HEAD^2: %v %+v", err, log)
	}
	statuses(t, ra.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	sameHistory(t, s1, r1)

	// Again, and the reviewer takes the agent's plan whole (--theirs):
	// what it drops is listed, and stays in the history as HEAD^1.
	w.addStep(s1, "agent's second")
	reviewerTip = w.note(r1, "reviewer's finding")
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:pushed")
	agentTip = head(t, s1)
	theirs := w.opts()
	theirs.Theirs = true
	res = rr.Fetch([]string{"s1"}, theirs)
	statuses(t, res, "s1:merged")
	if m := res[0].Merge; m.DroppedRev != reviewerTip || !slices.Equal(m.Dropped, []string{"finding 1 added (insight): reviewer's finding"}) {
		t.Errorf("--theirs dropped %+v", m)
	}
	files, _, _ := r1.FilesAt("HEAD")
	agentFiles, _, _ := s1.FilesAt("HEAD")
	if !bytes.Equal(files[plan.FindingsFile], agentFiles[plan.FindingsFile]) || !bytes.Contains(files[plan.PlanFile], []byte("agent's second")) {
		t.Error("--theirs did not take the remote's files")
	}
	// The finding dropped keeps its id: the next one gets another.
	if !bytes.Contains(files[plan.PlanFile], []byte(" next-finding=2 -->")) {
		t.Errorf("the plan does not keep the dropped finding's id:\n%s", files[plan.PlanFile])
	}
	if got, err := r1.Resolve("HEAD^1"); err != nil || got != reviewerTip {
		t.Errorf("HEAD^1 is %s (%v), want the dropped side %s", got, err, reviewerTip)
	}
	statuses(t, rr.Push([]string{"s1"}, w.opts()), "s1:pushed")
	statuses(t, ra.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	sameHistory(t, s1, r1)
	if a, b := w.git(s1.Dir, "rev-list", "--all"), w.git(r1.Dir, "rev-list", "--all"); a != b {
		t.Errorf("the machines hold different commits:\n%s\n---\n%s", a, b)
	}
	if unpushed, err := s1.Unpushed(); err != nil || unpushed {
		t.Errorf("Unpushed after a round trip: %v %v", unpushed, err)
	}

	// fetch --all brings the rest.
	res, err = rr.FetchAll(w.opts())
	if err != nil {
		t.Fatal(err)
	}
	statuses(t, res, "s1:up-to-date", "s2:new")
	sameHistory(t, s2, w.open(w.reviewer, "s2"))
	if got := gitIn(t, w.bare, "for-each-ref", "refs/heads", "refs/tags"); got != branches {
		t.Errorf("the remote's branches changed:\n%s\n---\n%s", branches, got)
	}
	w.git(w.reviewer.Root, "fetch", "-q")
	if refs := w.git(w.reviewer.Root, "for-each-ref"); strings.Contains(refs, "plangit") {
		t.Errorf("git fetch brought plangit's refs:\n%s", refs)
	}
	// A fetched session adopted into a new id: the new id was never
	// fetched from, nor pushed to, a remote — even where a git gc packed
	// the remote's tip among the refs.
	w.git(w.open(w.reviewer, "s2").Dir, "pack-refs", "--all")
	adopted, _, err := w.reviewer.Adopt("s2", "s2-continued", w.opts().Options)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := share.StatusOf(adopted); st != nil {
		t.Errorf("the adopted session says it was shared: %+v", st)
	}
	if unpushed, err := adopted.Unpushed(); !unpushed || err != nil {
		t.Errorf("the adopted session is on no remote, but Unpushed says %v (%v)", unpushed, err)
	}
	fsckAll(t, w)
}

func lastTime(t testing.TB, s *repo.Session) time.Time {
	t.Helper()
	last, err := s.Last()
	if err != nil {
		t.Fatal(err)
	}
	return last.Time
}

// sameHistory checks that two machines' copies of a session hold the same
// revisions, hash for hash, and the same files. Each machine numbers the
// revisions in the order it came to know them, so where one merged the
// other's, the numbers may differ.
func sameHistory(t testing.TB, a, b *repo.Session) {
	t.Helper()
	ra, err := a.Revisions()
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.Revisions()
	if err != nil {
		t.Fatal(err)
	}
	if len(ra) != len(rb) || ra[len(ra)-1].Hash != rb[len(rb)-1].Hash {
		t.Fatalf("%d revisions up to %s against %d up to %s", len(ra), ra[len(ra)-1].Hash[:7], len(rb), rb[len(rb)-1].Hash[:7])
	}
	byHash := map[string]repo.Revision{}
	for _, r := range rb {
		byHash[r.Hash] = r
	}
	for _, x := range ra {
		y, ok := byHash[x.Hash]
		if !ok || x.Summary != y.Summary || !x.Time.Equal(y.Time) || x.Author != y.Author {
			t.Fatalf("revision %s differs:\n%+v\n%+v", x.Hash[:7], x, y)
		}
	}
	fa, _ := a.ReadFiles()
	fb, _ := b.ReadFiles()
	if !equalFiles(fa, fb) {
		t.Fatal("the working files differ")
	}
	repotest.Check(t, a.Dir)
	repotest.Check(t, b.Dir)
}

func stepTexts(p *plan.Plan) []string {
	var out []string
	for _, s := range p.Steps() {
		out = append(out, s.Text)
	}
	return out
}

func equalFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			return false
		}
	}
	return true
}

// TestRemoteChoice: the current branch's upstream remote, else origin,
// else a clear error; a project outside git and a missing git are clear
// errors too.
func TestRemoteChoice(t *testing.T) {
	w := newWorld(t, fileRemote)
	p := w.agent
	if r := w.remote(p); r.Name != "origin" {
		t.Errorf("default remote %s, want origin", r.Name)
	}
	up := filepath.Join(filepath.Dir(w.bare), "upstream.git")
	w.git(filepath.Dir(w.bare), "clone", "-q", "--bare", w.bare, up)
	w.git(p.Root, "remote", "add", "upstream", up)
	w.git(p.Root, "fetch", "-q", "upstream")
	w.git(p.Root, "branch", "-q", "--set-upstream-to=upstream/main")
	if r := w.remote(p); r.Name != "upstream" || r.URL != up {
		t.Errorf("remote %s at %s, want upstream at %s", r.Name, r.URL, up)
	}
	if r, err := share.NewRemote(p, share.RemoteOptions{Name: "origin"}); err != nil || r.Name != "origin" {
		t.Errorf("--remote origin: %v %v", r, err)
	}
	_, err := share.NewRemote(p, share.RemoteOptions{Name: "nosuch", What: "plangit push"})
	if !plan.HasCode(err, plan.CodeInvalidArgument) || !strings.Contains(err.Error(), `no remote "nosuch"`) || !strings.Contains(err.Error(), "origin, upstream") {
		t.Errorf("unknown remote: %v", err)
	}
	// A relative path is read from the project's top, wherever git runs.
	w.git(p.Root, "remote", "add", "rel", "../remote.git")
	if r, err := share.NewRemote(p, share.RemoteOptions{Name: "rel"}); err != nil || r.URL != w.bare {
		t.Errorf("relative remote: %v %v", r, err)
	} else {
		s := w.start(p, "rel1")
		statuses(t, r.Push([]string{s.ID}, w.opts()), "rel1:created")
	}

	// A .code-agent/ made inside a session's directory makes no project
	// of it: its git repository, whose configuration names a remote, is
	// the session's.
	inner := w.start(p, "inner")
	os.Mkdir(filepath.Join(inner.Dir, repo.DirName), 0o755)
	w.git(inner.Dir, "config", "remote.origin.url", w.url)
	_, err = share.NewRemote(repo.Project{Root: inner.Dir}, share.RemoteOptions{What: "plangit push"})
	if !plan.HasCode(err, plan.CodeInvalidArgument) || !strings.Contains(err.Error(), "is a plangit session's, not the project's") {
		t.Errorf("a project inside a session: %v", err)
	}
	os.RemoveAll(filepath.Join(inner.Dir, repo.DirName))

	// insteadOf rules apply, as git applies them.
	w.git(p.Root, "remote", "add", "alias", "mirror:remote.git")
	w.git(p.Root, "config", "url."+filepath.Dir(w.bare)+"/.insteadOf", "mirror:")
	if r, err := share.NewRemote(p, share.RemoteOptions{Name: "alias"}); err != nil || r.URL != w.bare {
		t.Errorf("a remote under an insteadOf rule: %v %v", r, err)
	}
	if r, err := share.NewRemote(p, share.RemoteOptions{Name: "origin"}); err != nil || r.URL != w.url {
		t.Errorf("origin beside an insteadOf rule: %v %v, want %s", r, err, w.url)
	}
	w.git(p.Root, "config", "--remove-section", "url."+filepath.Dir(w.bare)+"/")

	// A token written into a URL stays out of messages and records.
	w.git(p.Root, "remote", "add", "tok", "https://dev:s3cret@example.com/shop.git")
	if r, err := share.NewRemote(p, share.RemoteOptions{Name: "tok"}); err != nil || strings.Contains(r.URL, "s3cret") || !strings.Contains(r.URL, "dev:") {
		t.Errorf("a URL with a token: %v %v", r, err)
	}

	w.git(p.Root, "branch", "-q", "--unset-upstream")
	for _, name := range []string{"origin", "upstream", "rel", "alias", "tok"} {
		w.git(p.Root, "remote", "remove", name)
	}
	_, err = share.NewRemote(p, share.RemoteOptions{What: "plangit push"})
	if !plan.HasCode(err, plan.CodeInvalidArgument) || !strings.Contains(err.Error(), "no upstream and there is no origin") {
		t.Errorf("no remote: %v", err)
	}

	outside := repo.Project{Root: t.TempDir()}
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(outside.Root))
	_, err = share.NewRemote(outside, share.RemoteOptions{What: "plangit push"})
	if !plan.HasCode(err, plan.CodeInvalidArgument) || !strings.Contains(err.Error(), "not in a git work tree") {
		t.Errorf("no git repository: %v", err)
	}

	t.Setenv("PATH", t.TempDir())
	_, err = share.NewRemote(p, share.RemoteOptions{What: "plangit fetch"})
	if !plan.HasCode(err, plan.CodeIOError) || !strings.Contains(err.Error(), "plangit fetch needs git") {
		t.Errorf("no git: %v", err)
	}
}

// TestPushBehindAndRefused: a remote with revisions this machine lacks
// is never overwritten, and what the remote refuses is reported as such.
func TestPushBehindAndRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t, fileRemote)
	s, ra, rr := w.shared("s1")
	r1 := w.open(w.reviewer, "s1")
	w.addStep(r1, "one")
	tip := w.addStep(r1, "two")
	statuses(t, rr.Push([]string{"s1"}, w.opts()), "s1:pushed")

	before := head(t, s)
	res := ra.Push([]string{"s1"}, w.opts())
	statuses(t, res, "s1:behind")
	if !strings.Contains(res[0].Message, "2 revisions") || !strings.Contains(res[0].Message, "plangit fetch --session s1") || res[0].RemoteTip.Hash != tip {
		t.Errorf("behind: %+v", res[0])
	}
	if got := strings.TrimSpace(gitIn(t, w.bare, "rev-parse", "refs/plangit/sessions/s1")); got != tip || head(t, s) != before {
		t.Error("a refused push moved something")
	}
	// The session moves only when fetched.
	res = ra.Fetch([]string{"s1"}, w.opts())
	statuses(t, res, "s1:fast-forward")
	if res[0].Revisions != 2 {
		t.Errorf("fast-forward of %d revisions, want 2", res[0].Revisions)
	}
	sameHistory(t, s, r1)

	// A remote's own hook refuses: a failure naming the session, nothing
	// recorded as pushed.
	hook := filepath.Join(w.bare, "hooks", "pre-receive")
	os.WriteFile(hook, []byte("#!/bin/sh\necho 'sessions are frozen' >&2\nexit 1\n"), 0o755)
	w.addStep(s, "three")
	res = ra.Push([]string{"s1"}, w.opts())
	statuses(t, res, "s1:failed")
	if !plan.HasCode(res[0].Err(), plan.CodeIOError) || !strings.Contains(res[0].Message, "origin refused session s1") {
		t.Errorf("refused: %v", res[0].Err())
	}
	if st, _ := share.StatusOf(s); st.LastPush == nil || st.LastPush.Error == "" || st.Remotes[0].State != "ahead" || st.Remotes[0].Unpushed != 1 {
		t.Errorf("share status after a refused push: %+v %+v", st, st.Remotes)
	}
	fsckAll(t, w)
}

// TestFetchRefuses: what plangit cannot make a session of is refused and
// leaves nothing behind: a remote tip holding other files, ref names
// that are no session ids, ids no ref can carry, a missing session, and a
// directory in the way.
func TestFetchRefuses(t *testing.T) {
	t.Parallel()
	w := newWorld(t, fileRemote)
	scratch := filepath.Join(filepath.Dir(w.bare), "scratch")
	w.git(filepath.Dir(w.bare), "init", "-q", "-b", "main", scratch)
	os.WriteFile(filepath.Join(scratch, "task_plan.md"), []byte("# A plan\n"), 0o644)
	os.WriteFile(filepath.Join(scratch, "evil.sh"), []byte("rm -rf /\n"), 0o755)
	w.git(scratch, "add", ".")
	w.git(scratch, "commit", "-q", "-m", "not a session")
	w.git(scratch, "push", "-q", w.bare, "HEAD:refs/plangit/sessions/odd", "HEAD:refs/plangit/sessions/a/b")

	rr := w.remote(w.reviewer)
	res := rr.Fetch([]string{"odd"}, w.opts())
	statuses(t, res, "odd:failed")
	if !strings.Contains(res[0].Message, `holds "evil.sh"`) {
		t.Errorf("foreign tree: %v", res[0].Err())
	}
	if _, err := os.Stat(filepath.Join(w.reviewer.PlansDir(), "odd")); !os.IsNotExist(err) {
		t.Errorf("a refused fetch left %v", err)
	}
	res = rr.Fetch([]string{"nosuch"}, w.opts())
	statuses(t, res, "nosuch:failed")
	if !plan.HasCode(res[0].Err(), plan.CodeSessionNotFound) || !strings.Contains(res[0].Message, "origin has no session nosuch") {
		t.Errorf("missing session: %v", res[0].Err())
	}
	list, skipped, err := rr.List()
	if err != nil || skipped != 1 || len(list) != 1 || list[0].ID != "odd" || list[0].Problem != "" {
		t.Errorf("List: %v, %d skipped, %+v", err, skipped, list)
	}
	res = rr.Fetch([]string{"a..b", "x.lock"}, w.opts())
	statuses(t, res, "a..b:failed", "x.lock:failed")
	for _, r := range res {
		// Not a session here: nothing to adopt to another id.
		if !plan.HasCode(r.Err(), plan.CodeInvalidSessionID) || !strings.Contains(r.Message, "cannot be shared") ||
			!strings.Contains(r.Message, "no remote holds a session of that id") || strings.Contains(r.Message, "adopt") {
			t.Errorf("%s: %v", r.Session, r.Err())
		}
	}
	os.MkdirAll(filepath.Join(w.reviewer.PlansDir(), "odd"), 0o755)
	os.WriteFile(filepath.Join(w.reviewer.PlansDir(), "odd", "keep.txt"), []byte("mine"), 0o644)
	res = rr.Fetch([]string{"odd"}, w.opts())
	statuses(t, res, "odd:failed")
	if b, _ := os.ReadFile(filepath.Join(w.reviewer.PlansDir(), "odd", "keep.txt")); string(b) != "mine" {
		t.Error("fetch touched a directory in its way")
	}
	if entries, _ := os.ReadDir(filepath.Join(w.reviewer.PlansDir(), "odd")); len(entries) != 1 {
		t.Errorf("fetch wrote into a directory in its way: %v", entries)
	}
}

// TestFetchAdoptsHandEditFirst: a hand edit waiting in the working files
// is committed before a fetch, as before any change; the fetch then finds
// the histories diverged and merges them.
func TestFetchAdoptsHandEditFirst(t *testing.T) {
	if !repotest.Long() {
		repotest.Short(t, "a sharing case beyond the fast suite's")
	}
	t.Parallel()
	w := newWorld(t, fileRemote)
	s, ra, rr := w.shared("s1")
	w.addStep(w.open(w.reviewer, "s1"), "from the reviewer")
	statuses(t, rr.Push([]string{"s1"}, w.opts()), "s1:pushed")

	path := filepath.Join(s.Dir, plan.PlanFile)
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte("Design"), []byte("Design it well"), 1), 0o644)
	res := ra.Fetch([]string{"s1"}, w.opts())
	statuses(t, res, "s1:merged")
	parents := strings.Fields(w.git(s.Dir, "log", "-1", "--format=%P"))
	if len(parents) != 2 || w.git(s.Dir, "log", "-1", "--format=%s", parents[0]) != "edit: task_plan.md changed outside plangit\n" {
		t.Errorf("the hand edit was not adopted first: %v", parents)
	}
	if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte("Design it well")) || !bytes.Contains(b, []byte("from the reviewer")) {
		t.Errorf("the merge lost a side:\n%s", b)
	}
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:pushed")
	statuses(t, rr.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	sameHistory(t, s, w.open(w.reviewer, "s1"))
}

// TestPushRecordsAWaitingHandEdit: push records a hand edit waiting in the
// files before it compares with the remote, whether the push then finds
// the remote up to date, behind it, or diverged: what it publishes is the
// plan as it stands, and the files are clean after it.
func TestPushRecordsAWaitingHandEdit(t *testing.T) {
	if !repotest.Long() {
		repotest.Short(t, "a sharing case beyond the fast suite's")
	}
	t.Parallel()
	w := newWorld(t, fileRemote)
	s, ra, rr := w.shared("s1")
	path := filepath.Join(s.Dir, plan.PlanFile)
	edit := func(from, to string) {
		b, _ := os.ReadFile(path)
		if !bytes.Contains(b, []byte(from)) {
			t.Fatalf("no %q in\n%s", from, b)
		}
		os.WriteFile(path, bytes.Replace(b, []byte(from), []byte(to), 1), 0o644)
	}
	edit("Design", "Design it well") // up to date but for the edit
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:pushed")
	w.addStep(s, "committed") // ahead, and an edit on top
	edit("Analyze", "Analyze the hot paths")
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:pushed")
	if out := w.git(s.Dir, "status", "--porcelain"); out != "" {
		t.Errorf("the files are not clean after the push: %q", out)
	}
	statuses(t, rr.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	r := w.open(w.reviewer, "s1")
	b, _ := os.ReadFile(filepath.Join(r.Dir, plan.PlanFile))
	for _, want := range []string{"Design it well", "Analyze the hot paths", "committed"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the other machine has no %q:\n%s", want, b)
		}
	}
	sameHistory(t, s, r)
}

// TestPushMergesAgainWhenOvertaken: another machine's push lands between
// a push's merge and the push of that merge. The push merges again with
// what landed and pushes that, as a person would fetch and push again, and
// every record of the three revisions is on both machines. The remote's
// pre-receive hook plays the other push: the first time a merge comes in,
// it moves the session's ref to the agent's next revision (outside the
// push's quarantine, where that revision already is), so the merge's own
// update fails.
func TestPushMergesAgainWhenOvertaken(t *testing.T) {
	if !repotest.Long() {
		repotest.Short(t, "a sharing case beyond the fast suite's")
	}
	t.Parallel()
	w := newWorld(t, fileRemote)
	s, ra, rr := w.shared("s1")
	w.addStep(s, "agent first")
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:pushed")
	w.addStep(s, "agent second") // pushed aside, where the hook finds it
	w.git(s.Dir, "push", "-q", w.url, "HEAD:refs/aside/s1")
	hook := filepath.Join(w.bare, "hooks", "pre-receive")
	script := "#!/bin/sh\n" +
		"while read old new ref; do\n" +
		"  if [ ! -f overtaken ] && [ $(git rev-list --parents -n 1 $new | wc -w) -eq 3 ]; then\n" +
		"    touch overtaken\n" +
		"    env -u GIT_QUARANTINE_PATH git update-ref $ref $(git rev-parse refs/aside/s1) || exit 1\n" +
		"  fi\n" +
		"done\n" +
		"exit 0\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := w.open(w.reviewer, "s1")
	w.addStep(r, "reviewer's")
	res := rr.Push([]string{"s1"}, w.opts())
	statuses(t, res, "s1:merged")
	if _, err := os.Stat(filepath.Join(w.bare, "overtaken")); err != nil {
		t.Fatalf("the other push was never played: %v", err)
	}
	statuses(t, ra.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	for _, sess := range []*repo.Session{s, r} {
		st, err := sess.State()
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, step := range st.Plan.Steps() {
			texts = append(texts, step.Text)
		}
		for _, want := range []string{"agent first", "agent second", "reviewer's"} {
			if !slices.Contains(texts, want) {
				t.Errorf("%s has no step %q: %q", sess.Project.Root, want, texts)
			}
		}
	}
	sameHistory(t, s, r)
}

// TestCleanupAndPrune: with push_on set, cleanup keeps what no remote
// holds unless forced; push --prune deletes on the remote only sessions
// this machine pushed and cleanup removed, and only while the remote still
// holds what this machine last saw.
func TestCleanupAndPrune(t *testing.T) {
	t.Parallel()
	w := newWorld(t, fileRemote)
	finish := func(s *repo.Session) {
		w.change(s, func(p *plan.Plan) (plan.Change, error) { return p.Finish("done", true, w.now) })
	}
	pushed, unpushed, moved := w.start(w.agent, "pushed"), w.start(w.agent, "unpushed"), w.start(w.agent, "moved")
	for _, s := range []*repo.Session{pushed, unpushed, moved} {
		finish(s)
	}
	ra, rr := w.remote(w.agent), w.remote(w.reviewer)
	statuses(t, ra.Push([]string{"pushed", "moved"}, w.opts()), "pushed:created", "moved:created")
	colleague := w.start(w.reviewer, "colleague")
	statuses(t, rr.Push([]string{colleague.ID}, w.opts()), "colleague:created")
	statuses(t, ra.Fetch([]string{"colleague"}, w.opts()), "colleague:new") // known here, never pushed from here
	statuses(t, rr.Fetch([]string{"moved"}, w.opts()), "moved:new")
	w.note(w.open(w.reviewer, "moved"), "later")
	statuses(t, rr.Push([]string{"moved"}, w.opts()), "moved:pushed")

	o := repo.CleanupOptions{OlderThan: time.Hour, IncludeUnfinished: true, KeepUnpushed: true, Now: w.now.Add(48 * time.Hour)}
	rep, err := w.agent.Cleanup(o)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range rep.Entries {
		got[e.Session] = fmt.Sprint(e.Removed)
		if !e.Removed {
			got[e.Session] += ": " + e.Reason
		}
	}
	want := map[string]string{"pushed": "true", "moved": "true", "colleague": "true",
		"unpushed": "false: not pushed (push_on is set); plangit push publishes it, --force removes it anyway"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cleanup:\n got %v\nwant %v", got, want)
	}
	o.Force = true
	if rep, err := w.agent.Cleanup(o); err != nil || rep.Removed != 1 {
		t.Errorf("cleanup --force: %v %+v", err, rep)
	}

	res, err := ra.Prune(w.opts())
	if err != nil {
		t.Fatal(err)
	}
	statuses(t, res, "moved:kept", "pushed:pruned")
	if !strings.Contains(res[0].Message, "changed on origin since") {
		t.Errorf("moved: %+v", res[0])
	}
	refs := gitIn(t, w.bare, "for-each-ref", "--format=%(refname)", "refs/plangit")
	// The pruned session's code snapshots go with it.
	if refs != "refs/plangit/code/colleague\nrefs/plangit/code/moved\nrefs/plangit/sessions/colleague\nrefs/plangit/sessions/moved\n" {
		t.Errorf("after prune the remote holds:\n%s", refs)
	}
	// The list is used up: a second prune does nothing.
	if res, err := ra.Prune(w.opts()); err != nil || len(res) != 0 {
		t.Errorf("second prune: %v %+v", err, res)
	}
	fsckAll(t, w)
}

// TestFetchedPackRepacked: a pack git fetched into a session, with the
// reverse index git may write beside it, is absorbed by plangit's own
// packing and leaves nothing behind.
func TestFetchedPackRepacked(t *testing.T) {
	if !repotest.Long() {
		repotest.Short(t, "a sharing case beyond the fast suite's")
	}
	globalConfig(t)
	w := newWorld(t, fileRemote)
	w.git(w.reviewer.Root, "config", "--global", "pack.writeReverseIndex", "true")
	w.git(w.reviewer.Root, "config", "--global", "transfer.unpackLimit", "1")
	w.shared("s1")
	r1 := w.open(w.reviewer, "s1")
	if revs, _ := filepath.Glob(filepath.Join(r1.GitDir(), "objects", "pack", "*.rev")); len(revs) != 1 {
		t.Fatalf("git wrote no reverse index: %v", revs)
	}
	w.addStep(r1, "after the fetch")
	if _, err := r1.GC(repo.Options{}); err != nil {
		t.Fatal(err)
	}
	if out := w.git(r1.Dir, "count-objects", "-v"); !strings.Contains(out, "\ngarbage: 0\n") {
		t.Errorf("after gc:\n%s", out)
	}
	if files, _ := filepath.Glob(filepath.Join(r1.GitDir(), "objects", "pack", "*")); len(files) != 2 {
		t.Errorf("after gc the pack directory holds %v", files)
	}
	repotest.Check(t, r1.Dir)
}

// TestPushReadsNoSessionConfig: the session's own .git/config is in the
// project's work tree, where anything that can write files can write it;
// plangit's git reads none of it. A receivepack or uploadpack there runs
// nothing, a second url, a pushurl or an insteadOf rule sends nothing
// anywhere, a push option there is not sent, a mirror setting does not
// break the push — while the push options of the project's configuration
// still reach the remote, and every push, fetch and listing works as on
// a clean session.
func TestPushReadsNoSessionConfig(t *testing.T) {
	t.Parallel()
	w := newWorld(t, fileRemote)
	base := filepath.Dir(w.bare)
	marks := filepath.Join(base, "marks")
	os.Mkdir(marks, 0o755)
	evil := filepath.Join(base, "evil.git")
	// The remote logs the push options each push brings; the project's
	// configuration names one.
	options := filepath.Join(base, "options.log")
	w.git(w.bare, "config", "receive.advertisePushOptions", "true")
	os.WriteFile(filepath.Join(w.bare, "hooks", "pre-receive"), []byte("#!/bin/sh\n"+
		"i=0; opts=\nwhile [ \"$i\" -lt \"${GIT_PUSH_OPTION_COUNT:-0}\" ]; do eval \"opts=\\\"\\$opts \\$GIT_PUSH_OPTION_$i\\\"\"; i=$((i+1)); done\n"+
		"echo \"options:$opts\" >>'"+options+"'\n"), 0o755)
	w.git(w.agent.Root, "config", "push.pushOption", "from-project")
	included := filepath.Join(base, "included.config")
	os.WriteFile(included, []byte("[remote \"origin\"]\n\treceivepack = \"touch '"+filepath.Join(marks, "included")+"'; exec git-receive-pack\"\n"), 0o644)

	s1, s2 := w.start(w.agent, "s1"), w.start(w.agent, "s2")
	r := w.remote(w.agent)
	statuses(t, r.Push([]string{"s1", "s2"}, w.opts()), "s1:created", "s2:created")
	config := filepath.Join(s1.GitDir(), "config")
	clean, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		kv   []string // key, value, …
	}{
		{"receivepack", []string{"remote.origin.receivepack", "touch '" + filepath.Join(marks, "receivepack") + "'; exec git-receive-pack"}},
		{"uploadpack", []string{"remote.origin.uploadpack", "touch '" + filepath.Join(marks, "uploadpack") + "'; exec git-upload-pack"}},
		{"include.path", []string{"include.path", included}},
		{"a second url", []string{"remote.origin.url", evil}},
		{"pushurl", []string{"remote.origin.pushurl", evil}},
		{"insteadOf", []string{"url." + evil + ".insteadOf", w.url}},
		{"pushInsteadOf", []string{"url." + evil + ".pushInsteadOf", w.url}},
		{"pushOption", []string{"push.pushOption", "from-session"}},
		{"mirror", []string{"remote.origin.mirror", "true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(config, clean, 0o644)
			os.RemoveAll(evil)
			w.git(base, "init", "-q", "--bare", evil)
			w.git(evil, "config", "receive.advertisePushOptions", "true")
			for i := 0; i < len(tc.kv); i += 2 {
				w.git(base, "config", "--file", config, "--add", tc.kv[i], tc.kv[i+1])
			}
			os.Remove(options)
			w.addStep(s1, "after "+tc.name)
			w.addStep(s2, "after "+tc.name)
			// The poisoned session first, then with another: one git push
			// carries both, whichever comes first.
			statuses(t, r.Push([]string{"s1"}, w.opts()), "s1:pushed")
			w.addStep(s1, "and again")
			statuses(t, r.Push([]string{"s2", "s1"}, w.opts()), "s2:pushed", "s1:pushed")
			for _, s := range []*repo.Session{s1, s2} {
				if got := strings.TrimSpace(gitIn(t, w.bare, "rev-parse", share.RemoteRef(s.ID))); got != head(t, s) {
					t.Errorf("origin holds %s of %s, the session %s", got, s.ID, head(t, s))
				}
			}
			if log, _ := os.ReadFile(options); string(log) != "options: from-project\noptions: from-project\n" {
				t.Errorf("the remote received these push options:\n%s", log)
			}
			statuses(t, r.Fetch([]string{"s1"}, w.opts()), "s1:up-to-date")
			if list, _, err := r.List(); err != nil || len(list) != 2 || list[0].Here != "in-sync" {
				t.Errorf("sessions --remote: %v %+v", err, list)
			}
			if refs := gitIn(t, evil, "for-each-ref"); refs != "" {
				t.Errorf("the session's configuration sent to %s:\n%s", evil, refs)
			}
			ran, _ := filepath.Glob(filepath.Join(marks, "*"))
			if len(ran) > 0 {
				t.Errorf("the session's configuration ran %v", ran)
			}
			for _, m := range ran {
				os.Remove(m)
			}
		})
	}
	os.WriteFile(config, clean, 0o644)
	fsckAll(t, w)
}

// TestPushUsesTheUsersSSH: the user's own ssh command (core.sshCommand in
// their git configuration) carries push, fetch and sessions --remote; the
// session's .git/config cannot replace it. And with safe.bareRepository
// = explicit, as careful users set it, every repository plangit's git
// works in is named to it, never found.
func TestPushUsesTheUsersSSH(t *testing.T) {
	globalConfig(t)
	w := newWorld(t, fileRemote)
	base := filepath.Dir(w.bare)
	marks := filepath.Join(base, "marks")
	os.Mkdir(marks, 0o755)
	sshLog := filepath.Join(base, "ssh.log")
	ssh := filepath.Join(base, "fake-ssh")
	// An ssh that reaches the host by running the command here.
	os.WriteFile(ssh, []byte("#!/bin/sh\necho \"$@\" >>'"+sshLog+"'\nshift $(($# - 1))\nexec sh -c \"$1\"\n"), 0o755)
	for _, kv := range [][2]string{{"core.sshCommand", ssh}, {"ssh.variant", "simple"}, {"safe.bareRepository", "explicit"}} {
		w.git(base, "config", "--global", kv[0], kv[1])
	}
	w.git(w.agent.Root, "remote", "add", "ssh", "ssh://plangit.invalid"+w.bare)
	s := w.start(w.agent, "s1")
	w.git(base, "config", "--file", filepath.Join(s.GitDir(), "config"), "core.sshCommand", "touch '"+filepath.Join(marks, "sshcommand")+"'; exit 1")

	r, err := share.NewRemote(w.agent, share.RemoteOptions{Name: "ssh"})
	if err != nil {
		t.Fatal(err)
	}
	statuses(t, r.Push([]string{"s1"}, w.opts()), "s1:created")
	w.addStep(s, "over ssh")
	statuses(t, r.Push([]string{"s1"}, w.opts()), "s1:pushed")
	if got := strings.TrimSpace(gitIn(t, base, "--git-dir="+w.bare, "rev-parse", share.RemoteRef("s1"))); got != head(t, s) {
		t.Errorf("the remote holds %s, the session %s", got, head(t, s))
	}
	statuses(t, r.Fetch([]string{"s1"}, w.opts()), "s1:up-to-date")
	if list, _, err := r.List(); err != nil || len(list) != 1 || list[0].Here != "in-sync" {
		t.Errorf("sessions --remote: %v %+v", err, list)
	}
	if log, _ := os.ReadFile(sshLog); !strings.Contains(string(log), "plangit.invalid git-receive-pack '"+w.bare+"'") ||
		!strings.Contains(string(log), "plangit.invalid git-upload-pack '"+w.bare+"'") {
		t.Errorf("the user's ssh command was not used:\n%s", log)
	}
	if ran, _ := filepath.Glob(filepath.Join(marks, "*")); len(ran) > 0 {
		t.Errorf("the session's configuration ran %v", ran)
	}
}
