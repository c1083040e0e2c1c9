package repo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
)

// The campaigns of docs/reliability.md: go test ./... runs them small,
// PLANGIT_LONG=1 at the sizes the document gives figures for.

// size is n in the long run, small in go test ./... .
func size(small, long int) int {
	if repotest.Long() {
		return long
	}
	return small
}

// bumpAndNote is a change that touches two files at once: a step in
// task_plan.md and a finding in findings.md with the same name, so that
// a reader that sees one without the other saw a torn set.
func bumpAndNote(name string) func(*plan.State) (plan.Change, error) {
	return func(st *plan.State) (plan.Change, error) {
		if _, err := st.Plan.AddStep(plan.StepSpec{Text: name}, t0); err != nil {
			return plan.Change{}, err
		}
		if _, err := st.Findings.Add(plan.Finding{Category: "insight", Title: name}, t0); err != nil {
			return plan.Change{}, err
		}
		return plan.Change{Op: "test", Summary: "add " + name}, nil
	}
}

// TestLockDirectoryRemovedDuringChanges: .git/plangit — the intent record,
// the revision log, the caches, every temporary file — is removed over and
// over while writers change the session. No acknowledged change is lost,
// none is applied twice, no commit refers to a missing object, and the
// working files end as HEAD has them.
func TestLockDirectoryRemovedDuringChanges(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	workers, each := 8, size(6, 50)
	private := filepath.Join(s.gitDir, privateDir)
	stop := make(chan struct{})
	var removals atomic.Int64
	var remover sync.WaitGroup
	remover.Add(1)
	go func() {
		defer remover.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				if os.RemoveAll(private) == nil {
					removals.Add(1)
				}
			}
		}
	}()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		acked = map[string]string{} // commit → the change's name
		fails []string
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own, err := s.Project.Open(s.ID)
			if err != nil {
				t.Error(err)
				return
			}
			for i := range each {
				name := fmt.Sprintf("w%d-%d", w, i)
				res, err := own.Update(Options{LockWait: time.Minute}, bumpAndNote(name))
				mu.Lock()
				if err != nil {
					fails = append(fails, name+": "+err.Error())
				} else {
					acked[res.Commit.Hash] = name
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	remover.Wait()
	t.Logf("%d changes acknowledged, %d failed, .git/plangit removed %d times", len(acked), len(fails), removals.Load())
	for _, f := range fails {
		// A change may fail, and say so; it must not be in the history.
		t.Log("failed: " + f)
	}
	if len(fails) > workers*each/10 {
		t.Errorf("%d of %d changes failed", len(fails), workers*each)
	}
	// The next command completes whatever the last change left.
	if _, err := s.Update(Options{}, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil }); err != nil {
		t.Fatal(err)
	}
	log := repotest.Git(t, s.Dir, "log", "--format=%H %s")
	for h, name := range acked {
		if !strings.Contains(log, h+" add "+name) {
			t.Errorf("acknowledged change %s (%s) is not in the history", name, h[:7])
		}
	}
	if n := repotest.RevCount(t, s.Dir); n != 1+len(acked) {
		for _, l := range strings.Split(log, "\n") {
			if i := strings.IndexByte(l, ' '); i > 0 && acked[l[:i]] == "" {
				t.Log("not acknowledged: " + l)
			}
		}
		t.Errorf("%d revisions; want 1 + %d acknowledged changes", n, len(acked))
	}
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(st.Findings); got != len(acked) {
		t.Errorf("%d findings in the files; want %d", got, len(acked))
	}
}

