package render

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
)

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// sampleState is a plan in the middle of its work, with a finding and an
// error logged twice.
func sampleState(t *testing.T) *plan.State {
	t.Helper()
	p, err := plan.New("s1", "Add caching to UserService", "cache user lookups\nwithout changing the API", []string{"Analysis", "Build"}, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	add := func(text, phase string, needs ...string) {
		if _, err := p.AddStep(plan.StepSpec{Text: text, Phase: phase, Needs: needs}, t0); err != nil {
			t.Fatal(err)
		}
	}
	add("Read the service", "1")
	add("Design the cache", "1", "1")
	add("Implement the cache", "2", "2")
	add("Use it in GetUser", "2", "3")
	add("Write the docs", "2")
	do := func(id string, a plan.Action, o plan.TransitionOpts) {
		if _, err := p.Transition(id, a, o, t0); err != nil {
			t.Fatal(err)
		}
	}
	do("1", plan.ActStart, plan.TransitionOpts{})
	do("1", plan.ActDone, plan.TransitionOpts{Result: "3 hot paths\nall in GetUser"})
	do("2", plan.ActDone, plan.TransitionOpts{})
	do("3", plan.ActStart, plan.TransitionOpts{})
	p.SetProgress("3", plan.Progress{Current: 2, Total: 5}, t0)
	do("5", plan.ActFail, plan.TransitionOpts{Reason: "no docs site yet", Retry: true})
	do("5", plan.ActBlock, plan.TransitionOpts{Reason: "no docs site yet"})
	st := &plan.State{Plan: p}
	st.Findings.Add(plan.Finding{Category: plan.CatCode, Title: "GetUser is the hot path", Source: "service.go:42", Content: "70% of calls\nall uncached"}, t0)
	st.Errors.Record(plan.ErrorRecord{Tool: "Bash", Message: "go test: timed out after 30s", Step: "3"}, t0)
	st.Errors.Record(plan.ErrorRecord{Tool: "Bash", Message: "go test: timed out after 45s", Step: "3"}, t0.Add(time.Minute))
	return st
}

func TestTextViews(t *testing.T) {
	t.Parallel()
	st := sampleState(t)
	now := t0.Add(90 * time.Minute)
	views := map[string]func(*bytes.Buffer){
		"plan.txt":     func(b *bytes.Buffer) { Plan(b, st.Plan, PlanOptions{}) },
		"plan_all.txt": func(b *bytes.Buffer) { Plan(b, st.Plan, PlanOptions{All: true}) },
		"status.txt":   func(b *bytes.Buffer) { Status(b, st, now, Style{}) },
		"summary.txt":  func(b *bytes.Buffer) { b.WriteString(Summary(st)) },
		"ready.txt":    func(b *bytes.Buffer) { Ready(b, st.Plan, st.Plan.Ready()) },
		"findings.txt": func(b *bytes.Buffer) { Findings(b, st.Findings) },
		"errors.txt":   func(b *bytes.Buffer) { Errors(b, st.Errors, "") },
	}
	for name, view := range views {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			view(&b)
			repotest.Golden(t, name, b.Bytes())
		})
	}
}

// TestTerminalViews: the same views on a terminal, 72 columns wide, with
// and without colour.
func TestTerminalViews(t *testing.T) {
	t.Parallel()
	st := sampleState(t)
	st.Plan.Phases[1].Steps[1].Text = "Use it in GetUser, and in GetUsers, ListUsers and every other path that reads a user"
	now := t0.Add(90 * time.Minute)
	for _, color := range []bool{false, true} {
		s := Style{Color: color, Bars: true, Width: 72}
		suffix := map[bool]string{false: "", true: "_color"}[color]
		var b bytes.Buffer
		Plan(&b, st.Plan, PlanOptions{All: true, Style: s})
		repotest.Golden(t, "term_plan"+suffix+".txt", b.Bytes())
		b.Reset()
		Status(&b, st, now, s)
		repotest.Golden(t, "term_status"+suffix+".txt", b.Bytes())
	}
	for _, line := range strings.Split(termPlain(t), "\n") {
		if Columns(line) > 72 {
			t.Errorf("line wider than the terminal: %q (%d)", line, Columns(line))
		}
	}
}

func termPlain(t *testing.T) string {
	var b bytes.Buffer
	st := sampleState(t)
	st.Plan.Phases[1].Steps[1].Text = strings.Repeat("a very long step text ", 10)
	Plan(&b, st.Plan, PlanOptions{All: true, Style: Style{Bars: true, Width: 72}})
	return b.String()
}

func TestColumns(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int{"abc": 3, "中文": 4, "●": 1, "🙂x": 3, "": 0} {
		if got := Columns(s); got != want {
			t.Errorf("%q: %d, want %d", s, got, want)
		}
	}
	if got := fitText("缓存用户查询而不改变公共接口", 9); got != "缓存用户…" || Columns(got) > 9 {
		t.Errorf("fit: %q", got)
	}
	if Bar(1, 4, 8) != "██░░░░░░" || Bar(0, 0, 3) != "░░░" {
		t.Error(Bar(1, 4, 8))
	}
}

func TestEmptyViews(t *testing.T) {
	t.Parallel()
	p, _ := plan.New("", "Empty", "", nil, t0, true)
	var b bytes.Buffer
	Plan(&b, p, PlanOptions{})
	Status(&b, &plan.State{Plan: p}, t0, Style{})
	Ready(&b, p, nil)
	Findings(&b, nil)
	Errors(&b, nil, "")
	repotest.Golden(t, "empty.txt", b.Bytes())
}

