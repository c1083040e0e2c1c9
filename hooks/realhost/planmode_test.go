package realhost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"github.com/plangit/plangit/repo/repotest"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// planModePlans are the plans the fake model writes in plan mode, one a
// turn: the second re-plans, a step more.
var planModePlans = []string{`# Plan: Add caching

## Context

UserService.GetUser looks users up in the database on every call.

## Implementation

1. Write the cache
2. Test the cache
`, `# Plan: Add caching

## Context

UserService.GetUser looks users up in the database on every call.

## Implementation

1. Write the cache
2. Test the cache
3. Document the cache
`}

// planFileRE finds the plan file plan mode's reminder names.
var planFileRE = regexp.MustCompile(`/[^\s"'()\\]*/\.claude/plans/[A-Za-z0-9._-]+\.md`)

// TestClaudePlanMode runs Claude Code in plan mode, headless as the Agent
// SDK runs it, with plan_confirmation on: in each turn the model writes
// its plan to the plan file plan mode names and calls ExitPlanMode, and
// the person approves it (the permission prompt, answered over stdio).
// Turn 1's plan becomes the session's plan, approved; turn 2 re-plans,
// and the plan is updated in place, one step added, none duplicated.
func TestClaudePlanMode(t *testing.T) {
	dir := hostDir(t, "claude", "claude")
	s := newSession(t, "claude")
	s.plangit("hooks", "install", "--host", "claude")
	write(t, filepath.Join(s.project, ".code-agent", "config.json"), `{"plan_confirmation": true}`+"\n")
	write(t, filepath.Join(s.home, ".claude.json"), "{}\n")
	m := &claudeModel{project: s.project}
	var planFile string // the plan file plan mode's reminder names
	m.script = func(turn int) []action {
		return []action{
			{"load ExitPlanMode", "ToolSearch", map[string]any{"query": "select:ExitPlanMode", "max_results": 5}},
			{"write the plan", "Write", map[string]string{"file_path": planFile, "content": planModePlans[turn-1]}},
			{"present the plan", "ExitPlanMode", map[string]any{}},
		}
	}
	var f *fake
	f = newFake(t, 30, func(w http.ResponseWriter, r *http.Request, body []byte) {
		if p := planFileRE.Find(body); p != nil && planFile == "" {
			planFile = string(p)
		}
		m.handle(w, r, body)
	})
	m.turn = func() int { f.mu.Lock(); defer f.mu.Unlock(); return f.turn }
	env := []string{
		"IS_SANDBOX=1",
		"ANTHROPIC_BASE_URL=" + f.srv.URL,
		"ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
	claude := filepath.Join(dir, "node_modules", ".bin", "claude")
	flags := func(name string) []string {
		return []string{"-p", "--permission-mode", "plan", "--input-format", "stream-json", "--permission-prompt-tool", "stdio",
			"--output-format", "stream-json", "--verbose", "--include-hook-events", "--debug-file", filepath.Join(s.base, "out", name+"-debug.log")}
	}
	f.setTurn(1)
	r1 := s.approve("turn1", 3*time.Minute, env, claude, "Plan caching for the user lookups.", flags("turn1")...)
	id := claudeSession(t, r1.stdout)
	calls1 := s.readCalls()
	if !ranTool(calls1, "PostToolUse", "ExitPlanMode") {
		t.Fatal("turn 1: no PostToolUse for ExitPlanMode: the plan was not approved")
	}
	p := s.show(id)
	if got := p.Data.Plan.Status; got != "running" {
		t.Errorf("turn 1: the plan is %q, want running: the person approved it in plan mode", got)
	}
	if got, want := p.steps(), map[string]string{"Write the cache": "pending", "Test the cache": "pending"}; !sameSteps(got, want) {
		t.Errorf("turn 1: steps %v, want %v", got, want)
	}
	f.setTurn(2)
	r2 := s.approve("turn2", 3*time.Minute, env, claude, "Add documenting it to the plan.", append(flags("turn2"), "--resume", id)...)
	calls := s.readCalls()
	s.checkHooks(calls, nil)
	for i, r := range []result{r1, r2} {
		checkClaudeOutput(t, i+1, r, filepath.Join(s.base, "out", []string{"turn1", "turn2"}[i]+"-debug.log"))
	}
	repotest.CheckAll(t, s.project)
	if ids := s.sessions(); len(ids) != 1 || ids[0] != id {
		t.Errorf("sessions %v, want only %s", ids, id)
	}
	p = s.show(id)
	if got, want := p.steps(), map[string]string{"Write the cache": "pending", "Test the cache": "pending", "Document the cache": "pending"}; !sameSteps(got, want) {
		t.Errorf("turn 2: steps %v, want %v", got, want)
	}
	revs := s.revisions(id)
	n := 0
	for _, r := range revs {
		if strings.Contains(r, "plan from plan mode") {
			n++
		}
	}
	if n != 2 || !anyContains(revs, "approved in plan mode") {
		t.Errorf("revisions, want two from plan mode, the first approved in it:\n%s", strings.Join(revs, "\n"))
	}
	s.record(calls, []string{id}, claudeNorm)
}

// sameSteps reports whether two step maps (text → status) are equal.
func sameSteps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// approve runs Claude Code as the Agent SDK does (stream-json in and
// out, permission prompts over stdio): it sends prompt as the person's
// message, allows every permission Claude Code asks for — as the person
// approving the plan in plan mode — and closes the input at the result.
func (s *session) approve(name string, limit time.Duration, env []string, program, prompt string, args ...string) result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = s.project
	cmd.Env = append(append([]string{}, s.env...), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		s.t.Fatal(err)
	}
	var errb, out bytes.Buffer
	cmd.Stderr = &errb
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	send := func(v any) { b, _ := json.Marshal(v); in.Write(append(b, '\n')) }
	send(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}, "parent_tool_use_id": nil, "session_id": ""})
	sc := bufio.NewScanner(outp)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Bytes()
		out.Write(line)
		out.WriteByte('\n')
		var ev struct {
			Type      string `json:"type"`
			RequestID string `json:"request_id"`
			Request   struct {
				Subtype string          `json:"subtype"`
				Input   json.RawMessage `json:"input"`
			} `json:"request"`
		}
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		switch {
		case ev.Type == "control_request" && ev.Request.Subtype == "can_use_tool":
			send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": ev.RequestID,
				"response": map[string]any{"behavior": "allow", "updatedInput": ev.Request.Input}}})
		case ev.Type == "result":
			in.Close()
		}
	}
	err = cmd.Wait()
	r := result{stdout: out.String(), stderr: errb.String(), err: err, took: time.Since(start)}
	write(s.t, filepath.Join(s.base, "out", name+".stdout"), r.stdout)
	write(s.t, filepath.Join(s.base, "out", name+".stderr"), r.stderr)
	if ctx.Err() != nil || err != nil {
		s.t.Fatalf("%s %s: %v\nstderr:\n%s\nstdout:\n%s", s.host, name, err, tail(r.stderr, 2000), tail(r.stdout, 3000))
	}
	return r
}
