package history

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
)

// tree is the project's files the tests look at, "" for no file.
func tree(t *testing.T, root string, names ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(root, n))
		if err == nil {
			out[n] = string(b)
		} else {
			out[n] = ""
		}
	}
	return out
}

// projectState is what plangit must never change in the project's git.
func projectState(t *testing.T, root string) []string {
	t.Helper()
	return []string{repotest.Git(t, root, "rev-parse", "HEAD"), repotest.Git(t, root, "ls-files", "-s"),
		repotest.Git(t, root, "stash", "list"), repotest.Git(t, root, "branch", "-a")}
}

// twoSteps runs step 1 (a.txt's first line, new.txt, b.txt removed) and
// step 2 (what second does) one after the other.
func twoSteps(t *testing.T, second func(root string)) (*session, string) {
	s, root := gitSession(t, 2)
	s.step("1", plan.ActStart)
	put(t, root, "a.txt", "ONE\ntwo\nthree\n")
	put(t, root, "new.txt", "new\n")
	os.Remove(filepath.Join(root, "b.txt"))
	s.step("1", plan.ActDone)
	s.step("2", plan.ActStart)
	second(root)
	s.step("2", plan.ActDone)
	return s, root
}

var names = []string{"a.txt", "b.txt", "new.txt", "c.txt"}

func TestRevertStepCodeKeepsLaterWork(t *testing.T) {
	s, root := twoSteps(t, func(root string) {
		put(t, root, "a.txt", "ONE\ntwo\nTHREE\n")
		put(t, root, "c.txt", "see\n")
	})
	git := projectState(t, root)
	done := tree(t, root, names...)
	res, w, err := RevertStepCode(s.Session, "1", s.opts())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.txt": "one\ntwo\nTHREE\n", "b.txt": "bee\n", "new.txt": "", "c.txt": "see\n"}
	if got := tree(t, root, names...); !reflect.DeepEqual(got, want) {
		t.Errorf("after the revert: %q, want %q", got, want)
	}
	if len(w.Files) != 3 || w.Before == "" {
		t.Errorf("wrote %+v", w)
	}
	if st, _ := s.State(); st.Plan.Steps()[0].Status != plan.StepInProgress {
		t.Errorf("step 1 is %s", st.Plan.Steps()[0].Status)
	}
	last, _ := s.Last()
	if last.Hash != res.Commit.Hash || last.Code == "" || last.Code == w.Before {
		t.Errorf("the revision's snapshot: %+v, before %s", last, w.Before)
	}
	if !reflect.DeepEqual(projectState(t, root), git) {
		t.Error("the project's HEAD, index, stash or branches changed")
	}

	// Undo puts the work back, exactly.
	_, uw, err := UndoCode(s.Session, s.opts())
	if err != nil {
		t.Fatal(err)
	}
	if got := tree(t, root, names...); !reflect.DeepEqual(got, done) {
		t.Errorf("after undo: %q, want %q", got, done)
	}
	if len(uw.Files) != 3 {
		t.Errorf("undo wrote %+v", uw)
	}
	if st, _ := s.State(); st.Plan.Steps()[0].Status != plan.StepCompleted {
		t.Errorf("step 1 is %s after undo", st.Plan.Steps()[0].Status)
	}
	// And undo of that undo takes it out again.
	if _, err := Undo(s.Session, s.opts()); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, root, names...); !reflect.DeepEqual(got, want) {
		t.Errorf("after undo of the undo: %q, want %q", got, want)
	}
	if !reflect.DeepEqual(projectState(t, root), git) {
		t.Error("the project's HEAD, index, stash or branches changed")
	}
}

