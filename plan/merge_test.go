package plan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/repo/repotest"
)

// mergeBase is a running plan of four steps in two phases, one finding and
// one error: what two machines share before they diverge.
func mergeBase(t *testing.T) *State {
	t.Helper()
	p, err := New("s1", "Add caching", "cache lookups", []string{"Analysis", "Build"}, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []StepSpec{{Text: "Analyze", Phase: "1"}, {Text: "Design", Phase: "1"}, {Text: "Build", Phase: "2", Needs: []string{"2"}}, {Text: "Test", Phase: "2"}} {
		if _, err := p.AddStep(s, t0); err != nil {
			t.Fatal(err)
		}
	}
	st := &State{Plan: p}
	st.AddFinding(Finding{Category: CatCode, Title: "GetUser is hot"}, t0)
	st.RecordError(ErrorRecord{Tool: "Bash", Message: "go test: exit 1", Key: "go test"}, t0)
	return st
}

// edit returns a copy of st changed by fn at time at.
func edit(t *testing.T, st *State, fn func(st *State, now time.Time) error, at time.Duration) *State {
	t.Helper()
	c := st.Clone()
	if err := fn(c, t0.Add(at)); err != nil {
		t.Fatal(err)
	}
	// Through the files, as a revision holds it.
	back, err := ParseState(c.Files())
	if err != nil {
		t.Fatalf("the edited state does not parse: %v", err)
	}
	return back
}

// mergeBoth merges both ways and checks that the result is the same.
func mergeBoth(t *testing.T, base, x, y *State) (*State, *MergeReport) {
	t.Helper()
	out, rep, err := Merge(base, MergeSide{Rev: "aaaaaaa", State: x}, MergeSide{Rev: "bbbbbbb", State: y}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := Merge(base, MergeSide{Rev: "bbbbbbb", State: y}, MergeSide{Rev: "aaaaaaa", State: x}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !sameFiles(out, back) {
		t.Fatalf("the merge depends on the order of its sides:\n%s\n---\n%s", dump(out), dump(back))
	}
	again, err := ParseState(out.Files())
	if err != nil {
		t.Fatalf("the merged files do not parse: %v\n%s", err, dump(out))
	}
	if !sameFiles(again, out) {
		t.Fatalf("the merged files do not read back the same:\n%s\n---\n%s", dump(out), dump(again))
	}
	return again, rep
}

func sameFiles(a, b *State) bool {
	fa, fb := a.Files(), b.Files()
	if len(fa) != len(fb) {
		return false
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			return false
		}
	}
	return true
}

func dump(st *State) string {
	var b strings.Builder
	for _, name := range SessionFiles {
		if data, ok := st.Files()[name]; ok {
			fmt.Fprintf(&b, "== %s\n%s", name, data)
		}
	}
	return b.String()
}

func step(t *testing.T, st *State, id string) *Step {
	t.Helper()
	s, _, err := st.Plan.Step(id)
	if err != nil {
		t.Fatalf("%v\n%s", err, WritePlan(st.Plan))
	}
	return s
}

// TestMergeDifferentRecords: one side finishes a step and logs an error,
// the other adds a finding and edits another step: everything is kept,
// nothing conflicts.
func TestMergeDifferentRecords(t *testing.T) {
	t.Parallel()
	base := mergeBase(t)
	agent := edit(t, base, func(st *State, now time.Time) error {
		if _, err := st.Plan.Transition("1", ActStart, TransitionOpts{}, now); err != nil {
			return err
		}
		if _, err := st.Plan.Transition("1", ActDone, TransitionOpts{Result: "3 hot paths"}, now.Add(time.Minute)); err != nil {
			return err
		}
		_, err := st.RecordError(ErrorRecord{Tool: "Edit", Message: "file changed on disk"}, now)
		return err
	}, time.Hour)
	reviewer := edit(t, base, func(st *State, now time.Time) error {
		if _, err := st.AddFinding(Finding{Category: CatIssue, Title: "cache key misses the tenant"}, now); err != nil {
			return err
		}
		text := "Design it per tenant"
		_, err := st.Plan.EditStep("2", StepEdit{Text: &text}, now)
		return err
	}, 2*time.Hour)
	out, rep := mergeBoth(t, base, agent, reviewer)
	if s := step(t, out, "1"); s.Status != StepCompleted || s.Result != "3 hot paths" {
		t.Errorf("step 1: %+v", s)
	}
	if s := step(t, out, "2"); s.Text != "Design it per tenant" {
		t.Errorf("step 2: %+v", s)
	}
	if len(out.Findings) != 2 || out.Findings[1].Title != "cache key misses the tenant" {
		t.Errorf("findings: %s", WriteFindings(out.Findings))
	}
	if len(out.Errors) != 2 || out.Errors.ByID("2") == nil || out.Errors.ByID("2").Tool != "Edit" {
		t.Errorf("errors: %s", WriteErrors(out.Errors))
	}
	if len(rep.Conflicts) != 0 || len(rep.Renumbered) != 0 {
		t.Errorf("report: %+v", rep)
	}
	if !slices.Contains(rep.Sides[0].Changes, "step 1: pending → completed; result changed") || !slices.Contains(rep.Sides[1].Changes, "finding 2 added (issue): cache key misses the tenant") {
		t.Errorf("what each side brought: %+v", rep.Sides)
	}
	if !out.Plan.Updated.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("updated %v", out.Plan.Updated)
	}
}

// TestMergeConflictingStatus: both sides change step 3's status, each its
// own way, and its text alike: a conflict on the status, recorded in the
// plan with both values, the step keeping its old status; the text and the
// rest merge. resolve settles it either way; until then the step takes no
// change.
func TestMergeConflictingStatus(t *testing.T) {
	t.Parallel()
	base := mergeBase(t)
	start := func(st *State, now time.Time) error {
		_, err := st.Plan.Transition("3", ActStart, TransitionOpts{Force: true}, now)
		return err
	}
	agent := edit(t, base, func(st *State, now time.Time) error {
		if err := start(st, now); err != nil {
			return err
		}
		_, err := st.Plan.Transition("3", ActDone, TransitionOpts{Result: "cache.go", Force: true}, now.Add(10*time.Minute))
		return err
	}, time.Hour)
	reviewer := edit(t, base, func(st *State, now time.Time) error {
		if _, err := st.Plan.Transition("3", ActBlock, TransitionOpts{Reason: "design first", Force: true}, now); err != nil {
			return err
		}
		_, err := st.Plan.Transition("4", ActSkip, TransitionOpts{Reason: "covered"}, now)
		return err
	}, 2*time.Hour)
	out, rep := mergeBoth(t, base, agent, reviewer)
	s := step(t, out, "3")
	if s.Status != StepPending || len(s.Conflicts) != 1 || s.Conflicts[0].Field != "status" {
		t.Fatalf("step 3: %+v", s)
	}
	c := s.Conflicts[0]
	if !strings.HasPrefix(c.Sides[0].Value, "completed ") || c.Sides[0].Rev != "aaaaaaa" || c.Sides[1].Value != "blocked" || c.Sides[1].Rev != "bbbbbbb" {
		t.Errorf("conflict %+v", c)
	}
	if s.Result != "cache.go" || s.Reason != "design first" {
		t.Errorf("the fields only one side changed: result %q, reason %q", s.Result, s.Reason)
	}
	if step(t, out, "4").Status != StepSkipped {
		t.Error("step 4 lost the skip")
	}
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Target() != "step 3" {
		t.Errorf("report conflicts %+v", rep.Conflicts)
	}
	if !strings.Contains(string(WritePlan(out.Plan)), "  - conflict: status: \"completed 2026-11-20T11:00:00Z → 2026-11-20T11:10:00Z\" (aaaaaaa) | \"blocked\" (bbbbbbb)\n") {
		t.Errorf("the plan does not show both values:\n%s", WritePlan(out.Plan))
	}
	if _, err := out.Plan.Transition("3", ActStart, TransitionOpts{}, t0); !HasCode(err, CodeConflict) || !strings.Contains(err.Error(), "plangit resolve 3") {
		t.Errorf("a change to the step in conflict: %v", err)
	}
	if got := out.Plan.Ready(); slices.ContainsFunc(got, func(x *Step) bool { return x.ID == "3" }) {
		t.Error("a step in conflict is ready")
	}

	ours := out.Clone()
	if _, err := ours.Resolve("3", "", Choice{Rev: "aaaa"}, t0); err != nil {
		t.Fatal(err)
	}
	if s := step(t, ours, "3"); s.Status != StepCompleted || s.Completed.IsZero() || len(s.Conflicts) != 0 {
		t.Errorf("resolved to ours: %+v", s)
	}
	theirs := out.Clone()
	c2, err := theirs.Resolve("step 3", "status", Choice{Rev: "bbbbbbb"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if s := step(t, theirs, "3"); s.Status != StepBlocked || c2.Summary != "resolve: step 3 status → blocked (bbbbbbb)" {
		t.Errorf("resolved to theirs: %+v %q", s, c2.Summary)
	}
	if _, err := theirs.Resolve("3", "", Choice{Rev: "aaaa"}, t0); !HasCode(err, CodeInvalidArgument) {
		t.Errorf("settling twice: %v", err)
	}
	text := "mine"
	if _, err := out.Clone().Resolve("3", "", Choice{Text: &text}, t0); !HasCode(err, CodeInvalidArgument) || !strings.Contains(err.Error(), "is not text") {
		t.Errorf("--text on a status: %v", err)
	}
	if _, err := out.Clone().Resolve("3", "", Choice{Rev: "cccc"}, t0); !HasCode(err, CodeInvalidArgument) || !strings.Contains(err.Error(), "aaaaaaa and bbbbbbb") {
		t.Errorf("an unknown side: %v", err)
	}
}

// TestMergeBothAdd: both sides add steps, a phase, findings and errors;
// every record is kept and ids stay unique — the step whose content sorts
// later is renumbered past every id either side issued, and the needs and
// references of its side follow it.
func TestMergeBothAdd(t *testing.T) {
	t.Parallel()
	base := mergeBase(t)
	agent := edit(t, base, func(st *State, now time.Time) error {
		s5, err := st.Plan.AddStep(StepSpec{Text: "Benchmark", Phase: "2"}, now)
		if err != nil {
			return err
		}
		if _, err := st.Plan.AddStep(StepSpec{Text: "Tune", Phase: "2", Needs: []string{s5.ID}}, now); err != nil {
			return err
		}
		st.AddFinding(Finding{Category: CatInsight, Title: "LRU is enough", Step: s5.ID}, now)
		st.RecordError(ErrorRecord{Tool: "Bash", Message: "bench: timeout", Step: s5.ID}, now)
		return nil
	}, time.Hour)
	reviewer := edit(t, base, func(st *State, now time.Time) error {
		s5, err := st.Plan.AddStep(StepSpec{Text: "Address the review", Phase: "1"}, now)
		if err != nil {
			return err
		}
		if _, err := st.Plan.AddPhase("Docs", "", now); err != nil {
			return err
		}
		if _, err := st.Plan.AddStep(StepSpec{Text: "Write the docs", Phase: "3", Needs: []string{s5.ID}}, now); err != nil {
			return err
		}
		st.AddFinding(Finding{Category: CatIssue, Title: "tenant missing", Step: s5.ID}, now)
		st.RecordError(ErrorRecord{Tool: "Bash", Message: "bench: timeout"}, now.Add(time.Minute))
		return nil
	}, 2*time.Hour)
	out, rep := mergeBoth(t, base, agent, reviewer)
	texts := map[string]*Step{}
	for _, s := range out.Plan.Steps() {
		texts[s.Text] = s
	}
	for _, want := range []string{"Benchmark", "Tune", "Address the review", "Write the docs"} {
		if texts[want] == nil {
			t.Fatalf("step %q lost:\n%s", want, WritePlan(out.Plan))
		}
	}
	// "Address the review" sorts before "Benchmark": the agent's 5 and 6 move.
	if texts["Address the review"].ID != "5" || texts["Write the docs"].ID != "6" || texts["Benchmark"].ID != "7" || texts["Tune"].ID != "8" {
		t.Errorf("ids: %s", WritePlan(out.Plan))
	}
	if !slices.Equal(texts["Tune"].Needs, []string{"7"}) || !slices.Equal(texts["Write the docs"].Needs, []string{"5"}) {
		t.Errorf("needs did not follow: %s", WritePlan(out.Plan))
	}
	if out.Plan.NextStep != 9 {
		t.Errorf("next step %d", out.Plan.NextStep)
	}
	var ren []string
	for _, r := range rep.Renumbered {
		ren = append(ren, r.String())
	}
	if want := []string{"step 5 → 7 (aaaaaaa's): Benchmark", "step 6 → 8 (aaaaaaa's): Tune", "finding 2 → 3 (bbbbbbb's): tenant missing"}; !slices.Equal(ren, want) {
		t.Errorf("renumbered %q, want %q", ren, want)
	}
	if len(out.Findings) != 3 {
		t.Fatalf("findings:\n%s", WriteFindings(out.Findings))
	}
	byTitle := map[string]*Finding{}
	for _, f := range out.Findings {
		byTitle[f.Title] = f
	}
	if byTitle["LRU is enough"].Step != "7" || byTitle["tenant missing"].Step != "5" || byTitle["LRU is enough"].ID == byTitle["tenant missing"].ID {
		t.Errorf("findings: %s", WriteFindings(out.Findings))
	}
	// The same error, seen on both machines, is one record seen twice.
	if len(out.Errors) != 2 || out.Errors[0].Count != 2 || out.Errors[0].ID != "2" || out.Errors[0].Step != "7" {
		t.Errorf("errors:\n%s", WriteErrors(out.Errors))
	}
	if ph, err := out.Plan.Phase("3"); err != nil || ph.Title != "Docs" || len(ph.Steps) != 1 {
		t.Errorf("phase 3: %v %+v", err, ph)
	}
	if len(rep.Conflicts) != 0 {
		t.Errorf("conflicts %+v", rep.Conflicts)
	}
}

// TestMergeRemovedAndChanged: a step one side removed and the other
// changed is kept with a conflict; one the other left alone goes; one a
// step of the other side needs stays.
// TestMergeKeepsThePublishedIDs: with one side published (Keep), every
// record both sides added under one id keeps it on that side, whatever
// the content would choose, and only the other side's move: a machine
// that already pushed step 5 and then completes it still completes its
// own step after the next merge. Which side is x does not matter.
func TestMergeKeepsThePublishedIDs(t *testing.T) {
	t.Parallel()
	base := mergeBase(t)
	add := func(text, finding string) func(*State, time.Time) error {
		return func(st *State, now time.Time) error {
			s, err := st.Plan.AddStep(StepSpec{Text: text, Phase: "2"}, now)
			if err != nil {
				return err
			}
			st.AddFinding(Finding{Category: CatInsight, Title: finding, Step: s.ID}, now)
			st.RecordError(ErrorRecord{Tool: "Bash", Message: "failed: " + text}, now)
			_, err = st.Plan.AddPhase(text+" phase", "", now)
			return err
		}
	}
	local := edit(t, base, add("Alpha: review the API", "alpha"), time.Hour) // sorts first: by content it would keep 5
	published := edit(t, base, add("Zeta: write the migration", "zeta"), 2*time.Hour)
	for _, order := range []struct {
		x, y MergeSide
		keep Keep
	}{
		{MergeSide{Rev: "aaaaaaa", State: local}, MergeSide{Rev: "bbbbbbb", State: published}, KeepY},
		{MergeSide{Rev: "bbbbbbb", State: published}, MergeSide{Rev: "aaaaaaa", State: local}, KeepX},
	} {
		out, rep, err := Merge(base, order.x, order.y, MergeOptions{Keep: order.keep})
		if err != nil {
			t.Fatal(err)
		}
		if s, _, _ := out.Plan.Step("5"); s == nil || s.Text != "Zeta: write the migration" {
			t.Errorf("step 5: %+v\n%s", s, WritePlan(out.Plan))
		}
		if s, _, _ := out.Plan.Step("6"); s == nil || s.Text != "Alpha: review the API" {
			t.Errorf("step 6: %+v", s)
		}
		for _, f := range out.Findings {
			if f.Title == "zeta" && (f.ID != "2" || f.Step != "5") || f.Title == "alpha" && (f.ID != "3" || f.Step != "6") {
				t.Errorf("finding %+v", *f)
			}
		}
		for _, e := range out.Errors {
			if strings.Contains(e.Message, "Zeta") && e.ID != "2" || strings.Contains(e.Message, "Alpha") && e.ID != "3" {
				t.Errorf("error %+v", *e)
			}
		}
		if ph, _ := out.Plan.Phase("3"); ph == nil || ph.Title != "Zeta: write the migration phase" {
			t.Errorf("phase 3: %+v", ph)
		}
		for _, r := range rep.Renumbered {
			if r.Rev != "aaaaaaa" {
				t.Errorf("the published side's %s %s moved", r.Kind, r.From)
			}
		}
	}
}

func TestMergeRemovedAndChanged(t *testing.T) {
	t.Parallel()
	base := mergeBase(t)
	agent := edit(t, base, func(st *State, now time.Time) error {
		for _, id := range []string{"4", "1"} {
			if _, err := st.Plan.RemoveStep(id, now); err != nil {
				return err
			}
		}
		return nil
	}, time.Hour)
	reviewer := edit(t, base, func(st *State, now time.Time) error {
		text := "Test under load"
		if _, err := st.Plan.EditStep("4", StepEdit{Text: &text}, now); err != nil {
			return err
		}
		_, err := st.Plan.AddStep(StepSpec{Text: "Summarize", Phase: "1", Needs: []string{"1"}}, now)
		return err
	}, time.Hour)
	out, rep := mergeBoth(t, base, agent, reviewer)
	if s := step(t, out, "4"); s.Text != "Test under load" || len(s.Conflicts) != 1 || s.Conflicts[0].String() != `removed: removed (aaaaaaa) | "changed" (bbbbbbb)` {
		t.Errorf("step 4: %+v", s)
	}
	if s := step(t, out, "1"); len(s.Conflicts) != 1 || s.Conflicts[0].Sides[1].Value != "needed by step 5" {
		t.Errorf("step 1: %+v", s)
	}
	if len(rep.Kept) != 2 {
		t.Errorf("kept %q", rep.Kept)
	}
	// Settling the removal the remover's way removes the step; one that
	// another step needs cannot go.
	st := out.Clone()
	if _, err := st.Resolve("4", "", Choice{Rev: "aaaaaaa"}, t0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Plan.Step("4"); err == nil {
		t.Error("step 4 stayed")
	}
	if _, err := st.Resolve("1", "", Choice{Rev: "aaaaaaa"}, t0); !HasCode(err, CodeInvalidDependency) {
		t.Errorf("removing a needed step: %v", err)
	}
}

// TestMergePlanFieldsAndDeliverable: the plan's own fields and the
// deliverable conflict in the header and between markers, settled by
// resolve.
func TestMergePlanFieldsAndDeliverable(t *testing.T) {
	t.Parallel()
	base := mergeBase(t)
	base.Deliverable = []byte("# Result\n\nfirst draft\n")
	agent := edit(t, base, func(st *State, now time.Time) error {
		st.Plan.Goal = "cache lookups for an hour"
		st.Plan.Phases[0].Title = "Look"
		_, err := st.SetDeliverable([]byte("# Result\n\nthe agent's\n"))
		return err
	}, time.Hour)
	reviewer := edit(t, base, func(st *State, now time.Time) error {
		st.Plan.Goal = "cache lookups per tenant"
		st.Plan.Phases[0].Notes = "read it first"
		_, err := st.SetDeliverable([]byte("# Result\n\nthe reviewer's\n"))
		return err
	}, time.Hour)
	out, rep := mergeBoth(t, base, agent, reviewer)
	if out.Plan.Goal != "cache lookups" || out.Plan.Phases[0].Title != "Look" || out.Plan.Phases[0].Notes != "read it first" {
		t.Errorf("plan: %s", WritePlan(out.Plan))
	}
	var fields []string
	for _, c := range out.Conflicts() {
		fields = append(fields, c.Target()+":"+c.Field)
	}
	if want := []string{"deliverable:deliverable", "goal:goal"}; !slices.Equal(fields, want) {
		t.Errorf("conflicts %q, want %q", fields, want)
	}
	if !strings.Contains(string(WritePlan(out.Plan)), "> **Conflict:** goal: \"cache lookups for an hour\" (aaaaaaa) | \"cache lookups per tenant\" (bbbbbbb)\n") {
		t.Errorf("header:\n%s", WritePlan(out.Plan))
	}
	if want := "<<<<<<< aaaaaaa\n# Result\n\nthe agent's\n=======\n# Result\n\nthe reviewer's\n>>>>>>> bbbbbbb\n"; string(out.Deliverable) != want {
		t.Errorf("deliverable:\n%s", out.Deliverable)
	}
	if _, err := out.SetDeliverable([]byte("x")); !HasCode(err, CodeConflict) {
		t.Errorf("deliverable set in conflict: %v", err)
	}
	if _, err := out.Resolve("deliverable", "", Choice{Rev: "bbbbbbb"}, t0); err != nil {
		t.Fatal(err)
	}
	if string(out.Deliverable) != "# Result\n\nthe reviewer's\n" {
		t.Errorf("resolved deliverable:\n%s", out.Deliverable)
	}
	text := "cache lookups, per tenant, for an hour"
	if _, err := out.Resolve("goal", "", Choice{Text: &text}, t0); err != nil || out.Plan.Goal != text || len(out.Plan.Conflicts) != 0 {
		t.Errorf("goal resolved with text: %v %q %+v", err, out.Plan.Goal, out.Plan.Conflicts)
	}
	if len(rep.Conflicts) != 2 {
		t.Errorf("report %+v", rep.Conflicts)
	}
}

// TestMergeSameChange: both sides made the same change — the same status
// at different times, the same finding — and it merges once.
func TestMergeSameChange(t *testing.T) {
	t.Parallel()
	base := mergeBase(t)
	done := func(at time.Duration) func(*State, time.Time) error {
		return func(st *State, now time.Time) error {
			_, err := st.Plan.Transition("1", ActSkip, TransitionOpts{Reason: "known"}, now)
			return err
		}
	}
	out, rep := mergeBoth(t, base, edit(t, base, done(0), time.Hour), edit(t, base, done(0), 2*time.Hour))
	if s := step(t, out, "1"); s.Status != StepSkipped || len(s.Conflicts) != 0 || len(rep.Conflicts) != 0 {
		t.Errorf("step 1: %+v %+v", s, rep.Conflicts)
	}
}

// randomSide changes st as one machine might, with n operations; marker
// names what it adds, so that a test can find it after the merge.
func randomSide(r *rand.Rand, st *State, marker string, n int, now time.Time) {
	tick := func() time.Time { now = now.Add(time.Duration(1+r.IntN(600)) * time.Second); return now }
	for i := range n {
		p := st.Plan
		steps := p.Steps()
		pick := func() *Step { return steps[r.IntN(len(steps))] }
		switch k := r.IntN(14); {
		case k < 3:
			spec := StepSpec{Text: fmt.Sprintf("%s step %d", marker, i), Phase: p.Phases[r.IntN(len(p.Phases))].ID}
			if len(steps) > 0 && r.IntN(2) == 0 {
				spec.Needs = []string{pick().ID}
			}
			if len(steps) > 0 && r.IntN(3) == 0 {
				spec.After, spec.Phase = pick().ID, ""
			}
			p.AddStep(spec, tick())
		case k < 6 && len(steps) > 0:
			p.Transition(pick().ID, Actions[r.IntN(len(Actions))], TransitionOpts{Result: marker + " result", Reason: marker, Force: true}, tick())
		case k == 6 && len(steps) > 0:
			text := fmt.Sprintf("%s renamed %d", marker, i)
			p.EditStep(pick().ID, StepEdit{Text: &text, Force: true}, tick())
		case k == 7 && len(steps) > 0:
			p.RemoveStep(pick().ID, tick())
		case k == 8 && len(steps) > 0:
			p.SetProgress(pick().ID, Progress{r.IntN(4), 3}, tick())
		case k == 9:
			st.AddFinding(Finding{Category: Categories[r.IntN(len(Categories))], Title: fmt.Sprintf("%s finding %d", marker, i)}, tick())
		case k == 10:
			msg := fmt.Sprintf("%s error %d", marker, i)
			if r.IntN(2) == 0 {
				msg = "shared failure"
			}
			st.RecordError(ErrorRecord{Tool: "Bash", Message: msg}, tick())
		case k == 11 && len(st.Errors) > 0:
			st.Errors.Resolve(st.Errors[r.IntN(len(st.Errors))].ID, marker, tick())
		case k == 12:
			st.SetDeliverable([]byte(marker + " deliverable " + strconv.Itoa(i)))
		case k == 13:
			if r.IntN(2) == 0 {
				p.AddPhase(marker+" phase", "", tick())
			} else {
				title := marker + " phase title"
				p.EditPhase(p.Phases[r.IntN(len(p.Phases))].ID, PhaseEdit{Title: &title}, tick())
			}
		}
	}
}

// TestMergeProperty: for random pairs of histories from a common
// ancestor, the merge keeps every record either side added, merging in
// either order gives the same files, ids stay unique, and the files read
// back as they are written.
func TestMergeProperty(t *testing.T) {
	t.Parallel()
	n := 300
	switch {
	case testing.Short():
		n = 60
	case repotest.Long():
		n = 5000
	}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 32))
		base := mergeBase(t)
		randomSide(r, base, "base", r.IntN(10), t0)
		base, _ = ParseState(base.Files())
		x, y := base.Clone(), base.Clone()
		randomSide(r, x, "x", 1+r.IntN(12), t0.Add(time.Hour))
		randomSide(r, y, "y", 1+r.IntN(12), t0.Add(time.Hour))
		x, _ = ParseState(x.Files())
		y, _ = ParseState(y.Files())
		t.Run(strconv.Itoa(seed), func(t *testing.T) {
			out, rep := mergeBoth(t, base, x, y)
			for _, side := range []*State{x, y} {
				for _, s := range side.Plan.Steps() {
					if _, _, err := base.Plan.Step(s.ID); err == nil {
						continue // not added
					}
					if !slices.ContainsFunc(out.Plan.Steps(), func(m *Step) bool { return m.Text == s.Text }) {
						t.Errorf("step %s (%s) lost\n%s", s.ID, s.Text, dump(out))
					}
				}
				for _, f := range side.Findings {
					if !slices.ContainsFunc(out.Findings, func(m *Finding) bool { return m.Title == f.Title }) {
						t.Errorf("finding %q lost", f.Title)
					}
				}
				for _, e := range side.Errors {
					if !slices.ContainsFunc(out.Errors, func(m *ErrorRecord) bool { return m.Message == e.Message }) {
						t.Errorf("error %q lost", e.Message)
					}
				}
			}
			for _, ids := range [][]string{findingIDs(out.Findings), errorIDs(out.Errors)} {
				seen := map[string]bool{}
				for _, id := range ids {
					if seen[id] {
						t.Errorf("id %s twice: %v\n%s", id, ids, dump(out))
					}
					seen[id] = true
				}
			}
			if out.Plan.NextStep <= out.Plan.MaxStepID() {
				t.Errorf("next step %d, but step %d exists", out.Plan.NextStep, out.Plan.MaxStepID())
			}
			for _, c := range rep.Conflicts {
				if c.Sides[0].Rev != "aaaaaaa" || c.Sides[1].Rev != "bbbbbbb" {
					t.Errorf("conflict sides out of order: %+v", c)
				}
			}
			// Every conflict can be settled either way.
			for _, rev := range []string{"aaaaaaa", "bbbbbbb"} {
				st := out.Clone()
				for _, c := range st.Conflicts() {
					target := c.Target()
					st.Resolve(target, c.Field, Choice{Rev: rev}, t0)
				}
				if _, err := ParseState(st.Files()); err != nil {
					t.Errorf("settled to %s: %v", rev, err)
				}
			}
		})
	}
}

func errorIDs(l ErrorLog) []string {
	ids := make([]string, len(l))
	for i, e := range l {
		ids[i] = e.ID
	}
	return ids
}

// A merge of a person's edit (MergeOptions.Edit): a field both sides
// changed takes the edit's value and the report says so; a step the
// edit added under an id the branch uses, or one the history issued
// before, gets a fresh id; a finding the edit changed and the branch
// removed is kept, the report naming who removed it.
func TestMergeOfAPersonsEdit(t *testing.T) {
	t.Parallel()
	base := &State{Plan: samplePlan(t), Findings: Findings{{ID: "1", Category: CatCode, Title: "F", Content: "c"}}}
	head, edit := base.Clone(), base.Clone()
	text, mine := "Analyze it all", "Analyze the hot path"
	if _, err := head.Plan.EditStep("1", StepEdit{Text: &text}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := head.Plan.AddStep(StepSpec{Text: "Agent's step"}, t0); err != nil {
		t.Fatal(err)
	}
	head.Findings = nil
	if _, err := edit.Plan.EditStep("1", StepEdit{Text: &mine}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := edit.Plan.AddStep(StepSpec{Text: "Person's step"}, t0); err != nil { // the same id as the agent's
		t.Fatal(err)
	}
	edit.Findings[0].Content = "c, edited"
	n := len(base.Plan.Steps())
	merged, rep, err := Merge(base, MergeSide{Rev: "1a2b3c4", State: head}, MergeSide{Rev: "edit", State: edit}, Issued{Steps: n + 5}.MergeFloor(MergeOptions{Edit: true}))
	if err != nil {
		t.Fatal(err)
	}
	if s := mustStep(t, merged.Plan, "1"); s.Text != mine || len(s.Conflicts) != 0 {
		t.Errorf("step 1: %q %v", s.Text, s.Conflicts)
	}
	if !slices.Contains(rep.Settled, "step 1 text") || len(rep.Conflicts) != 0 {
		t.Errorf("settled %q, conflicts %v", rep.Settled, rep.Conflicts)
	}
	agent := strconv.Itoa(n + 1)
	if s := mustStep(t, merged.Plan, agent); s.Text != "Agent's step" {
		t.Errorf("step %s: %q", agent, s.Text)
	}
	fresh := strconv.Itoa(n + 6) // past every id the history issued
	if s := mustStep(t, merged.Plan, fresh); s.Text != "Person's step" {
		t.Errorf("step %s: %q", fresh, s.Text)
	}
	if len(merged.Findings) != 1 || merged.Findings[0].Content != "c, edited" || len(rep.KeptRemoved) != 1 || rep.KeptRemoved[0] != (KeptRecord{What: "finding 1", RemovedBy: "1a2b3c4"}) {
		t.Errorf("findings %+v, kept %+v", merged.Findings, rep.KeptRemoved)
	}
}
