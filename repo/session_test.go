package repo

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
	"github.com/plangit/plangit/repo/repotest"
	"github.com/plangit/plangit/repo/store"
)

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// newTestSession creates a session with a three-step plan.
func newTestSession(t *testing.T) *Session {
	t.Helper()
	p := Project{Root: t.TempDir()}
	pl := newTestSessionPlan(t)
	s, res, err := p.Create("s1", &plan.State{Plan: pl}, plan.Change{Op: "init", Summary: "init: Add caching"}, Options{Now: t0, Meta: Meta{Actor: "agent"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit == nil {
		t.Fatal("create made no commit")
	}
	t.Cleanup(func() { repotest.Check(t, s.Dir) })
	return s
}

// newTestSessionPlan is the plan the test sessions start with: one phase,
// steps 1–3.
func newTestSessionPlan(t *testing.T) *plan.Plan {
	t.Helper()
	pl, err := plan.New("s1", "Add caching", "cache lookups", []string{"Build"}, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Analyze", "Design", "Build"} {
		if _, err := pl.AddStep(plan.StepSpec{Text: text}, t0); err != nil {
			t.Fatal(err)
		}
	}
	return pl
}

func step(id string, a plan.Action) func(*plan.State) (plan.Change, error) {
	return func(st *plan.State) (plan.Change, error) {
		return st.Plan.Transition(id, a, plan.TransitionOpts{}, t0)
	}
}

func readFile(t *testing.T, s *Session, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.Dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCreateAndCommit(t *testing.T) {
	s := newTestSession(t)
	t.Setenv("GIT_AUTHOR_NAME", "Ann Lee")
	t.Setenv("GIT_AUTHOR_EMAIL", "ann@example.com")
	res, err := s.Update(Options{Now: t0.Add(time.Minute), Meta: Meta{Actor: "agent", Host: "claude", HostSession: "abc-123"}}, step("1", plan.ActStart))
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit == nil || res.Adopted != nil {
		t.Fatalf("%+v", res)
	}
	if got := repotest.RevCount(t, s.Dir); got != 2 {
		t.Fatalf("%d revisions", got)
	}
	msg := repotest.Git(t, s.Dir, "log", "-1", "--format=%B")
	for _, want := range []string{"step 1: pending → in_progress\n", "Plangit-Op: step.start", "Plangit-Step: 1", "Plangit-Actor: agent", "Plangit-Host: claude", "Plangit-Host-Session: abc-123", "Plangit-Progress: 0/3"} {
		if !strings.Contains(msg, want) {
			t.Errorf("commit message lacks %q:\n%s", want, msg)
		}
	}
	if show := repotest.Git(t, s.Dir, "show", "HEAD:task_plan.md"); show != readFile(t, s, plan.PlanFile) {
		t.Error("HEAD's task_plan.md differs from the working file")
	}
	if got := repotest.Git(t, s.Dir, "ls-tree", "--name-only", "HEAD"); got != "errors.md\nfindings.md\ntask_plan.md\n" {
		t.Errorf("tree: %q", got)
	}
	if got := repotest.Git(t, s.Dir, "log", "-1", "--format=%an <%ae> %ad", "--date=iso-strict"); !strings.HasPrefix(got, "Ann Lee <ann@example.com> 2026-11-20T10:01:00+00:00") {
		t.Errorf("author: %q", got)
	}
	if head := repotest.Git(t, s.Dir, "symbolic-ref", "HEAD"); head != "refs/heads/main\n" {
		t.Errorf("branch: %q", head)
	}
}

func TestNoChangeMakesNoCommit(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	res, err := s.Update(Options{}, func(st *plan.State) (plan.Change, error) {
		return st.Plan.SetProgress("1", plan.Progress{}, t0) // already zero
	})
	if err != nil || res.Commit != nil {
		t.Fatalf("%+v %v", res, err)
	}
	if n := repotest.RevCount(t, s.Dir); n != 1 {
		t.Fatalf("%d revisions", n)
	}
}

func TestFailedChangeWritesNothing(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	before := readFile(t, s, plan.PlanFile)
	_, err := s.Update(Options{}, step("99", plan.ActDone))
	if plan.CodeOf(err) != plan.CodeStepNotFound {
		t.Fatalf("got %v", err)
	}
	_, err = s.Update(Options{}, func(st *plan.State) (plan.Change, error) {
		// Reopening a pending step is a no-op without a reason; with one,
		// it is refused.
		return st.Plan.Transition("1", plan.ActReopen, plan.TransitionOpts{Reason: "again"}, t0)
	})
	if plan.CodeOf(err) != plan.CodeInvalidStatus {
		t.Fatalf("got %v", err)
	}
	if readFile(t, s, plan.PlanFile) != before || repotest.RevCount(t, s.Dir) != 1 {
		t.Fatal("a failed change wrote something")
	}
}

func TestHandEditIsAdoptedFirst(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	path := filepath.Join(s.Dir, plan.PlanFile)
	src := readFile(t, s, plan.PlanFile)
	edited := strings.Replace(src, "- [ ] ○ Analyze", "- [x] ○ Analyze", 1)
	edited = strings.Replace(edited, "\n<!-- plangit", "- [ ] Write docs\n\n<!-- plangit", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := s.Update(Options{Now: t0.Add(time.Hour)}, step("2", plan.ActStart))
	if err != nil {
		t.Fatal(err)
	}
	if res.Adopted == nil || res.Commit == nil {
		t.Fatalf("want an adopted edit and a change: %+v", res)
	}
	log := repotest.Git(t, s.Dir, "log", "--format=%s")
	if log != "step 2: pending → in_progress\nedit: task_plan.md changed outside plangit\ninit: Add caching\n" {
		t.Fatalf("log:\n%s", log)
	}
	if actor := repotest.Git(t, s.Dir, "log", "-1", "--skip=1", "--format=%(trailers:key=Plangit-Actor,valueonly)"); strings.TrimSpace(actor) != "user" {
		t.Errorf("an adopted edit is the user's: %q", actor)
	}
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	if s1, _, _ := st.Plan.Step("1"); s1.Status != plan.StepCompleted {
		t.Error("the ticked box was adopted")
	}
	if s4, _, _ := st.Plan.Step("4"); s4 == nil || s4.Text != "Write docs" {
		t.Error("the added line became step 4")
	}
}

func TestHandEditWithoutChangeIsStillAdopted(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	path := filepath.Join(s.Dir, plan.FindingsFile)
	os.WriteFile(path, []byte("# Findings\n\n## Insight\n\n### Noted by hand\n"), 0o644)
	res, err := s.Update(Options{}, func(st *plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if err != nil || res.Adopted == nil || res.Commit != nil {
		t.Fatalf("%+v %v", res, err)
	}
	if got := readFile(t, s, plan.FindingsFile); !strings.Contains(got, "### Noted by hand `#1`") {
		t.Errorf("the adopted file is written back normalized:\n%s", got)
	}
}

func TestInvalidHandEditIsNeverOverwritten(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	path := filepath.Join(s.Dir, plan.PlanFile)
	broken := strings.Replace(readFile(t, s, plan.PlanFile), "`#2`", "`#two`", 1)
	os.WriteFile(path, []byte(broken), 0o644)
	_, err := s.Update(Options{}, step("1", plan.ActStart))
	if plan.CodeOf(err) != plan.CodePlanParseError || !strings.Contains(err.Error(), "task_plan.md:10:1") || !strings.Contains(err.Error(), "plangit repair") {
		t.Fatalf("got %v", err)
	}
	if readFile(t, s, plan.PlanFile) != broken || repotest.RevCount(t, s.Dir) != 1 {
		t.Fatal("the invalid edit was touched")
	}
	os.WriteFile(path, []byte(strings.Replace(broken, "`#two`", "`#2`", 1)), 0o644) // fixed by hand; Check runs at cleanup
}

func TestRevisionsAndIfRev(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	first, _ := s.Head()
	s.Update(Options{}, step("1", plan.ActStart))
	s.Update(Options{}, step("1", plan.ActDone))
	head, _ := s.Head()
	for rev, want := range map[string]string{"HEAD": head, "@3": head, "@1": first, "HEAD~2": first, "HEAD^^": first, first[:7]: first, strings.ToUpper(first): first} {
		got, err := s.Resolve(rev)
		if err != nil || got != want {
			t.Errorf("%s → %s, %v; want %s", rev, got, err, want)
		}
	}
	for _, rev := range []string{"@4", "HEAD~3", "HEAD^2", "HEAD^^^", "0000000", "@1^"} {
		if _, err := s.Resolve(rev); plan.CodeOf(err) != plan.CodeRevisionNotFound {
			t.Errorf("%s: got %v", rev, err)
		}
	}
	// A name plangit does not read is an error naming the forms, never HEAD.
	for _, rev := range []string{"@0", "abc", "zzzzzzz", "main", "HEAD^1x", "HEAD@{1}", "HEADfoo", "HEAD-1", "", "@", "@-1", "3", "origin/main@{1}"} {
		if rev == "@" {
			continue // HEAD
		}
		_, err := s.Resolve(rev)
		if plan.CodeOf(err) != plan.CodeInvalidArgument || !strings.Contains(err.Error(), "HEAD~N") {
			t.Errorf("%q: got %v", rev, err)
		}
		if CheckRevName(rev) == nil {
			t.Errorf("CheckRevName(%q) passed", rev)
		}
	}
	for rev, want := range map[string]string{"HEAD^0": head, "HEAD~0": head, "HEAD^1": mustResolve(t, s, "@2"), "@3~1^1": first, "HEAD~": mustResolve(t, s, "@2")} {
		if got, err := s.Resolve(rev); err != nil || got != want {
			t.Errorf("%s → %s, %v; want %s", rev, got, err, want)
		}
	}
	if _, err := s.Update(Options{IfRev: first[:8]}, step("2", plan.ActStart)); plan.CodeOf(err) != plan.CodeConflict {
		t.Fatalf("stale --if-rev: %v", err)
	}
	if _, err := s.Update(Options{IfRev: head}, step("2", plan.ActStart)); err != nil {
		t.Fatalf("current --if-rev: %v", err)
	}
}

func mustResolve(t *testing.T, s *Session, rev string) string {
	t.Helper()
	h, err := s.Resolve(rev)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestRevlogRebuilds(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	s.Update(Options{}, step("1", plan.ActStart))
	first, _ := s.Resolve("@1")
	os.Remove(store.RevlogPath(s.gitDir))
	if got, err := s.Resolve("@1"); err != nil || got != first {
		t.Fatalf("@1 after losing the log: %s %v", got, err)
	}
	if entries, ok := s.store.ReadLog(); !ok || len(entries) != 2 || entries[1].Op != "step.start" || entries[1].Total != 3 {
		t.Fatalf("the rebuilt log was saved: %+v", entries)
	}
	// A log that does not reach HEAD (a killed process) is completed.
	os.WriteFile(store.RevlogPath(s.gitDir), []byte(mustLine(t, s, first)), 0o644)
	s.Update(Options{}, step("1", plan.ActDone))
	if entries, ok := s.store.ReadLog(); !ok || len(entries) != 3 {
		t.Fatalf("log after a gap: %d entries, ok=%v", len(entries), ok)
	}
}

// TestAgentTrailer: the agent of a change is its commit's Plangit-Agent
// trailer, in the revision log and read back from the commits when the
// log is rebuilt; a change naming no agent writes none, and a log line
// from before agents were named still reads.
func TestAgentTrailer(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	if _, err := s.Update(Options{Meta: Meta{Actor: "agent", Agent: "alpha"}}, step("1", plan.ActStart)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(Options{Meta: Meta{Actor: "agent"}}, step("1", plan.ActDone)); err != nil {
		t.Fatal(err)
	}
	if msg := repotest.Git(t, s.Dir, "log", "-1", "--skip=1", "--format=%B"); !strings.Contains(msg, "\nPlangit-Agent: alpha\n") {
		t.Errorf("commit message lacks the agent:\n%s", msg)
	}
	if msg := repotest.Git(t, s.Dir, "log", "-1", "--format=%B"); strings.Contains(msg, TrailerAgent) {
		t.Errorf("a change naming no agent has an agent trailer:\n%s", msg)
	}
	agents := func() []string {
		revs, err := s.Revisions()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range revs {
			out = append(out, r.Agent)
		}
		return out
	}
	want := []string{"", "alpha", ""}
	if got := agents(); !slices.Equal(got, want) {
		t.Fatalf("agents %q, want %q", got, want)
	}
	os.Remove(store.RevlogPath(s.gitDir))
	if got := agents(); !slices.Equal(got, want) {
		t.Fatalf("agents from the commits %q, want %q", got, want)
	}
	line := mustLine(t, s, repotest.Git(t, s.Dir, "rev-parse", "HEAD~1")[:40])
	if f := strings.Split(strings.TrimSuffix(line, "\n"), "\t"); len(f) != 17 || f[15] != "alpha" {
		t.Fatalf("log line: %q", line)
	}
	older := strings.Join(strings.Split(line, "\t")[:15], "\t")
	if e, ok := store.ParseLine(older); !ok || e.Agent != "" || e.Op != "step.start" {
		t.Fatalf("a line from before agents were named: %+v %v", e, ok)
	}
	if who := RevisionOf(store.Entry{Actor: "agent", Agent: "alpha", Author: Person{Name: "Ann Lee"}}).Who(); who != "Ann Lee (alpha)" {
		t.Errorf("who %q", who)
	}
	if who := RevisionOf(store.Entry{Actor: "hook", Agent: "alpha"}).Who(); who != "alpha (hook)" {
		t.Errorf("who %q", who)
	}
}

func mustLine(t *testing.T, s *Session, hash string) string {
	t.Helper()
	entries, _ := s.store.ReadLog()
	for _, e := range entries {
		if e.Hash.String() == hash {
			return e.Line()
		}
	}
	t.Fatal("no such entry")
	return ""
}

func TestLockTimeout(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	other, _ := s.Project.Open(s.ID)
	unlock, err := other.lk.take(time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Update(Options{LockWait: 50 * time.Millisecond}, step("1", plan.ActStart))
	unlock()
	if plan.CodeOf(err) != plan.CodeLockTimeout {
		t.Fatalf("got %v", err)
	}
	if repotest.RevCount(t, s.Dir) != 1 {
		t.Fatal("a timed-out change committed")
	}
}

func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	const workers, each = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own, _ := s.Project.Open(s.ID) // its own lock file descriptor
			for i := 0; i < each; i++ {
				// Losing nothing is the point, not the wait: a slow system
				// (Windows under Wine) makes a writer wait its turn longer.
				_, err := own.Update(Options{LockWait: 2 * time.Minute}, func(st *plan.State) (plan.Change, error) {
					st.Plan.Iterations++
					return plan.Change{Op: "test", Summary: "bump"}, nil
				})
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st, _ := s.State()
	if got := repotest.RevCount(t, s.Dir); got != 1+workers*each || st.Plan.Iterations != workers*each {
		t.Fatalf("%d revisions, iterations %d", got, st.Plan.Iterations)
	}
}

func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	t.Run("files written, branch not moved", func(t *testing.T) {
		s := newTestSession(t)
		// What a process killed between writing the files and moving the
		// branch leaves: new files, old HEAD and index.
		st, _ := s.State()
		st.Plan.Transition("1", plan.ActStart, plan.TransitionOpts{}, t0)
		os.WriteFile(filepath.Join(s.Dir, plan.PlanFile), plan.WritePlan(st.Plan), 0o644)
		res, err := s.Update(Options{}, step("1", plan.ActDone))
		if err != nil || res.Adopted == nil {
			t.Fatalf("%+v %v", res, err)
		}
		after, _ := s.State()
		if s1, _, _ := after.Plan.Step("1"); s1.Status != plan.StepCompleted || s1.Started.IsZero() {
			t.Fatalf("the interrupted change was kept and the new one applied: %+v", s1)
		}
	})
	t.Run("branch moved, index stale", func(t *testing.T) {
		s := newTestSession(t)
		old, _ := os.ReadFile(filepath.Join(s.gitDir, indexName))
		s.Update(Options{}, step("1", plan.ActStart))
		os.WriteFile(filepath.Join(s.gitDir, indexName), old, 0o644)
		res, err := s.Update(Options{}, func(st *plan.State) (plan.Change, error) { return plan.Change{}, nil })
		if err != nil || res.Adopted != nil {
			t.Fatalf("a stale index is no hand edit: %+v %v", res, err)
		}
		// Check (at cleanup) proves the index is back in step.
	})
}

func TestSessionIDs(t *testing.T) {
	t.Parallel()
	p := Project{Root: t.TempDir()}
	for _, id := range []string{"", "..", ".hidden", "a/b", `a\b`, "a\x00b", "/etc", strings.Repeat("x", 129), "sp ace", "ü"} {
		if err := ValidateSessionID(id); plan.CodeOf(err) != plan.CodeInvalidSessionID {
			t.Errorf("%q: got %v", id, err)
		}
		if _, err := p.Open(id); plan.CodeOf(err) != plan.CodeInvalidSessionID {
			t.Errorf("open %q: got %v", id, err)
		}
		if _, _, err := p.Create(id, nil, plan.Change{}, Options{}); plan.CodeOf(err) != plan.CodeInvalidSessionID {
			t.Errorf("create %q: got %v", id, err)
		}
	}
	if _, err := os.Stat(p.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("refused ids touched the disk")
	}
	for _, id := range []string{"a", "A-b_c.9", strings.Repeat("x", 128), "550e8400-e29b-41d4-a716-446655440000"} {
		if err := ValidateSessionID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	if _, err := p.Open("nope"); plan.CodeOf(err) != plan.CodeSessionNotFound {
		t.Errorf("got %v", err)
	}
}

func TestCreateTwiceIsRefused(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	pl, _ := plan.New("s1", "Other", "", nil, t0, false)
	_, _, err := s.Project.Create("s1", &plan.State{Plan: pl}, plan.Change{Op: "init"}, Options{})
	if plan.CodeOf(err) != plan.CodeInvalidArgument {
		t.Fatalf("got %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(s.Project.Dir(), ".gitignore")); string(got) != "*\n" {
		t.Errorf(".code-agent/.gitignore = %q", got)
	}
}

func TestFindRoot(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	os.MkdirAll(filepath.Join(root, DirName), 0o755)
	os.MkdirAll(deep, 0o755)
	if got, _ := FindRoot("", deep); got != root {
		t.Errorf("found %s", got)
	}
	if got, _ := FindRoot("/explicit", deep); got != "/explicit" {
		t.Errorf("explicit: %s", got)
	}
	bare := t.TempDir()
	if got, _ := FindRoot("", bare); got != bare {
		t.Errorf("no .code-agent: %s", got)
	}
}

// TestDiskLayout: the hook binary finds sessions and their private files
// by package disk's paths, which must be the ones repo uses.
func TestDiskLayout(t *testing.T) {
	t.Parallel()
	p := Project{Root: t.TempDir()}
	pl, _ := plan.New("s1", "t", "", nil, t0, false)
	s, _, err := p.Create("s1", &plan.State{Plan: pl}, plan.Change{Op: "init", Summary: "init"}, Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	if disk.SessionDir(p.Root, "s1") != s.Dir || disk.PrivatePath(s.Dir, "x") != s.PrivatePath("x") {
		t.Error("disk's paths differ from repo's")
	}
}

// TestSweepSparesUnlockedTemps: a change's sweep removes what killed
// processes left under the lock at once, and a temporary file written
// without the lock (the turn memory starting over) once its writer no
// longer runs, or it is stale: a writer that runs may be about to rename
// it.
func TestSweepSparesUnlockedTemps(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	dir := filepath.Join(s.gitDir, privateDir)
	me := strconv.Itoa(os.Getpid())
	gone := exec.Command(os.Args[0], "-test.run=^$")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(dir, tmpPrefix+"1")
	fresh := filepath.Join(dir, UnlockedPrefix+me+"-2")
	stale := filepath.Join(dir, UnlockedPrefix+me+"-3")
	killed := filepath.Join(dir, UnlockedPrefix+strconv.Itoa(gone.Process.Pid)+"-4")
	for _, p := range []string{locked, fresh, stale, killed} {
		os.WriteFile(p, []byte("x"), 0o644)
	}
	old := time.Now().Add(-staleTemp - time.Minute)
	os.Chtimes(stale, old, old)
	if _, err := s.Update(Options{}, step("1", plan.ActStart)); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{locked: false, fresh: true, stale: false, killed: disk.Running(gone.Process.Pid)} {
		if _, err := os.Lstat(p); (err == nil) != want {
			t.Errorf("%s: left %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
	// Written without the lock, the turn memory's file goes by that name.
	if err := s.WritePrivate("turn", []byte("T - - -\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(s.PrivatePath("turn")); string(b) != "T - - -\n" {
		t.Fatalf("turn holds %q", b)
	}
}

// TestAppendLogLine: a line of the log is one line of printable text of
// bounded length, whatever a payload put in it — escape sequences, NULs,
// invalid UTF-8, megabytes.
func TestAppendLogLine(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	path := filepath.Join(s.Project.Dir(), LogFile)
	os.Remove(path)
	hostile := "hook PreToolUse session=y\x1b[31mRED\x00\xff\xfe x\u0085y " + strings.Repeat("a", 10<<20)
	if err := s.Project.AppendLog(t0, hostile); err != nil {
		t.Fatal(err)
	}
	if err := s.Project.AppendLog(t0, "second\nline"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[1], " second line") {
		t.Fatalf("%d lines:\n%.300q", len(lines), b)
	}
	first := lines[0]
	if len(first) > maxLogLine+len("2026-01-01T00:00:00Z ") || !strings.HasSuffix(first, "aaa…") {
		t.Errorf("a line of %d bytes: %.100q…", len(first), first)
	}
	if !utf8.ValidString(first) || strings.ContainsFunc(first, unicode.IsControl) {
		t.Errorf("control characters or invalid UTF-8 kept: %.120q", first)
	}
	if !strings.Contains(first, "session=y\uFFFD[31mRED\uFFFD\uFFFD x y a") {
		t.Errorf("%.120q", first)
	}
}

// TestRefusedSessionIDRedacted: a refused id that holds a token is
// redacted whole before it is cut to the error's length, so no part of
// the token shows in the message, its fields or the log.
func TestRefusedSessionIDRedacted(t *testing.T) {
	t.Parallel()
	token := "0123456789abcdefghijABCDEFGHIJ012345"
	for _, id := range []string{strings.Repeat("x", 21) + "/ghp_" + token, strings.Repeat("x", 21) + "-ghp_" + token + strings.Repeat("y", 100)} {
		err := ValidateSessionID(id)
		var perr *plan.Error
		if !errors.As(err, &perr) || perr.Code != plan.CodeInvalidSessionID {
			t.Fatalf("%q: got %v", id, err)
		}
		shown := err.Error() + fmt.Sprint(perr.Details)
		if strings.Contains(shown, token[:8]) || !strings.Contains(shown, "ghp_[redacted]") {
			t.Errorf("the token shows: %s", shown)
		}
	}
}

// TestStoreReadsWhatPlanWrites: the store refuses a file over the size
// package plan parses, the same limit: it cannot import plan to read it.
func TestStoreReadsWhatPlanWrites(t *testing.T) {
	if store.MaxFile != plan.MaxFile {
		t.Errorf("store.MaxFile is %d, plan.MaxFile %d", store.MaxFile, plan.MaxFile)
	}
}
