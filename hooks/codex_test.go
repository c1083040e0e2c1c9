package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
)

// codexSchema is one Codex hook output schema, transcribed from openai/codex
// codex-rs/hooks/schema/generated/<event>.command.output.schema.json
// (session-start, user-prompt-submit, post-tool-use, stop, subagent-stop,
// pre-compact at commit 6fff509bb33f; pre-tool-use at 3be4afd35fc4): the
// members each allows (additionalProperties: false at the top and in
// hookSpecificOutput), their JSON types ('s' string, 'b' boolean, 'o'
// object, '*' any), enums, hookEventName's const, and the rule that a
// "block" decision has a reason with a non-blank character (pattern
// ".*\S.*"). Codex's runtime is stricter than the schemas (hooks
// documentation, "Unsupported fields fail the hook run"): on PreToolUse,
// permissionDecision "ask", and "allow" without updatedInput, continue,
// stopReason and suppressOutput fail the hook run, and a denial needs a
// reason; runtime lists those.
type codexSchema struct {
	top      map[string]byte
	specific map[string]byte // hookSpecificOutput's members; nil: no hookSpecificOutput
	enums    map[string][]string
	runtime  []string // top-level or hookSpecificOutput members Codex's runtime refuses
}

var codexCommon = map[string]byte{"continue": 'b', "stopReason": 's', "suppressOutput": 'b', "systemMessage": 's'}

func withCommon(m map[string]byte) map[string]byte {
	out := map[string]byte{}
	for k, v := range codexCommon {
		out[k] = v
	}
	for k, v := range m {
		out[k] = v
	}
	return out
}

var codexSchemas = map[string]codexSchema{
	"SessionStart": {top: withCommon(map[string]byte{"hookSpecificOutput": 'o'}), specific: map[string]byte{"hookEventName": 's', "additionalContext": 's'}},
	"UserPromptSubmit": {top: withCommon(map[string]byte{"hookSpecificOutput": 'o', "decision": 's', "reason": 's'}),
		specific: map[string]byte{"hookEventName": 's', "additionalContext": 's'}, enums: map[string][]string{"decision": {"block"}}},
	"PreToolUse": {top: withCommon(map[string]byte{"hookSpecificOutput": 'o', "decision": 's', "reason": 's'}),
		specific: map[string]byte{"hookEventName": 's', "additionalContext": 's', "permissionDecision": 's', "permissionDecisionReason": 's', "updatedInput": '*'},
		enums:    map[string][]string{"permissionDecision": {"allow", "deny", "ask"}, "decision": {"approve", "block"}},
		runtime:  []string{"continue", "stopReason", "suppressOutput", "decision", "updatedInput"}},
	"PostToolUse": {top: withCommon(map[string]byte{"hookSpecificOutput": 'o', "decision": 's', "reason": 's'}),
		specific: map[string]byte{"hookEventName": 's', "additionalContext": 's', "updatedMCPToolOutput": '*'}, enums: map[string][]string{"decision": {"block"}},
		// decision "block" replaces the tool's result with the reason:
		// plangit never takes the agent's result away.
		runtime: []string{"decision", "continue", "stopReason"}},
	"Stop":         {top: withCommon(map[string]byte{"decision": 's', "reason": 's'}), enums: map[string][]string{"decision": {"block"}}},
	"SubagentStop": {top: withCommon(map[string]byte{"decision": 's', "reason": 's'}), enums: map[string][]string{"decision": {"block"}}},
	"PreCompact":   {top: codexCommon},
}

var nonBlank = regexp.MustCompile(`.*\S.*`)

// reporter is what checkCodex reports to: a *testing.T, or a fake that
// records, for the check's own test.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// failures records what checkCodex reports; Fatalf ends the check.
type failures struct{ n int }

func (f *failures) Helper()               { f.n += 0 }
func (f *failures) Errorf(string, ...any) { f.n++ }
func (f *failures) Fatalf(string, ...any) { f.n++; panic(f) }

