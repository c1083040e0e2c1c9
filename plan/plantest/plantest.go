// Package plantest holds plans the tests and benchmarks of several
// packages share.
package plantest

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
)

// Sized is a plan of n steps as the benchmarks of a change by plan size
// make it: n-1 steps that each need the one before, in phases of 20, then
// one step that needs nothing (the step they complete and reopen); 30
// findings with 200 steps, else 1; one error.
func Sized(b testing.TB, n int, now time.Time) *plan.State {
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
