package hooks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// behindNote is how the agent is told its todo list is behind the plan.
const behindNote = "Your todo list is behind the plan, which keeps its state"

// todoList is a TodoWrite input: content and status pairs, as Claude
// Code's TodoWrite sends them ({"todos":[{content,status,activeForm}]}).
func todoList(items ...string) map[string]any {
	var todos []any
	for i := 0; i+1 < len(items); i += 2 {
		todos = append(todos, map[string]any{"content": items[i], "status": items[i+1], "activeForm": "Working on " + items[i]})
	}
	return map[string]any{"todos": todos}
}

// TestStaleTodoListKeepsThePlan is issue 51's "a stale todo list undoes
// progress", replayed: after plangit step done 2, the agent's next
// TodoWrite carrying its older list must not put step 2 back in progress
// nor drop its result. Claude Code's TodoWrite replaces the whole list
// each call, so an older list is the model's memory of the list, not
// news: sync.go's case 3. The seed (004, the planning service, §2.2 核心
// 概念) puts the in-context list and the plan file side by side, "Context
// Window (RAM) … 易失 ◄──同步──► File System (Disk) … 持久", with
// "syncToTodoWrite: boolean; // 是否同步到内存 TodoWrite": the file is
// the lasting record, and the volatile list is brought up to it, not the
// other way round.
func TestStaleTodoListKeepsThePlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	write := func(items ...string) string {
		return f.send(PostToolUse, map[string]any{"tool_name": "TodoWrite", "tool_input": todoList(items...), "tool_response": map[string]any{}})
	}
	write("Read the service", "in_progress", "Write the cache", "pending", "Test the cache", "pending")
	older := []string{"Read the service", "completed", "Write the cache", "in_progress", "Test the cache", "pending"}
	write(older...)
	if s := f.step("2"); s.Status != plan.StepInProgress {
		t.Fatalf("the list's own start: step 2 %s", s.Status)
	}
	// The agent completes step 2 with plangit, its todo list untouched.
	f.changeAs(repo.Meta{Actor: "agent", Agent: "alpha"}, true, sessionID, func(p *plan.Plan) (plan.Change, error) {
		return p.Transition("2", plan.ActDone, plan.TransitionOpts{Result: "cache in internal/cache"}, f.now)
	})
	n := len(f.revisions(sessionID))

	out := write(older...)
	if s := f.step("2"); s.Status != plan.StepCompleted || s.Result != "cache in internal/cache" {
		t.Errorf("the older list undid step 2: %s, result %q", s.Status, s.Result)
	}
	if !strings.Contains(out, behindNote+`: "Write the cache" (step 2) is completed in the plan (by alpha, 1m ago, revision `) ||
		!strings.Contains(out, "Update your list to match the plan.") {
		t.Errorf("the agent is not told its list is behind: %s", out)
	}
	if got := len(f.revisions(sessionID)); got != n {
		t.Errorf("the older list committed: %d revisions, not %d", got, n)
	}
	f.newTurn(sessionID)
	if out := write(older...); strings.Contains(out, "behind") {
		t.Errorf("told twice: %s", out)
	}
	if s := f.step("2"); s.Status != plan.StepCompleted {
		t.Errorf("the same older list again: step 2 %s", s.Status)
	}

	// A newer list, caught up and moving on, applies.
	if out := write("Read the service", "completed", "Write the cache", "completed", "Test the cache", "in_progress"); strings.Contains(out, "behind") {
		t.Errorf("a list caught up is told it is behind: %s", out)
	}
	if s := f.step("3"); s.Status != plan.StepInProgress {
		t.Errorf("the newer list's start: step 3 %s", s.Status)
	}
	// Once the list has agreed, its own step back is its word (case 1):
	// the agent reopens its item.
	write("Read the service", "completed", "Write the cache", "in_progress", "Test the cache", "in_progress")
	if s := f.step("2"); s.Status != plan.StepInProgress {
		t.Errorf("the list's own reopen: step 2 %s", s.Status)
	}
	if st := f.state(sessionID); len(st.Plan.Steps()) != 3 {
		t.Errorf("%d steps", len(st.Plan.Steps()))
	}
}

