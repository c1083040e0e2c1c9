package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
)

// send runs one event whose payload is built here, in the shape Claude
// Code documents: session_id, cwd and hook_event_name, and the fields
// given. It returns the context the agent reads (or the block reason), ""
// for nothing.
func (f *fixture) send(event string, fields map[string]any) string {
	f.t.Helper()
	return agentText(f.t, f.sendRaw(event, fields))
}

func (f *fixture) sendRaw(event string, fields map[string]any) string {
	f.t.Helper()
	p := map[string]any{"session_id": sessionID, "cwd": f.root, "hook_event_name": event, "transcript_path": "/home/dev/.claude/projects/x/" + sessionID + ".jsonl"}
	for k, v := range fields {
		p[k] = v
	}
	b, _ := json.Marshal(p)
	f.now = f.now.Add(time.Minute)
	now := f.now
	out, code := Run(Claude{}, event, strings.NewReader(string(b)), Env{Now: func() time.Time { return now },
		Getenv: func(name string) string { return f.environ[name] }})
	if code != 0 {
		f.t.Fatalf("%s: exit code %d", event, code)
	}
	return string(out)
}

// agentText is what of a Claude Code answer reaches the agent: the
// additionalContext, the reason of a block, the reason of a denial.
func agentText(t testing.TB, out string) string {
	t.Helper()
	if out == "" {
		return ""
	}
	var a struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
		H        struct {
			AdditionalContext        string `json:"additionalContext"`
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	text := a.H.AdditionalContext
	if a.Decision == "block" {
		text += a.Reason
	}
	if a.H.PermissionDecision == "deny" {
		text += a.H.PermissionDecisionReason
	}
	return text
}

func bash(command string) map[string]any {
	return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": command, "description": "run"}}
}

func TestEnvFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.environ = map[string]string{} // a host whose shell gets no session id of its own
	f.withPlan(sessionID)
	envFile := filepath.Join(t.TempDir(), "claude-env.sh")
	os.WriteFile(envFile, []byte("export NODE_ENV=production"), 0o644) // another hook's line, no newline at its end

	// Without the env file, every command a hook suggests names the session.
	if out := f.send(PostToolUse, map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": f.root + "/a.go"}}); !strings.Contains(out, "plangit --session "+sessionID+" step done 2") {
		t.Errorf("without the env file: %s", out)
	}

	f.environ["CLAUDE_ENV_FILE"] = envFile
	out := f.send(SessionStart, map[string]any{"source": "startup"})
	b, _ := os.ReadFile(envFile)
	want := "export NODE_ENV=production\nexport PLANGIT_SESSION='" + sessionID + "'\nexport PLANGIT_ROOT='" + f.root + "'\n"
	if string(b) != want {
		t.Fatalf("env file:\n%s\nwant\n%s", b, want)
	}
	if !strings.Contains(out, "Record progress: plangit step done 2") {
		t.Errorf("with the env file, commands need no --session: %s", out)
	}
	// The shell that sources it reaches the session.
	if sh, err := exec.LookPath("sh"); err == nil {
		got, err := exec.Command(sh, "-c", `. "$1" && printf '%s|%s' "$PLANGIT_SESSION" "$PLANGIT_ROOT"`, "sh", envFile).Output()
		if err != nil || string(got) != sessionID+"|"+f.root {
			t.Errorf("sourced: %q %v", got, err)
		}
	}
	// Again (a resume, a compaction): nothing is added.
	f.send(SessionStart, map[string]any{"source": "compact"})
	if b2, _ := os.ReadFile(envFile); string(b2) != want {
		t.Errorf("written twice:\n%s", b2)
	}
	// Later hooks, which the host gives no env file, remember it.
	delete(f.environ, "CLAUDE_ENV_FILE")
	f.send(UserPromptSubmit, map[string]any{"prompt": "go on with the cache"})
	if out := f.send(PostToolUse, map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": f.root + "/a.go"}}); !strings.Contains(out, "(plangit step done 2") {
		t.Errorf("after the env file: %s", out)
	}

	t.Run("a link is never written through", func(t *testing.T) {
		g := newFixture(t)
		target := filepath.Join(t.TempDir(), "elsewhere")
		os.WriteFile(target, []byte("keep\n"), 0o644)
		link := filepath.Join(t.TempDir(), "env")
		repotest.RequireSymlink(t, target, link)
		g.environ = map[string]string{"CLAUDE_ENV_FILE": link}
		g.withPlan(sessionID)
		if out := g.send(SessionStart, map[string]any{"source": "startup"}); !strings.Contains(out, "--session "+sessionID) {
			t.Errorf("the env file was not written, so commands name the session: %s", out)
		}
		if b, _ := os.ReadFile(target); string(b) != "keep\n" {
			t.Errorf("written through a link: %s", b)
		}
		if !strings.Contains(g.log(), "cannot write the host's env file") {
			t.Errorf("not logged: %q", g.log())
		}
	})
	t.Run("never created without the variable", func(t *testing.T) {
		g := newFixture(t)
		g.environ = map[string]string{}
		g.withPlan(sessionID)
		g.send(SessionStart, map[string]any{"source": "startup"})
		entries, _ := os.ReadDir(g.root)
		for _, e := range entries {
			if e.Name() != repo.DirName {
				t.Errorf("a hook made %s", e.Name())
			}
		}
	})
}

func TestTurnMemory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "turn")
	if tm := hookwire.ReadTurn(path); tm.Begun || tm.SaidCount() != 0 {
		t.Errorf("a missing file: %+v", tm)
	}
	k1, k2 := hookwire.SayKey("one"), hookwire.SayKey("two")
	os.WriteFile(path, []byte("T 2 abc shell\nS "+hookwire.SayKey("old")+"\nB -\nT 3 def -\nS "+k1+"\nA 3 4\nB a1\nS "+k2), 0o644)
	tm := hookwire.ReadTurn(path)
	if !tm.Begun || tm.Step != "3" || tm.Sig != "def" || tm.Shell || !tm.Said(k1) || tm.Said(k2) || tm.Said(hookwire.SayKey("old")) ||
		tm.Blocks["-"] != 0 || tm.Blocks["a1"] != 1 || len(tm.Advanced) != 1 || tm.Advanced[0] != [2]string{"3", "4"} {
		t.Errorf("%+v", tm)
	}
	// A memory that no turn began (a plan started mid-turn) counts whole.
	os.WriteFile(path, []byte("B -\nS "+k1+"\n"), 0o644)
	if tm := hookwire.ReadTurn(path); tm.Begun || tm.Blocks["-"] != 1 || !tm.Said(k1) {
		t.Errorf("%+v", tm)
	}
	texts, lines := tm.Say([]hookwire.Part{{Key: "x", Text: "said as x"}, {Text: "one"}, {Text: ""}, {Key: "x", Text: "x again"}})
	if len(texts) != 1 || texts[0] != "said as x" || lines != "S "+hookwire.SayKey("x")+"\n" {
		t.Errorf("%q %q", texts, lines)
	}
	if len(hookwire.SayKey("")) != 16 || len(hookwire.SayKey("a long key")) != 16 {
		t.Error("keys are 16 hex digits")
	}
	// Lines are words apart, as strings.Fields splits them; a line of the
	// wrong length says nothing; a turn begun at the very start counts
	// from there; a last line cut short is no line.
	odd := "T  5\tsig  shell \nS " + k1 + " extra\n\n  S\t" + k2 + "\r\nB\nA 5\nS " + hookwire.SayKey("cut")
	os.WriteFile(path, []byte(odd), 0o644)
	if tm := hookwire.ReadTurn(path); !tm.Begun || tm.Step != "5" || tm.Sig != "sig" || !tm.Shell || tm.Said(k1) || !tm.Said(k2) ||
		tm.SaidCount() != 1 || tm.Blocks != nil || tm.Advanced != nil || tm.Said(hookwire.SayKey("cut")) || tm.Size != len(odd) {
		t.Errorf("%+v", tm)
	}
	os.WriteFile(path, []byte("T - - -\nS "+k1+"\n"), 0o644)
	if tm := hookwire.ReadTurn(path); !tm.Begun || tm.Step != "" || tm.Shell || !tm.Said(k1) {
		t.Errorf("%+v", tm)
	}
}

