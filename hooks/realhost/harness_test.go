package realhost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/plangit/plangit/plan"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plangit/plangit/repo/repotest"
)

// wrapper is first on the host's PATH as plangit and plangit-hook: it
// records each call — arguments, and for a hook its payload, answer and
// exit code — under $PLANGIT_CALLS, then runs the real program from
// $PLANGIT_BIN with the same arguments and input. Files are named
// <microseconds>-<pid>, so they sort in call order. Run by its #! line, it
// is a process named after the script, plangit or plangit-hook, that
// waits for the real program of a hook: the wrapper or version manager's
// shim a hook looks past for its host (Gemini CLI's shell session is
// recorded under the host process, hookwire.RecordShellSession).
const wrapper = `#!/bin/bash
name=${0##*/}
real=$PLANGIT_BIN/$name
base=$PLANGIT_CALLS/${EPOCHREALTIME/./}-$$
printf '%s\n' "$name" "$@" > "$base.args"
if [ "$name" = plangit-hook ] || [ "${1:-}" = hook ]; then
  cat > "$base.stdin"
  "$real" "$@" < "$base.stdin" > "$base.stdout" 2> "$base.stderr"
  rc=$?
  printf '%s\n' "$rc" > "$base.rc"
  cat "$base.stdout"
  cat "$base.stderr" >&2
  exit $rc
fi
exec "$real" "$@"
`

// session is one host's scripted session: the project, a fresh HOME, the
// recording wrappers and the fake model.
type session struct {
	t       *testing.T
	host    string
	base    string // everything the session writes outside the project
	project string
	home    string
	calls   string
	env     []string // the host's environment, the fake model's address included
}

func newSession(t *testing.T, host string) *session {
	t.Helper()
	base := t.TempDir()
	s := &session{t: t, host: host, base: base,
		project: filepath.Join(base, "proj"), home: filepath.Join(base, "home"), calls: filepath.Join(base, "calls")}
	wrap := filepath.Join(base, "wrap")
	for _, d := range []string{s.project, s.home, s.calls, wrap} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"plangit", "plangit-hook"} {
		if err := os.WriteFile(filepath.Join(wrap, name), []byte(wrapper), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(s.home, ".gitconfig"), "[user]\n\tname = Real Host\n\temail = realhost@example.invalid\n[init]\n\tdefaultBranch = main\n")
	write(t, filepath.Join(s.project, "README.md"), "# Lookup service\n\nUserService.GetUser looks users up in the database on every call.\n")
	s.git("init", "-q")
	s.git("add", "README.md")
	s.git("commit", "-qm", "init")
	path := wrap + ":" + binDir
	if node := nodeDir(); node != "" {
		path += ":" + node
	}
	path += ":/usr/local/bin:/usr/bin:/bin"
	s.env = []string{"HOME=" + s.home, "PATH=" + path, "SHELL=/bin/bash", "TERM=dumb", "LANG=C.UTF-8",
		"USER=" + orDefault(os.Getenv("USER"), "root"), "TMPDIR=" + os.TempDir(),
		"PLANGIT_BIN=" + binDir, "PLANGIT_CALLS=" + s.calls}
	return s
}

// nodeDir is the directory of the node that runs the hosts' launchers:
// the one .ci/hosts installed beside them, or the one on PATH.
func nodeDir() string {
	if d := filepath.Join(os.Getenv("PLANGIT_HOSTS"), "node", "bin"); fileExists(filepath.Join(d, "node")) {
		return d
	}
	if p, err := exec.LookPath("node"); err == nil {
		return filepath.Dir(p)
	}
	return ""
}

