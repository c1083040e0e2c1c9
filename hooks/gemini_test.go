package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// geminiContract is what plangit may answer to each Gemini CLI event, by
// Gemini's hooks reference (google-gemini/gemini-cli docs/hooks/
// reference.md, "Common output fields" and each event's) and where its
// source reads an answer (hookRunner.ts, client.ts,
// coreToolHookTriggers.ts): additionalContext only on SessionStart,
// BeforeAgent and AfterTool; decision "deny" with a reason on BeforeTool
// (the tool's error) and AfterAgent (a new prompt) — never on BeforeAgent
// (it discards the prompt) or AfterTool (it replaces the tool's result);
// nothing but "{}" on PreCompress and SessionEnd; systemMessage, a common
// output field, anywhere (the reference: "advisory message displayed to
// user"). Stdout is always one JSON object: with an empty stdout Gemini
// parses stderr.
var geminiContract = map[string]struct {
	context  bool // hookSpecificOutput.additionalContext
	decision bool // decision "deny" + reason
}{
	"SessionStart": {context: true}, "BeforeAgent": {context: true}, "AfterTool": {context: true},
	"BeforeTool": {decision: true}, "AfterAgent": {decision: true}, "PreCompress": {}, "SessionEnd": {},
}

// checkGemini validates an answer to a Gemini event and returns it
// decoded; an answer of "{}" is nil.
func checkGemini(t *testing.T, event, out string) map[string]any {
	t.Helper()
	var a map[string]any
	if err := json.Unmarshal([]byte(out), &a); err != nil || !strings.HasSuffix(out, "}\n") {
		t.Fatalf("%s: stdout must be one JSON object, always: %q (%v)", event, out, err)
	}
	c, ok := geminiContract[event]
	if !ok {
		t.Fatalf("%s: not an event plangit hooks", event)
	}
	for k, v := range a {
		switch k {
		case "hookSpecificOutput":
			h, _ := v.(map[string]any)
			if !c.context || h["hookEventName"] != event || len(h) != 2 {
				t.Errorf("%s: hookSpecificOutput %v", event, v)
			}
			if s, _ := h["additionalContext"].(string); strings.TrimSpace(s) == "" {
				t.Errorf("%s: empty context: %s", event, out)
			}
		case "decision":
			if !c.decision || v != "deny" {
				t.Errorf("%s: decision %v", event, v)
			}
			if r, _ := a["reason"].(string); strings.TrimSpace(r) == "" {
				t.Errorf("%s: a denial without a reason: %s", event, out)
			}
		case "reason":
		case "systemMessage": // a common output field: shown to the person
			if m, _ := v.(string); strings.TrimSpace(m) == "" {
				t.Errorf("%s: an empty systemMessage: %s", event, out)
			}
		default:
			t.Errorf("%s: field %q: %s", event, k, out)
		}
	}
	if len(a) == 0 {
		return nil
	}
	return a
}

// gemini sends a Gemini fixture through Gemini's own hook (plangit hook
// EVENT --host gemini) and validates the answer.
func (f *fixture) gemini(name string) map[string]any {
	f.t.Helper()
	path := "gemini/" + name + ".json"
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", path))
	if err != nil {
		f.t.Fatal(err)
	}
	var p struct {
		Event string `json:"hook_event_name"`
	}
	json.Unmarshal(b, &p)
	return checkGemini(f.t.(*testing.T), p.Event, f.runAs(Gemini{}, "", path))
}

func geminiSaid(a map[string]any) string {
	h, _ := a["hookSpecificOutput"].(map[string]any)
	s, _ := h["additionalContext"].(string)
	return s
}

// processTree reports whether the hooks read the process tree, where the
// agent's shell finds the session Gemini's hooks record: from /proc, which
// Windows lacks (under Wine, /proc is Linux's, of other processes).
func processTree() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil && runtime.GOOS != "windows"
}

// asWithTree is a Gemini answer as it is where the process tree is read:
// without one, the commands it suggests name --session, which the golden
// files, written with one, do not.
func asWithTree(out string) string {
	if processTree() {
		return out
	}
	return strings.ReplaceAll(out, "plangit --session "+sessionID+" ", "plangit ")
}

