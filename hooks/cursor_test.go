package hooks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// Cursor's answers, by its hooks reference (cursor.com/docs/hooks,
// "Reference"): sessionStart env and additional_context; beforeSubmitPrompt
// continue and user_message; preToolUse permission, user_message,
// agent_message, updated_input; postToolUse updated_mcp_tool_output and
// additional_context; postToolUseFailure nothing (yet); stop and
// subagentStop followup_message; preCompact user_message; sessionEnd
// nothing. additional_context on beforeSubmitPrompt, preToolUse and
// postToolUseFailure comes from Cursor's client, whose list of events that
// take context names them (read from the 2026.07.23 bundle, deja-vu#3052).
var cursorContract = map[string]map[string]byte{
	SessionStart:       {"env": 'o', "additional_context": 's'},
	UserPromptSubmit:   {"continue": 'b', "user_message": 's', "additional_context": 's'},
	PreToolUse:         {"permission": 's', "user_message": 's', "agent_message": 's', "updated_input": 'o', "additional_context": 's'},
	PostToolUse:        {"updated_mcp_tool_output": 'o', "additional_context": 's'},
	PostToolUseFailure: {"additional_context": 's'},
	Stop:               {"followup_message": 's'},
	SubagentStop:       {"followup_message": 's'},
	PreCompact:         {"user_message": 's'},
	SessionEnd:         {},
}

// cursor sends a Cursor fixture through Cursor's own hook (plangit hook
// EVENT --host cursor) and checks the answer against Cursor's contract.
func (f *fixture) cursor(name string) map[string]any {
	f.t.Helper()
	path := "cursor/" + name + ".json"
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", path))
	if err != nil {
		f.t.Fatal(err)
	}
	in, err := Cursor{}.Decode("", b)
	if err != nil {
		f.t.Fatal(err)
	}
	out := f.runAs(Cursor{}, "", path)
	return answer(f.t.(*testing.T), name, out, cursorContract[in.Event])
}

func TestCursorSession(t *testing.T) {
	t.Parallel()
	f := newHostFixture(t)
	if a := f.cursor("session_start"); a != nil {
		t.Errorf("no plan anywhere, yet: %v", a)
	}
	if a := f.cursor("before_submit_prompt"); a != nil && a["additional_context"] != nil {
		t.Errorf("the first prompt starts no plan: the agent may answer it without a tool: %v", a)
	}
	a := f.cursor("post_tool_use_shell")
	ctx, _ := a["additional_context"].(string)
	if !strings.Contains(ctx, "Plan started from the request") || !strings.Contains(ctx, "plangit --session "+sessionID+" step add") {
		t.Fatalf("the agent's first tool starts the plan, reached with --session: %v", a)
	}
	if strings.Contains(ctx, "[Step]") || strings.Contains(ctx, "TodoWrite") {
		t.Errorf("Cursor's stop has no message to read [Step] lines from, and its todo tool is not read: %s", ctx)
	}
	if st := f.state(sessionID); st.Plan.Goal != "Add a cache to the user service" {
		t.Fatalf("the session is the conversation, under workspace_roots[0]: %+v", st.Plan)
	}
	f.addSteps(sessionID, "Read the user service", "Add the cache", "Test it")

	a = f.cursor("pre_tool_use_shell")
	f.golden("cursor_pre_tool_use_shell", f.lastOut(a))
	if _, ok := a["permission"]; ok {
		t.Errorf("a reminder is no decision: %v", a)
	}
	if a := f.cursor("post_tool_use_read"); a != nil {
		t.Errorf("one look-up: %v", a)
	}
	if a := f.cursor("post_tool_use_grep"); !strings.Contains(a["additional_context"].(string), "2 look-ups since your last finding") {
		t.Errorf("the 2-action rule: %v", a)
	}
	f.cursor("pre_tool_use_write")
	if a := f.cursor("post_tool_use_write"); !strings.Contains(a["additional_context"].(string), "You changed files during step 1") {
		t.Errorf("a Write is a write tool: %v", a)
	}
	if a := f.cursor("post_tool_use_shell"); a != nil {
		t.Errorf("a command that exited 0: %v", a)
	}
	// A Shell command that exited 1, reported as a successful tool use,
	// is a failure: three of them are the third strike.
	f.cursor("post_tool_use_shell_exit")
	f.cursor("post_tool_use_shell_exit")
	a = f.cursor("post_tool_use_shell_exit")
	f.golden("cursor_post_tool_use_strike", f.lastOut(a))
	errs := f.state(sessionID).Errors
	if len(errs) != 1 || errs[0].Tool != "Bash" || errs[0].Key != "go test ./..." || errs[0].Count != 3 || !strings.HasPrefix(errs[0].Message, "Exit code 1\n--- FAIL: TestCache") {
		for _, e := range errs {
			t.Logf("%+v", *e)
		}
		t.Fatalf("errors")
	}
	// postToolUseFailure: a timeout is an error, a denial is none.
	f.cursor("post_tool_use_failure_shell")
	f.cursor("post_tool_use_failure_denied")
	errs = f.state(sessionID).Errors
	if len(errs) != 2 || !slices.ContainsFunc(errs, func(e *plan.ErrorRecord) bool { return e.Message == "Command timed out after 30s" && e.Count == 1 }) {
		for _, e := range errs {
			t.Logf("%+v", *e)
		}
		t.Fatalf("errors")
	}

	// The turn worked on the plan: the stop is held once, by a follow-up.
	a = f.cursor("stop")
	f.golden("cursor_stop", f.lastOut(a))
	if !strings.Contains(a["followup_message"].(string), "plangit --session "+sessionID+" step done ID") {
		t.Errorf("the follow-up names the session: %v", a)
	}
	// Cursor sends the follow-up as the next prompt; the stop after it
	// (loop_count 1) is let through, as is an aborted one.
	f.cursor("before_submit_prompt_followup")
	if a := f.cursor("stop_followup"); a != nil {
		t.Errorf("already continuing: %v", a)
	}
	f.cursor("before_submit_prompt_followup")
	if a := f.cursor("stop_aborted"); a != nil {
		t.Errorf("an aborted turn is not held: %v", a)
	}
	// A subagent's summary carries [Step] lines; its stop is never held.
	if a := f.cursor("subagent_stop"); a != nil {
		t.Errorf("subagent: %v", a)
	}
	if steps := f.state(sessionID).Plan.Steps(); len(steps) != 4 || steps[3].Text != "Benchmark the hot paths" {
		t.Errorf("the subagent's [Step] line: %d steps", len(steps))
	}
	revs := len(f.revisions(sessionID))
	if a := f.cursor("pre_compact"); a != nil {
		t.Errorf("preCompact: %v", a)
	}
	f.cursor("session_end")
	if got := f.revisions(sessionID); len(got) <= revs || got[revs].Summary != "checkpoint: before compaction (auto)" {
		t.Errorf("a checkpoint before compaction: %+v", got[len(got)-1])
	}
	if log := f.log(); log != "" {
		t.Errorf("the hooks logged failures: %s", log)
	}
}

