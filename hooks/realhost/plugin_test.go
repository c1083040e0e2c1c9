package realhost

import (
	"fmt"
	"os"
	"os/exec"
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
	checkPluginHooks(t, calls, "plugin", "", "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop")
	s.checkPlan(id, map[string]string{"Write the cache": "completed"})
	seen := sentToModel(t, f, "plugin", 80)
	if !strings.Contains(seen, "plangit:plangit") {
		t.Errorf("the plugin's skill is not named plangit:plangit in what the model was sent")
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

// TestGeminiExtension installs the Gemini CLI extension as its release
// archive lays it out — linux.x64.plangit.tar.gz from $PLANGIT_DIST when
// set, else plugin/gemini with the skill and freshly built binaries in
// bin/ — with `gemini extensions install PATH --consent` into a scratch
// HOME, and plays one scripted turn with no plangit hooks in any settings
// file: the hooks run from the extension's bin/, and the plan is made.
func TestGeminiExtension(t *testing.T) {
	dir := hostDir(t, "gemini", "gemini")
	s := newSession(t, "gemini")
	src := filepath.Join(s.base, "extension")
	if dist := os.Getenv("PLANGIT_DIST"); dist != "" {
		archive := filepath.Join(dist, "linux.x64.plangit.tar.gz")
		if err := os.MkdirAll(src, 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("tar", "-xzf", archive, "-C", src).CombinedOutput(); err != nil {
			t.Fatalf("unpack %s: %v\n%s", archive, err, out)
		}
	} else {
		root := repoRoot(t)
		for _, rel := range []string{"gemini-extension.json", filepath.Join("hooks", "hooks.json")} {
			write(t, filepath.Join(src, rel), readFile(t, filepath.Join(root, "plugin", "gemini", rel)))
		}
		write(t, filepath.Join(src, "skills", skill.Name, "SKILL.md"), string(skill.File))
		for _, prog := range []string{"plangit", "plangit-hook", "plangit-mcp"} {
			b, err := os.ReadFile(filepath.Join(binDir, prog))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(src, "bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(src, "bin", prog), b, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(t, filepath.Join(s.home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}`+"\n")
	// Trusted: the project, and the folder the extension is installed from
	// (headless, the install refuses an untrusted one).
	write(t, filepath.Join(s.home, ".gemini", "trustedFolders.json"), fmt.Sprintf("{%q: \"TRUST_FOLDER\", %q: \"TRUST_FOLDER\"}\n", s.project, src))
	gemini := filepath.Join(dir, "node_modules", ".bin", "gemini")
	s.run("install", time.Minute, nil, gemini, "extensions", "install", src, "--consent")
	ext := filepath.Join(s.home, ".gemini", "extensions", "plangit")
	// The calls log: the extension's own plangit and plangit-hook move to
	// bin/real/, and the recording wrapper takes their place in bin/ and
	// runs them from there.
	real := filepath.Join(ext, "bin", "real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, prog := range []string{"plangit", "plangit-hook", "plangit-mcp"} {
		if err := os.Rename(filepath.Join(ext, "bin", prog), filepath.Join(real, prog)); err != nil {
			t.Fatalf("the installed extension has no bin/%s: %v", prog, err)
		}
		if prog != "plangit-mcp" {
			write(t, filepath.Join(ext, "bin", prog), wrapper)
			os.Chmod(filepath.Join(ext, "bin", prog), 0o755)
		} else if err := os.Symlink(filepath.Join(real, prog), filepath.Join(ext, "bin", prog)); err != nil {
			t.Fatal(err)
		}
	}
	if fileExists(filepath.Join(s.project, ".gemini")) || strings.Contains(readFile(t, filepath.Join(s.home, ".gemini", "settings.json")), "plangit") {
		t.Fatal("plangit is in Gemini CLI's settings: the session must run on the extension alone")
	}

	m := &geminiModel{script: func(int) []action {
		return pluginTurn(func(name, cmd string) action {
			return action{name, "run_shell_command", map[string]any{"command": cmd, "description": name}}
		})
	}}
	f := newFake(t, 30, m.handle)
	m.turn = func() int { f.mu.Lock(); defer f.mu.Unlock(); return f.turn }
	env := []string{"GEMINI_API_KEY=fake-key", "GOOGLE_GEMINI_BASE_URL=" + f.srv.URL, "PLANGIT_BIN=" + real}
	f.setTurn(1)
	r := s.run("turn1", 3*time.Minute, env, gemini, "-p", "Add caching to the user lookups.", "-m", "gemini-2.5-pro", "--approval-mode", "yolo", "--output-format", "stream-json")
	calls := s.readCalls()
	id := streamEvent(t, "gemini", r.stdout, "init", "session_id")
	s.checkHooks(calls, nil)
	checkGeminiOutput(t, 1, r)
	checkPluginHooks(t, calls, "extension", "", "SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent")
	s.checkPlan(id, map[string]string{"Write the cache": "completed"})
	seen := sentToModel(t, f, "extension", 60)
	// The extension's MCP server, run from its bin/: its tools are offered.
	if !strings.Contains(seen, `"name":"mcp_plangit_plan"`) {
		t.Errorf("the extension's MCP tools are not in what the model was sent")
	}
}

// TestCodexPlugin adds the repository as a Codex marketplace, installs the
// plugin from it (codex plugin marketplace add, codex plugin add) into a
// scratch CODEX_HOME, and plays one scripted turn with no plangit hooks in
// any hooks.json: the plugin's hooks run, in Codex's own form (each names
// --host codex), once per event, and the plan is made. Plugin hooks are
// behind the plugin_hooks feature and, like every hook, trusted one by one
// in /hooks; the run turns the feature on and bypasses the trust prompt.
func TestCodexPlugin(t *testing.T) {
	dir := hostDir(t, "codex", "codex")
	s := newSession(t, "codex")
	root := repoRoot(t)
	m := &codexModel{script: func(int) []action {
		return pluginTurn(func(name, cmd string) action {
			return action{name, "exec_command", map[string]any{"cmd": cmd}}
		})
	}}
	f := newFake(t, 30, m.handle)
	m.turn = func() int { f.mu.Lock(); defer f.mu.Unlock(); return f.turn }
	write(t, filepath.Join(s.home, ".bash_profile"), fmt.Sprintf("export PATH=%q:$PATH\n", filepath.Join(s.base, "wrap")+":"+binDir))
	project, err := filepath.EvalSymlinks(s.project)
	if err != nil {
		t.Fatal(err)
	}
	codexHome := filepath.Join(s.base, "codexhome")
	writeCodexConfig(t, codexHome, f.srv.URL, project, "")
	env := []string{"CODEX_HOME=" + codexHome}
	codex := filepath.Join(dir, "node_modules", ".bin", "codex")
	s.run("marketplace-add", time.Minute, env, codex, "plugin", "marketplace", "add", root)
	s.run("install", time.Minute, env, codex, "plugin", "add", "plangit@plangit")
	if fileExists(filepath.Join(s.project, ".codex")) || fileExists(filepath.Join(codexHome, "hooks.json")) {
		t.Fatal("a hooks.json is installed: the session must run on the plugin alone")
	}
	f.setTurn(1)
	r := s.run("turn1", 3*time.Minute, env, codex, "exec", "--json", "--skip-git-repo-check", "--enable", "plugin_hooks", "--dangerously-bypass-hook-trust", "Add caching to the user lookups.")
	calls := s.readCalls()
	id := streamEvent(t, "codex", r.stdout, "thread.started", "thread_id")
	s.checkHooks(calls, nil)
	checkCodexOutput(t, 1, r)
	ran := checkPluginHooks(t, calls, "plugin", "--host codex", "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
	if ran["SessionStart"] != 1 {
		t.Errorf("SessionStart ran %d times, want once", ran["SessionStart"])
	}
	s.checkPlan(id, map[string]string{"Write the cache": "completed"})
	sentToModel(t, f, "plugin", 60)
}

// TestCopilotPlugin adds the repository as a Copilot CLI marketplace (it
// reads .claude-plugin/marketplace.json), installs the plugin from it into
// a scratch HOME (copilot plugin marketplace add, copilot plugin install),
// and plays one scripted turn with no plangit hooks in any hook file: the
// plugin's hooks run in Copilot's own form (each names --host copilot,
// from .github/plugin/plugin.json, not Claude Code's hooks/hooks.json),
// once per event, and the plan is made.
func TestCopilotPlugin(t *testing.T) {
	dir := hostDir(t, "copilot", "copilot")
	s := newSession(t, "copilot")
	root := repoRoot(t)
	m := &copilotModel{project: s.project, script: func(int) []action {
		return pluginTurn(func(name, cmd string) action {
			return action{name, "bash", map[string]any{"command": cmd, "description": name}}
		})
	}}
	f := newFake(t, 30, m.handle)
	m.turn = func() int { f.mu.Lock(); defer f.mu.Unlock(); return f.turn }
	env := []string{
		"XDG_CACHE_HOME=" + filepath.Join(os.Getenv("PLANGIT_HOSTS"), "copilot-cache"),
		"COPILOT_OFFLINE=true",
		"COPILOT_PROVIDER_BASE_URL=" + f.srv.URL + "/v1",
		"COPILOT_MODEL=fake-model",
		"COPILOT_AUTO_UPDATE=false",
		"COPILOT_ALLOW_ALL=true",
	}
	copilot := filepath.Join(dir, "node_modules", ".bin", "copilot")
	s.run("marketplace-add", time.Minute, env, copilot, "plugin", "marketplace", "add", root)
	s.run("install", time.Minute, env, copilot, "plugin", "install", "plangit@plangit")
	if fileExists(filepath.Join(s.project, ".github")) || fileExists(filepath.Join(s.home, ".copilot", "hooks")) {
		t.Fatal("a hook file is installed: the session must run on the plugin alone")
	}
	f.setTurn(1)
	logs := filepath.Join(s.base, "out", "turn1-logs")
	r := s.run("turn1", 3*time.Minute, env, copilot, "-p", "Add caching to the user lookups.", "--allow-all-tools", "--no-ask-user", "--no-auto-update",
		"--output-format", "json", "--log-dir", logs, "--log-level", "debug")
	calls := s.readCalls()
	id := copilotSession(t, r.stdout)
	s.checkHooks(calls, nil)
	checkCopilotOutput(t, 1, r, logs)
	// A failed shell command comes back as a success whose text names the
	// exit code: postToolUse, not postToolUseFailure.
	ran := checkPluginHooks(t, calls, "plugin", "--host copilot", "sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "agentStop")
	if ran["sessionStart"] != 1 {
		t.Errorf("sessionStart ran %d times, want once", ran["sessionStart"])
	}
	s.checkPlan(id, map[string]string{"Write the cache": "completed"})
	sentToModel(t, f, "plugin", 60)
}

// checkPluginHooks checks that every one of events ran a hook of the
// plugin's (what, "plugin" or "extension"), and returns how often each
// event's hook ran; with hostFlag, each hook names it (the host's own
// form, not Claude Code's hooks/hooks.json).
func checkPluginHooks(t *testing.T, calls []call, what, hostFlag string, events ...string) map[string]int {
	t.Helper()
	ran := map[string]int{}
	for _, c := range calls {
		if !c.hook {
			continue
		}
		ran[c.event]++
		if hostFlag != "" && !strings.Contains(strings.Join(c.args, " "), hostFlag) {
			t.Errorf("a hook ran without %s (Claude Code's hooks/hooks.json?): %v", hostFlag, c.args)
		}
	}
	for _, ev := range events {
		if ran[ev] == 0 {
			t.Errorf("the %s's %s hook did not run (ran: %v)", what, ev, ran)
		}
	}
	return ran
}

// sentToModel is every request body the fake model received, and checks
// that the skill's description (its first n bytes) is among them.
func sentToModel(t *testing.T, f *fake, what string, n int) string {
	t.Helper()
	var seen strings.Builder
	for _, req := range f.requests() {
		seen.Write(req.body)
	}
	if !strings.Contains(seen.String(), jsonText(skillDescription(t))[:n]) {
		t.Errorf("the %s's skill is not in what the model was sent", what)
	}
	return seen.String()
}

// pluginTurn is the turn a plugin or extension plays: the plan started,
// a step added and started from the shell, a command that fails, the step
// done; shell runs a command through the host's shell tool.
func pluginTurn(shell func(name, cmd string) action) []action {
	return []action{
		shell("start the plan", `plangit init "Add caching" --goal "cache lookups" --phase Build`),
		shell("add a step", `plangit step add "Write the cache"`),
		shell("start it", `plangit next`),
		shell("a failing command", "ls cachedir"),
		shell("finish step 1", `plangit step done 1 --result "done"`),
	}
}
