package realhost

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

// The OpenAI Responses API as Codex CLI uses it (wire_api "responses"):
// POST /v1/responses, streaming. A reply is one output item: a function
// call (exec_command, update_plan), a custom tool call (apply_patch), or
// an assistant message.

type codexItem struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	CallID  string `json:"call_id"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// codexModel is the fake Responses API playing script.
type codexModel struct {
	turn func() int
	// script replaces the session's script (codexActions) when set.
	script func(turn int) []action
}

// codexPatch marks an action whose input is apply_patch's freeform text.
type codexPatch string

func (m *codexModel) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Input []codexItem `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json: "+err.Error(), http.StatusBadRequest)
		return
	}
	var hist []item
	for _, it := range req.Input {
		switch {
		case strings.HasSuffix(it.Type, "_call"):
			hist = append(hist, item{id: it.CallID})
		case it.Type == "message" && it.Role == "assistant":
			for _, c := range it.Content {
				hist = append(hist, item{text: c.Text})
			}
		}
	}
	turn := m.turn()
	script := codexActions
	if m.script != nil {
		script = m.script
	}
	st := next(turn, script(turn), hist)
	var out map[string]any
	switch {
	case st.act == nil:
		out = map[string]any{"type": "message", "id": "msg_fake", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": st.final, "annotations": []any{}}}}
	case st.act.tool == "apply_patch":
		out = map[string]any{"type": "custom_tool_call", "id": "ctc_fake", "call_id": "call_" + st.id, "name": "apply_patch",
			"input": string(st.act.input.(codexPatch)), "status": "completed"}
	default:
		input := st.act.input
		if st.act.tool == "write_stdin" {
			// Poll the session the last running command's output names.
			poll := map[string]any{}
			for k, v := range input.(map[string]any) {
				poll[k] = v
			}
			if m := codexExecSession.FindAllStringSubmatch(string(body), -1); m != nil {
				n, _ := strconv.Atoi(m[len(m)-1][1])
				poll["session_id"] = n
			}
			input = poll
		}
		out = map[string]any{"type": "function_call", "id": "fc_fake", "call_id": "call_" + st.id, "name": st.act.tool,
			"arguments": mustJSON(input), "status": "completed"}
	}
	sseHeader(w)
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": "resp_fake"}})
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": out})
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{"id": "resp_fake", "status": "completed",
		"usage": map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}}})
}

// codexActions is the script of a turn: as Claude Code's, with Codex's
// tools — exec_command for the shell, apply_patch for the write,
// update_plan for the todo list.
func codexActions(turn int) []action {
	sh := func(name, cmd string) action {
		return action{name, "exec_command", map[string]any{"cmd": cmd}}
	}
	if turn == 2 {
		return []action{sh("finish step 2", `plangit step done 2 --result "tested"`)}
	}
	return []action{
		sh("start the plan", `plangit init "Add caching" --goal "cache lookups" --phase Build`),
		sh("add a step", `plangit step add "Write the cache"`),
		sh("start it", `plangit next`),
		sh("read a file", `cat README.md`),
		sh("a search that finds nothing", "grep -n NoSuchName README.md"),
		sh("a failing command", "ls cachedir"),
		{"write a file", "apply_patch", codexPatch("*** Begin Patch\n*** Add File: cachedir/cache.go\n+package cache\n+\n+// Cache caches lookups.\n+type Cache map[string]string\n*** End Patch\n")},
		sh("the same command succeeding", "ls cachedir"),
		sh("a failing command carrying a token", secretCommand),
		{"todo list", "update_plan", map[string]any{"explanation": "cache written", "plan": []any{
			map[string]any{"step": "Write the cache", "status": "in_progress"},
			map[string]any{"step": "Test the cache", "status": "pending"},
		}}},
		// A command that outlives yield_time_ms, polled to its end.
		{"a long-running command", "exec_command", map[string]any{"cmd": "sleep 2; echo built", "yield_time_ms": 250}},
		{"poll it", "write_stdin", map[string]any{"session_id": 0, "chars": "", "yield_time_ms": 10000}},
		sh("finish step 1", `plangit step done 1 --result "done"`),
	}
}

