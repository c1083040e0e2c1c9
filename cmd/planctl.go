package cmd

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
)

// NewCmdPause builds `plangit pause`.
func NewCmdPause(f *Factory) *cobra.Command {
	var reason string
	c := &cobra.Command{
		Use:     "pause",
		Short:   "Pause the plan; steps cannot change until resume",
		Example: `  plangit pause --reason "waiting for review"`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return pauseRun(f, reason)
		},
	}
	c.Flags().StringVar(&reason, "reason", "", "why")
	return c
}

// NewCmdResume builds `plangit resume`.
func NewCmdResume(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "resume",
		Short: "Resume a paused plan and print where it stands",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return resumeRun(f)
		},
	}
}

// NewCmdApprove builds `plangit approve`.
func NewCmdApprove(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "approve",
		Short: "Approve a plan that awaits approval, so work can start",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return approveRun(f)
		},
	}
}

// NewCmdAbort builds `plangit abort`.
func NewCmdAbort(f *Factory) *cobra.Command {
	var reason string
	c := &cobra.Command{
		Use:     "abort --reason TEXT",
		Short:   "End the plan as failed",
		Example: `  plangit abort --reason "the API we depend on is being removed"`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if reason == "" {
				return usagef("say why: plangit abort --reason \"...\"")
			}
			return abortRun(f, reason)
		},
	}
	c.Flags().StringVar(&reason, "reason", "", "why the plan is abandoned (required)")
	return c
}

// NewCmdFinish builds `plangit finish`.
func NewCmdFinish(f *Factory) *cobra.Command {
	var result string
	var force bool
	c := &cobra.Command{
		Use:     "finish --result TEXT",
		Short:   "Complete the plan with its final result",
		Example: `  plangit finish --result "GetUser is cached; p99 down from 40ms to 3ms"`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return finishRun(f, result, force)
		},
	}
	c.Flags().StringVar(&result, "result", "", "the final result")
	c.Flags().BoolVar(&force, "force", false, "finish even though steps are not done")
	return c
}

// NewCmdReset builds `plangit reset`.
func NewCmdReset(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "reset",
		Short: "Put every step back to pending and the plan back to running (history keeps the rest)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return resetRun(f)
		},
	}
}

// resetRun puts every step back to pending. Its --json data carries
// reset_tasks, the number of steps reset (every step; none when the plan
// stood reset already), as PlanManager's resetPlan answers (seed 002,
// 3.4: {"message": "Plan reset successfully", "reset_tasks": 5}).
func resetRun(f *Factory) error {
	s, res, err := f.update(func(st *plan.State) (plan.Change, error) { return st.Plan.Reset(f.Now()), nil })
	if err != nil {
		return err
	}
	d := f.changeData(s, res)
	n := 0 // a plan already reset is no change
	if d.Changed {
		n = res.State.Plan.Counts().Total
	}
	d.ResetTasks = &n
	return f.print(d, func(w io.Writer) { f.printChangeText(w, d, res, nil) })
}

// pauseRun pauses the plan.
func pauseRun(f *Factory, reason string) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		return st.Plan.Pause(reason, f.Now())
	}, nil)
}

// resumeRun resumes a paused plan and says where it stands.
func resumeRun(f *Factory) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		return st.Plan.Resume(f.Now())
	}, func(w io.Writer, st *plan.State) {
		fmt.Fprint(w, render.Summary(st))
	})
}

// approveRun approves a plan that awaits approval.
func approveRun(f *Factory) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		return st.Plan.Approve(f.Now())
	}, nil)
}

// abortRun ends the plan as failed.
func abortRun(f *Factory, reason string) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		return st.Plan.Abort(reason, f.Now())
	}, nil)
}

// finishRun completes the plan with its final result.
func finishRun(f *Factory, result string, force bool) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		return st.Plan.Finish(result, force, f.Now())
	}, nil)
}
