package realhost

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The Anthropic Messages API as Claude Code uses it: POST
// /v1/messages?beta=true, streaming. The reply is a text and one tool_use
// block, or a final text.

type claudeRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or blocks
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type claudeBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// blocks is a message's content as blocks (a string is one text block).
func claudeBlocks(raw json.RawMessage) []claudeBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []claudeBlock{{Type: "text", Text: s}}
	}
	var bs []claudeBlock
	json.Unmarshal(raw, &bs)
	return bs
}

// claudeModel is the fake Messages API playing script.
type claudeModel struct {
	project string
	turn    func() int
	// script replaces the session's script (actions) when set.
	script func(turn int) []action
}

func (m *claudeModel) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"type":"error","error":{"type":"not_found_error","message":"fake model: no route"}}`))
		return
	}
	var req claudeRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	tools := map[string]bool{}
	for _, t := range req.Tools {
		tools[t.Name] = true
	}
	var blocks []map[string]any
	if !tools["Bash"] {
		// A side request (a title, a summary): not the agent's loop.
		blocks = append(blocks, map[string]any{"type": "text", "text": "OK"})
	} else {
		var hist []item
		for _, msg := range req.Messages {
			if msg.Role != "assistant" {
				continue
			}
			for _, b := range claudeBlocks(msg.Content) {
				hist = append(hist, item{id: b.ID, text: b.Text})
			}
		}
		turn := m.turn()
		acts := m.actions
		if m.script != nil {
			acts = func(turn int, _, _ map[string]bool) []action { return m.script(turn) }
		}
		st := next(turn, acts(turn, tools, claudeDeferred(&req)), hist)
		if st.act == nil {
			blocks = append(blocks, map[string]any{"type": "text", "text": st.final})
		} else {
			blocks = append(blocks,
				map[string]any{"type": "text", "text": "Next: " + st.act.name + "."},
				map[string]any{"type": "tool_use", "id": "toolu_" + st.id, "name": st.act.tool, "input": st.act.input})
		}
	}
	claudeReply(w, req.Model, body, blocks)
}

// claudeReply streams the reply blocks, as the Messages API does: a
// tool_use block makes its stop reason tool_use.
func claudeReply(w http.ResponseWriter, model string, body []byte, blocks []map[string]any) {
	stop := "end_turn"
	for _, b := range blocks {
		if b["type"] == "tool_use" {
			stop = "tool_use"
		}
	}
	sseHeader(w)
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": len(body)/4 + 1, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	sse(w, "ping", map[string]string{"type": "ping"})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]string{"type": "text", "text": ""}})
			for _, part := range halves(b["text"].(string)) {
				sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "text_delta", "text": part}})
			}
		case "tool_use":
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			for _, part := range halves(mustJSON(b["input"])) {
				sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "input_json_delta", "partial_json": part}})
			}
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 20}})
	sse(w, "message_stop", map[string]string{"type": "message_stop"})
}

// claudeDeferred reads the tool names Claude Code lists as deferred ("The
// following deferred tools are now available via ToolSearch. …:" then one
// name a line): their schemas come only after a ToolSearch call.
func claudeDeferred(req *claudeRequest) map[string]bool {
	out := map[string]bool{}
	for _, msg := range req.Messages {
		for _, b := range claudeBlocks(msg.Content) {
			i := strings.Index(b.Text, "deferred tools are now available via ToolSearch")
			if i < 0 {
				continue
			}
			rest := b.Text[i:]
			if j := strings.Index(rest, ":\n"); j >= 0 {
				rest = rest[j+2:]
			}
			for _, line := range strings.Split(rest, "\n") {
				line = strings.TrimSpace(line)
				if line == "" || strings.ContainsAny(line, " :#") {
					break
				}
				out[line] = true
			}
			return out
		}
	}
	return out
}

// actions is the script of a turn. Turn 1: the plan started through MCP
// (the other hosts start it from the shell), a step added and started
// from the shell, look-ups, a search that finds nothing, a command that
// fails then succeeds after a write, the todo tool, the plan shown
// through MCP, the step done; the final answer meets the stop gate (step
// 2 is open). Turn 2 (the resumed session) finishes step 2.
func (m *claudeModel) actions(turn int, tools, deferred map[string]bool) []action {
	p := func(rel string) string { return filepath.Join(m.project, rel) }
	bash := func(name, cmd string) action {
		return action{name, "Bash", map[string]string{"command": cmd, "description": name}}
	}
	if turn == 2 {
		return []action{bash("finish step 2", `plangit step done 2 --result "tested"`)}
	}
	var as []action
	var load []string
	for _, name := range []string{"mcp__plangit__plan", "TaskCreate", "TaskUpdate", "mcp__plangit__show"} {
		if deferred[name] {
			load = append(load, name)
		}
	}
	if len(load) > 0 && tools["ToolSearch"] {
		as = append(as, action{"load the deferred tools", "ToolSearch", map[string]any{"query": "select:" + strings.Join(load, ","), "max_results": 5}})
	}
	return append(as,
		action{"start the plan through MCP", "mcp__plangit__plan", map[string]any{"action": "init", "title": "Add caching", "goal": "cache lookups", "phases": []string{"Build"}}},
		bash("add a step", `plangit step add "Write the cache"`),
		bash("start it", `plangit next`),
		// In the background: its end comes back mid-turn as a prompt of
		// Claude Code's own (<task-notification>), not the person's.
		action{"a long-running command", "Bash", map[string]any{"command": "sleep 1; echo built", "description": "a long-running command", "run_in_background": true}},
		action{"read a file", "Read", map[string]string{"file_path": p("README.md")}},
		bash("a search that finds nothing", "grep -n NoSuchName README.md"),
		bash("a failing command", "ls cachedir"),
		action{"write a file", "Write", map[string]string{"file_path": p("cachedir/cache.go"), "content": "package cache\n\n// Cache caches lookups.\ntype Cache map[string]string\n"}},
		bash("the same command succeeding", "ls cachedir"),
		bash("a failing command carrying a token", secretCommand),
		action{"read what was written", "Read", map[string]string{"file_path": p("cachedir/cache.go")}},
		action{"todo: the first task", "TaskCreate", map[string]any{"subject": "Write the cache", "description": "Write the cache", "activeForm": "Writing the cache"}},
		action{"todo: a second task", "TaskCreate", map[string]any{"subject": "Test the cache", "description": "Test the cache", "activeForm": "Testing the cache"}},
		action{"todo: the first in progress", "TaskUpdate", map[string]any{"taskId": "1", "status": "in_progress"}},
		action{"the plan through MCP", "mcp__plangit__show", map[string]any{}},
		bash("finish step 1", `plangit step done 1 --result "done"`),
	)
}

// TestClaude runs one scripted Claude Code session, and a resumed one.
func TestClaude(t *testing.T) {
	dir := hostDir(t, "claude", "claude")
	s := newSession(t, "claude")
	s.plangit("hooks", "install", "--host", "claude")
	s.plangit("mcp", "install", "--host", "claude")
	// Without it Claude Code logs an error saving its state.
	write(t, filepath.Join(s.home, ".claude.json"), "{}\n")
	m := &claudeModel{project: s.project}
	var f *fake
	f = newFake(t, 40, m.handle)
	m.turn = func() int { f.mu.Lock(); defer f.mu.Unlock(); return f.turn }
	env := []string{
		"IS_SANDBOX=1", // bypass mode as root
		"ANTHROPIC_BASE_URL=" + f.srv.URL,
		"ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", // TaskCreate/TaskUpdate in -p mode
	}
	claude := filepath.Join(dir, "node_modules", ".bin", "claude")
	flags := func(name string) []string {
		return []string{"--output-format", "stream-json", "--verbose", "--include-hook-events",
			"--debug-file", filepath.Join(s.base, "out", name+"-debug.log"), "--dangerously-skip-permissions"}
	}

	f.setTurn(1)
	r1 := s.run("turn1", 3*time.Minute, env, claude, append([]string{"-p", "Add caching to the user lookups."}, flags("turn1")...)...)
	calls1 := s.readCalls()
	id := claudeSession(t, r1.stdout)
	s.checkFirstTurn(id, calls1, "Stop")
	f.setTurn(2)
	r2 := s.run("turn2", 2*time.Minute, env, claude, append([]string{"-p", "continue", "--resume", id}, flags("turn2")...)...)
	calls := s.readCalls()
	calls2 := calls[len(calls1):]

	s.checkHooks(calls, nil)
	for i, r := range []result{r1, r2} {
		checkClaudeOutput(t, i+1, r, filepath.Join(s.base, "out", []string{"turn1", "turn2"}[i]+"-debug.log"))
	}
	s.checkPlan(id, map[string]string{"Write the cache": "completed", "Test the cache": "completed"})
	s.checkNoSecret(id)
	for _, tool := range []string{"mcp__plangit__plan", "TaskCreate", "TaskUpdate", "mcp__plangit__show", "Write", "Read"} {
		if !ranTool(calls, "PostToolUse", tool) {
			t.Errorf("no PostToolUse for %s: the script's call did not run", tool)
		}
	}
	revs := s.revisions(id)
	for _, want := range []string{"error #", "resolved", "sync: TaskCreate", "step 2"} {
		if !anyContains(revs, want) {
			t.Errorf("no revision names %q:\n%s", want, strings.Join(revs, "\n"))
		}
	}
	// Each turn: SessionEnd's answer reaches no model.
	s.checkContext(f, 1, calls1, calls, 1200, map[string]bool{"SessionEnd": true}, nil)
	s.checkContext(f, 2, calls2, calls, 1200, map[string]bool{"SessionEnd": true}, nil)
	s.record(calls, []string{id}, claudeNorm)
}

// ranTool reports whether a hook for event ran for tool.
func ranTool(calls []call, event, tool string) bool {
	for _, c := range calls {
		if c.hook && c.event == event {
			p := c.payload()
			if p["tool_name"] == tool || p["toolName"] == tool {
				return true
			}
		}
	}
	return false
}

func anyContains(ss []string, sub string) bool {
	for _, s := range ss {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// claudeSession reads the session id from Claude Code's stream.
func claudeSession(t *testing.T, stream string) string {
	t.Helper()
	for _, line := range strings.Split(stream, "\n") {
		var ev struct {
			Type, Subtype string
			SessionID     string `json:"session_id"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "system" && ev.Subtype == "init" && ev.SessionID != "" {
			return ev.SessionID
		}
	}
	t.Fatalf("no init event in Claude Code's output:\n%s", tail(stream, 2000))
	return ""
}

