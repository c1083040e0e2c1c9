package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render/brief"
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
	t.Parallel()
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
	b = bytes.ReplaceAll(b, []byte("{{RUN}}"), inJSON(f.realRun()))
	b = []byte(recordedDate.Replace(string(b)))
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
			// The recorded files are JSON lines: paths as JSON writes them.
			line = strings.NewReplacer("{{CWD}}", string(inJSON(f.root)), "{{SESSION}}", sessionID, "{{RUN}}", string(inJSON(f.realRun()))).Replace(line)
			out = append(out, line)
		}
	}
	path = recordedDate.Replace(strings.NewReplacer("{{SESSION}}", sessionID).Replace(path))
	path = filepath.Join(f.realRun(), path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// recordedDate fills what the recorded paths name as <Y>, <M>, <D>, <TIME>
// and <SHORTID>: Windows allows no < or > in a file's name.
var recordedDate = strings.NewReplacer("<Y>", "2026", "<M>", "11", "<D>", "20", "<TIME>", "2026-11-20T10-00-00", "<SHORTID>", "6b1d8c2e")

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
	t.Parallel()
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
	appendCodexItem(t, filepath.Join(f.realRun(), recordedDate.Replace(strings.ReplaceAll(codexTranscript, "{{SESSION}}", sessionID))), "call_s9_10", "ls build", "", 0)
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// geminiTranscript is where the recorded Gemini payloads' transcript_path
// points, under {{RUN}}.
const geminiTranscript = "home/.gemini/tmp/proj/chats/session-<TIME>-<SHORTID>.jsonl"

// TestRealGemini plays Gemini CLI 0.61.0's payloads: PreCompress before
// every request commits nothing; a failed command's error is logged
// without Gemini's wrapper; a tool that errored, of which Gemini shows the
// model only the error, gets plangit's context in a denial's reason,
// which replaces the result; the AfterAgent reason handed back as the
// next BeforeAgent prompt is not read as the person's, and answered with
// nothing; a compaction the transcript shows checkpoints once and
// recalls the plan.
func TestRealGemini(t *testing.T) {
	t.Parallel()
	f := newHostFixture(t)
	for _, name := range []string{"01-SessionStart", "02-BeforeAgent", "03-PreCompress", "04-BeforeTool-run_shell_command", "05-AfterTool-run_shell_command"} {
		f.real(Gemini{}, HostGemini, name)
	}
	f.addSteps(sessionID, "Write the cache", "Test the cache")
	revs := len(f.revisions(sessionID))
	for range 3 {
		if out := f.real(Gemini{}, HostGemini, "06-PreCompress"); strings.TrimSpace(out) != "{}" {
			t.Errorf("PreCompress: %s", out)
		}
	}
	if got := len(f.revisions(sessionID)); got != revs {
		t.Errorf("PreCompress before every request made %d revisions", got-revs)
	}

	f.real(Gemini{}, HostGemini, "29-AfterTool-run_shell_command") // ls build: Exit Code: 2
	errs := f.state(sessionID).Errors
	if len(errs) != 1 || errs[0].Message != "Exit code 2\nls: cannot access 'build': No such file or directory" {
		t.Fatalf("the failed command's error: %+v", errs)
	}

	// read_file of a missing file, three times: the third strike's advice
	// goes in a denial, with the tool's error.
	f.real(Gemini{}, HostGemini, "20-AfterTool-read_file")
	f.real(Gemini{}, HostGemini, "20-AfterTool-read_file")
	a := answer(t, "AfterTool", f.real(Gemini{}, HostGemini, "20-AfterTool-read_file"), map[string]byte{"decision": 's', "reason": 's'})
	if r, _ := a["reason"].(string); a["decision"] != "deny" || !strings.HasPrefix(r, "[plangit] Error #2: this failed 3 times") ||
		!strings.Contains(r, "\n"+brief.FenceOpen+"\nTool error: File not found: "+f.root+"/missing.txt\n") {
		t.Errorf("the third strike on a tool that errored: %v", a)
	}

	// The stop gate, then its reason as the next prompt.
	stop := answer(t, "AfterAgent", f.real(Gemini{}, HostGemini, "49-AfterAgent"), map[string]byte{"decision": 's', "reason": 's'})
	if stop["decision"] != "deny" {
		t.Fatalf("the stop: %v", stop)
	}
	s, _ := f.proj().Open(sessionID)
	before, _ := os.ReadFile(s.PrivatePath(hookwire.TurnFile))
	if out := f.real(Gemini{}, HostGemini, "50-BeforeAgent"); strings.TrimSpace(out) != "{}" {
		t.Errorf("plangit's own reason as the prompt: %s", out)
	}
	if after, _ := os.ReadFile(s.PrivatePath(hookwire.TurnFile)); !bytes.Equal(before, after) {
		t.Errorf("the turn memory started over on plangit's own words:\n%s\n%s", before, after)
	}

	// A compaction: the last response's prompt is a third of the one
	// before. The next tool's answer recalls the plan, once.
	path := filepath.Join(f.realRun(), recordedDate.Replace(geminiTranscript))
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"sessionId":"s","projectHash":"h","startTime":"2026-11-25T21:47:00.000Z","lastUpdated":"2026-11-25T21:47:00.000Z","kind":"main"}
{"id":"m1","timestamp":"2026-11-25T21:47:01.000Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":600000,"output":10,"cached":0,"thoughts":0,"tool":0,"total":600010},"model":"gemini-2.5-pro"}
{"$set":{"lastUpdated":"2026-11-25T21:47:02.000Z"}}
{"id":"m2","timestamp":"2026-11-25T21:47:03.000Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":190000,"output":10,"cached":0,"thoughts":0,"tool":0,"total":190010},"model":"gemini-2.5-pro"}
{"id":"m2","timestamp":"2026-11-25T21:47:03.000Z","type":"gemini","content":"","thoughts":[],"tokens":{"input":190000,"output":10,"cached":0,"thoughts":0,"tool":0,"total":190010},"model":"gemini-2.5-pro","toolCalls":[]}
`), 0o644)
	revs = len(f.revisions(sessionID))
	out := f.real(Gemini{}, HostGemini, "05-AfterTool-run_shell_command")
	if !strings.Contains(out, "[plangit] Your plan (session "+sessionID+")") {
		t.Errorf("after a compaction, the plan recalled: %s", out)
	}
	if out := f.real(Gemini{}, HostGemini, "05-AfterTool-run_shell_command"); strings.Contains(out, "Your plan") {
		t.Errorf("recalled twice: %s", out)
	}
	revisions := f.revisions(sessionID)
	if last := revisions[len(revisions)-1]; len(revisions) != revs+1 || !strings.Contains(last.Summary, "the context was compacted") {
		t.Errorf("one checkpoint: %d revisions, %+v", len(revisions)-revs, last)
	}
	if log := f.log(); log != "" {
		t.Errorf("logged: %s", log)
	}
}

// TestGeminiShellOutput: the command's output in run_shell_command's
// llmContent, as 0.61.0 wraps it and as earlier releases wrote it.
func TestGeminiShellOutput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ llm, want string }{
		{"<untrusted_context>\nOutput: ls: cannot access 'build': No such file or directory\nExit Code: 2\nProcess Group PGID: 7533\n</untrusted_context>", "ls: cannot access 'build': No such file or directory"},
		{"<untrusted_context>\nOutput: (empty)\nExit Code: 1\nProcess Group PGID: 7534\n</untrusted_context>", ""},
		{"Command: go test ./...\nDirectory: (root)\nOutput: --- FAIL: TestCache (0.01s)\nFAIL\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4243", "--- FAIL: TestCache (0.01s)\nFAIL"},
	} {
		if got := geminiShellOutput(c.llm); got != c.want {
			t.Errorf("%q: got %q", c.llm, got)
		}
	}
}

// TestGeminiExitCode: the exit code comes from Gemini's lines after the
// output, never from the output itself. A command that exited 0 has no
// Exit Code line (0.61.0), whatever its output prints.
func TestGeminiExitCode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ llm, code, output string }{
		{"<untrusted_context>\nOutput: ls: cannot access 'build'\nExit Code: 2\nProcess Group PGID: 7533\n</untrusted_context>", "2", "ls: cannot access 'build'"},
		{"<untrusted_context>\nOutput: case A\nExit Code: 1\ncase B: ok\nProcess Group PGID: 4242\n</untrusted_context>", "", ""},
		{"<untrusted_context>\nOutput: case A\nExit Code: 1\ncase B: failed\nExit Code: 3\nProcess Group PGID: 4242\n</untrusted_context>", "3", "case A\nExit Code: 1\ncase B: failed"},
		{"Command: go test ./...\nDirectory: (root)\nOutput: --- FAIL: TestCache\nError: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4243", "1", "--- FAIL: TestCache"},
		{"<untrusted_context>\nOutput: ok\nProcess Group PGID: 7535\n</untrusted_context>", "", ""},
	} {
		if got := geminiExitCode(c.llm); got != c.code {
			t.Errorf("%q: exit code %q, want %q", c.llm, got, c.code)
		}
		if c.code == "" {
			continue
		}
		if got := geminiShellOutput(c.llm); got != c.output {
			t.Errorf("%q: output %q, want %q", c.llm, got, c.output)
		}
	}
}

// modelText is what an answer puts before the model: additional context,
// a stop's reason, a denial's reason.
func modelText(t *testing.T, out string) []string {
	t.Helper()
	if strings.TrimSpace(out) == "" {
		return nil
	}
	var a struct {
		Context  string `json:"additionalContext"` // Copilot CLI's, top-level
		Reason   string `json:"reason"`
		Decision string `json:"decision"`
		Specific struct {
			Context string `json:"additionalContext"`
			Reason  string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var texts []string
	for _, s := range []string{a.Context, a.Specific.Context, a.Specific.Reason, a.Reason} {
		if s != "" {
			texts = append(texts, s)
		}
	}
	return texts
}

// turnBudget is the most plangit may say to the model over the scripted
// turn, on Claude Code and Codex CLI (bytes).
const turnBudget = 1200

// replayTurn sends a host's recorded turn, payload by payload, doing
// before each what the agent's own plangit commands did then (acts, by
// payload number), and returns every text that reached the model. The
// payloads skip names are left out: what the host sent because plangit
// did then what it no longer does.
func (f *fixture) replayTurn(h Host, host string, last int, skip map[int]bool, acts map[int]func()) []string {
	f.t.Helper()
	names, _ := filepath.Glob(filepath.Join("..", "testdata", "hooks", "real", host, "[0-9]*.json"))
	var said []string
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		var n int
		for _, c := range name[:2] {
			n = n*10 + int(c-'0')
		}
		if n > last {
			break
		}
		if skip[n] {
			continue
		}
		for i := range n + 1 {
			if act, ok := acts[i]; ok {
				act()
				delete(acts, i)
			}
		}
		out := f.real(h, host, name)
		if os.Getenv("PLANGIT_REPLAY_DEBUG") != "" {
			f.t.Logf("%s: %s", name, out)
		}
		for _, s := range modelText(f.t.(*testing.T), out) {
			if strings.Contains(s, "TodoWrite") && host == HostClaude {
				f.t.Errorf("%s names TodoWrite, which Claude Code's -p mode does not offer: %s", name, s)
			}
			said = append(said, s)
		}
	}
	return said
}

// checkTurn: what reached the model over the turn is within the budget
// and says nothing twice.
func checkTurn(t *testing.T, said []string) {
	t.Helper()
	total := 0
	seen := map[string]bool{}
	for _, s := range said {
		total += len(s)
		for line := range strings.SplitSeq(s, "\n") {
			if strings.HasSuffix(line, brief.FenceOpen) || line == brief.FenceClose {
				continue // the block of recorded text opens and closes alike every time
			}
			if seen[line] && strings.TrimSpace(line) != "" {
				t.Errorf("said twice: %s", line)
			}
			seen[line] = true
		}
	}
	if total > turnBudget || total == 0 {
		t.Errorf("%d bytes reached the model over the turn (budget %d):\n%s", total, turnBudget, strings.Join(said, "\n---\n"))
	}
	t.Logf("%d bytes in %d texts", total, len(said))
}

// agentStep is what the agent's own plangit command did at a point of a
// replayed turn: act on step id, or, with act "", add "Write the cache".
func (f *fixture) agentStep(id string, act plan.Action) func() {
	return func() {
		f.change(sessionID, func(p *plan.Plan) (plan.Change, error) {
			if act == "" {
				_, err := p.AddStep(plan.StepSpec{Text: "Write the cache"}, f.now)
				return plan.Change{Op: "step.add", Summary: "step add"}, err
			}
			_, err := p.Transition(id, act, plan.TransitionOpts{Result: "done", Force: true}, f.now)
			return plan.Change{Op: "step." + string(act), Summary: "step " + string(act)}, err
		})
	}
}

// TestRealClaudeTurn replays Claude Code 2.1.328's scripted turn: the
// plan started from the prompt, the agent's steps, a failure and its
// resolution, Task tools, MCP, the stop gate. The held Stop is
// additionalContext, which reaches the model once, and the second Stop
// (stop_hook_active) passes; within the budget, nothing twice, TodoWrite
// never named.
func TestRealClaudeTurn(t *testing.T) {
	t.Parallel()
	f := newFixture(t) // CLAUDE_CODE_SESSION_ID in the hooks' environment
	step := f.agentStep
	// 08 is the agent's plangit init failing, as it did before init took
	// over a plan the hooks started from the prompt.
	said := f.replayTurn(Claude{}, HostClaude, 43, map[int]bool{8: true}, map[int]func(){11: step("", ""), 14: step("1", plan.ActStart), 39: step("1", plan.ActDone)})
	checkTurn(t, said)
	if last := said[len(said)-1]; !strings.Contains(last, "not done") {
		t.Errorf("the stop gate held last: %s", last)
	}
	if log := f.log(); log != "" {
		t.Errorf("logged: %s", log)
	}
}

// TestRealCodexTurn replays Codex CLI 0.169.0's scripted turn, with its
// transcript: no --session anywhere, the failures logged, within the
// budget, nothing twice.
func TestRealCodexTurn(t *testing.T) {
	t.Parallel()
	f := newHostFixture(t)
	f.realFile(HostCodex, "transcript-at-08-false.jsonl", codexTranscript, nil)
	path := filepath.Join(f.realRun(), recordedDate.Replace(strings.ReplaceAll(codexTranscript, "{{SESSION}}", sessionID)))
	// call_s1_2 is the agent's plangit init, which failed before init took
	// over a plan the hooks started from the prompt.
	for _, c := range []struct {
		id, command string
	}{{"call_s1_2", "plangit init"}, {"call_s8_9", "mkdir -p build"}, {"call_s9_10", "ls build"}, {"call_s11_12", "plangit step done 1"}, {"call_s12_13", "plangit show"}} {
		appendCodexItem(t, path, c.id, c.command, "", 0)
	}
	step := f.agentStep
	said := f.replayTurn(Codex{}, HostCodex, 30, nil, map[int]func(){6: step("", ""), 8: step("1", plan.ActStart), 26: step("1", plan.ActDone)})
	checkTurn(t, said)
	for _, s := range said {
		if strings.Contains(s, "--session") {
			t.Errorf("--session: %s", s)
		}
	}
	if errs := f.state(sessionID).Errors; len(errs) != 2 {
		t.Errorf("ls build and false logged: %+v", errs)
	}
	if log := f.log(); log != "" {
		t.Errorf("logged: %s", log)
	}
}

// TestRealCopilotTurn replays Copilot CLI 1.0.102's scripted turn, the
// agent's plangit commands reaching the hooks' session through
// COPILOT_AGENT_SESSION_ID: no --session anywhere, nothing said twice, the
// failed command logged, the stop held.
func TestRealCopilotTurn(t *testing.T) {
	t.Parallel()
	f := newHostFixture(t)
	act := func(fn func(p *plan.Plan) error) func() {
		return func() {
			f.change(sessionID, func(p *plan.Plan) (plan.Change, error) { return plan.Change{Op: "step", Summary: "step"}, fn(p) })
		}
	}
	add := func(text string) func() {
		return act(func(p *plan.Plan) error { _, err := p.AddStep(plan.StepSpec{Text: text}, f.now); return err })
	}
	move := func(a plan.Action) func() {
		return act(func(p *plan.Plan) error {
			_, err := p.Transition("1", a, plan.TransitionOpts{Result: "done"}, f.now)
			return err
		})
	}
	said := f.replayTurn(Copilot{}, HostCopilot, 40, nil, map[int]func(){10: add("Write the cache"), 13: add("Test the cache"), 16: move(plan.ActStart), 37: move(plan.ActDone)})
	checkTurn(t, said)
	for _, s := range said {
		if strings.Contains(s, "--session") {
			t.Errorf("--session: %s", s)
		}
	}
	if last := said[len(said)-1]; !strings.Contains(last, "1 of 2 steps is not done") {
		t.Errorf("the stop gate held last: %s", last)
	}
	if e := f.state(sessionID).Errors.ByID("1"); e == nil || e.Key != "ls cachedir" || !e.Resolved {
		t.Errorf("the failed command, logged and resolved: %+v", e)
	}
	if log := f.log(); log != "" {
		t.Errorf("logged: %s", log)
	}
}
