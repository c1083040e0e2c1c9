package history

import (
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// BlameLine says, for one step, which revision last changed it, when, by
// whom, and what changed.
type BlameLine struct {
	Step   string          `json:"step"`
	Text   string          `json:"text"`
	Status plan.StepStatus `json:"status"`
	Rev    string          `json:"rev"`
	N      int             `json:"n"`
	Time   time.Time       `json:"time"`
	Actor  string          `json:"actor"`
	What   string          `json:"what"`
}

// Blame finds, for every step of the current plan, the revision that last
// changed it, from the steps each commit records having touched. What
// changed is worked out by diffing only those revisions.
func Blame(s *repo.Session) ([]BlameLine, error) {
	st, err := s.State()
	if err != nil {
		return nil, err
	}
	revs, err := s.Revisions()
	if err != nil {
		return nil, err
	}
	last := map[string]repo.Revision{}
	for _, r := range revs {
		for _, t := range r.Touches {
			last[t.Step] = r
		}
	}
	diffs := map[string][]Change{} // by revision
	var out []BlameLine
	for _, step := range st.Plan.Steps() {
		r, ok := last[step.ID]
		line := BlameLine{Step: step.ID, Text: step.Text, Status: step.Status}
		if !ok {
			line.What = "not changed by any revision (a hand edit not yet adopted?)"
			out = append(out, line)
			continue
		}
		line.Rev, line.N, line.Time, line.Actor = r.Hash, r.N, r.Time, r.Actor
		cs, seen := diffs[r.Hash]
		if !seen {
			cs = revisionChanges(s, r)
			diffs[r.Hash] = cs
		}
		var what []string
		for _, c := range changesForStep(cs, step.ID) {
			if c.Action == "status" {
				what = append(what, "status "+arrow(c.From, c.To))
				continue
			}
			what = append(what, strings.TrimPrefix(c.Detail, "step "+step.ID+" "))
		}
		if len(what) == 0 {
			what = []string{r.Summary}
		}
		line.What = strings.Join(what, "; ")
		out = append(out, line)
	}
	return out, nil
}

// revisionChanges is the semantic diff a revision made; nil when it cannot
// be read.
func revisionChanges(s *repo.Session, r repo.Revision) []Change {
	after, err := s.StateOf(r.Hash)
	if err != nil {
		return nil
	}
	before := &plan.State{Plan: &plan.Plan{}}
	if r.Parent != "" {
		if before, err = s.StateOf(r.Parent); err != nil {
			return nil
		}
	}
	return SemanticDiff(before, after)
}