// checkCodex validates an answer to a Codex event against its schema and
// Codex's runtime rules, and returns it decoded (nil for no answer).
func checkCodex(t reporter, event, out string) map[string]any {
	t.Helper()
	if out == "" {
		return nil
	}
	schema, ok := codexSchemas[event]
	if !ok {
		t.Fatalf("%s: no schema, yet an answer: %s", event, out)
	}
	var a map[string]any
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("%s: %v: %s", event, err, out)
	}
	kinds := func(where string, members map[string]any, allowed map[string]byte) {
		for k, v := range members {
			kind, ok := allowed[k]
			if !ok {
				t.Errorf("%s: %s%q is not in the schema (additionalProperties: false): %s", event, where, k, out)
				continue
			}
			good := kind == '*'
			switch v.(type) {
			case string:
				good = good || kind == 's'
			case bool:
				good = good || kind == 'b'
			case map[string]any:
				good = good || kind == 'o'
			case nil:
				t.Errorf("%s: %s%q is null: plangit omits what it does not say", event, where, k)
			}
			if !good {
				t.Errorf("%s: %s%q has the wrong type: %s", event, where, k, out)
			}
			if allowed, ok := schema.enums[k]; ok && !slices.Contains(allowed, v.(string)) {
				t.Errorf("%s: %s%q = %v, not one of %v", event, where, k, v, allowed)
			}
			if slices.Contains(schema.runtime, k) {
				t.Errorf("%s: %s%q fails the hook run in Codex, or takes the tool's result away: %s", event, where, k, out)
			}
		}
	}
	kinds("", a, schema.top)
	if d, ok := a["decision"]; ok && d == "block" {
		if r, _ := a["reason"].(string); !nonBlank.MatchString(r) {
			t.Errorf("%s: a block without a reason: %s", event, out)
		}
	}
	if h, ok := a["hookSpecificOutput"].(map[string]any); ok {
		kinds("hookSpecificOutput.", h, schema.specific)
		if h["hookEventName"] != event {
			t.Errorf("%s: hookEventName %v", event, h["hookEventName"])
		}
		switch h["permissionDecision"] {
		case nil:
		case "deny":
			if r, _ := h["permissionDecisionReason"].(string); strings.TrimSpace(r) == "" {
				t.Errorf("%s: a denial without a reason: %s", event, out)
			}
		default:
			t.Errorf("%s: permissionDecision %v fails the hook run in Codex", event, h["permissionDecision"])
		}
		if len(h) == 1 {
			t.Errorf("%s: hookSpecificOutput says nothing: %s", event, out)
		}
	}
	return a
}

// codex sends a Codex fixture through Codex's own hook (plangit hook EVENT
// --host codex) and validates the answer.
func (f *fixture) codex(name string) map[string]any {
	f.t.Helper()
	path := "codex/" + name + ".json"
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", path))
	if err != nil {
		f.t.Fatal(err)
	}
	var p struct {
		Event string `json:"hook_event_name"`
	}
	json.Unmarshal(b, &p)
	return checkCodex(f.t.(*testing.T), p.Event, f.runAs(Codex{}, "", path))
}

func codexSaid(a map[string]any) string {
	h, _ := a["hookSpecificOutput"].(map[string]any)
	s, _ := h["additionalContext"].(string)
	return s
}

