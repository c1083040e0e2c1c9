package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// The payloads in testdata/hooks/real/<host>/ are what the real hosts sent
// plangit's hooks (Claude Code 2.1.328, Codex CLI 0.169.0, Gemini CLI
// 0.61.0, Copilot CLI 1.0.102, each run headless against a scripted model),
// named NN-Event[-tool].json in the order they came, with ids and paths
// normalised: {{SESSION}} the session id, {{CWD}} the project, {{RUN}}
// the directory the host ran in (its home, its transcripts).

// realRead is a member of a host's payload that plangit reads, as a path
// of member names, with its JSON type ('s' string, 'b' boolean, 'n'
// number, 'o' object, 'a' array, '*' any), on the events (the host's
// names; none: every event) whose payloads carry it.
type realRead struct {
	path   string
	kind   byte
	events []string
}

// realReads are, per host, the payload members plangit reads.
var realReads = map[string][]realRead{
	HostClaude: {
		{"session_id", 's', nil}, {"cwd", 's', nil}, {"hook_event_name", 's', nil}, {"transcript_path", 's', nil},
		{"source", 's', []string{"SessionStart"}}, {"prompt", 's', []string{"UserPromptSubmit"}},
		{"tool_name", 's', []string{"PreToolUse", "PostToolUse", "PostToolUseFailure"}},
		{"tool_input", 'o', []string{"PreToolUse", "PostToolUse", "PostToolUseFailure"}},
		{"tool_response", '*', []string{"PostToolUse"}},
		{"error", 's', []string{"PostToolUseFailure"}}, {"is_interrupt", 'b', []string{"PostToolUseFailure"}},
		{"stop_hook_active", 'b', []string{"Stop"}}, {"last_assistant_message", 's', []string{"Stop"}},
	},
	HostCodex: {
		{"session_id", 's', nil}, {"cwd", 's', nil}, {"hook_event_name", 's', nil}, {"transcript_path", 's', nil},
		{"source", 's', []string{"SessionStart"}}, {"prompt", 's', []string{"UserPromptSubmit"}},
		{"tool_name", 's', []string{"PreToolUse", "PostToolUse"}}, {"tool_input", 'o', []string{"PreToolUse", "PostToolUse"}},
		{"tool_use_id", 's', []string{"PostToolUse"}}, {"tool_response", 's', []string{"PostToolUse"}},
		{"stop_hook_active", 'b', []string{"Stop"}}, {"last_assistant_message", 's', []string{"Stop"}},
		{"trigger", 's', []string{"PreCompact"}},
	},
	HostGemini: {
		{"session_id", 's', nil}, {"cwd", 's', nil}, {"hook_event_name", 's', nil}, {"transcript_path", 's', nil},
		{"source", 's', []string{"SessionStart"}}, {"prompt", 's', []string{"BeforeAgent", "AfterAgent"}},
		{"tool_name", 's', []string{"BeforeTool", "AfterTool"}}, {"tool_input", 'o', []string{"BeforeTool", "AfterTool"}},
		{"tool_response", 'o', []string{"AfterTool"}}, {"tool_response.llmContent", '*', []string{"AfterTool"}},
		{"prompt_response", 's', []string{"AfterAgent"}}, {"stop_hook_active", 'b', []string{"AfterAgent"}},
		{"trigger", 's', []string{"PreCompress"}},
	},
	HostCopilot: {
		{"sessionId", 's', nil}, {"cwd", 's', nil}, {"timestamp", 'n', nil},
		{"source", 's', []string{"sessionStart"}}, {"prompt", 's', []string{"userPromptSubmitted"}},
		{"toolName", 's', []string{"preToolUse", "postToolUse", "postToolUseFailure"}},
		{"toolArgs", 'o', []string{"preToolUse", "postToolUse", "postToolUseFailure"}},
		{"toolResult", 'o', []string{"postToolUse"}}, {"toolResult.textResultForLlm", 's', []string{"postToolUse"}},
		{"error", 's', []string{"postToolUseFailure"}},
		{"stop_hook_active", 'b', []string{"agentStop"}}, {"transcriptPath", 's', []string{"agentStop"}},
	},
}