// checkClaudeOutput fails on a hook error or warning Claude Code reports:
// a hook response that is not a success, a notification about a hook, or
// a warning or error in its debug log that names a hook; and on anything
// on stderr.
func checkClaudeOutput(t *testing.T, turn int, r result, debugLog string) {
	t.Helper()
	if strings.TrimSpace(r.stderr) != "" {
		t.Errorf("turn %d: Claude Code wrote to stderr:\n%s", turn, r.stderr)
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) != nil || ev["type"] != "system" {
			continue
		}
		switch ev["subtype"] {
		case "hook_response":
			if ev["outcome"] != "success" {
				t.Errorf("turn %d: Claude Code reports hook %v: %v (exit %v): %v", turn, ev["hook_name"], ev["outcome"], ev["exit_code"], ev["stderr"])
			}
		case "notification":
			if strings.Contains(strings.ToLower(line), "hook") {
				t.Errorf("turn %d: Claude Code notifies the person: %v", turn, ev["text"])
			}
		}
	}
	log := readFile(t, debugLog)
	for _, line := range strings.Split(log, "\n") {
		if (strings.Contains(line, "[WARN]") || strings.Contains(line, "[ERROR]")) && strings.Contains(strings.ToLower(line), "hook") {
			t.Errorf("turn %d: Claude Code's debug log: %s", turn, line)
		}
	}
}

// claudeNorm are the normalisations of Claude Code's payloads beyond ids
// and paths: durations and the resumed session's cost figures.
var claudeNorm = map[string]any{"duration_ms": 0, "seconds_since_last_response": 0, "context_tokens": 0, "estimated_cache_write_usd": 0}
