package plan

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// samplePlan is a small plan with two phases and a dependency chain 1 ← 2 ← 3.
func samplePlan(t *testing.T) *Plan {
	t.Helper()
	p, err := New("s1", "Add caching", "cache lookups", []string{"Analysis", "Build"}, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	must := func(_ *Step, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(p.AddStep(StepSpec{Text: "Analyze", Phase: "1"}, t0))
	must(p.AddStep(StepSpec{Text: "Design", Phase: "1", Needs: []string{"1"}}, t0))
	must(p.AddStep(StepSpec{Text: "Build", Phase: "2", Needs: []string{"2"}}, t0))
	return p
}

func wantCode(t *testing.T, err error, code Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	if got := CodeOf(err); got != code {
		t.Fatalf("got %s (%v), want %s", got, err, code)
	}
}

func TestTransitionsFromEveryStatus(t *testing.T) {
	t.Parallel()
	for _, from := range stepStatuses {
		for _, a := range Actions {
			t.Run(string(from)+"/"+string(a), func(t *testing.T) {
				p := samplePlan(t)
				s, _, _ := p.Step("1")
				s.Status = from
				before := string(WritePlan(p))
				c, err := p.Transition("1", a, TransitionOpts{NoRetry: true}, t0)
				legal := slices.Contains(transitions[a].from, from)
				if !legal && transitions[a].to == from {
					// Already there: a no-op, never an error to mend.
					if err != nil || c.Op != "" || string(WritePlan(p)) != before {
						t.Fatalf("moving a step to the status it has: %+v %v", c, err)
					}
					return
				}
				if legal {
					if err != nil {
						t.Fatalf("legal transition failed: %v", err)
					}
					want := transitions[a].to
					if s.Status != want {
						t.Fatalf("status %s, want %s", s.Status, want)
					}
					return
				}
				wantCode(t, err, CodeInvalidStatus)
				for _, l := range LegalActions(from) {
					if !strings.Contains(err.Error(), string(l)) {
						t.Errorf("message %q does not name legal action %s", err, l)
					}
				}
				if after := string(WritePlan(p)); after != before {
					t.Errorf("illegal transition changed the plan")
				}
			})
		}
	}
}

func TestTransitionEffects(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	c, err := p.Transition("1", ActStart, TransitionOpts{}, t0)
	if err != nil || c.Summary != "step 1: pending → in_progress" || c.Op != "step.start" {
		t.Fatalf("start: %+v %v", c, err)
	}
	if _, err := p.SetProgress("1", Progress{2, 5}, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Transition("1", ActDone, TransitionOpts{Result: "3 hot paths"}, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	s, _, _ := p.Step("1")
	if s.Result != "3 hot paths" || s.Progress != (Progress{5, 5}) || !s.Completed.Equal(t0.Add(time.Minute)) || !s.Started.Equal(t0) {
		t.Fatalf("after done: %+v", s)
	}
	if _, err := p.Transition("1", ActReopen, TransitionOpts{}, t0); err != nil {
		t.Fatal(err)
	}
	if s.Status != StepPending || s.Result != "" || !s.Completed.IsZero() {
		t.Fatalf("after reopen: %+v", s)
	}

	c, err = p.Transition("1", ActFail, TransitionOpts{Retry: true, Reason: "flaky"}, t0)
	if err != nil || s.Status != StepPending || s.Retries != 1 || c.Summary != "step 1: pending → pending (retry 1 of 3)" {
		t.Fatalf("fail --retry: %+v %+v %v", s, c, err)
	}
	if _, err := p.Transition("1", ActFail, TransitionOpts{NoRetry: true, Reason: "broken"}, t0); err != nil || s.Status != StepFailed || s.Reason != "broken" {
		t.Fatalf("fail: %+v %v", s, err)
	}
}

// A failed step goes back to pending up to MaxRetries times, as
// PlanManager's failTask(should_retry=true) does; then the failure sticks.
func TestFailRetriesByDefault(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	var got []string
	for range 4 {
		p.Transition("1", ActStart, TransitionOpts{}, t0)
		c, err := p.Transition("1", ActFail, TransitionOpts{Reason: "timeout"}, t0)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, c.Summary)
	}
	want := []string{
		"step 1: in_progress → pending (retry 1 of 3)",
		"step 1: in_progress → pending (retry 2 of 3)",
		"step 1: in_progress → pending (retry 3 of 3)",
		"step 1: in_progress → failed (no retries left: 3 of 3 used)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// --retry retries past the limit; a plan with MaxRetries 0 fails outright.
	c, _ := p.Transition("1", ActReopen, TransitionOpts{}, t0)
	c, _ = p.Transition("1", ActFail, TransitionOpts{Retry: true}, t0)
	if c.Summary != "step 1: pending → pending (retry 4)" {
		t.Fatalf("--retry past the limit: %q", c.Summary)
	}
	p.Rules.MaxRetries = 0
	if c, _ := p.Transition("1", ActFail, TransitionOpts{}, t0); c.Summary != "step 1: pending → failed" {
		t.Fatalf("max retries 0: %q", c.Summary)
	}
}

// In a plan with phases, a step waits for every step of the earlier phases
// unless the phases run free.
func TestPhaseOrder(t *testing.T) {
	t.Parallel()
	p, _ := New("", "t", "", []string{"A", "B", "C"}, t0, false)
	for _, x := range [][2]string{{"a1", "1"}, {"a2", "1"}, {"b1", "2"}, {"c1", "3"}} {
		if _, err := p.AddStep(StepSpec{Text: x[0], Phase: x[1]}, t0); err != nil {
			t.Fatal(err)
		}
	}
	if r := ids(p.Ready()); !slices.Equal(r, []string{"1", "2"}) {
		t.Fatalf("strict: ready %v", r)
	}
	if ph := p.WaitsFor(mustStep(t, p, "4")); ph == nil || ph.ID != "1" {
		t.Fatalf("step 4 waits for phase %v", ph)
	}
	_, err := p.Transition("3", ActStart, TransitionOpts{}, t0)
	wantCode(t, err, CodeInvalidStatus)
	if !strings.Contains(err.Error(), "waits for phase 1 (A), whose steps 1, 2 are not done") {
		t.Errorf("message: %v", err)
	}
	p.Transition("1", ActDone, TransitionOpts{}, t0)
	p.Transition("2", ActSkip, TransitionOpts{}, t0)
	if r := ids(p.Ready()); !slices.Equal(r, []string{"3"}) {
		t.Fatalf("phase 1 done: ready %v", r)
	}
	p.Rules.PhaseOrder = PhasesFree
	if r := ids(p.Ready()); !slices.Equal(r, []string{"3", "4"}) || p.WaitsFor(mustStep(t, p, "4")) != nil {
		t.Fatalf("free: ready %v", r)
	}
	if _, err := p.Transition("4", ActStart, TransitionOpts{}, t0); err != nil {
		t.Fatal(err)
	}
}

func mustStep(t *testing.T, p *Plan, id string) *Step {
	t.Helper()
	s, _, err := p.Step(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Completing the last step says the plan is complete; with AutoFinish the
// same change completes the plan, its result the last step's.
func TestCompleteAndAutoFinish(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	p.Transition("1", ActDone, TransitionOpts{}, t0)
	p.Transition("2", ActDone, TransitionOpts{}, t0)
	if p.Complete() {
		t.Fatal("step 3 is left")
	}
	p.Transition("3", ActDone, TransitionOpts{Result: "built"}, t0)
	if !p.Complete() || p.Status != PlanRunning {
		t.Fatalf("complete %v, status %s", p.Complete(), p.Status)
	}
	if !p.FinishIfComplete("all built", t0) || p.Status != PlanCompleted || p.Result != "all built" || p.FinishIfComplete("x", t0) {
		t.Fatalf("finish if complete: %s %q", p.Status, p.Result)
	}

	q := samplePlan(t)
	q.Rules.AutoFinish = true
	q.Transition("1", ActDone, TransitionOpts{}, t0)
	q.Transition("2", ActSkip, TransitionOpts{}, t0)
	c, err := q.Transition("3", ActDone, TransitionOpts{Result: "cache in place"}, t0)
	if err != nil || q.Status != PlanCompleted || q.Result != "cache in place" || c.Summary != "step 3: pending → completed; plan completed 3/3" {
		t.Fatalf("auto finish: %+v %s %q %v", c, q.Status, q.Result, err)
	}
}

// PlanManager's rules: a step in progress is edited only with Force, and a
// paused or finished plan takes no change to its steps or phases.
func TestEditRulesOfPlanManager(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	p.Transition("1", ActStart, TransitionOpts{}, t0)
	text := "Analyze deeply"
	_, err := p.EditStep("1", StepEdit{Text: &text}, t0)
	wantCode(t, err, CodeStepNotEditable)
	if _, err := p.EditStep("1", StepEdit{Text: &text, Force: true}, t0); err != nil {
		t.Fatal(err)
	}
	p.Pause("", t0)
	title, notes := "Study", "read first"
	for name, op := range map[string]func() error{
		"step add":   func() error { _, err := p.AddStep(StepSpec{Text: "x"}, t0); return err },
		"step edit":  func() error { _, err := p.EditStep("3", StepEdit{Text: &text}, t0); return err },
		"step rm":    func() error { _, err := p.RemoveStep("3", t0); return err },
		"phase add":  func() error { _, err := p.AddPhase("x", "", t0); return err },
		"phase edit": func() error { _, err := p.EditPhase("1", PhaseEdit{Title: &title}, t0); return err },
	} {
		err := op()
		if !HasCode(err, CodePlanNotActive) {
			t.Errorf("%s on a paused plan: %v", name, err)
		}
	}
	p.Resume(t0)
	c, err := p.EditPhase("#1", PhaseEdit{Title: &title, Notes: &notes}, t0)
	if err != nil || c.Summary != "phase 1: edit title, notes" || p.Phases[0].Title != "Study" || p.Phases[0].Notes != "read first" {
		t.Fatalf("phase edit: %+v %v", c, err)
	}
	if c, _ := p.EditPhase("1", PhaseEdit{Title: &title}, t0); c.Op != "" {
		t.Fatalf("an edit that changes nothing is no change: %+v", c)
	}
}

func TestStepIDForms(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	for _, id := range []string{"2", "#2", " 2 ", "step_2", "Step-2", "task_2", "task-2"} {
		if s, _, err := p.Step(id); err != nil || s.ID != "2" {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range []string{"step_", "step_x", "steps_2", "s_2", "step_02"} {
		if _, _, err := p.Step(id); !HasCode(err, CodeStepNotFound) {
			t.Errorf("%q found a step", id)
		}
	}
	if n := ParseNeeds("step_1, task-2"); !slices.Equal(n, []string{"1", "2"}) {
		t.Errorf("needs %v", n)
	}
}

func TestNeedsGateStartAndDone(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	_, err := p.Transition("2", ActStart, TransitionOpts{}, t0)
	wantCode(t, err, CodeInvalidStatus)
	if !strings.Contains(err.Error(), "1 (pending)") {
		t.Errorf("message should name the open need: %v", err)
	}
	if _, err := p.Transition("2", ActStart, TransitionOpts{Force: true}, t0); err != nil {
		t.Fatalf("--force: %v", err)
	}
}

func TestReadyAndCurrent(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	if r := p.Ready(); len(r) != 1 || r[0].ID != "1" {
		t.Fatalf("ready = %v", ids(r))
	}
	if _, err := p.Transition("1", ActSkip, TransitionOpts{}, t0); err != nil {
		t.Fatal(err)
	}
	if r := p.Ready(); len(r) != 1 || r[0].ID != "2" {
		t.Fatalf("a skipped need counts as met; ready = %v", ids(r))
	}
	if p.Current() != nil {
		t.Fatal("nothing is in progress")
	}
	p.Transition("2", ActStart, TransitionOpts{}, t0)
	if c := p.Current(); c == nil || c.ID != "2" {
		t.Fatalf("current = %v", c)
	}
}

func ids(steps []*Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.ID)
	}
	return out
}

func TestDependencies(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	before := string(WritePlan(p))

	_, err := p.AddStep(StepSpec{Text: "x", Needs: []string{"99"}}, t0)
	wantCode(t, err, CodeInvalidDependency)

	needs := []string{"3"}
	_, err = p.EditStep("1", StepEdit{Needs: &needs}, t0)
	wantCode(t, err, CodeCircularDependency)
	if !strings.Contains(err.Error(), "1 → 3 → 2 → 1") {
		t.Errorf("the message should name the cycle: %v", err)
	}
	self := []string{"1"}
	_, err = p.EditStep("1", StepEdit{Needs: &self}, t0)
	wantCode(t, err, CodeInvalidDependency)

	if after := string(WritePlan(p)); after != before {
		t.Errorf("refused changes altered the plan:\n%s", after)
	}
	if p.NextStep != 4 {
		t.Errorf("a refused add used an id: next=%d", p.NextStep)
	}
}

func TestIDsAreNeverReused(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	s, _ := p.AddStep(StepSpec{Text: "temp"}, t0)
	if _, err := p.RemoveStep(s.ID, t0); err != nil {
		t.Fatal(err)
	}
	s2, _ := p.AddStep(StepSpec{Text: "next"}, t0)
	if s2.ID == s.ID {
		t.Fatalf("id %s reused", s.ID)
	}
	// The counter survives the file.
	q, err := ParsePlan(WritePlan(p))
	if err != nil {
		t.Fatal(err)
	}
	s3, _ := q.AddStep(StepSpec{Text: "after reload"}, t0)
	if s3.ID != "6" {
		t.Fatalf("id after reload = %s, want 6", s3.ID)
	}
}

func TestAddStepPlacement(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	s, err := p.AddStep(StepSpec{Text: "Review", After: "1"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(p.Phases[0].Steps); !slices.Equal(got, []string{"1", s.ID, "2"}) {
		t.Fatalf("--after 1: phase 1 = %v", got)
	}
	if _, err := p.AddStep(StepSpec{Text: "x", Phase: "Build"}, t0); err != nil {
		t.Fatalf("--phase by title: %v", err)
	}
	_, err = p.AddStep(StepSpec{Text: "x", Phase: "9"}, t0)
	wantCode(t, err, CodePhaseNotFound)
	_, err = p.AddStep(StepSpec{Text: "x", After: "42"}, t0)
	wantCode(t, err, CodeStepNotFound)

	empty, _ := New("", "t", "", nil, t0, false)
	if s, err := empty.AddStep(StepSpec{Text: "first"}, t0); err != nil || empty.Phases[0].Title != DefaultPhaseTitle || s.ID != "1" {
		t.Fatalf("a plan without phases gets one: %v %+v", err, empty.Phases)
	}
}

func TestRemoveAndEditRules(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	_, err := p.RemoveStep("1", t0)
	wantCode(t, err, CodeInvalidDependency) // step 2 needs it
	p.Transition("3", ActStart, TransitionOpts{Force: true}, t0)
	_, err = p.RemoveStep("3", t0)
	wantCode(t, err, CodeStepNotEditable)
	p.Transition("1", ActDone, TransitionOpts{}, t0)
	text := "new text"
	_, err = p.EditStep("1", StepEdit{Text: &text}, t0)
	wantCode(t, err, CodeStepNotEditable)
	c, err := p.EditStep("2", StepEdit{Text: &text}, t0)
	if err != nil || c.Summary != "step 2: edit text" {
		t.Fatalf("edit: %+v %v", c, err)
	}
	if c, _ := p.EditStep("2", StepEdit{Text: &text}, t0); c.Op != "" {
		t.Fatalf("an edit that changes nothing is no change: %+v", c)
	}
}

func TestPlanStatusRules(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	if _, err := p.Pause("lunch", t0); err != nil {
		t.Fatal(err)
	}
	_, err := p.Transition("1", ActStart, TransitionOpts{}, t0)
	wantCode(t, err, CodePlanNotActive)
	_, err = p.Pause("", t0)
	wantCode(t, err, CodeInvalidStatus)
	if _, err := p.Resume(t0); err != nil || p.Reason != "" {
		t.Fatal(err)
	}
	_, err = p.Finish("done", false, t0)
	wantCode(t, err, CodeInvalidStatus)
	if _, err := p.Finish("shipped", true, t0); err != nil || p.Status != PlanCompleted {
		t.Fatal(err)
	}
	_, err = p.AddStep(StepSpec{Text: "late"}, t0)
	wantCode(t, err, CodePlanNotActive)
	p.Reset(t0)
	if p.Status != PlanRunning || p.Result != "" || p.Counts().Pending != 3 {
		t.Fatalf("reset: %+v", p.Counts())
	}
	_, err = p.Abort("", t0)
	wantCode(t, err, CodeInvalidArgument)
	if _, err := p.Abort("wrong approach", t0); err != nil || p.Status != PlanFailed {
		t.Fatal(err)
	}

	q, _ := New("", "needs approval", "", nil, t0, true)
	q.AddStep(StepSpec{Text: "a"}, t0)
	_, err = q.Transition("1", ActStart, TransitionOpts{}, t0)
	wantCode(t, err, CodePlanNotActive)
	if _, err := q.Approve(t0); err != nil || q.Status != PlanRunning {
		t.Fatal(err)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	huge := strings.Repeat("x", 10<<20)
	_, err := p.AddStep(StepSpec{Text: huge}, t0)
	wantCode(t, err, CodeInvalidArgument)
	if !strings.Contains(err.Error(), "limit is 2000") {
		t.Errorf("the message should state the limit: %.100s", err)
	}
	_, err = p.Transition("1", ActDone, TransitionOpts{Result: huge}, t0)
	wantCode(t, err, CodeInvalidArgument)
	if p.Counts().Total != 3 || p.Counts().Done != 0 {
		t.Fatal("refused input changed the plan")
	}
}

func TestParseProgressAndNeeds(t *testing.T) {
	t.Parallel()
	if pr, err := ParseProgress(" 2 / 5 "); err != nil || pr != (Progress{2, 5}) {
		t.Fatal(pr, err)
	}
	for _, bad := range []string{"", "5", "6/5", "-1/5", "1/0", "a/b", "1/2/3"} {
		if _, err := ParseProgress(bad); CodeOf(err) != CodeInvalidArgument {
			t.Errorf("%q: got %v", bad, err)
		}
	}
	if got := ParseNeeds("#1, 2,2 ,#3"); !slices.Equal(got, []string{"1", "2", "3"}) {
		t.Fatal(got)
	}
}

func TestErrorLogCountsUp(t *testing.T) {
	t.Parallel()
	var l ErrorLog
	l.Record(ErrorRecord{Tool: "Bash", Message: "exit status 1: timeout after 30s"}, t0)
	l.Record(ErrorRecord{Tool: "Read", Message: "no such file"}, t0.Add(time.Minute))
	r, _ := l.Record(ErrorRecord{Tool: "Bash", Message: "exit status 1: timeout after 45s", Step: "3"}, t0.Add(2*time.Minute))
	if len(l) != 2 || r.Count != 2 || l[0] != r || !r.First.Equal(t0) || r.Step != "3" {
		t.Fatalf("log = %+v", l)
	}
	if f := l.Find("Bash", "exit status 2: timeout after 99s"); f != r {
		t.Fatal("digits are normalized away")
	}
	if got := NormalizeMessage("a  12\tb 3.5"); got != "a N b N.N" {
		t.Fatalf("normalize = %q", got)
	}
	long := strings.Repeat("y", 150)
	if got := NormalizeMessage(long+"1") + ""; len(got) != 100 {
		t.Fatalf("only the first 100 characters count: %d", len(got))
	}
}

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "0s", 59 * time.Second: "59s", 61 * time.Minute: "1h1m", 2 * time.Hour: "2h",
		49 * time.Hour: "2d1h", 48 * time.Hour: "2d", -90 * time.Second: "-1m",
		math.MinInt64: "-106751d23h", math.MaxInt64: "106751d23h",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("%d: got %q, want %q", d, got, want)
		}
	}
}

// A step completed without a result — as auto-advance completes one —
// takes the result its doer records with done afterwards; a step with a
// result refuses another, and done without one is a no-op.
func TestDoneRecordsResultOfCompletedStep(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	p.Transition("1", ActDone, TransitionOpts{}, t0)
	c, err := p.Transition("1", ActDone, TransitionOpts{Result: "3 hot paths"}, t0.Add(time.Minute))
	if err != nil || c.Op != "step.result" || mustStep(t, p, "1").Result != "3 hot paths" || mustStep(t, p, "1").Status != StepCompleted {
		t.Fatalf("%+v %v", c, err)
	}
	if !mustStep(t, p, "1").Completed.Equal(t0) {
		t.Errorf("completion time moved: %v", mustStep(t, p, "1").Completed)
	}
	_, err = p.Transition("1", ActDone, TransitionOpts{Result: "other"}, t0)
	wantCode(t, err, CodeInvalidStatus)
	if c, err = p.Transition("1", ActDone, TransitionOpts{}, t0); err != nil || c.Op != "" {
		t.Errorf("done of a completed step: %+v %v", c, err)
	}
	if mustStep(t, p, "1").Result != "3 hot paths" {
		t.Error("a refused done changed the result")
	}
}

// TestAutoCompletion: a completion auto-advance made is marked as such in
// task_plan.md; the agent's step done confirms it with its result, its
// step start takes it back; any other transition clears the mark.
func TestAutoCompletion(t *testing.T) {
	t.Parallel()
	p, _ := New("s", "T", "", []string{"Build"}, t0, false)
	p.AddStep(StepSpec{Text: "Write the cache"}, t0)
	p.Transition("1", ActStart, TransitionOpts{}, t0)
	if _, err := p.Transition("1", ActDone, TransitionOpts{Result: "wrote cache.go", Force: true, Auto: true}, t0); err != nil {
		t.Fatal(err)
	}
	md := string(WritePlan(p))
	if !strings.Contains(md, "Write the cache `#1 auto`") {
		t.Fatalf("the automatic completion is not marked:\n%s", md)
	}
	back, err := ParsePlan([]byte(md))
	if err != nil || !back.Phases[0].Steps[0].Auto {
		t.Fatalf("the mark did not read back: %v", err)
	}
	// Unticked by hand: pending, and no one's completion.
	unticked, _ := ParsePlan([]byte(strings.Replace(md, "- [x] ●", "- [ ] ○", 1)))
	if s := unticked.Phases[0].Steps[0]; s.Status != StepPending || s.Auto {
		t.Fatalf("unticked by hand: %s auto=%v", s.Status, s.Auto)
	}

	c, err := p.Transition("1", ActStart, TransitionOpts{}, t0)
	s := p.Phases[0].Steps[0]
	if err != nil || s.Status != StepInProgress || s.Auto || s.Result != "" || !strings.Contains(c.Summary, "taken back") {
		t.Fatalf("start of an auto-completed step: %v %+v %q", err, s, c.Summary)
	}
	p.Transition("1", ActDone, TransitionOpts{Force: true, Auto: true}, t0)
	c, err = p.Transition("1", ActDone, TransitionOpts{Result: "cache.go, 3 tests"}, t0)
	if err != nil || s.Status != StepCompleted || s.Auto || s.Result != "cache.go, 3 tests" || !strings.Contains(c.Summary, "confirmed") {
		t.Fatalf("done of an auto-completed step: %v %+v %q", err, s, c.Summary)
	}
	if _, err := p.Transition("1", ActStart, TransitionOpts{}, t0); err == nil {
		t.Fatal("a confirmed completion was started again without reopen")
	}
}

// TestPhaseStatus: a phase's status is its steps'; setting it moves them,
// and the phase then has the status asked for.
func TestPhaseStatus(t *testing.T) {
	t.Parallel()
	p, _ := New("s", "T", "", []string{"A", "B"}, t0, false)
	p.AddStep(StepSpec{Text: "a1", Phase: "1"}, t0)
	p.AddStep(StepSpec{Text: "a2", Phase: "1"}, t0)
	p.AddStep(StepSpec{Text: "b1", Phase: "2"}, t0)
	st := func(s PhaseStatus) *PhaseStatus { return &s }
	for _, c := range []struct {
		phase  string
		status PhaseStatus
		reason string
		want   string
	}{
		{"1", PhaseInProgress, "", "phase 1: pending → in_progress (steps 1)"},
		{"1", PhaseCompleted, "", "phase 1: in_progress → completed (steps 1, 2)"},
		{"2", PhaseBlocked, "waiting for review", "phase 2: pending → blocked (steps 3)"},
		{"2", PhasePending, "", "phase 2: blocked → pending (steps 3)"},
		{"1", PhasePending, "", "phase 1: completed → pending (steps 1, 2)"},
	} {
		ch, err := p.EditPhase(c.phase, PhaseEdit{Status: st(c.status), Reason: c.reason}, t0)
		if err != nil || ch.Summary != c.want {
			t.Fatalf("%s → %s: %q %v, want %q", c.phase, c.status, ch.Summary, err, c.want)
		}
		ph, _ := p.Phase(c.phase)
		if ph.Status() != c.status {
			t.Fatalf("phase %s is %s, want %s", c.phase, ph.Status(), c.status)
		}
	}
	if _, err := p.EditPhase("2", PhaseEdit{Status: st(PhaseBlocked)}, t0); !HasCode(err, CodeInvalidArgument) {
		t.Errorf("blocked without a reason: %v", err)
	}
	if _, err := ParsePhaseStatus("done"); !HasCode(err, CodeInvalidArgument) {
		t.Errorf("an unknown phase status: %v", err)
	}
}

// TestNeedsQuestionsAllocateLittle: the questions views ask of every step
// — its open needs, the steps ready — build no map of every step when they
// need none: show of a 200-step plan once allocated 2 MB doing so.
func TestNeedsQuestionsAllocateLittle(t *testing.T) {
	p := benchPlan(t, 200) // a third done; each step needs the one before
	done, _, _ := p.Step("10")
	waiting, _, _ := p.Step("150")
	if n := testing.AllocsPerRun(20, func() { p.OpenNeeds(done) }); n != 0 {
		t.Errorf("OpenNeeds of a step whose needs are done: %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(20, func() { p.OpenNeeds(waiting) }); n > 1 {
		t.Errorf("OpenNeeds of a step with one open need: %v allocations, want 1", n)
	}
	if got := p.OpenNeeds(waiting); len(got) != 1 || got[0] != "149" {
		t.Errorf("OpenNeeds(150) = %q, want [149]", got)
	}
	free := &Plan{Phases: []*Phase{{ID: "1"}}}
	for i := 1; i <= 200; i++ {
		free.Phases[0].Steps = append(free.Phases[0].Steps, &Step{ID: strconv.Itoa(i), Status: StepPending})
	}
	if n := testing.AllocsPerRun(20, func() { free.Ready() }); n > 10 {
		t.Errorf("Ready of 200 steps that need nothing: %v allocations", n)
	}
	if cycle := free.findCycle(); cycle != nil {
		t.Errorf("findCycle = %q", cycle)
	}
}

// TestReopenNamesTheStepsThatNeedIt: a step that goes back from done says
// which steps needing it were started or done meanwhile, in its summary
// (so in history too); revert says the same.
func TestReopenNamesTheStepsThatNeedIt(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	for _, a := range []struct {
		id  string
		act Action
	}{{"1", ActStart}, {"1", ActDone}, {"2", ActStart}} {
		if _, err := p.Transition(a.id, a.act, TransitionOpts{}, t0); err != nil {
			t.Fatal(err)
		}
	}
	c, err := p.Transition("1", ActReopen, TransitionOpts{}, t0)
	if err != nil || c.Summary != "step 1: completed → pending; needed by step 2 (in_progress)" {
		t.Fatalf("reopen: %q %v", c.Summary, err)
	}
	s1, _, _ := p.Step("1")
	old := *s1
	old.Status = StepCompleted
	c, err = p.RevertStatus("1", &old, "@2", t0)
	if err != nil || c.Summary != "step 1: pending → completed (revert of @2)" {
		t.Fatalf("revert to completed: %q %v", c.Summary, err)
	}
	old.Status = StepInProgress
	c, err = p.RevertStatus("1", &old, "@3", t0)
	if err != nil || c.Summary != "step 1: completed → in_progress (revert of @3); needed by step 2 (in_progress)" {
		t.Fatalf("revert from completed: %q %v", c.Summary, err)
	}
}

// A step added to a plan whose history issued ids past the file's counter
// (a rollback took steps back) gets an id past them all; so do findings
// and errors, and the file's counter follows only the steps.
func TestIdsAboveTheFloor(t *testing.T) {
	t.Parallel()
	st := &State{Plan: samplePlan(t)}
	st.Plan.Floor = Issued{Steps: 9, Findings: 4, Errors: 2}
	s, err := st.Plan.AddStep(StepSpec{Text: "After a rollback"}, t0)
	if err != nil || s.ID != "10" || st.Plan.NextStep != 11 {
		t.Fatalf("step %+v, next %d, %v", s, st.Plan.NextStep, err)
	}
	if id := st.Plan.IssueStep(); id != "11" {
		t.Errorf("IssueStep gave %s, want 11", id)
	}
	f, err := st.AddFinding(Finding{Category: CatCode, Title: "F"}, t0)
	if err != nil || f.ID != "5" {
		t.Errorf("finding %+v %v, want id 5", f, err)
	}
	e, err := st.RecordError(ErrorRecord{Tool: "Bash", Message: "exit 1"}, t0)
	if err != nil || e.ID != "3" {
		t.Errorf("error %+v %v, want id 3", e, err)
	}
}
