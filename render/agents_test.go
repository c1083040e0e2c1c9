package render

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
)

// agentsSession is two agents on a plan of three steps, a minute per
// change: alpha claims and completes step 1 and claims step 3; beta claims
// step 2, whose text has markup every format must escape; a change names
// no agent.
func agentsSession(t testing.TB) *repo.Session {
	t.Helper()
	now := t0
	p, err := plan.New("ag", "Two agents", "share one plan", []string{"Work"}, now, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"Read the code", "Fix <b>GetUser</b> & co", "Write the docs"} {
		if _, err := p.AddStep(plan.StepSpec{Text: text}, now); err != nil {
			t.Fatal(err)
		}
	}
	s, _, err := repo.Project{Root: t.TempDir()}.Create("ag", &plan.State{Plan: p}, plan.Change{Op: "init", Summary: "init: Two agents"}, repo.Options{Now: now, Meta: repo.Meta{Actor: "agent"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repotest.Check(t, s.Dir) })
	do := func(agent string, fn func(p *plan.Plan, now time.Time) (plan.Change, error)) {
		t.Helper()
		now = now.Add(time.Minute)
		o := repo.Options{Now: now, Meta: repo.Meta{Actor: "agent", Agent: agent}}
		if _, err := s.Update(o, func(st *plan.State) (plan.Change, error) { return fn(st.Plan, o.Now) }); err != nil {
			t.Fatal(err)
		}
	}
	claim := func(id, agent string) {
		do(agent, func(p *plan.Plan, now time.Time) (plan.Change, error) {
			return p.Claim(id, plan.ClaimOpts{Agent: agent, Lease: 15 * time.Minute}, now)
		})
	}
	claim("1", "alpha")
	claim("2", "beta")
	do("alpha", func(p *plan.Plan, now time.Time) (plan.Change, error) {
		return p.Transition("1", plan.ActDone, plan.TransitionOpts{Result: "read"}, now)
	})
	do("", func(p *plan.Plan, now time.Time) (plan.Change, error) {
		st, err := p.AddStep(plan.StepSpec{Text: "Ship it"}, now)
		if err != nil {
			return plan.Change{}, err
		}
		return plan.Change{Op: "step.add", Step: st.ID, Summary: "add step " + st.ID}, nil
	})
	claim("3", "alpha")
	return s
}

// TestAgentsText: plangit agents' view, from the most recently active
// agent down, with a claim live and, later, expired.
func TestAgentsText(t *testing.T) {
	t.Parallel()
	s := agentsSession(t)
	var b bytes.Buffer
	for _, now := range []time.Time{t0.Add(10 * time.Minute), t0.Add(30 * time.Minute)} {
		agents, err := history.Agents(s, now)
		if err != nil {
			t.Fatal(err)
		}
		Agents(&b, s.ID, agents, now)
	}
	Agents(&b, s.ID, nil, t0)
	repotest.Golden(t, "agents.txt", b.Bytes())
}

// TestReportAgentLanes: the HTML report draws a lane per agent along the
// time axis, its runs of steps and its revisions in it, every text
// escaped; the markdown report lists the agents; a report whose history
// names no agent has neither.
func TestReportAgentLanes(t *testing.T) {
	t.Parallel()
	r, err := history.Collect(agentsSession(t), "", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	HTMLReport(&b, r)
	out := b.String()
	for _, want := range []string{`<a href="#agents">Agents (2)</a>`, `<section id="agents">`, `<svg id="agent-lanes"`,
		`<g class="lane" id="lane-1" data-agent="alpha">`, `<g class="lane" id="lane-2" data-agent="beta">`,
		`<title>step 1: Read the code · 2026-11-20 10:01 → 2026-11-20 10:03, completed</title>`,
		`<title>step 2: Fix &lt;b&gt;GetUser&lt;/b&gt; &amp; co · 2026-11-20 10:02 → going on</title>`,
		`<tr><td>alpha</td><td>3</td><td>2026-11-20 10:05</td><td>1</td><td>3 (expired)</td></tr>`,
		`<span class="actor">alpha</span>`} {
		if !strings.Contains(out, want) {
			t.Errorf("HTML report lacks %s", want)
		}
	}
	if strings.Contains(out, "<b>GetUser") || strings.Contains(out, "<script") {
		t.Error("the report's text is not escaped, or it has a script")
	}
	lanes := regexp.MustCompile(`(?s)<svg id="agent-lanes".*?</svg>`).FindString(out)
	for d := xml.NewDecoder(strings.NewReader(lanes)); ; {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the lanes are not well-formed SVG: %v", err)
		}
	}
	if n := strings.Count(lanes, `class="run"`); n != 3 {
		t.Errorf("%d runs drawn, want 3 (alpha's two, beta's one)", n)
	}
	if n := strings.Count(lanes, `class="tick"`); n != 4 {
		t.Errorf("%d revisions drawn, want the 4 that name an agent", n)
	}
	var m bytes.Buffer
	MarkdownReport(&m, r)
	for _, want := range []string{"## Agents\n\n| agent | revisions | last change | done | holds |\n", "| alpha | 3 | 2026-11-20 10:05 | 1 | 3 (expired) |\n", "| beta | 1 | 2026-11-20 10:02 | — | 2 (expired) |\n",
		"` 2026-11-20 10:03 · alpha · step 1: in\\_progress → completed"} {
		if !strings.Contains(m.String(), want) {
			t.Errorf("markdown report lacks %q", want)
		}
	}

	none := recorded(t)
	b.Reset()
	HTMLReport(&b, none)
	m.Reset()
	MarkdownReport(&m, none)
	if strings.Contains(b.String(), `id="agents"`) || strings.Contains(b.String(), "agent-lanes") || strings.Contains(m.String(), "## Agents") {
		t.Error("a report naming no agent has an agents section")
	}
}
