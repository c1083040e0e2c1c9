package share_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
	"github.com/plangit/plangit/repo/share"
)

// people gives each machine its person: the agent's machine commits as
// Dev Agent, the reviewer's as Rita Reviewer, each from its clone's git
// config, as git would find them.
func (w *world) people() {
	w.t.Helper()
	w.git(w.agent.Root, "config", "user.name", "Dev Agent")
	w.git(w.agent.Root, "config", "user.email", "dev@example.com")
	w.git(w.reviewer.Root, "config", "user.name", "Rita Reviewer")
	w.git(w.reviewer.Root, "config", "user.email", "rita@example.com")
}

// as is a change made by an actor.
func (w *world) as(s *repo.Session, actor string, fn func(*plan.State) (plan.Change, error)) string {
	w.t.Helper()
	o := w.opts().Options
	o.Meta.Actor = actor
	res, err := s.Update(o, fn)
	if err != nil || res.Commit == nil {
		w.t.Fatalf("change: %v %+v", err, res)
	}
	return res.Commit.Hash
}

// names records what every @N names on a machine.
func names(t *testing.T, s *repo.Session) map[string]string {
	t.Helper()
	revs, err := s.Revisions()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range revs {
		out["@"+strconv.Itoa(r.N)] = r.Hash
	}
	return out
}

// sameNames checks that every name saved before still names the same
// revision.
func sameNames(t *testing.T, s *repo.Session, saved map[string]string) {
	t.Helper()
	for name, want := range saved {
		if got, err := s.Resolve(name); err != nil || got != want {
			t.Errorf("%s names %s (%v) now, %s before", name, got, err, want)
		}
	}
}

// TestMergeTwoMachines plays the reviewer's story of a shared session
// between an agent's machine and a reviewer's, over file:// — and with
// PLANGIT_LONG=1 over git daemon and git-http-backend too:
//   - both change different records: one merge, nothing lost, the same
//     commits on both machines after push and fetch;
//   - both change the same step's status: the conflict is recorded, the
//     rest merges, the step takes no change until resolve settles it;
//   - both add steps, findings and errors: all kept, ids unique,
//     references right;
//   - every @N saved on either machine names the same revision after each
//     merge; HEAD^2 is the merged-in tip; authors are the two people.
func TestMergeTwoMachines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		serve func(*testing.T, string) string
	}{{"file", fileRemote}, {"git-daemon", daemonRemote}, {"http-backend", httpRemote}} {
		if tc.name != "file" && !repotest.Long() {
			continue
		}
		t.Run(tc.name, func(t *testing.T) { twoMachines(t, newWorld(t, tc.serve)) })
	}
}

