package history

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
)

// as makes one change as agent ("" for none), a minute after the last.
func (s *session) as(agent string, fn func(p *plan.Plan, now time.Time) (plan.Change, error)) {
	s.t.Helper()
	o := s.opts()
	o.Agent = agent
	if _, err := s.Update(o, func(st *plan.State) (plan.Change, error) { return fn(st.Plan, o.Now) }); err != nil {
		s.t.Fatal(err)
	}
}

func claim(id, agent string, lease time.Duration, take bool) func(p *plan.Plan, now time.Time) (plan.Change, error) {
	return func(p *plan.Plan, now time.Time) (plan.Change, error) {
		return p.Claim(id, plan.ClaimOpts{Agent: agent, Lease: lease, Take: take}, now)
	}
}

func move(id string, a plan.Action) func(p *plan.Plan, now time.Time) (plan.Change, error) {
	return func(p *plan.Plan, now time.Time) (plan.Change, error) {
		return p.Transition(id, a, plan.TransitionOpts{Force: true}, now)
	}
}

// agentsSession is three agents on a plan of four steps: alpha completes
// step 1 and step 3 (which someone then reopens) and holds step 4 past its
// lease; beta's claim of step 2 runs out and gamma takes it over and
// completes it.
func agentsSession(t *testing.T) *session {
	s := newSession(t, 4)
	s.as("alpha", claim("1", "alpha", 15*time.Minute, false)) // @2 10:01
	s.as("beta", claim("2", "beta", 2*time.Minute, false))    // @3 10:02, lease to 10:04
	s.as("alpha", move("1", plan.ActDone))                    // @4 10:03
	s.as("", move("3", plan.ActStart))                        // @5 10:04
	s.as("alpha", move("3", plan.ActDone))                    // @6 10:05
	s.as("", move("3", plan.ActReopen))                       // @7 10:06
	s.as("gamma", claim("2", "gamma", 15*time.Minute, true))  // @8 10:07
	s.as("gamma", move("2", plan.ActDone))                    // @9 10:08
	s.as("alpha", claim("4", "alpha", time.Minute, false))    // @10 10:09, lease to 10:10
	return s
}

func at(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }

func TestAgents(t *testing.T) {
	t.Parallel()
	s := agentsSession(t)
	agents, err := Agents(s.Session, at(20))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range agents {
		var done, held, spans []string
		for _, d := range a.Done {
			done = append(done, fmt.Sprintf("%s@%d", d.Step, d.N))
		}
		for _, c := range a.Held {
			held = append(held, fmt.Sprintf("%s live=%v token=%d", c.Step, c.Live, c.Token))
		}
		for _, sp := range a.Spans {
			to := "…"
			if !sp.Open() {
				to = sp.To.Format("15:04")
			}
			spans = append(spans, fmt.Sprintf("%s %s→%s %s%s", sp.Step, sp.From.Format("15:04"), to, sp.End, sp.Handed))
		}
		got = append(got, fmt.Sprintf("%s revs=%d last=@%d %s done=[%s] held=[%s] spans=[%s]", a.Name, a.Revisions, a.LastN, a.Last.Format("15:04"),
			strings.Join(done, " "), strings.Join(held, " "), strings.Join(spans, "; ")))
	}
	want := []string{
		"alpha revs=4 last=@10 10:09 done=[1@4] held=[4 live=false token=4] spans=[1 10:01→10:03 completed; 4 10:09→… ]",
		"gamma revs=2 last=@9 10:08 done=[2@9] held=[] spans=[2 10:07→10:08 completed]",
		"beta revs=1 last=@3 10:02 done=[] held=[] spans=[2 10:02→10:07 gamma]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("agents:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if a := agents[0]; !a.First.Equal(at(1)) || a.LastRev == "" {
		t.Errorf("alpha: first %v, last rev %q", a.First, a.LastRev)
	}
	// While alpha's lease on step 4 lasts, its claim is live.
	if agents, err := Agents(s.Session, at(9).Add(30*time.Second)); err != nil || !agents[0].Held[0].Live || agents[0].Held[0].Left != 30 {
		t.Errorf("alpha's claim at 10:09:30: %+v %v", agents[0].Held, err)
	}

	// The report reads the same, up to its revision.
	r, err := Collect(s.Session, "@8", at(20))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Agents) != 3 || r.Agents[0].Name != "gamma" || len(r.Agents[0].Spans) != 1 || !r.Agents[0].Spans[0].Open() || len(r.Agents[1].Done) != 1 {
		t.Errorf("report's agents at @8: %+v", r.Agents)
	}
}

func TestAgentsNone(t *testing.T) {
	t.Parallel()
	s := newSession(t, 2)
	s.step("1", plan.ActDone)
	agents, err := Agents(s.Session, at(5))
	if err != nil || agents == nil || len(agents) != 0 {
		t.Fatalf("%+v %v", agents, err)
	}
	r, err := Collect(s.Session, "", at(5))
	if err != nil || len(r.Agents) != 0 {
		t.Fatalf("report's agents: %+v %v", r.Agents, err)
	}
}

// TestAgentInHistory: the agent of a revision shows in blame and in a
// step's history, beside the actor.
func TestAgentInHistory(t *testing.T) {
	t.Parallel()
	s := agentsSession(t)
	lines, err := Blame(s.Session)
	if err != nil {
		t.Fatal(err)
	}
	if l := lines[0]; l.Agent != "alpha" || l.Who != "alpha" || l.N != 4 {
		t.Errorf("blame of step 1: %+v", l)
	}
	if l := lines[2]; l.Agent != "" || l.Who != "agent" || l.N != 7 {
		t.Errorf("blame of step 3: %+v", l)
	}
	events, err := StepHistory(s.Session, "2", "")
	if err != nil {
		t.Fatal(err)
	}
	var who []string
	for _, e := range events {
		who = append(who, fmt.Sprintf("@%d %s/%s", e.N, e.Agent, e.Who))
	}
	if got, want := strings.Join(who, " "), "@1 /agent @3 beta/beta @8 gamma/gamma @9 gamma/gamma"; got != want {
		t.Errorf("step 2's history: %s, want %s", got, want)
	}
	revs, err := Log(s.Session, LogOptions{N: 1})
	if err != nil || revs[0].Agent != "alpha" || revs[0].Who() != "alpha" {
		t.Errorf("log: %+v %v", revs, err)
	}

	// A claim's change reads in the semantic diff: made, taken over, ended.
	for _, c := range []struct{ a, b, want string }{
		{"@2", "@3", "step 2 claimed by beta (token 2, lease until 2026-11-20T10:04:00Z)"},
		{"@7", "@8", "step 2 claim taken over by gamma from beta (token 3, lease until 2026-11-20T10:22:00Z)"},
		{"@8", "@9", "step 2 claim of gamma ended"},
	} {
		d, err := Between(s.Session, c.a, c.b)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ch := range d.Changes {
			got = append(got, ch.Detail)
		}
		if !slices.Contains(got, c.want) {
			t.Errorf("diff %s %s: %q, want %q among them", c.a, c.b, got, c.want)
		}
	}
}
