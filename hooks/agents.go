package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render/brief"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/share"
)

// Many agents on one plan. Every event comes from an agent, named as the
// claims know it (agent): PLANGIT_AGENT in the hook's environment, else
// the host's own names — "claude:SESSION" for a main agent,
// "claude:TYPE:ID" for a subagent (the payload's agent_type and
// agent_id). A subagent's name is its own even under PLANGIT_AGENT,
// which its shell shares with its parent: "NAME:TYPE:ID".
//
// A host session works on another session's plan when PLANGIT_PLAN in
// its environment names one, or plangit attach recorded one for it
// (disk.Attached): its hooks then open that plan (planFor), and the
// changes they make are its agent's. The host's shell gives a subagent
// nothing of its own (Claude Code runs its Bash commands with the
// parent's environment), so the hooks tell it its name, for --agent.

// planFor is the session whose plan the host session works on: the one
// PLANGIT_PLAN names, else the one it is attached to, when that session
// exists; "" for the host session's own.
func (e *engine) planFor() string {
	var ids []string
	if e.env.Getenv != nil {
		ids = append(ids, e.env.Getenv("PLANGIT_PLAN"))
	}
	ids = append(ids, e.proj.Attached(e.in.SessionID))
	for _, id := range ids {
		if id == "" || id == e.in.SessionID || repo.ValidateSessionID(id) != nil {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(e.proj.PlansDir(), id)); err == nil && fi.IsDir() {
			return id
		}
	}
	return ""
}

// agent is the name of the agent the event comes from.
func (e *engine) agent() string {
	if e.in.Agent == "" {
		e.in.Agent = e.agentName()
	}
	return e.in.Agent
}

// agentName names the agent from the host's payload and the hook's
// environment.
func (e *engine) agentName() string {
	base := ""
	if e.env.Getenv != nil {
		if a := e.env.Getenv("PLANGIT_AGENT"); a != "" && plan.ValidAgent(a) == nil {
			base = a
		}
	}
	host := e.in.Host
	if host == "" {
		host = "agent"
	}
	switch {
	case e.in.AgentID != "" && base != "":
		return plan.AgentName(base, e.in.AgentType, e.in.AgentID)
	case e.in.AgentID != "":
		return plan.AgentName(host, e.in.AgentType, e.in.AgentID)
	case base != "":
		return base
	}
	return plan.AgentName(host, e.hostSession())
}

// hostSession is the host's session id, whichever plan the event works
// on.
func (e *engine) hostSession() string {
	if e.in.HostSession != "" {
		return e.in.HostSession
	}
	return e.in.SessionID
}

// claimParts are what an agent is told of the plan's claims, each once a
// turn: a subagent its own name, for the commands it runs; on a plan with
// claims, the steps it holds first, then who holds the others. A nil p
// is a plan without claims.
func (e *engine) claimParts(p *plan.Plan, now time.Time) []hookwire.Part {
	var parts []hookwire.Part
	me := e.agent()
	if e.in.AgentID != "" && me != "" {
		parts = append(parts, hookwire.Part{Key: hookwire.SubagentKey(e.in.AgentID), Text: fmt.Sprintf("[plangit] You work on this plan as agent %s: pass --agent %s to plangit (step claim, next --claim, step done); your shell names your parent's agent.", me, me)})
	}
	if p == nil {
		return parts
	}
	claimed := p.Claimed()
	if len(claimed) == 0 {
		return parts
	}
	var own, others []string
	for _, s := range claimed {
		c := s.Claim
		left := "expired"
		if c.Live(now) {
			left = plan.FormatDuration(c.Until.Sub(now)) + " left"
		}
		if c.Agent == me {
			if c.Live(now) {
				own = append(own, fmt.Sprintf("%s %s (token %d, %s)", s.ID, clip(s.Text), c.Token, left))
			}
			continue
		}
		others = append(others, fmt.Sprintf("step %s: %s (%s)", s.ID, c.Agent, left))
	}
	var lines []string
	if len(own) > 0 {
		lines = append(lines, "Your step: "+strings.Join(own, "; "))
	}
	if len(others) > 0 {
		lines = append(lines, "Claimed by others: "+strings.Join(others, ", "))
	}
	if len(lines) > 0 {
		head := "[plangit] Claims on this plan (you are " + me + "; leave others' steps to their holders):"
		parts = append(parts, hookwire.Part{Key: hookwire.ClaimsKey(me, claimKey(claimed)), Text: head + "\n" + brief.Data(strings.Join(lines, "\n"))})
	}
	return parts
}

