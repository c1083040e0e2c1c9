package repo

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
)

// sizedState is a plan of n steps as the whole-process benchmark makes it:
// n-1 steps that each need the one before, in phases of 20, then one step
// that needs nothing; 30 findings with 200 steps, else 1; one error.
func sizedState(b *testing.B, n int, now time.Time) *plan.State {
	b.Helper()
	p, err := plan.New("bench", "Add caching to UserService", "cache user lookups without changing the public API", nil, now, false)
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i < n; i++ {
		if (i-1)%20 == 0 {
			p.AddPhase(fmt.Sprintf("Phase %d of the work", len(p.Phases)+1), "", now)
		}
		spec := plan.StepSpec{Text: fmt.Sprintf("Change pkg/file%d.go and run the tests", i), Phase: p.Phases[len(p.Phases)-1].ID}
		if i > 1 {
			spec.Needs = []string{strconv.Itoa(i - 1)}
		}
		if _, err := p.AddStep(spec, now); err != nil {
			b.Fatal(err)
		}
	}
	last, _ := p.AddPhase("Independent checks", "", now)
	if _, err := p.AddStep(plan.StepSpec{Text: "Check the cache's expiry", Phase: last.ID}, now); err != nil {
		b.Fatal(err)
	}
	st := &plan.State{Plan: p}
	findings := 1
	if n >= 200 {
		findings = 30
	}
	for i := 1; i <= findings; i++ {
		st.Findings.Add(plan.Finding{Category: plan.CatCode, Title: fmt.Sprintf("GetUser path %d is hot", i), Source: fmt.Sprintf("service.go:%d", 40+i),
			Content: "70% of calls go through it, all uncached; the cache must keep the public API"}, now)
	}
	st.Errors.Record(plan.ErrorRecord{Tool: "Bash", Message: "go test ./...: TestCache timed out after 30s", Step: "1"}, now)
	return st
}

// BenchmarkStepChange is step done and step reopen, in turn, of the last
// step of plans of 1, 40 and 200 steps (200 with 30 findings) through the
// store (forced: the phases before it are not done): read and parse the
// files, the change, write and commit. Its cost should barely grow with
// the plan.
func BenchmarkStepChange(b *testing.B) {
	for _, n := range []int{1, 40, 200} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
			s, _, err := Project{Root: b.TempDir()}.Create("bench", sizedState(b, n, now), plan.Change{Op: "init", Summary: "init"}, Options{Now: now})
			if err != nil {
				b.Fatal(err)
			}
			id := strconv.Itoa(n)
			act := []plan.Action{plan.ActDone, plan.ActReopen}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				now = now.Add(time.Second)
				a := act[i%2]
				i++
				if _, err := s.Update(Options{Now: now}, func(st *plan.State) (plan.Change, error) {
					return st.Plan.Transition(id, a, plan.TransitionOpts{Result: "checked", Force: true}, now)
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
