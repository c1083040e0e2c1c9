package repo

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
)

func addStep(text string) func(*plan.State) (plan.Change, error) {
	return func(st *plan.State) (plan.Change, error) {
		s, err := st.Plan.AddStep(plan.StepSpec{Text: text}, t0)
		if err != nil {
			return plan.Change{}, err
		}
		return plan.Change{Op: "step.add", Step: s.ID, Summary: "step " + s.ID + " added: " + text}, nil
	}
}

// addFinding records a code finding, "about TITLE".
func addFinding(title string) func(*plan.State) (plan.Change, error) {
	return func(st *plan.State) (plan.Change, error) {
		f, err := st.AddFinding(plan.Finding{Category: plan.CatCode, Title: title, Content: "about " + title}, t0)
		return plan.Change{Op: "finding.add", Summary: "finding " + f.ID}, err
	}
}

func mustUpdate(t *testing.T, s *Session, fn func(*plan.State) (plan.Change, error)) *Result {
	t.Helper()
	res, err := s.Update(Options{Now: t0.Add(time.Minute)}, fn)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func stepText(t *testing.T, st *plan.State, id string) (string, plan.StepStatus) {
	t.Helper()
	s, _, err := st.Plan.Step(id)
	if err != nil {
		return "", ""
	}
	return s.Text, s.Status
}

// An editor that opened task_plan.md before the agent's last changes
// saves its old copy with a step added by hand: the agent's step and
// completion stay, the hand step gets an id never given, and the revision
// says which copy the edit was made on. Reading before the change shows
// the same.
func TestStaleSaveKeepsLaterChanges(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	path := filepath.Join(s.Dir, plan.PlanFile)
	stale := readFile(t, s, plan.PlanFile) // the editor's copy

	mustUpdate(t, s, addStep("agent step")) // step 4
	mustUpdate(t, s, step("1", plan.ActDone))

	edited := strings.Replace(stale, "\n<!-- plangit", "- [ ] hand step\n\n<!-- plangit", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	// Before any change, a reader sees the plan as the change will adopt
	// it: the agent's work is not shown undone.
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := stepText(t, st, "4"); text != "agent step" {
		t.Errorf("read before adoption: step 4 is %q", text)
	}
	if _, status := stepText(t, st, "1"); status != plan.StepCompleted {
		t.Errorf("read before adoption: step 1 is %s", status)
	}
	if text, _ := stepText(t, st, "5"); text != "hand step" {
		t.Errorf("read before adoption: step 5 is %q", text)
	}
	res := mustUpdate(t, s, step("2", plan.ActStart))
	if res.Adopted == nil {
		t.Fatal("the edit was not adopted")
	}
	if !strings.Contains(res.Adopted.Change.Summary, "made on") || !strings.Contains(res.Adopted.Change.Summary, "the 2 revisions since kept") {
		t.Errorf("the revision does not say the edit was of an older copy: %q", res.Adopted.Change.Summary)
	}
	st, err = s.State()
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := stepText(t, st, "4"); text != "agent step" {
		t.Errorf("the agent's step 4 is %q", text)
	}
	if _, status := stepText(t, st, "1"); status != plan.StepCompleted {
		t.Errorf("the agent's completion of step 1 was undone: %s", status)
	}
	if _, status := stepText(t, st, "2"); status != plan.StepInProgress {
		t.Errorf("step 2 is %s", status)
	}
	if text, _ := stepText(t, st, "5"); text != "hand step" {
		t.Errorf("the hand step is not step 5: %q\n%s", text, readFile(t, s, plan.PlanFile))
	}
}

// Where the person and the agent changed the same field, the person's
// value wins, and the revision names the field.
func TestStaleSavePersonWinsOnSameField(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	path := filepath.Join(s.Dir, plan.PlanFile)
	stale := readFile(t, s, plan.PlanFile)
	mustUpdate(t, s, func(st *plan.State) (plan.Change, error) {
		if _, err := addStep("later")(st); err != nil {
			return plan.Change{}, err
		}
		return st.Plan.EditStep("3", plan.StepEdit{Text: ptr("Build it the agent's way")}, t0)
	})

	edited := strings.Replace(stale, "○ Build", "○ Build it by hand", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustUpdate(t, s, step("1", plan.ActStart))
	if res.Adopted == nil || !strings.Contains(res.Adopted.Change.Summary, "but where the person's copy won: step 3 text") {
		t.Fatalf("adopted: %+v", res.Adopted)
	}
	st, _ := s.State()
	if text, _ := stepText(t, st, "3"); text != "Build it by hand" {
		t.Errorf("step 3 is %q", text)
	}
	if text, _ := stepText(t, st, "4"); text != "later" {
		t.Errorf("step 4 is %q", text)
	}
	if len(st.Conflicts()) != 0 {
		t.Errorf("conflicts left: %+v", st.Conflicts())
	}
}

// An edit of the current copy is taken as it stands: removing a step by
// hand removes it, and no older revision is mistaken for its base.
func TestEditOfCurrentCopyStands(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	path := filepath.Join(s.Dir, plan.PlanFile)
	mustUpdate(t, s, addStep("drop me"))
	mustUpdate(t, s, step("1", plan.ActDone))
	cur := readFile(t, s, plan.PlanFile)
	var kept []string
	for _, line := range strings.SplitAfter(cur, "\n") {
		if !strings.Contains(line, "drop me") {
			kept = append(kept, line)
		}
	}
	edited := strings.Replace(strings.Join(kept, ""), "- [x] ● Analyze", "- [ ] ○ Analyze", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustUpdate(t, s, step("2", plan.ActStart))
	if res.Adopted == nil || strings.Contains(res.Adopted.Change.Summary, "made on") {
		t.Fatalf("adopted: %+v", res.Adopted)
	}
	st, _ := s.State()
	if text, _ := stepText(t, st, "4"); text != "" {
		t.Errorf("step 4 removed by hand is back: %q", text)
	}
	if _, status := stepText(t, st, "1"); status != plan.StepPending {
		t.Errorf("step 1 reopened by hand is %s", status)
	}
	if files, _ := s.ReadFiles(); !sameFiles(files, mustTree(t, s)) {
		t.Error("the working files are not the branch's")
	}
}

// An editor's old copy saved back with nothing changed in it is no edit:
// the change that finds it makes its own revision alone, nothing says a
// person changed the plan, the revisions since stay, and the working file
// holds the branch's again. A command that changes nothing brings the
// file back too, with no revision at all.
func TestStaleSaveUnchangedIsNoEdit(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	path := filepath.Join(s.Dir, plan.PlanFile)
	stale := readFile(t, s, plan.PlanFile)
	mustUpdate(t, s, addStep("agent step")) // step 4
	mustUpdate(t, s, step("1", plan.ActDone))
	first, _ := s.Head()

	save := func() {
		t.Helper()
		if err := os.WriteFile(path, []byte(stale), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	save()
	res := mustUpdate(t, s, step("2", plan.ActStart))
	if res.Adopted != nil {
		t.Errorf("an unchanged old copy was adopted as an edit: %s", res.Adopted.Change.Summary)
	}
	if res.Stale == nil || res.Stale.Files != plan.PlanFile || res.Stale.Base == "" || len(res.Stale.Kept) != 2 || !strings.Contains(res.Stale.Kept[0], "agent step") {
		t.Errorf("stale: %+v", res.Stale)
	}
	if res.Commit == nil {
		t.Fatal("the change made no revision")
	}
	if got, _ := s.Resolve("HEAD~1"); got != first {
		t.Errorf("the change's parent is %s, want %s (one revision, no edit before it)", got, first)
	}
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := stepText(t, st, "4"); text != "agent step" {
		t.Errorf("step 4 is %q", text)
	}
	if _, status := stepText(t, st, "1"); status != plan.StepCompleted {
		t.Errorf("step 1 is %s", status)
	}
	if _, status := stepText(t, st, "2"); status != plan.StepInProgress {
		t.Errorf("step 2 is %s", status)
	}

	second, _ := s.Head()
	save()
	res, err = s.Update(Options{Now: t0.Add(time.Minute)}, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit != nil || res.Adopted != nil || res.Stale == nil {
		t.Errorf("a change of nothing on an old copy: %+v", res)
	}
	if head, _ := s.Head(); head != second {
		t.Errorf("HEAD moved to %s", head)
	}
	if got := readFile(t, s, plan.PlanFile); got != string(mustFiles(t, s, "HEAD")[plan.PlanFile]) || got == stale {
		t.Errorf("the working file is not the branch's:\n%s", got)
	}
	if files, _ := s.ReadFiles(); !sameFiles(files, mustTree(t, s)) {
		t.Error("the working files are not the branch's")
	}
	if got := slices.DeleteFunc(summaries(t, s), func(sum string) bool { return !strings.HasPrefix(sum, "edit:") }); len(got) > 0 {
		t.Errorf("an edit revision: %q", got)
	}
}

func ptr[T any](v T) *T { return &v }

// TestStaleSaveCampaign runs an agent's changes while a person keeps
// saving stale copies of task_plan.md with a step added by hand: no change
// the agent was told succeeded is lost, and no id is given twice.
func TestStaleSaveCampaign(t *testing.T) {
	t.Parallel()
	runs, changes := 1, 20
	if repotest.Long() {
		runs, changes = 10, 100 // 1,000 acknowledged changes
	}
	for run := range runs {
		t.Run(strconv.Itoa(run), func(t *testing.T) { staleSaveRun(t, changes) })
	}
}

func staleSaveRun(t *testing.T, changes int) {
	s := newMemorySession(t)
	path := filepath.Join(s.Dir, plan.PlanFile)
	added := map[string]string{} // acknowledged step id → text
	var done []string            // acknowledged completions
	stop := make(chan struct{})
	saved := make(chan int, 1)
	var once sync.Once
	halt := func() int {
		once.Do(func() { close(stop) })
		return <-saved
	}
	t.Cleanup(func() { halt() })
	go func() { // the person
		defer close(saved)
		n := 0
		for {
			copy, err := os.ReadFile(path)
			if err != nil {
				t.Error(err)
				return
			}
			select {
			case <-stop:
				saved <- n
				return
			case <-time.After(3 * time.Millisecond):
			}
			n++
			line := fmt.Sprintf("- [ ] hand %d\n\n<!-- plangit", n)
			edited := strings.Replace(string(copy), "\n<!-- plangit", line, 1)
			tmp := path + ".editor"
			if err := os.WriteFile(tmp, []byte(edited), 0o644); err != nil {
				t.Error(err)
				return
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Error(err)
				return
			}
			// The editor reloads once plangit has taken the edit in (the
			// step has its id). It must not reload on any change it sees:
			// while a change lands over a file saved that instant, the
			// change's copy stands at the path for an instant before the
			// person's is put back (see landFileOnce), and a copy taken
			// then lacks the person's own line.
			taken := fmt.Sprintf("hand %d `", n)
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
				if b, _ := os.ReadFile(path); strings.Contains(string(b), taken) || stopped(stop) {
					break // the last save is taken in by the change after the agent's last
				}
				if time.Now().After(deadline) {
					t.Errorf("the person's save %d was not taken in within 10 s", n)
					break
				}
			}
		}
	}()
	// A change refused because the files kept changing under it is not
	// acknowledged; the agent tries it again, as an agent would.
	retried := 0
	update := func(fn func(*plan.State) (plan.Change, error)) *Result {
		for {
			res, err := s.Update(Options{}, fn)
			if plan.HasCode(err, plan.CodeConflict) {
				retried++
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
	}
	for i := range changes {
		// An agent's changes come a moment apart: in memory, the store
		// would land them all before the person's first save.
		time.Sleep(time.Millisecond)
		if i%2 == 0 || len(added) == len(done) {
			text := fmt.Sprintf("agent %d", i)
			added[update(addStep(text)).Commit.Change.Step] = text
			continue
		}
		for id := range added {
			if !slices.Contains(done, id) {
				update(step(id, plan.ActDone))
				done = append(done, id)
				break
			}
		}
	}
	hands := halt()
	if _, err := s.Update(Options{}, func(st *plan.State) (plan.Change, error) { return plan.Change{}, nil }); err != nil {
		t.Fatal(err)
	}
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for id, text := range added {
		got, status := stepText(t, st, id)
		if got != text || slices.Contains(done, id) && status != plan.StepCompleted {
			lost++
			t.Errorf("step %s: want %q (done %v), have %q %s", id, text, slices.Contains(done, id), got, status)
		}
	}
	seen := map[string]bool{}
	for _, x := range st.Plan.Steps() {
		if strings.HasPrefix(x.Text, "hand ") {
			if seen[x.Text] {
				t.Errorf("%s twice", x.Text)
			}
			seen[x.Text] = true
		}
	}
	for i := 1; i <= hands; i++ {
		if !seen[fmt.Sprintf("hand %d", i)] {
			lost++
			t.Errorf("the person's save %d of %d is lost; revisions that changed it:\n%s", i, hands,
				strings.Join(summaries(t, s), "\n"))
		}
	}
	if hands == 0 {
		t.Error("the person saved nothing")
	}
	t.Logf("%d acknowledged changes (%d refused and tried again), %d stale saves, %d hand steps kept, %d lost", changes, retried, hands, len(seen), lost)
}

func stopped(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestLinesMissing: the lines a displaced save has that the others lack,
// as multisets, its last line counted with or without a newline, blank
// lines aside.
func TestLinesMissing(t *testing.T) {
	t.Parallel()
	got := linesMissing([]byte("a\nb\nb\n\nc\nd"), []byte("a\nb\n"), []byte("d\n\n"))
	if want := []string{"b", "c"}; !slices.Equal(got, want) {
		t.Errorf("linesMissing = %q, want %q", got, want)
	}
	if got := linesMissing([]byte("a\n"), []byte("a")); len(got) != 0 {
		t.Errorf("a last line without its newline is the same line: %q", got)
	}
	if got := quoteLines([]string{"1", "2", "3"}, 2); got != `"1", "2" and 1 more` {
		t.Errorf("quoteLines = %s", got)
	}
}

// TestReformattingEditAddsNothing: an edit that only reformats
// task_plan.md — CRLF line ends, blanks at the ends of lines, "*" list
// markers, as editors and formatters write them — is read against the
// copy it was made on, the last: no step comes back as new with a fresh
// id, nothing the revisions since did is undone, and no revision says a
// person changed the plan.
func TestReformattingEditAddsNothing(t *testing.T) {
	t.Parallel()
	for name, reformat := range map[string]func(string) string{
		"CRLF":            func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
		"trailing blanks": func(s string) string { return strings.ReplaceAll(s, "\n", " \n") },
		"star markers":    func(s string) string { return strings.ReplaceAll(s, "\n- [", "\n* [") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newMemorySession(t) // steps 1–3
			for _, text := range []string{"four", "five", "six"} {
				mustUpdate(t, s, addStep(text))
			}
			mustUpdate(t, s, step("1", plan.ActStart))
			path := filepath.Join(s.Dir, plan.PlanFile)
			if err := os.WriteFile(path, []byte(reformat(readFile(t, s, plan.PlanFile))), 0o644); err != nil {
				t.Fatal(err)
			}
			res := mustUpdate(t, s, addStep("seven"))
			if res.Adopted != nil || res.Stale == nil || res.Stale.Base != "" {
				t.Errorf("a layout of the person's own: adopted %+v, stale %+v", res.Adopted, res.Stale)
			}
			st, err := s.State()
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, step := range st.Plan.Steps() {
				texts = append(texts, step.ID+" "+step.Text)
			}
			want := []string{"1 Analyze", "2 Design", "3 Build", "4 four", "5 five", "6 six", "7 seven"}
			if !slices.Equal(texts, want) {
				t.Errorf("steps %q, want %q", texts, want)
			}
			if _, status := stepText(t, st, "1"); status != plan.StepInProgress {
				t.Errorf("step 1 %s", status)
			}
		})
	}
}

// TestStaleSaveAfterManyOtherChanges: the revisions that left task_plan.md
// as it was (findings added, 70 of them) do not push an editor's old copy
// out of the base search: the completion made before them stays, and the
// edit is read against the copy it was made on.
func TestStaleSaveAfterManyOtherChanges(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	path := filepath.Join(s.Dir, plan.PlanFile)
	stale := readFile(t, s, plan.PlanFile)
	made, err := s.Last()
	if err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, s, step("1", plan.ActDone))
	for i := range 70 {
		mustUpdate(t, s, func(st *plan.State) (plan.Change, error) {
			f, err := st.AddFinding(plan.Finding{Category: plan.CatCode, Title: fmt.Sprintf("finding %d", i)}, t0)
			if err != nil {
				return plan.Change{}, err
			}
			return plan.Change{Op: "finding.add", Summary: "finding " + f.ID}, nil
		})
	}
	edited := strings.Replace(stale, "\n<!-- plangit", "- [ ] hand step\n\n<!-- plangit", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustUpdate(t, s, step("2", plan.ActStart))
	if res.Adopted == nil || !strings.Contains(res.Adopted.Change.Summary, "made on "+made.Hash[:7]) || !strings.Contains(res.Adopted.Change.Summary, "the 71 revisions since kept") {
		t.Errorf("the edit is not read against its copy: %+v", res.Adopted)
	}
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	if _, status := stepText(t, st, "1"); status != plan.StepCompleted {
		t.Errorf("the completion made before the findings was undone: %s", status)
	}
	if len(st.Findings) != 70 {
		t.Errorf("%d findings", len(st.Findings))
	}
}

// Finding and error ids are never given twice in a session: not after a
// restore of older files (undo, rollback), not after a record deleted by
// hand, not when the record of the largest ids is lost.
func TestNoteIDsNeverGivenTwice(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	add := func(title string) (finding, errID string) {
		t.Helper()
		mustUpdate(t, s, func(st *plan.State) (plan.Change, error) {
			f, err := st.AddFinding(plan.Finding{Category: plan.CatInsight, Title: title}, t0)
			if err != nil {
				return plan.Change{}, err
			}
			e, err := st.RecordError(plan.ErrorRecord{Tool: "Bash", Message: "failed: " + title}, t0)
			if err != nil {
				return plan.Change{}, err
			}
			finding, errID = f.ID, e.ID
			return plan.Change{Op: "finding.add", Summary: "finding " + f.ID}, nil
		})
		return finding, errID
	}
	add("one")
	restoreTo, _ := s.Head()
	add("two")
	// Back to the files of "one", as undo does.
	if _, err := s.Restore(Options{Now: t0}, func(*plan.State, Base) (map[string][]byte, plan.Change, error) {
		files, err := s.FilesOf(restoreTo)
		return files, plan.Change{Op: "undo", Summary: "undo"}, err
	}); err != nil {
		t.Fatal(err)
	}
	if f, e := add("three"); f != "3" || e != "3" {
		t.Errorf("after a restore: finding %s, error %s; want 3 and 3", f, e)
	}
	// By hand, and with the record of issued ids gone.
	restored, err := s.FilesOf(restoreTo)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{plan.FindingsFile, plan.ErrorsFile} {
		if err := os.WriteFile(filepath.Join(s.Dir, name), restored[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(s.PrivatePath(idsName))
	if f, e := add("four"); f != "4" || e != "4" {
		t.Errorf("after a hand edit: finding %s, error %s; want 4 and 4", f, e)
	}
	if got := changedFiles(t, s, "HEAD~1", "HEAD"); slices.Contains(got, plan.PlanFile) {
		t.Errorf("adding a finding rewrote %s: %s", plan.PlanFile, got)
	}
	// Hook events applied as one batch, after another restore.
	if _, err := s.Restore(Options{Now: t0}, func(*plan.State, Base) (map[string][]byte, plan.Change, error) {
		return restored, plan.Change{Op: "undo", Summary: "undo"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, rec := range []string{"hook one", "hook two"} {
		if err := s.Enqueue([]byte(rec)); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	w, _ := s.Project.Open(s.ID)
	w.OnQueued(func(b *Batch, rec []byte) error {
		_, err := b.Apply(Options{Meta: Meta{Actor: "hook"}}, func(st *plan.State) (plan.Change, error) {
			e, err := st.RecordError(plan.ErrorRecord{Tool: "Bash", Message: string(rec)}, t0)
			if err == nil {
				ids = append(ids, e.ID)
			}
			return plan.Change{Op: "error.add", Summary: "error " + string(rec)}, err
		})
		return err
	}, 0)
	w.CatchUp()
	if strings.Join(ids, ",") != "5,6" {
		t.Errorf("the batch gave errors %q, want 5,6", ids)
	}
	// Records a person adds by hand, without ids, after another restore.
	if _, err := s.Restore(Options{Now: t0}, func(*plan.State, Base) (map[string][]byte, plan.Change, error) {
		return restored, plan.Change{Op: "undo", Summary: "undo"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{plan.FindingsFile: "\n### By hand\n\n> noted\n", plan.ErrorsFile: "\n## Go\n\n> by hand\n"} {
		f, err := os.OpenFile(filepath.Join(s.Dir, name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(text)
		f.Close()
	}
	res := mustUpdate(t, s, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if res.Adopted == nil {
		t.Fatal("the hand edit was not adopted")
	}
	// An edit of findings.md and errors.md leaves task_plan.md alone.
	if got := changedFiles(t, s, res.Adopted.Hash+"~1", res.Adopted.Hash); slices.Contains(got, plan.PlanFile) {
		t.Errorf("the edit rewrote %s: %s", plan.PlanFile, got)
	}
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range st.Findings {
		got = append(got, "finding "+f.ID+" "+f.Title)
	}
	for _, e := range st.Errors {
		got = append(got, "error "+e.ID+" "+e.Tool)
	}
	slices.Sort(got)
	if want := []string{"error 1 Bash", "error 7 Go", "finding 1 one", "finding 5 By hand"}; !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
}

// A person who deletes many steps from the current copy of task_plan.md
// deletes them: the copy's status and machine lines are the last
// revision's, so no older revision, closer by lines, is taken for its
// base, and nothing comes back or is added — even when every revision
// was made in the same second.
func TestDeletingManyStepsOfTheCurrentCopy(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t) // steps 1–3
	for _, text := range []string{"junk 1", "junk 2", "junk 3", "junk 4", "junk 5", "junk 6", "later"} {
		mustUpdate(t, s, addStep(text)) // all in one second
	}
	var kept []string
	for _, line := range strings.SplitAfter(readFile(t, s, plan.PlanFile), "\n") {
		if !strings.Contains(line, "junk") {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(filepath.Join(s.Dir, plan.PlanFile), []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := s.Update(Options{Now: t0.Add(time.Hour)}, step("1", plan.ActStart))
	if err != nil {
		t.Fatal(err)
	}
	if res.Adopted == nil || strings.Contains(res.Adopted.Change.Summary, "made on") {
		t.Fatalf("adopted: %+v; stale: %+v", res.Adopted, res.Stale)
	}
	st, _ := s.State()
	var texts []string
	for _, x := range st.Plan.Steps() {
		texts = append(texts, x.ID+" "+x.Text)
	}
	if want := []string{"1 Analyze", "2 Design", "3 Build", "10 later"}; !slices.Equal(texts, want) {
		t.Errorf("steps %q, want %q", texts, want)
	}
}

// TestNotesEditAfterRollback: after a rollback took a step back, the
// plan file's next step id is below the ids the history issued. A hand
// edit of findings.md alone still leaves task_plan.md as it is: an old
// copy saved back is no edit at all, and a real edit changes findings.md
// alone.
func TestNotesEditAfterRollback(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	first, _ := s.Head()
	mustUpdate(t, s, addStep("taken back"))
	files, err := s.store.ReadFilesAt(hashOf(first))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(Options{}, func(*plan.State, Base) (map[string][]byte, plan.Change, error) {
		return files, plan.Change{Op: "rollback", Summary: "rollback to @1"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, s, addFinding("A"))
	older := readFile(t, s, plan.FindingsFile)
	mustUpdate(t, s, addFinding("B"))
	head, _ := s.Head()
	nothing := func(*plan.State) (plan.Change, error) { return plan.Change{}, nil }

	// The newest finding deleted by hand: the older copy saved back.
	os.WriteFile(filepath.Join(s.Dir, plan.FindingsFile), []byte(older), 0o644)
	res := mustUpdate(t, s, nothing)
	if res.Adopted != nil || res.Commit != nil || res.Stale == nil {
		t.Fatalf("an old copy of findings.md after a rollback: adopted %+v, commit %+v, stale %+v", res.Adopted, res.Commit, res.Stale)
	}
	if now, _ := s.Head(); now != head {
		t.Fatalf("HEAD moved to %s", now)
	}

	// A real edit of findings.md changes findings.md alone.
	os.WriteFile(filepath.Join(s.Dir, plan.FindingsFile), []byte(strings.Replace(readFile(t, s, plan.FindingsFile), "about A", "about A, edited", 1)), 0o644)
	res = mustUpdate(t, s, nothing)
	if res.Adopted == nil {
		t.Fatal("the edit was not adopted")
	}
	if got := changedFiles(t, s, "HEAD~1", "HEAD"); !slices.Equal(got, []string{plan.FindingsFile}) {
		t.Fatalf("the edit changed %q", got)
	}
	// The next step still gets an id the history never gave.
	res = mustUpdate(t, s, addStep("after"))
	if res.Commit.Change.Step != "5" {
		t.Fatalf("the next step is %q, want 5", res.Commit.Change.Step)
	}
	checkClean(t, s)
}

// An editor's old copy of findings.md saved back after the agent added a
// step: task_plan.md, which the person did not touch, is not read as
// their edit of the older revision, so the agent's step is not added a
// second time. The person's change to a finding stands, and the finding
// removed since stays removed.
func TestOldFindingsCopyLeavesLaterSteps(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	mustUpdate(t, s, addFinding("A"))
	mustUpdate(t, s, addFinding("B"))
	older := readFile(t, s, plan.FindingsFile) // the editor's copy
	mustUpdate(t, s, func(st *plan.State) (plan.Change, error) { return st.RemoveFindings([]string{"2"}) })
	mustUpdate(t, s, addStep("agent step")) // step 4
	planBefore := readFile(t, s, plan.PlanFile)

	edited := strings.Replace(older, "about A", "about A, edited", 1)
	os.WriteFile(filepath.Join(s.Dir, plan.FindingsFile), []byte(edited), 0o644)
	res := mustUpdate(t, s, addStep("next")) // step 5
	if res.Adopted == nil {
		t.Fatal("the edit was not adopted")
	}
	if got := changedFiles(t, s, "HEAD~2", "HEAD~1"); !slices.Equal(got, []string{plan.FindingsFile}) {
		t.Errorf("the edit of findings.md changed %q", got)
	}
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, ph := range st.Plan.Phases {
		for _, step := range ph.Steps {
			texts = append(texts, step.ID+" "+step.Text)
		}
	}
	if want := []string{"1 Analyze", "2 Design", "3 Build", "4 agent step", "5 next"}; !slices.Equal(texts, want) {
		t.Errorf("steps %q, want %q\nplan before the edit:\n%s", texts, want, planBefore)
	}
	if len(st.Findings) != 1 || st.Findings[0].ID != "1" || st.Findings[0].Content != "about A, edited" {
		t.Errorf("findings: %+v", st.Findings)
	}
	checkClean(t, s)
}

// A finding deleted by hand from the current copy is deleted, even where
// the copy's lines are closer to a revision from before the newest
// finding (the findings' metadata lines repeat): a revision that lacks a
// finding the copy holds is no base for it.
func TestFindingDeletedByHandIsNoOldCopy(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	finding := func(title, content string) func(*plan.State) (plan.Change, error) {
		return func(st *plan.State) (plan.Change, error) {
			f, err := st.AddFinding(plan.Finding{Category: plan.CatCode, Title: title, Content: content}, t0)
			return plan.Change{Op: "finding.add", Summary: "finding " + f.ID}, err
		}
	}
	mustUpdate(t, s, finding("A", "about A\n\n- one\n- two"))
	mustUpdate(t, s, finding("B", ""))
	cur := readFile(t, s, plan.FindingsFile)
	start := strings.Index(cur, "### A")
	end := strings.Index(cur, "### B")
	os.WriteFile(filepath.Join(s.Dir, plan.FindingsFile), []byte(cur[:start]+cur[end:]), 0o644)
	res := mustUpdate(t, s, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if res.Adopted == nil || res.Since != nil || res.Stale != nil {
		t.Fatalf("the deletion: adopted %+v, since %+v, stale %+v", res.Adopted, res.Since, res.Stale)
	}
	st, _ := s.State()
	if len(st.Findings) != 1 || st.Findings[0].Title != "B" {
		t.Fatalf("findings: %+v", st.Findings)
	}
}

// An old copy of findings.md that changes a finding removed since keeps
// it, and the revision says the person's copy won there.
func TestOldCopyKeepsAFindingRemovedSince(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	mustUpdate(t, s, addFinding("A"))
	mustUpdate(t, s, addFinding("B"))
	older := readFile(t, s, plan.FindingsFile)
	mustUpdate(t, s, func(st *plan.State) (plan.Change, error) { return st.RemoveFindings([]string{"1"}) })
	mustUpdate(t, s, addFinding("C"))
	os.WriteFile(filepath.Join(s.Dir, plan.FindingsFile), []byte(strings.Replace(older, "about A", "about A, still true", 1)), 0o644)
	res := mustUpdate(t, s, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if res.Adopted == nil || !strings.Contains(res.Adopted.Change.Summary, "where the person's copy won: finding 1 kept (removed since)") {
		t.Fatalf("adopted: %+v", res.Adopted)
	}
	st, _ := s.State()
	var got []string
	for _, f := range st.Findings {
		got = append(got, f.ID+" "+f.Content)
	}
	if want := []string{"1 about A, still true", "2 about B", "3 about C"}; !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
}

// An editor's old task_plan.md saved beside a current findings.md, both
// changed by the person: each file is read against its own base, so the
// completion made since the plan's copy stays, and the finding added
// since is changed in place, not added again.
func TestOldPlanBesideCurrentFindings(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	oldPlan := readFile(t, s, plan.PlanFile)
	mustUpdate(t, s, step("1", plan.ActStart))
	mustUpdate(t, s, func(st *plan.State) (plan.Change, error) {
		f, err := st.AddFinding(plan.Finding{Category: plan.CatCode, Title: "T1", Content: "c1", Step: "1"}, t0)
		return plan.Change{Op: "finding.add", Summary: "finding " + f.ID}, err
	})
	mustUpdate(t, s, func(st *plan.State) (plan.Change, error) {
		return st.Plan.Transition("1", plan.ActDone, plan.TransitionOpts{Result: "r1"}, t0)
	})
	os.WriteFile(filepath.Join(s.Dir, plan.PlanFile), []byte(strings.Replace(oldPlan, "○ Design", "○ Design it well", 1)), 0o644)
	os.WriteFile(filepath.Join(s.Dir, plan.FindingsFile), []byte(strings.Replace(readFile(t, s, plan.FindingsFile), "> c1", "> c1 edited", 1)), 0o644)
	res := mustUpdate(t, s, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if res.Adopted == nil || !strings.Contains(res.Adopted.Change.Summary, "task_plan.md made on ") || !strings.Contains(res.Adopted.Change.Summary, ", findings.md on ") {
		t.Fatalf("adopted: %+v", res.Adopted)
	}
	if res.Since != nil {
		// What came since the plan's copy is not all the findings' copy
		// lacked: the summary names each file's base instead.
		t.Errorf("since %+v", res.Since)
	}
	st, _ := s.State()
	if _, status := stepText(t, st, "1"); status != plan.StepCompleted {
		t.Errorf("step 1 is %s: the completion since the plan's copy was undone", status)
	}
	if text, _ := stepText(t, st, "2"); text != "Design it well" {
		t.Errorf("step 2 is %q", text)
	}
	if len(st.Findings) != 1 || st.Findings[0].ID != "1" || st.Findings[0].Content != "c1 edited" {
		t.Errorf("findings: %+v", st.Findings)
	}
}

// A resolved error deleted by hand from the current errors.md is deleted:
// the revision before its resolution, whose block for it had fewer lines,
// shows no sign of being the copy's base (the copy's other records are as
// the last revision has them, and it lacks none added since).
func TestResolvedErrorDeletedByHand(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	for _, key := range []string{"k1", "k2"} {
		mustUpdate(t, s, func(st *plan.State) (plan.Change, error) {
			e, err := st.RecordError(plan.ErrorRecord{Tool: "Bash", Key: key, Message: "failed " + key}, t0)
			return plan.Change{Op: "error.add", Summary: "error " + e.ID}, err
		})
	}
	mustUpdate(t, s, func(st *plan.State) (plan.Change, error) { return st.ResolveErrors([]string{"1"}, "", t0) })
	cur := readFile(t, s, plan.ErrorsFile)
	start := strings.Index(cur, "## Bash ×1 `#1 resolved`")
	end := strings.Index(cur[start+1:], "\n## ")
	edited := cur[:start]
	if end >= 0 {
		edited += cur[start+1+end+1:]
	}
	os.WriteFile(filepath.Join(s.Dir, plan.ErrorsFile), []byte(edited), 0o644)
	res := mustUpdate(t, s, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if res.Adopted == nil || res.Since != nil || res.Stale != nil {
		t.Fatalf("the deletion: adopted %+v, since %+v, stale %+v\n%s", res.Adopted, res.Since, res.Stale, edited)
	}
	st, _ := s.State()
	if len(st.Errors) != 1 || st.Errors[0].ID != "2" {
		t.Fatalf("errors: %+v", st.Errors)
	}
}

// An old errors.md in which the person changed an error the agent logged
// again since: read as the older copy (its count says so), the agent's
// count and time stay and the person's message and resolution win.
func TestOldErrorsCopyAfterARepeat(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	logErr := func(msg string, at time.Time) func(*plan.State) (plan.Change, error) {
		return func(st *plan.State) (plan.Change, error) {
			e, err := st.RecordError(plan.ErrorRecord{Tool: "Bash", Key: "make", Message: msg}, at)
			return plan.Change{Op: "error.add", Summary: "error " + e.ID}, err
		}
	}
	mustUpdate(t, s, logErr("boom 1", t0))
	mustUpdate(t, s, addStep("x"))
	older := readFile(t, s, plan.ErrorsFile)
	mustUpdate(t, s, logErr("boom 7", t0.Add(3*time.Minute)))
	edited := strings.Replace(older, "> boom 1", "> boom, understood", 1)
	edited = strings.Replace(edited, "`#1`", "`#1 resolved`", 1)
	edited = strings.Replace(edited, "\n\n> boom", "\n- resolution: a flaky disk\n\n> boom", 1)
	os.WriteFile(filepath.Join(s.Dir, plan.ErrorsFile), []byte(edited), 0o644)
	res := mustUpdate(t, s, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if res.Adopted == nil || !strings.Contains(res.Adopted.Change.Summary, "made on ") || !strings.Contains(res.Adopted.Change.Summary, "error #1 message") {
		t.Fatalf("adopted: %+v\n%s", res.Adopted, edited)
	}
	st, _ := s.State()
	e := st.Errors.ByID("1")
	if e == nil || e.Count != 2 || !e.Last.Equal(t0.Add(3*time.Minute)) || e.Message != "boom, understood" || !e.Resolved || e.Resolution != "a flaky disk" {
		t.Fatalf("error #1: %+v", e)
	}
}

// A copy without a seal — written by hand, by another tool, or by a
// plangit from before seals — says nothing of the copy it was made on: it
// is read against the last revision, so what it lacks is deleted, as the
// person wrote it (case 2).
func TestUnsealedCopyIsReadAgainstHead(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	old := readFile(t, s, plan.PlanFile)
	mustUpdate(t, s, addStep("Added since"))
	unsealed := old[:strings.LastIndex(old, "\n<!-- plangit sum=")+1]
	if plan.Seal([]byte(unsealed)) != "" {
		t.Fatal("the copy still has its seal")
	}
	os.WriteFile(filepath.Join(s.Dir, plan.PlanFile), []byte(strings.Replace(unsealed, "○ Design", "○ Design it well", 1)), 0o644)
	res := mustUpdate(t, s, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if res.Adopted == nil || res.Since != nil || strings.Contains(res.Adopted.Change.Summary, "made on") {
		t.Fatalf("adopted %+v, since %+v", res.Adopted, res.Since)
	}
	st, _ := s.State()
	if text, _ := stepText(t, st, "2"); text != "Design it well" {
		t.Errorf("step 2 is %q", text)
	}
	if text, _ := stepText(t, st, "4"); text != "" {
		t.Errorf("step 4 (%q) stayed: an unsealed copy was read as an old one", text)
	}
}
