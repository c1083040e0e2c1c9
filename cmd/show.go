package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/interop"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

type showOptions struct {
	f        *Factory
	All      bool
	Rev      string
	Step     string
	Statuses []plan.StepStatus
}

// NewCmdShow builds `plangit show`.
func NewCmdShow(f *Factory) *cobra.Command {
	o := &showOptions{f: f}
	var statuses string
	c := &cobra.Command{
		Use:   "show [STEP]",
		Short: "Show the plan (completed steps hidden unless --all), or one step with its history",
		Long: `show prints the plan: its header, its phases and their steps (completed ones hidden
unless --all), the step in progress and the next ready one.

show STEP prints one step with everything recorded about it and every revision that
changed it: when, by whom, and from what status to what. In a git project it adds what
the step's latest run changed in the project's files (diff --code STEP prints the diff):
each file with its lines added and deleted, who started the step, and the steps that ran
at the same time, whose work the diff may hold too.

--status keeps the steps in the given statuses (comma-separated: pending, in_progress,
completed, failed, skipped, blocked), with --json as {"steps", "total", "filtered"}.`,
		Example: `  plangit show
  plangit show --all --json
  plangit show --status pending,blocked
  plangit show 3
  plangit show --rev @3`,
		Args: func(c *cobra.Command, args []string) error {
			if err := rangeArgs(0, 1, "at most a STEP id")(c, args); err != nil || len(args) == 0 {
				return err
			}
			return asUsage(plan.CheckStepRef(args[0]))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Step = args[0]
			}
			if statuses != "" {
				var err error
				if o.Statuses, err = parseStatuses(statuses, "--status"); err != nil {
					return err
				}
			}
			if o.Step != "" && (o.Statuses != nil || o.All) {
				return usagef("show STEP shows one step; --status and --all are for the whole plan")
			}
			return showRun(o)
		},
	}
	c.Flags().BoolVarP(&o.All, "all", "a", false, "show completed steps too")
	c.Flags().StringVar(&o.Rev, "rev", "", "show the plan as it was at this revision (a hash, HEAD~N or @N)")
	c.Flags().StringVar(&statuses, "status", "", "only steps in these statuses, e.g. pending,blocked")
	return c
}

// parseStatuses reads a comma-separated list of step statuses, given as
// the input named input; "-" may stand for "_" (in-progress).
func parseStatuses(list, input string) ([]plan.StepStatus, error) {
	var out []plan.StepStatus
	for _, name := range strings.Split(list, ",") {
		name = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_")
		if name == "" {
			continue
		}
		st, ok := plan.ParseStepStatus(name)
		if !ok {
			return nil, usagef("unknown step status %q in %s; one of pending, in_progress, completed, failed, skipped, blocked", name, input)
		}
		if !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	if len(out) == 0 {
		return nil, usagef("%s needs at least one status, e.g. pending,blocked", input)
	}
	return out, nil
}

func showRun(o *showOptions) error {
	s, err := o.f.Session()
	if err != nil {
		return err
	}
	var (
		st  *plan.State
		rev string
	)
	if o.Rev != "" {
		st, rev, err = s.StateAt(o.Rev)
	} else if st, err = s.State(); err == nil {
		rev, err = s.Head()
	}
	if err == nil {
		err = o.f.applyRules(s, st)
	}
	if err != nil {
		return err
	}
	p := st.Plan
	if o.Step != "" {
		return showStep(o.f, s, st, rev, o.Step, o.Rev == "")
	}
	if o.Statuses != nil {
		steps := []*plan.Step{}
		for _, x := range p.Steps() {
			if slices.Contains(o.Statuses, x.Status) {
				steps = append(steps, x)
			}
		}
		data := map[string]any{"session": s.ID, "rev": rev, "steps": steps, "total": p.Counts().Total, "filtered": len(steps)}
		return o.f.print(data, func(w io.Writer) {
			render.Plan(w, p, render.PlanOptions{Statuses: o.Statuses, Style: o.f.Style()})
		})
	}
	data := map[string]any{"session": s.ID, "rev": rev, "plan": p, "counts": p.Counts(), "complete": p.Complete()}
	if len(st.Deliverable) > 0 {
		data["deliverable"] = string(st.Deliverable)
	}
	return o.f.print(data, func(w io.Writer) {
		render.Plan(w, p, render.PlanOptions{All: o.All, Deliverable: st.Deliverable, Style: o.f.Style()})
	})
}

// showStep prints one step with the revisions that changed it, up to rev;
// at the newest revision (newest), what its latest run changed in the
// project's files too.
func showStep(f *Factory, s *repo.Session, st *plan.State, rev, id string, newest bool) error {
	step, ph, err := st.Plan.Step(id)
	if err != nil {
		if plan.HasCode(err, plan.CodeStepNotFound) {
			if gone := goneStep(s, id, rev); gone != nil {
				return gone
			}
		}
		return err
	}
	events, err := history.StepHistory(s, step.ID, rev)
	if err != nil {
		return err
	}
	if events == nil {
		events = []history.StepEvent{}
	}
	data := map[string]any{"session": s.ID, "rev": rev, "step": step, "phase": map[string]string{"id": ph.ID, "title": ph.Title},
		"open_needs": orEmptyIDs(st.Plan.OpenNeeds(step)), "history": events}
	var code *history.CodeDiff
	var codeNote string
	if newest {
		code, codeNote = stepCode(s, step.ID)
	}
	if code != nil {
		data["code"] = code
	}
	if codeNote != "" {
		data["code_note"] = codeNote
	}
	return f.print(data, func(w io.Writer) {
		render.StepDetail(w, st.Plan, step, ph, events, f.Style())
		switch {
		case code != nil:
			render.StepCode(w, code, f.Style())
		case codeNote != "":
			fmt.Fprintf(w, "\nCode: %s\n", render.Clean(codeNote))
		}
	})
}

// NewCmdStatus builds `plangit status`.
func NewCmdStatus(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Say where the plan stands: progress, current and next step",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return statusRun(f)
		},
	}
}