func TestErrorsHaveALife(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID, func(st *plan.State) { st.Errors = nil })
	fail := func(command string) string {
		f.t.Helper()
		return f.send(PostToolUseFailure, map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": command},
			"error": "Exit code 1\n--- FAIL: TestCacheExpiry (30.01s)"})
	}
	f.send(UserPromptSubmit, map[string]any{"prompt": "fix the cache test"})
	fail("go test ./internal/cache/")
	fail("go vet ./...")
	st := f.state(sessionID)
	if len(st.Errors) != 2 || st.Errors[1].Key != "go test ./internal/cache/" || st.Errors[0].Key != "go vet ./..." {
		t.Fatalf("%+v", st.Errors)
	}
	// Before the same command: that it failed, and how; the other open
	// error in one short line.
	out := f.send(PreToolUse, bash("go test  ./internal/cache/"))
	if !strings.Contains(out, "\n`go test ./internal/cache/` failed before (error #1, ×1): Exit code 1 --- FAIL: TestCacheExpiry (30.01s)") ||
		!strings.Contains(out, "\nOther open Bash errors: #2 ×1 `go vet ./...`\n</data>\nplangit errors --open lists them.") {
		t.Errorf("before the failing command: %s", out)
	}
	if out := f.send(PreToolUse, bash("go test ./internal/cache/")); out != "" {
		t.Errorf("said twice in a turn: %s", out)
	}
	// The same command succeeding resolves its error: a commit.
	out = f.send(PostToolUse, bash("go test ./internal/cache/"))
	if !strings.Contains(out, "Error #1 is resolved: the same call succeeded.") {
		t.Errorf("resolution: %s", out)
	}
	st = f.state(sessionID)
	if e := st.Errors.ByID("1"); e.Open() || e.Resolution != "the same call succeeded" {
		t.Errorf("%+v", e)
	}
	revs := f.revisions(sessionID)
	if last := revs[len(revs)-1]; last.Summary != "error #1 resolved: Bash `go test ./internal/cache/` succeeded" || last.Tool != "Bash" {
		t.Errorf("%+v", last)
	}
	// A resolved error is history: never brought up again.
	f.send(UserPromptSubmit, map[string]any{"prompt": "and now?"})
	out = f.send(PreToolUse, bash("go test ./internal/cache/"))
	if strings.Contains(out, "error #1") || !strings.Contains(out, "Open Bash errors: #2") {
		t.Errorf("after resolution: %s", out)
	}
	// Three strikes count open errors only: failing again starts over.
	fail("go test ./internal/cache/")
	if out := fail("go test ./internal/cache/"); !strings.Contains(out, "has failed this way 2 times (error #3") {
		t.Errorf("a resolved error came back: %s", out)
	}
	// A success with nothing to resolve commits nothing.
	n := len(f.revisions(sessionID))
	f.send(PostToolUse, bash("ls"))
	if len(f.revisions(sessionID)) != n {
		t.Error("a success with no open error committed")
	}
}

