package repo

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
)

// benchSession makes a session of a 100-step plan with revs revisions of
// step changes.
func benchSession(b *testing.B, revs int) (*Session, time.Time) {
	b.Helper()
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	p, _ := plan.New("bench", "A long plan", "exercise the store", []string{"Work"}, now, false)
	for i := 1; i <= 100; i++ {
		p.AddStep(plan.StepSpec{Text: fmt.Sprintf("Step %d: change pkg/file%d.go and run the tests", i, i)}, now)
	}
	s, _, err := Project{Root: b.TempDir()}.Create("bench", &plan.State{Plan: p}, plan.Change{Op: "init", Summary: "init"}, Options{Now: now})
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i < revs; i++ {
		now = now.Add(time.Second)
		if _, err := s.Update(Options{Now: now}, progressChange(i, now)); err != nil {
			b.Fatal(err)
		}
	}
	return s, now
}

func progressChange(i int, now time.Time) func(*plan.State) (plan.Change, error) {
	return func(st *plan.State) (plan.Change, error) {
		return st.Plan.SetProgress(strconv.Itoa(i%100+1), plan.Progress{Current: i % 9, Total: 9}, now)
	}
}

// BenchmarkCommit is one change through the store: lock, adopt-check,
// write the files and objects, move the branch, update the index and the
// revision log. Its cost must not grow with the history.
func BenchmarkCommit(b *testing.B) {
	for _, revs := range []int{10, 1000} {
		b.Run(fmt.Sprintf("revisions=%d", revs), func(b *testing.B) {
			s, now := benchSession(b, revs)
			i := revs
			b.ReportAllocs()
			for b.Loop() {
				i++
				now = now.Add(time.Second)
				if _, err := s.Update(Options{Now: now}, progressChange(i, now)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadHead reads and parses the plan as it stands, and as it is
// at HEAD in the object store.
func BenchmarkReadHead(b *testing.B) {
	s, _ := benchSession(b, 100)
	b.Run("working", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.State(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("HEAD", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := s.StateAt("HEAD"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