func TestRevertStepCodeConflictChangesNothing(t *testing.T) {
	s, root := twoSteps(t, func(root string) {
		put(t, root, "a.txt", "One!\ntwo\nthree\n")
		put(t, root, "new.txt", "newer\n")
	})
	cs, _ := s.Code()
	head, _ := cs.Head()
	revs, _ := s.Revisions()
	before := tree(t, root, names...)
	_, _, err := RevertStepCode(s.Session, "1", s.opts())
	if plan.CodeOf(err) != plan.CodeConflict {
		t.Fatalf("a conflict: %v", err)
	}
	var e *plan.Error
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	cs2 := e.Details["conflicts"].([]CodeConflict)
	if len(cs2) != 2 || cs2[0].Path != "a.txt" || len(cs2[0].Hunks) != 1 || cs2[0].Hunks[0].Start != 1 || cs2[1].Path != "new.txt" {
		t.Errorf("conflicts: %+v", cs2)
	}
	for _, w := range []string{"a.txt line 1", "new.txt (changed since, and would be removed)"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the message does not name %q: %s", w, err)
		}
	}
	if got := tree(t, root, names...); !reflect.DeepEqual(got, before) {
		t.Errorf("a conflict changed the files: %q", got)
	}
	if now, _ := s.Revisions(); len(now) != len(revs) {
		t.Error("a conflict made a revision")
	}
	if h, _ := cs.Head(); h != head {
		t.Error("a conflict moved the code store's head")
	}
}

func TestRollbackCode(t *testing.T) {
	s, root := twoSteps(t, func(root string) { put(t, root, "c.txt", "see\n") })
	git := projectState(t, root)
	revs, _ := s.Revisions()
	n := len(revs)
	// Back to the first revision's files, but an edit no snapshot holds
	// is refused without force.
	put(t, root, "a.txt", "unsaved\n")
	dirty := tree(t, root, names...)
	if _, _, err := RollbackCode(s.Session, "@1", false, s.opts()); plan.CodeOf(err) != plan.CodeConflict || !strings.Contains(err.Error(), "a.txt") {
		t.Fatalf("unsnapshotted changes: %v", err)
	}
	if got := tree(t, root, names...); !reflect.DeepEqual(got, dirty) {
		t.Errorf("a refused rollback changed the files: %q", got)
	}
	if now, _ := s.Revisions(); len(now) != n {
		t.Error("a refused rollback made a revision")
	}
	if _, _, err := RollbackCode(s.Session, "@1", true, s.opts()); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "bee\n", "new.txt": "", "c.txt": ""}
	if got := tree(t, root, names...); !reflect.DeepEqual(got, want) {
		t.Errorf("after the rollback: %q, want %q", got, want)
	}
	if st, _ := s.State(); st.Plan.Steps()[0].Status != plan.StepPending {
		t.Error("the plan was not rolled back")
	}
	if _, err := Undo(s.Session, s.opts()); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, root, names...); !reflect.DeepEqual(got, dirty) {
		t.Errorf("undo of the rollback: %q, want the unsaved edit back %q", got, dirty)
	}
	if !reflect.DeepEqual(projectState(t, root), git) {
		t.Error("the project's HEAD, index, stash or branches changed")
	}
}

// Undo of a code revert merges too: edits made since in other lines stay
// (lines next to a line the write changed conflict, as git has them).
func TestUndoCodeKeepsLaterEdits(t *testing.T) {
	s, root := twoSteps(t, func(root string) { put(t, root, "a.txt", "ONE\ntwo\nTHREE\n") })
	if _, _, err := RevertStepCode(s.Session, "1", s.opts()); err != nil {
		t.Fatal(err)
	}
	put(t, root, "a.txt", "one\ntwo\nTHREE!\n")
	put(t, root, "c.txt", "later\n")
	if _, _, err := UndoCode(s.Session, s.opts()); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.txt": "ONE\ntwo\nTHREE!\n", "b.txt": "", "new.txt": "new\n", "c.txt": "later\n"}
	if got := tree(t, root, names...); !reflect.DeepEqual(got, want) {
		t.Errorf("after undo: %q, want %q", got, want)
	}
}
