package mcpserver_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// step is one operation, made through a tool and through the CLI.
type step struct {
	tool string
	args map[string]any
	cli  []string
	// stdin is the CLI's standard input.
	stdin string
}

// TestToolsMatchCLI makes the same changes and reads through the MCP
// tools in one project and through the CLI in another, both from the same
// start and clock: every tool succeeds, and its structured content is
// exactly the data of the CLI's --json envelope — revisions included,
// since both write the same commits.
func TestToolsMatchCLI(t *testing.T) {
	t.Parallel()
	viaMCP, viaCLI := newProject(t), newProject(t)
	cs := connect(t, viaMCP)
	todos := `{"todos":[{"content":"Write the docs","status":"pending","activeForm":"Writing the docs"},{"content":"Tag the release","status":"pending"}]}`
	steps := []step{
		{tool: "plan", args: map[string]any{"action": "init", "title": "Add caching", "goal": "cache lookups", "phases": []string{"Analysis", "Build"}, "session": "s1"},
			cli: []string{"init", "Add caching", "--goal", "cache lookups", "--phase", "Analysis", "--phase", "Build", "--session", "s1"}},
		{tool: "step", args: map[string]any{"action": "add", "text": "Read UserService", "phase": "Analysis"}, cli: []string{"step", "add", "Read UserService", "--phase", "Analysis"}},
		{tool: "step", args: map[string]any{"action": "add", "text": "Design the cache", "phase": "Analysis", "needs": "1", "why": "know the paths first"},
			cli: []string{"step", "add", "Design the cache", "--phase", "Analysis", "--needs", "1", "--why", "know the paths first"}},
		{tool: "step", args: map[string]any{"action": "add", "text": "Build it", "phase": "Build", "needs": "2"}, cli: []string{"step", "add", "Build it", "--phase", "Build", "--needs", "2"}},
		{tool: "phase", args: map[string]any{"action": "add", "title": "Ship", "notes": "behind a flag"}, cli: []string{"phase", "add", "Ship", "--notes", "behind a flag"}},
		{tool: "phase", args: map[string]any{"action": "edit", "id": "3", "title": "Release"}, cli: []string{"phase", "edit", "3", "--title", "Release"}},
		{tool: "step", args: map[string]any{"action": "add", "text": "Release it", "phase": "3"}, cli: []string{"step", "add", "Release it", "--phase", "3"}},
		{tool: "step", args: map[string]any{"action": "add", "text": "Review", "after": "1"}, cli: []string{"step", "add", "Review", "--after", "1"}},
		{tool: "step", args: map[string]any{"action": "next"}, cli: []string{"next"}},
		{tool: "step", args: map[string]any{"action": "progress", "id": "1", "progress": "1/2"}, cli: []string{"step", "progress", "1", "1/2"}},
		{tool: "finding", args: map[string]any{"action": "add", "category": "code", "title": "Hot path", "content": "GetUser is 70%", "source": "svc.go"},
			cli: []string{"finding", "add", "--category", "code", "--title", "Hot path", "--source", "svc.go", "GetUser is 70%"}},
		{tool: "finding", args: map[string]any{"action": "add", "title": "An insight", "step": "2"}, cli: []string{"finding", "add", "--title", "An insight", "--step", "2"}},
		{tool: "finding", args: map[string]any{"action": "list", "category": "code"}, cli: []string{"findings", "--category", "code"}},
		{tool: "finding", args: map[string]any{"action": "list"}, cli: []string{"findings"}},
		{tool: "finding", args: map[string]any{"action": "add", "title": "Wrong guess"}, cli: []string{"finding", "add", "--title", "Wrong guess"}},
		{tool: "finding", args: map[string]any{"action": "rm", "ids": []string{"3"}}, cli: []string{"finding", "rm", "3"}},
		{tool: "error", args: map[string]any{"action": "add", "tool": "Bash", "message": "go test: exit status 1", "params": "go test ./..."},
			cli: []string{"error", "add", "--tool", "Bash", "--params", "go test ./...", "go test: exit status 1"}},
		{tool: "error", args: map[string]any{"action": "add", "tool": "Bash", "message": "go test: exit status 2"}, cli: []string{"error", "add", "--tool", "Bash", "go test: exit status 2"}},
		{tool: "error", args: map[string]any{"action": "add", "tool": "Edit", "message": "old_string not found", "step": "2"}, cli: []string{"error", "add", "--tool", "Edit", "--step", "2", "old_string not found"}},
		{tool: "error", args: map[string]any{"action": "list"}, cli: []string{"errors"}},
		{tool: "error", args: map[string]any{"action": "resolve", "ids": []string{"1"}, "note": "stale go.sum"}, cli: []string{"error", "resolve", "1", "--note", "stale go.sum"}},
		{tool: "error", args: map[string]any{"action": "list", "tool": "Edit", "open": true}, cli: []string{"errors", "--tool", "Edit", "--open"}},
		{tool: "step", args: map[string]any{"action": "done", "id": "1", "result": "3 hot paths"}, cli: []string{"step", "done", "1", "--result", "3 hot paths"}},
		{tool: "step", args: map[string]any{"action": "edit", "id": "3", "text": "Build the cache", "needs": "1,2"}, cli: []string{"step", "edit", "3", "--text", "Build the cache", "--needs", "1,2"}},
		{tool: "step", args: map[string]any{"action": "start", "id": "5"}, cli: []string{"step", "start", "5"}},
		{tool: "step", args: map[string]any{"action": "fail", "id": "5", "reason": "flaky"}, cli: []string{"step", "fail", "5", "--reason", "flaky"}},
		{tool: "step", args: map[string]any{"action": "start", "id": "5"}, cli: []string{"step", "start", "5"}},
		{tool: "step", args: map[string]any{"action": "fail", "id": "5", "reason": "gone", "retry": false}, cli: []string{"step", "fail", "5", "--reason", "gone", "--no-retry"}},
		{tool: "step", args: map[string]any{"action": "reopen", "id": "5"}, cli: []string{"step", "reopen", "5"}},
		{tool: "step", args: map[string]any{"action": "start", "id": "2", "force": true}, cli: []string{"step", "start", "2", "--force"}},
		{tool: "step", args: map[string]any{"action": "block", "id": "2", "reason": "waiting for review"}, cli: []string{"step", "block", "2", "--reason", "waiting for review"}},
		{tool: "step", args: map[string]any{"action": "skip", "id": "4", "reason": "not this time"}, cli: []string{"step", "skip", "4", "--reason", "not this time"}},
		{tool: "step", args: map[string]any{"action": "rm", "id": "5"}, cli: []string{"step", "rm", "5"}},
		{tool: "step", args: map[string]any{"action": "revert", "id": "1"}, cli: []string{"step", "revert", "1"}},
		{tool: "status", args: map[string]any{}, cli: []string{"status"}},
		{tool: "show", args: map[string]any{}, cli: []string{"show"}},
		{tool: "show", args: map[string]any{"include_completed": true}, cli: []string{"show", "--all"}},
		{tool: "show", args: map[string]any{"status": []string{"pending", "blocked"}}, cli: []string{"show", "--status", "pending,blocked"}},
		{tool: "show", args: map[string]any{"step": "1"}, cli: []string{"show", "1"}},
		{tool: "show", args: map[string]any{"rev": "@3"}, cli: []string{"show", "--rev", "@3"}},
		{tool: "history", args: map[string]any{"action": "log"}, cli: []string{"log"}},
		{tool: "history", args: map[string]any{"action": "log", "limit": 3}, cli: []string{"log", "-n", "3"}},
		{tool: "history", args: map[string]any{"action": "log", "step": "1", "since": "2026-11-19"}, cli: []string{"log", "--step", "1", "--since", "2026-11-19"}},
		{tool: "history", args: map[string]any{"action": "diff"}, cli: []string{"diff"}},
		{tool: "history", args: map[string]any{"action": "diff", "from": "@2", "to": "@6"}, cli: []string{"diff", "@2", "@6"}},
		{tool: "history", args: map[string]any{"action": "diff", "from": "@4"}, cli: []string{"diff", "@4"}},
		{tool: "history", args: map[string]any{"action": "blame"}, cli: []string{"blame"}},
		{tool: "rollback", args: map[string]any{"rev": "@8"}, cli: []string{"rollback", "@8"}},
		{tool: "rollback", args: map[string]any{}, cli: []string{"undo"}},
		{tool: "import", args: map[string]any{"content": todos}, cli: []string{"import", "-"}, stdin: todos},
		{tool: "import", args: map[string]any{"content": todos, "dry_run": true}, cli: []string{"import", "-", "--dry-run"}, stdin: todos},
		{tool: "deliverable", args: map[string]any{"text": "# Result\n\nGetUser is cached.\n"}, cli: []string{"deliverable", "# Result\n\nGetUser is cached.\n"}},
		{tool: "deliverable", args: map[string]any{}, cli: []string{"deliverable"}},
		{tool: "deliverable", args: map[string]any{"clear": true}, cli: []string{"deliverable", "--clear"}},
		{tool: "plan", args: map[string]any{"action": "pause", "reason": "lunch"}, cli: []string{"pause", "--reason", "lunch"}},
		{tool: "plan", args: map[string]any{"action": "resume"}, cli: []string{"resume"}},
		{tool: "plan", args: map[string]any{"action": "finish", "result": "good enough", "force": true}, cli: []string{"finish", "--result", "good enough", "--force"}},
		// A plan awaiting approval, in a second session.
		{tool: "plan", args: map[string]any{"action": "init", "title": "Second", "session": "s2"}, cli: []string{"init", "Second", "--session", "s2", "--approval"}},
		{tool: "plan", args: map[string]any{"action": "approve", "session": "s2"}, cli: []string{"approve", "--session", "s2"}},
		{tool: "plan", args: map[string]any{"action": "abort", "reason": "superseded", "session": "s2"}, cli: []string{"abort", "--reason", "superseded", "--session", "s2"}},
	}
	for i, s := range steps {
		if s.tool == "plan" && s.args["session"] == "s2" && s.args["action"] == "init" {
			// The CLI passes --approval; the tool's project asks for it in
			// its settings.
			mustCLI(t, viaMCP, "config", "set", "plan_confirmation", "true")
		}
		if s.tool == "plan" && s.args["action"] == "approve" {
			// Approval is the person's: the MCP tool, always the agent's,
			// is refused; the person approves at a terminal, in both
			// projects.
			mustCLI(t, viaCLI, "config", "set", "plan_confirmation", "true")
			fails(t, cs, "CONFIRMATION_REQUIRED", s.tool, s.args)
			for _, root := range []string{viaMCP, viaCLI} {
				c := exec.Command(filepath.Join(bin, "plangit"), append(s.cli, "--json")...)
				c.Dir, c.Env = root, testEnv(t, root, "PLANGIT_ACTOR=user")
				if out, err := c.CombinedOutput(); err != nil {
					t.Fatalf("the person's plangit %v: %v\n%s", s.cli, err, out)
				}
			}
			continue
		}
		got, _ := ok(t, cs, s.tool, s.args)
		want := runCLI(t, viaCLI, s.stdin, s.cli...)
		if !sameJSON(normalize(got, viaMCP), normalize(want, viaCLI)) {
			a, _ := json.MarshalIndent(got, "", "  ")
			b, _ := json.MarshalIndent(want, "", "  ")
			t.Fatalf("step %d: %s %v and plangit %v differ:\n--- tool\n%s\n--- CLI\n%s", i, s.tool, s.args, s.cli, a, b)
		}
	}
	// The two projects hold the same history.
	for _, id := range []string{"s1", "s2"} {
		a := gitLog(t, filepath.Join(viaMCP, ".code-agent", "plans", id))
		b := gitLog(t, filepath.Join(viaCLI, ".code-agent", "plans", id))
		if a != b {
			t.Errorf("session %s: the histories differ:\n--- tool\n%s\n--- CLI\n%s", id, a, b)
		}
	}
	checkSessions(t, viaMCP)
}