// claimKey names the claims of steps, each step's holder and token, for
// the glance (hookwire.Glance.ClaimKey) and the key of what an agent is
// told of them.
func claimKey(steps []*plan.Step) string {
	var key strings.Builder
	for _, s := range steps {
		fmt.Fprintf(&key, "%s=%s/%d;", s.ID, s.Claim.Agent, s.Claim.Token)
	}
	return key.String()
}

// ownLeft are the steps a stop holds the agent on, in a plan with
// claims: the unfinished steps it holds a live claim on, and for a
// subagent those it started too. ok is false in a plan without claims,
// where the stop gate is as it always was.
func (e *engine) ownLeft(p *plan.Plan, hs *state, now time.Time) (left []*plan.Step, ok bool) {
	if len(p.Claimed()) == 0 {
		return nil, false
	}
	seen := map[string]bool{}
	for _, s := range p.Held(e.agent(), now) {
		if !s.Status.Resolved() {
			left, seen[s.ID] = append(left, s), true
		}
	}
	if e.in.AgentID != "" {
		for _, id := range hs.Agents[e.in.AgentID] {
			if s, _, err := p.Step(id); err == nil && !s.Status.Resolved() && !seen[s.ID] {
				left = append(left, s)
			}
		}
	}
	return left, true
}

// renew renews the leases of the claims the event's agent holds in st,
// without a commit (repo's lease.go): a tool use is its agent at work.
func (e *engine) renew(s *repo.Session, st *plan.State) {
	if e.replaying() || st == nil || len(st.Plan.Claimed()) == 0 {
		return
	}
	if _, err := s.RenewLeases(st, e.agent(), e.env.Now()); err != nil {
		e.proj.AppendLog(e.env.Now(), fmt.Sprintf("hook %s session=%s: renewing leases: %v", e.in.Event, s.ID, err))
	}
}

// glanceClaims are claimParts for an event answered from the glance g:
// the plan is read only when it has claims. It returns the text to say,
// first, "" for none.
func (e *engine) glanceClaims(s *repo.Session, g *hookwire.Glance, t *hookwire.Turn) string {
	if e.replaying() || g.Claims == 0 && e.in.AgentID == "" {
		return ""
	}
	var p *plan.Plan
	if g.Claims > 0 {
		st, err := s.State()
		if err != nil {
			e.proj.AppendLog(e.env.Now(), fmt.Sprintf("hook %s session=%s: reading the claims: %v", e.in.Event, s.ID, err))
			return ""
		}
		p = st.Plan
	}
	parts := e.claimParts(p, e.env.Now())
	if me := e.agent(); me != "" && p != nil {
		// A merge voided this agent's claim: it hears so once, with the
		// next ready step (share.TakeVoided takes the notice).
		voided, err := share.TakeVoided(s, me)
		if err != nil {
			e.proj.AppendLog(e.env.Now(), fmt.Sprintf("hook %s session=%s: reading the voided claims: %v", e.in.Event, s.ID, err))
		}
		for _, v := range voided {
			parts = append([]hookwire.Part{{Key: fmt.Sprintf("voided %s %d", v.Step, v.Token), Text: "[plangit] " + share.VoidedNotice(v, p, e.env.Now())}}, parts...)
		}
	}
	return e.say(s, t, parts)
}
