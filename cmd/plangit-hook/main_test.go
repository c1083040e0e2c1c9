package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// bin holds plangit and plangit-hook, built once for the tests, and
// spy: a plangit beside a second copy of plangit-hook that logs each
// call to the real one, so the tests see when the hook binary falls back.
var bin, spy string

func TestMain(m *testing.M) {
	if runtime.GOOS == "windows" {
		os.Exit(0) // the spy is a shell script
	}
	dir, err := os.MkdirTemp("", "plangit-hook-test")
	if err != nil {
		panic(err)
	}
	bin, spy = filepath.Join(dir, "bin"), filepath.Join(dir, "spy")
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "github.com/plangit/plangit", "github.com/plangit/plangit/cmd/plangit-hook")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic(err)
	}
	os.MkdirAll(spy, 0o755)
	hook, _ := os.ReadFile(filepath.Join(bin, "plangit-hook"))
	os.WriteFile(filepath.Join(spy, "plangit-hook"), hook, 0o755)
	os.WriteFile(filepath.Join(spy, "plangit"), []byte("#!/bin/sh\necho \"$@\" >> \"$PLANGIT_SPY_LOG\"\nexec "+filepath.Join(bin, "plangit")+" \"$@\"\n"), 0o755)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const session = "6b1d8c2e-0d4f-4f7e-9d1a-2c3b4a5d6e7f"

// project makes a project in which setup has run through plangit.
func project(t *testing.T, setup [][]string) string {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".code-agent"), 0o755)
	for _, args := range setup {
		if args[0] == "write" {
			os.WriteFile(filepath.Join(root, args[1]), []byte(args[2]), 0o644)
			continue
		}
		if args[0] == "edit" {
			path := filepath.Join(root, args[1])
			b, _ := os.ReadFile(path)
			os.WriteFile(path, bytes.Replace(b, []byte(args[2]), []byte(args[3]), 1), 0o644)
			continue
		}
		c := exec.Command(filepath.Join(bin, "plangit"), append([]string{"--session", session}, args...)...)
		c.Dir = root
		c.Env = append(os.Environ(), "PLANGIT_NOW=2026-11-20T10:00:00Z", "CLAUDE_CODE_SESSION_ID=", "PLANGIT_SESSION=")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("plangit %v: %v\n%s", args, err, out)
		}
	}
	return root
}

