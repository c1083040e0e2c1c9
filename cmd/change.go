package cmd

import (
	"fmt"
	"io"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/interop"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// changeData is what a change prints with --json.
type changeData struct {
	Session string          `json:"session"`
	Rev     string          `json:"rev"`
	Changed bool            `json:"changed"`
	Change  *plan.Change    `json:"change,omitempty"`
	Adopted *repo.Commit    `json:"adopted,omitempty"`
	Stale   *repo.Stale     `json:"stale,omitempty"`
	Since   *repo.Stale     `json:"since,omitempty"`
	Status  plan.PlanStatus `json:"plan_status"`
	Counts  plan.Counts     `json:"counts"`
	Step    *plan.Step      `json:"step,omitempty"`
	// Complete says the plan's steps are all done and it awaits finish;
	// Note says so in words.
	Complete bool   `json:"complete,omitempty"`
	Note     string `json:"note,omitempty"`
	// Format and Dropped are an import's: the format read, and what the
	// source held that plangit did not keep.
	Format  string            `json:"format,omitempty"`
	Dropped []interop.Dropped `json:"dropped,omitzero"`
	// Tracked is the tasks file the session tracks since the import: its
	// ticked boxes are steps done (hooks.TrackTasks).
	Tracked string `json:"tracked,omitempty"`
	// ResetTasks is reset's: the steps put back to pending (PlanManager's
	// resetPlan reset_tasks).
	ResetTasks *int `json:"reset_tasks,omitempty"`
}

// applyChange runs fn as one change of the current session and prints what
// it did: the change's summary and revision, and the step it concerns.
// human, if set, prints more after the summary.
func (f *Factory) applyChange(fn func(*plan.State) (plan.Change, error), human func(io.Writer, *plan.State)) error {
	s, res, err := f.update(fn)
	if err != nil {
		return err
	}
	return f.printChange(s, res, human)
}

// update runs fn as one change of the current session, the plan given
// the project's rules.
func (f *Factory) update(fn func(*plan.State) (plan.Change, error)) (*repo.Session, *repo.Result, error) {
	s, err := f.Session()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := s.Project.Config()
	if err != nil {
		return nil, nil, err
	}
	res, err := s.Update(f.Options(), func(st *plan.State) (plan.Change, error) {
		st.Plan.Rules = cfg.Rules()
		return fn(st)
	})
	return s, res, err
}

func (f *Factory) printChange(s *repo.Session, res *repo.Result, human func(io.Writer, *plan.State)) error {
	d := f.changeData(s, res)
	return f.print(d, func(w io.Writer) { f.printChangeText(w, d, res, human) })
}

// changeData is what a change did, as --json prints it.
func (f *Factory) changeData(s *repo.Session, res *repo.Result) changeData {
	st := res.State
	d := changeData{Session: s.ID, Status: st.Plan.Status, Counts: st.Plan.Counts(), Adopted: res.Adopted, Stale: res.Stale, Since: res.Since,
		Complete: st.Plan.Complete(), Note: render.CompletedLine(st.Plan)}
	switch {
	case res.Commit != nil:
		d.Rev, d.Changed, d.Change = res.Commit.Hash, true, &res.Commit.Change
		if id := res.Commit.Change.Step; id != "" {
			d.Step, _, _ = st.Plan.Step(id)
		}
	case res.Adopted != nil:
		d.Rev = res.Adopted.Hash
	default:
		d.Rev, _ = s.Head()
	}
	return d
}

// printChangeText writes what a change did for a person: the adopted hand
// edit, the change's summary and revision, the step it concerns, then what
// human adds.
func (f *Factory) printChangeText(w io.Writer, d changeData, res *repo.Result, human func(io.Writer, *plan.State)) {
	st := res.State
	if res.Adopted != nil {
		fmt.Fprintf(w, "%s (%s)\n", res.Adopted.Change.Summary, res.Adopted.Hash[:7])
		if res.Since != nil {
			fmt.Fprintln(w, render.SinceLine(res.Since))
		}
	}
	if res.Stale != nil {
		fmt.Fprintln(w, render.StaleLine(res.Stale))
	}
	if res.Commit != nil {
		fmt.Fprintf(w, "%s (%s)\n", res.Commit.Change.Summary, res.Commit.Hash[:7])
		if d.Step != nil && d.Step.Status != plan.StepCompleted {
			fmt.Fprintf(w, "  %s\n", render.StepLine(st.Plan, d.Step))
		}
	} else if res.Adopted != nil {
		fmt.Fprintln(w, "nothing else changed") // the hand edit above was committed
	} else {
		fmt.Fprintln(w, "nothing changed")
	}
	if human != nil {
		human(w, st)
	}
	if d.Note != "" {
		fmt.Fprintln(w, d.Note)
	}
}
