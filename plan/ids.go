package plan

import "strconv"

// Ids are never given twice inside a session, across undo, rollback and
// hand edits. The files' own counters (next-step, next-finding,
// next-error) go back with the files, so the ids the session's history
// issued are the floor: repo keeps them (one cache beside the history)
// and gives them to every change's plan as Plan.Floor. AddStep,
// State.AddFinding and State.RecordError issue ids above the floor, and
// so does a merge of a person's edit (MergeOptions.Edit) for the records
// the edit added; nothing else issues an id.

// Issued is the largest ids a session's history has issued, of steps,
// findings and errors.
type Issued struct {
	Steps, Findings, Errors int
}

// Raise is n with each count at least as large as other's.
func (n Issued) Raise(other Issued) Issued {
	return Issued{max(n.Steps, other.Steps), max(n.Findings, other.Findings), max(n.Errors, other.Errors)}
}

// Holding is n raised to the ids st holds.
func (n Issued) Holding(st *State) Issued {
	n.Steps = max(n.Steps, st.Plan.MaxStepID())
	n.Findings = max(n.Findings, maxIDOf(st.Findings, func(f *Finding) string { return f.ID }))
	n.Errors = max(n.Errors, maxIDOf(st.Errors, func(e *ErrorRecord) string { return e.ID }))
	return n
}

// MergeFloor is the MergeOptions that keep a merge's renumbered records
// above n.
func (n Issued) MergeFloor(o MergeOptions) MergeOptions {
	o.NextStep, o.NextFinding, o.NextError = max(o.NextStep, n.Steps+1), max(o.NextFinding, n.Findings+1), max(o.NextError, n.Errors+1)
	return o
}

func maxIDOf[R any](recs []R, id func(R) string) int {
	n := 0
	for _, r := range recs {
		if v, err := strconv.Atoi(id(r)); err == nil {
			n = max(n, v)
		}
	}
	return n
}

// MaxStepID is the largest numeric step id in the plan, 0 for none.
func (p *Plan) MaxStepID() int {
	n := 0
	for _, s := range p.Steps() {
		if v, err := strconv.Atoi(s.ID); err == nil {
			n = max(n, v)
		}
	}
	return n
}

// IssueStep gives the id of a step being added to the plan: past the
// file's counter and the floor. Every step added gets its id here.
func (p *Plan) IssueStep() string {
	id := p.nextStepID()
	p.NextStep = id + 1
	return strconv.Itoa(id)
}

// nextStepID is the id IssueStep gives next.
func (p *Plan) nextStepID() int { return max(p.NextStep, p.Floor.Steps+1) }
