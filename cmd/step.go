package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
)

// NewCmdStep builds `plangit step` and its subcommands.
func NewCmdStep(f *Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "step",
		Short: "Add, change and complete steps",
		Long: `Steps move through pending → in_progress → completed (or failed, skipped, blocked).
A completed step goes back only through reopen or revert, which history records.`,
	}
	c.AddCommand(newCmdStepAdd(f))
	for _, a := range plan.Actions {
		c.AddCommand(newCmdStepTransition(f, a))
	}
	c.AddCommand(newCmdStepEdit(f), newCmdStepRm(f), newCmdStepProgress(f), newCmdStepRevert(f), newCmdStepClaim(f), newCmdStepRelease(f))
	return c
}

type stepAddOptions struct {
	f     *Factory
	spec  plan.StepSpec
	needs string
}

func newCmdStepAdd(f *Factory) *cobra.Command {
	o := &stepAddOptions{f: f}
	c := &cobra.Command{
		Use:   "add TEXT",
		Short: "Add a step (to the last phase unless --phase or --after)",
		Example: `  plangit step add "Write the cache tests" --phase Build --needs 3 --why "lock the behaviour down"
  plangit step add "Review the diff" --after 4`,
		Args: exactArgs(1, "the step's TEXT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.spec.Text = args[0]
			o.spec.Needs = plan.ParseNeeds(o.needs)
			if err := checkStepRefs("needs", o.spec.Needs...); err != nil {
				return err
			}
			if o.spec.After != "" {
				if err := checkStepRefs("after", o.spec.After); err != nil {
					return err
				}
			}
			return stepAddRun(f, o.spec)
		},
	}
	c.Flags().StringVar(&o.spec.Phase, "phase", "", "phase id or title")
	c.Flags().StringVar(&o.spec.After, "after", "", "insert after this step")
	c.Flags().StringVar(&o.needs, "needs", "", "steps this one needs, e.g. 1,2")
	c.Flags().StringVar(&o.spec.Why, "why", "", "the reasoning behind the step")
	c.Flags().StringVar(&o.spec.Active, "active", "", `the step in the present continuous ("Writing the tests")`)
	return c
}

// stepAddRun adds a step.
func stepAddRun(f *Factory, spec plan.StepSpec) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		hadPhases := len(st.Plan.Phases) > 0
		s, err := st.Plan.AddStep(spec, f.Now())
		if err != nil {
			return plan.Change{}, err
		}
		_, ph, _ := st.Plan.Step(s.ID)
		c := plan.Change{Op: "step.add", Step: s.ID, Summary: fmt.Sprintf("step %s: added to phase %s (%s)", s.ID, ph.ID, clipText(s.Text))}
		if !hadPhases {
			c.Summary += fmt.Sprintf("; the plan had no phase, so phase %s, %s, was made for it", ph.ID, ph.Title)
		}
		return c, nil
	}, nil)
}

func clipText(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return s
}

var actionHelp = map[plan.Action]struct{ short, example string }{
	plan.ActStart: {"Start a step (pending or blocked → in_progress)", "  plangit step start 3"},
	plan.ActDone:  {"Complete a step, with what it produced", `  plangit step done 3 --result "cache hit rate 94% in the benchmark"`},
	plan.ActFail: {"Fail a step: back to pending for a retry while it has had fewer than max_retries (3), then failed", `  plangit step fail 3 --reason "tests time out"
  plangit step fail 3 --reason "the API is gone" --no-retry`},
	plan.ActSkip:   {"Skip a step (it counts as done for the steps that need it)", `  plangit step skip 5 --reason "covered by 4"`},
	plan.ActBlock:  {"Mark a step blocked", `  plangit step block 4 --reason "waiting for the API key"`},
	plan.ActReopen: {"Put a step back to pending (undo a mistaken completion)", "  plangit step reopen 3"},
}

type transitionOptions struct {
	f    *Factory
	opts plan.TransitionOpts
}

