package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/disk"
)

// todoWrite is a PostToolUse payload for TodoWrite, as Claude Code sends it
// (the hooks reference: tool_input is the tool's {"todos": [...]}).
func todoWrite(root string, todos ...[2]string) []byte {
	type todo struct {
		Content    string `json:"content"`
		Status     string `json:"status"`
		ActiveForm string `json:"activeForm"`
	}
	in := struct {
		Todos []todo `json:"todos"`
	}{}
	for _, t := range todos {
		in.Todos = append(in.Todos, todo{t[0], t[1], "Working on " + t[0]})
	}
	b, _ := json.Marshal(map[string]any{"session_id": sessionID, "transcript_path": "/dev/null", "cwd": root,
		"permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": "TodoWrite", "tool_input": in,
		"tool_response": map[string]any{"oldTodos": []any{}, "newTodos": in.Todos}, "tool_use_id": "toolu_01"})
	return b
}

// TestTwoHundredHooksAtOnce fires 200 TodoWrite hooks on one session at
// the same moment, each in its own engine with its own lock descriptor, as
// 200 processes would (process start-up aside: the whole-process
// benchmark measures that). None fails, none is dropped; how long they
// take is logged, not asserted: a timed test fails on a loaded machine,
// and the benchmarks measure speed.
func TestTwoHundredHooksAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	const n = 200
	took := make([]time.Duration, n)
	outs := make([][]byte, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			payload := todoWrite(f.root, [2]string{fmt.Sprintf("todo number %d", i), "pending"})
			<-start
			begin := time.Now()
			out, code := Run(Claude{}, PostToolUse, bytes.NewReader(payload), Env{})
			took[i] = time.Since(begin)
			if code != 0 {
				t.Errorf("hook %d exited %d", i, code)
			}
			outs[i] = out
		}()
	}
	close(start)
	wg.Wait()
	slices.Sort(took)
	t.Logf("200 hooks at once: median %s, 90th percentile %s, slowest %s", took[n/2], took[n*9/10], took[n-1])
	if log := f.log(); log != "" {
		t.Errorf("hooks logged failures:\n%s", log)
	}
	// The next command applies what is still queued.
	s, err := f.proj().Open(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	AttachQueue(s, Env{}, 0)
	s.OnWarning(func(msg string) { t.Errorf("applying what was queued: %s", msg) })
	s.CatchUp()
	if s.Queued() {
		// What the queue holds, how far it was applied, and whether the
		// lock is free now: a lock still held (a release that did not
		// let go) is told from a queue that could not be read.
		q, qerr := os.ReadFile(s.PrivatePath(disk.QueueFile))
		p, perr := os.ReadFile(s.PrivatePath("queue.progress"))
		lock := disk.TryLockSession(filepath.Join(s.GitDir(), disk.PrivateDir))
		if lock != nil {
			disk.Release(lock)
		}
		t.Fatalf("events are still queued: the queue holds %d bytes (%v); its progress is %q (%v); the lock is free now: %v",
			len(q), qerr, p, perr, lock != nil)
	}
	st := f.state(sessionID)
	seen := map[string]int{}
	for _, x := range st.Plan.Steps() {
		seen[x.Text]++
	}
	for i := range n {
		if text := fmt.Sprintf("todo number %d", i); seen[text] != 1 {
			t.Errorf("%q is in the plan %d times", text, seen[text])
		}
	}
}

