package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
)

// TestBlameCode: each line of a file's newest version names the revision
// and step that last changed it; lines from the first snapshot say so.
func TestBlameCode(t *testing.T) {
	s, root := gitSession(t, 2)
	s.step("1", plan.ActStart) // @2
	put(t, root, "a.txt", "one\nTWO\nthree\n")
	s.step("1", plan.ActDone) // @3
	s.step("2", plan.ActStart)
	put(t, root, "a.txt", "zero\none\nTWO\nthree\nfour\n")
	s.step("2", plan.ActDone) // @5

	b, err := BlameCode(s.Session, "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if b.At.N != 5 || b.First.N != 1 {
		t.Errorf("at @%d, first @%d; want @5 and @1", b.At.N, b.First.N)
	}
	want := []struct {
		text  string
		n     int // 0: since the first snapshot
		steps string
	}{{"zero", 5, "2"}, {"one", 0, ""}, {"TWO", 3, "1"}, {"three", 0, ""}, {"four", 5, "2"}}
	if len(b.Lines) != len(want) {
		t.Fatalf("lines %+v", b.Lines)
	}
	for i, w := range want {
		l := b.Lines[i]
		if l.Text != w.text || l.Line != i+1 {
			t.Errorf("line %d: %+v, want %q", i+1, l, w.text)
		}
		if w.n == 0 {
			if l.Change != -1 {
				t.Errorf("line %d (%s): change %d, want the first snapshot's", i+1, l.Text, l.Change)
			}
			continue
		}
		c := b.Changes[l.Change]
		if c.N != w.n || strings.Join(c.Steps, ",") != w.steps {
			t.Errorf("line %d (%s): @%d steps %v, want @%d step %s", i+1, l.Text, c.N, c.Steps, w.n, w.steps)
		}
	}
	if len(b.Changes) != 2 {
		t.Errorf("changes %+v", b.Changes)
	}

	// A file the snapshots never held, and one taken away.
	if _, err := BlameCode(s.Session, "nosuch.txt"); !plan.HasCode(err, plan.CodeInvalidArgument) || !strings.Contains(err.Error(), "none of the session's code snapshots") {
		t.Errorf("a file in no snapshot: %v", err)
	}
	os.Remove(filepath.Join(root, "b.txt"))
	s.step("2", plan.ActReopen)
	if _, err := BlameCode(s.Session, "b.txt"); !plan.HasCode(err, plan.CodeInvalidArgument) || !strings.Contains(err.Error(), "took it away") {
		t.Errorf("a file taken away: %v", err)
	}
}

// TestCodeStats: log --code's diffstat is each snapshot against the one
// before; the first snapshot has nothing before it; a revision with no
// snapshot of its own has none.
func TestCodeStats(t *testing.T) {
	s, root := gitSession(t, 2)
	s.step("1", plan.ActStart)
	put(t, root, "a.txt", "one\n2\nthree\nfour\n")
	s.do(func(p *plan.Plan, now time.Time) (plan.Change, error) {
		_, err := p.AddStep(plan.StepSpec{Text: "Step 3"}, now)
		return plan.Change{Op: "step.add", Summary: "step 3 added"}, err
	})
	s.step("1", plan.ActDone)
	revs, err := s.Revisions()
	if err != nil {
		t.Fatal(err)
	}
	stats, err := CodeStats(s.Session, revs)
	if err != nil {
		t.Fatal(err)
	}
	if st := stats[revs[0].Hash]; st == nil || !st.First {
		t.Errorf("@1: %+v, want the first snapshot", st)
	}
	if st := stats[revs[1].Hash]; st != nil {
		t.Errorf("@2 took the same snapshot as @1: %+v", st)
	}
	if st := stats[revs[2].Hash]; st != nil {
		t.Errorf("@3 added a step, no snapshot: %+v", st)
	}
	st := stats[revs[3].Hash]
	if st == nil || len(st.Files) != 1 || st.Files[0].Path != "a.txt" || st.Added != 2 || st.Deleted != 1 || st.Files[0].Unified != "" {
		t.Errorf("@4: %+v, want a.txt +2 -1", st)
	}
}

// TestCodeErrors: a project that is not git says so, not "before the
// first snapshot"; a session whose snapshots are gone says fetch brings
// them.
func TestCodeErrors(t *testing.T) {
	s := newSession(t, 1)
	s.step("1", plan.ActStart)
	_, err := StepCode(s.Session, "1", true)
	if !plan.HasCode(err, plan.CodeInvalidArgument) || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("not git: %v", err)
	}
	if _, err := BlameCode(s.Session, "a.txt"); !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("blame, not git: %v", err)
	}
	if _, err := RevisionCode(s.Session, "@1", "@2", false); !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("revisions, not git: %v", err)
	}

	g, _ := gitSession(t, 1)
	g.step("1", plan.ActStart)
	if _, err := RevisionCode(g.Session, "@1", "@9", false); !plan.HasCode(err, plan.CodeRevisionNotFound) {
		t.Errorf("no @9: %v", err)
	}
	if err := os.RemoveAll(filepath.Join(g.GitDir(), "code")); err != nil {
		t.Fatal(err)
	}
	_, err = StepCode(g.Session, "1", true)
	if !plan.HasCode(err, plan.CodeRevisionNotFound) || !strings.Contains(err.Error(), "plangit fetch") {
		t.Errorf("snapshots gone: %v", err)
	}
	diffs, missing, err := StepsCode(g.Session, mustState(t, g))
	if err != nil || !missing || len(diffs) != 0 {
		t.Errorf("report, snapshots gone: %v %v %v", diffs, missing, err)
	}
}

func mustState(t *testing.T, s *session) *plan.State {
	t.Helper()
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	return st
}