func newCmdStepTransition(f *Factory, a plan.Action) *cobra.Command {
	o := &transitionOptions{f: f}
	help := actionHelp[a]
	c := &cobra.Command{
		Use:     string(a) + " ID",
		Short:   help.short,
		Example: help.example,
		Args:    stepArgs(1, "a step ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.Force = o.opts.Force
			return transitionRun(f, args[0], a, o.opts)
		},
	}
	switch a {
	case plan.ActDone:
		c.Flags().StringVar(&o.opts.Result, "result", "", "what completing the step produced")
		c.Flags().BoolVar(&o.opts.Force, "force", false, "complete it even though steps it needs are not done, or another agent holds it")
	case plan.ActStart:
		c.Flags().BoolVar(&o.opts.Force, "force", false, "start it even though steps it needs are not done, or another agent holds it")
	case plan.ActFail:
		c.Flags().StringVar(&o.opts.Reason, "reason", "", "why it failed")
		c.Flags().BoolVar(&o.opts.Retry, "retry", false, "retry even past max_retries")
		c.Flags().BoolVar(&o.opts.NoRetry, "no-retry", false, "fail outright, without a retry")
		c.MarkFlagsMutuallyExclusive("retry", "no-retry")
	case plan.ActSkip, plan.ActBlock:
		c.Flags().StringVar(&o.opts.Reason, "reason", "", "why")
	}
	if c.Flags().Lookup("force") == nil {
		c.Flags().BoolVar(&o.opts.Force, "force", false, "even though another agent holds it")
	}
	return c
}

// transitionRun moves a step through action a; completing or skipping one
// names the next ready step. A step already in the status a leads to is
// left as it is, and the command says so.
func transitionRun(f *Factory, id string, a plan.Action, opts plan.TransitionOpts) error {
	var already *plan.Step
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		already = nil
		c, err := st.Plan.Transition(id, a, opts, f.Now())
		if s, _, _ := st.Plan.Step(id); err == nil && c.Op == "" && s != nil && s.Status == a.Leads() {
			already = s
		}
		return c, err
	}, func(w io.Writer, st *plan.State) {
		if already != nil {
			fmt.Fprintf(w, "step %s is %s already\n", already.ID, already.Status)
		}
		if a == plan.ActDone || a == plan.ActSkip {
			if ready := st.Plan.Ready(); len(ready) > 0 {
				fmt.Fprintf(w, "next: %s\n", render.StepLine(st.Plan, ready[0]))
			}
		}
	})
}

func newCmdStepEdit(f *Factory) *cobra.Command {
	var text, needs, why, active string
	var force bool
	c := &cobra.Command{
		Use:     "edit ID",
		Short:   "Change a step's text, needs, reasoning or active form (a step in progress only with --force)",
		Example: `  plangit step edit 4 --text "Use the cache in UserService.GetUser" --needs 2,3`,
		Args:    stepArgs(1, "a step ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var e plan.StepEdit
			fl := cmd.Flags()
			if flagChanged(fl, "text") {
				e.Text = &text
			}
			if flagChanged(fl, "why") {
				e.Why = &why
			}
			if flagChanged(fl, "active") {
				e.Active = &active
			}
			if flagChanged(fl, "needs") {
				n := plan.ParseNeeds(needs)
				if err := checkStepRefs("needs", n...); err != nil {
					return err
				}
				e.Needs = &n
			}
			if e.Text == nil && e.Why == nil && e.Active == nil && e.Needs == nil {
				return usagef("say what to change: --text, --needs, --why or --active")
			}
			e.Force = force
			return stepEditRun(f, args[0], e)
		},
	}
	c.Flags().StringVar(&text, "text", "", "new text")
	c.Flags().StringVar(&needs, "needs", "", `the steps it needs, replacing the old list ("" for none)`)
	c.Flags().StringVar(&why, "why", "", "new reasoning")
	c.Flags().StringVar(&active, "active", "", "new active form")
	c.Flags().BoolVar(&force, "force", false, "change a step in progress")
	return c
}

// stepEditRun changes a step's text, needs, reasoning or active form.
func stepEditRun(f *Factory, id string, e plan.StepEdit) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		return st.Plan.EditStep(id, e, f.Now())
	}, nil)
}

func newCmdStepRm(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "rm ID",
		Short:   "Remove a pending step (others are kept as a record; skip them instead)",
		Example: "  plangit step rm 6",
		Args:    stepArgs(1, "a step ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return stepRmRun(f, args[0])
		},
	}
}

// stepRmRun removes a pending step.
func stepRmRun(f *Factory, id string) error {
	already := "" // a step the session had, and no longer has
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		already = ""
		c, err := st.Plan.RemoveStep(id, f.Now())
		if n := strings.TrimPrefix(strings.TrimSpace(id), "#"); plan.CodeOf(err) == plan.CodeStepNotFound && issuedID(n, st.Plan.Floor.Steps) {
			already = n
			return plan.Change{}, nil
		}
		return c, err
	}, func(w io.Writer, _ *plan.State) {
		if already != "" {
			fmt.Fprintf(w, "step %s is removed already\n", already)
		}
	})
}

