package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// Copilot CLI's answers, by GitHub's hooks reference
// (content/copilot/reference/hooks-reference.md in github/docs):
// "preToolUse decision control" (permissionDecision, permissionDecisionReason
// — required on deny — and modifiedArgs), "postToolUse output"
// (modifiedResult, additionalContext), postToolUseFailure's and
// sessionStart's additionalContext ("Hook events"), "agentStop /
// subagentStop decision control" (decision, reason; modifiedResponse on
// subagentStop); userPromptSubmitted's output is dropped for command
// hooks, and preCompact's and sessionEnd's are not processed.
var copilotContract = map[string]map[string]byte{
	SessionStart:       {"additionalContext": 's'},
	UserPromptSubmit:   {},
	PreToolUse:         {"permissionDecision": 's', "permissionDecisionReason": 's', "modifiedArgs": 'o'},
	PostToolUse:        {"modifiedResult": 'o', "additionalContext": 's'},
	PostToolUseFailure: {"additionalContext": 's'},
	Stop:               {"decision": 's', "reason": 's'},
	SubagentStop:       {"decision": 's', "reason": 's', "modifiedResponse": 's'},
	PreCompact:         {},
	SessionEnd:         {},
}

// copilotFixtureEvents are the camelCase events fixtures are sent as,
// by the start of their names.
var copilotFixtureEvents = map[string]string{
	"session_start": "sessionStart", "user_prompt_submitted": "userPromptSubmitted", "pre_tool_use": "preToolUse",
	"post_tool_use_failure": "postToolUseFailure", "post_tool_use": "postToolUse", "agent_stop": "agentStop",
	"subagent_stop": "subagentStop", "pre_compact": "preCompact", "session_end": "sessionEnd",
}

// copilot sends a Copilot fixture through Copilot's own hook (plangit hook
// EVENT --host copilot, EVENT from the fixture's name) and checks the
// answer against Copilot's contract.
func (f *fixture) copilot(name string) map[string]any {
	f.t.Helper()
	event, longest := "", ""
	for prefix, ev := range copilotFixtureEvents {
		if strings.HasPrefix(name, prefix) && len(prefix) > len(longest) {
			event, longest = ev, prefix
		}
	}
	path := "copilot/" + name + ".json"
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", path))
	if err != nil {
		f.t.Fatal(err)
	}
	in, err := Copilot{}.Decode(event, b)
	if err != nil {
		f.t.Fatal(err)
	}
	out := f.runAs(Copilot{}, event, path)
	a := answer(f.t.(*testing.T), name, out, copilotContract[in.Event])
	if a["permissionDecision"] == "deny" && a["permissionDecisionReason"] == nil {
		f.t.Errorf("%s: a deny needs its reason: %s", name, out)
	}
	if a["decision"] != nil && (a["decision"] != "block" || a["reason"] == nil) {
		f.t.Errorf("%s: %s", name, out)
	}
	return a
}

