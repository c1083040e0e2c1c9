package share

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/disk"
)

// Claims across machines. A claim is a change like any other: it travels
// by push and fetch, and between two machines that claimed one step the
// remote's atomic ref update decides. The merge of a divergence keeps the
// claim of the remote's side, which the remote received first, and voids
// the other (plan.Merge's mergeClaim, with the remote's side published);
// the merge revision says so in its summary. Each voided claim is noted in
// the session's voided record (.git/plangit/voided, one line "STEP TOKEN
// AGENT HOLDER" a claim) until its agent is told (TakeVoided).

// Claimed is a claim an agent made and wants the remote to hold.
type Claimed struct {
	Step  string
	Agent string
	Token int
}

// PublishClaim pushes the session after c's claim was made (as Push does:
// a divergence is merged with the remote's copy and the merge pushed, a
// few times if other pushes overtake it) and tells whether the remote now
// holds the claim. It returns the push's result, and:
//
//  1. nil when the remote holds a revision in which c's claim stands; the
//     result may still carry a merge's recorded conflicts (its Err).
//  2. CLAIMED when the merge with the remote's copy voided the claim (or
//     the remote's copy ended it otherwise): the session holds that merge,
//     on the remote too when its push went through; the error names the
//     holder and the next step ready to claim, and the claim's notice in
//     the voided record is taken, since the error tells it.
//  3. the push's error when the claim is here but the remote does not
//     hold it (no network, a remote that refused, a race lost three times).
func (r *Remote) PublishClaim(s *repo.Session, c Claimed, o SyncOptions) (SyncResult, error) {
	res := r.Push([]string{s.ID}, o)[0]
	st, err := s.State()
	if err != nil {
		return res, err
	}
	held := false
	step, _, _ := st.Plan.Step(c.Step)
	if step != nil && step.Claim != nil {
		held = step.Claim.Agent == c.Agent && step.Claim.Token == c.Token
	}
	head, _ := s.Head()
	published := res.Status == "created" || res.Status == "pushed" || res.Status == "up-to-date" || res.Published
	switch {
	case held && published:
		return res, nil
	case held:
		cause := res.err
		if cause == nil {
			cause = errors.New(res.Status)
		}
		return res, plan.WrapError(plan.CodeOf(cause), cause, "step %s is claimed here (%s), but %s does not hold the claim: %v", c.Step, shortRev(head), r.Name, cause).
			With("step", c.Step).With("session", s.ID).With("rev", head).
			Hinted("plangit push --session %s publishes it once %s can be reached; plangit step release %s gives it up", s.ID, r.Name, c.Step)
	}
	dropVoided(s, c)
	var why string
	holder := ""
	switch {
	case step == nil:
		why = fmt.Sprintf("step %s is gone from %s's plan, and your claim on it (token %d) with it", c.Step, r.Name, c.Token)
	case step.Claim != nil:
		holder = step.Claim.Agent
		why = fmt.Sprintf("step %s was claimed on %s first, by %s: your claim (token %d) is voided", c.Step, r.Name, holder, c.Token)
	default:
		why = fmt.Sprintf("step %s changed on %s meanwhile (it is %s) and your claim on it (token %d) is void", c.Step, r.Name, step.Status, c.Token)
	}
	where := "here only: plangit push publishes it"
	if res.Published {
		where = "on " + r.Name + " too"
	}
	next := NextReady(st.Plan, o.Time())
	e := plan.Errorf(plan.CodeClaimed, "%s; session %s holds the merge with %s (%s), %s; %s", why, s.ID, r.Name, shortRev(head), where, next).
		With("step", c.Step).With("session", s.ID).With("rev", head).With("published", res.Published)
	if holder != "" {
		e.With("holder", holder)
	}
	if ready := st.Plan.Claimable(o.Time()); len(ready) > 0 {
		e.With("next", ready[0].ID).Hinted("plangit step claim %s --publish claims it, or plangit next --claim --publish the first free one", ready[0].ID)
	}
	return res, e
}

