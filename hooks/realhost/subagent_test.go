package realhost

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plangit/plangit/repo/repotest"
)

// A subagent on its parent's plan. The main agent makes a plan of three
// steps, starts the first and runs a subagent in the background (Claude
// Code's Agent tool, run_in_background); the subagent learns its name from
// the hooks' context ("pass --agent NAME"), claims step 2 through its
// shell, tries to stop — held on its own claim, not on the parent's open
// steps — finishes step 2 and stops. While the subagent holds step 2 the
// parent runs a command, and its hooks tell it who holds the step. The
// fake model orders the two conversations: the parent's command waits for
// the claim, the subagent's completion waits for the parent to have seen
// it.
//
// What Claude Code 2.1.332 does, as measured here: a hook's context for a
// subagent's tool reaches its model in a message of role "system" after
// the tool's result; SubagentStop's block reaches it as "Stop hook
// feedback" in the next user message; the host copies a background
// agent's conversation into requests of its own (progress summaries) and
// joins the model's replies between two tool results into one message.

// subMark starts the prompt the parent gives its subagent: the fake
// model knows the subagent's conversation by it.
const subMark = "FM-SUB"

var agentHint = regexp.MustCompile(`pass --agent (\S+) to plangit`)

// subagentModel is the fake Messages API playing both conversations.
type subagentModel struct {
	t       *testing.T
	project string

	mu     sync.Mutex
	name   string // the name the hooks told the subagent
	held   string // the text the subagent heard after its first stop
	events map[string]chan struct{}
}

func (m *subagentModel) event(name string) chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.events == nil {
		m.events = map[string]chan struct{}{}
	}
	if m.events[name] == nil {
		m.events[name] = make(chan struct{})
	}
	return m.events[name]
}

