package history

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
)

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// session makes a session whose plan has n pending steps in one phase.
// Each change advances the clock by a minute.
type session struct {
	*repo.Session
	t   testing.TB
	now time.Time
}

func newSession(t testing.TB, n int) *session {
	t.Helper()
	p, _ := plan.New("s1", "History test", "exercise history", []string{"Work"}, t0, false)
	for i := 1; i <= n; i++ {
		p.AddStep(plan.StepSpec{Text: "Step " + strconv.Itoa(i)}, t0)
	}
	s, _, err := repo.Project{Root: t.TempDir()}.Create("s1", &plan.State{Plan: p}, plan.Change{Op: "init", Summary: "init"}, repo.Options{Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	se := &session{Session: s, t: t, now: t0}
	t.Cleanup(func() {
		repotest.Check(t, s.Dir)
		revs, _ := s.Revisions()
		if got := repotest.RevCount(t, s.Dir); got != len(revs) {
			t.Errorf("git log counts %d revisions, plangit %d", got, len(revs))
		}
	})
	return se
}

func (s *session) opts() repo.Options {
	s.now = s.now.Add(time.Minute)
	return repo.Options{Now: s.now, Meta: repo.Meta{Actor: "agent"}}
}

func (s *session) do(fn func(p *plan.Plan, now time.Time) (plan.Change, error)) {
	s.t.Helper()
	o := s.opts()
	if _, err := s.Update(o, func(st *plan.State) (plan.Change, error) { return fn(st.Plan, o.Now) }); err != nil {
		s.t.Fatal(err)
	}
}

func (s *session) step(id string, a plan.Action) {
	s.t.Helper()
	s.do(func(p *plan.Plan, now time.Time) (plan.Change, error) {
		return p.Transition(id, a, plan.TransitionOpts{Force: true, Result: "r" + id}, now)
	})
}

func (s *session) files() map[string][]byte {
	s.t.Helper()
	f, err := s.ReadFiles()
	if err != nil {
		s.t.Fatal(err)
	}
	return f
}

// TestRevertMistakenCompletion is the scenario: 30 changes, a
// mistaken completion of a step, 5 changes to other steps, then step
// revert.
func TestRevertMistakenCompletion(t *testing.T) {
	t.Parallel()
	s := newSession(t, 12)
	for i := 0; i < 30; i++ {
		id := strconv.Itoa(i/3%6 + 1)
		switch i % 3 {
		case 0:
			s.step(id, plan.ActStart)
		case 1:
			s.step(id, plan.ActDone)
		case 2:
			s.step(id, plan.ActReopen)
		}
	}
	s.step("7", plan.ActDone) // the mistake: straight from pending, as agents often do
	mistake, _ := s.Last()
	for _, id := range []string{"8", "9", "10"} {
		s.step(id, plan.ActStart)
	}
	s.step("8", plan.ActDone)
	s.do(func(p *plan.Plan, now time.Time) (plan.Change, error) {
		return p.SetProgress("9", plan.Progress{Current: 1, Total: 4}, now)
	})
	before, _ := s.State()

	res, err := RevertStep(s.Session, "7", s.opts())
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("step 7: completed → pending (revert of @%d %s)", mistake.N, mistake.Hash[:7]); res.Commit.Change.Summary != want {
		t.Errorf("summary %q, want %q", res.Commit.Change.Summary, want)
	}
	after, _ := s.State()
	s7, _, _ := after.Plan.Step("7")
	if s7.Status != plan.StepPending || !s7.Completed.IsZero() || s7.Result != "" {
		t.Fatalf("step 7 after revert: %+v", s7)
	}
	// The five later changes stay.
	for _, id := range []string{"8", "9", "10"} {
		a, _, _ := after.Plan.Step(id)
		b, _, _ := before.Plan.Step(id)
		if a.Status != b.Status || a.Progress != b.Progress {
			t.Errorf("step %s changed: %+v → %+v", id, b, a)
		}
	}
	// log --step 7 shows its three revisions: its creation, the mistake, the
	// revert.
	revs, err := Log(s.Session, LogOptions{Step: "7"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range revs {
		got = append(got, r.Summary)
	}
	want := []string{res.Commit.Change.Summary, "step 7: pending → completed", "init"}
	if !slices.Equal(got, want) {
		t.Fatalf("log --step 7:\n got %q\nwant %q", got, want)
	}
	// Reverting again undoes the revert: history is a record, not a stack.
	if _, err := RevertStep(s.Session, "7", s.opts()); err != nil {
		t.Fatal(err)
	}
	again, _ := s.State()
	if s7, _, _ := again.Plan.Step("7"); s7.Status != plan.StepCompleted {
		t.Fatalf("second revert: %s", s7.Status)
	}
}

func TestRevertRefusals(t *testing.T) {
	t.Parallel()
	s := newSession(t, 3)
	if _, err := RevertStep(s.Session, "1", s.opts()); plan.CodeOf(err) != plan.CodeInvalidStatus ||
		err.Error() != "step 1 has no status change to revert: it is pending as it was added (plangit show 1 gives its history)" {
		t.Fatalf("a step that never changed status: %v", err)
	}
	if _, err := RevertStep(s.Session, "9", s.opts()); plan.CodeOf(err) != plan.CodeStepNotFound {
		t.Fatalf("unknown step: %v", err)
	}
	s.step("1", plan.ActDone)
	// A hand edit that changed the status since: the revert would not undo
	// what the log says, so it refuses.
	src := string(s.files()[plan.PlanFile])
	os.WriteFile(filepath.Join(s.Dir, plan.PlanFile), []byte(strings.Replace(src, "- [x] ● Step 1", "- [ ] ● Step 1", 1)), 0o644)
	if _, err := s.Update(s.opts(), func(*plan.State) (plan.Change, error) { return plan.Change{}, nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := RevertStep(s.Session, "1", s.opts()); err != nil {
		t.Fatalf("the adopted edit is itself a status change that revert undoes: %v", err)
	}
	st, _ := s.State()
	if s1, _, _ := st.Plan.Step("1"); s1.Status != plan.StepCompleted {
		t.Fatalf("reverting the hand edit restores completed: %s", s1.Status)
	}
}

func TestRollbackThenUndoIsExact(t *testing.T) {
	t.Parallel()
	s := newSession(t, 4)
	for _, id := range []string{"1", "2", "3"} {
		s.step(id, plan.ActStart)
		s.step(id, plan.ActDone)
	}
	s.do(func(p *plan.Plan, now time.Time) (plan.Change, error) {
		_, err := p.AddStep(plan.StepSpec{Text: "Added late"}, now)
		return plan.Change{Op: "step.add", Summary: "add"}, err
	})
	before := s.files()
	at3, _, _ := s.FilesAt("@3")

	res, err := Rollback(s.Session, "@3", s.opts())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Commit.Change.Summary, "rollback to @3 (") {
		t.Errorf("summary %q", res.Commit.Change.Summary)
	}
	if got := s.files(); !equalFiles(got, at3) {
		t.Fatal("after rollback the files differ from @3's")
	}
	if _, err := Undo(s.Session, s.opts()); err != nil {
		t.Fatal(err)
	}
	if got := s.files(); !equalFiles(got, before) {
		t.Fatal("rollback then undo did not return byte-identical files")
	}
	// Nothing to roll back to: the files already equal the target.
	res, err = Rollback(s.Session, "HEAD", s.opts())
	if err != nil || res.Commit != nil {
		t.Fatalf("rollback to HEAD: %+v %v", res, err)
	}
	if _, err := Rollback(s.Session, "@99", s.opts()); plan.CodeOf(err) != plan.CodeRevisionNotFound {
		t.Fatalf("unknown revision: %v", err)
	}
}

func equalFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestUndoOfAPendingHandEdit: a hand edit not yet recorded is the most
// recent change: undo adopts it and undoes it, says so, and history keeps
// it; the revision under it is not undone with the edit lost.
func TestUndoOfAPendingHandEdit(t *testing.T) {
	t.Parallel()
	s := newSession(t, 2)
	s.step("1", plan.ActStart) // @2
	path := filepath.Join(s.Dir, plan.PlanFile)
	b, _ := os.ReadFile(path)
	edited := bytes.Replace(b, []byte("Step 2 `#2`"), []byte("Step 2 by hand `#2`"), 1)
	if bytes.Equal(edited, b) {
		t.Fatalf("no step 2 line in\n%s", b)
	}
	os.WriteFile(path, edited, 0o644)
	res, err := Undo(s.Session, s.opts())
	if err != nil {
		t.Fatal(err)
	}
	if res.Adopted == nil || res.Commit == nil || res.Commit.Change.Summary != "undo @3 (the hand edit adopted just before)" {
		t.Fatalf("adopted %v, summary %q", res.Adopted, res.Commit.Change.Summary)
	}
	st, _ := s.State()
	if s1, _, _ := st.Plan.Step("1"); s1.Status != plan.StepInProgress {
		t.Errorf("the revision under the edit was undone: step 1 %s", s1.Status)
	}
	if s2, _, _ := st.Plan.Step("2"); s2.Text != "Step 2" {
		t.Errorf("step 2 %q", s2.Text)
	}
	edit, _, err := s.FilesAt("@3")
	if err != nil || !bytes.Contains(edit[plan.PlanFile], []byte("Step 2 by hand")) {
		t.Errorf("history does not keep the edit: %v", err)
	}
}

func TestUndoFirstRevision(t *testing.T) {
	t.Parallel()
	s := newSession(t, 1)
	if _, err := Undo(s.Session, s.opts()); plan.CodeOf(err) != plan.CodeRevisionNotFound {
		t.Fatalf("got %v", err)
	}
}

func TestSemanticDiff(t *testing.T) {
	t.Parallel()
	s := newSession(t, 3)
	s.step("1", plan.ActStart)
	s.step("1", plan.ActDone)
	s.do(func(p *plan.Plan, now time.Time) (plan.Change, error) {
		p.AddPhase("Verify", "", now)
		text, needs := "Step two, renamed", []string{"1"}
		p.EditStep("2", plan.StepEdit{Text: &text, Needs: &needs}, now)
		p.RemoveStep("3", now)
		p.AddStep(plan.StepSpec{Text: "Benchmark", Phase: "2"}, now)
		p.SetProgress("2", plan.Progress{Current: 1, Total: 3}, now)
		return plan.Change{Op: "edit", Summary: "many"}, nil
	})
	o := s.opts()
	s.Update(o, func(st *plan.State) (plan.Change, error) {
		st.Findings.Add(plan.Finding{Category: plan.CatInsight, Title: "A note"}, o.Now)
		st.Errors.Record(plan.ErrorRecord{Tool: "Bash", Message: "exit 1"}, o.Now)
		return plan.Change{Op: "x", Summary: "x"}, nil
	})
	o = s.opts()
	s.Update(o, func(st *plan.State) (plan.Change, error) {
		st.Errors.Record(plan.ErrorRecord{Tool: "Bash", Message: "exit 2"}, o.Now)
		st.Plan.Pause("", o.Now)
		return plan.Change{Op: "x", Summary: "x"}, nil
	})
	d, err := Between(s.Session, "@1", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range d.Changes {
		lines = append(lines, c.Detail)
	}
	want := []string{
		"status running → paused",
		"phase 2 added: Verify",
		"step 1: pending → completed",
		`step 1 result set: r1`,
		`step 2 renamed "Step 2" → "Step two, renamed"`,
		"step 2 needs none → 1",
		"step 2 progress none → 1/3",
		"step 4 added to phase 2: Benchmark (pending)",
		"step 3 removed: Step 3",
		"finding 1 added (insight): A note",
		"error added: Bash ×2: exit 2",
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("diff:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if d.From.N != 1 || d.To.N != 6 {
		t.Errorf("endpoints %+v %+v", d.From, d.To)
	}
	// Counting up shows as such between the last two revisions.
	d, _ = Between(s.Session, "HEAD~1", "HEAD")
	if d.Changes[1].Detail != "error counted up: Bash ×1 → ×2: exit 2" {
		t.Errorf("%+v", d.Changes)
	}
	// A step moved between phases.
	s.do(func(p *plan.Plan, now time.Time) (plan.Change, error) {
		p.Resume(now)
		st, ph, _ := p.Step("2")
		ph.Steps = slices.DeleteFunc(ph.Steps, func(x *plan.Step) bool { return x == st })
		p.Phases[1].Steps = append(p.Phases[1].Steps, st)
		return plan.Change{Op: "move", Summary: "move"}, nil
	})
	d, _ = Between(s.Session, "HEAD~1", "HEAD")
	if d.Changes[1].Detail != "step 2 moved from phase 1 to phase 2" {
		t.Errorf("%+v", d.Changes)
	}
}

// A revision that only sets the deliverable, edits a phase or resolves an
// error is no "no changes": the diff says what it did.
func TestSemanticDiffOfDeliverableAndErrors(t *testing.T) {
	t.Parallel()
	s := newSession(t, 2)
	o := s.opts()
	s.Update(o, func(st *plan.State) (plan.Change, error) {
		st.Errors.Record(plan.ErrorRecord{Tool: "Bash", Message: "exit 1", Key: "go vet"}, o.Now)
		return plan.Change{Op: "x", Summary: "x"}, nil
	})
	steps := []struct {
		change func(st *plan.State, now time.Time)
		want   []string
	}{
		{func(st *plan.State, _ time.Time) { st.SetDeliverable([]byte("# Cache\n\np99 down to 3ms\n")) },
			[]string{"deliverable set (3 lines): Cache"}},
		{func(st *plan.State, _ time.Time) { st.SetDeliverable([]byte("# Cache\n\np99 down to 2ms\nmore\n")) },
			[]string{"deliverable changed (+2 −1 lines): Cache"}},
		{func(st *plan.State, now time.Time) {
			title, notes := "Study", "first things first"
			st.Plan.EditPhase("1", plan.PhaseEdit{Title: &title, Notes: &notes}, now)
		}, []string{"phase 1 renamed Work → Study", "phase 1 notes set: first things first"}},
		{func(st *plan.State, now time.Time) { st.Errors.ResolveKey("Bash", "go vet", "it passed", now) },
			[]string{"error #1 resolved: Bash: exit 1 (it passed)"}},
		{func(st *plan.State, _ time.Time) { st.SetDeliverable(nil) }, []string{"deliverable removed"}},
	}
	for i, step := range steps {
		o := s.opts()
		if _, err := s.Update(o, func(st *plan.State) (plan.Change, error) {
			step.change(st, o.Now)
			return plan.Change{Op: "x", Summary: "x"}, nil
		}); err != nil {
			t.Fatal(err)
		}
		d, _ := Between(s.Session, "HEAD~1", "HEAD")
		var got []string
		for _, c := range d.Changes {
			got = append(got, c.Detail)
		}
		if !slices.Equal(got, step.want) {
			t.Errorf("change %d: %q, want %q", i, got, step.want)
		}
	}
}

// TestTextDiffAppliesWithGit: the unified diff is one the real git applies.
func TestTextDiffAppliesWithGit(t *testing.T) {
	t.Parallel()
	s := newSession(t, 8)
	for _, id := range []string{"1", "5", "8"} {
		s.step(id, plan.ActDone)
	}
	o := s.opts()
	s.Update(o, func(st *plan.State) (plan.Change, error) {
		st.Findings.Add(plan.Finding{Category: plan.CatCode, Title: "x", Content: "line one\nline two"}, o.Now)
		return plan.Change{Op: "x", Summary: "x"}, nil
	})
	a, _, _ := s.FilesAt("@1")
	b, _, _ := s.FilesAt("HEAD")
	diffs := TextDiff(a, b)
	if len(diffs) != 2 || diffs[0].Name != plan.FindingsFile || diffs[1].Name != plan.PlanFile {
		t.Fatalf("%+v", diffs)
	}
	dir := t.TempDir()
	for name, content := range a {
		os.WriteFile(filepath.Join(dir, name), content, 0o644)
	}
	var patch strings.Builder
	for _, d := range diffs {
		patch.WriteString(d.Unified)
	}
	os.WriteFile(filepath.Join(dir, "p.diff"), []byte(patch.String()), 0o644)
	cmd := exec.Command(repotest.RequireTool(t, "git"), "apply", "p.diff")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s\n%s", err, out, patch.String())
	}
	for name, want := range b {
		got, _ := os.ReadFile(filepath.Join(dir, name))
		if !bytes.Equal(got, want) {
			t.Errorf("%s after git apply differs", name)
		}
	}
	if diffs[1].Added == 0 || diffs[1].Deleted == 0 {
		t.Errorf("stat: %+v", diffs[1])
	}
}

func TestBlameAndTimeline(t *testing.T) {
	t.Parallel()
	s := newSession(t, 3)
	s.step("1", plan.ActStart) // @2 10:01
	s.step("1", plan.ActDone)  // @3 10:02
	s.step("2", plan.ActStart) // @4 10:03
	s.step("2", plan.ActDone)  // @5 10:04, by mistake
	s.step("2", plan.ActReopen)
	s.step("2", plan.ActStart) // @7 10:06
	s.do(func(p *plan.Plan, now time.Time) (plan.Change, error) {
		text := "Step three, clarified"
		return p.EditStep("3", plan.StepEdit{Text: &text}, now)
	})
	lines, err := Blame(s.Session)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"@3 status in_progress → completed; result set: r1", "@7 status pending → in_progress", `@8 renamed "Step 3" → "Step three, clarified"`}
	for i, l := range lines {
		if got := fmt.Sprintf("@%d %s", l.N, l.What); got != want[i] {
			t.Errorf("blame step %s: %q, want %q", l.Step, got, want[i])
		}
	}
	if lines[0].Actor != "agent" || !lines[0].Time.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("%+v", lines[0])
	}
	spans, err := Timeline(s.Session)
	if err != nil {
		t.Fatal(err)
	}
	if sp := spans[0]; !sp.Started.Equal(t0.Add(time.Minute)) || !sp.Finished.Equal(t0.Add(2*time.Minute)) || sp.Duration != time.Minute || sp.Runs != 1 {
		t.Errorf("step 1: %+v", sp)
	}
	if sp := spans[1]; !sp.Started.Equal(t0.Add(6*time.Minute)) || !sp.Finished.IsZero() || sp.Runs != 2 {
		t.Errorf("step 2 (reopened, running again): %+v", sp)
	}
	if sp := spans[2]; !sp.Started.IsZero() || sp.Runs != 0 {
		t.Errorf("step 3: %+v", sp)
	}
}

func TestLogFilters(t *testing.T) {
	t.Parallel()
	s := newSession(t, 2)
	s.step("1", plan.ActStart)
	s.step("2", plan.ActStart)
	s.step("1", plan.ActDone)
	all, _ := Log(s.Session, LogOptions{})
	if len(all) != 4 || all[0].N != 4 || all[3].N != 1 {
		t.Fatalf("log is newest first: %+v", all)
	}
	if got, _ := Log(s.Session, LogOptions{N: 2}); len(got) != 2 || got[0].N != 4 {
		t.Fatalf("-n 2: %+v", got)
	}
	if got, _ := Log(s.Session, LogOptions{Since: t0.Add(2 * time.Minute)}); len(got) != 2 {
		t.Fatalf("--since: %d", len(got))
	}
	if got, _ := Log(s.Session, LogOptions{Step: "#1"}); len(got) != 3 {
		t.Fatalf("--step 1 (init added it, then start, done): %d", len(got))
	}
	if since, err := ParseSince("2h", t0); err != nil || !since.Equal(t0.Add(-2*time.Hour)) {
		t.Error(since, err)
	}
	if since, err := ParseSince("2026-11-19", t0); err != nil || !since.Equal(t0.Add(-34*time.Hour)) {
		t.Error(since, err)
	}
	for _, bad := range []string{"", "x", "5", "3y", "-2h"} {
		if _, err := ParseSince(bad, t0); plan.CodeOf(err) != plan.CodeInvalidArgument {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestDiffNamesErrorsByID: an error's change carries the error's id, as
// a finding's carries the finding's, not its tool's name.
func TestDiffNamesErrorsByID(t *testing.T) {
	t.Parallel()
	a := &plan.State{Plan: &plan.Plan{}}
	b := a.Clone()
	b.RecordError(plan.ErrorRecord{Tool: "Bash", Message: "first"}, t0)
	b.RecordError(plan.ErrorRecord{Tool: "Bash", Message: "second"}, t0)
	c := b.Clone()
	c.Errors.Resolve("1", "fixed", t0)
	var ids []string
	for _, ch := range append(SemanticDiff(a, b), SemanticDiff(b, c)...) {
		if ch.Kind == "error" {
			ids = append(ids, ch.Action+" "+ch.ID)
		}
	}
	if want := []string{"added 2", "added 1", "resolved 1"}; !slices.Equal(ids, want) && !slices.Equal(ids, []string{"added 1", "added 2", "resolved 1"}) {
		t.Errorf("error changes %q, want %q", ids, want)
	}
}

// TestTimelineKeepsTheRecordedTimes: after an undo gives a step back its
// completion, the timeline says when it ran — the times the plan records
// — not when the undo was made.
func TestTimelineKeepsTheRecordedTimes(t *testing.T) {
	t.Parallel()
	s := newSession(t, 2)
	s.step("1", plan.ActStart)
	s.step("1", plan.ActDone)
	st, _ := s.State()
	ran, _, _ := st.Plan.Step("1")
	s.now = s.now.Add(time.Hour)
	s.step("1", plan.ActReopen)
	s.now = s.now.Add(time.Hour)
	if _, err := Undo(s.Session, s.opts()); err != nil {
		t.Fatal(err)
	}
	spans, err := Timeline(s.Session)
	if err != nil {
		t.Fatal(err)
	}
	sp := spans[0]
	if sp.Status != plan.StepCompleted || !sp.Started.Equal(ran.Started) || !sp.Finished.Equal(ran.Completed) || sp.Duration != ran.Completed.Sub(ran.Started) {
		t.Errorf("span %+v, the step ran %s → %s", sp, ran.Started, ran.Completed)
	}
	if !spans[1].Started.IsZero() || !spans[1].Finished.IsZero() {
		t.Errorf("a step never started: %+v", spans[1])
	}
}

// TestDiffAcrossAnUnreadableRevision: a revision written with git by hand
// whose plan does not parse, which repair followed with one that does,
// has no semantic diff: diff says so and names the text diff, which
// works.
func TestDiffAcrossAnUnreadableRevision(t *testing.T) {
	t.Parallel()
	s := newSession(t, 2)
	path := filepath.Join(s.Dir, plan.PlanFile)
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte("`#2`"), []byte("`#two`"), 1), 0o644)
	repotest.Git(t, s.Dir, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-qam", "by hand")
	if _, err := s.Repair(s.opts()); err != nil {
		t.Fatal(err)
	}
	_, err := Between(s.Session, "HEAD~1", "HEAD")
	if plan.CodeOf(err) != plan.CodePlanParseError || !strings.Contains(err.Error(), "revision HEAD~1 does not read as a plan") ||
		!strings.Contains(err.Error(), "plangit diff --text HEAD~1 HEAD") || strings.Contains(err.Error(), "put back the number") {
		t.Fatalf("a semantic diff from the unreadable revision: %v", err)
	}
	files, _, _, err := TextBetween(s.Session, "HEAD~1", "HEAD")
	if err != nil || len(files) != 1 || !strings.Contains(files[0].Unified, "+- [ ] ○ Step 2 `#2`") {
		t.Fatalf("the text diff: %+v %v", files, err)
	}
}

// TestErrorChangesOneToOne: each error is matched to one record of the
// other log, so an error deleted by hand beside one whose message differs
// only in its numbers reads as removed; a message changed by hand and a
// resolution changed read as such; a repeat that took a newer message is
// counted up, not changed (nor its step); a note and a key added by hand
// to an open error read as such.
func TestErrorChangesOneToOne(t *testing.T) {
	t.Parallel()
	a := &plan.State{Plan: &plan.Plan{}}
	a.RecordError(plan.ErrorRecord{Tool: "Bash", Key: "k1", Message: "e1"}, t0)
	a.RecordError(plan.ErrorRecord{Tool: "Bash", Key: "k2", Message: "e2"}, t0)
	a.RecordError(plan.ErrorRecord{Tool: "Go", Key: "k3", Message: "build failed"}, t0)
	a.Errors.Resolve("3", "fixed the import", t0)
	b := a.Clone()
	b.Errors = slices.DeleteFunc(b.Errors, func(e *plan.ErrorRecord) bool { return e.ID == "1" })
	b.Errors.ByID("3").Resolution = "fixed the import path"
	c := b.Clone()
	c.Errors.ByID("2").Message = "timed out after 30s"
	d := c.Clone()
	d.RecordError(plan.ErrorRecord{Tool: "Bash", Key: "k2", Message: "timed out after 45s", Step: "1"}, t0.Add(time.Minute))
	e := d.Clone()
	e.Errors.ByID("2").Resolution = "a note by hand, still open"
	e.Errors.ByID("2").Key = "k2b"
	var got []string
	for _, pair := range [][2]*plan.State{{a, b}, {b, c}, {c, d}, {d, e}} {
		for _, ch := range SemanticDiff(pair[0], pair[1]) {
			if ch.Kind == "error" {
				got = append(got, ch.Action+" "+ch.ID)
			}
		}
	}
	if want := []string{"resolution 3", "removed 1", "changed 2", "counted 2", "resolution 2", "changed 2"}; !slices.Equal(got, want) {
		t.Errorf("error changes %q, want %q", got, want)
	}
}

// TestDiffCutsLongValues: a change names at most the first 200 bytes of a
// value, as the log does its summaries, whatever the record holds.
func TestDiffCutsLongValues(t *testing.T) {
	t.Parallel()
	a := &plan.State{Plan: &plan.Plan{}}
	b := a.Clone()
	b.RecordError(plan.ErrorRecord{Tool: "Bash", Message: strings.Repeat("x", 3000)}, t0)
	cs := SemanticDiff(a, b)
	if len(cs) != 1 || len(cs[0].Detail) > 260 || !strings.HasSuffix(cs[0].Detail, "…") {
		t.Fatalf("%d changes; the first %d bytes: %.80q", len(cs), len(cs[0].Detail), cs[0].Detail)
	}
}