// lastOut writes an answer back as JSON for a golden file.
func (f *fixture) lastOut(a map[string]any) string {
	if a == nil {
		return ""
	}
	return string(mustJSON(f.t, a)) + "\n"
}

func TestCursorAnswers(t *testing.T) {
	t.Parallel()
	t.Run("plan confirmation denies, since Cursor does not enforce ask", func(t *testing.T) {
		f := newHostFixture(t)
		f.config(`{"plan_confirmation": true}`)
		f.cursor("before_submit_prompt")
		f.agentActs()
		a := f.cursor("pre_tool_use_write")
		if a["permission"] != "deny" || !strings.Contains(a["agent_message"].(string), "awaits approval") || !strings.Contains(a["user_message"].(string), "Cursor cannot ask") {
			t.Errorf("%v", a)
		}
		if _, ok := a["additional_context"]; ok {
			t.Errorf("context goes with the denial, once: %v", a)
		}
	})
	t.Run("iteration limit is said, not enforced", func(t *testing.T) {
		f := newHostFixture(t)
		f.config(`{"max_iterations": 2}`)
		f.cursor("before_submit_prompt")
		f.agentActs()
		f.addSteps(sessionID, "Read the user service")
		f.cursor("post_tool_use_shell")
		a := f.cursor("post_tool_use_shell")
		if !strings.Contains(a["additional_context"].(string), "[plangit] Stop now: plangit paused the plan after 2 tool uses") {
			t.Errorf("%v", a)
		}
		if st := f.state(sessionID); st.Plan.Status != plan.PlanPaused {
			t.Errorf("status %s", st.Plan.Status)
		}
	})
	t.Run("a payload with a BOM, the event only on the command line", func(t *testing.T) {
		f := newHostFixture(t)
		f.withPlan(sessionID)
		out := f.sendTo(Cursor{}, "sessionStart", []byte("\xef\xbb\xbf"+`{"conversation_id":"{{SESSION}}","workspace_roots":["{{CWD}}"]}`))
		if a := answer(t, "sessionStart", out, cursorContract[SessionStart]); !strings.Contains(a["additional_context"].(string), "Your plan (session "+sessionID) {
			t.Errorf("%s", out)
		}
	})
	t.Run("bad input answers nothing", func(t *testing.T) {
		f := newHostFixture(t)
		f.withPlan(sessionID)
		for _, p := range []string{`not json`, `{"hook_event_name":"beforeShellExecution","conversation_id":"{{SESSION}}"}`, `{"hook_event_name":"stop","loop_count":"x","conversation_id":1}`} {
			if out := f.sendTo(Cursor{}, "stop", []byte(p)); out != "" {
				t.Errorf("%s: %s", p, out)
			}
		}
	})
}
