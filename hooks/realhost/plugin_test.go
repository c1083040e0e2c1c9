package realhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/hooks/skill"
)

// The plugins as their users install them: from the repository, through
// the host's own plugin commands, into a scratch HOME; the project has no
// plangit entries of its own.

// repoRoot is the repository the plugins are installed from.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// skillDescription is the description of plangit's skill, as its
// frontmatter has it.
func skillDescription(t *testing.T) string {
	t.Helper()
	for _, line := range strings.Split(string(skill.File), "\n") {
		if d, ok := strings.CutPrefix(line, "description: "); ok {
			return d
		}
	}
	t.Fatal("SKILL.md has no description")
	return ""
}

// TestClaudePlugin validates the plugin and the marketplace with Claude
// Code's own validator, adds the repository as a marketplace, installs
// the plugin from it, and plays one scripted turn with no plangit hooks in
// any settings file: the plugin's hooks run (the calls log has them), the
// session's plan is made, the plugin's MCP server and skill reach the
// model.
func TestClaudePlugin(t *testing.T) {
	dir := hostDir(t, "claude", "claude")
	s := newSession(t, "claude")
	root := repoRoot(t)
	write(t, filepath.Join(s.home, ".claude.json"), "{}\n")
	claude := filepath.Join(dir, "node_modules", ".bin", "claude")
	s.run("validate-plugin", time.Minute, nil, claude, "plugin", "validate", filepath.Join(root, "plugin"))
	s.run("validate-marketplace", time.Minute, nil, claude, "plugin", "validate", root)
	s.run("marketplace-add", time.Minute, nil, claude, "plugin", "marketplace", "add", root)
	s.run("install", time.Minute, nil, claude, "plugin", "install", "plangit@plangit")
	for _, f := range []string{filepath.Join(s.project, ".claude", "settings.json"), filepath.Join(s.project, ".claude", "settings.local.json"), filepath.Join(s.project, ".mcp.json")} {
		if fileExists(f) {
			t.Fatalf("%s exists: the session must run on the plugin alone", f)
		}
	}
	if b, err := os.ReadFile(filepath.Join(s.home, ".claude", "settings.json")); err == nil && strings.Contains(string(b), "plangit hook") {
		t.Fatalf("the user's settings hold plangit's hooks:\n%s", b)
	}

	m := &claudeModel{project: s.project, script: func(turn int) []action {
		bash := func(name, cmd string) action {
			return action{name, "Bash", map[string]string{"command": cmd, "description": name}}
		}
		if turn == 2 {
			return []action{bash("a failing command", "ls cachedir")}
		}
		return []action{
			bash("start the plan", `plangit init "Add caching" --goal "cache lookups" --phase Build`),
			bash("add a step", `plangit step add "Write the cache"`),
			bash("start it", `plangit next`),
			action{"read a file", "Read", map[string]string{"file_path": filepath.Join(s.project, "README.md")}},
			bash("a failing command", "ls cachedir"),
			bash("finish step 1", `plangit step done 1 --result "done"`),
		}
	}}
	var f *fake
	f = newFake(t, 20, m.handle)
	m.turn = func() int { f.mu.Lock(); defer f.mu.Unlock(); return f.turn }
	env := []string{"IS_SANDBOX=1", "ANTHROPIC_BASE_URL=" + f.srv.URL, "ANTHROPIC_API_KEY=sk-ant-fake", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	f.setTurn(1)
	debug := filepath.Join(s.base, "out", "turn1-debug.log")
	r := s.run("turn1", 3*time.Minute, env, claude, "-p", "Add caching to the user lookups.", "--output-format", "stream-json", "--verbose",
		"--include-hook-events", "--debug-file", debug, "--dangerously-skip-permissions")
	calls := s.readCalls()
	id := claudeSession(t, r.stdout)
	s.checkHooks(calls, nil)
	checkClaudeOutput(t, 1, r, debug)
	ran := map[string]bool{}
	for _, c := range calls {
		if c.hook {
			ran[c.event] = true
		}
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop"} {
		if !ran[ev] {
			t.Errorf("the plugin's %s hook did not run (ran: %v)", ev, ran)
		}
	}
	s.checkPlan(id, map[string]string{"Write the cache": "completed"})
	var seen string
	for _, req := range f.requests() {
		seen += string(req.body)
	}
	if !strings.Contains(seen, "plangit:plangit") || !strings.Contains(seen, jsonText(skillDescription(t))[:80]) {
		t.Errorf("the plugin's skill (plangit:plangit, with its description) is not in what the model was sent")
	}
	if !strings.Contains(seen, "mcp__plugin_plangit_plangit__") {
		t.Errorf("the plugin's MCP tools are not in what the model was sent")
	}

	// plangit's hooks in the project's settings too: Claude Code runs the
	// plugin's and the settings' hook on each event, and plangit answers
	// once.
	s.plangit("hooks", "install", "--host", "claude")
	f.setTurn(2)
	debug = filepath.Join(s.base, "out", "turn2-debug.log")
	r = s.run("turn2", 2*time.Minute, env, claude, "-p", "continue", "--resume", id, "--output-format", "stream-json", "--verbose",
		"--include-hook-events", "--debug-file", debug, "--dangerously-skip-permissions")
	checkClaudeOutput(t, 2, r, debug)
	all := s.readCalls()
	calls2 := all[len(calls):]
	s.checkHooks(all, nil)
	var ran2, answered int
	for _, c := range calls2 {
		if c.hook && c.event == "PostToolUseFailure" {
			ran2++
			if len(c.texts()) > 0 {
				answered++
			}
		}
	}
	t.Logf("turn 2: PostToolUseFailure ran %d times", ran2)
	if ran2 != 2 || answered != 1 {
		t.Errorf("turn 2: one failure ran %d PostToolUseFailure hooks, %d answered; want the plugin's and the settings', one answer", ran2, answered)
	}
	if errs := readFile(t, filepath.Join(s.project, ".code-agent", "plans", id, "errors.md")); !strings.Contains(errs, "## Bash ×2 `#1`") {
		t.Errorf("turn 2: the second failure of ls cachedir is not counted once:\n%s", errs)
	}
}

// jsonText is s as it reads inside a JSON string.
func jsonText(s string) string {
	q := mustJSON(s)
	return q[1 : len(q)-1]
}
