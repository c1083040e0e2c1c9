package repo

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
	"github.com/plangit/plangit/repo/store"
)

// churn makes n changes, each adding a step.
func churn(t *testing.T, s *Session, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		_, err := s.Update(Options{}, func(st *plan.State) (plan.Change, error) {
			st2, err := st.Plan.AddStep(plan.StepSpec{Text: "step " + strconv.Itoa(i)}, t0)
			if err != nil {
				return plan.Change{}, err
			}
			return plan.Change{Op: "step.add", Step: st2.ID, Summary: "add " + st2.ID}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func hashOf(rev string) plumbing.Hash { return plumbing.NewHash(rev) }

func packCount(t *testing.T, s *Session) int {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(s.gitDir, "objects", "pack", "pack-*.pack"))
	return len(m)
}

func TestAutomaticPacking(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	churn(t, s, 3*packEvery)
	if packCount(t, s) == 0 {
		t.Fatal("no pack after three pack intervals")
	}
	loose, _ := s.diskStore.LooseObjects()
	if len(loose) > 6*packEvery {
		t.Errorf("%d loose objects remain", len(loose))
	}
	// Every revision is still readable, by plangit and by git.
	revs, err := s.Revisions()
	if err != nil || len(revs) != 1+3*packEvery {
		t.Fatalf("%d revisions, %v", len(revs), err)
	}
	fresh, _ := s.Project.Open(s.ID)
	for _, r := range revs {
		files, err := fresh.store.ReadFilesAt(hashOf(r.Hash))
		if err != nil {
			t.Fatalf("@%d: %v", r.N, err)
		}
		if _, err := plan.ParseState(files); err != nil {
			t.Fatalf("@%d: %v", r.N, err)
		}
	}
	if got := repotest.RevCount(t, s.Dir); got != len(revs) {
		t.Fatalf("git counts %d revisions, plangit %d", got, len(revs))
	}
	if got := repotest.Git(t, s.Dir, "cat-file", "-p", "HEAD~100:task_plan.md"); !strings.HasPrefix(got, "# Add caching") {
		t.Errorf("git reads an old packed revision: %.40q", got)
	}
}

func TestGCPacksEverythingIntoOne(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	churn(t, s, packEvery+10)
	rep, err := s.GC(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if loose, _ := s.diskStore.LooseObjects(); len(loose) != 0 || packCount(t, s) != 1 || rep.PacksAfter != 1 {
		t.Fatalf("after gc: %d loose, %d packs, %+v", len(loose), packCount(t, s), rep)
	}
	if rep.BytesAfter >= rep.BytesBefore {
		t.Errorf("gc did not shrink the repository: %+v", rep)
	}
	// Changes go on after gc, and the packed history reads back.
	churn(t, s, 3)
	if _, err := s.Resolve("@5"); err != nil {
		t.Fatal(err)
	}
	os.Remove(store.RevlogPath(s.gitDir))
	if revs, err := s.Revisions(); err != nil || len(revs) != packEvery+14 {
		t.Fatalf("rebuilding the log from packed commits: %d, %v", len(revs), err)
	}
}

func TestFailedPackLosesNothing(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	churn(t, s, 10)
	before, _ := s.diskStore.LooseObjects()
	// A damaged loose object makes the pack fail midway.
	bad := filepath.Join(s.gitDir, "objects", "ff", strings.Repeat("e", 38))
	os.MkdirAll(filepath.Dir(bad), 0o755)
	os.WriteFile(bad, []byte("not a git object"), 0o644)
	if _, err := s.GC(Options{}); err == nil {
		t.Fatal("packing a damaged object succeeded")
	}
	after, _ := s.diskStore.LooseObjects()
	if len(after) != len(before)+1 || packCount(t, s) != 0 {
		t.Fatalf("a failed pack removed objects: %d → %d loose, %d packs", len(before), len(after), packCount(t, s))
	}
	if tmps, _ := filepath.Glob(filepath.Join(s.gitDir, "objects", "pack", "tmp_*")); len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
	os.Remove(bad)
	if _, err := s.GC(Options{}); err != nil {
		t.Fatal(err)
	}
}