// happened marks the event name, once.
func (m *subagentModel) happened(name string) {
	ch := m.event(name)
	m.mu.Lock()
	defer m.mu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// await waits for the event name, at most limit; it reports whether it
// happened.
func (m *subagentModel) await(name string, limit time.Duration) bool {
	select {
	case <-m.event(name):
		return true
	case <-time.After(limit):
		m.t.Errorf("fake model: waited %s for %s", limit, name)
		return false
	}
}

func (m *subagentModel) handle(w http.ResponseWriter, r *http.Request, body []byte) {
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
	var reply []map[string]any
	switch {
	case !tools["Bash"]:
		reply = []map[string]any{{"type": "text", "text": "OK"}}
	case isSubagent(&req):
		reply = m.subagent(&req, body)
	default:
		reply = m.parent(&req, body, tools)
	}
	claudeReply(w, req.Model, body, reply)
}

// isSubagent reports whether the request is of the subagent's
// conversation: its first prompt is the one the parent gave it.
func isSubagent(req *claudeRequest) bool {
	for _, msg := range req.Messages {
		if msg.Role != "user" {
			continue
		}
		for _, b := range claudeBlocks(msg.Content) {
			if strings.Contains(b.Text, subMark) {
				return true
			}
		}
		return false
	}
	return false
}

// said is one model reply: a text, with a tool call when tool is set.
func said(text, id, tool string, input any) []map[string]any {
	out := []map[string]any{{"type": "text", "text": text}}
	if tool != "" {
		out = append(out, map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": tool, "input": input})
	}
	return out
}

func bashInput(cmd string) map[string]string {
	return map[string]string{"command": cmd, "description": cmd}
}

// parent plays the main agent, by the number of replies it gave so far.
func (m *subagentModel) parent(req *claudeRequest, body []byte, tools map[string]bool) []map[string]any {
	n, _ := progress(req, "fm_p", "")
	n++
	if n >= 3 && strings.Contains(string(body), "step 2: claude:") {
		m.happened("parent saw the claim")
	}
	switch n {
	case 0:
		return said("Next: the plan.", "fm_p00", "Bash", bashInput(`plangit init "Add caching" --goal "cache lookups" --phase Build && plangit step add "Write the cache" && plangit step add "Test the cache" && plangit step add "Document the cache" && plangit next`))
	case 1:
		if !tools["Agent"] {
			m.t.Errorf("the main agent has no Agent tool: %v", tools)
		}
		return said("Next: a subagent tests the cache.", "fm_p01", "Agent", map[string]any{
			"description": "Test the cache", "subagent_type": "general-purpose", "run_in_background": true,
			"prompt": subMark + " Test the cache: claim step 2 of the plan, then finish it."})
	case 2:
		m.await("subagent claimed", 2*time.Minute)
		return said("Next: where the plan stands.", "fm_p02", "Bash", bashInput("plangit status"))
	case 3:
		m.await("subagent done", 2*time.Minute)
		return said("Next: my own steps.", "fm_p03", "Bash", bashInput(`plangit step done 1 --result "written" && plangit step skip 3 --reason "later"`))
	}
	return said(finalText(1)+" The plan is done.", "", "", nil)
}

// subagent plays the subagent: a look at the project (its hooks tell it
// its name), the claim, a stop, the step's completion, a stop.
func (m *subagentModel) subagent(req *claudeRequest, body []byte) []map[string]any {
	n, stopped := progress(req, "fm_a", "FM-SUB-STOP")
	n++
	if n == 2 && stopped {
		n = 3 // the stop was held: the step is finished next
	}
	m.mu.Lock()
	if m.name == "" {
		if k := agentHint.FindSubmatch(body); k != nil {
			m.name = string(k[1])
		}
	}
	name := m.name
	m.mu.Unlock()
	agent := ""
	if name != "" {
		agent = " --agent " + name
	}
	switch n {
	case 0:
		return said("Next: a look at the project.", "fm_a00", "Read", map[string]string{"file_path": filepath.Join(m.project, "README.md")})
	case 1:
		return said("Next: claim step 2.", "fm_a01", "Bash", bashInput("plangit step claim 2"+agent))
	case 2:
		m.happened("subagent claimed")
		return said("FM-SUB-STOP I claimed step 2.", "", "", nil)
	case 3:
		m.mu.Lock()
		m.held = lastUserText(req)
		m.mu.Unlock()
		m.await("parent saw the claim", 2*time.Minute)
		return said("Next: finish step 2.", "fm_a03", "Bash", bashInput(`plangit step done 2 --result "tested"`+agent))
	}
	m.happened("subagent done")
	return said("FM-SUB-DONE Step 2 is done.", "", "", nil)
}

// progress reads the conversation: the number after prefix in the last
// of the model's calls whose id carries it (-1: none), and whether the
// model said text. The host joins the model's replies between two tool
// results into one message, so calls are counted, not messages.
func progress(req *claudeRequest, prefix, text string) (last int, saidText bool) {
	last = -1
	for _, msg := range req.Messages {
		if msg.Role != "assistant" {
			continue
		}
		for _, b := range claudeBlocks(msg.Content) {
			if n, ok := strings.CutPrefix(b.ID, "toolu_"+prefix); ok {
				if k, err := strconv.Atoi(n); err == nil && k > last {
					last = k
				}
			}
			saidText = saidText || text != "" && strings.Contains(b.Text, text)
		}
	}
	return last, saidText
}

// lastUserText is the text of the conversation's last user message.
func lastUserText(req *claudeRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role != "user" {
			continue
		}
		var ts []string
		for _, b := range claudeBlocks(req.Messages[i].Content) {
			ts = append(ts, b.Text)
		}
		return strings.Join(ts, "\n")
	}
	return ""
}

// TestClaudeSubagent runs the scripted session of a subagent on its
// parent's plan.
func TestClaudeSubagent(t *testing.T) {
	dir := hostDir(t, "claude", "claude")
	s := newSession(t, "claude")
	s.plangit("hooks", "install", "--host", "claude")
	write(t, filepath.Join(s.home, ".claude.json"), "{}\n")
	m := &subagentModel{t: t, project: s.project}
	// Claude Code summarises a background agent's progress in requests
	// of its own, copies of the subagent's conversation: the fake model
	// answers them as the subagent, and the host drops the answers.
	f := newFake(t, 120, m.handle)
	env := []string{
		"IS_SANDBOX=1",
		"ANTHROPIC_BASE_URL=" + f.srv.URL,
		"ANTHROPIC_API_KEY=sk-ant-fake",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
	claude := filepath.Join(dir, "node_modules", ".bin", "claude")
	f.setTurn(1)
	r := s.run("turn1", 4*time.Minute, env, claude, "-p", "Add caching; have a subagent test it.",
		"--output-format", "stream-json", "--verbose", "--include-hook-events",
		"--debug-file", filepath.Join(s.base, "out", "turn1-debug.log"), "--dangerously-skip-permissions")
	id := claudeSession(t, r.stdout)
	calls := s.readCalls()
	s.checkHooks(calls, nil)
	checkClaudeOutput(t, 1, r, filepath.Join(s.base, "out", "turn1-debug.log"))

	// The subagent heard its name, from its own hooks.
	name := m.name
	if !strings.HasPrefix(name, "claude:") || strings.Count(name, ":") != 2 {
		t.Fatalf("the subagent was not told its name (pass --agent claude:TYPE:ID); it heard %q", name)
	}
	// Its first stop was held on its own claim only.
	var stops []call
	for _, c := range calls {
		if c.hook && c.event == "SubagentStop" {
			stops = append(stops, c)
		}
	}
	if len(stops) < 2 {
		t.Fatalf("%d SubagentStop hooks ran, want the held stop and the last", len(stops))
	}
	first := strings.Join(stops[0].texts(), "\n")
	if !strings.Contains(string(stops[0].stdout), `"block"`) || !strings.Contains(first, "Test the cache") {
		t.Errorf("the subagent's first stop was not held on step 2: %s", stops[0].stdout)
	}
	for _, other := range []string{"Write the cache", "Document the cache"} {
		if strings.Contains(first, other) {
			t.Errorf("the subagent's stop was held on its parent's step %q: %s", other, first)
		}
	}
	if !strings.Contains(m.held, "Test the cache") {
		t.Errorf("the subagent's request after its held stop does not carry the reason:\n%s", m.held)
	}
	if last := stops[len(stops)-1]; strings.Contains(string(last.stdout), `"block"`) {
		t.Errorf("the subagent's last stop, its step done, was held: %s", last.stdout)
	}
	// The parent's hooks told it who holds step 2.
	saw := false
	for _, rq := range f.requests() {
		var req claudeRequest
		if json.Unmarshal(rq.body, &req) == nil && !isSubagent(&req) && strings.Contains(string(rq.body), "step 2: "+name) {
			saw = true
		}
	}
	if !saw {
		t.Errorf("no request of the parent's carries %q", "step 2: "+name)
	}
	s.checkSubagentPlan(id, name)
	t.Logf("the subagent %s was held at its first stop with: %s", name, first)
	s.record(calls, []string{id}, claudeNorm)
}

// checkSubagentPlan checks the plan the two agents left: the parent's
// steps done and skipped, the subagent's done, the log naming the
// subagent, every repository fsck-clean.
func (s *session) checkSubagentPlan(id, name string) {
	s.t.Helper()
	repotest.CheckAll(s.t, s.project)
	want := map[string]string{"Write the cache": "completed", "Test the cache": "completed", "Document the cache": "skipped"}
	got := s.show(id).steps()
	for text, st := range want {
		if got[text] != st {
			s.t.Errorf("step %q is %q, want %q", text, got[text], st)
		}
	}
	log := s.plangit("--session", id, "log", "--step", "2")
	if !strings.Contains(log, name) {
		s.t.Errorf("plangit log --step 2 does not name the subagent %s:\n%s", name, log)
	}
	s.t.Logf("plangit log --step 2:\n%s", log)
}
