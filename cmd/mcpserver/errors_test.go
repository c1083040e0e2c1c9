package mcpserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestToolErrors: every error code reaches the model as a tool error —
// "CODE: message" as text, the --json envelope's error as structured
// content — never as a protocol failure, and the failed call changed
// nothing.
func TestToolErrors(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	cs := connect(t, root, "PLANGIT_LOCK_WAIT=300ms")

	// No plan yet.
	fails(t, cs, "PLAN_NOT_FOUND", "status", map[string]any{})
	fails(t, cs, "PLAN_NOT_FOUND", "step", map[string]any{"action": "next"})

	ok(t, cs, "plan", map[string]any{"action": "init", "title": "T", "phases": []string{"A", "B"}, "session": "s1"})
	ok(t, cs, "step", map[string]any{"action": "add", "text": "one", "phase": "A"})
	ok(t, cs, "step", map[string]any{"action": "add", "text": "two", "phase": "A", "needs": "1"})
	data, _ := ok(t, cs, "step", map[string]any{"action": "add", "text": "three", "phase": "B"})
	rev := data["rev"].(string)
	dir := filepath.Join(root, ".code-agent", "plans", "s1")
	revs := func() int { return repotest.RevCount(t, dir) }
	before := revs()

	cases := []struct {
		code, tool string
		args       map[string]any
		message    string // a part of the message
	}{
		{"STEP_NOT_FOUND", "step", map[string]any{"action": "done", "id": "9"}, `no step "9"`},
		{"STEP_NOT_FOUND", "show", map[string]any{"step": "9"}, `no step "9"`},
		{"STEP_NOT_FOUND", "history", map[string]any{"action": "blame", "step": "9"}, `no step "9"`},
		{"PHASE_NOT_FOUND", "step", map[string]any{"action": "add", "text": "x", "phase": "Nope"}, "Nope"},
		{"PHASE_NOT_FOUND", "phase", map[string]any{"action": "edit", "id": "7", "title": "x"}, "7"},
		{"INVALID_STATUS", "step", map[string]any{"action": "start", "id": "2"}, "1"},
		{"INVALID_STATUS", "plan", map[string]any{"action": "finish", "result": "r"}, "step"},
		{"INVALID_DEPENDENCY", "step", map[string]any{"action": "add", "text": "x", "needs": "42"}, "42"},
		{"CIRCULAR_DEPENDENCY", "step", map[string]any{"action": "edit", "id": "1", "needs": "2"}, "→"},
		{"REVISION_NOT_FOUND", "rollback", map[string]any{"rev": "@99"}, "@99"},
		{"REVISION_NOT_FOUND", "history", map[string]any{"action": "diff", "from": "@99"}, "@99"},
		{"REVISION_NOT_FOUND", "show", map[string]any{"rev": "deadbeef"}, "deadbeef"},
		{"CONFLICT", "step", map[string]any{"action": "start", "id": "1", "if_rev": "@2"}, ""},
		{"SESSION_NOT_FOUND", "status", map[string]any{"session": "nope"}, "nope"},
		{"INVALID_SESSION_ID", "step", map[string]any{"action": "next", "session": "../s1"}, ""},
		{"INVALID_ARGUMENT", "step", map[string]any{"action": "frob"}, "action"},
		{"INVALID_ARGUMENT", "step", map[string]any{"id": "1"}, "action"},
		{"INVALID_ARGUMENT", "step", map[string]any{"action": "done", "id": 1}, "id"},
		{"INVALID_ARGUMENT", "step", map[string]any{"action": "done", "id": "1", "bogus": true}, `no input "bogus"`},
		{"INVALID_ARGUMENT", "step", map[string]any{"action": "done", "id": "1", "reason": "r"}, "not reason"},
		{"INVALID_ARGUMENT", "step", map[string]any{"action": "done"}, "id"},
		{"INVALID_ARGUMENT", "step", map[string]any{"action": "add"}, "text"},
		{"INVALID_ARGUMENT", "step", map[string]any{"action": "edit", "id": "1"}, "what to change"},
		{"INVALID_ARGUMENT", "step", map[string]any{"action": "progress", "id": "1", "progress": "lots"}, "lots"},
		{"INVALID_ARGUMENT", "step", map[string]any{"action": "add", "text": strings.Repeat("x", 3000)}, "2000"},
		{"INVALID_ARGUMENT", "phase", map[string]any{"action": "add"}, "title"},
		{"INVALID_ARGUMENT", "plan", map[string]any{"action": "init"}, "title"},
		{"INVALID_ARGUMENT", "plan", map[string]any{"action": "abort"}, "reason"},
		{"INVALID_ARGUMENT", "finding", map[string]any{"action": "add", "title": "t", "category": "gossip"}, "gossip"},
		{"INVALID_ARGUMENT", "finding", map[string]any{"action": "add"}, "title"},
		{"INVALID_ARGUMENT", "finding", map[string]any{"action": "rm"}, "ids"},
		{"INVALID_ARGUMENT", "finding", map[string]any{"action": "rm", "ids": []string{"9"}}, "no finding 9"},
		{"INVALID_ARGUMENT", "finding", map[string]any{"action": "rm", "title": "x", "ids": []string{"1"}}, "title"},
		{"INVALID_ARGUMENT", "error", map[string]any{"action": "add", "tool": "Bash"}, "message"},
		{"INVALID_ARGUMENT", "error", map[string]any{"action": "resolve", "ids": []string{"77"}}, "77"},
		{"INVALID_ARGUMENT", "finding", map[string]any{"action": "rm", "ids": []string{"abc"}}, `"abc" is not a finding id`},
		{"INVALID_ARGUMENT", "error", map[string]any{"action": "resolve", "ids": []string{"1", "x1"}}, `"x1" is not an error id`},
		{"INVALID_ARGUMENT", "history", map[string]any{"action": "log", "since": "yesterday-ish"}, "yesterday-ish"},
		{"INVALID_ARGUMENT", "history", map[string]any{"action": "diff", "to": "@2"}, "from"},
		{"INVALID_ARGUMENT", "show", map[string]any{"status": []string{"sleeping"}}, "sleeping"},
		{"INVALID_ARGUMENT", "show", map[string]any{"step": "1", "include_completed": true}, "step"},
		{"PLAN_PARSE_ERROR", "import", map[string]any{"content": "{\"todos\": 3}"}, "todos"},
		{"INVALID_ARGUMENT", "import", map[string]any{"content": " "}, "content"},
		{"INVALID_ARGUMENT", "import", map[string]any{"content": "{}", "format": "yaml"}, "yaml"},
		{"INVALID_ARGUMENT", "deliverable", map[string]any{"text": "x", "clear": true}, "clear"},
	}
	for _, c := range cases {
		body, text := fails(t, cs, c.code, c.tool, c.args)
		if !strings.Contains(body["message"].(string), c.message) {
			t.Errorf("%s %v: message %q does not say %q", c.tool, c.args, body["message"], c.message)
		}
		if _, ok := body["details"].(map[string]any); !ok {
			t.Errorf("%s %v: error without details: %v", c.tool, c.args, body)
		}
		if c.code == "STEP_NOT_FOUND" && !strings.Contains(text, "[session s1: the only unfinished session]") {
			t.Errorf("%s %v: the error does not say which session it used: %q", c.tool, c.args, text)
		}
	}
	// A change on another revision than the one read: CONFLICT names it.
	ok(t, cs, "step", map[string]any{"action": "start", "id": "1", "if_rev": rev})
	before++
	if n := revs(); n != before {
		t.Fatalf("%d revisions after the refused calls and one change, want %d", n, before)
	}

	// A plan that is paused takes no change of its steps.
	ok(t, cs, "plan", map[string]any{"action": "pause", "reason": "r"})
	fails(t, cs, "PLAN_NOT_ACTIVE", "step", map[string]any{"action": "add", "text": "x"})
	ok(t, cs, "plan", map[string]any{"action": "resume"})
	// A completed step is a record.
	ok(t, cs, "step", map[string]any{"action": "done", "id": "1", "result": "r"})
	fails(t, cs, "STEP_NOT_EDITABLE", "step", map[string]any{"action": "edit", "id": "1", "text": "new"})
	before = revs()

	// Another process holds the session: LOCK_TIMEOUT, nothing changed.
	release := holdLock(t, root)
	fails(t, cs, "LOCK_TIMEOUT", "step", map[string]any{"action": "next"})
	release()

	// A hand edit plangit cannot read: PLAN_PARSE_ERROR, the file kept.
	planFile := filepath.Join(dir, "task_plan.md")
	good, _ := os.ReadFile(planFile)
	bad := strings.Replace(string(good), "`#2", "`#two", 1)
	os.WriteFile(planFile, []byte(bad), 0o644)
	fails(t, cs, "PLAN_PARSE_ERROR", "step", map[string]any{"action": "next"})
	if got, _ := os.ReadFile(planFile); string(got) != bad {
		t.Errorf("the unreadable plan was overwritten")
	}
	os.WriteFile(planFile, good, 0o644)

	// A file plangit cannot read at all: IO_ERROR.
	findings := filepath.Join(dir, "findings.md")
	saved, _ := os.ReadFile(findings)
	os.Remove(findings)
	os.Mkdir(findings, 0o755)
	fails(t, cs, "IO_ERROR", "status", map[string]any{})
	os.Remove(findings)
	os.WriteFile(findings, saved, 0o644)

	if n := revs(); n != before {
		t.Errorf("%d revisions after the refused changes, want %d", n, before)
	}
	ok(t, cs, "status", map[string]any{})
	checkSessions(t, root)

	// Several unfinished sessions and none active: the call must name one.
	ok(t, cs, "plan", map[string]any{"action": "init", "title": "Other", "session": "s2"})
	os.Remove(filepath.Join(root, ".code-agent", "active"))
	body, _ := fails(t, cs, "PLAN_NOT_FOUND", "status", map[string]any{})
	if !strings.Contains(body["message"].(string), "s1, s2") {
		t.Errorf("the error does not name the sessions: %v", body)
	}
}

