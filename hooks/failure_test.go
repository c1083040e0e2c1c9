package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render/brief"
)

// TestNotTheProjects: plangit's own refusals and exit statuses that answer
// a question are not the project's errors; everything else is.
func TestNotTheProjects(t *testing.T) {
	t.Parallel()
	bash := func(cmd string) json.RawMessage { b, _ := json.Marshal(map[string]string{"command": cmd}); return b }
	const (
		refused     = "Exit code 1\nplangit: no step \"99\" in this plan; plangit show --all lists every step [STEP_NOT_FOUND]"
		jsonRefused = "Exit code 1\n{\n  \"success\": false,\n  \"error\": {\n    \"code\": \"STEP_NOT_FOUND\",\n    \"message\": \"no step \\\"9\\\" in this plan\"\n  }\n}"
	)
	for _, c := range []struct {
		tool  string
		input json.RawMessage
		msg   string
		want  string
	}{
		{"Bash", bash("plangit next"), "Exit code 2\nplangit: step 3 (Build) is in progress: finish it first [INVALID_STATUS]", plangitsOwn},
		{"Bash", bash(`plangit init "T" --goal g`), "Exit code 1\nplangit: session s already has a plan [INVALID_ARGUMENT]", plangitsOwn},
		{"Bash", bash("cd app && plangit step done 9"), "Exit code 1\nplangit: no step 9 [STEP_NOT_FOUND]", plangitsOwn},
		{"Bash", bash("/usr/local/bin/plangit --session s1 step done 1"), "Exit code 1\nplangit: step 1 is completed [INVALID_STATUS]", plangitsOwn},
		{"mcp__plangit__step", json.RawMessage(`{"action":"next"}`), "step 3 is in progress [INVALID_STATUS]", plangitsOwn},
		// Written with its output redirected, piped into a filter, after cd
		// or set, with VAR=value or a wrapper before it: still plangit's.
		{"Bash", bash("plangit step done 9 --result x 2>/dev/null"), "Exit code 1", plangitsOwn},
		{"Bash", bash("plangit step done 9 >/dev/null 2>&1"), "Exit code 1", plangitsOwn},
		{"Bash", bash("plangit --json step done 9 2>&1"), jsonRefused, plangitsOwn},
		{"Bash", bash("cd . && plangit --json step done 9"), jsonRefused, plangitsOwn},
		{"Bash", bash("set -o pipefail; plangit --json step done 9 | head -5"), jsonRefused, plangitsOwn},
		{"Bash", bash("PLANGIT_SESSION=sess-1 plangit --json step done 9"), jsonRefused, plangitsOwn},
		{"Bash", bash(`FOO="a b" plangit step done 99`), refused, plangitsOwn},
		{"Bash", bash("timeout 30 plangit step done 99"), refused, plangitsOwn},
		{"Bash", bash("env plangit step done 99"), refused, plangitsOwn},
		{"Bash", bash("nice -n 5 plangit step done 99"), refused, plangitsOwn},
		{"Bash", bash(`bash -c "plangit step done 99"`), refused, plangitsOwn},
		{"Bash", bash(`bash -c "go test ./..."`), "Exit code 1\n--- FAIL: TestCache", ""},
		// A command joined by && ran only if those before it succeeded.
		{"Bash", bash("go test ./... && plangit step done 3"), refused, plangitsOwn},
		{"Bash", bash("grep -rn TODO ."), "Exit code 1", anAnswer},
		{"Bash", bash("cat build.log | grep ERROR"), "Exit code 1\n", anAnswer},
		{"Bash", bash("cd src && rg -l cache"), "Exit code 1", anAnswer},
		{"Bash", bash("git grep -n Cache"), "Exit code 1", anAnswer},
		{"Bash", bash("timeout 5 git grep -n Cache"), "Exit code 1", anAnswer},
		{"Bash", bash("! grep -q TODO main.go"), "Exit code 1", anAnswer},
		// Codex CLI's exec_command, read as a look-up: its input is the command.
		{"Grep", bash("grep -n NoSuchName README.md"), "Exit code 1", anAnswer},
		{"LS", bash("ls build"), "Exit code 2\nls: cannot access 'build': No such file or directory", ""},
		{"Bash", bash("test -f go.sum"), "Exit code 1", anAnswer},
		{"Bash", bash("[ -d vendor ]"), "Exit code 1", anAnswer},
		{"Bash", bash("diff old.txt new.txt"), "Exit code 1\n1c1\n< a\n---\n> b", anAnswer},
		{"Bash", bash("git diff --exit-code"), "Exit code 1\ndiff --git a/x b/x", anAnswer},
		// The project's errors.
		{"Bash", bash("grep -rn TODO missing/"), "Exit code 2\ngrep: missing/: No such file or directory", ""},
		{"Bash", bash("diff a b"), "Exit code 2\ndiff: a: No such file or directory", ""},
		{"Bash", bash("go test ./..."), "Exit code 1\n--- FAIL: TestCache", ""},
		{"Bash", bash("false"), "Exit code 1", ""},
		{"Bash", bash("plangit show && go test ./..."), "Exit code 1\n--- FAIL: TestCache", ""},
		{"Bash", bash("go test ./... && plangit step done 3"), "Exit code 1\n--- FAIL: TestCache", ""},
		// After ";" or "||" the status may be another command's.
		{"Bash", bash("plangit step progress 1 3/2; ls cachedir"), "Exit code 2\nplangit: progress \"3/2\" is not CURRENT/TOTAL [INVALID_ARGUMENT]\nls: cannot access 'cachedir': No such file or directory", ""},
		{"Bash", bash("plangit show || make"), "Exit code 2\nmake: *** No targets.  Stop.", ""},
		{"Bash", bash("plangit show | xargs rm"), "Exit code 123", ""},
		{"Edit", json.RawMessage(`{"file_path":"a.go"}`), "old_string not found", ""},
		{"mcp__github__create_issue", json.RawMessage(`{}`), "401", ""},
	} {
		if got := notTheProjects(c.tool, c.input, c.msg); got != c.want {
			t.Errorf("%s %s (%q): %q, want %q", c.tool, c.input, c.msg, got, c.want)
		}
	}
}