func newCmdStepProgress(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "progress ID CURRENT/TOTAL",
		Short:   "Record progress within a step",
		Example: "  plangit step progress 3 2/5",
		Args:    stepArgs(2, "a step ID and CURRENT/TOTAL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			pr, err := plan.ParseProgress(args[1])
			if err != nil {
				return asUsage(err)
			}
			return stepProgressRun(f, args[0], pr)
		},
	}
}

// stepProgressRun records progress within a step.
func stepProgressRun(f *Factory, id string, pr plan.Progress) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		return st.Plan.SetProgress(id, pr, f.Now())
	}, nil)
}

// NewCmdPhase builds `plangit phase`.
func NewCmdPhase(f *Factory) *cobra.Command {
	c := &cobra.Command{Use: "phase", Short: "Add and edit phases"}
	c.AddCommand(newCmdPhaseEdit(f))
	var notes string
	add := &cobra.Command{
		Use:     "add NAME",
		Short:   "Add a phase at the end of the plan",
		Example: `  plangit phase add "Rollout" --notes "behind the cache_v2 flag"`,
		Args:    exactArgs(1, "the phase's NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return phaseAddRun(f, args[0], notes)
		},
	}
	add.Flags().StringVar(&notes, "notes", "", "notes shown under the phase heading")
	c.AddCommand(add)
	return c
}

// phaseAddRun adds a phase at the end of the plan.
func phaseAddRun(f *Factory, name, notes string) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		ph, err := st.Plan.AddPhase(name, notes, f.Now())
		if err != nil {
			return plan.Change{}, err
		}
		return plan.Change{Op: "phase.add", Summary: fmt.Sprintf("phase %s: added (%s)", ph.ID, clipText(ph.Title))}, nil
	}, nil)
}

func newCmdPhaseEdit(f *Factory) *cobra.Command {
	var title, notes, status, reason string
	c := &cobra.Command{
		Use:   "edit ID",
		Short: "Change a phase's title, notes or status",
		Long: `Change a phase's title or notes, or its status. A phase's status is its steps':
--status moves them — completed completes every step not yet done or skipped,
in_progress starts the phase's first ready step, pending puts every step back to
pending, blocked blocks every step not yet resolved (--reason says why).`,
		Example: `  plangit phase edit 2 --title "Build and test"
  plangit phase edit 2 --notes "behind the cache_v2 flag"
  plangit phase edit 2 --notes ""
  plangit phase edit 3 --status blocked --reason "waiting for the API review"`,
		Args: exactArgs(1, "a phase ID (or its title)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var e plan.PhaseEdit
			if flagChanged(cmd.Flags(), "title") {
				e.Title = &title
			}
			if flagChanged(cmd.Flags(), "notes") {
				e.Notes = &notes
			}
			if flagChanged(cmd.Flags(), "status") {
				st, err := plan.ParsePhaseStatus(status)
				if err != nil {
					return asUsage(err)
				}
				e.Status, e.Reason = &st, reason
			} else if reason != "" {
				return usagef("--reason goes with --status blocked")
			}
			if e.Title == nil && e.Notes == nil && e.Status == nil {
				return usagef("say what to change: --title, --notes or --status")
			}
			return phaseEditRun(f, args[0], e)
		},
	}
	c.Flags().StringVar(&title, "title", "", "new title")
	c.Flags().StringVar(&notes, "notes", "", `new notes, shown under the phase heading ("" for none)`)
	c.Flags().StringVar(&status, "status", "", "pending, in_progress, completed or blocked: moves the phase's steps")
	c.Flags().StringVar(&reason, "reason", "", "with --status blocked: why")
	return c
}

// stepArgs checks a command's arguments, of which the first is a step id:
// a malformed id is a usage error, not a step that is not found.
func stepArgs(n int, what string) cobra.PositionalArgs {
	count := exactArgs(n, what)
	return func(c *cobra.Command, args []string) error {
		if err := count(c, args); err != nil {
			return err
		}
		return asUsage(plan.CheckStepRef(args[0]))
	}
}

// checkStepRefs refuses malformed step ids given to a flag (--step 3,
// --needs 1,2): a usage error naming the flag.
func checkStepRefs(flag string, ids ...string) error {
	for _, id := range ids {
		if err := plan.CheckStepRef(id); err != nil {
			return usagef("--%s: %s", flag, err.Error())
		}
	}
	return nil
}

// phaseEditRun changes a phase's title, notes or status.
func phaseEditRun(f *Factory, id string, e plan.PhaseEdit) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		return st.Plan.EditPhase(id, e, f.Now())
	}, nil)
}