func TestCopilotSession(t *testing.T) {
	t.Parallel()
	f := newHostFixture(t)
	if a := f.copilot("session_start"); a != nil {
		t.Errorf("no plan anywhere, yet: %v", a)
	}
	// The prompt is kept; the plan starts when the agent first uses a
	// tool.
	if a := f.copilot("user_prompt_submitted"); a != nil {
		t.Errorf("userPromptSubmitted: %v", a)
	}
	f.agentActs()
	if st := f.state(sessionID); st.Plan.Goal != "Add a cache to the user service" {
		t.Fatalf("%+v", st.Plan)
	}
	f.addSteps(sessionID, "Read the user service", "Add the cache", "Test it")
	a := f.copilot("session_start")
	if ctx := a["additionalContext"].(string); !strings.Contains(ctx, "plangit --session "+sessionID) || !strings.Contains(ctx, "step add") || strings.Contains(ctx, "[Step]") {
		t.Errorf("a resumed session hears its plan, and how to add steps on Copilot: %v", a)
	}

	for _, name := range []string{"pre_tool_use_bash", "pre_tool_use_bash_string", "pre_tool_use_create"} {
		if a := f.copilot(name); a != nil {
			t.Errorf("%s: preToolUse takes no context: %v", name, a)
		}
	}
	if a := f.copilot("post_tool_use_view"); a != nil {
		t.Errorf("one look-up: %v", a)
	}
	if a := f.copilot("post_tool_use_grep"); !strings.Contains(a["additionalContext"].(string), "2 look-ups since your last finding") {
		t.Errorf("the 2-action rule: %v", a)
	}
	if a := f.copilot("post_tool_use_create"); !strings.Contains(a["additionalContext"].(string), "You changed files during step 1") {
		t.Errorf("create is a write tool: %v", a)
	}
	if a := f.copilot("post_tool_use_bash"); a != nil {
		t.Errorf("a command that exited 0: %v", a)
	}
	f.copilot("post_tool_use_bash_exit")
	f.copilot("post_tool_use_bash_exit")
	a = f.copilot("post_tool_use_bash_exit")
	f.golden("copilot_post_tool_use_strike", f.lastOut(a))
	f.copilot("post_tool_use_failure_bash")
	errs := f.state(sessionID).Errors
	if len(errs) != 2 {
		t.Fatalf("errors: %d", len(errs))
	}
	for _, e := range errs {
		if e.Tool != "Bash" || e.Key != "go test ./..." || !(e.Count == 3 && strings.HasPrefix(e.Message, "Exit code 1\n--- FAIL") || e.Count == 1 && e.Message == "--- FAIL: TestCache (0.01s)") {
			t.Errorf("error %+v", *e)
		}
	}

	// update_todo's checklist syncs into the plan: step 1 is done.
	a = f.copilot("post_tool_use_update_todo")
	if !strings.Contains(a["additionalContext"].(string), "sync: TodoWrite") {
		t.Errorf("todo sync: %v", a)
	}
	if s, _, _ := f.state(sessionID).Plan.Step("1"); s.Status != plan.StepCompleted {
		t.Errorf("step 1 %s", s.Status)
	}

	a = f.copilot("agent_stop")
	f.golden("copilot_agent_stop", f.lastOut(a))
	if a := f.copilot("agent_stop_active"); a != nil {
		t.Errorf("stop_hook_active: %v", a)
	}
	if a := f.copilot("subagent_stop"); a != nil {
		t.Errorf("a subagent that started no step: %v", a)
	}
	if steps := f.state(sessionID).Plan.Steps(); steps[len(steps)-1].Text != "Benchmark the hot paths" {
		t.Errorf("the subagent's [Step] line was not added")
	}
	// The PascalCase format, as Copilot sends it to Claude Code's hooks.
	if a := answer(t, "PascalCase stop", f.runAs(Copilot{}, "Stop", "copilot/pascal_stop.json"), copilotContract[Stop]); a != nil {
		t.Errorf("blocked once this turn already: %v", a)
	}
	f.copilot("pre_compact")
	f.copilot("session_end")
	revs := f.revisions(sessionID)
	if !strings.HasPrefix(revs[len(revs)-1].Summary, "checkpoint: ") {
		t.Errorf("last revision %+v", revs[len(revs)-1])
	}
	if log := f.log(); log != "" {
		t.Errorf("the hooks logged failures: %s", log)
	}
}