// TestStaleTodoListCases: the other ways a list is behind, and the ways
// it is not (sync.go's cases).
func TestStaleTodoListCases(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T) (*fixture, func(items ...string) string) {
		f := newFixture(t)
		write := func(items ...string) string {
			return f.send(PostToolUse, map[string]any{"tool_name": "TodoWrite", "tool_input": todoList(items...), "tool_response": map[string]any{}})
		}
		write("Read", "completed", "Write", "in_progress", "Test", "pending")
		return f, write
	}
	act := func(f *fixture, meta repo.Meta, id string, a plan.Action) {
		f.t.Helper()
		if err := f.changeAs(meta, true, sessionID, func(p *plan.Plan) (plan.Change, error) {
			return p.Transition(id, a, plan.TransitionOpts{Reason: "not needed", Force: true, NoRetry: true}, f.now)
		}); err != nil {
			f.t.Fatal(err)
		}
	}
	person := repo.Meta{Actor: "user"}
	t.Run("a step the plan started, still pending in the list", func(t *testing.T) {
		f, write := setup(t)
		act(f, person, "3", plan.ActStart)
		out := write("Read", "completed", "Write", "in_progress", "Test", "pending")
		if s := f.step("3"); s.Status != plan.StepInProgress {
			t.Errorf("step 3 %s", s.Status)
		}
		if !strings.Contains(out, `"Test" (step 3) is in progress in the plan (by the person, `) {
			t.Errorf("%s", out)
		}
	})
	t.Run("skipped and failed in the plan", func(t *testing.T) {
		f, write := setup(t)
		act(f, person, "2", plan.ActFail)
		act(f, person, "3", plan.ActSkip)
		out := write("Read", "completed", "Write", "in_progress", "Test", "in_progress")
		if w, x := f.step("2"), f.step("3"); w.Status != plan.StepFailed || x.Status != plan.StepSkipped || x.Reason != "not needed" {
			t.Errorf("step 2 %s, step 3 %s (%s)", w.Status, x.Status, x.Reason)
		}
		if !strings.Contains(out, `"Write" (step 2) is failed in the plan`) || !strings.Contains(out, `"Test" (step 3) is skipped in the plan`) {
			t.Errorf("%s", out)
		}
	})
	t.Run("a person's reopen", func(t *testing.T) {
		f, write := setup(t)
		// The list still saying completed after the person reopened
		// step 1 is older than the reopen: step 1 stays pending.
		act(f, person, "1", plan.ActReopen)
		if out := write("Read", "completed", "Write", "in_progress", "Test", "pending"); !strings.Contains(out, `"Read" (step 1) is pending in the plan (by the person, `) {
			t.Errorf("%s", out)
		}
		if s := f.step("1"); s.Status != plan.StepPending {
			t.Errorf("the stale list undid the reopen: %s", s.Status)
		}
		// The list showing it pending again agrees: not behind.
		if out := write("Read", "pending", "Write", "in_progress", "Test", "pending"); strings.Contains(out, "behind") {
			t.Errorf("%s", out)
		}
		// And from there its word is news again.
		write("Read", "completed", "Write", "in_progress", "Test", "pending")
		if s := f.step("1"); s.Status != plan.StepCompleted {
			t.Errorf("step 1 %s", s.Status)
		}
	})
	t.Run("a list new to the plan moves steps forward only", func(t *testing.T) {
		f := newFixture(t)
		f.withPlan(sessionID) // 1 done, 2 in progress, 3 and 4 pending
		out := f.send(PostToolUse, map[string]any{"tool_name": "TodoWrite", "tool_input": todoList(
			"Read the service", "pending", "Design the cache", "completed", "Build the cache layer", "in_progress"), "tool_response": map[string]any{}})
		if a, b, c := f.step("1"), f.step("2"), f.step("3"); a.Status != plan.StepCompleted || a.Result != "3 hot paths" || b.Status != plan.StepCompleted || c.Status != plan.StepInProgress {
			t.Errorf("steps 1-3: %s %q, %s, %s", a.Status, a.Result, b.Status, c.Status)
		}
		if !strings.Contains(out, `"Read the service" (step 1) is completed in the plan`) {
			t.Errorf("%s", out)
		}
	})
	t.Run("auto-advance", func(t *testing.T) {
		f, write := setup(t)
		if err := f.changeAs(repo.Meta{Actor: "hook"}, true, sessionID, func(p *plan.Plan) (plan.Change, error) {
			c, _, err := autoAdvance(p, p.Current(), "", false, f.now)
			return c, err
		}); err != nil {
			t.Fatal(err)
		}
		out := write("Read", "completed", "Write", "in_progress", "Test", "pending")
		if s := f.step("2"); s.Status != plan.StepCompleted {
			t.Errorf("step 2 %s", s.Status)
		}
		if !strings.Contains(out, `"Write" (step 2) is completed in the plan (by the hooks, auto-advance, `) {
			t.Errorf("%s", out)
		}
	})
}

