package repo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
	"github.com/plangit/plangit/repo/store"
)

// cutAfterBranch puts the session in the state a process killed right
// after moving the branch to HEAD leaves: HEAD's parent's working files
// (all of them, or only those named) and index, and the intent record.
func cutAfterBranch(t *testing.T, s *Session, only ...string) {
	t.Helper()
	head, _ := s.readRef()
	c, err := s.store.ReadCommit(head)
	if err != nil {
		t.Fatal(err)
	}
	oldFiles, err := s.store.ReadFilesAt(c.Parents[0])
	if err != nil {
		t.Fatal(err)
	}
	newFiles, _ := s.store.ReadFilesAt(head)
	in := &intent{Commit: head, Files: fileChanges(oldFiles, newFiles)}
	if err := os.WriteFile(s.work.intentPath(), in.Encode(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range plan.SessionFiles {
		if len(only) > 0 && !strings.Contains(strings.Join(only, " "), name) {
			continue
		}
		path := filepath.Join(s.Dir, name)
		if b, ok := oldFiles[name]; ok {
			os.WriteFile(path, b, 0o644)
		} else {
			os.Remove(path)
		}
	}
	old := &intent{Files: fileChanges(oldFiles, oldFiles)}
	s.work.writeIndex(old, map[string]bool{})
}

func actors(t *testing.T, s *Session) string {
	return repotest.Git(t, s.Dir, "log", "--format=%(trailers:key=Plangit-Actor,valueonly,separator=)")
}

func TestReaderCompletesAChangeCutAfterItsBranchMoved(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	if _, err := s.Update(Options{}, step("1", plan.ActStart)); err != nil {
		t.Fatal(err)
	}
	want := readFile(t, s, plan.PlanFile)
	cutAfterBranch(t, s)
	// A reader that cannot take the lock reads the files as HEAD has them.
	holder, _ := newSession(s.Project, s.ID)
	unlock, err := holder.lk.take(time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	reader, _ := s.Project.Open(s.ID)
	st, err := reader.State()
	unlock()
	if err != nil {
		t.Fatal(err)
	}
	if s1, _, _ := st.Plan.Step("1"); s1.Status != plan.StepInProgress {
		t.Fatalf("a reader saw the old files while the change was unfinished: %s", s1.Status)
	}
	if readFile(t, s, plan.PlanFile) == want {
		t.Fatal("the reader wrote while another process held the lock")
	}
	// The next command, a reader too, completes the files to HEAD.
	if _, err := s.Project.Open(s.ID); err != nil {
		t.Fatal(err)
	}
	if readFile(t, s, plan.PlanFile) != want {
		t.Fatal("the interrupted change was not completed")
	}
	if s.work.intentPending() {
		t.Fatal("the intent record is left")
	}
	if n := repotest.RevCount(t, s.Dir); n != 2 {
		t.Fatalf("%d revisions: a reader committed", n)
	}
}

func TestTornRollbackIsCompletedNeverAdopted(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	first, _ := s.Head()
	s.Update(Options{}, func(st *plan.State) (plan.Change, error) {
		st.Findings.Add(plan.Finding{Category: plan.CatInsight, Title: "noted"}, t0)
		st.Errors.Record(plan.ErrorRecord{Tool: "Bash", Message: "boom"}, t0)
		return st.Plan.Transition("1", plan.ActStart, plan.TransitionOpts{}, t0)
	})
	files, _, _ := s.FilesAt(first)
	if _, err := s.Restore(Options{}, func(*plan.State, Base) (map[string][]byte, plan.Change, error) {
		return files, plan.Change{Op: "rollback", Summary: "rollback to @1"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	// Killed having written errors.md only: the other two are as before.
	cutAfterBranch(t, s, plan.FindingsFile, plan.PlanFile)
	res, err := s.Update(Options{}, step("2", plan.ActStart))
	if err != nil || res.Adopted != nil {
		t.Fatalf("the torn rollback was adopted as an edit: %+v %v", res, err)
	}
	if strings.Contains(actors(t, s), "user") {
		t.Fatal("a commit is attributed to user")
	}
	got, _ := s.ReadFiles()
	if !bytes.Equal(got[plan.FindingsFile], files[plan.FindingsFile]) || !bytes.Equal(got[plan.ErrorsFile], files[plan.ErrorsFile]) {
		t.Fatal("the rollback's files were not all completed")
	}
}

func TestChangeCutBeforeItsBranchMovedLeavesNothing(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	before := readFile(t, s, plan.PlanFile)
	head, _ := s.readRef()
	// Objects and intent written, branch not moved: the files are untouched.
	in := &intent{Commit: plumbing.NewHash(strings.Repeat("ab", 20)), Files: []intentFile{{Name: plan.PlanFile, Old: plumbing.ComputeHash(plumbing.BlobObject, []byte(before)), New: plumbing.ComputeHash(plumbing.BlobObject, []byte("x"))}}}
	os.WriteFile(s.work.intentPath(), in.Encode(), 0o644)
	os.WriteFile(filepath.Join(s.gitDir, privateDir, tmpPrefix+"obj-123"), []byte("half"), 0o644)
	res, err := s.Update(Options{}, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if err != nil || res.Adopted != nil {
		t.Fatalf("%+v %v", res, err)
	}
	if cur, _ := s.readRef(); cur != head || readFile(t, s, plan.PlanFile) != before {
		t.Fatal("the branch or the files moved")
	}
	if s.work.intentPending() {
		t.Error("the intent record is left")
	}
	if _, err := os.Lstat(filepath.Join(s.gitDir, privateDir, tmpPrefix+"obj-123")); err == nil {
		t.Error("the temporary object is left")
	}
}

func TestPersonsEditDuringLandingIsKept(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	s.Update(Options{}, step("1", plan.ActStart))
	cutAfterBranch(t, s)
	// A person saved task_plan.md after the kill: neither old nor new.
	path := filepath.Join(s.Dir, plan.PlanFile)
	mine := strings.Replace(readFile(t, s, plan.PlanFile), "- [ ] ○ Build", "- [ ] ○ Build it well", 1)
	os.WriteFile(path, []byte(mine), 0o644)
	res, err := s.Update(Options{}, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if err != nil || res.Adopted == nil {
		t.Fatalf("the person's edit was not adopted: %+v %v", res, err)
	}
	if st, _ := s.State(); st.Plan.Steps()[2].Text != "Build it well" {
		t.Fatal("the person's edit was lost")
	}
}

func TestHandEditsRacingChangesAreNotLost(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	path := filepath.Join(s.Dir, plan.PlanFile)
	const edits = 40
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() { // the agent
		defer wg.Done()
		w, _ := s.Project.Open(s.ID)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			w.Update(Options{}, func(st *plan.State) (plan.Change, error) {
				return st.Plan.SetProgress("2", plan.Progress{Current: i%5 + 1, Total: 9}, t0)
			})
		}
	}()
	for i := 0; i < edits; i++ { // a person, saving as editors do
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("- [ ] hand edit %d\n", i)
		b = bytes.Replace(b, []byte("\n<!-- plangit"), []byte(line+"\n<!-- plangit"), 1)
		tmp := path + ".editor"
		os.WriteFile(tmp, b, 0o644)
		os.Rename(tmp, path)
		// The editor reloads once its edit is taken in (the step has its
		// id), as TestStaleSaveCampaign's does: while a change lands over
		// a file saved that instant, the change's copy stands at the path
		// until the person's is put back, and a copy reloaded then lacks
		// their line (TestSaveTwiceWhileAChangeLands).
		taken := fmt.Sprintf("hand edit %d `#", i)
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(taken)) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("hand edit %d was not taken in within 10 s", i)
			}
		}
	}
	close(stop)
	wg.Wait()
	if _, err := s.Update(Options{}, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil }); err != nil {
		t.Fatal(err)
	}
	text := readFile(t, s, plan.PlanFile)
	for i := 0; i < edits; i++ {
		if !strings.Contains(text, fmt.Sprintf("hand edit %d `#", i)) {
			t.Errorf("hand edit %d was lost", i)
		}
	}
}

// TestSaveTwiceWhileAChangeLands: a person saves task_plan.md just after
// a change has checked it and before the change exchanges its own copy
// in; their editor reloads the change's copy in that instant, and they
// save again before the change puts their first save back. The swap back
// then takes their later save: it goes back in its turn and stays, as the
// file they saved last. The first save's line, which the later one lacks,
// is named in a warning, never dropped silently.
func TestSaveTwiceWhileAChangeLands(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	path := filepath.Join(s.Dir, plan.PlanFile)
	var warnings []string
	s.OnWarning(func(msg string) { warnings = append(warnings, msg) })
	save := func(line string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.Replace(b, []byte("\n<!-- plangit"), []byte("- [ ] "+line+"\n\n<!-- plangit"), 1)
		if err := os.WriteFile(path+".editor", b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".editor", path); err != nil {
			t.Fatal(err)
		}
	}
	s.work.landing = func(moment, p string) {
		if p != path {
			return
		}
		switch moment {
		case "checked":
			save("first save")
		case "exchanged":
			save("second save") // made on the change's copy
			s.work.landing = nil
		}
	}
	if _, err := s.Update(Options{}, func(st *plan.State) (plan.Change, error) {
		return st.Plan.SetProgress("2", plan.Progress{Current: 1, Total: 9}, t0)
	}); err != nil {
		t.Fatal(err)
	}
	if s.work.landing != nil {
		t.Fatal("the change never reached the exchange of task_plan.md")
	}
	b, _ := os.ReadFile(path)
	if !bytes.Contains(b, []byte("second save")) || bytes.Contains(b, []byte("first save")) {
		t.Fatalf("task_plan.md should hold the later save:\n%s", b)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `"- [ ] first save"`) || strings.Contains(warnings[0], "second save") {
		t.Fatalf("warnings: %q", warnings)
	}
	// The next change takes the later save in, with the change's progress.
	if _, err := s.Update(Options{}, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil }); err != nil {
		t.Fatal(err)
	}
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, x := range st.Plan.Steps() {
		texts = append(texts, x.Text)
	}
	if !slices.Contains(texts, "second save") || st.Plan.Steps()[1].Progress.Current != 1 {
		t.Fatalf("steps after the save was taken in: %q, step 2 %+v", texts, st.Plan.Steps()[1].Progress)
	}
}

func TestLockHoldsWhenItsFileIsDeleted(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	const workers, each = 6, 20
	var wg sync.WaitGroup
	var mu sync.Mutex
	var acked []string
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				os.Remove(filepath.Join(s.gitDir, privateDir, "lock"))
				os.WriteFile(filepath.Join(s.gitDir, privateDir, "lock"), nil, 0o644)
			}
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own, _ := s.Project.Open(s.ID)
			for i := 0; i < each; i++ {
				res, err := own.Update(Options{}, func(st *plan.State) (plan.Change, error) {
					st.Plan.Iterations++
					return plan.Change{Op: "test", Summary: "bump"}, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				acked = append(acked, res.Commit.Hash)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	st, _ := s.State()
	if n := repotest.RevCount(t, s.Dir); n != 1+workers*each || st.Plan.Iterations != workers*each {
		t.Fatalf("%d revisions, iterations %d; want %d", n, st.Plan.Iterations, workers*each)
	}
	log := repotest.Git(t, s.Dir, "log", "--format=%H")
	for _, h := range acked {
		if !strings.Contains(log, h) {
			t.Fatalf("acknowledged revision %s is lost", h)
		}
	}
}

// TestChangeStartsOverWhenItsLockIsReplaced: the session lock is held on
// .git itself. Replacing .git/plangit while a change runs changes nothing
// about the lock; replacing .git (by a copy) makes the change start over
// under a lock on the one now in place.
func TestChangeStartsOverWhenItsLockIsReplaced(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	dir := filepath.Join(s.gitDir, privateDir)
	calls := 0
	_, err := s.Update(Options{LockWait: time.Second}, func(st *plan.State) (plan.Change, error) {
		calls++
		if calls == 1 {
			copyDir(t, dir, dir+".new")
			os.Rename(dir, dir+".old")
			os.Rename(dir+".new", dir)
		}
		return st.Plan.Transition("1", plan.ActStart, plan.TransitionOpts{}, t0)
	})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(dir + ".old")
	if calls != 1 || repotest.RevCount(t, s.Dir) != 2 {
		t.Fatalf(".git/plangit replaced: fn ran %d times; %d revisions", calls, repotest.RevCount(t, s.Dir))
	}

	calls = 0
	_, err = s.Update(Options{LockWait: time.Second}, func(st *plan.State) (plan.Change, error) {
		calls++
		if calls == 1 {
			if out, err := exec.Command("cp", "-a", s.gitDir, s.gitDir+".new").CombinedOutput(); err != nil {
				t.Fatalf("cp: %v\n%s", err, out)
			}
			os.Rename(s.gitDir, s.gitDir+".old")
			os.Rename(s.gitDir+".new", s.gitDir)
		}
		return st.Plan.Transition("1", plan.ActDone, plan.TransitionOpts{}, t0)
	})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(s.gitDir + ".old")
	if calls != 2 || repotest.RevCount(t, s.Dir) != 3 {
		t.Fatalf(".git replaced: fn ran %d times; %d revisions", calls, repotest.RevCount(t, s.Dir))
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	os.MkdirAll(to, 0o755)
	entries, _ := os.ReadDir(from)
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(from, e.Name())); err == nil {
			os.WriteFile(filepath.Join(to, e.Name()), b, 0o644)
		}
	}
}

func TestNoSymbolicLinkIsFollowed(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	os.WriteFile(secret, []byte("do not read\n"), 0o600)

	t.Run("working file", func(t *testing.T) {
		s := newTestSession(t)
		path := filepath.Join(s.Dir, plan.PlanFile)
		os.Remove(path)
		repotest.RequireSymlink(t, secret, path)
		if _, err := s.Update(Options{}, step("1", plan.ActStart)); plan.CodeOf(err) != plan.CodeIOError || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("got %v", err)
		}
		if _, err := s.State(); err == nil {
			t.Fatal("a reader followed the link")
		}
		rep, err := s.Repair(Options{})
		if err != nil {
			t.Fatal(err)
		}
		kept := path + rejectedSuffix + ".1"
		if fi, err := os.Lstat(kept); err != nil || fi.Mode()&fs.ModeSymlink == 0 || len(rep.Restored) != 1 {
			t.Fatalf("the link was not moved aside as it is: %v %+v", err, rep)
		}
		if b, _ := os.ReadFile(secret); string(b) != "do not read\n" {
			t.Fatal("the link's target changed")
		}
	})
	t.Run("a rejected copy keeps the file's mode", func(t *testing.T) {
		s := newTestSession(t)
		path := filepath.Join(s.Dir, plan.PlanFile)
		os.WriteFile(path, []byte("# Broken\n\n- [ ] `#x` no\n"), 0o600)
		os.Chmod(path, 0o600)
		before, err := os.Lstat(path) // 0600, or what the system keeps of it
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Repair(Options{}); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(path + rejectedSuffix + ".1"); err != nil || fi.Mode().Perm() != before.Mode().Perm() {
			t.Fatalf("mode %v, %v; want %v", fi.Mode(), err, before.Mode().Perm())
		}
	})
	t.Run("each repair keeps its own copy", func(t *testing.T) {
		s := newTestSession(t)
		path := filepath.Join(s.Dir, plan.PlanFile)
		for i, text := range []string{"# Broken\n\n- [ ] `#x` one\n", "# Broken\n\n- [ ] `#y` two\n"} {
			os.WriteFile(path, []byte(text), 0o644)
			rep, err := s.Repair(Options{})
			if err != nil {
				t.Fatal(err)
			}
			kept := path + rejectedSuffix + "." + strconv.Itoa(i+1)
			if b, _ := os.ReadFile(kept); string(b) != text || rep.Restored[0].KeptAt != kept {
				t.Fatalf("repair %d kept %q in %s: %+v", i+1, b, kept, rep.Restored)
			}
		}
		if out, err := exec.Command("git", "-C", s.Dir, "status", "--porcelain").Output(); err == nil && len(out) != 0 {
			t.Errorf("git status sees the copies: %s", out)
		}
	})
	t.Run("log, queue and the lock's directory", func(t *testing.T) {
		s := newTestSession(t)
		os.Remove(filepath.Join(s.Project.Dir(), LogFile))
		repotest.RequireSymlink(t, secret, filepath.Join(s.Project.Dir(), LogFile))
		if err := s.Project.AppendLog(t0, "hello"); err == nil {
			t.Error("the log was appended through a link")
		}
		repotest.RequireSymlink(t, secret, s.PrivatePath(queueName))
		if err := s.Enqueue([]byte("{}")); err == nil {
			t.Error("the queue was appended through a link")
		}
		os.Remove(s.PrivatePath(queueName))
		private := filepath.Join(s.gitDir, privateDir)
		os.Rename(private, filepath.Join(outside, "private"))
		repotest.RequireSymlink(t, filepath.Join(outside, "private"), private)
		if _, err := s.Update(Options{}, step("1", plan.ActStart)); plan.CodeOf(err) != plan.CodeIOError {
			t.Errorf("a change locked through a link: %v", err)
		}
		if b, _ := os.ReadFile(secret); string(b) != "do not read\n" {
			t.Error("a file outside the session changed")
		}
		os.Remove(private)
		os.Rename(filepath.Join(outside, "private"), private)
	})
}

func TestStepIDsAreNeverReused(t *testing.T) {
	t.Parallel()
	s := newTestSession(t) // steps 1–3
	add := func(text string) string {
		t.Helper()
		var id string
		if _, err := s.Update(Options{}, func(st *plan.State) (plan.Change, error) {
			added, err := st.Plan.AddStep(plan.StepSpec{Text: text}, t0)
			if err != nil {
				return plan.Change{}, err
			}
			id = added.ID
			return plan.Change{Op: "step.add", Step: id, Summary: "add " + id}, nil
		}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	undo := func() {
		t.Helper()
		last, _ := s.Last()
		files, _ := s.FilesOf(last.Parent)
		if _, err := s.Restore(Options{}, func(*plan.State, Base) (map[string][]byte, plan.Change, error) {
			return files, plan.Change{Op: "undo", Summary: "undo"}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if id := add("four"); id != "4" {
		t.Fatalf("first id %s", id)
	}
	undo()
	if id := add("after an undo"); id != "5" {
		t.Fatalf("after undo: step %s, want 5", id)
	}
	first, _ := s.Resolve("@1")
	files, _ := s.FilesOf(first)
	s.Restore(Options{}, func(*plan.State, Base) (map[string][]byte, plan.Change, error) {
		return files, plan.Change{Op: "rollback", Summary: "rollback to @1"}, nil
	})
	if id := add("after a rollback"); id != "6" {
		t.Fatalf("after rollback: step %s, want 6", id)
	}
	// A hand edit after an undo: its new line gets a fresh id too, and so
	// does a line written with an id issued before.
	undo()
	path := filepath.Join(s.Dir, plan.PlanFile)
	b := readFile(t, s, plan.PlanFile)
	b = strings.Replace(b, "\n<!-- plangit", "- [ ] by hand\n- [ ] ○ reusing an old id `#5`\n\n<!-- plangit", 1)
	os.WriteFile(path, []byte(b), 0o644)
	if _, err := s.Update(Options{}, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil }); err != nil {
		t.Fatal(err)
	}
	st, _ := s.State()
	for _, x := range st.Plan.Steps() {
		if n, _ := strconv.Atoi(x.ID); (x.Text == "by hand" || x.Text == "reusing an old id") && n <= 6 {
			t.Errorf("%q got id %s, issued before", x.Text, x.ID)
		}
	}
	// The cache of the largest id is rebuilt when lost.
	os.Remove(s.PrivatePath(idsName))
	os.Remove(store.RevlogPath(s.gitDir))
	if id := add("after losing the caches"); id != "9" {
		t.Fatalf("after losing the caches: step %s, want 9", id)
	}
}

func TestDamagedHistory(t *testing.T) {
	t.Parallel()
	// Each case damages a session of four revisions whose working files
	// hold HEAD, then checks what a change says and what repair recovers.
	setup := func(t *testing.T) (*Session, []string) {
		s := newTestSession(t)
		s.Update(Options{}, step("1", plan.ActStart))
		s.Update(Options{}, step("1", plan.ActDone))
		s.Update(Options{}, step("2", plan.ActStart))
		revs, _ := s.Revisions()
		var hashes []string
		for _, r := range revs {
			hashes = append(hashes, r.Hash)
		}
		return s, hashes
	}
	noInitAdvice := func(t *testing.T, err error) {
		t.Helper()
		if err == nil || plan.CodeOf(err) != plan.CodeIOError || !strings.Contains(err.Error(), "plangit repair") || strings.Contains(err.Error(), "init") {
			t.Fatalf("a change on damaged history: %v", err)
		}
	}
	change := func(s *Session) error {
		_, err := s.Update(Options{}, step("3", plan.ActStart))
		return err
	}
	t.Run("branch at a missing commit", func(t *testing.T) {
		s, revs := setup(t)
		os.WriteFile(filepath.Join(s.gitDir, branchRef), []byte(strings.Repeat("1", 40)+"\n"), 0o644)
		noInitAdvice(t, change(s))
		rep, err := s.Repair(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.RefRecovered != revs[3] || rep.RefWas != strings.Repeat("1", 40) || rep.RefProblem == "" || len(rep.Lost) != 1 || rep.Kept != nil {
			t.Fatalf("%+v", rep)
		}
		if err := change(s); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("the last commit missing", func(t *testing.T) {
		s, revs := setup(t)
		os.Remove(s.diskStore.LoosePath(hashOf(revs[3])))
		noInitAdvice(t, change(s))
		rep, err := s.Repair(Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Pointed at @3; the working files, which held @4, are kept.
		if rep.RefRecovered != revs[2] || rep.Kept == nil || rep.Kept.Change.Op != "repair" || len(rep.Lost) != 1 {
			t.Fatalf("%+v", rep)
		}
		if st, _ := s.State(); st.Plan.Steps()[1].Status != plan.StepInProgress {
			t.Fatal("the working files were not kept")
		}
		if strings.Contains(actors(t, s), "user") {
			t.Fatal("repair's commit is attributed to user")
		}
	})
	t.Run("a commit in the middle missing", func(t *testing.T) {
		// What the lock directory removed under concurrent writers once
		// left: history that cannot be mended without rewriting it.
		s, revs := setup(t)
		path := s.diskStore.LoosePath(hashOf(revs[1]))
		kept, _ := os.ReadFile(path)
		os.Remove(path)
		rep, err := s.Repair(Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("revisions before %s cannot be read (commit %s is missing or damaged); history starts at %s", revs[2][:7], revs[1][:7], revs[2][:7])
		if rep.RefRecovered != "" || len(rep.Lost) != 1 || rep.Lost[0] != want {
			t.Fatalf("%+v", rep)
		}
		if err := change(s); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Revisions(); len(got) != 3 {
			t.Fatalf("%d revisions after repair", len(got))
		}
		os.WriteFile(path, kept, 0o444) // so that fsck at cleanup sees the history whole
	})
	t.Run("a truncated tree and missing blobs", func(t *testing.T) {
		s, revs := setup(t)
		c, _ := s.store.ReadCommit(hashOf(revs[3]))
		tree := s.diskStore.LoosePath(c.Tree)
		b, _ := os.ReadFile(tree)
		os.Chmod(tree, 0o644)
		os.WriteFile(tree, b[:len(b)/2], 0o644)
		files, _ := s.store.ReadTreeFiles(hashOf(revs[2]))
		lostBlob := files[plan.PlanFile] // @3's plan: no working file holds it
		os.Remove(s.diskStore.LoosePath(lostBlob))
		here, _ := s.ReadFiles()
		os.Remove(s.diskStore.LoosePath(plumbing.ComputeHash(plumbing.BlobObject, here[plan.PlanFile])))
		noInitAdvice(t, change(s))
		rep, err := s.Repair(Options{})
		if err != nil {
			t.Fatal(err)
		}
		// HEAD's tree and plan come back from the working files; @3's plan
		// is reported lost.
		if rep.RefRecovered != "" || len(rep.ObjectsRecovered) != 2 || len(rep.Lost) != 1 || !strings.HasPrefix(rep.Lost[0], "@3: ") || !strings.Contains(rep.Lost[0], plan.PlanFile) {
			t.Fatalf("%+v", rep)
		}
		if err := change(s); err != nil {
			t.Fatal(err)
		}
		// So that fsck at cleanup sees the history whole again.
		old, _ := s.FilesOf(revs[1])
		st, _ := plan.ParseState(old)
		st.Plan.Transition("1", plan.ActDone, plan.TransitionOpts{}, t0)
		if h, _, _ := s.store.Write(plumbing.BlobObject, plan.WritePlan(st.Plan)); h != lostBlob {
			t.Fatal("cannot rebuild the lost blob for the cleanup check")
		}
	})
	t.Run("branch and revision log lost", func(t *testing.T) {
		s, revs := setup(t)
		// A change that never landed left a newer commit among the objects.
		c1, _ := s.store.ReadCommit(hashOf(revs[1]))
		late := noIdentity
		late.When = t0.Add(24 * time.Hour)
		orphan, _, _ := s.store.Write(plumbing.CommitObject, (&store.CommitObject{Tree: c1.Tree, Parents: []plumbing.Hash{hashOf(revs[3])}, Author: late, Committer: late, Message: "never landed\n\nPlangit-Op: test\n"}).Encode())
		defer os.Remove(s.diskStore.LoosePath(orphan))
		os.Remove(filepath.Join(s.gitDir, branchRef))
		os.Remove(store.RevlogPath(s.gitDir))
		noInitAdvice(t, change(s))
		pl, _ := plan.New("s1", "Other", "", nil, t0, false)
		if _, _, err := s.Project.Create("s1", &plan.State{Plan: pl}, plan.Change{Op: "init"}, Options{}); plan.CodeOf(err) != plan.CodeIOError || !strings.Contains(err.Error(), "repair") {
			t.Fatalf("init over a lost branch: %v", err)
		}
		rep, err := s.Repair(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.RefRecovered != revs[3] || rep.Kept != nil || len(rep.Lost) != 0 || !strings.Contains(rep.RefProblem, "the branch was lost with the revision log") {
			t.Fatalf("recovered %s, want %s: %+v", rep.RefRecovered, revs[3], rep)
		}
		if got, _ := s.Revisions(); len(got) != 4 {
			t.Fatalf("%d revisions after repair", len(got))
		}
	})
	t.Run("branch, revision log and working files lost", func(t *testing.T) {
		s, revs := setup(t)
		os.Remove(filepath.Join(s.gitDir, branchRef))
		os.Remove(store.RevlogPath(s.gitDir))
		for _, name := range plan.SessionFiles {
			os.Remove(filepath.Join(s.Dir, name))
		}
		noInitAdvice(t, change(s))
		pl, _ := plan.New("s1", "Other", "", nil, t0, false)
		if _, _, err := s.Project.Create("s1", &plan.State{Plan: pl}, plan.Change{Op: "init"}, Options{}); plan.CodeOf(err) != plan.CodeIOError {
			t.Fatalf("init over lost history: %v", err)
		}
		rep, err := s.Repair(Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.RefRecovered != revs[3] || len(rep.Restored) != 1 || rep.Restored[0].File != plan.PlanFile {
			t.Fatalf("%+v", rep)
		}
		if err := change(s); err != nil {
			t.Fatal(err)
		}
	})
	// A last revision whose files do not parse — written with git by
	// hand, or by a plangit that let a file grow past the limit: every
	// change refuses, and repair adds a revision with the files of the
	// newest revision that reads, telling its steps apart from that
	// one's (none touched). A working file changed by hand on top of it
	// is kept beside. Files the person mended so that they read — put
	// back as they were, or changed too — are their edit, adopted by
	// repair or by any change, its steps told apart from the newest plan
	// that reads: only the step they changed is touched.
	for _, work := range []string{"as committed", "edited", "mended", "mended, then a change", "put back, then a change"} {
		edited := work == "edited"
		t.Run("the last revision's files do not read, the working files "+work, func(t *testing.T) {
			s, revs := setup(t)
			good := readFile(t, s, plan.PlanFile)
			bad := strings.Replace(good, "`#2`", "`#two`", 1)
			os.WriteFile(filepath.Join(s.Dir, plan.PlanFile), []byte(bad), 0o644)
			blob := strings.TrimSpace(repotest.Git(t, s.Dir, "hash-object", "-w", plan.PlanFile))
			tree := strings.Replace(repotest.Git(t, s.Dir, "ls-tree", "HEAD"), strings.Fields(strings.Split(repotest.Git(t, s.Dir, "ls-tree", "HEAD", plan.PlanFile), "\t")[0])[2], blob, 1)
			mktree := exec.Command("git", "mktree")
			mktree.Dir, mktree.Stdin = s.Dir, strings.NewReader(tree)
			out, err := mktree.Output()
			if err != nil {
				t.Fatal(err)
			}
			treeHash := strings.TrimSpace(string(out))
			commit := strings.TrimSpace(repotest.Git(t, s.Dir, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit-tree", treeHash, "-p", revs[3], "-m", "by hand"))
			repotest.Git(t, s.Dir, "update-ref", "refs/heads/main", commit)
			repotest.Git(t, s.Dir, "reset", "-q")
			touched := "" // the step the person's edit changes
			switch work {
			case "edited":
				os.WriteFile(filepath.Join(s.Dir, plan.PlanFile), []byte(bad+"\n<!-- a person's note -->\n"), 0o644)
			case "mended", "mended, then a change":
				good = strings.Replace(good, " `#2`", " again `#2`", 1)
				os.WriteFile(filepath.Join(s.Dir, plan.PlanFile), []byte(good), 0o644)
				touched = "2"
			case "put back, then a change":
				os.WriteFile(filepath.Join(s.Dir, plan.PlanFile), []byte(good), 0o644)
			}
			checkEdit := func(adopted *Commit) {
				t.Helper()
				if adopted == nil || !strings.HasPrefix(adopted.Change.Summary, "edit: task_plan.md changed outside plangit") {
					t.Fatalf("the person's files were not adopted as their edit: %+v", adopted)
				}
				var steps []string
				for _, tc := range adopted.Touches {
					steps = append(steps, tc.Step)
				}
				if want := []string{touched}; touched == "" && len(steps) != 0 || touched != "" && !slices.Equal(steps, want) {
					t.Fatalf("the edit touches steps %q, want %q", steps, touched)
				}
			}
			if strings.HasSuffix(work, "then a change") {
				// The person's files are adopted as an edit, their step
				// ids as they stand.
				res, err := s.Update(Options{}, step("3", plan.ActStart))
				if err != nil {
					t.Fatalf("a change on mended files: %v", err)
				}
				checkEdit(res.Adopted)
				st, _ := s.State()
				if text, status := stepText(t, st, "3"); text != "Build" || status != plan.StepInProgress {
					t.Fatalf("step 3 is %q, %s:\n%s", text, status, readFile(t, s, plan.PlanFile))
				}
				if text, _ := stepText(t, st, "2"); touched != "" && !strings.HasSuffix(text, " again") {
					t.Fatalf("the mended step 2 is %q", text)
				}
				repotest.Check(t, s.Dir)
				return
			}
			if work != "mended" {
				if err := change(s); plan.CodeOf(err) != plan.CodePlanParseError {
					t.Fatalf("a change on a revision that does not read: %v", err)
				}
			}
			rep, err := s.Repair(Options{})
			if err != nil {
				t.Fatal(err)
			}
			if work == "mended" {
				if rep.ReadBack != nil || len(rep.Restored) != 0 {
					t.Fatalf("%+v", rep)
				}
				checkEdit(rep.Adopted)
				st, _ := s.State()
				if text, _ := stepText(t, st, "2"); !strings.HasSuffix(text, " again") {
					t.Fatalf("the mended step 2 is %q", text)
				}
			} else {
				if rep.ReadBack == nil || rep.ReadBack.Change.Op != "repair" || !strings.Contains(rep.ReadBack.Change.Summary, "they are as at @4 ("+revs[3][:7]+") again") {
					t.Fatalf("%+v", rep)
				}
				if strings.Contains(rep.ReadBack.Change.Summary, "put back the number") {
					t.Errorf("the read-back's summary gives a working file's advice: %s", rep.ReadBack.Change.Summary)
				}
				if len(rep.ReadBack.Touches) != 0 {
					t.Errorf("the read-back touches steps %+v: the plan is as at @4", rep.ReadBack.Touches)
				}
				if got := readFile(t, s, plan.PlanFile); got != good {
					t.Fatalf("task_plan.md after repair:\n%s", got)
				}
				if edited != (len(rep.Restored) == 1) {
					t.Fatalf("restored %+v", rep.Restored)
				}
				if edited {
					if kept, _ := os.ReadFile(rep.Restored[0].KeptAt); !strings.Contains(string(kept), "a person's note") {
						t.Fatalf("the person's copy is not kept: %s", kept)
					}
				}
			}
			if n := repotest.RevCount(t, s.Dir); n != 6 {
				t.Fatalf("%d revisions, want 6: history keeps the one that does not read", n)
			}
			if err := change(s); err != nil {
				t.Fatal(err)
			}
			repotest.Check(t, s.Dir)
		})
	}
}

// TestFileOverTheLimitIsRefused: a change that would write a file plangit
// could not read back is refused, and nothing changes.
func TestFileOverTheLimitIsRefused(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	before := readFile(t, s, plan.PlanFile)
	_, err := s.Update(Options{}, func(st *plan.State) (plan.Change, error) {
		st.Deliverable = bytes.Repeat([]byte("x\n"), plan.MaxFile/2+1)
		return plan.Change{Op: "deliverable.set", Summary: "deliverable: set"}, nil
	})
	if plan.CodeOf(err) != plan.CodeInvalidArgument || !strings.Contains(err.Error(), "deliverable.md") {
		t.Fatalf("got %v", err)
	}
	if readFile(t, s, plan.PlanFile) != before || repotest.RevCount(t, s.Dir) != 1 {
		t.Fatal("a refused change moved the branch or the files")
	}
	if _, err := os.Stat(filepath.Join(s.Dir, plan.DeliverableFile)); err == nil {
		t.Fatal("the refused deliverable was written")
	}
	repotest.Check(t, s.Dir)
}

// TestHandEditOverTheLimitInPlangitsForm: findings written by hand under
// the limit, but over it in plangit's form (each given its id and time),
// leave nothing to change on top of them: a change is refused with the
// way out named, and repair restores the last revision's copy, keeping
// the person's beside it, after which changes go on.
func TestHandEditOverTheLimitInPlangitsForm(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	var b strings.Builder
	b.WriteString("# Findings\n\n## Insight\n\n")
	for i := 0; b.Len() < plan.MaxFile*3/4; i++ {
		fmt.Fprintf(&b, "### t%d\n\n> x\n\n", i)
	}
	path := filepath.Join(s.Dir, plan.FindingsFile)
	os.WriteFile(path, []byte(b.String()), 0o644)
	head, _ := s.Head()
	_, err := s.Update(Options{}, step("1", plan.ActStart))
	if plan.CodeOf(err) != plan.CodePlanParseError || !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "plangit repair") {
		t.Fatalf("a change on top of the edit: %v", err)
	}
	if now, _ := s.Head(); now != head {
		t.Fatal("the refused change moved the branch")
	}
	rep, err := s.Repair(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Restored) != 1 || rep.Restored[0].File != plan.FindingsFile || !strings.Contains(rep.Restored[0].Problem, "in plangit's form") {
		t.Fatalf("restored %+v", rep.Restored)
	}
	if kept, err := os.ReadFile(rep.Restored[0].KeptAt); err != nil || string(kept) != b.String() {
		t.Fatalf("the person's copy is not kept whole at %s: %v", rep.Restored[0].KeptAt, err)
	}
	mustUpdate(t, s, step("1", plan.ActStart))

	// The same file committed with git by hand: a change that does not
	// touch findings is refused all the same, with repair named, and
	// repair puts back the newest revision whose files fit.
	os.WriteFile(path, []byte(b.String()), 0o644)
	repotest.Git(t, s.Dir, "-c", "user.name=P", "-c", "user.email=p@example.com", "commit", "-qam", "by hand")
	_, err = s.Update(Options{}, step("1", plan.ActDone))
	if plan.CodeOf(err) != plan.CodePlanParseError || !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "the session's findings.md is") || !strings.Contains(err.Error(), "plangit repair") {
		t.Fatalf("a change on top of the commit: %v", err)
	}
	if rep, err = s.Repair(Options{}); err != nil || rep.ReadBack == nil {
		t.Fatalf("repair: %+v %v", rep, err)
	}
	mustUpdate(t, s, step("1", plan.ActDone))
	repotest.Check(t, s.Dir)
}

func TestFailuresTellTheTruth(t *testing.T) {
	t.Parallel()
	t.Run("before the branch moves: an error, and nothing changed", func(t *testing.T) {
		s := newTestSession(t)
		before := readFile(t, s, plan.PlanFile)
		os.Remove(s.work.intentPath())
		os.MkdirAll(filepath.Join(s.work.intentPath(), "x"), 0o755) // the record cannot be written
		_, err := s.Update(Options{}, step("1", plan.ActStart))
		os.RemoveAll(s.work.intentPath())
		if plan.CodeOf(err) != plan.CodeIOError {
			t.Fatalf("got %v", err)
		}
		if readFile(t, s, plan.PlanFile) != before || repotest.RevCount(t, s.Dir) != 1 {
			t.Fatal("a failed change touched the files or the branch")
		}
		if res, err := s.Update(Options{}, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil }); err != nil || res.Adopted != nil {
			t.Fatalf("the failed change was committed later: %+v %v", res, err)
		}
	})
	t.Run("after the branch moved: success, with a warning", func(t *testing.T) {
		s := newTestSession(t)
		var warned []string
		s.OnWarning(func(m string) { warned = append(warned, m) })
		index := filepath.Join(s.gitDir, indexName)
		os.Remove(index)
		os.Mkdir(index, 0o755) // the index cannot be written
		res, err := s.Update(Options{}, step("1", plan.ActStart))
		if err != nil || res.Commit == nil || len(warned) == 0 {
			t.Fatalf("%+v %v %q", res, err, warned)
		}
		if head, _ := s.Head(); head != res.Commit.Hash {
			t.Fatal("the reported revision is not HEAD")
		}
		os.Remove(index)
		if _, err := s.Update(Options{}, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil }); err != nil {
			t.Fatal(err)
		}
	})
}

func TestQueueAppliesEventsInOrderOnce(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	var applied []string
	replay := func(w *Session) func(*Batch, []byte) error {
		return func(b *Batch, rec []byte) error {
			_, err := b.Apply(Options{Meta: Meta{Actor: "hook"}}, func(st *plan.State) (plan.Change, error) {
				applied = append(applied, string(rec))
				_, err := st.Plan.AddStep(plan.StepSpec{Text: string(rec)}, t0)
				return plan.Change{Op: "sync", Summary: "sync: " + string(rec)}, err
			})
			return err
		}
	}
	for i := 0; i < 5; i++ {
		if err := s.Enqueue([]byte("queued " + strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	if !s.Queued() {
		t.Fatal("Queued is false")
	}
	// A drainer killed after its batch committed, before saving progress:
	// the next applies nothing twice.
	w, _ := s.Project.Open(s.ID)
	w.OnQueued(replay(w), 0)
	head, _ := w.readRef()
	unlock, _ := w.lk.take(time.Second, nil)
	records, from, _ := pending(w)
	if n, err := applyBatch(w, records, from); err != nil || n != len(records) {
		t.Fatalf("applied %d: %v", n, err)
	}
	writeProgress(w, from, records[len(records)-1].end, head) // as if killed before the last write
	unlock()
	applied = nil
	r, _ := s.Project.Open(s.ID)
	r.OnQueued(replay(r), 0)
	r.CatchUp()
	if len(applied) != 0 || s.Queued() {
		t.Fatalf("applied again: %q; queued: %v", applied, s.Queued())
	}
	st, _ := s.State()
	var texts []string
	for _, x := range st.Plan.Steps()[3:] {
		texts = append(texts, x.Text)
	}
	if strings.Join(texts, ",") != "queued 0,queued 1,queued 2,queued 3,queued 4" {
		t.Fatalf("steps %q", texts)
	}
	if n := repotest.RevCount(t, s.Dir); n != 2 {
		t.Fatalf("%d revisions: the batch is one commit", n)
	}
	if msg := repotest.Git(t, s.Dir, "log", "-1", "--format=%s"); !strings.HasPrefix(msg, "5 queued hook events: sync: queued 0; sync: queued 1; sync: queued 2; and 2 more") {
		t.Fatalf("summary %q", msg)
	}
}

func TestYieldingChangeStopsWaitingBehindAQueue(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	other, _ := s.Project.Open(s.ID)
	unlock, err := other.lk.take(time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := s.Enqueue([]byte("x")); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(s.PrivatePath(queueName))
	start := time.Now()
	_, err = s.Update(Options{LockWait: 5 * time.Second, Yield: true}, step("1", plan.ActStart))
	if plan.CodeOf(err) != plan.CodeLockTimeout || time.Since(start) > 2*time.Second {
		t.Fatalf("a yielding change waited behind a queue: %v after %s", err, time.Since(start))
	}
}
