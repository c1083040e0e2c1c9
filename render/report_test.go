package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
)

// recorded is the report of recordedSession.
func recorded(t testing.TB) *history.Report {
	t.Helper()
	r, err := history.Collect(recordedSession(t), "", t0.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// recordedSession plays an agent's session into a real session repository,
// a minute per change: three phases, steps with dependencies started and
// finished, progress, a failure retried, a blocked and a skipped step,
// findings and an error logged twice, and markup in the texts that every
// format must escape.
func recordedSession(t testing.TB) *repo.Session {
	t.Helper()
	now := t0
	p, err := plan.New("rec", "Add caching to UserService", "cache user lookups without changing the public API", []string{"Analysis", "Build", "Verify"}, now, false)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := repo.Project{Root: t.TempDir()}.Create("rec", &plan.State{Plan: p}, plan.Change{Op: "init", Summary: "init: Add caching to UserService"}, repo.Options{Now: now, Meta: repo.Meta{Actor: "agent"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repotest.Check(t, s.Dir) })
	do := func(actor string, fn func(st *plan.State, now time.Time) (plan.Change, error)) {
		t.Helper()
		now = now.Add(time.Minute)
		o := repo.Options{Now: now, Meta: repo.Meta{Actor: actor}}
		if _, err := s.Update(o, func(st *plan.State) (plan.Change, error) { return fn(st, o.Now) }); err != nil {
			t.Fatal(err)
		}
	}
	add := func(text, phase string, needs ...string) {
		do("agent", func(st *plan.State, now time.Time) (plan.Change, error) {
			step, err := st.Plan.AddStep(plan.StepSpec{Text: text, Phase: phase, Needs: needs}, now)
			if err != nil {
				return plan.Change{}, err
			}
			return plan.Change{Op: "step.add", Step: step.ID, Summary: "add step " + step.ID}, nil
		})
	}
	move := func(id string, a plan.Action, o plan.TransitionOpts) {
		do("agent", func(st *plan.State, now time.Time) (plan.Change, error) { return st.Plan.Transition(id, a, o, now) })
	}
	progress := func(id string, cur, total int) {
		do("agent", func(st *plan.State, now time.Time) (plan.Change, error) {
			return st.Plan.SetProgress(id, plan.Progress{Current: cur, Total: total}, now)
		})
	}
	fail := func(msg string) {
		do("hook", func(st *plan.State, now time.Time) (plan.Change, error) {
			e, err := st.Errors.Record(plan.ErrorRecord{Tool: "Bash", Message: msg, Step: "4"}, now)
			if err != nil {
				return plan.Change{}, err
			}
			return plan.Change{Op: "error.add", Summary: fmt.Sprintf("error: Bash ×%d", e.Count)}, nil
		})
	}
	find := func(f plan.Finding) {
		do("agent", func(st *plan.State, now time.Time) (plan.Change, error) {
			if _, err := st.Findings.Add(f, now); err != nil {
				return plan.Change{}, err
			}
			return plan.Change{Op: "finding.add", Summary: "finding: " + f.Title}, nil
		})
	}

	add("Read UserService and find the hot paths", "1")
	add("Design the cache (LRU, 5-minute TTL)", "1", "1")
	add("Implement the cache layer", "2", "2")
	add("Use the cache in `GetUser` <and> *ListUsers*", "2", "3")
	add("Invalidate on UpdateUser | DeleteUser", "2", "3")
	add("Benchmark before and after", "3", "4", "5")
	add("Write the docs", "3")
	add("Load-test on staging", "3", "6")
	move("1", plan.ActStart, plan.TransitionOpts{})
	find(plan.Finding{Category: plan.CatCode, Title: "GetUser is the hot path", Source: "service.go:42", Step: "1", Content: "70% of calls\nall uncached"})
	move("1", plan.ActDone, plan.TransitionOpts{Result: "3 hot paths, all in GetUser"})
	move("2", plan.ActStart, plan.TransitionOpts{})
	find(plan.Finding{Category: plan.CatArchitecture, Title: "LRU over TTL-only", Content: "memory stays bounded"})
	move("2", plan.ActDone, plan.TransitionOpts{Result: "an LRU keyed by user id"})
	move("3", plan.ActStart, plan.TransitionOpts{})
	progress("3", 2, 5)
	progress("3", 5, 5)
	move("3", plan.ActDone, plan.TransitionOpts{Result: "cache.go, tests pass"})
	move("4", plan.ActStart, plan.TransitionOpts{})
	fail("go test ./...: TestCache timed out after 30s")
	fail("go test ./...: TestCache timed out after 45s")
	move("4", plan.ActFail, plan.TransitionOpts{Reason: "timeouts", Retry: true})
	move("4", plan.ActStart, plan.TransitionOpts{})
	move("4", plan.ActDone, plan.TransitionOpts{Result: "GetUser reads through the cache"})
	move("5", plan.ActStart, plan.TransitionOpts{})
	move("7", plan.ActSkip, plan.TransitionOpts{Reason: "no docs site yet"})
	move("8", plan.ActBlock, plan.TransitionOpts{Reason: "staging is down"})
	return s
}

// historyViews is what the history views of a session show: its newest n
// revisions, the semantic diff from @10 and the text diff from textFrom to
// HEAD, and the timeline.
type historyViews struct {
	revs     []repo.Revision
	diff     *history.Diff
	files    []history.FileDiff
	from, to history.Endpoint
	spans    []history.Span
}

func readHistory(t *testing.T, s *repo.Session, n int, textFrom string) historyViews {
	t.Helper()
	var h historyViews
	var err error
	if h.revs, err = history.Log(s, history.LogOptions{N: n}); err != nil {
		t.Fatal(err)
	}
	if h.diff, err = history.Between(s, "@10", "HEAD"); err != nil {
		t.Fatal(err)
	}
	if h.files, h.from, h.to, err = history.TextBetween(s, textFrom, "HEAD"); err != nil {
		t.Fatal(err)
	}
	if h.spans, err = history.Timeline(s); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestTerminalHistoryViews: log, diff and timeline of the recorded session
// on a 72-column terminal, with and without colour, and piped.
func TestTerminalHistoryViews(t *testing.T) {
	t.Parallel()
	h := readHistory(t, recordedSession(t), 8, "HEAD~1")
	revs, d, files, from, to, spans := h.revs, h.diff, h.files, h.from, h.to, h.spans
	now := t0.Add(30 * time.Minute)
	for name, style := range map[string]Style{"plain": {}, "term": {Bars: true, Width: 72}, "term_color": {Color: true, Bars: true, Width: 72}} {
		var b bytes.Buffer
		Log(&b, revs, style)
		b.WriteString("\n")
		Diff(&b, d, style)
		b.WriteString("\n")
		TextDiff(&b, from, to, files, style)
		b.WriteString("\n")
		Timeline(&b, spans, now, style.Bars, style)
		repotest.Golden(t, "history_"+name+".txt", b.Bytes())
		if style.Width > 0 {
			for _, line := range strings.Split(b.String(), "\n") {
				if strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-") || strings.HasPrefix(line, " ") || strings.Contains(line, "\x1b[") {
					continue // diff text is not cut; coloured lines are measured plain
				}
				if Columns(line) > style.Width {
					t.Errorf("%s: line wider than the terminal: %q", name, line)
				}
			}
		}
	}
}

func TestMarkdownReport(t *testing.T) {
	t.Parallel()
	r := recorded(t)
	var b bytes.Buffer
	MarkdownReport(&b, r)
	repotest.Golden(t, "report.md", b.Bytes())
	out := b.String()
	for _, s := range r.State.Plan.Steps() {
		if !strings.Contains(out, "**"+s.ID+"** ") || !strings.Contains(out, "S"+s.ID+"[") {
			t.Errorf("step %s is missing from the plan or the graph", s.ID)
		}
	}
	if !strings.Contains(out, "Use the cache in \\`GetUser\\` \\<and\\> \\*ListUsers\\*") {
		t.Error("step text is not escaped for markdown")
	}
	if n := strings.Count(out, "- **@"); n != len(r.Revisions) {
		t.Errorf("history lists %d revisions, want %d", n, len(r.Revisions))
	}
}

// TestMarkdownReportRenders reads the markdown report back as GitHub would
// (goldmark with the GFM extensions and raw HTML on): a checkbox per step,
// two Mermaid blocks, the error table, text diffs in <details>.
func TestMarkdownReportRenders(t *testing.T) {
	t.Parallel()
	r := recorded(t)
	var src, out bytes.Buffer
	MarkdownReport(&src, r)
	g := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := g.Convert(src.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	html := out.String()
	resolved := 0
	for _, s := range r.State.Plan.Steps() {
		if s.Status.Resolved() {
			resolved++
		}
	}
	checks := map[string]int{
		`<input checked="" disabled="" type="checkbox"`: resolved,
		`<input disabled="" type="checkbox"`:            len(r.State.Plan.Steps()) - resolved,
		`<code class="language-mermaid">`:               2,
		`<code class="language-diff">`:                  len(r.Revisions), // every revision changes a file
		"<table>":                                       1,
		"<h2>":                                          6,
		"<code>GetUser</code>":                          0, // escaped, so no code span
	}
	for frag, want := range checks {
		if got := strings.Count(html, frag); got != want {
			t.Errorf("%q appears %d times, want %d", frag, got, want)
		}
	}
}

// TestMarkdownReportLongHistory: past the newest revisions, text diffs are
// left out and the rest is folded; the chart samples at most chartPoints.
func TestMarkdownReportLongHistory(t *testing.T) {
	t.Parallel()
	r := recorded(t)
	for len(r.Revisions) < 130 {
		rv := r.Revisions[len(r.Revisions)-1]
		rv.N++
		r.Revisions = append(r.Revisions, rv)
	}
	var b bytes.Buffer
	MarkdownReport(&b, r)
	out := b.String()
	if n := strings.Count(out, "<summary>text diff</summary>"); n > recentRevisions {
		t.Errorf("%d text diffs, want at most %d", n, recentRevisions)
	}
	if !strings.Contains(out, "<details><summary>80 older revisions, without text diffs</summary>") {
		t.Error("older revisions are not folded")
	}
	x := regexp.MustCompile(`x-axis \[(.*)\]`).FindStringSubmatch(out)
	if x == nil || strings.Count(x[1], ",")+1 != chartPoints || !strings.HasSuffix(x[1], `"@130"`) {
		t.Errorf("chart axis: %v", x)
	}
}

func TestFenced(t *testing.T) {
	t.Parallel()
	if got := fenced("diff", "a ``` b\n"); got != "````diff\na ``` b\n````\n" {
		t.Errorf("fenced = %q", got)
	}
}

// TestHTMLReportSelfContained: nothing in the page is fetched: no script,
// stylesheet link, image, font or frame, no URL but SVG's namespace.
func TestHTMLReportSelfContained(t *testing.T) {
	t.Parallel()
	r := recorded(t)
	var b bytes.Buffer
	HTMLReport(&b, r)
	out := b.String()
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "@import", "url(http", "src="} {
		if strings.Contains(out, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	urls := regexp.MustCompile(`https?://[^"' )]*`).FindAllString(out, -1)
	for _, u := range urls {
		if u != "http://www.w3.org/2000/svg" {
			t.Errorf("report names %s", u)
		}
	}
	if strings.Contains(out, "<and>") || !strings.Contains(out, "&lt;and&gt;") {
		t.Error("step text is not escaped for HTML")
	}
}

// Both reports show the deliverable and which errors are resolved.
func TestReportsShowDeliverableAndResolvedErrors(t *testing.T) {
	t.Parallel()
	r := recorded(t)
	st := *r.State
	st.Deliverable = []byte("# Result\n\nGetUser is cached: p99 <40ms> → 3ms\n")
	st.Errors = plan.ErrorLog{{ID: "1", Tool: "Bash", Message: "go vet failed", Count: 2, Resolved: true, ResolvedAt: t0, Resolution: "fixed the import"},
		{ID: "2", Tool: "Edit", Message: "old_string not found", Count: 1}}
	r.State = &st
	var h, m bytes.Buffer
	HTMLReport(&h, r)
	MarkdownReport(&m, r)
	for _, want := range []string{`<a href="#deliverable">Deliverable</a>`, `<pre class="deliverable"># Result`, "p99 &lt;40ms&gt; → 3ms",
		`<tr class="resolved"><td>#1</td>`, "resolved 2026-11-20 10:00: fixed the import", "<td>open</td>"} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("HTML report lacks %q", want)
		}
	}
	for _, want := range []string{"## Deliverable\n\n> # Result\n>\n> GetUser is cached", "| #1 | Bash | ×2 |", "resolved 2026-11-20 10:00: fixed the import", "| open |"} {
		if !strings.Contains(m.String(), want) {
			t.Errorf("markdown report lacks %q", want)
		}
	}
}

// chromium runs headless Chromium on a page: the DOM after load, and every
// URL the page asked the network for (the browser's own background
// requests, which have no page origin, are left out).
func chromium(t *testing.T, page, screenshot string, flags ...string) (dom string, requests []string) {
	t.Helper()
	// Headless Chromium takes seconds a page: the long suites (and -update,
	// which refreshes the screenshot) open it.
	if !repotest.Long() && !*repotest.Update {
		repotest.Short(t, "opens headless Chromium")
	}
	bin := repotest.RequireTool(t, "chromium", "chromium-browser")
	dir := t.TempDir()
	netlog := filepath.Join(dir, "netlog.json")
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-quic", "--no-first-run", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--log-net-log=" + netlog, "--hide-scrollbars"}
	if screenshot != "" {
		args = append(args, "--window-size=1200,1800", "--screenshot="+screenshot)
	} else {
		args = append(args, "--dump-dom")
	}
	args = append(args, flags...)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, append(args, "file://"+page)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.Bytes())
	}
	raw, err := os.ReadFile(netlog)
	if err != nil {
		t.Fatalf("chromium wrote no net log: %v", err)
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL        string `json:"url"`
				Initiator  string `json:"initiator"`
				NetworkKey string `json:"network_isolation_key"`
			} `json:"params"`
		} `json:"events"`
	}
	// A net log cut short by the browser's exit lacks its closing brackets.
	if err := json.Unmarshal(raw, &log); err != nil {
		fixed := strings.TrimRight(strings.TrimSpace(string(raw)), ",") + "]}"
		if err := json.Unmarshal([]byte(fixed), &log); err != nil {
			t.Fatalf("cannot read chromium's net log: %v", err)
		}
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		t.Fatal("net log has no URL_REQUEST_START_JOB event type")
	}
	for _, e := range log.Events {
		if e.Type == start && e.Params.URL != "" && e.Params.Initiator != "not an origin" && !strings.HasPrefix(e.Params.URL, "file:") && !strings.HasPrefix(e.Params.URL, "data:") {
			requests = append(requests, e.Params.URL)
		}
	}
	return stdout.String(), requests
}

