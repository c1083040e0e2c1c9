package plan

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Claims let many agents work on one plan: an agent claims a step before
// it works on it, for a lease, and no other agent changes the step while
// the lease lasts. The rule, on every change a session commits (Fence):
//
//  1. A step no one claims takes any change.
//  2. A step whose claim is live (its lease has not ended) takes changes
//     from its holder only; another agent's change is refused with
//     CLAIMED naming the holder, unless the change says Force.
//  3. A step whose claim has expired takes anyone's change; claiming it
//     anew takes --take (Claim with Take), so no one takes it by accident.
//  4. A change that carries a fencing token (Fence.Token) older than the
//     token of a step's current claim is refused with CLAIMED, expired or
//     not: its agent lost the claim while it was away.
//  5. A change the holder makes to its step renews the lease: the claim
//     runs until the change's time plus the lease.
//  6. A claim holds a step in progress only: a step that leaves
//     in_progress (done, failed, skipped, released) is no one's.
//
// A claim's token is the plan's claim counter (Plan.Claims) when it was
// made: it only grows, so a later claim always has the larger token.

// Claim is an agent's hold on a step.
type Claim struct {
	Agent string        `json:"agent"`
	Token int           `json:"token"`
	Since time.Time     `json:"since"`
	Until time.Time     `json:"until"` // when the lease ends
	Lease time.Duration `json:"-"`     // how far a renewal moves Until
}

// MarshalJSON writes the claim with its lease in seconds.
func (c *Claim) MarshalJSON() ([]byte, error) {
	type claim Claim
	return json.Marshal(struct {
		*claim
		Lease int64 `json:"lease_seconds"`
	}{(*claim)(c), int64(c.Lease / time.Second)})
}

// Live reports whether the claim's lease has not ended at now.
func (c *Claim) Live(now time.Time) bool { return c != nil && now.Before(c.Until) }

// String is the claim as task_plan.md writes it on the step's claim line.
func (c *Claim) String() string {
	return fmt.Sprintf("%s token:%d lease:%s since:%s until:%s", c.Agent, c.Token, LeaseString(c.Lease), formatTime(c.Since), formatTime(c.Until))
}

// LeaseString writes a lease exactly, as ParseLease reads it: 15m, 1h30m,
// 90s as 1m30s.
func LeaseString(d time.Duration) string {
	h, m, sec := int(d/time.Hour), int(d/time.Minute)%60, int(d/time.Second)%60
	var b strings.Builder
	if h > 0 {
		fmt.Fprintf(&b, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&b, "%dm", m)
	}
	if sec > 0 || b.Len() == 0 {
		fmt.Fprintf(&b, "%ds", sec)
	}
	return b.String()
}

// parseClaim reads a claim line's value (Claim.String).
func parseClaim(v string) (*Claim, error) {
	f := strings.Fields(v)
	if len(f) != 5 {
		return nil, fmt.Errorf("the claim line is \"AGENT token:N lease:15m since:TIME until:TIME\"; found %q", Clip(v))
	}
	c := &Claim{Agent: f[0]}
	if err := ValidAgent(c.Agent); err != nil {
		return nil, err
	}
	for _, kv := range f[1:] {
		k, v, _ := strings.Cut(kv, ":")
		var err error
		ok := true
		switch k {
		case "token":
			c.Token, err = strconv.Atoi(v)
			ok = err == nil && c.Token > 0
		case "lease":
			c.Lease, err = ParseLease(v)
			ok = err == nil
		case "since":
			c.Since, ok = parseTime(v)
		case "until":
			c.Until, ok = parseTime(v)
		default:
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf("bad field %q on the claim line (AGENT token:N lease:15m since:TIME until:TIME)", Clip(kv))
		}
	}
	return c, nil
}

// Lease bounds: a lease shorter than a second cannot be acted on, and one
// longer than a day is no lease.
const (
	MinLease     = time.Second
	MaxLease     = 24 * time.Hour
	DefaultLease = 15 * time.Minute
)

// ParseLease reads a lease: a duration such as 90s, 15m or 2h, between
// MinLease and MaxLease.
func ParseLease(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		if n, nerr := strconv.Atoi(s); nerr == nil {
			d, err = time.Duration(n)*time.Second, nil
		}
	}
	if err != nil {
		return 0, Errorf(CodeInvalidArgument, "lease %q is not a duration", Clip(s)).Hinted("write it as 90s, 15m or 2h")
	}
	if d < MinLease || d > MaxLease {
		return 0, Errorf(CodeInvalidArgument, "lease %s is out of range: a lease is from %s to %s", s, LeaseString(MinLease), LeaseString(MaxLease)).Hinted("15m is the default")
	}
	return d.Truncate(time.Second), nil
}