// statusRun prints where the plan stands.
func statusRun(f *Factory) error {
	s, st, err := f.State()
	if err != nil {
		return err
	}
	rev, err := s.Head()
	if err != nil {
		return err
	}
	p := st.Plan
	data := map[string]any{
		"session": s.ID, "rev": rev, "title": p.Title, "goal": p.Goal, "status": p.Status, "counts": p.Counts(),
		"current": p.Current(), "ready": orEmpty(p.Ready()), "findings": len(st.Findings), "errors": len(st.Errors),
		"open_errors": len(st.Errors.Open()), "updated": p.Updated, "iterations": p.Iterations,
		"idle": p.Idle(), "complete": p.Complete(),
		// PlanManager's getPlanStatus progress: the fraction of the steps done.
		"progress": interop.PlanManagerProgress(p.Counts()),
	}
	if note := render.CompletedLine(p); note != "" {
		data["note"] = note
	}
	if len(st.Deliverable) > 0 {
		data["deliverable"] = string(st.Deliverable)
	}
	claims := claimsOf(p, f.Now())
	data["claims"] = claims
	return f.print(data, func(w io.Writer) {
		render.Status(w, st, f.Now(), f.Style())
		printClaims(w, claims, f.Now())
	})
}

func orEmptyIDs(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

func orEmpty(steps []*plan.Step) []*plan.Step {
	if steps == nil {
		return []*plan.Step{}
	}
	return steps
}

// NewCmdCurrent builds `plangit current`.
func NewCmdCurrent(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "current",
		Short: "Show the step in progress",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, st, err := f.State()
			if err != nil {
				return err
			}
			cur := st.Plan.Current()
			return f.print(map[string]any{"step": cur}, func(w io.Writer) {
				if cur == nil {
					fmt.Fprintln(w, "no step in progress; plangit next starts the next ready one")
					return
				}
				fmt.Fprintln(w, render.StepLine(st.Plan, cur))
			})
		},
	}
}

// NewCmdReady builds `plangit ready`.
func NewCmdReady(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "ready",
		Short: "List the steps ready to start (pending, with every need done)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, st, err := f.State()
			if err != nil {
				return err
			}
			ready := st.Plan.Ready()
			return f.print(map[string]any{"steps": orEmpty(ready), "count": len(ready)}, func(w io.Writer) { render.Ready(w, st.Plan, ready) })
		},
	}
}