func TestCopilotAnswers(t *testing.T) {
	t.Parallel()
	t.Run("plan confirmation asks", func(t *testing.T) {
		f := newHostFixture(t)
		f.config(`{"plan_confirmation": true}`)
		f.copilot("user_prompt_submitted")
		f.agentActs()
		a := f.copilot("pre_tool_use_create")
		if a["permissionDecision"] != "ask" || !strings.Contains(a["permissionDecisionReason"].(string), "awaits approval") {
			t.Errorf("%v", a)
		}
	})
	t.Run("iteration limit is said, not enforced", func(t *testing.T) {
		f := newHostFixture(t)
		f.config(`{"max_iterations": 2}`)
		f.copilot("user_prompt_submitted")
		f.agentActs()
		f.addSteps(sessionID, "Read the user service")
		f.copilot("post_tool_use_bash")
		a := f.copilot("post_tool_use_bash")
		if !strings.Contains(a["additionalContext"].(string), "[plangit] Stop now: plangit paused the plan after 2 tool uses") {
			t.Errorf("%v", a)
		}
	})
	t.Run("toolArgs as an object or a JSON string", func(t *testing.T) {
		for _, name := range []string{"pre_tool_use_bash", "pre_tool_use_bash_string"} {
			b, _ := os.ReadFile(filepath.Join("..", "testdata", "hooks", "copilot", name+".json"))
			in, err := Copilot{}.Decode("preToolUse", b)
			if err != nil || in.ToolName != "Bash" || inputString(in.ToolInput, "command") != "go test ./..." || in.SessionID != "{{SESSION}}" {
				t.Errorf("%s: %+v %v", name, in, err)
			}
		}
		b, _ := os.ReadFile(filepath.Join("..", "testdata", "hooks", "copilot", "pre_tool_use_create.json"))
		if in, _ := (Copilot{}).Decode("preToolUse", b); in.ToolName != "Write" || inputString(in.ToolInput, "file_path") != "{{CWD}}/cache.go" {
			t.Errorf("create: %+v", in)
		}
	})
	t.Run("update_todo it cannot read stays itself", func(t *testing.T) {
		in, err := Copilot{}.Decode("postToolUse", []byte(`{"sessionId":"s","toolName":"update_todo","toolArgs":{"items":3}}`))
		if err != nil || in.ToolName != "update_todo" {
			t.Errorf("%+v %v", in, err)
		}
		in, _ = Copilot{}.Decode("postToolUse", []byte(`{"sessionId":"s","toolName":"update_todo","toolArgs":{"todos":[{"content":"a","status":"in_progress"}]}}`))
		if in.ToolName != "TodoWrite" {
			t.Errorf("TodoWrite's own shape: %+v", in)
		}
	})
	t.Run("bad input answers nothing, exit 0", func(t *testing.T) {
		f := newHostFixture(t)
		f.withPlan(sessionID)
		for _, p := range []string{`not json`, `{"sessionId":1}`, `{"sessionId":"{{SESSION}}","toolArgs":"{"}`, `[]`} {
			if out := f.sendTo(Copilot{}, "preToolUse", []byte(p)); out != "" {
				t.Errorf("%s: %s", p, out)
			}
		}
		if out := f.sendTo(Copilot{}, "errorOccurred", []byte(`{"sessionId":"{{SESSION}}","cwd":"{{CWD}}"}`)); out != "" {
			t.Errorf("an event plangit does not hook: %s", out)
		}
	})
}

// TestCopilotChecklistKeepsStartedSteps: update_todo's "- [ ]" says not
// done, and no more: the step the agent started stays in progress, a step
// never started stays pending, a ticked box completes its step. A done
// step whose box the first list leaves unticked is a list behind the plan
// (sync.go's case 4): it stays done, and the agent is told; a box the
// list ticked and then unticks reopens its step (case 1).
func TestCopilotChecklistKeepsStartedSteps(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID) // 1 done, 2 in progress, 3 and 4 pending
	send := func(read string) string {
		payload := `{"sessionId": "{{SESSION}}", "timestamp": 1795687200000, "cwd": "{{CWD}}", "toolName": "update_todo",
		"toolArgs": {"todos": "- [` + read + `] Read the service\n- [ ] Design the cache\n- [x] Build the cache layer\n- [ ] Use it in GetUser"},
		"toolResult": {"resultType": "success", "textResultForLlm": "TODO list updated"}}`
		return f.sendTo(Copilot{}, "postToolUse", []byte(payload))
	}
	check := func(when string, want map[string]plan.StepStatus) {
		t.Helper()
		p := f.state(sessionID).Plan
		for id, status := range want {
			if s, _, _ := p.Step(id); s.Status != status {
				t.Errorf("%s: step %s (%s): %s, want %s", when, id, s.Text, s.Status, status)
			}
		}
	}
	if out := send(" "); !strings.Contains(out, `Your todo list is behind the plan, which keeps its state: \"Read the service\" (step 1) is completed in the plan`) {
		t.Errorf("the first list is not told it is behind: %s", out)
	}
	check("first list", map[string]plan.StepStatus{"1": plan.StepCompleted, "2": plan.StepInProgress, "3": plan.StepCompleted, "4": plan.StepPending})
	send("x")
	send(" ")
	check("unticked", map[string]plan.StepStatus{"1": plan.StepPending, "2": plan.StepInProgress, "3": plan.StepCompleted, "4": plan.StepPending})
}
