package cmd

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/share"
)

// claimOptions are the flags of the commands that claim a step.
type claimOptions struct {
	lease   string
	take    bool
	force   bool
	publish bool   // push the claim, and succeed only once the remote holds it
	remote  string // --remote: the git remote it is pushed to
	command string // the command, for messages: "plangit next --claim"
}

// leaseFor is the lease a claim asks for: --lease, else the project's
// claim_lease. It reads the project's config only: the change that
// follows opens the session.
func (f *Factory) leaseFor(flag string) (time.Duration, error) {
	if flag != "" {
		return plan.ParseLease(flag)
	}
	p, err := f.Project()
	if err != nil {
		return 0, err
	}
	cfg, err := p.Config()
	if err != nil {
		return 0, err
	}
	return cfg.Lease(), nil
}

func newCmdStepClaim(f *Factory) *cobra.Command {
	o := &claimOptions{}
	c := &cobra.Command{
		Use:   "claim ID",
		Short: "Claim a step for this agent, for a lease (starting it if pending); --take takes over an expired claim",
		Long: `Claim a step for the agent running plangit (--agent, $PLANGIT_AGENT, or its host's
name for it). While the lease lasts, no other agent changes the step; each change
the holder makes to it renews the lease, and so does its hooks' activity. A live
claim of another agent is refused with CLAIMED, naming it and when its lease
ends; one whose lease has ended is taken over with --take. The claim's fencing
token is printed: a change passing an older --token is refused.

With --publish, for agents on several machines: the claim is pushed to the
project's git remote (as plangit push does) before the command succeeds. When
another machine's claim of the step reached the remote first, the merge with it
voids this one, and the command fails with CLAIMED naming the holder and the
next ready step.`,
		Example: `  plangit step claim 3 --lease 30m
  plangit step claim 3 --take
  plangit step claim 3 --publish`,
		Args: stepArgs(1, "a step ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return claimRun(f, args[0], o)
		},
	}
	c.Flags().StringVar(&o.lease, "lease", "", "how long the claim holds without a renewal (default: claim_lease, 15m)")
	c.Flags().BoolVar(&o.take, "take", false, "take over a claim whose lease has ended")
	c.Flags().BoolVar(&o.force, "force", false, "start it even though steps it needs are not done")
	c.Flags().BoolVar(&o.publish, "publish", false, "push the claim to the project's git remote; it is yours once the remote holds it")
	c.Flags().StringVar(&o.remote, "remote", "", "with --publish: the git remote (default: push_remote, else the branch's upstream remote, else origin)")
	o.command = "plangit step claim"
	return c
}

// claimRun claims step id (next --claim: "" for the first claimable).
func claimRun(f *Factory, id string, o *claimOptions) error {
	agent, err := f.claimant()
	if err != nil {
		return err
	}
	var remote *share.Remote
	if o.publish {
		// The remote is found before anything is claimed: with none,
		// nothing changes.
		if _, remote, err = (&shareOptions{f: f, remote: o.remote}).open(o.command + " --publish"); err != nil {
			return err
		}
	}
	lease, err := f.leaseFor(o.lease)
	if err != nil {
		return err
	}
	var claimed string
	fn := func(st *plan.State) (plan.Change, error) {
		claimed = id
		now := f.Now()
		if id == "" {
			ready := st.Plan.Claimable(now)
			if len(ready) == 0 {
				return plan.Change{}, noClaimable(st.Plan, now)
			}
			claimed = ready[0].ID
		}
		return st.Plan.Claim(claimed, plan.ClaimOpts{Agent: agent, Lease: lease, Take: o.take, Force: o.force}, now)
	}
	human := func(w io.Writer, st *plan.State) {
		if s, _, _ := st.Plan.Step(claimed); s != nil && s.Claim != nil {
			fmt.Fprintf(w, "token: %d (pass --token %d with your changes to step %s)\n", s.Claim.Token, s.Claim.Token, s.ID)
		}
	}
	if remote == nil {
		if o.remote != "" {
			return usagef("--remote is for a published claim: --publish --remote %s", o.remote)
		}
		return f.applyChange(fn, human)
	}
	return f.publishClaim(remote, agent, fn, human, &claimed)
}

// publishedData is what a claim made with --publish prints with --json:
// the change, and where the remote holds it.
type publishedData struct {
	changeData
	Published published `json:"published"`
}

type published struct {
	Remote string `json:"remote"`
	Rev    string `json:"rev"`    // the session's revision the remote holds, with the claim
	Status string `json:"status"` // created, pushed, up-to-date, merged (with the remote's copy, then pushed)
}