func TestTodoListExtras(t *testing.T) {
	t.Parallel()
	todo := func(content, status, phase string) map[string]any {
		m := map[string]any{"content": content, "status": status, "activeForm": content + "ing"}
		if phase != "" {
			m["phaseId"] = phase
		}
		return m
	}
	write := func(f *fixture, input map[string]any) string {
		return f.send(PostToolUse, map[string]any{"tool_name": "TodoWrite", "tool_input": input, "tool_response": map[string]any{}})
	}
	t.Run("planTitle and phaseId", func(t *testing.T) {
		f := newFixture(t)
		write(f, map[string]any{"planTitle": "UserService 缓存重构", "persist": true, "todos": []any{
			todo("分析现有 UserService 实现", "completed", "Analysis"), todo("实现缓存层", "in_progress", "Build"), todo("编写测试", "pending", "Build")}})
		p := f.state(sessionID).Plan
		if p.Title != "UserService 缓存重构" || len(p.Phases) != 2 || p.Phases[0].Title != "Analysis" || len(p.Phases[1].Steps) != 2 {
			t.Fatalf("%s %+v", p.Title, p.Phases)
		}
	})
	t.Run("persist false", func(t *testing.T) {
		f := newFixture(t)
		if out := write(f, map[string]any{"persist": false, "todos": []any{todo("scratch", "pending", "")}}); out != "" {
			t.Errorf("%s", out)
		}
		if _, err := f.proj().Open(sessionID); err == nil {
			t.Error("a list not to persist started a plan")
		}
		f.withPlan(sessionID)
		write(f, map[string]any{"persist": false, "todos": []any{todo("scratch", "pending", "")}})
		if n := len(f.state(sessionID).Plan.Steps()); n != 4 {
			t.Errorf("a list not to persist was synced: %d steps", n)
		}
	})
	t.Run("dropped todos", func(t *testing.T) {
		f := newFixture(t)
		write(f, map[string]any{"todos": []any{todo("Read", "completed", ""), todo("Write", "in_progress", ""), todo("Test", "pending", ""), todo("Ship", "pending", "")}})
		out := write(f, map[string]any{"todos": []any{todo("Write", "in_progress", ""), todo("Ship", "pending", "")}})
		if !strings.Contains(out, "sync: TodoWrite — 1 dropped") {
			t.Errorf("%s", out)
		}
		p := f.state(sessionID).Plan
		read, _, _ := p.Step("1")
		test, _, _ := p.Step("3")
		if read.Status != plan.StepCompleted || test.Status != plan.StepSkipped || test.Reason != "dropped from the todo list" {
			t.Errorf("read %s; test %s (%s)", read.Status, test.Status, test.Reason)
		}
		// Listed again, it comes back.
		write(f, map[string]any{"todos": []any{todo("Write", "in_progress", ""), todo("Test", "pending", ""), todo("Ship", "pending", "")}})
		if test, _, _ := f.state(sessionID).Plan.Step("3"); test.Status != plan.StepPending {
			t.Errorf("listed again: %s", test.Status)
		}
	})
	t.Run("the last step done", func(t *testing.T) {
		f := newFixture(t)
		write(f, map[string]any{"todos": []any{todo("Only", "in_progress", "")}})
		if out := write(f, map[string]any{"todos": []any{todo("Only", "completed", "")}}); !strings.Contains(out, "[plangit] Plan completed 1/1 — plangit finish records the result.") {
			t.Errorf("%s", out)
		}
	})
}

