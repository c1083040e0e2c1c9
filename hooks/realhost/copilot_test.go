package realhost

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Chat Completions as Copilot CLI uses it with its own provider
// (COPILOT_PROVIDER_BASE_URL): POST /v1/chat/completions, streaming
// chunks, then a usage chunk and [DONE].

// copilotModel is the fake Chat Completions API playing script.
type copilotModel struct {
	project string
	turn    func() int
	// script replaces the session's script (actions) when set.
	script func(turn int) []action
}

func (m *copilotModel) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":{"message":"fake model: no route","type":"invalid_request_error"}}`))
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var hist []item
	for _, msg := range req.Messages {
		if msg.Role != "assistant" {
			continue
		}
		var text string
		json.Unmarshal(msg.Content, &text)
		hist = append(hist, item{text: text})
		for _, c := range msg.ToolCalls {
			hist = append(hist, item{id: c.ID})
		}
	}
	turn := m.turn()
	script := m.actions
	if m.script != nil {
		script = m.script
	}
	st := next(turn, script(turn), hist)
	chunk := func(delta map[string]any, finish any) {
		sse(w, "", map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	sseHeader(w)
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	finish := "stop"
	if st.act == nil {
		for _, part := range halves(st.final) {
			chunk(map[string]any{"content": part}, nil)
		}
	} else {
		finish = "tool_calls"
		chunk(map[string]any{"content": "Next: " + st.act.name + "."}, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_" + st.id, "type": "function",
			"function": map[string]string{"name": st.act.tool, "arguments": ""}}}}, nil)
		for _, part := range halves(mustJSON(st.act.input)) {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]string{"arguments": part}}}}, nil)
		}
	}
	chunk(map[string]any{}, finish)
	sse(w, "", map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": req.Model, "choices": []any{},
		"usage": map[string]int{"prompt_tokens": len(body)/4 + 1, "completion_tokens": 20, "total_tokens": len(body)/4 + 21}})
	w.Write([]byte("data: [DONE]\n\n"))
}

// actions is the script of a turn, with Copilot CLI's tools. Its todo
// list is the sql tool on a todos table, which plangit does not read, so
// the plan's two steps are added from the shell.
func (m *copilotModel) actions(turn int) []action {
	p := func(rel string) string { return filepath.Join(m.project, rel) }
	bash := func(name, cmd string) action {
		return action{name, "bash", map[string]any{"command": cmd, "description": name}}
	}
	if turn == 2 {
		return []action{bash("finish step 2", `plangit step done 2 --result "tested"`)}
	}
	return []action{
		bash("start the plan", `plangit init "Add caching" --goal "cache lookups" --phase Build`),
		bash("add a step", `plangit step add "Write the cache"`),
		bash("add a second step", `plangit step add "Test the cache"`),
		bash("start it", `plangit next`),
		{"read a file", "view", map[string]any{"path": p("README.md")}},
		bash("a search that finds nothing", "grep -n NoSuchName README.md"),
		bash("a failing command", "ls cachedir"),
		bash("make the directory", "mkdir cachedir"),
		{"write a file", "create", map[string]any{"path": p("cachedir/cache.go"), "file_text": "package cache\n\n// Cache caches lookups.\ntype Cache map[string]string\n"}},
		bash("the same command succeeding", "ls cachedir"),
		{"todo list", "sql", map[string]any{"description": "Insert cache todos", "query": "INSERT INTO todos (id, title, description) VALUES ('write-cache', 'Writing the cache', 'Write the cache'), ('test-cache', 'Testing the cache', 'Test the cache');"}},
		bash("finish step 1", `plangit step done 1 --result "done"`),
	}
}