// TestReadersNeverSeeAPartialFile: readers read the session while writers
// change it — each change adds a step and a finding of the same name.
// Every read succeeds, and sees the files of one revision: as many steps
// as findings (more than three, as the session started).
func TestReadersNeverSeeAPartialFile(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	readers, reads, minChanges := 4, size(150, 1000), size(20, 200)
	stop := make(chan struct{})
	var writers sync.WaitGroup
	var changes atomic.Int64
	for w := range 2 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			own, _ := s.Project.Open(s.ID)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := own.Update(Options{LockWait: time.Minute}, bumpAndNote(fmt.Sprintf("w%d-%d", w, i))); err != nil {
					t.Error(err)
					return
				}
				changes.Add(1)
			}
		}()
	}
	var wg sync.WaitGroup
	var failures, done atomic.Int64
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// reads reads at least, and on until the writers have made
			// minChanges changes.
			for i := 0; i < reads || changes.Load() < int64(minChanges); i++ {
				if err := readOnce(s); err != nil {
					failures.Add(1)
					t.Error(err)
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	writers.Wait()
	t.Logf("%d reads, %d failed, during %d changes", done.Load(), failures.Load(), changes.Load())
}

// readOnce reads the session as a command that only reads does: opens it,
// reads HEAD and the files, and parses them.
func readOnce(s *Session) error {
	own, err := s.Project.Open(s.ID)
	if err != nil {
		return err
	}
	if _, err := own.Head(); err != nil {
		return err
	}
	st, err := own.State()
	if err != nil {
		return err
	}
	steps := 0
	for _, ph := range st.Plan.Phases {
		steps += len(ph.Steps)
	}
	if steps != 3+len(st.Findings) {
		return fmt.Errorf("a torn set: %d steps, %d findings", steps, len(st.Findings))
	}
	return nil
}

// TestReadOnlyWorkingFile: a working file a person made read-only is left
// as it is: the change fails with an IO_ERROR naming the file and the fix,
// nothing is written (no object, no record, no revision), and once the file
// is writable again the next change works. (As root, whom no mode stops,
// plangit still refuses a file without its owner's write bit; the test of
// the binary run as another user, in the project's root package, covers a
// file the system refuses to write.)
func TestReadOnlyWorkingFile(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	path := filepath.Join(s.Dir, plan.PlanFile)
	before, _ := os.ReadFile(path)
	head, _ := s.Head()
	loose, _ := s.diskStore.LooseObjects()
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := s.Update(Options{}, step("1", plan.ActStart))
		if plan.CodeOf(err) != plan.CodeIOError || !strings.Contains(err.Error(), "task_plan.md is read-only") || !strings.Contains(err.Error(), "chmod u+w "+path) {
			t.Fatalf("a change to a read-only task_plan.md: %v", err)
		}
	}
	after, _ := os.ReadFile(path)
	fi, _ := os.Lstat(path)
	now, _ := s.Head()
	still, _ := s.diskStore.LooseObjects()
	if string(after) != string(before) || fi.Mode().Perm() != 0o444 || now != head || len(still) != len(loose) || s.work.intentPending() {
		t.Fatalf("the refused change left something: file changed %v, mode %v, head %s → %s, %d → %d loose objects, record pending %v",
			string(after) != string(before), fi.Mode().Perm(), head[:7], now[:7], len(loose), len(still), s.work.intentPending())
	}
	// Another file read-only does not stop a change that leaves it alone.
	os.Chmod(path, 0o644)
	os.Chmod(filepath.Join(s.Dir, plan.ErrorsFile), 0o444)
	if _, err := s.Update(Options{}, step("1", plan.ActStart)); err != nil {
		t.Fatalf("after chmod u+w: %v", err)
	}
	os.Chmod(filepath.Join(s.Dir, plan.ErrorsFile), 0o644)
	if n := repotest.RevCount(t, s.Dir); n != 2 {
		t.Fatalf("%d revisions, want 2", n)
	}
}

// TestProjectDirLink: .code-agent (or its plans) as a symbolic link out of
// the project is refused, with a message naming the link and where it
// leads, before anything is written there; one that stays inside the
// project is followed.
func TestProjectDirLink(t *testing.T) {
	t.Parallel()
	pl, _ := plan.New("s1", "Linked", "", []string{"Work"}, t0, false)
	create := func(p Project) error {
		_, _, err := p.Create("s1", &plan.State{Plan: pl}, plan.Change{Op: "init", Summary: "init"}, Options{Now: t0})
		return err
	}
	for _, c := range []struct{ name, link string }{
		{".code-agent", DirName},
		{"plans", filepath.Join(DirName, plansDir)},
	} {
		t.Run(c.name+" out of the project", func(t *testing.T) {
			root, elsewhere := t.TempDir(), t.TempDir()
			os.MkdirAll(filepath.Dir(filepath.Join(root, c.link)), 0o755)
			repotest.RequireSymlink(t, elsewhere, filepath.Join(root, c.link))
			p := Project{Root: root}
			link := filepath.Join(root, c.link)
			for what, err := range map[string]error{
				"init":     create(p),
				"use":      p.SetActive("s1"),
				"config":   func() error { _, err := p.SetConfig("stop_mode", "advise"); return err }(),
				"sessions": func() error { _, err := p.SessionIDs(); return err }(),
				"open":     func() error { _, err := p.Open("s1"); return err }(),
			} {
				if plan.CodeOf(err) != plan.CodeIOError || !strings.Contains(err.Error(), link+" is a symbolic link to "+elsewhere+", outside the project") {
					t.Errorf("%s through %s: %v", what, c.name, err)
				}
			}
			if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
				t.Fatalf("plangit wrote through the link: %v", entries)
			}
		})
	}
	t.Run("a link that stays inside", func(t *testing.T) {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, "data", "agent"), 0o755)
		repotest.RequireSymlink(t, filepath.Join("data", "agent"), filepath.Join(root, DirName))
		if err := create(Project{Root: root}); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, "data", "agent", plansDir, "s1")
		if _, err := os.Stat(filepath.Join(dir, plan.PlanFile)); err != nil {
			t.Fatal(err)
		}
		repotest.Check(t, dir)
	})
	t.Run("a link that leads nowhere", func(t *testing.T) {
		root := t.TempDir()
		repotest.RequireSymlink(t, filepath.Join(t.TempDir(), "gone"), filepath.Join(root, DirName))
		if err := create(Project{Root: root}); plan.CodeOf(err) != plan.CodeIOError || !strings.Contains(err.Error(), "is a symbolic link to") {
			t.Fatalf("init through a dangling link: %v", err)
		}
	})
}