func twoMachines(t *testing.T, w *world) {
	w.people()
	s, ra, rr := w.shared("s1")
	r := w.open(w.reviewer, "s1")

	// 1. Different records: the agent finishes step 1 and logs an error;
	// the reviewer adds a finding and rewords step 2.
	w.as(s, "agent", func(st *plan.State) (plan.Change, error) {
		return st.Plan.Transition("1", plan.ActDone, plan.TransitionOpts{Result: "3 hot paths"}, w.now)
	})
	w.as(s, "hook", func(st *plan.State) (plan.Change, error) {
		st.RecordError(plan.ErrorRecord{Tool: "Bash", Message: "go test: exit 1"}, w.now)
		return plan.Change{Op: "error.add", Summary: "error #1: Bash"}, nil
	})
	w.as(r, "user", func(st *plan.State) (plan.Change, error) {
		st.AddFinding(plan.Finding{Category: plan.CatIssue, Title: "the cache key misses the tenant"}, w.now)
		return plan.Change{Op: "finding.add", Summary: "finding 1: the cache key misses the tenant"}, nil
	})
	w.as(r, "user", func(st *plan.State) (plan.Change, error) {
		text := "Design it per tenant"
		return st.Plan.EditStep("2", plan.StepEdit{Text: &text}, w.now)
	})
	agentNames, reviewerNames := names(t, s), names(t, r)
	agentTip, reviewerTip := head(t, s), head(t, r)
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:pushed")
	res := rr.Push([]string{"s1"}, w.opts())
	statuses(t, res, "s1:merged")
	m := res[0].Merge
	if len(m.Conflicts) != 0 || len(m.Renumbered) != 0 || !slices.Equal(m.Sides[0].Who, []string{"Rita Reviewer <rita@example.com>, user"}) ||
		!slices.Equal(m.Sides[1].Who, []string{"Dev Agent <dev@example.com>, agent", "Dev Agent <dev@example.com>, hook"}) {
		t.Fatalf("the merge: %+v", m)
	}
	statuses(t, ra.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	sameHistory(t, s, r)
	st, _ := s.State()
	if one, _, _ := st.Plan.Step("1"); one.Status != plan.StepCompleted || one.Result != "3 hot paths" {
		t.Errorf("step 1: %+v", one)
	}
	if two, _, _ := st.Plan.Step("2"); two.Text != "Design it per tenant" {
		t.Errorf("step 2: %+v", two)
	}
	if len(st.Findings) != 1 || len(st.Errors) != 1 {
		t.Errorf("findings %d, errors %d", len(st.Findings), len(st.Errors))
	}
	// Names that never move: each machine's saved @N, HEAD^1 and HEAD^2.
	sameNames(t, s, agentNames)
	sameNames(t, r, reviewerNames)
	for _, x := range []*repo.Session{s, r} {
		if got, _ := x.Resolve("HEAD^2"); got != agentTip {
			t.Errorf("HEAD^2 is %s, want the merged-in tip %s", got, agentTip)
		}
		if got, _ := x.Resolve("HEAD^1"); got != reviewerTip {
			t.Errorf("HEAD^1 is %s, want %s", got, reviewerTip)
		}
		if _, err := x.Resolve("HEADfoo"); !plan.HasCode(err, plan.CodeInvalidArgument) {
			t.Errorf("HEADfoo: %v", err)
		}
	}
	// Who made what, on both machines: log and blame.
	for _, x := range []*repo.Session{s, r} {
		log, err := history.Log(x, history.LogOptions{})
		if err != nil {
			t.Fatal(err)
		}
		who := map[string]string{}
		for _, rv := range log {
			who[rv.Summary] = rv.Who()
		}
		if who["step 1: in_progress → completed"] != "Dev Agent (agent)" || who["finding 1: the cache key misses the tenant"] != "Rita Reviewer" ||
			who["error #1: Bash"] != "Dev Agent (hook)" {
			t.Errorf("who made what: %v", who)
		}
		if log[0].Merge == nil || len(log[0].Merge.Sides) != 2 {
			t.Errorf("the merge in the log: %+v", log[0])
		}
		blame, err := history.Blame(x)
		if err != nil {
			t.Fatal(err)
		}
		if blame[0].Who != "Dev Agent (agent)" || blame[0].Rev == head(t, x) || blame[1].Who != "Rita Reviewer" {
			t.Errorf("blame follows both parents: %+v", blame[:2])
		}
	}

	// 2. The same step's status both ways: the agent finishes step 2, the
	// reviewer blocks it and adds a step. The merge keeps the new step,
	// records the conflict, and step 2 takes no change until settled. (Which
	// side the conflict names first goes by the revisions' hashes.)
	agentNames, reviewerNames = names(t, s), names(t, r)
	w.as(s, "agent", func(st *plan.State) (plan.Change, error) {
		return st.Plan.Transition("2", plan.ActStart, plan.TransitionOpts{}, w.now)
	})
	w.as(s, "agent", func(st *plan.State) (plan.Change, error) {
		return st.Plan.Transition("2", plan.ActDone, plan.TransitionOpts{}, w.now)
	})
	w.as(r, "user", func(st *plan.State) (plan.Change, error) {
		return st.Plan.Transition("2", plan.ActBlock, plan.TransitionOpts{Reason: "settle the key first", Force: true}, w.now)
	})
	w.addStep(r, "Key the cache by tenant")
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:pushed")
	res = rr.Fetch([]string{"s1"}, w.opts())
	statuses(t, res, "s1:merged")
	err := share.SyncError(res)
	if !plan.HasCode(err, plan.CodeConflict) || !strings.Contains(err.Error(), "step 2 status: ") || !strings.Contains(err.Error(), "blocked (") || !strings.Contains(err.Error(), "plangit resolve 2 --ours|--theirs") {
		t.Errorf("the conflict's error: %v", err)
	}
	st, _ = r.State()
	two, _, _ := st.Plan.Step("2")
	if two.Status != plan.StepPending || len(two.Conflicts) != 1 || two.Reason != "settle the key first" {
		t.Errorf("step 2 in conflict: %+v", two)
	}
	if !slices.Contains(stepTexts(st.Plan), "Key the cache by tenant") {
		t.Error("the reviewer's new step was not kept")
	}
	if _, err := r.Update(w.opts().Options, func(st *plan.State) (plan.Change, error) {
		return st.Plan.Transition("2", plan.ActStart, plan.TransitionOpts{}, w.now)
	}); !plan.HasCode(err, plan.CodeConflict) {
		t.Errorf("a change to a step in conflict: %v", err)
	}
	w.as(r, "user", func(st *plan.State) (plan.Change, error) { // the rest is not blocked
		return st.Plan.Transition("3", plan.ActStart, plan.TransitionOpts{Force: true}, w.now)
	})
	// The reviewer's side is the one it had first: --ours here is blocked.
	c := two.Conflicts[0]
	ours, theirs, err := share.Sides(r, c.Sides[0].Rev, c.Sides[1].Rev)
	if err != nil || !strings.HasPrefix(ours, res[0].Merge.Sides[0].Rev[:7]) || !strings.HasPrefix(theirs, res[0].Merge.Sides[1].Rev[:7]) {
		t.Errorf("sides here: %s %s %v", ours, theirs, err)
	}
	w.as(r, "user", func(st *plan.State) (plan.Change, error) {
		return st.Resolve("2", "", plan.Choice{Rev: theirs}, w.now)
	})
	st, _ = r.State()
	if two, _, _ := st.Plan.Step("2"); two.Status != plan.StepCompleted || len(two.Conflicts) != 0 {
		t.Errorf("settled: %+v", two)
	}
	statuses(t, rr.Push([]string{"s1"}, w.opts()), "s1:pushed")
	statuses(t, ra.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	sameHistory(t, s, r)
	sameNames(t, s, agentNames)
	sameNames(t, r, reviewerNames)
	// On the agent's machine, its own side is ours.
	if o2, t2, err := share.Sides(s, c.Sides[0].Rev, c.Sides[1].Rev); err != nil || o2 != theirs || t2 != ours {
		t.Errorf("sides on the agent's machine: %s %s %v", o2, t2, err)
	}
	blame, _ := history.Blame(s)
	for _, l := range blame {
		if l.Step == "2" && !strings.Contains(l.What, "resolve") && !strings.Contains(l.What, "conflict") {
			t.Errorf("step 2's blame: %+v", l)
		}
	}

	// 3. Both add steps, findings and errors under the same ids: every
	// one kept, ids unique, references following the renumbering.
	agentNames, reviewerNames = names(t, s), names(t, r)
	var agentStep string
	w.as(s, "agent", func(st *plan.State) (plan.Change, error) {
		x, err := st.Plan.AddStep(plan.StepSpec{Text: "Benchmark"}, w.now)
		if err != nil {
			return plan.Change{}, err
		}
		agentStep = x.ID
		if _, err := st.Plan.AddStep(plan.StepSpec{Text: "Tune", Needs: []string{x.ID}}, w.now); err != nil {
			return plan.Change{}, err
		}
		st.AddFinding(plan.Finding{Category: plan.CatInsight, Title: "LRU is enough", Step: x.ID}, w.now)
		st.RecordError(plan.ErrorRecord{Tool: "Bash", Message: "bench: timeout", Step: x.ID}, w.now)
		return plan.Change{Op: "step.add", Summary: "steps added"}, nil
	})
	w.as(r, "user", func(st *plan.State) (plan.Change, error) {
		x, err := st.Plan.AddStep(plan.StepSpec{Text: "Write the docs"}, w.now)
		if err != nil {
			return plan.Change{}, err
		}
		st.AddFinding(plan.Finding{Category: plan.CatIssue, Title: "docs are stale", Step: x.ID}, w.now)
		st.RecordError(plan.ErrorRecord{Tool: "Edit", Message: "file changed on disk"}, w.now)
		return plan.Change{Op: "step.add", Summary: "step added"}, nil
	})
	statuses(t, rr.Push([]string{"s1"}, w.opts()), "s1:pushed")
	res = ra.Push([]string{"s1"}, w.opts())
	statuses(t, res, "s1:merged")
	if n := len(res[0].Merge.Renumbered); n == 0 {
		t.Errorf("nothing renumbered: %+v", res[0].Merge)
	}
	statuses(t, rr.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	sameHistory(t, s, r)
	sameNames(t, s, agentNames)
	sameNames(t, r, reviewerNames)
	st, _ = s.State()
	ids := map[string]*plan.Step{}
	for _, x := range st.Plan.Steps() {
		ids[x.Text] = x
	}
	bench, tune, docs := ids["Benchmark"], ids["Tune"], ids["Write the docs"]
	if bench == nil || tune == nil || docs == nil || bench.ID == docs.ID || bench.ID == agentStep && docs.ID == agentStep {
		t.Fatalf("steps: %s", plan.WritePlan(st.Plan))
	}
	if !slices.Equal(tune.Needs, []string{bench.ID}) {
		t.Errorf("Tune needs %v, Benchmark is %s", tune.Needs, bench.ID)
	}
	for _, f := range st.Findings {
		if f.Title == "LRU is enough" && f.Step != bench.ID || f.Title == "docs are stale" && f.Step != docs.ID {
			t.Errorf("finding %s refers to step %s", f.Title, f.Step)
		}
	}
	seen := map[string]bool{}
	for _, e := range st.Errors {
		if seen[e.ID] {
			t.Errorf("error #%s twice", e.ID)
		}
		seen[e.ID] = true
	}
	if len(st.Errors) != 3 || len(st.Findings) != 3 {
		t.Errorf("%d errors, %d findings", len(st.Errors), len(st.Findings))
	}
	// A step added afterwards gets an id no one has had.
	next := w.addStep(s, "after the merge")
	_ = next
	st, _ = s.State()
	if last := st.Plan.Steps()[len(st.Plan.Steps())-1]; last.ID == agentStep || last.ID == docs.ID || last.ID == bench.ID {
		t.Errorf("a new step reused id %s", last.ID)
	}
	fsckAll(t, w)
}
