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
	Author repo.Person     `json:"author,omitzero"`
	Actor  string          `json:"actor"`
	Agent  string          `json:"agent,omitempty"` // the agent named, if one was
	Who    string          `json:"who"`             // the person and the actor, for people: "Ann Lee (agent)"
	What   string          `json:"what"`
}

// Blame finds, for every step of the current plan, the revision whose
// change of it stands in the plan, from the steps each commit records
// having touched; through a merge it follows the side whose version the
// merge kept (lineage.lastChange). What changed is worked out by diffing
// only those revisions.
func Blame(s *repo.Session) ([]BlameLine, error) {
	st, err := s.State()
	if err != nil {
		return nil, err
	}
	l, err := newLineage(s)
	if err != nil {
		return nil, err
	}
	last := l.lastChange(st.Plan.Steps(), nil)
	diffs := map[string][]Change{} // by revision
	var out []BlameLine
	for _, step := range st.Plan.Steps() {
		i, ok := last[step.ID]
		line := BlameLine{Step: step.ID, Text: step.Text, Status: step.Status}
		if !ok {
			line.What = "not changed by any revision (a hand edit not yet adopted?)"
			out = append(out, line)
			continue
		}
		r := l.revs[i]
		line.Rev, line.N, line.Time, line.Author, line.Actor, line.Agent, line.Who = r.Hash, r.N, r.Time, r.Author, r.Actor, r.Agent, r.Who()
		cs, seen := diffs[r.Hash]
		if !seen {
			cs = revisionChanges(s, r)
			diffs[r.Hash] = cs
		}
		local := l.local(i, step.ID)
		var what []string
		for _, c := range changesForStep(cs, local) {
			if c.Action == "status" {
				what = append(what, "status "+arrow(c.From, c.To))
				continue
			}
			what = append(what, strings.TrimPrefix(c.Detail, "step "+local+" "))
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