// TestCodexSession plays a Codex session through plangit's hooks: a start
// with no plan, a prompt that starts one, update_plan laying out the
// steps, a look-up through the shell, a patch, a test run that exits 1
// three times, a stop held once and then let through, [Step] lines in the
// agent's last message, a subagent, compaction.
func TestCodexSession(t *testing.T) {
	t.Parallel()
	f := newHostFixture(t)
	if a := f.codex("session_start"); a != nil {
		t.Errorf("no plan anywhere, yet: %v", a)
	}
	if a := f.codex("user_prompt_submit"); a != nil {
		t.Errorf("the first prompt starts no plan: the agent may answer it without a tool: %v", a)
	}
	ctx := codexSaid(f.codex("post_tool_use_update_plan"))
	if !strings.Contains(ctx, "Started a persistent plan from your update_plan") {
		t.Errorf("update_plan, the agent's first tool, starts the plan: %s", ctx)
	}
	steps := f.state(sessionID).Plan.Steps()
	if len(steps) != 3 || steps[1].Text != "Add the cache" || steps[1].Status != plan.StepInProgress || steps[0].Status != plan.StepCompleted {
		t.Fatalf("update_plan's steps: %+v", steps)
	}

	a := f.codex("pre_tool_use_bash")
	f.golden("codex_pre_tool_use_bash", f.lastOut(a))
	if !strings.Contains(codexSaid(a), "Add the cache") {
		t.Errorf("the current step before a command: %v", a)
	}
	if a := f.codex("post_tool_use_bash_read"); a != nil {
		t.Errorf("one look-up: %v", a)
	}
	if ctx := codexSaid(f.codex("post_tool_use_bash_read")); !strings.Contains(ctx, "2 look-ups since your last finding") {
		t.Errorf("reading through the shell is a look-up (the 2-action rule): %s", ctx)
	}
	f.codex("pre_tool_use_apply_patch")
	if ctx := codexSaid(f.codex("post_tool_use_apply_patch")); !strings.Contains(ctx, "You changed files during step 2") {
		t.Errorf("apply_patch is a write tool: %s", ctx)
	}
	// A test run that exits 1, reported as a PostToolUse with its output
	// alone, the exit code in the transcript: the third is the third
	// strike.
	appendCodexItem(t, filepath.Join(f.root, "rollout.jsonl"), "call_s7_8", "go test ./...", "--- FAIL: TestCache (0.01s)\nFAIL\n", 1)
	f.codex("post_tool_use_bash_failed")
	f.codex("post_tool_use_bash_failed")
	a = f.codex("post_tool_use_bash_failed")
	f.golden("codex_post_tool_use_strike", f.lastOut(a))
	errs := f.state(sessionID).Errors
	if len(errs) != 1 || errs[0].Tool != "Bash" || errs[0].Key != "go test ./..." || errs[0].Count != 3 || !strings.HasPrefix(errs[0].Message, "Exit code 1\n--- FAIL: TestCache") {
		for _, e := range errs {
			t.Logf("%+v", *e)
		}
		t.Fatal("errors")
	}
	// Before the command that failed, what happened last time.
	if ctx := codexSaid(f.codex("pre_tool_use_bash")); !strings.Contains(ctx, "failed before") {
		t.Errorf("the error before the same command: %s", ctx)
	}
	// The same command succeeding resolves it.
	f.codex("post_tool_use_bash")
	if a := f.codex("stop"); a == nil {
		t.Fatal("the turn worked on the plan: the stop is held once")
	} else {
		f.golden("codex_stop", f.lastOut(a))
		if r := a["reason"].(string); !strings.Contains(r, "plangit step done ID") || strings.Contains(r, "--session") {
			t.Errorf("CODEX_THREAD_ID is in the agent's shell, not the hook's environment: suggestions name no --session: %s", r)
		}
	}
	if a := f.codex("stop_active"); a != nil {
		t.Errorf("stop_hook_active: %v", a)
	}
	f.codex("stop_steps")
	if steps := f.state(sessionID).Plan.Steps(); steps[len(steps)-1].Text != "Benchmark the hot paths" {
		t.Errorf("[Step] lines in the last message: %+v", steps[len(steps)-1])
	}
	f.codex("subagent_stop")
	revs := len(f.revisions(sessionID))
	if a := f.codex("pre_compact"); a != nil {
		t.Errorf("PreCompact: %v", a)
	}
	if got := f.revisions(sessionID); len(got) <= revs {
		t.Errorf("a checkpoint before compaction")
	}
	if log := f.log(); log != "" {
		t.Errorf("the hooks logged failures: %s", log)
	}
}

func TestCodexAnswers(t *testing.T) {
	t.Parallel()
	t.Run("the agent's shell reaches the session by CODEX_THREAD_ID", func(t *testing.T) {
		f := newHostFixture(t) // the hook's environment has no CODEX_THREAD_ID
		f.codex("user_prompt_submit")
		ctx := codexSaid(f.codex("post_tool_use_bash_read"))
		if !strings.Contains(ctx, "plangit step add") || strings.Contains(ctx, "--session") {
			t.Errorf("%s", ctx)
		}
	})
	t.Run("plan confirmation denies, since Codex has no ask", func(t *testing.T) {
		f := newHostFixture(t)
		f.config(`{"plan_confirmation": true}`)
		f.codex("user_prompt_submit")
		f.agentActs()
		a := f.codex("pre_tool_use_apply_patch")
		h, _ := a["hookSpecificOutput"].(map[string]any)
		if h["permissionDecision"] != "deny" || !strings.Contains(h["permissionDecisionReason"].(string), "Codex cannot ask") {
			t.Errorf("%v", a)
		}
	})
	t.Run("iteration limit is said, not enforced", func(t *testing.T) {
		f := newHostFixture(t)
		f.config(`{"max_iterations": 2}`)
		f.codex("user_prompt_submit")
		f.agentActs()
		f.addSteps(sessionID, "Read the user service")
		f.codex("post_tool_use_bash")
		a := f.codex("post_tool_use_bash")
		if !strings.Contains(codexSaid(a), "[plangit] Stop now: plangit paused the plan after 2 tool uses") {
			t.Errorf("%v", a)
		}
		if st := f.state(sessionID); st.Plan.Status != plan.PlanPaused {
			t.Errorf("status %s", st.Plan.Status)
		}
	})
	t.Run("a new file by patch is a Write", func(t *testing.T) {
		in, err := Codex{}.Decode("", []byte(`{"session_id":"s","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a/b.go\n+package b\n*** End Patch\n"},"tool_response":"Success."}`))
		if err != nil || in.ToolName != "Write" || string(in.ToolInput) != `{"file_path":"a/b.go"}` {
			t.Errorf("%+v %v", in, err)
		}
	})
	t.Run("shell commands that only read are look-ups", func(t *testing.T) {
		for cmd, want := range map[string]string{
			"cat README.md": "Read", "sed -n 1,40p main.go": "Read", "rg -n GetUser": "Grep", "ls internal": "LS",
			"rg GetUser | head -20": "Grep", "sed -i s/a/b/ x.go": "Bash", "cat a > b": "Bash", "ls && go test ./...": "Bash",
			"grep x y | sort": "Bash", "go test ./...": "Bash", "cat $(ls)": "Bash",
		} {
			if got := hookwire.CodexLookup(json.RawMessage(`{"command":` + string(mustJSON(t, cmd)) + `}`)); got != want {
				t.Errorf("%q: %s, want %s", cmd, got, want)
			}
		}
	})
	t.Run("bad input answers nothing", func(t *testing.T) {
		f := newHostFixture(t)
		f.withPlan(sessionID)
		for _, p := range []string{`not json`, `{"hook_event_name":"PermissionRequest","session_id":"{{SESSION}}","cwd":"{{CWD}}"}`, `{"hook_event_name":"Stop","stop_hook_active":"x"}`} {
			if out := f.sendTo(Codex{}, "Stop", []byte(p)); out != "" {
				t.Errorf("%s: %s", p, out)
			}
		}
	})
}