// TestOnlyTheProjectsErrorsAreLogged: a refusal of the agent's plangit
// command logs nothing and is answered once a turn with what plangit
// said; a search that found nothing logs nothing and says nothing; a real
// failure is logged.
func TestOnlyTheProjectsErrorsAreLogged(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	before := len(f.state(sessionID).Errors)
	refusal := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "plangit next"},
		"error": "Exit code 2\nplangit: step 2 (Design the cache) is in progress: finish it first (plangit step done 2 --result \"...\"), or start the next ready step beside it with plangit next --also (plangit help next) [INVALID_STATUS]"}
	got := f.send("PostToolUseFailure", refusal)
	if !strings.Contains(got, "plangit refused that call (not an error of the project; nothing logged)") || !strings.Contains(got, "step 2 (Design the cache) is in progress") {
		t.Errorf("the refusal was answered with %q", got)
	}
	if again := f.send("PostToolUseFailure", refusal); again != "" {
		t.Errorf("the same refusal was answered twice in a turn: %q", again)
	}
	// Its output sent elsewhere, the refusal is told by its exit code.
	silent := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "plangit step done 9 2>/dev/null"}, "error": "Exit code 1"}
	if got := f.send("PostToolUseFailure", silent); !strings.HasSuffix(got, "(not an error of the project; nothing logged):\n"+brief.FenceOpen+"\nexit code 1\n"+brief.FenceClose) {
		t.Errorf("a refusal with its output redirected was answered with %q", got)
	}
	if got := f.send("PostToolUseFailure", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "grep -rn TODO ."}, "error": "Exit code 1"}); got != "" {
		t.Errorf("a search that found nothing was answered: %q", got)
	}
	if n := len(f.state(sessionID).Errors); n != before {
		t.Fatalf("errors.md went from %d to %d records: plangit's refusal or an empty search was logged", before, n)
	}
	f.send("PostToolUseFailure", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls cachedir"}, "error": "Exit code 2\nls: cannot access 'cachedir': No such file or directory"})
	if n := len(f.state(sessionID).Errors); n != before+1 {
		t.Fatalf("a real failure was not logged: %d records, want %d", n, before+1)
	}
}

// TestPlangitRefusal: what plangit said it refused, from its error line or
// from --json's envelope.
func TestPlangitRefusal(t *testing.T) {
	t.Parallel()
	for msg, want := range map[string]string{
		"Exit code 1\nplangit: no step 9 [STEP_NOT_FOUND]":                                                         "plangit: no step 9 [STEP_NOT_FOUND]",
		"Exit code 1\n{\"success\": false, \"error\": {\"code\": \"STEP_NOT_FOUND\", \"message\": \"no step 9\"}}": "no step 9 [STEP_NOT_FOUND]",
		"Exit code 1\n{\"success\": true, \"data\": {}}":                                                           "",
		"Exit code 1":                     "",
		"Exit code 1\n{\"error\": \"x\"}": "",
	} {
		if got := plangitRefusal(msg); got != want {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	}
}

// TestFailureNotLoggedIsSaid: where errors.md has no room left for a
// failure, the agent is told it was not logged and why, the project's log
// says so, and the session is as it was.
func TestFailureNotLoggedIsSaid(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	msg := strings.Repeat("x", 4000)
	f.withPlan(sessionID, func(st *plan.State) {
		add := func(n int) {
			for range n {
				// Each its own command, so that none counts up another.
				st.Errors.Record(plan.ErrorRecord{Tool: "Bash", Key: fmt.Sprintf("make target%d", len(st.Errors)), Message: msg}, t0)
			}
		}
		add(10)
		per := len(plan.WriteErrors(st.Errors)) / 10
		// Filled until less room is left than one more record takes.
		for room := plan.MaxFile - len(plan.WriteErrors(st.Errors)); room > per; room = plan.MaxFile - len(plan.WriteErrors(st.Errors)) {
			add(max(room/per-1, 1))
		}
	})
	before := len(f.revisions(sessionID))
	got := f.send("PostToolUseFailure", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}, "error": "Exit code 2\nmake: " + msg})
	if !strings.Contains(got, "this failure was not logged") || !strings.Contains(got, "errors.md") {
		t.Fatalf("the agent was told %q", got)
	}
	if !strings.Contains(f.log(), "errors.md") {
		t.Errorf("the project's log does not say why:\n%s", f.log())
	}
	if n := len(f.revisions(sessionID)); n != before {
		t.Errorf("%d revisions, want %d", n, before)
	}
}
