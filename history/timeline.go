package history

import (
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// Span is one step's time in the plan: when it last started, when it
// finished, and how many times it was started.
type Span struct {
	Step     string          `json:"step"`
	Text     string          `json:"text"`
	Phase    string          `json:"phase"`
	Status   plan.StepStatus `json:"status"`
	Started  time.Time       `json:"started,omitzero"`
	Finished time.Time       `json:"finished,omitzero"`
	Duration time.Duration   `json:"duration_ns,omitempty"` // finished − started, when both are known
	Runs     int             `json:"runs"`                  // how many times it was started
	// StartedBy and FinishedBy say who started and who finished it
	// (repo.Revision.Who).
	StartedBy  string `json:"started_by,omitempty"`
	FinishedBy string `json:"finished_by,omitempty"`
}

// Timeline reads, from the status changes each commit records, when every
// step of the current plan started and finished, and who started and
// finished it; the times the plan itself records for a step, where it
// has them, stand over the revisions'. A reopened step's span is its latest run. Revisions
// merged in from another machine count as they were made, in time order.
func Timeline(s *repo.Session) ([]Span, error) {
	st, err := s.State()
	if err != nil {
		return nil, err
	}
	l, err := newLineage(s)
	if err != nil {
		return nil, err
	}
	spans := map[string]*Span{}
	for _, ph := range st.Plan.Phases {
		for _, step := range ph.Steps {
			spans[step.ID] = &Span{Step: step.ID, Text: step.Text, Phase: ph.ID, Status: step.Status}
		}
	}
	for _, x := range l.touches() {
		sp, t, r := spans[x.step], x.t, l.revs[x.rev]
		if sp == nil || t.From == t.To {
			continue
		}
		switch t.To {
		case plan.StepInProgress:
			sp.Started, sp.Finished, sp.StartedBy, sp.FinishedBy = r.Time, time.Time{}, r.Who(), ""
			sp.Runs++
		case plan.StepCompleted, plan.StepSkipped, plan.StepFailed:
			sp.Finished, sp.FinishedBy = r.Time, r.Who()
		case plan.StepPending, plan.StepBlocked:
			sp.Finished, sp.FinishedBy = time.Time{}, ""
			if t.To == plan.StepPending {
				sp.Started, sp.StartedBy = time.Time{}, ""
			}
		}
	}
	out := make([]Span, 0, len(spans))
	for _, step := range st.Plan.Steps() {
		sp := spans[step.ID]
		// The times the plan records for the step stand where it has them:
		// an undo, a rollback or a step revert gives a step back its times
		// from before, and an import keeps the source's; the revisions
		// that did so are not when the step ran.
		if !step.Started.IsZero() {
			sp.Started = step.Started
		}
		finished := step.Status.Resolved() || step.Status == plan.StepFailed
		switch {
		case finished && !step.Completed.IsZero():
			sp.Finished = step.Completed
		case !finished:
			sp.Finished, sp.FinishedBy = time.Time{}, ""
		}
		if step.Status == plan.StepPending {
			sp.Started, sp.StartedBy = time.Time{}, ""
		}
		if !sp.Started.IsZero() && !sp.Finished.IsZero() {
			sp.Duration = sp.Finished.Sub(sp.Started)
		}
		out = append(out, *sp)
	}
	return out, nil
}
