package plan

import (
	"slices"
	"strconv"
	"strings"
)

// DeltaKind says how a step differs between two versions of a plan.
type DeltaKind string

// Delta kinds.
const (
	StepAdded   DeltaKind = "added"
	StepRemoved DeltaKind = "removed"
	StepChanged DeltaKind = "changed"
)

// StepDelta is how one step differs between two versions of a plan.
type StepDelta struct {
	ID       string     `json:"step"`
	Kind     DeltaKind  `json:"kind"`
	From     StepStatus `json:"from,omitempty"` // set when the status changed
	To       StepStatus `json:"to,omitempty"`
	Fields   []string   `json:"fields,omitempty"` // changed fields besides the status
	Old      *Step      `json:"-"`
	New      *Step      `json:"-"`
	OldPhase string     `json:"old_phase,omitempty"`
	NewPhase string     `json:"new_phase,omitempty"`
}

// StatusChanged reports whether the step's status differs.
func (d StepDelta) StatusChanged() bool { return d.From != d.To }

// Clone returns a deep copy of the plan.
func (p *Plan) Clone() *Plan {
	c := *p
	c.Conflicts = slices.Clone(p.Conflicts)
	c.Phases = make([]*Phase, len(p.Phases))
	for i, ph := range p.Phases {
		cp := *ph
		cp.Steps = make([]*Step, len(ph.Steps))
		for j, s := range ph.Steps {
			cs := *s
			cs.Needs = slices.Clone(s.Needs)
			cs.Conflicts = slices.Clone(s.Conflicts)
			if s.Claim != nil {
				cl := *s.Claim
				cs.Claim = &cl
			}
			cp.Steps[j] = &cs
		}
		c.Phases[i] = &cp
	}
	return &c
}

// DiffSteps compares every step of a and b by id: added, removed, and
// changed steps with the fields that changed. Steps come in b's order, then
// the removed ones in a's. A nil plan has no steps.
func DiffSteps(a, b *Plan) []StepDelta {
	type loc struct {
		s     *Step
		phase string
	}
	index := func(p *Plan) (map[string]loc, []string) {
		if p == nil {
			return map[string]loc{}, nil
		}
		n := p.stepCount()
		m := make(map[string]loc, n)
		order := make([]string, 0, n)
		for _, ph := range p.Phases {
			for _, s := range ph.Steps {
				m[s.ID] = loc{s, ph.ID}
				order = append(order, s.ID)
			}
		}
		return m, order
	}
	am, aOrder := index(a)
	bm, bOrder := index(b)
	var out []StepDelta
	for _, id := range bOrder {
		nb := bm[id]
		old, ok := am[id]
		if !ok {
			out = append(out, StepDelta{ID: id, Kind: StepAdded, To: nb.s.Status, New: nb.s, NewPhase: nb.phase})
			continue
		}
		fields := changedFields(old.s, nb.s)
		if old.phase != nb.phase {
			fields = append(fields, "phase")
		}
		if len(fields) == 0 && old.s.Status == nb.s.Status {
			continue
		}
		d := StepDelta{ID: id, Kind: StepChanged, Fields: fields, Old: old.s, New: nb.s, OldPhase: old.phase, NewPhase: nb.phase}
		if old.s.Status != nb.s.Status {
			d.From, d.To = old.s.Status, nb.s.Status
		}
		out = append(out, d)
	}
	for _, id := range aOrder {
		if _, ok := bm[id]; !ok {
			old := am[id]
			out = append(out, StepDelta{ID: id, Kind: StepRemoved, From: old.s.Status, Old: old.s, OldPhase: old.phase})
		}
	}
	return out
}

// changedFields names the fields of a step, besides its status, that differ.
func changedFields(a, b *Step) []string {
	var f []string
	add := func(name string, differ bool) {
		if differ {
			f = append(f, name)
		}
	}
	add("text", a.Text != b.Text)
	add("needs", !slices.Equal(a.Needs, b.Needs))
	add("active", a.Active != b.Active)
	add("why", a.Why != b.Why)
	add("result", a.Result != b.Result)
	add("reason", a.Reason != b.Reason)
	add("progress", a.Progress != b.Progress)
	add("started", !a.Started.Equal(b.Started))
	add("completed", !a.Completed.Equal(b.Completed))
	add("retries", a.Retries != b.Retries)
	add("auto", a.Auto != b.Auto)
	add("conflicts", !slices.Equal(a.Conflicts, b.Conflicts))
	add("claim", !a.Claim.same(b.Claim))
	return f
}

// Touch is a step a revision touched, as recorded in its commit: the id and,
// when the status changed, from what to what.
type Touch struct {
	Step string     `json:"step"`
	From StepStatus `json:"from,omitempty"`
	To   StepStatus `json:"to,omitempty"`
}

// Touches reduces deltas to what a commit records. An added step records
// its status as To, a removed one as From.
func Touches(deltas []StepDelta) []Touch {
	out := make([]Touch, 0, len(deltas))
	for _, d := range deltas {
		out = append(out, Touch{Step: d.ID, From: d.From, To: d.To})
	}
	return out
}

// Pseudo-statuses in a touch for a step that did not exist before or after.
const (
	touchNew     = "new"
	touchRemoved = "removed"
)

// String writes a touch as its trailer value: "3" when only fields other
// than the status changed, "3 (pending → completed)" when the status did,
// "5 (new → pending)" for an added step and "5 (pending → removed)" for a
// removed one.
func (t Touch) String() string {
	if t.From == "" && t.To == "" {
		return t.Step
	}
	from, to := string(t.From), string(t.To)
	if from == "" {
		from = touchNew
	}
	if to == "" {
		to = touchRemoved
	}
	return t.Step + " (" + from + " → " + to + ")"
}

// ParseTouch reads a touch written by String.
func ParseTouch(s string) (Touch, bool) {
	id, rest, _ := strings.Cut(strings.TrimSpace(s), " ")
	if !IsStepID(id) {
		return Touch{}, false
	}
	t := Touch{Step: id}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return t, true
	}
	inner, ok := strings.CutPrefix(rest, "(")
	if inner, ok = strings.CutSuffix(inner, ")"); !ok {
		return Touch{}, false
	}
	from, to, ok := strings.Cut(inner, "→")
	if !ok {
		return Touch{}, false
	}
	t.From, t.To = StepStatus(strings.TrimSpace(from)), StepStatus(strings.TrimSpace(to))
	if t.From == touchNew {
		t.From = ""
	}
	if t.To == touchRemoved {
		t.To = ""
	}
	return t, true
}

// SortTouches orders touches by numeric step id.
func SortTouches(ts []Touch) {
	slices.SortFunc(ts, func(a, b Touch) int {
		x, _ := strconv.Atoi(a.Step)
		y, _ := strconv.Atoi(b.Step)
		return x - y
	})
}
