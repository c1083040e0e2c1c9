package render

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
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
	st := sampleState(t)
	now := t0.Add(90 * time.Minute)
	views := map[string]func(*bytes.Buffer){
		"plan.txt":     func(b *bytes.Buffer) { Plan(b, st.Plan, PlanOptions{}) },
		"plan_all.txt": func(b *bytes.Buffer) { Plan(b, st.Plan, PlanOptions{All: true}) },
		"status.txt":   func(b *bytes.Buffer) { Status(b, st, now) },
		"summary.txt":  func(b *bytes.Buffer) { b.WriteString(Summary(st)) },
		"ready.txt":    func(b *bytes.Buffer) { Ready(b, st.Plan, st.Plan.Ready()) },
		"findings.txt": func(b *bytes.Buffer) { Findings(b, st.Findings) },
		"errors.txt":   func(b *bytes.Buffer) { Errors(b, st.Errors) },
	}
	for name, view := range views {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			view(&b)
			repotest.Golden(t, name, b.Bytes())
		})
	}
}

func TestEmptyViews(t *testing.T) {
	p, _ := plan.New("", "Empty", "", nil, t0, true)
	var b bytes.Buffer
	Plan(&b, p, PlanOptions{})
	Status(&b, &plan.State{Plan: p}, t0)
	Ready(&b, p, nil)
	Findings(&b, nil)
	Errors(&b, nil)
	repotest.Golden(t, "empty.txt", b.Bytes())
}

func TestStepLine(t *testing.T) {
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