// TestReportInBrowser opens the report in headless Chromium: every step,
// every graph node and the chart are in the DOM — and, for a history
// naming agents, their lanes — and the page makes no network request. With -update it also refreshes the README's screenshot.
func TestReportInBrowser(t *testing.T) {
	t.Parallel()
	r := recorded(t)
	r.Code = map[string]*history.CodeDiff{"1": hostileCode()}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	HTMLReport(&b, r)
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	// The detector itself: a page that loads a stylesheet is caught.
	control := filepath.Join(dir, "control.html")
	os.WriteFile(control, []byte(`<!doctype html><link rel="stylesheet" href="http://cdn.invalid/x.css"><p>x</p>`), 0o644)
	if _, reqs := chromium(t, control, ""); len(reqs) == 0 {
		t.Fatal("the net log check missed a page's stylesheet request")
	}

	dom, reqs := chromium(t, page, "")
	if len(reqs) > 0 {
		t.Errorf("the report made network requests: %v", reqs)
	}
	for _, s := range r.State.Plan.Steps() {
		for _, id := range []string{`id="step-` + s.ID + `"`, `id="node-` + s.ID + `"`} {
			if !strings.Contains(dom, id) {
				t.Errorf("DOM lacks %s", id)
			}
		}
		if !strings.Contains(dom, h(s.Text)) {
			t.Errorf("DOM lacks step %s's text", s.ID)
		}
	}
	for _, ph := range r.State.Plan.Phases {
		if !strings.Contains(dom, `id="cluster-`+ph.ID+`"`) {
			t.Errorf("DOM lacks phase %s's cluster", ph.ID)
		}
	}
	edges := 0
	for _, s := range r.State.Plan.Steps() {
		edges += len(s.Needs)
	}
	if n := strings.Count(dom, `class="edge"`); n != edges {
		t.Errorf("graph has %d edges, want %d", n, edges)
	}
	done := regexp.MustCompile(`<polyline class="done" points="([^"]*)"`).FindStringSubmatch(dom)
	if !strings.Contains(dom, `id="progress-chart"`) || done == nil || len(strings.Fields(done[1])) != len(r.Revisions) {
		t.Errorf("the progress chart is missing or does not plot every revision")
	}
	if n := strings.Count(dom, `class="rev"`); n != len(r.Revisions) {
		t.Errorf("history shows %d revisions, want %d", n, len(r.Revisions))
	}

	// A step's code diff is folded, and opens when followed to: a link to
	// its lines opens the fold, as a click on its summary does. Its hostile
	// lines are text in the DOM, no element.
	if !strings.Contains(dom, `<details class="code" id="code-1"><summary>`) || strings.Contains(dom, "<script") {
		t.Errorf("the code diff is not folded, or its lines made elements")
	}
	opened, _ := chromium(t, page+"#code-1-diff", "")
	if !regexp.MustCompile(`<details class="code" id="code-1" open(="")?>`).MatchString(opened) {
		t.Errorf("following a link to the code diff did not open it")
	}

	// A history naming agents: a lane each along the time axis.
	ar, err := history.Collect(agentsSession(t), "", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	HTMLReport(&b, ar)
	agentsPage := filepath.Join(dir, "agents.html")
	if err := os.WriteFile(agentsPage, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, reqs = chromium(t, agentsPage, "")
	if len(reqs) > 0 {
		t.Errorf("the agents' report made network requests: %v", reqs)
	}
	if !strings.Contains(dom, `id="agent-lanes"`) || strings.Count(dom, `class="lane"`) != len(ar.Agents) || strings.Count(dom, `class="run"`) != 3 {
		t.Errorf("the agents' lanes are missing from the DOM")
	}

	shot := filepath.Join(dir, "report.png")
	if _, reqs := chromium(t, page, shot); len(reqs) > 0 {
		t.Errorf("the report made network requests: %v", reqs)
	}
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("no screenshot: %v", err)
	}
	if *repotest.Update {
		os.WriteFile(filepath.Join("testdata", "report.png"), png, 0o644)
	}
}
