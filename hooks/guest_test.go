package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// Helpers for the tests of the hosts other than Claude Code whose payloads
// live in testdata/hooks/<host>/.

// newHostFixture is a project whose hook process has no Claude Code
// variables, and a home of its own (where user-scope hook files go).
func newHostFixture(t *testing.T) *fixture {
	f := newFixture(t)
	f.environ = map[string]string{"HOME": t.TempDir()}
	return f
}

// runAs sends a stored payload (testdata/hooks/PATH) to h — nil: the host
// is recognised from the payload, as for a hook in Claude Code's settings
// — with event as the command line names it, and returns stdout. The exit
// code must be 0 and the answer JSON or nothing.
func (f *fixture) runAs(h Host, event, path string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", path))
	if err != nil {
		f.t.Fatal(err)
	}
	return f.sendTo(h, event, b)
}

// sendTo is runAs with the payload given.
func (f *fixture) sendTo(h Host, event string, b []byte) string {
	f.t.Helper()
	b = bytes.ReplaceAll(b, []byte("{{CWD}}"), inJSON(f.root))
	b = bytes.ReplaceAll(b, []byte("{{SESSION}}"), []byte(sessionID))
	f.now = f.now.Add(time.Minute)
	now := f.now
	out, code := Run(h, event, bytes.NewReader(b), Env{Now: func() time.Time { return now }, Publish: f.publish,
		Getenv: func(name string) string { return f.environ[name] }})
	if code != 0 {
		f.t.Fatalf("%s: exit code %d", event, code)
	}
	if len(out) > 0 && !json.Valid(out) {
		f.t.Fatalf("%s: output is not JSON: %s", event, out)
	}
	return string(out)
}

// answer decodes a JSON answer, checking that it has only the fields
// allowed, each of the JSON type given ('s' string, 'b' boolean, 'o'
// object).
func answer(t *testing.T, what, out string, allowed map[string]byte) map[string]any {
	t.Helper()
	if out == "" {
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("%s: %v: %s", what, err, out)
	}
	got := map[string]any{}
	for k, v := range raw {
		kind, ok := allowed[k]
		if !ok {
			t.Errorf("%s: field %q is not in the host's contract: %s", what, k, out)
			continue
		}
		var x any
		json.Unmarshal(v, &x)
		switch x.(type) {
		case string:
			ok = kind == 's'
		case bool:
			ok = kind == 'b'
		case map[string]any:
			ok = kind == 'o'
		default:
			ok = false
		}
		if !ok {
			t.Errorf("%s: field %q has the wrong type: %s", what, k, out)
		}
		got[k] = x
	}
	return got
}