func TestPlanConfirmationGatesChanges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID, func(st *plan.State) { st.Plan.Status = plan.PlanPending })
	f.config(`{"plan_confirmation": true}`)
	ask := func(fields map[string]any) bool {
		var a struct {
			H struct {
				PermissionDecision string `json:"permissionDecision"`
			} `json:"hookSpecificOutput"`
		}
		json.Unmarshal([]byte(f.sendRaw(PreToolUse, fields)), &a)
		return a.H.PermissionDecision == "ask"
	}
	for fields, want := range map[*map[string]any]bool{
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}}:                                true,
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "plangit step add 'Benchmark'"}}:                 false,
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "plangit show && rm -rf build"}}:                 true,
		{"tool_name": "Bash", "tool_input": map[string]any{"command": "plangit approve"}}:                              true,
		{"tool_name": "NotebookEdit", "tool_input": map[string]any{"notebook_path": "a.ipynb"}}:                        true,
		{"tool_name": "Read", "tool_input": map[string]any{"file_path": "a.go"}}:                                       false,
		{"tool_name": "Edit", "tool_input": map[string]any{"file_path": "a.go", "old_string": "a", "new_string": "b"}}: true,
	} {
		if got := ask(*fields); got != want {
			t.Errorf("%v: ask %v", *fields, got)
		}
	}
	// The person approves, at a terminal.
	if err := f.changeAs(repo.Meta{Actor: "user"}, false, sessionID, func(p *plan.Plan) (plan.Change, error) { return p.Approve(f.now) }); err != nil {
		t.Fatal(err)
	}
	if ask(map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}}) {
		t.Error("an approved plan gates nothing")
	}
}

// TestUnreadablePlan: the next hook repairs a plan file that cannot be
// read — the last revision restored, the rejected text kept beside it —
// tells the agent and the person once, and answers on the repaired plan.
func TestUnreadablePlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.withPlan(sessionID)
	broken := "# Broken\n\n- [ ] ◐ a step `#2 needs:zz`\n"
	os.WriteFile(filepath.Join(s.Dir, plan.PlanFile), []byte(broken), 0o644)
	raw := f.sendRaw(PreToolUse, bash("go build ./..."))
	out := agentText(t, raw)
	if !strings.HasPrefix(out, "[plangit] The plan's files could not be read;") || !strings.Contains(out, "\nRead error: task_plan.md:3:1: ") ||
		!strings.Contains(out, "plangit restored task_plan.md (its text kept as task_plan.md.rejected.1) from the last revision") {
		t.Errorf("%s", out)
	}
	if !strings.Contains(raw, `"systemMessage":"plangit: restored task_plan.md (its text kept as task_plan.md.rejected.1) from the last revision; it could not be read"`) {
		t.Errorf("the person was not told: %s", raw)
	}
	if kept, _ := os.ReadFile(filepath.Join(s.Dir, "task_plan.md.rejected.1")); string(kept) != broken {
		t.Errorf("the rejected text: %q", kept)
	}
	if st := f.state(sessionID); st.Plan.Title != "Add caching to UserService" {
		t.Fatalf("the plan after the repair: %+v", st.Plan)
	}
	if out := f.send(PreToolUse, bash("go build ./...")); strings.Contains(out, "could not be read") {
		t.Errorf("said twice: %s", out)
	}
}