// realEvent is the event a recorded payload's name gives:
// "16-PostToolUse-Bash.json" is PostToolUse.
func realEvent(name string) string {
	parts := strings.Split(strings.TrimSuffix(name, ".json"), "-")
	if parts[0] == "variant" {
		return parts[len(parts)-1]
	}
	return parts[1]
}

// TestRealPayloads: every payload a real host sent carries each member
// plangit reads of it, with the type plangit reads, and the host's
// adapter decodes it.
func TestRealPayloads(t *testing.T) {
	for host, reads := range realReads {
		names, err := filepath.Glob(filepath.Join("..", "testdata", "hooks", "real", host, "*.json"))
		if err != nil || len(names) < 20 {
			t.Fatalf("%s: %d recorded payloads (%v)", host, len(names), err)
		}
		h, _ := HostNamed(host)
		for _, path := range names {
			name := filepath.Base(path)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var payload map[string]any
			if err := json.Unmarshal(b, &payload); err != nil {
				t.Fatalf("%s/%s: %v", host, name, err)
			}
			event := realEvent(name)
			for _, r := range reads {
				if r.events != nil && !slices.Contains(r.events, event) {
					continue
				}
				v, ok := memberAt(payload, r.path)
				if !ok {
					t.Errorf("%s/%s: no %s", host, name, r.path)
					continue
				}
				if !jsonKind(v, r.kind) {
					t.Errorf("%s/%s: %s is %T, not %c", host, name, r.path, v, r.kind)
				}
			}
			in, err := h.Decode(event, b)
			if err != nil {
				t.Errorf("%s/%s: %v", host, name, err)
				continue
			}
			if in.SessionID != "{{SESSION}}" || in.Cwd != "{{CWD}}" {
				t.Errorf("%s/%s: session %q, cwd %q", host, name, in.SessionID, in.Cwd)
			}
		}
	}
}

func memberAt(v any, path string) (any, bool) {
	for name := range strings.SplitSeq(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
	}
	return v, true
}

func jsonKind(v any, kind byte) bool {
	switch v.(type) {
	case string:
		return kind == 's' || kind == '*'
	case bool:
		return kind == 'b' || kind == '*'
	case float64:
		return kind == 'n' || kind == '*'
	case map[string]any:
		return kind == 'o' || kind == '*'
	case []any:
		return kind == 'a' || kind == '*'
	}
	return kind == '*'
}

// realRun is the directory a recorded payload's {{RUN}} names, made once
// per fixture.
func (f *fixture) realRun() string {
	if f.run0 == "" {
		f.run0 = f.t.TempDir()
	}
	return f.run0
}

// real sends a recorded payload (testdata/hooks/real/HOST/NAME.json) to
// host h, its event as the file name gives it, and returns stdout.
func (f *fixture) real(h Host, host, name string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", "real", host, name+".json"))
	if err != nil {
		f.t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte("{{RUN}}"), []byte(f.realRun()))
	return f.sendTo(h, realEvent(name+".json"), b)
}

