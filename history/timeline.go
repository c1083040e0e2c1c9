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
}

// Timeline reads, from the status changes each commit records, when every
// step of the current plan started and finished. A reopened step's span is
// its latest run.
func Timeline(s *repo.Session) ([]Span, error) {
	st, err := s.State()
	if err != nil {
		return nil, err
	}
	revs, err := s.Revisions()
	if err != nil {
		return nil, err
	}
	spans := map[string]*Span{}
	for _, ph := range st.Plan.Phases {
		for _, step := range ph.Steps {
			spans[step.ID] = &Span{Step: step.ID, Text: step.Text, Phase: ph.ID, Status: step.Status}
		}
	}
	for _, r := range revs {
		for _, t := range r.Touches {
			sp := spans[t.Step]
			if sp == nil || t.From == t.To {
				continue
			}
			switch t.To {
			case plan.StepInProgress:
				sp.Started, sp.Finished = r.Time, time.Time{}
				sp.Runs++
			case plan.StepCompleted, plan.StepSkipped, plan.StepFailed:
				sp.Finished = r.Time
			case plan.StepPending, plan.StepBlocked:
				sp.Finished = time.Time{}
				if t.To == plan.StepPending {
					sp.Started = time.Time{}
				}
			}
		}
	}
	out := make([]Span, 0, len(spans))
	for _, step := range st.Plan.Steps() {
		sp := spans[step.ID]
		if !sp.Started.IsZero() && !sp.Finished.IsZero() {
			sp.Duration = sp.Finished.Sub(sp.Started)
		}
		out = append(out, *sp)
	}
	return out, nil
}