// TestStaleTaskUpdate: Claude Code's TaskUpdate on a task whose step the
// plan completed since is behind too (sync.go: TaskUpdate follows the
// same cases).
func TestStaleTaskUpdate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	f.send(PostToolUse, map[string]any{"tool_name": "TaskCreate", "tool_input": map[string]any{"subject": "Benchmark the cache"},
		"tool_response": map[string]any{"task": map[string]any{"id": "7", "subject": "Benchmark the cache"}}})
	update := func(status string) string {
		return f.send(PostToolUse, map[string]any{"tool_name": "TaskUpdate", "tool_input": map[string]any{"taskId": "7", "status": status}, "tool_response": map[string]any{"success": true}})
	}
	update("in_progress")
	id := ""
	for _, s := range f.state(sessionID).Plan.Steps() {
		if s.Text == "Benchmark the cache" {
			id = s.ID
		}
	}
	if s := f.step(id); s.Status != plan.StepInProgress {
		t.Fatalf("step %s %s", id, s.Status)
	}
	f.change(sessionID, func(p *plan.Plan) (plan.Change, error) {
		return p.Transition(id, plan.ActDone, plan.TransitionOpts{Result: "p99 12ms", Force: true}, f.now)
	})
	if out := update("in_progress"); !strings.Contains(out, behindNote) {
		t.Errorf("%s", out)
	}
	if s := f.step(id); s.Status != plan.StepCompleted || s.Result != "p99 12ms" {
		t.Errorf("%s %q", s.Status, s.Result)
	}
}

// TestStaleTodoListOtherHosts: the todo tools of the other hosts are
// TodoWrite to the sync (Codex's update_plan, Gemini CLI's write_todos,
// Copilot CLI's update_todo), and an older list of theirs is behind in
// the same way; each host's PostToolUse answers with context, which
// carries the note.
func TestStaleTodoListOtherHosts(t *testing.T) {
	t.Parallel()
	hosts := []struct {
		name  string
		host  Host
		event string
		list  func(write, test string) string
		said  func(t *testing.T, out string) string
	}{
		{"codex", Codex{}, "PostToolUse", func(w, x string) string {
			return `{"session_id":"{{SESSION}}","cwd":"{{CWD}}","hook_event_name":"PostToolUse","tool_name":"update_plan","tool_use_id":"call_1",
				"tool_input":{"plan":[{"step":"Write the cache","status":"` + w + `"},{"step":"Test the cache","status":"` + x + `"}]},"tool_response":"Plan updated"}`
		}, func(t *testing.T, out string) string { return codexSaid(checkCodex(t, "PostToolUse", out)) }},
		{"gemini", Gemini{}, "AfterTool", func(w, x string) string {
			return `{"session_id":"{{SESSION}}","cwd":"{{CWD}}","hook_event_name":"AfterTool","tool_name":"write_todos",
				"tool_input":{"todos":[{"description":"Write the cache","status":"` + w + `"},{"description":"Test the cache","status":"` + x + `"}]},
				"tool_response":{"llmContent":"Successfully updated the todo list."}}`
		}, func(t *testing.T, out string) string { return geminiSaid(checkGemini(t, "AfterTool", out)) }},
		{"copilot", Copilot{}, "postToolUse", func(w, x string) string {
			box := map[string]string{"completed": "x", "in_progress": " ", "pending": " "}
			return `{"sessionId":"{{SESSION}}","timestamp":1795687200000,"cwd":"{{CWD}}","toolName":"update_todo",
				"toolArgs":{"todos":"- [` + box[w] + `] Write the cache\n- [` + box[x] + `] Test the cache"},"toolResult":{"resultType":"success","textResultForLlm":"TODO list updated"}}`
		}, func(t *testing.T, out string) string {
			var a struct {
				Context string `json:"additionalContext"`
			}
			if err := json.Unmarshal([]byte(out), &a); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			return a.Context
		}},
	}
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			f := newHostFixture(t)
			f.sendTo(h.host, h.event, []byte(h.list("in_progress", "pending")))
			st := f.state(sessionID)
			if n := len(st.Plan.Steps()); n != 2 {
				t.Fatalf("%d steps", n)
			}
			f.change(sessionID, func(p *plan.Plan) (plan.Change, error) {
				return p.Transition("1", plan.ActDone, plan.TransitionOpts{Result: "written", Force: true}, f.now)
			})
			out := h.said(t, f.sendTo(h.host, h.event, []byte(h.list("in_progress", "pending"))))
			if s := f.step("1"); s.Status != plan.StepCompleted || s.Result != "written" {
				t.Errorf("the older list undid step 1: %s %q", s.Status, s.Result)
			}
			if !strings.Contains(out, behindNote+`: "Write the cache" (step 1) is completed in the plan`) {
				t.Errorf("not told: %s", out)
			}
		})
	}
}