func orDefault(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (s *session) git(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = s.project
	cmd.Env = append(os.Environ(), "HOME="+s.home, "GIT_CONFIG_GLOBAL="+filepath.Join(s.home, ".gitconfig"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// plangit runs plangit itself (not through the wrapper) in the project,
// with plangit's programs on PATH, so that what it installs names them
// bare, as it does for a person.
func (s *session) plangit(args ...string) string {
	s.t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "plangit"), args...)
	cmd.Dir = s.project
	cmd.Env = append(os.Environ(), "HOME="+s.home, "GIT_CONFIG_GLOBAL="+filepath.Join(s.home, ".gitconfig"),
		"PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("plangit %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// result is what one run of the host program left.
type result struct {
	stdout, stderr string
	err            error
	took           time.Duration
}

// run starts the host program in the project with the session's
// environment plus env, and waits for it within limit.
func (s *session) run(name string, limit time.Duration, env []string, program string, args ...string) result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = s.project
	cmd.Env = append(append([]string{}, s.env...), env...)
	cmd.Stdin = nil
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), err: err, took: time.Since(start)}
	write(s.t, filepath.Join(s.base, "out", name+".stdout"), r.stdout)
	write(s.t, filepath.Join(s.base, "out", name+".stderr"), r.stderr)
	s.t.Logf("%s %s: %v in %s", s.host, name, err, r.took.Round(time.Millisecond))
	if ctx.Err() != nil {
		s.t.Fatalf("%s %s ran over %s\nstderr:\n%s", s.host, name, limit, tail(r.stderr, 2000))
	}
	if err != nil {
		s.t.Fatalf("%s %s: %v\nstderr:\n%s\nstdout:\n%s", s.host, name, err, tail(r.stderr, 2000), tail(r.stdout, 2000))
	}
	return r
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// call is one recorded call of plangit or plangit-hook.
type call struct {
	args   []string // program name first
	stdin  []byte   // a hook's payload
	stdout []byte   // a hook's answer
	stderr string
	rc     int
	hook   bool
	event  string // the hook's event, from its arguments
}

// calls reads the recorded calls, in order.
func (s *session) readCalls() []call {
	s.t.Helper()
	ents, err := os.ReadDir(s.calls)
	if err != nil {
		s.t.Fatal(err)
	}
	var bases []string
	for _, e := range ents {
		if b, ok := strings.CutSuffix(e.Name(), ".args"); ok {
			bases = append(bases, b)
		}
	}
	sort.Slice(bases, func(i, j int) bool {
		a, _ := strconv.ParseInt(strings.Split(bases[i], "-")[0], 10, 64)
		b, _ := strconv.ParseInt(strings.Split(bases[j], "-")[0], 10, 64)
		return a < b
	})
	var out []call
	for _, b := range bases {
		p := filepath.Join(s.calls, b)
		args, _ := os.ReadFile(p + ".args")
		c := call{args: strings.Split(strings.TrimSuffix(string(args), "\n"), "\n")}
		if in, err := os.ReadFile(p + ".stdin"); err == nil {
			c.hook = true
			c.stdin = in
			c.stdout, _ = os.ReadFile(p + ".stdout")
			e, _ := os.ReadFile(p + ".stderr")
			c.stderr = string(e)
			rc, _ := os.ReadFile(p + ".rc")
			c.rc, _ = strconv.Atoi(strings.TrimSpace(string(rc)))
			if c.args[0] == "plangit-hook" && len(c.args) > 1 {
				c.event = c.args[1]
			} else if len(c.args) > 2 {
				c.event = c.args[2]
			}
		}
		out = append(out, c)
	}
	return out
}

// payload decodes a hook's payload.
func (c call) payload() map[string]any {
	var m map[string]any
	json.Unmarshal(c.stdin, &m)
	return m
}

// texts are the texts a hook answer gives the host for the model:
// additionalContext, reason, systemMessage, … — any string field of the
// answer that carries plangit's marker, or the answer itself when it is
// plain text.
func (c call) texts() []string {
	out := bytes.TrimSpace(c.stdout)
	if len(out) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(out, &v) != nil {
		return []string{string(out)}
	}
	var ts []string
	walkStrings(v, func(s string) {
		if strings.Contains(s, marker) {
			ts = append(ts, s)
		}
	})
	return ts
}

// marker starts every text plangit gives a model.
const marker = "[plangit]"

// walkStrings calls f on every string in a decoded JSON value.
func walkStrings(v any, f func(string)) {
	switch x := v.(type) {
	case string:
		f(x)
	case []any:
		for _, e := range x {
			walkStrings(e, f)
		}
	case map[string]any:
		for _, e := range x {
			walkStrings(e, f)
		}
	}
}

// checkHooks fails for a hook that exited non-zero where want does not
// allow it, or wrote to stderr.
func (s *session) checkHooks(calls []call, allowExit map[string]int) {
	s.t.Helper()
	n := 0
	for _, c := range calls {
		if !c.hook {
			continue
		}
		n++
		if c.rc != 0 && allowExit[c.event] != c.rc {
			s.t.Errorf("hook %s exited %d: %s", c.event, c.rc, c.stderr)
		}
		if strings.TrimSpace(c.stderr) != "" && c.rc == 0 {
			s.t.Errorf("hook %s wrote to stderr: %s", c.event, c.stderr)
		}
	}
	if n == 0 {
		s.t.Fatal("no hook ran")
	}
}

// fake is a bounded fake model: it serves a host's API through handle,
// logs every request body, and fails the test past max requests.
type fake struct {
	t      *testing.T
	max    int
	handle func(w http.ResponseWriter, r *http.Request, body []byte)
	mu     sync.Mutex
	turn   int // the turn the requests now arriving belong to
	reqs   []request
	srv    *httptest.Server
}

// setTurn says which turn the next requests belong to.
func (f *fake) setTurn(n int) {
	f.mu.Lock()
	f.turn = n
	f.mu.Unlock()
}

// request is one logged request.
type request struct {
	turn int
	path string
	body []byte
}

func newFake(t *testing.T, max int, handle func(w http.ResponseWriter, r *http.Request, body []byte)) *fake {
	f := &fake{t: t, max: max, handle: handle}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	n := len(f.reqs) + 1
	f.reqs = append(f.reqs, request{turn: f.turn, path: r.URL.Path, body: body})
	f.mu.Unlock()
	if n > f.max {
		f.t.Errorf("the host made more than %d requests to the model (request %d: %s %s)", f.max, n, r.Method, r.URL.Path)
		http.Error(w, `{"error":{"message":"fake model: request limit"}}`, http.StatusServiceUnavailable)
		return
	}
	f.handle(w, r, body)
}

// requests returns the requests logged so far.
func (f *fake) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...)
}