// TestGeminiSession plays a Gemini CLI session through plangit's hooks: a
// start with no plan, a prompt that starts one, write_todos laying out the
// steps, look-ups, a write, a test run that exits 1 three times, a failed
// edit, a stop held once and then let through, [Step] lines, compression.
func TestGeminiSession(t *testing.T) {
	t.Parallel()
	f := newHostFixture(t)
	if a := f.gemini("session_start"); a != nil {
		t.Errorf("no plan anywhere, yet: %v", a)
	}
	if a := f.gemini("before_agent"); a != nil {
		t.Errorf("the first prompt starts no plan: the agent may answer it without a tool: %v", a)
	}
	f.gemini("after_tool_todos")
	if st := f.state(sessionID); st.Plan.From != "todos" || st.Plan.Goal == "" {
		t.Errorf("the todo list started the plan, the person's request its goal: %+v", st.Plan)
	}
	steps := f.state(sessionID).Plan.Steps()
	if len(steps) != 3 || steps[1].Text != "Add the cache" || steps[1].Status != plan.StepInProgress || steps[0].Status != plan.StepCompleted {
		t.Fatalf("write_todos' steps (the cancelled one left out): %+v", steps)
	}
	if a := f.gemini("before_tool_shell"); a != nil {
		t.Errorf("BeforeTool takes no context, and nothing is gated: %v", a)
	}
	if a := f.gemini("after_tool_read"); a != nil {
		t.Errorf("one look-up: %v", a)
	}
	if ctx := geminiSaid(f.gemini("after_tool_grep")); !strings.Contains(ctx, "2 look-ups since your last finding") {
		t.Errorf("the 2-action rule: %s", ctx)
	}
	f.gemini("before_tool_write")
	if ctx := geminiSaid(f.gemini("after_tool_write")); !strings.Contains(ctx, "You changed files during step 2") {
		t.Errorf("write_file is a write tool: %s", ctx)
	}
	if a := f.gemini("after_tool_shell"); a != nil {
		t.Errorf("a command that exited 0: %v", a)
	}
	f.gemini("after_tool_shell_exit")
	f.gemini("after_tool_shell_exit")
	a := f.gemini("after_tool_shell_exit")
	f.golden("gemini_after_tool_strike", asWithTree(f.lastOut(a)))
	if !strings.Contains(geminiSaid(a), "failed 3 times the same way") {
		t.Errorf("the third strike: %v", a)
	}
	f.gemini("after_tool_error")
	errs := f.state(sessionID).Errors
	byTool := map[string]*plan.ErrorRecord{}
	for _, e := range errs {
		byTool[e.Tool] = e
	}
	if bash, edit := byTool["Bash"], byTool["Edit"]; len(errs) != 2 || bash == nil || edit == nil || bash.Key != "go test ./..." || bash.Count != 3 ||
		!strings.HasPrefix(bash.Message, "Exit code 1\n--- FAIL: TestCache") || !strings.HasPrefix(edit.Message, "Failed to edit, 0 occurrences") {
		for _, e := range errs {
			t.Logf("%+v", *e)
		}
		t.Fatal("errors")
	}
	a = f.gemini("after_agent")
	// The hooks recorded the session for the Gemini process (here: this
	// test's host process), where the agent's shell finds it: no
	// --session, wherever there is a process tree to read.
	if a == nil || !strings.Contains(a["reason"].(string), "step done ID") || strings.Contains(a["reason"].(string), "--session") == processTree() {
		t.Fatalf("the turn worked on the plan: the stop is held once, naming --session only without a process tree: %v", a)
	}
	f.golden("gemini_after_agent", asWithTree(f.lastOut(a)))
	if a := f.gemini("after_agent_active"); a != nil {
		t.Errorf("stop_hook_active: %v", a)
	}
	f.gemini("after_agent_steps")
	if steps := f.state(sessionID).Plan.Steps(); steps[len(steps)-1].Text != "Benchmark the hot paths" {
		t.Errorf("[Step] lines in prompt_response: %+v", steps[len(steps)-1])
	}
	// Gemini 0.61.0 fires PreCompress "auto" before every request, whether
	// or not it compresses: no checkpoint (the tool event after a real
	// compaction makes it: TestRealGemini). The person's /compress does.
	revs := len(f.revisions(sessionID))
	if a := f.gemini("pre_compress"); a != nil {
		t.Errorf("PreCompress: %v", a)
	}
	if got := f.revisions(sessionID); len(got) != revs {
		t.Error("a checkpoint before every request")
	}
	b, _ := os.ReadFile(filepath.Join("..", "testdata", "hooks", "gemini", "pre_compress.json"))
	f.sendTo(Gemini{}, "PreCompress", bytes.Replace(b, []byte(`"trigger": "auto"`), []byte(`"trigger": "manual"`), 1))
	if got := f.revisions(sessionID); len(got) != revs+1 {
		t.Error("a checkpoint before the person's /compress")
	}
	f.gemini("session_end")
	if log := f.log(); log != "" {
		t.Errorf("the hooks logged failures: %s", log)
	}
}