// TestTodoMapSurvivesUndo is the sequence that once completed the wrong
// step: a todo mapped to step N, an undo, a new step, the todo completed.
func TestTodoMapSurvivesUndo(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.withPlan(sessionID) // steps 1–4
	run := func(payload []byte) {
		t.Helper()
		if _, code := Run(Claude{}, PostToolUse, bytes.NewReader(payload), Env{}); code != 0 {
			t.Fatal("hook failed")
		}
	}
	run(todoWrite(f.root, [2]string{"todo X", "pending"}))
	if x, _, err := f.state(sessionID).Plan.Step("5"); err != nil || x.Text != "todo X" {
		t.Fatalf("todo X is not step 5: %+v %v", x, err)
	}
	last, _ := s.Last()
	files, _ := s.FilesOf(last.Parent)
	if _, err := s.Restore(repo.Options{}, func(*plan.State, repo.Base) (map[string][]byte, plan.Change, error) {
		return files, plan.Change{Op: "undo", Summary: "undo"}, nil
	}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Update(repo.Options{}, func(st *plan.State) (plan.Change, error) {
		added, err := st.Plan.AddStep(plan.StepSpec{Text: "unrelated work"}, t0)
		return plan.Change{Op: "step.add", Step: added.ID, Summary: "add"}, err
	})
	if err != nil || res.Commit.Change.Step != "6" {
		t.Fatalf("the new step reused an id: %+v %v", res, err)
	}
	run(todoWrite(f.root, [2]string{"todo X", "completed"}))
	st := f.state(sessionID)
	if x, _, _ := st.Plan.Step("6"); x.Status != plan.StepPending {
		t.Fatalf("the todo completed another step: %+v", x)
	}
	var found *plan.Step
	for _, x := range st.Plan.Steps() {
		if x.Text == "todo X" {
			found = x
		}
	}
	if found == nil || found.Status != plan.StepCompleted {
		t.Fatalf("todo X: %+v", found)
	}
}

// TestHookWithoutAProjectCreatesNothing sends hooks whose cwd is missing,
// or is a file, and checks nothing was created anywhere.
func TestHookWithoutAProjectCreatesNothing(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	file := filepath.Join(base, "a-file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, cwd := range []string{filepath.Join(base, "gone", "deeper"), file} {
		for _, ev := range []string{PostToolUse, Stop, SessionStart, PreCompact, PostToolUseFailure} {
			payload := todoWrite(cwd, [2]string{"a todo", "pending"})
			payload = bytes.Replace(payload, []byte(`"hook_event_name":"PostToolUse"`), []byte(`"hook_event_name":"`+ev+`"`), 1)
			if out, code := Run(Claude{}, ev, bytes.NewReader(payload), Env{Getwd: func() (string, error) { return base, nil }}); code != 0 || len(out) != 0 {
				t.Errorf("%s in %s: exit %d, %s", ev, cwd, code, out)
			}
		}
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("a hook created %s", strings.Join(names, ", "))
	}
}

// TestQueuedEventsRunTheSameRules queues a Stop with [Step] lines and a
// failure while the session is busy: the next holder applies both.
func TestQueuedEventsRunTheSameRules(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.withPlan(sessionID)
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		s.Locked(time.Second, func() error { close(held); <-release; return nil })
		close(done)
	}()
	<-held
	stop := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done for now.\n[Step] Write the migration guide"}`, sessionID, f.root)
	fail := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make"},"error":"make: *** [all] Error 2"}`, sessionID, f.root)
	for _, p := range []struct{ event, payload string }{{Stop, stop}, {PostToolUseFailure, fail}} {
		if out, code := Run(Claude{}, p.event, strings.NewReader(p.payload), Env{LockWait: 20 * time.Millisecond}); code != 0 || len(out) != 0 {
			t.Fatalf("%s on a busy session: %d %s", p.event, code, out)
		}
	}
	close(release)
	<-done
	f.run("pre_tool_use_bash.json") // any later hook applies them
	st := f.state(sessionID)
	if !slices.ContainsFunc(st.Plan.Steps(), func(x *plan.Step) bool { return x.Text == "Write the migration guide" }) {
		t.Error("the queued Stop's [Step] line was not added")
	}
	if !slices.ContainsFunc(st.Errors, func(e *plan.ErrorRecord) bool { return strings.Contains(e.Message, "[all] Error 2") }) {
		t.Error("the queued failure was not logged")
	}
}