// publishClaim makes the claim fn makes and pushes the session: it
// succeeds only once the remote holds the claim (share.PublishClaim).
func (f *Factory) publishClaim(r *share.Remote, agent string, fn func(*plan.State) (plan.Change, error), human func(io.Writer, *plan.State), claimed *string) error {
	s, res, err := f.update(fn)
	if err != nil {
		return err
	}
	step, _, err := res.State.Plan.Step(*claimed)
	if err != nil {
		return err
	}
	if step.Claim == nil || step.Claim.Agent != agent {
		return plan.Errorf(plan.CodeClaimed, "step %s holds no claim of %s after the claim", step.ID, agent).With("step", step.ID)
	}
	pushed, err := r.PublishClaim(s, share.Claimed{Step: step.ID, Agent: agent, Token: step.Claim.Token}, share.SyncOptions{Options: f.Options()})
	if err != nil {
		return err
	}
	if pushed.Err() != nil { // a merge's recorded conflicts: the claim stands on the remote
		fmt.Fprintf(f.IO.ErrOut, "plangit: warning: %s\n", render.Clean(pushed.Message))
	}
	d := publishedData{changeData: f.changeData(s, res), Published: published{Remote: r.Name, Rev: pushed.To, Status: pushed.Status}}
	return f.print(d, func(w io.Writer) {
		f.printChangeText(w, d.changeData, res, human)
		rev := pushed.To
		if len(rev) > 7 {
			rev = rev[:7]
		}
		if pushed.Merge != nil && pushed.Merge.Commit != nil {
			fmt.Fprintf(w, "published to %s (%s), merged with its copy: %s\n", r.Name, rev, render.Clean(pushed.Merge.Commit.Change.Summary))
		} else {
			fmt.Fprintf(w, "published to %s (%s)\n", r.Name, rev)
		}
	})
}

// tellVoided tells the agent the CLI acts for, once, of its claims that
// merges with a remote's copy voided (share.TakeVoided), each with the
// next step ready to claim.
func (f *Factory) tellVoided(s *repo.Session) {
	agent := f.Agent()
	if agent == "" || f.capture != nil {
		return
	}
	voided, err := share.TakeVoided(s, agent)
	if err != nil {
		fmt.Fprintln(f.IO.ErrOut, "plangit: warning:", render.Clean(err.Error()))
	}
	if len(voided) == 0 {
		return
	}
	var p *plan.Plan
	if st, err := s.State(); err == nil {
		p = st.Plan
	}
	for _, v := range voided {
		fmt.Fprintln(f.IO.ErrOut, "plangit:", render.Clean(share.VoidedNotice(v, p, f.Now())))
	}
}

// noClaimable is next --claim's error when no ready step is free.
func noClaimable(p *plan.Plan, now time.Time) error {
	ready := len(p.Ready())
	if ready > 0 {
		return plan.Errorf(plan.CodeInvalidStatus, "no ready step is free: the %d ready steps are claimed", ready).Hinted("plangit status lists the claims and when their leases end")
	}
	msg := "no step is ready to claim"
	if p.Complete() {
		c := p.Counts()
		msg += fmt.Sprintf("; the plan is complete (%d/%d steps done)", c.Done, c.Total)
	}
	return plan.Errorf(plan.CodeInvalidStatus, "%s", msg)
}

func newCmdStepRelease(f *Factory) *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:     "release ID",
		Short:   "Give up this agent's claim on a step: it goes back to pending for another agent",
		Example: `  plangit step release 3`,
		Args:    stepArgs(1, "a step ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return releaseRun(f, args[0], force)
		},
	}
	c.Flags().BoolVar(&force, "force", false, "release another agent's claim")
	return c
}

// releaseRun gives up the agent's claim on step id.
func releaseRun(f *Factory, id string, force bool) error {
	agent, err := f.claimant()
	if err != nil {
		return err
	}
	f.Force = force
	var none bool
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		c, err := st.Plan.Release(id, agent, force, f.Now())
		none = err == nil && c.Op == ""
		return c, err
	}, func(w io.Writer, st *plan.State) {
		if none {
			fmt.Fprintf(w, "step %s is not claimed\n", plan.NormalizeID(id))
		}
	})
}

// claimsData is what status --json says of the claims.
type claimsData struct {
	Live    []claimData `json:"live"`
	Expired []claimData `json:"expired"`
}

type claimData struct {
	Step         string    `json:"step"`
	Text         string    `json:"text"`
	Agent        string    `json:"agent"`
	Token        int       `json:"token"`
	Since        time.Time `json:"since"`
	Until        time.Time `json:"until"`
	LeaseSeconds int64     `json:"lease_seconds"`
	LeftSeconds  int64     `json:"left_seconds"`
}

// claimsOf sorts p's claims into live and expired ones at now.
func claimsOf(p *plan.Plan, now time.Time) claimsData {
	d := claimsData{Live: []claimData{}, Expired: []claimData{}}
	for _, s := range p.Claimed() {
		cl := s.Claim
		c := claimData{Step: s.ID, Text: s.Text, Agent: cl.Agent, Token: cl.Token, Since: cl.Since, Until: cl.Until,
			LeaseSeconds: int64(cl.Lease / time.Second), LeftSeconds: max(0, int64(cl.Until.Sub(now)/time.Second))}
		if cl.Live(now) {
			d.Live = append(d.Live, c)
		} else {
			d.Expired = append(d.Expired, c)
		}
	}
	return d
}

// printClaims writes the claims for a person, one line each.
func printClaims(w io.Writer, d claimsData, now time.Time) {
	for _, c := range d.Live {
		fmt.Fprintf(w, "claimed: step %s by %s since %s, lease %s left (token %d) — %s\n", c.Step, c.Agent, c.Since.Format(time.RFC3339), plan.FormatDuration(c.Until.Sub(now)), c.Token, plan.Clip(c.Text))
	}
	for _, c := range d.Expired {
		fmt.Fprintf(w, "expired: step %s by %s, lease ended %s ago (plangit step claim %s --take) — %s\n", c.Step, c.Agent, plan.FormatDuration(now.Sub(c.Until)), c.Step, plan.Clip(c.Text))
	}
}
