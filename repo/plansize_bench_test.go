package repo

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/plantest"
)

// BenchmarkStepChange is step done and step reopen, in turn, of the last
// step of plans of 1, 40 and 200 steps (200 with 30 findings) through the
// store (forced: the phases before it are not done): read and parse the
// files, the change, write and commit. Its cost should barely grow with
// the plan.
func BenchmarkStepChange(b *testing.B) {
	for _, n := range []int{1, 40, 200} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
			s, _, err := Project{Root: b.TempDir()}.Create("bench", plantest.Sized(b, n, now), plan.Change{Op: "init", Summary: "init"}, Options{Now: now})
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