// NextReady says, for a message, which step is the next to claim in p at
// now: "next ready: step 5 (Write the tests)", or that none is; with no
// plan to read (nil), where to look.
func NextReady(p *plan.Plan, now time.Time) string {
	if p == nil {
		return "plangit status shows what is ready"
	}
	if ready := p.Claimable(now); len(ready) > 0 {
		return fmt.Sprintf("next ready: step %s (%s)", ready[0].ID, plan.Clip(ready[0].Text))
	}
	if p.Complete() {
		return "no step is left to claim: the plan is complete"
	}
	return "no step is ready to claim now"
}

// VoidedNotice is what an agent is told of its claim a merge voided, with
// the next step it may claim in p at now: "your claim on step 3 was
// voided: B's claim reached the remote first; next ready: step 5 (…)".
func VoidedNotice(v plan.VoidedClaim, p *plan.Plan, now time.Time) string {
	return fmt.Sprintf("your claim on step %s (token %d) was voided: %s's claim reached the remote first; %s", v.Step, v.Token, v.Holder, NextReady(p, now))
}

// noteVoided adds a merge's voided claims to the session's voided record.
// It runs under the session lock, after the merge landed.
func noteVoided(s *repo.Session, voided []plan.VoidedClaim) error {
	if len(voided) == 0 {
		return nil
	}
	var b strings.Builder
	for _, v := range voided {
		fmt.Fprintf(&b, "%s %d %s %s\n", v.Step, v.Token, v.Agent, v.Holder)
	}
	return s.AppendPrivate(disk.VoidedFile, []byte(b.String()))
}

// TakeVoided returns the claims of agent that merges voided and no one
// has told it of yet, oldest first, and removes them from the session's
// voided record: each is told once. A command run as agent tells them
// (VoidedNotice); the hooks may tell them in their answer the same way.
// A session with no voided record costs one failed stat.
func TakeVoided(s *repo.Session, agent string) ([]plan.VoidedClaim, error) {
	return takeVoided(s, func(v plan.VoidedClaim) bool { return v.Agent == agent })
}

// dropVoided removes c's notice from the voided record: the error that
// says the claim is void tells it.
func dropVoided(s *repo.Session, c Claimed) {
	takeVoided(s, func(v plan.VoidedClaim) bool { return v.Agent == c.Agent && v.Step == c.Step && v.Token == c.Token })
}

// takeVoided removes the voided record's lines that take, under the
// session lock, and returns them.
func takeVoided(s *repo.Session, take func(plan.VoidedClaim) bool) ([]plan.VoidedClaim, error) {
	path := s.PrivatePath(disk.VoidedFile)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var out []plan.VoidedClaim
	err := s.Locked(0, func() error {
		b, err := disk.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return plan.WrapError(plan.CodeIOError, err, "cannot read %s", path)
		}
		var keep strings.Builder
		for _, line := range strings.Split(string(b), "\n") {
			v, ok := parseVoided(line)
			switch {
			case !ok:
				// a torn or empty line: dropped
			case take(v):
				out = append(out, v)
			default:
				keep.WriteString(line + "\n")
			}
		}
		if len(out) == 0 {
			return nil
		}
		if keep.Len() == 0 {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return plan.WrapError(plan.CodeIOError, err, "cannot remove %s", path)
			}
			return nil
		}
		return s.WritePrivate(disk.VoidedFile, []byte(keep.String()))
	})
	return out, err
}

// parseVoided reads a line of the voided record: "STEP TOKEN AGENT HOLDER".
func parseVoided(line string) (plan.VoidedClaim, bool) {
	f := strings.Fields(line)
	if len(f) != 4 {
		return plan.VoidedClaim{}, false
	}
	token, err := strconv.Atoi(f[1])
	if err != nil || plan.ValidAgent(f[2]) != nil || plan.ValidAgent(f[3]) != nil {
		return plan.VoidedClaim{}, false
	}
	return plan.VoidedClaim{Step: f[0], Token: token, Agent: f[2], Holder: f[3]}, true
}

func shortRev(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