// TestPlanThatCannotStandIsRepaired: a hand edit that parses but cannot
// stand — a cycle of needs, two steps with one id, a need of a step that
// does not exist — is repaired by the next hook as an unreadable file is,
// and the agent keeps its reminder; it is not left with silence.
func TestPlanThatCannotStandIsRepaired(t *testing.T) {
	t.Parallel()
	for name, edit := range map[string][2]string{
		"cycle":        {"`#1`", "`#1 needs:2`"},
		"duplicate id": {"`#3", "`#2"},
		"unknown need": {"`#2 needs:1`", "`#2 needs:77`"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s := f.withPlan(sessionID)
			path := filepath.Join(s.Dir, plan.PlanFile)
			b, _ := os.ReadFile(path)
			if !bytes.Contains(b, []byte(edit[0])) {
				t.Fatalf("no %s in\n%s", edit[0], b)
			}
			os.WriteFile(path, bytes.Replace(b, []byte(edit[0]), []byte(edit[1]), 1), 0o644)
			out := f.send(SessionStart, map[string]any{"source": "startup"})
			if !strings.Contains(out, "[plangit] The plan's files could not be read;") || !strings.Contains(out, "plangit restored task_plan.md") {
				t.Errorf("not repaired: %q", out)
			}
			if !strings.Contains(out, "Current: ◐ 2  Design the cache") {
				t.Errorf("no reminder: %q", out)
			}
			if st := f.state(sessionID); len(st.Plan.Steps()) != 4 {
				t.Errorf("the plan after the repair: %d steps", len(st.Plan.Steps()))
			}
		})
	}
}

func TestSessionStartReminder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID, func(st *plan.State) {
		for _, title := range []string{"a", "b", "c", "d"} {
			st.Findings.Add(plan.Finding{Category: plan.CatInsight, Title: "insight " + title}, t0)
		}
		st.Findings.Add(plan.Finding{Category: plan.CatArchitecture, Title: "one cache per service"}, t0)
	})
	out := f.send(SessionStart, map[string]any{"source": "startup"})
	for _, want := range []string{"Current: ◐ 2  Design the cache (phase 1: Analysis)", "Findings, code: GetUser is the hot path\n",
		"Findings, architecture: one cache per service\n", "Findings, insight: insight d; insight c; insight b\n</data>\nplangit findings shows the findings.\n",
		`Add a step by writing a line "[Step] what to do" in a reply.`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	// What the reminder said is not said again in its turn.
	if out := f.send(PreToolUse, bash("go build ./...")); strings.Contains(out, "Current step") {
		t.Errorf("%s", out)
	}
}

func TestSessionEndCheckpoint(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	f.run("post_tool_use_read.json")
	f.run("post_tool_use_read.json")
	f.run("session_end.json")
	if it := f.state(sessionID).Plan.Iterations; it != 2 {
		t.Errorf("iterations %d after the session's end", it)
	}
	n := len(f.revisions(sessionID))
	f.run("session_end.json")
	if len(f.revisions(sessionID)) != n {
		t.Error("a second end with no tool use committed")
	}
}

func TestNormKey(t *testing.T) {
	t.Parallel()
	for _, k := range []string{"", " go  test\t./... ", strings.Repeat("é", 600), strings.Repeat("a ", 700), "x\ny"} {
		if hookwire.NormKey(k) != plan.NormalizeKey(k) {
			t.Errorf("hookwire.NormKey(%q) = %q, plan.NormalizeKey %q", k, hookwire.NormKey(k), plan.NormalizeKey(k))
		}
	}
}