// TestErrorToolRedacts: output the agent pastes into the error tool has
// its credentials redacted before it is recorded, as the hooks' errors
// are: in errors.md, the commit message and the tool's answer.
func TestErrorToolRedacts(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	cs := connect(t, root)
	ok(t, cs, "plan", map[string]any{"action": "init", "title": "Deploy", "session": "s1"})
	const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	got, text := ok(t, cs, "error", map[string]any{"action": "add", "tool": "Bash",
		"message": "curl: (22) 401 with Authorization: Bearer " + token, "params": `{"command":"curl -u admin:hunter2 https://h","env":{"API_TOKEN":"t0k3n"}}`})
	b, _ := json.Marshal(got)
	errorsMD, err := os.ReadFile(filepath.Join(root, ".code-agent", "plans", "s1", "errors.md"))
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"the answer": string(b) + text, "errors.md": string(errorsMD), "the history": gitLog(t, filepath.Join(root, ".code-agent", "plans", "s1"))} {
		for _, secret := range []string{token, "hunter2", "t0k3n"} {
			if strings.Contains(s, secret) {
				t.Errorf("%s holds %q: %s", what, secret, s)
			}
		}
	}
	if !strings.Contains(string(errorsMD), "Authorization: Bearer [redacted]") || !strings.Contains(string(errorsMD), `"API_TOKEN":"[redacted]"`) {
		t.Errorf("errors.md:\n%s", errorsMD)
	}
}