// sse writes one server-sent event and flushes it.
func sse(w io.Writer, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}

func sseHeader(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func mustJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSpace(buf.String())
}

// halves splits s in two at a rune boundary, so that a client must join
// deltas.
func halves(s string) []string {
	if len(s) < 2 {
		return []string{s}
	}
	i := len(s) / 2
	for i < len(s) && (s[i]&0xC0) == 0x80 {
		i++
	}
	return []string{s[:i], s[i:]}
}

// The script: each turn is a list of actions, one tool call per model
// reply, then a final answer. Which action comes next is read from the
// conversation, not from a counter, so side requests and retries do not
// shift it: a call id carries its turn and index (fm_t1_s03), and a final
// answer names its turn.
type action struct {
	name  string
	tool  string
	input any
}

var callID = regexp.MustCompile(`fm_t(\d+)_s(\d+)`)

// item is one thing the model said earlier in the conversation: a tool
// call id or a text.
type item struct {
	id   string
	text string
}

// step is the model's next reply: a call, or a final text.
type step struct {
	id    string // the call id core, fm_tN_sNN
	act   *action
	final string
}

// next decides the reply in turn from the conversation so far.
func next(turn int, acts []action, hist []item) step {
	k := 0
	for i := len(hist) - 1; i >= 0; i-- {
		it := hist[i]
		if m := callID.FindStringSubmatch(it.id); m != nil {
			t, _ := strconv.Atoi(m[1])
			if t == turn {
				n, _ := strconv.Atoi(m[2])
				k = n + 1
			}
			break
		}
		if strings.Contains(it.text, finalText(turn)) {
			return step{final: finalText(turn) + " Noted; what is left waits for the next turn."}
		}
		if strings.Contains(it.text, "FM-FINAL") {
			break // an earlier turn's answer
		}
	}
	if k >= len(acts) {
		return step{final: finalText(turn) + " The work of this turn is done."}
	}
	return step{id: fmt.Sprintf("fm_t%d_s%02d", turn, k), act: &acts[k]}
}

func finalText(turn int) string { return fmt.Sprintf("FM-FINAL turn %d.", turn) }

// planJSON is the part of plangit show --json the checks read.
type planJSON struct {
	Data struct {
		Plan struct {
			ID     string `json:"id"`
			Title  string `json:"title"`
			Status string `json:"status"`
			Phases []struct {
				Steps []struct {
					ID     string `json:"id"`
					Text   string `json:"text"`
					Status string `json:"status"`
				} `json:"steps"`
			} `json:"phases"`
		} `json:"plan"`
	} `json:"data"`
}