// hookRun runs one hook program on a fixture in root.
func hookRun(t *testing.T, root, prog string, args []string, fixture []byte, env ...string) (string, int) {
	t.Helper()
	c := exec.Command(prog, args...)
	c.Dir = root
	c.Stdin = bytes.NewReader(bytes.ReplaceAll(bytes.ReplaceAll(fixture, []byte("{{SESSION}}"), []byte(session)), []byte("{{CWD}}"), []byte(root)))
	c.Env = append(os.Environ(), append([]string{"PLANGIT_NOW=", "PLANGIT_ROOT=", "PLANGIT_LOCK_WAIT=", "CLAUDE_CODE_SESSION_ID="}, env...)...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, os.Stderr
	err := c.Run()
	code := 0
	if e, ok := err.(*exec.ExitError); ok {
		code = e.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

var plan = [][]string{
	{"init", "Add caching", "--goal", "cache lookups", "--phase", "Design", "--phase", "Build"},
	{"step", "add", "Design the cache", "--phase", "Design"},
	{"step", "add", "Build the cache layer", "--phase", "Build"},
	{"next"},
	{"error", "add", "--tool", "Bash", "--key", "go test ./...", "exit status 1: TestCacheExpiry"},
}

// TestParity: for every read-only fixture — Claude Code's, and the other
// hosts', which the hook binary hands to plangit — the hook binary's
// stdout, exit code and turn memory equal plangit hook's, twice in a turn,
// whatever state the session is in.
func TestParity(t *testing.T) {
	scenarios := []struct {
		name  string
		setup [][]string
		env   []string
	}{
		{"fresh glance", plan, nil},
		{"shell session", plan, []string{"CLAUDE_CODE_SESSION_ID=" + session}},
		{"stale glance", append(plan[:len(plan):len(plan)], []string{"edit", ".code-agent/plans/" + session + "/task_plan.md", "Build the cache layer", "Write the cache layer"}), nil},
		{"paused plan", append(plan[:len(plan):len(plan)], []string{"pause"}), nil},
		{"completed plan", append(plan[:len(plan):len(plan)], []string{"step", "done", "1"}, []string{"step", "done", "2"}), nil},
		{"missing session", nil, nil},
		{"broken config", append(plan[:len(plan):len(plan)], []string{"write", ".code-agent/config.json", "{broken"}), nil},
		{"plan confirmation", append([][]string{{"config", "set", "plan_confirmation", "true"}}, plan[:3]...), nil},
		{"pre-tool hook off", append([][]string{{"config", "set", "hooks.PreToolUse", "false"}}, plan...), nil},
	}
	fixtures, _ := filepath.Glob("../../testdata/hooks/*.json")
	more, _ := filepath.Glob("../../testdata/hooks/*/*.json")
	fixtures = append(fixtures, more...)
	checked := 0
	for _, fx := range fixtures {
		b, _ := os.ReadFile(fx)
		host := filepath.Base(filepath.Dir(fx))
		event, claude, ok := readOnlyEvent(fx, b)
		if !ok {
			continue
		}
		// A host's own hook names the host; Claude Code's settings' hook,
		// which Cursor and Copilot CLI also run, names Claude Code's event
		// and no host.
		calls := [][]string{{claude}}
		if host != "hooks" {
			calls = [][]string{{event, "--host", host}, {claude}}
		}
		for _, sc := range scenarios {
			for _, args := range calls {
				name := strings.TrimSuffix(strings.TrimPrefix(fx, "../../testdata/hooks/"), ".json") + "/" + sc.name + "/" + strings.Join(args, " ")
				t.Run(name, func(t *testing.T) {
					a, b2 := project(t, sc.setup), project(t, sc.setup)
					for round := 1; round <= 2; round++ {
						wantOut, wantCode := hookRun(t, a, filepath.Join(bin, "plangit"), append([]string{"hook"}, args...), b, sc.env...)
						gotOut, gotCode := hookRun(t, b2, filepath.Join(bin, "plangit-hook"), args, b, sc.env...)
						// The two projects are two repositories, whose commits
						// may land in different seconds: a revision a change
						// names is theirs alone.
						if revision.ReplaceAllString(gotOut, "revision ≈") != revision.ReplaceAllString(wantOut, "revision ≈") || gotCode != wantCode {
							t.Fatalf("round %d: plangit-hook answered (exit %d)\n%s\nplangit hook answered (exit %d)\n%s", round, gotCode, gotOut, wantCode, wantOut)
						}
					}
					turn := filepath.Join(".code-agent", "plans", session, ".git", "plangit", "turn")
					ta, _ := os.ReadFile(filepath.Join(a, turn))
					tb, _ := os.ReadFile(filepath.Join(b2, turn))
					if !bytes.Equal(ta, tb) {
						t.Errorf("turn memory differs:\nplangit-hook:\n%s\nplangit:\n%s", tb, ta)
					}
				})
				checked++
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d fixture runs: the fixtures were not found", checked)
	}
}

// revision is a revision as a hook's answer names it.
var revision = regexp.MustCompile(`revision [0-9a-f]{7,40}`)

// readOnlyEvent is the event a fixture holds, in its host's spelling and
// in Claude Code's, when it is one the hook binary answers for some host.
// Copilot CLI's camelCase payloads name no event: the fixture's file name
// does.
func readOnlyEvent(path string, payload []byte) (event, claude string, ok bool) {
	for _, e := range []struct{ host, claude string }{
		{"PreToolUse", "PreToolUse"}, {"UserPromptSubmit", "UserPromptSubmit"},
		{"preToolUse", "PreToolUse"}, {"beforeSubmitPrompt", "UserPromptSubmit"}, {"userPromptSubmitted", "UserPromptSubmit"},
		{"BeforeTool", "PreToolUse"}, {"BeforeAgent", "UserPromptSubmit"},
	} {
		if bytes.Contains(payload, []byte(`"hook_event_name": "`+e.host+`"`)) || bytes.Contains(payload, []byte(`"hook_event_name":"`+e.host+`"`)) {
			return e.host, e.claude, true
		}
	}
	if filepath.Base(filepath.Dir(path)) == "copilot" && !bytes.Contains(payload, []byte("hook_event_name")) {
		switch base := filepath.Base(path); {
		case strings.HasPrefix(base, "pre_tool_use"):
			return "preToolUse", "PreToolUse", true
		case strings.HasPrefix(base, "user_prompt_submitted"):
			return "userPromptSubmitted", "UserPromptSubmit", true
		}
	}
	return "", "", false
}

// TestAnswersWithoutPlangit: with a fresh glance, the hook binary answers
// PreToolUse and UserPromptSubmit itself, and only a change, a pause or a
// stale glance sends it to plangit.
func TestAnswersWithoutPlangit(t *testing.T) {
	root := project(t, plan)
	log := filepath.Join(t.TempDir(), "calls")
	pre, _ := os.ReadFile("../../testdata/hooks/pre_tool_use_bash.json")
	prompt, _ := os.ReadFile("../../testdata/hooks/user_prompt_submit_other.json")
	hookBin := filepath.Join(spy, "plangit-hook")
	for i := 0; i < 3; i++ {
		hookRun(t, root, hookBin, []string{"UserPromptSubmit"}, prompt, "PLANGIT_SPY_LOG="+log)
		if out, _ := hookRun(t, root, hookBin, []string{"PreToolUse"}, pre, "PLANGIT_SPY_LOG="+log); i == 0 && !strings.Contains(out, "failed before (error #1") {
			t.Errorf("no error history before Bash: %s", out)
		}
	}
	if b, err := os.ReadFile(log); err == nil {
		t.Errorf("plangit was run with a fresh glance:\n%s", b)
	}
	// A hand edit makes the glance stale: plangit answers, and writes it.
	path := filepath.Join(root, ".code-agent", "plans", session, "task_plan.md")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte("Build the cache layer"), []byte("Write the cache layer"), 1), 0o644)
	hookRun(t, root, hookBin, []string{"UserPromptSubmit"}, prompt, "PLANGIT_SPY_LOG="+log)
	hookRun(t, root, hookBin, []string{"UserPromptSubmit"}, prompt, "PLANGIT_SPY_LOG="+log)
	if b, _ := os.ReadFile(log); strings.Count(string(b), "hook UserPromptSubmit") != 1 {
		t.Errorf("a stale glance: plangit runs once, then the glance is fresh again:\n%s", b)
	}
}