// TestCopilot runs one scripted Copilot CLI session (copilot -p, offline
// with its own provider), and resumes it.
func TestCopilot(t *testing.T) {
	dir := hostDir(t, "copilot", "copilot")
	s := newSession(t, "copilot")
	s.plangit("hooks", "install", "--host", "copilot")
	m := &copilotModel{project: s.project}
	f := newFake(t, 40, m.handle)
	m.turn = func() int { f.mu.Lock(); defer f.mu.Unlock(); return f.turn }
	// Copilot unpacks its 235 MB package under XDG_CACHE_HOME on first
	// start: kept beside the installed host.
	cache := filepath.Join(os.Getenv("PLANGIT_HOSTS"), "copilot-cache")
	env := []string{
		"XDG_CACHE_HOME=" + cache,
		"COPILOT_OFFLINE=true", // exactly "true": 1 goes online
		"COPILOT_PROVIDER_BASE_URL=" + f.srv.URL + "/v1",
		"COPILOT_MODEL=fake-model",
		"COPILOT_AUTO_UPDATE=false",
		"COPILOT_ALLOW_ALL=true", // also trusts the folder: project hooks run
	}
	copilot := filepath.Join(dir, "node_modules", ".bin", "copilot")
	flags := func(name string) []string {
		return []string{"--allow-all-tools", "--no-ask-user", "--no-auto-update", "--output-format", "json",
			"--log-dir", filepath.Join(s.base, "out", name+"-logs"), "--log-level", "debug"}
	}

	f.setTurn(1)
	r1 := s.run("turn1", 3*time.Minute, env, copilot, append([]string{"-p", "Add caching to the user lookups."}, flags("turn1")...)...)
	calls1 := s.readCalls()
	id := copilotSession(t, r1.stdout)
	s.checkFirstTurn(id, calls1, "agentStop")
	f.setTurn(2)
	r2 := s.run("turn2", 2*time.Minute, env, copilot, append([]string{"-p", "continue", "--resume", id}, flags("turn2")...)...)
	calls := s.readCalls()
	calls2 := calls[len(calls1):]

	s.checkHooks(calls, nil)
	checkCopilotOutput(t, 1, r1, filepath.Join(s.base, "out", "turn1-logs"))
	checkCopilotOutput(t, 2, r2, filepath.Join(s.base, "out", "turn2-logs"))
	s.checkPlan(id, map[string]string{"Write the cache": "completed", "Test the cache": "completed"})
	for _, tool := range []string{"view", "create", "sql", "bash"} {
		if !ranTool(calls, "postToolUse", tool) {
			t.Errorf("no postToolUse for %s: the script's call did not run", tool)
		}
	}
	if fileExists(filepath.Join(s.project, ".code-agent", "plans", id)) {
		revs := s.revisions(id)
		for _, want := range []string{"error #", "resolved", "step 2"} {
			if !anyContains(revs, want) {
				t.Errorf("no revision names %q:\n%s", want, strings.Join(revs, "\n"))
			}
		}
	}
	dropped := map[string]bool{"sessionEnd": true}
	s.checkContext(f, 1, calls1, calls, 0, dropped, nil)
	s.checkContext(f, 2, calls2, calls, 0, dropped, nil)
	s.record(calls, []string{id}, map[string]any{"timestamp": 0})
}

// copilotSession reads the session id from copilot's JSON output.
func copilotSession(t *testing.T, stream string) string {
	t.Helper()
	for _, line := range strings.Split(stream, "\n") {
		var ev struct {
			Type      string `json:"type"`
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "result" && ev.SessionID != "" {
			return ev.SessionID
		}
	}
	t.Fatalf("no result event in copilot's output:\n%s", tail(stream, 2000))
	return ""
}

// copilotHarmless are the warnings about hooks Copilot CLI logs in every
// headless session: before the project's hooks load, and that they load.
var copilotHarmless = []string{
	"Failed to reload managed hooks after enabling managed settings",
	"Loading repo hooks in prompt mode",
}

// checkCopilotOutput fails on anything on stderr, on an error event, and
// on a warning or error about a hook in Copilot's logs.
func checkCopilotOutput(t *testing.T, turn int, r result, logs string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(logs, "*.log"))
	if len(files) == 0 {
		t.Errorf("turn %d: copilot wrote no log in %s", turn, logs)
	}
	for _, f := range files {
	lines:
		for _, line := range strings.Split(readFile(t, f), "\n") {
			if !strings.Contains(line, "[WARNING]") && !strings.Contains(line, "[ERROR]") || !strings.Contains(strings.ToLower(line), "hook") {
				continue
			}
			for _, h := range copilotHarmless {
				if strings.Contains(line, h) {
					continue lines
				}
			}
			t.Errorf("turn %d: copilot's log: %s", turn, line)
		}
	}
	if strings.TrimSpace(r.stderr) != "" {
		t.Errorf("turn %d: copilot wrote to stderr:\n%s", turn, r.stderr)
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && strings.Contains(ev.Type, "error") {
			t.Errorf("turn %d: copilot reports: %s", turn, line)
		}
	}
}