// ValidAgent checks an agent's name: 1 to 100 characters of letters,
// digits and . _ - : @ +, starting with a letter or a digit, as the hosts'
// own ids and names are (claude:9f2c…, codex:019a…, reviewer@laptop).
func ValidAgent(name string) error {
	ok := name != "" && len(name) <= 100
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case i > 0 && strings.ContainsRune("._-:@+", r):
		default:
			ok = false
		}
	}
	if !ok {
		return Errorf(CodeInvalidAgent, "agent name %q is not one plangit takes: 1 to 100 letters, digits and . _ - : @ +, starting with a letter or digit", Clip(name)).
			Hinted("name the agent with --agent or PLANGIT_AGENT, e.g. --agent reviewer-1")
	}
	return nil
}

// ClaimOpts say who claims a step, for how long, and whether an expired
// claim is taken over.
type ClaimOpts struct {
	Agent string
	Lease time.Duration // zero: DefaultLease
	Take  bool          // take over a claim whose lease has ended
	Force bool          // start the step even though steps it needs are not done
}

// Claim claims step id for o.Agent, starting it if it is pending: a new
// claim, with the next token; the holder's own claim is renewed; another
// agent's is refused while it is live, and taken only with o.Take once it
// has expired.
func (p *Plan) Claim(id string, o ClaimOpts, now time.Time) (Change, error) {
	if err := ValidAgent(o.Agent); err != nil {
		return Change{}, err
	}
	if err := p.requireRunning(); err != nil {
		return Change{}, err
	}
	s, _, err := p.Step(id)
	if err != nil {
		return Change{}, err
	}
	if err := s.settled(); err != nil {
		return Change{}, err
	}
	now = Stamp(now)
	lease := o.Lease
	if lease == 0 {
		lease = DefaultLease
	}
	if s.Status != StepPending && s.Status != StepInProgress {
		return Change{}, Errorf(CodeInvalidStatus, "step %s is %s: only a pending or in-progress step can be claimed", s.ID, s.Status).With("step", s.ID)
	}
	held := s.Claim
	switch {
	case held != nil && held.Agent == o.Agent:
		held.Until, held.Lease = now.Add(lease), lease
		p.Touch(now)
		return Change{Op: "step.claim", Step: s.ID, Summary: fmt.Sprintf("step %s: claim of %s renewed until %s", s.ID, o.Agent, formatTime(held.Until))}, nil
	case held.Live(now):
		e := claimedError(s, now).Hinted("pick another step: plangit next --claim")
		if o.Take {
			e = e.Hinted("--take takes only a claim whose lease has ended; pick another step: plangit next --claim")
		}
		return Change{}, e
	case held != nil && !o.Take:
		return Change{}, Errorf(CodeClaimed, "step %s was claimed by %s, whose lease ended at %s", s.ID, held.Agent, formatTime(held.Until)).
			With("step", s.ID).With("holder", held.Agent).Hinted("take it over with plangit step claim %s --take", s.ID)
	}
	summary := fmt.Sprintf("step %s: claimed by %s", s.ID, o.Agent)
	if held != nil {
		summary = fmt.Sprintf("step %s: claim taken over by %s (%s's lease ended %s)", s.ID, o.Agent, held.Agent, formatTime(held.Until))
	}
	if s.Status == StepPending {
		if !o.Force {
			if err := p.checkNeeds(s); err != nil {
				return Change{}, err
			}
		}
		s.Status, s.Started, s.Completed, s.Reason = StepInProgress, now, time.Time{}, ""
		summary = fmt.Sprintf("step %s: pending → in_progress, claimed by %s", s.ID, o.Agent)
	}
	p.Claims++
	s.Claim = &Claim{Agent: o.Agent, Token: p.Claims, Since: now, Until: now.Add(lease), Lease: lease}
	p.Touch(now)
	summary += fmt.Sprintf(" (lease %s, token %d)", LeaseString(lease), p.Claims)
	return Change{Op: "step.claim", Step: s.ID, Summary: summary}, nil
}

// Release gives up agent's claim on step id: the step goes back to
// pending, for another agent to claim. A step no one claims is left as
// it is (no change); another agent's claim is refused unless force.
func (p *Plan) Release(id, agent string, force bool, now time.Time) (Change, error) {
	if err := ValidAgent(agent); err != nil {
		return Change{}, err
	}
	if err := p.requireRunning(); err != nil {
		return Change{}, err
	}
	s, _, err := p.Step(id)
	if err != nil {
		return Change{}, err
	}
	held := s.Claim
	if held == nil {
		return Change{}, nil
	}
	if held.Agent != agent && !force {
		return Change{}, Errorf(CodeClaimed, "step %s is claimed by %s, not by %s: only its holder releases it", s.ID, held.Agent, agent).
			With("step", s.ID).With("holder", held.Agent).Hinted("a claim whose lease has ended is taken with plangit step claim %s --take", s.ID)
	}
	now = Stamp(now)
	s.Claim = nil
	summary := fmt.Sprintf("step %s: released by %s", s.ID, agent)
	if held.Agent != agent {
		summary = fmt.Sprintf("step %s: %s's claim released by %s", s.ID, held.Agent, agent)
	}
	if s.Status == StepInProgress {
		s.Status, s.Started = StepPending, time.Time{}
		summary = fmt.Sprintf("step %s: in_progress → pending, released by %s", s.ID, agent)
	}
	p.Touch(now)
	return Change{Op: "step.release", Step: s.ID, Summary: summary}, nil
}