// runCLI runs plangit --json with stdin and returns the envelope's data.
func runCLI(t *testing.T, root, stdin string, args ...string) any {
	t.Helper()
	c := exec.Command(filepath.Join(bin, "plangit"), append(args, "--json")...)
	c.Dir, c.Env, c.Stdin = root, testEnv(t, root), strings.NewReader(stdin)
	out, _ := c.Output()
	var env struct {
		Success bool            `json:"success"`
		Data    any             `json:"data"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(out, &env); err != nil || !env.Success {
		t.Fatalf("plangit %v: %v %s", args, err, out)
	}
	return env.Data
}

// normalize makes the project's own path neutral, through JSON.
func normalize(v any, root string) any {
	b, _ := json.Marshal(v)
	r, _ := json.Marshal(root) // as the JSON has it: on Windows, its backslashes escaped
	b = []byte(strings.ReplaceAll(string(b), string(r[1:len(r)-1]), "ROOT"))
	var out any
	json.Unmarshal(b, &out)
	return out
}

func sameJSON(a, b any) bool { return reflect.DeepEqual(a, b) }

// gitLog is a session's history as git shows it: hashes, messages, dates.
func gitLog(t *testing.T, dir string) string {
	t.Helper()
	c := exec.Command(repotest.RequireTool(t, "git"), "log", "--format=%H %ad%n%B", "--date=iso-strict")
	c.Dir, c.Env = dir, append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := c.Output()
	if err != nil {
		t.Fatalf("git log in %s: %v", dir, err)
	}
	return string(out)
}