// realFile copies a recorded file (testdata/hooks/real/HOST/NAME) to path
// under {{RUN}}, its ids and paths made this fixture's; keep, when not
// nil, says which lines to keep.
func (f *fixture) realFile(host, name, path string, keep func(line string) bool) {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", "real", host, name))
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for line := range strings.SplitSeq(strings.TrimRight(string(b), "\n"), "\n") {
		if keep == nil || keep(line) {
			line = strings.NewReplacer("{{CWD}}", f.root, "{{SESSION}}", sessionID, "{{RUN}}", f.realRun()).Replace(line)
			out = append(out, line)
		}
	}
	path = strings.NewReplacer("{{SESSION}}", sessionID).Replace(path)
	path = filepath.Join(f.realRun(), path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// codexTranscript is where the recorded Codex payloads' transcript_path
// points, under {{RUN}}.
const codexTranscript = "codexhome/sessions/<Y>/<M>/<D>/rollout-<TIME>-{{SESSION}}.jsonl"

// TestRealCodexFailures: Codex's PostToolUse for a shell command holds its
// raw output alone ("" for false as for mkdir -p); the exit code is read
// from the transcript by the call's id, so ls (exit 2) and false (exit 1)
// are logged, mkdir is not, and ls succeeding later resolves its error.
// Suggested commands name no --session: the agent's shell has
// CODEX_THREAD_ID, though the hook's environment does not.
func TestRealCodexFailures(t *testing.T) {
	f := newHostFixture(t)
	f.realFile(HostCodex, "transcript-at-08-false.jsonl", codexTranscript, nil)
	for _, name := range []string{"01-SessionStart", "02-UserPromptSubmit", "03-PreToolUse-Bash", "04-PostToolUse-Bash"} {
		f.real(Codex{}, HostCodex, name)
	}
	f.addSteps(sessionID, "Write the cache")
	f.real(Codex{}, HostCodex, "16-PostToolUse-Bash") // ls build: exit 2
	f.real(Codex{}, HostCodex, "18-PostToolUse-Bash") // false: exit 1
	f.real(Codex{}, HostCodex, "20-PostToolUse-Bash") // mkdir -p build: exit 0
	errs := f.state(sessionID).Errors
	ls, fls := errs.ByID("1"), errs.ByID("2")
	if len(errs) != 2 || ls == nil || fls == nil || ls.Key != "ls build" || !strings.HasPrefix(ls.Message, "Exit code 2\nls: cannot access 'build'") ||
		fls.Key != "false" || fls.Message != "Exit code 1" {
		for _, e := range errs {
			t.Logf("%+v", *e)
		}
		t.Fatal("the failures the transcript holds")
	}
	// The transcript as it stands when ls build succeeds (call_s9_10,
	// exit 0): the error is resolved.
	f.realFile(HostCodex, "transcript-at-08-false.jsonl", codexTranscript, nil)
	appendCodexItem(t, filepath.Join(f.realRun(), strings.ReplaceAll(codexTranscript, "{{SESSION}}", sessionID)), "call_s9_10", "ls build", "", 0)
	out := f.real(Codex{}, HostCodex, "22-PostToolUse-Bash")
	if !strings.Contains(out, "Error #1 is resolved") {
		t.Errorf("ls build succeeding: %s", out)
	}
	stop := checkCodex(t, "Stop", f.real(Codex{}, HostCodex, "29-Stop"))
	if r, _ := stop["reason"].(string); !strings.Contains(r, "plangit step done ID") || strings.Contains(r, "--session") {
		t.Errorf("the stop reason names no --session: %v", stop)
	}
	if log := f.log(); log != "" {
		t.Errorf("logged: %s", log)
	}
}

// appendCodexItem appends to a Codex transcript the item_completed event
// of a shell command, in the shape Codex 0.169.0 writes it.
func appendCodexItem(t *testing.T, path, id, command, output string, code int) {
	t.Helper()
	line, _ := json.Marshal(map[string]any{"timestamp": "2026-11-25T21:44:50.000Z", "type": "event_msg", "payload": map[string]any{
		"type": "item_completed", "item": map[string]any{"type": "CommandExecution", "id": id, "command": []string{"/bin/bash", "-lc", command},
			"status": "completed", "aggregated_output": output, "exit_code": code}}})
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	fh.Write(append(line, '\n'))
}

// TestRealCodexTranscriptMissing: a transcript that cannot be read, or
// holds no item for the call (a command that outlived Codex's yield time
// and was polled), logs nothing: no error, no failure of the hook.
func TestRealCodexTranscriptMissing(t *testing.T) {
	f := newHostFixture(t)
	f.real(Codex{}, HostCodex, "02-UserPromptSubmit")
	f.real(Codex{}, HostCodex, "04-PostToolUse-Bash")
	f.addSteps(sessionID, "Write the cache")
	f.real(Codex{}, HostCodex, "16-PostToolUse-Bash") // no transcript at all
	f.realFile(HostCodex, "transcript-at-08-false.jsonl", codexTranscript, func(line string) bool { return !strings.Contains(line, `"call_s7_8"`) })
	f.real(Codex{}, HostCodex, "18-PostToolUse-Bash") // false, its item gone
	if errs := f.state(sessionID).Errors; len(errs) != 0 {
		t.Errorf("nothing known to have failed: %+v", errs[0])
	}
	if log := f.log(); log != "" {
		t.Errorf("logged: %s", log)
	}
}

// TestRealCodexDeny: a denial's reason does not end in ".", to which Codex
// appends ". Command: …".
func TestRealCodexDeny(t *testing.T) {
	f := newHostFixture(t)
	f.config(`{"plan_confirmation": true}`)
	f.real(Codex{}, HostCodex, "02-UserPromptSubmit")
	f.agentActs()
	a := checkCodex(t, "PreToolUse", f.real(Codex{}, HostCodex, "13-PreToolUse-apply_patch"))
	h, _ := a["hookSpecificOutput"].(map[string]any)
	if r, _ := h["permissionDecisionReason"].(string); h["permissionDecision"] != "deny" || r == "" || strings.HasSuffix(r, ".") {
		t.Errorf("%v", a)
	}
}

// copilotTranscript is where the recorded Copilot payloads'
// transcriptPath points, under {{RUN}}.
const copilotTranscript = "home/.copilot/session-state/{{SESSION}}/events.jsonl"

// TestRealCopilot: Copilot CLI reports a failed command as a success whose
// text ends "<shellId: N completed with exit code M>": logged, and
// resolved when it later succeeds; suggested commands name no --session
// (COPILOT_AGENT_SESSION_ID is in the agent's shell); agentStop, which
// carries no message, reads [Step] lines from the transcript.
func TestRealCopilot(t *testing.T) {
	f := newHostFixture(t)
	for _, name := range []string{"01-sessionStart", "02-userPromptSubmitted", "03-preToolUse-bash", "04-postToolUse-bash"} {
		f.real(Copilot{}, HostCopilot, name)
	}
	f.addSteps(sessionID, "Write the cache", "Test the cache")
	f.real(Copilot{}, HostCopilot, "22-postToolUse-bash") // ls cachedir: exit code 2
	errs := f.state(sessionID).Errors
	if len(errs) != 1 || errs[0].Key != "ls cachedir" || !strings.HasPrefix(errs[0].Message, "Exit code 2\nls: cannot access 'cachedir'") ||
		strings.Contains(errs[0].Message, "shellId") {
		t.Fatalf("the failed command: %+v", errs)
	}
	if out := f.real(Copilot{}, HostCopilot, "30-postToolUse-bash"); !strings.Contains(out, "Error #1 is resolved") {
		t.Errorf("ls cachedir succeeding: %s", out)
	}
	// The transcript up to the turn's last message, which declares a step.
	final := false
	f.realFile(HostCopilot, "events.jsonl", copilotTranscript, func(line string) bool {
		keep := !final
		final = final || strings.Contains(line, `"content":"FM-FINAL: `)
		return keep
	})
	path := filepath.Join(f.realRun(), strings.ReplaceAll(copilotTranscript, "{{SESSION}}", sessionID))
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"content":"FM-FINAL: the cache is written and step 1 is done."`),
		[]byte(`"content":"FM-FINAL: the cache is written and step 1 is done.\n\n[Step] Document the cache"`), 1), 0o644)
	a := answer(t, "agentStop", f.real(Copilot{}, HostCopilot, "40-agentStop"), map[string]byte{"decision": 's', "reason": 's'})
	if r, _ := a["reason"].(string); a["decision"] != "block" || !strings.Contains(r, "plangit step done ID") || strings.Contains(r, "--session") {
		t.Errorf("the stop: %v", a)
	}
	steps := f.state(sessionID).Plan.Steps()
	if last := steps[len(steps)-1]; last.Text != "Document the cache" || last.Status != plan.StepPending {
		t.Errorf("[Step] in the transcript: %+v", last)
	}
	if log := f.log(); log != "" {
		t.Errorf("logged: %s", log)
	}
}
