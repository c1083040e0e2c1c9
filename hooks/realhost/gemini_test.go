package realhost

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The Gemini API (generativelanguage v1beta) as Gemini CLI uses it: POST
// /v1beta/models/<model>:streamGenerateContent?alt=sse, one
// GenerateContentResponse per data line; side calls with a JSON schema
// (routing, next speaker) get a JSON answer.

type geminiPart struct {
	Text         string `json:"text"`
	FunctionCall *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID string `json:"id"`
	} `json:"functionResponse"`
}

// geminiModel is the fake Gemini API playing script.
type geminiModel struct {
	turn func() int
	// script replaces the session's script (geminiActions) when set.
	script func(turn int) []action
}

func (m *geminiModel) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	path := r.URL.Path
	_, method, _ := strings.Cut(path[strings.LastIndex(path, "/")+1:], ":")
	if r.Method != http.MethodPost || (method != "streamGenerateContent" && method != "generateContent") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Contents []struct {
			Role  string       `json:"role"`
			Parts []geminiPart `json:"parts"`
		} `json:"contents"`
		GenerationConfig struct {
			ResponseMimeType   string          `json:"responseMimeType"`
			ResponseSchema     json.RawMessage `json:"responseSchema"`
			ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		} `json:"generationConfig"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad json: "+err.Error(), http.StatusBadRequest)
		return
	}
	var part map[string]any
	gc := req.GenerationConfig
	if gc.ResponseMimeType == "application/json" || len(gc.ResponseSchema) > 0 || len(gc.ResponseJSONSchema) > 0 {
		// A helper call of the CLI's own, with the least eventful answer.
		schema := string(gc.ResponseSchema) + string(gc.ResponseJSONSchema)
		text := `{}`
		switch {
		case strings.Contains(schema, "next_speaker"):
			text = `{"reasoning":"The model finished its turn.","next_speaker":"user"}`
		case strings.Contains(schema, "complexity_score"):
			text = `{"complexity_reasoning":"A small scripted task.","complexity_score":10}`
		}
		part = map[string]any{"text": text}
	} else {
		var hist []item
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				switch {
				case p.FunctionCall != nil:
					hist = append(hist, item{id: p.FunctionCall.ID})
				case p.FunctionResponse != nil:
					hist = append(hist, item{id: p.FunctionResponse.ID})
				case c.Role == "model":
					hist = append(hist, item{text: p.Text})
				}
			}
		}
		turn := m.turn()
		script := geminiActions
		if m.script != nil {
			script = m.script
		}
		st := next(turn, script(turn), hist)
		if st.act == nil {
			part = map[string]any{"text": st.final}
		} else {
			part = map[string]any{"functionCall": map[string]any{"id": "call_" + st.id, "name": st.act.tool, "args": st.act.input}}
		}
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
		"modelVersion":  "fake-gemini",
		"responseId":    "fake",
	}
	if method == "generateContent" {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
		return
	}
	sseHeader(w)
	sse(w, "", resp)
}

// geminiActions is the script of a turn, with Gemini CLI's tools.
func geminiActions(turn int) []action {
	sh := func(name, cmd string) action {
		return action{name, "run_shell_command", map[string]any{"command": cmd, "description": name}}
	}
	if turn == 2 {
		return []action{sh("finish step 2", `plangit step done 2 --result "tested"`)}
	}
	return []action{
		sh("start the plan", `plangit init "Add caching" --goal "cache lookups" --phase Build`),
		sh("add a step", `plangit step add "Write the cache"`),
		sh("start it", `plangit next`),
		{"read a file", "read_file", map[string]any{"file_path": "README.md"}},
		sh("a search that finds nothing", "grep -n NoSuchName README.md"),
		sh("a failing command", "ls cachedir"),
		{"write a file", "write_file", map[string]any{"file_path": "cachedir/cache.go", "content": "package cache\n\n// Cache caches lookups.\ntype Cache map[string]string\n"}},
		sh("the same command succeeding", "ls cachedir"),
		{"todo list", "write_todos", map[string]any{"todos": []any{
			map[string]any{"description": "Write the cache", "status": "in_progress"},
			map[string]any{"description": "Test the cache", "status": "pending"},
		}}},
		{"a long-running command", "run_shell_command", map[string]any{"command": "sleep 2; echo built", "description": "a long-running command", "is_background": true}},
		sh("finish step 1", `plangit step done 1 --result "done"`),
	}
}

// TestGemini runs one scripted Gemini CLI session (gemini -p), and
// resumes it (--resume latest).
func TestGemini(t *testing.T) {
	dir := hostDir(t, "gemini", "gemini")
	s := newSession(t, "gemini")
	s.plangit("hooks", "install", "--host", "gemini")
	m := &geminiModel{}
	f := newFake(t, 50, m.handle)
	m.turn = func() int { f.mu.Lock(); defer f.mu.Unlock(); return f.turn }
	// API-key auth (without it: "Invalid auth method selected"), no
	// telemetry, and the project trusted (headless refuses an untrusted
	// folder; --skip-trust would load no project hooks).
	write(t, filepath.Join(s.home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}`+"\n")
	write(t, filepath.Join(s.home, ".gemini", "trustedFolders.json"), fmt.Sprintf("{%q: \"TRUST_FOLDER\"}\n", s.project))
	env := []string{"GEMINI_API_KEY=fake-key", "GOOGLE_GEMINI_BASE_URL=" + f.srv.URL}
	gemini := filepath.Join(dir, "node_modules", ".bin", "gemini")
	// gemini-2.5-pro: write_todos is offered to gemini-2.x models only;
	// yolo: headless, only read-only tools are offered otherwise.
	flags := []string{"-m", "gemini-2.5-pro", "--approval-mode", "yolo", "--output-format", "stream-json"}

	f.setTurn(1)
	r1 := s.run("turn1", 3*time.Minute, env, gemini, append([]string{"-p", "Add caching to the user lookups."}, flags...)...)
	calls1 := s.readCalls()
	id := streamEvent(t, "gemini", r1.stdout, "init", "session_id")
	s.checkFirstTurn(id, calls1, "AfterAgent")
	f.setTurn(2)
	r2 := s.run("turn2", 2*time.Minute, env, gemini, append([]string{"-p", "continue", "--resume", "latest"}, flags...)...)
	calls := s.readCalls()
	calls2 := calls[len(calls1):]

	s.checkHooks(calls, nil)
	checkGeminiOutput(t, 1, r1)
	checkGeminiOutput(t, 2, r2)
	s.checkPlan(id, map[string]string{"Write the cache": "completed", "Test the cache": "completed"})
	for _, tool := range []string{"write_file", "write_todos", "read_file", "run_shell_command"} {
		if !ranTool(calls, "AfterTool", tool) {
			t.Errorf("no AfterTool for %s: the script's call did not run", tool)
		}
	}
	if fileExists(filepath.Join(s.project, ".code-agent", "plans", id)) {
		revs := s.revisions(id)
		for _, want := range []string{"error #", "resolved", "sync:", "step 2"} {
			if !anyContains(revs, want) {
				t.Errorf("no revision names %q:\n%s", want, strings.Join(revs, "\n"))
			}
		}
		// PreCompress fires before every request; a checkpoint belongs
		// only to a compaction, and none happened.
		for _, r := range revs {
			if strings.Contains(r, "compaction") {
				t.Errorf("a checkpoint with no compaction: %s", r)
			}
		}
		errs := readFile(t, filepath.Join(s.project, ".code-agent", "plans", id, "errors.md"))
		for _, wrapper := range []string{"untrusted_context", "Process Group PGID"} {
			if strings.Contains(errs, wrapper) {
				t.Errorf("errors.md quotes Gemini's shell wrapper (%s):\n%s", wrapper, errs)
			}
		}
	}
	// Gemini escapes < and > in additionalContext.
	escape := strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace
	dropped := map[string]bool{"SessionEnd": true, "PreCompress": true}
	s.checkContext(f, 1, calls1, calls, 0, dropped, escape)
	s.checkContext(f, 2, calls2, calls, 0, dropped, escape)
	s.record(calls, []string{id}, map[string]any{"timestamp": "2026-01-01T00:00:00.000Z"})
}