func TestGeminiAnswers(t *testing.T) {
	t.Parallel()
	t.Run("plan confirmation denies, since Gemini does not document ask", func(t *testing.T) {
		f := newHostFixture(t)
		f.config(`{"plan_confirmation": true}`)
		f.gemini("before_agent")
		f.agentActs()
		a := f.gemini("before_tool_write")
		if a["decision"] != "deny" || !strings.Contains(a["reason"].(string), "Gemini CLI cannot ask") {
			t.Errorf("%v", a)
		}
	})
	t.Run("iteration limit is said, not enforced", func(t *testing.T) {
		f := newHostFixture(t)
		f.config(`{"max_iterations": 2}`)
		f.gemini("before_agent")
		f.agentActs()
		f.addSteps(sessionID, "Read the user service")
		f.gemini("after_tool_shell")
		a := f.gemini("after_tool_shell")
		if !strings.Contains(geminiSaid(a), "[plangit] Stop now: plangit paused the plan after 2 tool uses") {
			t.Errorf("%v", a)
		}
	})
	t.Run("bad input and failures answer {}", func(t *testing.T) {
		f := newHostFixture(t)
		f.withPlan(sessionID)
		for _, p := range []string{`not json`, `{"hook_event_name":"BeforeModel","session_id":"{{SESSION}}","cwd":"{{CWD}}"}`, `{"hook_event_name":"AfterAgent","stop_hook_active":"x"}`, ``} {
			if out := f.sendTo(Gemini{}, "AfterAgent", []byte(p)); out != "{}\n" {
				t.Errorf("%s: %q", p, out)
			}
		}
	})
	t.Run("recognised without --host", func(t *testing.T) {
		f := newHostFixture(t)
		f.withPlan(sessionID)
		out := f.runAs(nil, "BeforeAgent", "gemini/before_agent.json")
		if a := checkGemini(t, "BeforeAgent", out); !strings.Contains(geminiSaid(a), "now: 2 Design the cache") {
			t.Errorf("%s", out)
		}
	})
}

// TestGeminiEveryFixture: every Gemini fixture, on a plan under way, gets
// an answer Gemini reads as plangit means it.
func TestGeminiEveryFixture(t *testing.T) {
	t.Parallel()
	fixtures, _ := filepath.Glob(filepath.Join("..", "testdata", "hooks", "gemini", "*.json"))
	if len(fixtures) < 10 {
		t.Fatalf("%d fixtures", len(fixtures))
	}
	for _, fx := range fixtures {
		name := strings.TrimSuffix(filepath.Base(fx), ".json")
		t.Run(name, func(t *testing.T) {
			f := newHostFixture(t)
			f.gemini("before_agent")
			f.agentActs()
			f.addSteps(sessionID, "Read the user service", "Add the cache")
			f.gemini(name)
			if log := f.log(); log != "" {
				t.Errorf("the hook logged a failure: %s", log)
			}
		})
	}
}
