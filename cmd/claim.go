package cmd

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/plan"
)

// claimOptions are the flags of the commands that claim a step.
type claimOptions struct {
	lease string
	take  bool
	force bool
}

// leaseFor is the lease a claim asks for: --lease, else the project's
// claim_lease.
func (f *Factory) leaseFor(flag string) (time.Duration, error) {
	if flag != "" {
		return plan.ParseLease(flag)
	}
	s, err := f.Session()
	if err != nil {
		return 0, err
	}
	cfg, err := s.Project.Config()
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
token is printed: a change passing an older --token is refused.`,
		Example: `  plangit step claim 3 --lease 30m
  plangit step claim 3 --take`,
		Args: stepArgs(1, "a step ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return claimRun(f, args[0], o)
		},
	}
	c.Flags().StringVar(&o.lease, "lease", "", "how long the claim holds without a renewal (default: claim_lease, 15m)")
	c.Flags().BoolVar(&o.take, "take", false, "take over a claim whose lease has ended")
	c.Flags().BoolVar(&o.force, "force", false, "start it even though steps it needs are not done")
	return c
}

// claimRun claims step id (next --claim: "" for the first claimable).
func claimRun(f *Factory, id string, o *claimOptions) error {
	agent, err := f.claimant()
	if err != nil {
		return err
	}
	lease, err := f.leaseFor(o.lease)
	if err != nil {
		return err
	}
	var claimed string
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
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
	}, func(w io.Writer, st *plan.State) {
		if s, _, _ := st.Plan.Step(claimed); s != nil && s.Claim != nil {
			fmt.Fprintf(w, "token: %d (pass --token %d with your changes to step %s)\n", s.Claim.Token, s.Claim.Token, s.ID)
		}
	})
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
	Step string `json:"step"`
	Text string `json:"text"`
	*plan.Claim
	LeftSeconds int64 `json:"left_seconds"`
}

// claimsOf sorts p's claims into live and expired ones at now.
func claimsOf(p *plan.Plan, now time.Time) claimsData {
	d := claimsData{Live: []claimData{}, Expired: []claimData{}}
	for _, s := range p.Claimed() {
		c := claimData{Step: s.ID, Text: s.Text, Claim: s.Claim, LeftSeconds: max(0, int64(s.Claim.Until.Sub(now)/time.Second))}
		if s.Claim.Live(now) {
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