// Claimable returns the ready steps no live claim holds, in plan order.
func (p *Plan) Claimable(now time.Time) []*Step {
	var out []*Step
	for _, s := range p.Ready() {
		if !s.Claim.Live(now) {
			out = append(out, s)
		}
	}
	return out
}

// Claimed returns the steps with a claim, live or expired, in plan order.
func (p *Plan) Claimed() []*Step {
	var out []*Step
	for _, s := range p.Steps() {
		if s.Claim != nil {
			out = append(out, s)
		}
	}
	return out
}

// Held returns the steps agent holds a live claim on.
func (p *Plan) Held(agent string, now time.Time) []*Step {
	var out []*Step
	for _, s := range p.Steps() {
		if s.Claim.Live(now) && s.Claim.Agent == agent {
			out = append(out, s)
		}
	}
	return out
}

func claimedError(s *Step, now time.Time) *Error {
	c := s.Claim
	return Errorf(CodeClaimed, "step %s is claimed by %s until %s (%s left)", s.ID, c.Agent, formatTime(c.Until), FormatDuration(c.Until.Sub(now))).
		With("step", s.ID).With("holder", c.Agent).With("until", formatTime(c.Until)).With("token", c.Token)
}

// Fence is who makes a change, as the claims see it: the agent, the
// fencing token it carries (0: none) and whether it overrides a live
// claim.
type Fence struct {
	Agent string
	Token int
	Force bool
}

// Fenced applies the claims' rule (cases 1 to 6 above) to a change from
// before to after: it refuses a change to a step another agent holds, or
// made with an older token than the step's claim, and otherwise renews
// the leases of the holder's changed steps and ends the claims of steps
// no longer in progress, in after.
func Fenced(before, after *Plan, f Fence, now time.Time) error {
	if before == nil || after == nil {
		return nil
	}
	now = Stamp(now)
	was := map[string]*Step{}
	for _, s := range before.Steps() {
		if s.Claim != nil {
			was[s.ID] = s
		}
	}
	if len(was) > 0 {
		for _, d := range DiffSteps(before, after) {
			old := was[d.ID]
			if old == nil || d.Kind == StepAdded {
				continue
			}
			c := old.Claim
			if f.Token > 0 && f.Token < c.Token {
				return Errorf(CodeClaimed, "step %s was claimed again since token %d: %s holds it now, with token %d", d.ID, f.Token, c.Agent, c.Token).
					With("step", d.ID).With("holder", c.Agent).With("token", c.Token).Hinted("read the plan again (plangit status); your claim on step %s is gone", d.ID)
			}
			if c.Agent != f.Agent && c.Live(now) && !f.Force {
				return claimedError(old, now).Hinted("only its holder changes it while the lease lasts; --force overrides")
			}
		}
	}
	for _, s := range after.Steps() {
		c := s.Claim
		switch {
		case c == nil:
		case s.Status != StepInProgress:
			s.Claim = nil
		case c.Agent == f.Agent && was[s.ID] != nil && !sameStep(was[s.ID], s) && c.Until.Before(now.Add(c.Lease)):
			c.Until = now.Add(c.Lease)
		}
	}
	return nil
}

// sameStep reports whether two versions of a step differ in no field but
// their claims' ends.
func sameStep(a, b *Step) bool {
	return len(changedFields(a, b)) == 0 && a.Claim.same(b.Claim)
}

// same reports whether two claims are one claim (agent and token), its
// lease's end aside.
func (c *Claim) same(o *Claim) bool {
	if c == nil || o == nil {
		return c == o
	}
	return c.Agent == o.Agent && c.Token == o.Token
}

// AgentName makes an agent's name from what a host says of it — its name,
// then ids such as its session's or a subagent's ("claude", "9f2c…") —
// joined by ":", each character plangit does not take in a name made a
// "-", clipped to 100 characters; "" when there is nothing to name.
func AgentName(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(':')
		}
		for _, r := range p {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@+", r) {
				b.WriteRune(r)
			} else {
				b.WriteByte('-')
			}
		}
	}
	name := strings.TrimLeft(b.String(), "._-:@+")
	if len(name) > 100 {
		name = name[:100]
	}
	return name
}