// sessions lists the project's session directories.
func (s *session) sessions() []string {
	ents, _ := os.ReadDir(filepath.Join(s.project, ".code-agent", "plans"))
	var ids []string
	for _, e := range ents {
		if e.IsDir() {
			ids = append(ids, e.Name())
		}
	}
	return ids
}

// show reads session id's plan.
func (s *session) show(id string) planJSON {
	var p planJSON
	if err := json.Unmarshal([]byte(s.plangit("--session", id, "--json", "show", "--all")), &p); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// steps maps each step's text to its status.
func (p planJSON) steps() map[string]string {
	m := map[string]string{}
	for _, ph := range p.Data.Plan.Phases {
		for _, st := range ph.Steps {
			m[st.Text] = st.Status
		}
	}
	return m
}

// checkPlan runs the checks every host's session shares: one session,
// the host's, with the title the agent's init gave it; the steps as the
// script left them; errors.md naming the failed command and nothing of
// plangit's own or of a search that found nothing; every repository
// fsck-clean with a clean status.
func (s *session) checkPlan(id string, want map[string]string) planJSON {
	s.t.Helper()
	ids := s.sessions()
	if len(ids) != 1 || ids[0] != id {
		s.t.Errorf("sessions in the project: %v, want only the host's %s", ids, id)
	}
	repotest.CheckAll(s.t, s.project)
	p := s.show(id)
	if got := p.Data.Plan.Title; got != "Add caching" {
		s.t.Errorf("plan title %q, want the agent's init title %q", got, "Add caching")
	}
	got := p.steps()
	for text, st := range want {
		if got[text] != st {
			s.t.Errorf("step %q is %q, want %q (plan: %v)", text, got[text], st, got)
		}
	}
	for text, st := range got {
		if _, ok := want[text]; !ok {
			s.t.Errorf("unexpected step %q (%s)", text, st)
		}
	}
	errs, err := os.ReadFile(filepath.Join(s.project, ".code-agent", "plans", id, "errors.md"))
	if err != nil {
		s.t.Errorf("errors.md: %v", err)
	}
	if !strings.Contains(string(errs), "ls cachedir") {
		s.t.Errorf("errors.md does not log the failed `ls cachedir`:\n%s", errs)
	}
	// The records, without the seal plangit writes under them.
	records := string(errs)
	if i := strings.LastIndex(records, "<!-- plangit sum="); i >= 0 && plan.Seal(errs) != "" {
		records = records[:i]
	}
	for _, bad := range []string{"plangit ", "grep -n NoSuchName"} {
		if strings.Contains(records, bad) {
			s.t.Errorf("errors.md logs %q, which is not the project's error:\n%s", bad, errs)
		}
	}
	return p
}

// hostToken is the credential the scripts' failing command carries, in
// its command and in its stderr; secretCommand is that command.
const (
	hostToken     = "ghp_R3alH0stT0kenABCDEFGHIJKLMNOPQRSTUV"
	secretCommand = `sh -c 'echo "deploy: 401 for Authorization: Bearer $1" >&2; exit 22' deploy ` + hostToken
)

// checkNoSecret checks that the failing command carrying hostToken was
// logged with the token redacted, and that no object of the session's
// repository, nor of the remote it is then pushed to, holds the token.
func (s *session) checkNoSecret(id string) {
	s.t.Helper()
	dir := filepath.Join(s.project, ".code-agent", "plans", id)
	errs := readFile(s.t, filepath.Join(dir, "errors.md"))
	if !strings.Contains(errs, "deploy: 401") || !strings.Contains(errs, "[redacted]") {
		s.t.Errorf("errors.md does not log the failed command with its token redacted:\n%s", errs)
	}
	bare := filepath.Join(s.base, "remote.git")
	s.git("init", "-q", "--bare", bare)
	s.git("remote", "add", "origin", bare)
	s.plangit("push", "--session", id)
	if ref := strings.TrimSpace(repotest.Git(s.t, bare, "for-each-ref", "--format=%(refname)", "refs/plangit/")); ref == "" {
		s.t.Errorf("plangit push left no session ref in the remote")
	}
	if strings.Contains(errs+readFile(s.t, filepath.Join(dir, "task_plan.md")), hostToken[4:]) {
		s.t.Errorf("the session's files hold the token the failing command carried")
	}
	for _, repo := range []string{dir, bare} {
		if strings.Contains(repotest.Git(s.t, repo, "cat-file", "--batch-all-objects", "--batch"), hostToken[4:]) {
			s.t.Errorf("an object in %s holds the token the failing command carried", repo)
		}
	}
}

// revisions lists a session's commit subjects, oldest first.
func (s *session) revisions(id string) []string {
	out := repotest.Git(s.t, filepath.Join(s.project, ".code-agent", "plans", id), "log", "--reverse", "--format=%s")
	return strings.Split(strings.TrimSpace(out), "\n")
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var uuidRE = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)

// record writes every hook payload of calls, normalised, to
// $PLANGIT_RECORD/<host>/NN-<event>[-<tool>].json, for refreshing the
// fixtures in testdata/hooks/real (go test ./hooks reads them): as the
// fixtures name them, the session id becomes {{SESSION}}, the project
// {{CWD}}, the directory the host ran in {{RUN}} (its HOME is
// {{RUN}}/home), Claude Code's project slug <PROJECT_SLUG>, other UUIDs
// <UUID>, and the members named in fields their given value (durations,
// times). Members keep the order the host sent them in.
func (s *session) record(calls []call, sessionIDs []string, fields map[string]any) {
	s.t.Helper()
	root := os.Getenv("PLANGIT_RECORD")
	if root == "" {
		return
	}
	dir := filepath.Join(root, s.host)
	os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		s.t.Fatal(err)
	}
	var repl []string
	for _, id := range sessionIDs {
		repl = append(repl, id, "{{SESSION}}")
	}
	slug := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(s.project, "-")
	repl = append(repl, s.project, "{{CWD}}", s.base, "{{RUN}}", slug, "<PROJECT_SLUG>")
	r := strings.NewReplacer(repl...)
	n := 0
	for i, c := range calls {
		if !c.hook {
			continue
		}
		n++
		raw := uuidRE.ReplaceAllString(r.Replace(string(c.stdin)), "<UUID>")
		for k, v := range fields {
			re := regexp.MustCompile(`"` + regexp.QuoteMeta(k) + `"\s*:\s*(-?[0-9][0-9.eE+-]*|"(?:[^"\\]|\\.)*")`)
			raw = re.ReplaceAllLiteralString(raw, `"`+k+`": `+mustJSON(v))
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, []byte(raw), "", "  "); err != nil {
			s.t.Errorf("hook payload %d is not JSON after normalising: %v\n%s", i, err, raw)
			continue
		}
		name := fmt.Sprintf("%02d-%s", n, c.event)
		if tool, ok := c.payload()["tool_name"].(string); ok {
			name += "-" + regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(tool, "_")
		} else if tool, ok := c.payload()["toolName"].(string); ok {
			name += "-" + regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(tool, "_")
		}
		write(s.t, filepath.Join(dir, name+".json"), buf.String()+"\n")
	}
	s.t.Logf("recorded %d hook payloads in %s", n, dir)
}

