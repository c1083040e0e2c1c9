package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
)

type showOptions struct {
	f   *Factory
	All bool
	Rev string
}

// NewCmdShow builds `plangit show`.
func NewCmdShow(f *Factory) *cobra.Command {
	o := &showOptions{f: f}
	c := &cobra.Command{
		Use:   "show",
		Short: "Show the plan (completed steps hidden unless --all)",
		Example: `  plangit show
  plangit show --all --json
  plangit show --rev @3`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error { return showRun(o) },
	}
	c.Flags().BoolVarP(&o.All, "all", "a", false, "show completed steps too")
	c.Flags().StringVar(&o.Rev, "rev", "", "show the plan as it was at this revision (a hash, HEAD~N or @N)")
	return c
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
	if err != nil {
		return err
	}
	return o.f.print(map[string]any{"session": s.ID, "rev": rev, "plan": st.Plan, "counts": st.Plan.Counts()}, func(w io.Writer) {
		render.Plan(w, st.Plan, render.PlanOptions{All: o.All, Style: o.f.Style()})
	})
}

// NewCmdStatus builds `plangit status`.
func NewCmdStatus(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Say where the plan stands: progress, current and next step",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
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
				"updated": p.Updated, "iterations": p.Iterations,
			}
			return f.print(data, func(w io.Writer) { render.Status(w, st, f.Now(), f.Style()) })
		},
	}
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
			return f.print(map[string]any{"steps": orEmpty(ready)}, func(w io.Writer) { render.Ready(w, st.Plan, ready) })
		},
	}
}

// NewCmdNext builds `plangit next`.
func NewCmdNext(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "next",
		Short: "Start the first ready step",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.applyChange(func(st *plan.State) (plan.Change, error) {
				ready := st.Plan.Ready()
				if len(ready) == 0 {
					msg := "no step is ready to start"
					if c := st.Plan.Counts(); c.Total > 0 && c.Done == c.Total {
						msg += "; every step is done: plangit finish --result \"...\""
					} else if cur := st.Plan.Current(); cur != nil {
						msg += fmt.Sprintf("; step %s is in progress", cur.ID)
					}
					return plan.Change{}, plan.Errorf(plan.CodeInvalidStatus, "%s", msg)
				}
				return st.Plan.Transition(ready[0].ID, plan.ActStart, plan.TransitionOpts{}, f.Now())
			}, nil)
		},
	}
}
