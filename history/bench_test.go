package history

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
)

// BenchmarkLog lists 10,000 revisions, all of them and those of one step.
func BenchmarkLog(b *testing.B) {
	s := newSession(b, 40)
	for i := 1; i < 10000; i++ {
		s.do(func(p *plan.Plan, now time.Time) (plan.Change, error) {
			return p.SetProgress(strconv.Itoa(i%40+1), plan.Progress{Current: i % 9, Total: 9}, now)
		})
	}
	for _, o := range []LogOptions{{}, {N: 20}, {Step: "7"}} {
		b.Run(fmt.Sprintf("n=%d,step=%s", o.N, o.Step), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Log(s.Session, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchStates are a 100-step plan before and after a stretch of work:
// steps done, one renamed, one added, a finding and an error.
func benchStates(b *testing.B) (*plan.State, *plan.State, map[string][]byte, map[string][]byte) {
	p, _ := plan.New("s1", "A long plan", "exercise the diff", []string{"One", "Two"}, t0, false)
	for i := 1; i <= 100; i++ {
		p.AddStep(plan.StepSpec{Text: "Step " + strconv.Itoa(i), Phase: strconv.Itoa(i%2 + 1)}, t0)
	}
	a := &plan.State{Plan: p}
	bst := &plan.State{Plan: p.Clone()}
	for i := 10; i <= 20; i++ {
		bst.Plan.Transition(strconv.Itoa(i), plan.ActDone, plan.TransitionOpts{Result: "done"}, t0.Add(time.Hour))
	}
	bst.Plan.EditStep("30", plan.StepEdit{Text: ptr("Step thirty, reworded")}, t0.Add(time.Hour))
	bst.Plan.AddStep(plan.StepSpec{Text: "A new step", Phase: "1"}, t0.Add(time.Hour))
	bst.Findings.Add(plan.Finding{Category: plan.CatCode, Title: "A finding"}, t0.Add(time.Hour))
	bst.Errors.Record(plan.ErrorRecord{Tool: "Bash", Message: "exit status 1"}, t0.Add(time.Hour))
	return a, bst, a.Files(), bst.Files()
}

func ptr[T any](v T) *T { return &v }

func BenchmarkSemanticDiff(b *testing.B) {
	a, c, _, _ := benchStates(b)
	b.ReportAllocs()
	for b.Loop() {
		if len(SemanticDiff(a, c)) == 0 {
			b.Fatal("no changes")
		}
	}
}

func BenchmarkTextDiff(b *testing.B) {
	_, _, fa, fb := benchStates(b)
	b.ReportAllocs()
	for b.Loop() {
		if len(TextDiff(fa, fb)) == 0 {
			b.Fatal("no changes")
		}
	}
}