// codexExecSession is how exec_command's output names a command still
// running.
var codexExecSession = regexp.MustCompile(`session ID (\d+)`)

// TestCodex runs one scripted Codex CLI session (codex exec), and resumes
// it (codex exec resume).
func TestCodex(t *testing.T) {
	dir := hostDir(t, "codex", "codex")
	s := newSession(t, "codex")
	s.plangit("hooks", "install", "--host", "codex")
	m := &codexModel{}
	f := newFake(t, 40, m.handle)
	m.turn = func() int { f.mu.Lock(); defer f.mu.Unlock(); return f.turn }

	// The agent's commands run in a login shell (bash -lc), which resets
	// PATH: the profile puts plangit back.
	write(t, filepath.Join(s.home, ".bash_profile"), fmt.Sprintf("export PATH=%q:$PATH\n", filepath.Join(s.base, "wrap")+":"+binDir))
	// The project trusted, and every hook of .codex/hooks.json by its hash,
	// as /hooks would write them: untrusted project hooks are skipped
	// silently.
	project, err := filepath.EvalSymlinks(s.project)
	if err != nil {
		t.Fatal(err)
	}
	trust, err := codexTrust(filepath.Join(project, ".codex", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	codexHome := filepath.Join(s.base, "codexhome")
	writeCodexConfig(t, codexHome, f.srv.URL, project, "[tools]\nupdate_plan = { enabled = true }\n\n"+trust)
	env := []string{"CODEX_HOME=" + codexHome}
	codex := filepath.Join(dir, "node_modules", ".bin", "codex")

	f.setTurn(1)
	r1 := s.run("turn1", 3*time.Minute, env, codex, "exec", "--json", "--skip-git-repo-check", "Add caching to the user lookups.")
	calls1 := s.readCalls()
	id := streamEvent(t, "codex", r1.stdout, "thread.started", "thread_id")
	s.checkFirstTurn(id, calls1, "Stop")
	f.setTurn(2)
	r2 := s.run("turn2", 2*time.Minute, env, codex, "exec", "--json", "--skip-git-repo-check", "resume", id, "continue")
	calls := s.readCalls()
	calls2 := calls[len(calls1):]

	s.checkHooks(calls, nil)
	checkCodexOutput(t, 1, r1)
	checkCodexOutput(t, 2, r2)
	s.checkPlan(id, map[string]string{"Write the cache": "completed", "Test the cache": "completed"})
	s.checkNoSecret(id)
	for _, tool := range []string{"apply_patch", "update_plan", "Bash"} {
		if !ranTool(calls, "PostToolUse", tool) {
			t.Errorf("no PostToolUse for %s: the script's call did not run", tool)
		}
	}
	revs := s.revisions(id)
	for _, want := range []string{"error #", "resolved", "sync:", "step 2"} {
		if !anyContains(revs, want) {
			t.Errorf("no revision names %q:\n%s", want, strings.Join(revs, "\n"))
		}
	}
	// No suggested command needs --session: the agent's shell has
	// CODEX_THREAD_ID.
	for _, x := range sentTexts(calls) {
		if strings.Contains(x.text, "--session") {
			t.Errorf("%s text names --session, which the agent's shell does not need: %q", x.event, x.text)
		}
	}
	// Codex hands the model a Stop hook's reason inside <hook_prompt>,
	// with its "<" and ">" escaped.
	escape := strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace
	s.checkContext(f, 1, calls1, calls, 1200, map[string]bool{"SessionEnd": true}, escape)
	s.checkContext(f, 2, calls2, calls, 1200, map[string]bool{"SessionEnd": true}, escape)
	s.record(calls, []string{id}, map[string]any{"turn_id": "turn-1"})
}

// checkCodexOutput fails on an error item (but the notice that
// --dangerously-bypass-hook-trust is on), a failed turn, or a line on
// stderr about a hook. (Codex's other notes on stderr — that it reads
// stdin, that it makes no helper links under /tmp — are logged.)
func checkCodexOutput(t *testing.T, turn int, r result) {
	t.Helper()
	for _, line := range strings.Split(r.stderr, "\n") {
		switch line = strings.TrimSpace(line); {
		case line == "":
		case strings.Contains(strings.ToLower(line), "hook"):
			t.Errorf("turn %d: codex wrote to stderr: %s", turn, line)
		default:
			t.Logf("turn %d: codex: %s", turn, line)
		}
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"item"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		if strings.HasPrefix(ev.Item.Message, "`--dangerously-bypass-hook-trust` is enabled.") {
			continue // the notice of the flag a run that trusts every hook passes
		}
		if ev.Type == "turn.failed" || ev.Type == "error" || ev.Item.Type == "error" {
			t.Errorf("turn %d: codex reports: %s", turn, line)
		}
	}
}

// codexTrust returns the config.toml tables that trust every command hook
// of a hooks.json, as Codex's /hooks writes them:
//
//	[hooks.state."<hooks.json>:<event_snake>:<group>:<handler>"]
//	trusted_hash = "sha256:<hex>"
//
// <hex> is the SHA-256 of the compact JSON, keys sorted, of the handler's
// identity {"event_name", "matcher" (where kept), "hooks": [{"type",
// "command", "timeout" (default 600; SessionEnd's clamped to 3), "async",
// "statusMessage" (if set)}]} (codex-rs hooks/src/engine/discovery.rs).
func codexTrust(hooksJSON string) (string, error) {
	data, err := os.ReadFile(hooksJSON)
	if err != nil {
		return "", err
	}
	var f struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type          string  `json:"type"`
				Command       string  `json:"command"`
				Timeout       *uint64 `json:"timeout"`
				TimeoutSec    *uint64 `json:"timeoutSec"`
				Async         bool    `json:"async"`
				StatusMessage *string `json:"statusMessage"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return "", err
	}
	keepMatcher := map[string]bool{"PreToolUse": true, "PostToolUse": true, "PermissionRequest": true, "SessionStart": true, "PreCompact": true, "PostCompact": true}
	events := make([]string, 0, len(f.Hooks))
	for ev := range f.Hooks {
		events = append(events, ev)
	}
	sort.Strings(events)
	var b strings.Builder
	for _, ev := range events {
		for gi, g := range f.Hooks[ev] {
			for hi, h := range g.Hooks {
				if h.Type != "command" {
					continue
				}
				timeout := uint64(600)
				if h.Timeout != nil {
					timeout = *h.Timeout
				} else if h.TimeoutSec != nil {
					timeout = *h.TimeoutSec
				}
				timeout = max(timeout, 1)
				if ev == "SessionEnd" {
					timeout = min(timeout, 3)
				}
				hook := map[string]any{"type": "command", "command": h.Command, "timeout": timeout, "async": h.Async}
				if h.StatusMessage != nil {
					hook["statusMessage"] = *h.StatusMessage
				}
				identity := map[string]any{"event_name": snake(ev), "hooks": []any{hook}}
				if g.Matcher != nil && keepMatcher[ev] {
					identity["matcher"] = *g.Matcher
				}
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				enc.Encode(identity) // maps marshal with sorted keys
				sum := sha256.Sum256(bytes.TrimRight(buf.Bytes(), "\n"))
				key, _ := json.Marshal(fmt.Sprintf("%s:%s:%d:%d", hooksJSON, snake(ev), gi, hi))
				fmt.Fprintf(&b, "[hooks.state.%s]\ntrusted_hash = \"sha256:%s\"\n\n", key, hex.EncodeToString(sum[:]))
			}
		}
	}
	return b.String(), nil
}

// snake turns an event name (PreToolUse) into Codex's label (pre_tool_use).
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeCodexConfig writes CODEX_HOME/config.toml for a run against the
// fake model at url, the project trusted, then extra.
func writeCodexConfig(t *testing.T, codexHome, url, project, extra string) {
	t.Helper()
	write(t, filepath.Join(codexHome, "config.toml"), fmt.Sprintf(`model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[projects.%q]
trust_level = "trusted"

%s`, url, project, extra))
}
