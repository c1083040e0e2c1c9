package history

import (
	"cmp"
	"slices"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// Agent is one agent's part in a session: the revisions that name it
// (their Plangit-Agent trailer), the steps it completed, the claims it
// holds in the plan, and its runs of steps along the time axis.
type Agent struct {
	Name      string    `json:"agent"`
	Revisions int       `json:"revisions"` // how many revisions name it
	First     time.Time `json:"first_change,omitzero"`
	Last      time.Time `json:"last_change,omitzero"`
	LastN     int       `json:"last_n,omitempty"` // the @N of its last revision
	LastRev   string    `json:"last_rev,omitempty"`
	// Done are the plan's completed steps whose completion it made, in
	// the order it made them.
	Done []AgentStep `json:"done"`
	// Held are the claims it holds in the plan, live and expired, in plan
	// order.
	Held []AgentClaim `json:"held"`
	// Spans are its runs of steps, in the order they began (Agents' rule).
	Spans []AgentSpan `json:"spans"`
}

// AgentStep is a step an agent completed: when, and in which revision.
type AgentStep struct {
	Step string    `json:"step"`
	Text string    `json:"text"`
	Time time.Time `json:"time"`
	N    int       `json:"n"`
}

// AgentClaim is a claim an agent holds, with whether its lease was live
// at the time asked.
type AgentClaim struct {
	Step  string    `json:"step"`
	Text  string    `json:"text"`
	Token int       `json:"token"`
	Since time.Time `json:"since"`
	Until time.Time `json:"until"` // when the lease ends
	Lease int64     `json:"lease_seconds"`
	Left  int64     `json:"left_seconds"` // of the lease, at the time asked; 0 once it ended
	Live  bool      `json:"live"`
}

// AgentSpan is one run of a step by an agent: from the revision that
// started or claimed it for the agent to the one that took it out of
// progress or handed it to another agent.
type AgentSpan struct {
	Step string    `json:"step"`
	Text string    `json:"text"`
	From time.Time `json:"from"`
	To   time.Time `json:"to,omitzero"` // zero while the run goes on
	// End is the status the step left progress for ("" while the run
	// goes on or when another agent took the step over: see Handed).
	End    plan.StepStatus `json:"end,omitempty"`
	Handed string          `json:"handed_to,omitempty"` // the agent that took it over
}

// Open reports whether the run goes on at the end of the history.
func (s AgentSpan) Open() bool { return s.To.IsZero() }

// Agents lists every agent named in the session's history or holding a
// claim in its plan, the most recently active first (Agent); now decides
// which claims are live.
func Agents(s *repo.Session, now time.Time) ([]Agent, error) {
	st, err := s.State()
	if err != nil {
		return nil, err
	}
	l, err := newLineage(s)
	if err != nil {
		return nil, err
	}
	return l.agents(st.Plan, now), nil
}

// agents is what each agent did in the lineage's revisions, by the
// steps of plan p, its claims live or not at now.
//
// A step's runs are read from the steps each revision records having
// touched, in the order they were made:
//
//  1. a revision naming agent A moves step S into progress → A's run of
//     S begins there (one that was open on S ends there);
//  2. a claim of S (op step.claim) by A while S is already in progress
//     and another agent's run of S is open → that run ends, handed to A,
//     and A's begins; a claim of S with no run open begins A's;
//  3. a revision moves S out of progress (completed, failed, skipped,
//     blocked, pending, removed) → the open run of S ends there, with
//     that status;
//  4. a run still open at the end goes on (To is zero).
//
// A revision naming no agent begins no run. A step counts as done by A
// when the plan has it completed and the latest revision that moved it
// to completed names A.
func (l *lineage) agents(p *plan.Plan, now time.Time) []Agent {
	by := map[string]*Agent{}
	get := func(name string) *Agent {
		a := by[name]
		if a == nil {
			a = &Agent{Name: name, Done: []AgentStep{}, Held: []AgentClaim{}, Spans: []AgentSpan{}}
			by[name] = a
		}
		return a
	}
	for _, r := range l.revs {
		if r.Agent == "" {
			continue
		}
		a := get(r.Agent)
		a.Revisions++
		if a.First.IsZero() || r.Time.Before(a.First) {
			a.First = r.Time
		}
		if !r.Time.Before(a.Last) {
			a.Last, a.LastN, a.LastRev = r.Time, r.N, r.Hash
		}
	}
	text := map[string]string{}
	for _, s := range p.Steps() {
		text[s.ID] = s.Text
	}
	type run struct {
		agent string
		i     int // in its agent's Spans
	}
	open := map[string]run{}
	end := func(step string, at time.Time, status plan.StepStatus, handed string) {
		if o, ok := open[step]; ok {
			sp := &by[o.agent].Spans[o.i]
			sp.To, sp.End, sp.Handed = at, status, handed
			delete(open, step)
		}
	}
	begin := func(step, agent string, at time.Time) {
		a := get(agent)
		a.Spans = append(a.Spans, AgentSpan{Step: step, Text: text[step], From: at})
		open[step] = run{agent, len(a.Spans) - 1}
	}
	completer := map[string]touch{}
	for _, x := range l.touches() {
		r, t := l.revs[x.rev], x.t
		switch {
		case t.To == plan.StepInProgress && t.From != plan.StepInProgress: // case 1
			end(x.step, r.Time, "", "")
			if r.Agent != "" {
				begin(x.step, r.Agent, r.Time)
			}
		case r.Op == "step.claim" && r.Agent != "" && t.From == t.To: // case 2
			if o, ok := open[x.step]; !ok || o.agent != r.Agent {
				end(x.step, r.Time, "", r.Agent)
				begin(x.step, r.Agent, r.Time)
			}
		case t.From == plan.StepInProgress && t.To != plan.StepInProgress: // case 3
			status := t.To
			if status == "" {
				status = "removed"
			}
			end(x.step, r.Time, status, "")
		}
		if t.To == plan.StepCompleted && t.From != plan.StepCompleted {
			completer[x.step] = x
		}
	}
	for _, s := range p.Steps() {
		if x, ok := completer[s.ID]; ok && s.Status == plan.StepCompleted && l.revs[x.rev].Agent != "" {
			r := l.revs[x.rev]
			a := get(r.Agent)
			a.Done = append(a.Done, AgentStep{Step: s.ID, Text: s.Text, Time: r.Time, N: r.N})
		}
		if c := s.Claim; c != nil {
			a := get(c.Agent)
			a.Held = append(a.Held, AgentClaim{Step: s.ID, Text: s.Text, Token: c.Token, Since: c.Since, Until: c.Until,
				Lease: int64(c.Lease / time.Second), Left: max(0, int64(c.Until.Sub(now)/time.Second)), Live: c.Live(now)})
		}
	}
	out := make([]Agent, 0, len(by))
	for _, a := range by {
		slices.SortStableFunc(a.Done, func(x, y AgentStep) int { return cmp.Or(x.Time.Compare(y.Time), cmp.Compare(x.N, y.N)) })
		out = append(out, *a)
	}
	slices.SortFunc(out, func(x, y Agent) int { return cmp.Or(y.Last.Compare(x.Last), cmp.Compare(x.Name, y.Name)) })
	return out
}