// checkFirstTurn checks the session after its first turn: the stop gate
// held (the host's stop event answered with plangit's text), and the
// step the script left open is not done — plangit marks no step done
// that nobody finished.
func (s *session) checkFirstTurn(id string, calls []call, stopEvent string) {
	s.t.Helper()
	held := false
	for _, c := range calls {
		held = held || c.hook && c.event == stopEvent && len(c.texts()) > 0
	}
	if !held {
		s.t.Errorf("turn 1: the stop gate did not hold: no %s answer with plangit's text", stopEvent)
	}
	if !fileExists(filepath.Join(s.project, ".code-agent", "plans", id)) {
		s.t.Errorf("turn 1: the host's session %s has no plan", id)
		return
	}
	if st := s.show(id).steps()["Test the cache"]; st == "completed" || st == "skipped" {
		s.t.Errorf("turn 1: step %q is %s, but the script has not finished it", "Test the cache", st)
	}
}

// streamEvent reads, from a host's JSON-lines output, the string member
// field of the first event of type typ: the session id a host prints.
func streamEvent(t *testing.T, host, stream, typ, field string) string {
	t.Helper()
	for _, line := range strings.Split(stream, "\n") {
		var ev map[string]any
		if json.Unmarshal([]byte(line), &ev) == nil && ev["type"] == typ {
			if v, _ := ev[field].(string); v != "" {
				return v
			}
		}
	}
	t.Fatalf("no %s event with a %s in %s's output:\n%s", typ, field, host, tail(stream, 2000))
	return ""
}