// TestCodexSchemaCheck: the schema check itself refuses what Codex
// refuses, so that the answers it passes are worth something.
func TestCodexSchemaCheck(t *testing.T) {
	t.Parallel()
	for event, bad := range map[string]string{
		"Stop":             `{"decision":"block","reason":"  "}`,
		"PreCompact":       `{"hookSpecificOutput":{"hookEventName":"PreCompact","additionalContext":"x"}}`,
		"PreToolUse":       `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"r"}}`,
		"PostToolUse":      `{"decision":"block","reason":"r"}`,
		"SessionStart":     `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x","extra":1}}`,
		"UserPromptSubmit": `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"x"}}`,
		"SubagentStop":     `{"hookSpecificOutput":{"hookEventName":"SubagentStop"}}`,
	} {
		got := &failures{}
		func() {
			defer func() {
				if r := recover(); r != nil && r != got {
					panic(r)
				}
			}()
			checkCodex(got, event, bad)
		}()
		if got.n == 0 {
			t.Errorf("%s: %s passed the check", event, bad)
		}
	}
}

// TestCodexEveryFixture: every Codex fixture, on a plan under way, gets an
// answer Codex accepts.
func TestCodexEveryFixture(t *testing.T) {
	t.Parallel()
	fixtures, _ := filepath.Glob(filepath.Join("..", "testdata", "hooks", "codex", "*.json"))
	if len(fixtures) < 10 {
		t.Fatalf("%d fixtures", len(fixtures))
	}
	for _, fx := range fixtures {
		name := strings.TrimSuffix(filepath.Base(fx), ".json")
		t.Run(name, func(t *testing.T) {
			f := newHostFixture(t)
			f.codex("user_prompt_submit")
			f.agentActs()
			f.addSteps(sessionID, "Read the user service", "Add the cache")
			f.codex(name)
			if log := f.log(); log != "" {
				t.Errorf("the hook logged a failure: %s", log)
			}
		})
	}
}

// TestCodexShellFailure: the exit code in a Bash result, as older Codex
// releases wrote it, comes from the header before "Output:" alone; an
// output that prints "Process exited with code 3" of its own is no
// failure.
func TestCodexShellFailure(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ response, want string }{
		{`"Chunk ID: 2a6855\nWall time: 0.0000 seconds\nProcess exited with code 2\nOriginal token count: 14\nOutput:\nls: cannot access 'build': No such file or directory\n"`, "Exit code 2\nls: cannot access 'build': No such file or directory"},
		{`{"output": "Wall time: 0.1 seconds\nProcess exited with code 1\nOutput:\n"}`, "Exit code 1"},
		{`"Chunk ID: b99d3d\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 5\nOutput:\ndeploy log\n"`, ""},
		{`"Chunk ID: b99d3d\nProcess exited with code 0\nOutput:\ndeploy log\nProcess exited with code 3\n(retried, fine)\n"`, ""},
		{`"deploy log\nProcess exited with code 3\n(retried, fine)\n"`, ""},
		{`""`, ""},
	} {
		if got := codexShellFailure(json.RawMessage(c.response)); got != c.want {
			t.Errorf("%s: %q, want %q", c.response, got, c.want)
		}
	}
}
