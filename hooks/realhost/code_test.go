package realhost

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// TestClaudeCodeSnapshots runs a Claude Code session in a git project
// that, during step 1, edits one file through Claude Code's Edit tool and
// another through a shell command (its Bash tool), then completes the
// step: the code snapshots of the revisions that started and completed
// step 1 differ in exactly those two files, read from the code store
// and through plangit diff --code.
func TestClaudeCodeSnapshots(t *testing.T) {
	dir := hostDir(t, "claude", "claude")
	s := newSession(t, "claude")
	write(t, filepath.Join(s.project, "service.go"), "package service\n\nconst Version = \"v1\"\n")
	write(t, filepath.Join(s.project, "untouched.go"), "package service\n")
	s.git("add", "-A")
	s.git("commit", "-qm", "the service")
	s.plangit("hooks", "install", "--host", "claude")
	write(t, filepath.Join(s.home, ".claude.json"), "{}\n")
	p := func(rel string) string { return filepath.Join(s.project, rel) }
	bash := func(name, cmd string) action {
		return action{name, "Bash", map[string]string{"command": cmd, "description": name}}
	}
	m := &claudeModel{project: s.project, script: func(int) []action {
		return []action{
			bash("start the plan", `plangit init "Document the service" --goal "say what it does" --phase Build`),
			bash("add a step", `plangit step add "Document and bump the version"`),
			bash("start it", `plangit next`),
			action{"read the readme", "Read", map[string]string{"file_path": p("README.md")}},
			action{"edit the readme", "Edit", map[string]any{"file_path": p("README.md"),
				"old_string": "on every call.", "new_string": "on every call; nothing is cached yet."}},
			bash("bump the version from the shell", `sed -i 's/"v1"/"v2"/' service.go`),
			bash("finish step 1", `plangit step done 1 --result "documented"`),
		}
	}}
	var f *fake
	f = newFake(t, 20, m.handle)
	m.turn = func() int { f.mu.Lock(); defer f.mu.Unlock(); return f.turn }
	env := []string{"IS_SANDBOX=1", "ANTHROPIC_BASE_URL=" + f.srv.URL, "ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	claude := filepath.Join(dir, "node_modules", ".bin", "claude")
	f.setTurn(1)
	r := s.run("turn1", 3*time.Minute, env, claude, "-p", "Document the lookup service and bump its version.",
		"--output-format", "stream-json", "--verbose", "--include-hook-events",
		"--debug-file", filepath.Join(s.base, "out", "turn1-debug.log"), "--dangerously-skip-permissions")
	calls := s.readCalls()
	s.checkHooks(calls, nil)
	checkClaudeOutput(t, 1, r, filepath.Join(s.base, "out", "turn1-debug.log"))
	for _, tool := range []string{"Edit", "Bash"} {
		if !ranTool(calls, "PostToolUse", tool) {
			t.Errorf("no PostToolUse for %s: the script's call did not run", tool)
		}
	}
	if got := readFile(t, p("README.md")); !strings.Contains(got, "nothing is cached yet") {
		t.Fatalf("the Edit tool did not edit README.md:\n%s", got)
	}

	ids := s.sessions()
	if len(ids) != 1 {
		t.Fatalf("sessions: %v", ids)
	}
	sess, err := (repo.Project{Root: s.project}).Open(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	revs, err := sess.Revisions()
	if err != nil {
		t.Fatal(err)
	}
	var started, completed string
	for _, rev := range revs {
		for _, tc := range rev.Touches {
			switch {
			case tc.Step == "1" && tc.To == plan.StepInProgress:
				started = rev.Code
			case tc.Step == "1" && tc.To == plan.StepCompleted:
				completed = rev.Code
			}
		}
	}
	if started == "" || completed == "" {
		t.Fatalf("step 1's start and completion name no code snapshots (%q, %q): %+v", started, completed, revs)
	}
	cs, err := sess.Code()
	if err != nil {
		t.Fatal(err)
	}
	before, err := cs.Files(plumbing.NewHash(started))
	if err != nil {
		t.Fatal(err)
	}
	after, err := cs.Files(plumbing.NewHash(completed))
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for name, f := range after {
		if before[name] != f {
			changed = append(changed, name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			changed = append(changed, name)
		}
	}
	slices.Sort(changed)
	if !slices.Equal(changed, []string{"README.md", "service.go"}) {
		t.Errorf("step 1's code changed %v, want README.md (the Edit tool) and service.go (a shell command)", changed)
	}
	// And as plangit shows it: diff --code of step 1.
	stat := s.plangit("diff", "--session", ids[0], "--code", "1", "--stat")
	for _, name := range []string{"README.md", "service.go"} {
		if !strings.Contains(stat, name) {
			t.Errorf("diff --code 1 --stat does not name %s:\n%s", name, stat)
		}
	}
	if strings.Contains(stat, "untouched.go") {
		t.Errorf("diff --code 1 --stat names a file step 1 did not change:\n%s", stat)
	}
	blob, err := cs.Blob(after["service.go"].Hash, 0)
	if err != nil || !strings.Contains(string(blob), `"v2"`) {
		t.Errorf("the completion's snapshot of service.go: %q %v", blob, err)
	}
}