// geminiHookNotice is the notice Gemini CLI prints, headless, instead of
// asking about a project's hooks.
var geminiHookNotice = []string{
	"WARNING: The following project-level hooks have been detected in this workspace:",
	"- plangit",
	"These hooks will be executed. If you did not configure these hooks or do not trust this project,",
	"please review the project settings (.gemini/settings.json) and remove them.",
}

// checkGeminiOutput fails on a line on stderr about a hook (other than
// the notice on project hooks, and the message plangit's hooks leave for
// the person) and on an error event other than the stop gate's ("Agent
// execution blocked: [plangit] …").
func checkGeminiOutput(t *testing.T, turn int, r result) {
	t.Helper()
	for _, line := range strings.Split(r.stderr, "\n") {
		line = strings.TrimSpace(line)
		notice := false
		for _, n := range geminiHookNotice {
			notice = notice || line == n
		}
		switch {
		case line == "" || notice || strings.HasPrefix(line, "Hook system message: plangit: "):
		case strings.Contains(strings.ToLower(line), "hook"):
			t.Errorf("turn %d: gemini wrote to stderr: %s", turn, line)
		default:
			t.Logf("turn %d: gemini: %s", turn, line)
		}
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		var ev struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "error" {
			continue
		}
		if !strings.HasPrefix(ev.Message, "Agent execution blocked: "+marker) {
			t.Errorf("turn %d: gemini reports: %s", turn, line)
		}
	}
}