// NewCmdNext builds `plangit next`.
func NewCmdNext(f *Factory) *cobra.Command {
	var also, claim bool
	co := &claimOptions{command: "plangit next --claim"}
	c := &cobra.Command{
		Use:   "next",
		Short: "Start the first ready step (with a step in progress, only with --also)",
		Long: `Start the first ready step. One step is in progress at a time: with a step in
progress, next refuses and names it — finish it first (step done), or start
another beside it on purpose with --also.

With --claim, for one of many agents on one plan: start the first ready step
no live claim holds and claim it for this agent (--agent, $PLANGIT_AGENT, or its
host's name), atomically — two agents never get one step. Steps in progress
elsewhere do not stop it. It prints the claim's fencing token.

With --claim --publish, for agents on several machines: the claim is pushed to
the project's git remote (as plangit push does) before next succeeds. When
another machine's claim of the step reached the remote first, the merge with it
voids this one, and next fails with CLAIMED naming the holder and the next
ready step; it claims nothing more.`,
		Example: `  plangit next
  plangit next --claim --lease 30m
  plangit next --claim --publish`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if claim {
				return claimRun(f, "", co)
			}
			if co.lease != "" {
				return usagef("--lease is for a claim: plangit next --claim --lease %s", co.lease)
			}
			if co.publish || co.remote != "" {
				return usagef("--publish and --remote are for a claim: plangit next --claim --publish")
			}
			return nextRun(f, also)
		},
	}
	c.Flags().BoolVar(&also, "also", false, "start the next ready step although one is in progress")
	c.Flags().BoolVar(&claim, "claim", false, "claim the first ready step no other agent holds, for this agent")
	c.Flags().StringVar(&co.lease, "lease", "", "with --claim: how long the claim holds without a renewal (default: claim_lease, 15m)")
	c.Flags().StringVar(&co.remote, "remote", "", "with --claim --publish: the git remote (default: push_remote, else the branch's upstream remote, else origin)")
	c.Flags().BoolVar(&co.publish, "publish", false, "with --claim: push the claim to the project's git remote; it is yours once the remote holds it")
	c.MarkFlagsMutuallyExclusive("also", "claim")
	return c
}

// nextRun starts the first ready step; with a step in progress, only when
// also says to start a second one.
func nextRun(f *Factory, also bool) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		if cur := st.Plan.Current(); cur != nil && !also {
			return plan.Change{}, &usageError{err: plan.Errorf(plan.CodeInvalidStatus,
				"step %s (%s) is in progress: finish it first (plangit step done %s --result \"...\"), or start the next ready step beside it with plangit next --also",
				cur.ID, clipText(cur.Text), cur.ID).With("step", cur.ID)}
		}
		ready := st.Plan.Ready()
		if len(ready) == 0 {
			msg := "no step is ready to start"
			if st.Plan.Complete() {
				c := st.Plan.Counts()
				msg += fmt.Sprintf("; the plan is complete (%d/%d steps done): plangit finish --result \"...\" records the result", c.Done, c.Total)
			} else if cur := st.Plan.Current(); cur != nil {
				msg += fmt.Sprintf("; step %s is in progress", cur.ID)
			}
			return plan.Change{}, plan.Errorf(plan.CodeInvalidStatus, "%s", msg)
		}
		return st.Plan.Transition(ready[0].ID, plan.ActStart, plan.TransitionOpts{}, f.Now())
	}, nil)
}

// goneStep is the error for a step the history has and the plan no longer
// does (removed, or rolled back past): it names the last revision that
// changed it. nil when the history never had it.
func goneStep(s *repo.Session, id, rev string) error {
	events, err := history.StepHistory(s, id, rev)
	if err != nil || len(events) == 0 {
		return nil
	}
	last := events[len(events)-1]
	id = plan.NormalizeID(id)
	return plan.Errorf(plan.CodeStepNotFound, "step %s is no longer in the plan: the last revision that changed it, @%d (%s), says %q; plangit log --step %s lists them all",
		id, last.N, last.Rev[:7], last.Summary, id).With("step", id).With("last_rev", last.Rev)
}
