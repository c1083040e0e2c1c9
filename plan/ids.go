package plan

import "strconv"

// Step ids are never reused inside a session, across undo, rollback and
// hand edits. The file's next-step counter goes back with the file, so the
// store, which knows the largest id ever issued in the session's history,
// raises it with ReserveSteps, and gives steps a hand edit added under an
// id already issued a fresh one with Reissue.

// ReserveSteps makes the next added step's id at least next.
func (p *Plan) ReserveSteps(next int) { p.NextStep = max(p.NextStep, next) }

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

// Reissue gives each step named in ids a fresh id from NextStep on, in
// plan order, and moves other steps' needs along with it. It returns the
// old id → new id of each step it renamed.
func (p *Plan) Reissue(ids []string) map[string]string {
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	renamed := map[string]string{}
	for _, s := range p.Steps() {
		if want[s.ID] && renamed[s.ID] == "" {
			renamed[s.ID] = strconv.Itoa(p.NextStep)
			s.ID = renamed[s.ID]
			p.NextStep++
		}
	}
	for _, s := range p.Steps() {
		for i, n := range s.Needs {
			if id, ok := renamed[n]; ok {
				s.Needs[i] = id
			}
		}
	}
	return renamed
}