// addSteps gives a session's plan steps, as the agent's shell would
// (plangit --session ID step add …), and starts the first.
func (f *fixture) addSteps(id string, texts ...string) {
	f.t.Helper()
	s, err := f.proj().Open(id)
	if err != nil {
		f.t.Fatal(err)
	}
	_, err = s.Update(repo.Options{Now: f.now}, func(st *plan.State) (plan.Change, error) {
		for _, text := range texts {
			if _, err := st.Plan.AddStep(plan.StepSpec{Text: text}, f.now); err != nil {
				return plan.Change{}, err
			}
		}
		if _, err := st.Plan.Transition("1", plan.ActStart, plan.TransitionOpts{}, f.now); err != nil {
			return plan.Change{}, err
		}
		return plan.Change{Op: "step.add", Summary: "steps added"}, nil
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// writeFile writes a file under dir, making its directories.
func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRecognise(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path string
		want Host
	}{
		{"session_start_startup.json", Claude{}},
		{"pre_tool_use_bash.json", Claude{}},
		{"post_tool_use_failure_bash.json", Claude{}},
		{"stop.json", Claude{}},
		{"cursor/session_start.json", Cursor{}},
		{"cursor/pre_tool_use_shell.json", Cursor{}},
		{"cursor/stop.json", Cursor{}},
		{"copilot/session_start.json", Copilot{}},
		{"copilot/pre_tool_use_bash.json", Copilot{}},
		{"copilot/agent_stop.json", Copilot{}},
		{"copilot/pascal_pre_tool_use.json", Copilot{}},
		{"copilot/pascal_stop.json", Copilot{}},
		{"gemini/session_start.json", Gemini{}},
		{"gemini/before_tool_shell.json", Gemini{}},
		{"gemini/after_agent.json", Gemini{}},
		{"codex/pre_tool_use_bash.json", Claude{}}, // Codex's entries name it: --host codex
	} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", c.path))
		if err != nil {
			t.Fatal(err)
		}
		if got := recognise("", b); got != c.want {
			t.Errorf("%s: recognised as %T, want %T", c.path, got, c.want)
		}
		if got := recognise("", append([]byte("\xef\xbb\xbf"), b...)); got != c.want {
			t.Errorf("%s after a BOM: recognised as %T, want %T", c.path, got, c.want)
		}
	}
	for payload, want := range map[string]Host{
		`{"hook_event_name":"preToolUse","session_id":"s"}`:                                                 Cursor{},
		`{"hook_event_name":"SessionStart","session_id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/p"}`: Copilot{},
		// Gemini CLI's SessionStart: a string timestamp too, but with transcript_path.
		`{"hook_event_name":"SessionStart","session_id":"s","timestamp":"2026-01-01T00:00:00Z","transcript_path":"/t","cwd":"/p"}`: Gemini{},
		`{"hook_event_name":"PreToolUse","session_id":"s","timestamp":1795687200000}`:                                              Claude{},
		`not json`: Claude{},
	} {
		if got := recognise("", []byte(payload)); got != want {
			t.Errorf("%s: recognised as %T, want %T", payload, got, want)
		}
	}
}

func TestHostRows(t *testing.T) {
	t.Parallel()
	for _, host := range []string{HostCursor, HostCopilot} {
		evs, err := HostEvents(host)
		if err != nil {
			t.Fatal(err)
		}
		var mapped []string
		for _, ev := range evs {
			mapped = append(mapped, ev.Event)
			if got := hostEvent(host, ev.Name); got != ev.Event {
				t.Errorf("%s %s reads as %q", host, ev.Name, got)
			}
		}
		if !slices.Equal(mapped, repo.HookEvents) {
			t.Errorf("%s hooks %v, want every plangit event in order", host, mapped)
		}
	}
}

func TestNativeHooksInstalled(t *testing.T) {
	t.Parallel()
	root, home := t.TempDir(), t.TempDir()
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	if nativeHooksInstalled(HostCursor, root, getenv) || nativeHooksInstalled(HostCopilot, root, getenv) {
		t.Fatal("no files, yet installed")
	}
	// Another tool's hooks, a malformed file, a plangit command that is no hook.
	writeFile(t, filepath.Join(root, ".cursor", "hooks.json"), `{"version":1,"hooks":{"stop":[{"command":"./audit.sh"},{"command":"plangit show"}]}}`)
	writeFile(t, filepath.Join(root, ".github", "hooks", "broken.json"), `{"version":1,"hooks":{"preToolUse":[{"bash":"plangit hook preToolUse"`)
	if nativeHooksInstalled(HostCursor, root, getenv) || nativeHooksInstalled(HostCopilot, root, getenv) {
		t.Fatal("found plangit where it is not")
	}
	for _, c := range []struct {
		host, path, text string
	}{
		{HostCursor, filepath.Join(root, ".cursor", "hooks.json"), `{"version":1,"hooks":{"stop":[{"command":"./audit.sh"},{"command":"'/opt/my tools/plangit' hook stop --host cursor","timeout":30}]}}`},
		{HostCursor, filepath.Join(home, ".cursor", "hooks.json"), "\xef\xbb\xbf" + `{"version":1,"hooks":{"preToolUse":[{"type":"command","command":"plangit hook preToolUse --host cursor"}]}}`},
		{HostCopilot, filepath.Join(root, ".github", "hooks", "plangit.json"), `{"version":1,"hooks":{"preToolUse":[{"type":"command","exec":"/usr/local/bin/plangit","args":["hook","preToolUse","--host","copilot"],"timeoutSec":30}]}}`},
		{HostCopilot, filepath.Join(home, ".copilot", "hooks", "mine.json"), `{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"plangit hook agentStop --host copilot"}]}}`},
	} {
		t.Run(c.path, func(t *testing.T) {
			writeFile(t, c.path, c.text)
			defer os.Remove(c.path)
			if !nativeHooksInstalled(c.host, root, getenv) {
				t.Errorf("%s: not found", c.text)
			}
		})
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestActOnce: Cursor and Copilot CLI run the hooks of Claude Code's
// settings files beside their own, so plangit installed in both sees each
// event twice — once through `plangit hook EVENT` (Claude Code's settings,
// no host named, the payload the other host's) and once through `plangit
// hook EVENT --host HOST` (the host's own file). It changes the plan once
// and injects once; with plangit only in Claude Code's settings, those
// hooks answer as the host.
func TestActOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		host         Host
		claudeEvent  string // as Claude Code's settings name it
		claudePath   string // the payload Claude Code's settings' hook gets
		nativeEvent  string // as the host's file names it
		nativePath   string
		hookFile     string // where plangit's native hooks go, under the project ("~/": the home)
		hookFileText string
		key          string // the answer's context field
	}{
		{Cursor{}, "PostToolUseFailure", "cursor/post_tool_use_failure_shell.json", "postToolUseFailure", "cursor/post_tool_use_failure_shell.json",
			".cursor/hooks.json", `{"version":1,"hooks":{"postToolUseFailure":[{"command":"plangit hook postToolUseFailure --host cursor","timeout":30}]}}`, "additional_context"},
		{Cursor{}, "PostToolUseFailure", "cursor/post_tool_use_failure_shell.json", "postToolUseFailure", "cursor/post_tool_use_failure_shell.json",
			"~/.cursor/hooks.json", `{"version":1,"hooks":{"preToolUse":[{"command":"plangit hook preToolUse --host cursor"}]}}`, "additional_context"},
		// Copilot sends Claude Code's settings' hooks its PascalCase format.
		{Copilot{}, "PostToolUseFailure", "copilot/pascal_post_tool_use_failure.json", "postToolUseFailure", "copilot/post_tool_use_failure_bash.json",
			".github/hooks/plangit.json", `{"version":1,"hooks":{"postToolUseFailure":[{"type":"command","exec":"plangit","args":["hook","postToolUseFailure","--host","copilot"],"timeoutSec":30}]}}`, "additionalContext"},
		{Copilot{}, "PostToolUseFailure", "copilot/pascal_post_tool_use_failure.json", "postToolUseFailure", "copilot/post_tool_use_failure_bash.json",
			"~/.copilot/hooks/plangit.json", `{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"plangit hook agentStop --host copilot"}]}}`, "additionalContext"},
	} {
		t.Run(fmt.Sprintf("%T %s", c.host, c.hookFile), func(t *testing.T) {
			f := newHostFixture(t)
			msg := map[string]string{"additional_context": "Command timed out after 30s", "additionalContext": "--- FAIL: TestCache (0.01s)"}[c.key]
			// Two failures already: the next is the third strike, said once.
			f.withPlan(sessionID, func(st *plan.State) {
				for range 2 {
					st.Errors.Record(plan.ErrorRecord{Tool: "Bash", Message: msg, Step: "2", Key: "go test ./..."}, t0)
				}
			})
			count := func() int {
				for _, e := range f.state(sessionID).Errors {
					if e.Message == msg {
						return e.Count
					}
				}
				return 0
			}
			// Only in Claude Code's settings: that hook acts, as the host.
			out := f.runAs(nil, c.claudeEvent, c.claudePath)
			if !strings.Contains(out, `"`+c.key+`":"[plangit] Error #2: this failed 3 times`) || !strings.Contains(out, "Bash `go test ./...`: ") || count() != 3 {
				t.Fatalf("alone, the settings' hook acts as %T: %s (count %d)", c.host, out, count())
			}

			path := filepath.Join(f.root, c.hookFile)
			if home, ok := strings.CutPrefix(c.hookFile, "~/"); ok {
				path = filepath.Join(f.environ["HOME"], home)
			}
			writeFile(t, path, c.hookFileText)
			revs := len(f.revisions(sessionID))
			f.newTurn(sessionID)
			// Both paths, in either order: one change, one answer.
			claude := f.runAs(nil, c.claudeEvent, c.claudePath)
			native := f.runAs(c.host, c.nativeEvent, c.nativePath)
			if claude != "" || !strings.Contains(native, `"`+c.key+`":"[plangit] Error #2: this failed 4 times`) {
				t.Errorf("settings' hook %q, host's own %q", claude, native)
			}
			native = f.runAs(c.host, c.nativeEvent, c.nativePath)
			claude = f.runAs(nil, c.claudeEvent, c.claudePath)
			if claude != "" || native == "" {
				t.Errorf("settings' hook %q, host's own %q", claude, native)
			}
			if got := len(f.revisions(sessionID)); got != revs+2 || count() != 5 {
				t.Errorf("two events made %d revisions, count %d", got-revs, count())
			}
		})
	}
}

// agentActs starts the plan of a session whose person has spoken, as the
// hooks do when the agent's reply first uses a tool (startFromPrompt),
// without counting a tool use: the tests that follow count their own.
func (f *fixture) agentActs() {
	f.t.Helper()
	cfg, err := f.proj().Config()
	if err != nil {
		f.t.Fatal(err)
	}
	e := &engine{env: Env{Now: func() time.Time { return f.now }, Getenv: func(name string) string { return f.environ[name] }},
		in: &Input{SessionID: sessionID, Cwd: f.root}, proj: f.proj(), cfg: cfg}
	if said, err := e.startFromPrompt(); err != nil || said == "" {
		f.t.Fatalf("no plan started from the prompt: %q %v", said, err)
	}
}