func TestStepLine(t *testing.T) {
	t.Parallel()
	st := sampleState(t)
	cases := map[string]string{
		"1": "● 1  Read the service",
		"3": "◐ 3  Implement the cache  [2/5]",
		"4": "○ 4  Use it in GetUser  [waits for 3]",
		"5": "✖ 5  Write the docs  [blocked: no docs site yet; 1 retry]",
	}
	for id, want := range cases {
		s, _, _ := st.Plan.Step(id)
		if got := StepLine(st.Plan, s); got != want {
			t.Errorf("step %s:\n got %q\nwant %q", id, got, want)
		}
	}
}

func TestAgo(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "just now", 45 * time.Second: "45s ago", 5 * time.Minute: "5m ago",
		90 * time.Minute: "1h30m ago", 50 * time.Hour: "2d2h ago", -time.Hour: "in 1h",
	} {
		if got := Ago(t0.Add(d), t0); got != want {
			t.Errorf("%s: got %q, want %q", d, got, want)
		}
	}
}

func TestJSONEnvelopes(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	JSON(&b, map[string]any{"n": 1, "html": "<b>&</b>"})
	repotest.Golden(t, "ok.json", b.Bytes())
	b.Reset()
	JSONError(&b, plan.Errorf(plan.CodeStepNotFound, "no step \"9\"").With("step", "9"))
	repotest.Golden(t, "error.json", b.Bytes())
	b.Reset()
	JSONError(&b, errors.New("something unexpected"))
	repotest.Golden(t, "internal_error.json", b.Bytes())
}

func TestPercent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ n, total, want int }{
		{0, 0, 0}, {0, 3, 0}, {1, 3, 33}, {2, 3, 67}, {5, 8, 63}, {1, 200, 1}, {199, 200, 99}, {3, 3, 100}, {1, 1000, 1},
	} {
		if got := Percent(c.n, c.total); got != c.want {
			t.Errorf("%d/%d: %d%%, want %d%%", c.n, c.total, got, c.want)
		}
	}
}

// TestAutoCompletionShown: a step auto-advance completed says so wherever
// a person reads the plan: the plan, the step's detail, the report.
func TestAutoCompletionShown(t *testing.T) {
	t.Parallel()
	p, _ := plan.New("s", "T", "", []string{"Build"}, t0, false)
	p.AddStep(plan.StepSpec{Text: "Write the cache"}, t0)
	p.Transition("1", plan.ActDone, plan.TransitionOpts{Force: true, Auto: true}, t0)
	var b bytes.Buffer
	Plan(&b, p, PlanOptions{All: true})
	if !strings.Contains(b.String(), "[auto-advance: unconfirmed]") {
		t.Errorf("the plan:\n%s", b.String())
	}
	b.Reset()
	StepDetail(&b, p, p.Phases[0].Steps[0], p.Phases[0], nil, Style{})
	if !strings.Contains(b.String(), "done by: auto-advance, not the agent's word") {
		t.Errorf("the step's detail:\n%s", b.String())
	}
	b.Reset()
	HTMLReport(&b, &history.Report{Session: "s", Rev: repo.Revision{N: 1, Hash: strings.Repeat("a", 40)}, State: &plan.State{Plan: p}})
	if !strings.Contains(b.String(), `<span class="tag">auto-advance: unconfirmed</span>`) {
		t.Error("the report does not say the completion was automatic")
	}
}

// TestStatusLinePosition: the prompt line says where the current step
// stands in the plan and how far it got, as the maxclaw seed's system
// prompt does ({current_step_index+1}/{len(steps)}, progress current/total).
func TestStatusLinePosition(t *testing.T) {
	t.Parallel()
	p, _ := plan.New("s", "Cache", "", []string{"A"}, t0, false)
	for _, text := range []string{"Read", "Build", "Test"} {
		p.AddStep(plan.StepSpec{Text: text}, t0)
	}
	p.Transition("1", plan.ActDone, plan.TransitionOpts{}, t0)
	p.Transition("2", plan.ActStart, plan.TransitionOpts{}, t0)
	p.SetProgress("2", plan.Progress{Current: 2, Total: 5}, t0)
	if got := StatusLine(&plan.State{Plan: p}, "plangit"); !strings.Contains(got, "now: 2 Build (step 2/3, progress 2/5); next: 3 Test") {
		t.Errorf("%s", got)
	}
}

// TestLogProgressOfAForeignCommit: a revision another git client made
// says nothing of the plan's progress, and the log says it does not know
// rather than 0/0; plangit's own revisions of an empty plan say 0/0.
func TestLogProgressOfAForeignCommit(t *testing.T) {
	t.Parallel()
	revs := []repo.Revision{
		{Hash: strings.Repeat("a", 40), N: 1, Time: t0, Actor: "agent", Op: "init", Summary: "init: T"},
		{Hash: strings.Repeat("b", 40), N: 2, Time: t0, Actor: "git", Author: repo.Person{Name: "P"}, Summary: "by hand"},
	}
	for _, style := range []Style{{}, {Width: 100, Color: true}} {
		var b bytes.Buffer
		Log(&b, revs, style)
		lines := strings.Split(b.String(), "\n")
		if !strings.Contains(lines[0], "  0/0  ") || !strings.Contains(lines[1], "  ?/?  ") || strings.Contains(lines[1], "0/0") {
			t.Errorf("style %+v:\n%s", style, b.String())
		}
	}
}
