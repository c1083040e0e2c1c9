package plan

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Choice says how conflicts are settled: with the value of the side whose
// revision Rev names (a prefix of it will do), or, for a field of text,
// with Text, a value of one's own.
type Choice struct {
	Rev  string
	Text *string
}

// textFields are the conflicting fields Choice.Text can settle.
var textFields = []string{"text", "active", "why", "result", "reason", "title", "goal", "notes", "content", "source"}

// Resolve settles the conflicts of one record — a step ("6", "#6", "step
// 6"), the plan's "title", "goal", "status", "result" or "reason", "phase
// 2", "finding 3" or "deliverable" — or, with field, only the one on that
// field; target "" settles every conflict. The record takes the value
// chosen, and the conflict goes.
func (st *State) Resolve(target, field string, ch Choice, now time.Time) (Change, error) {
	step, target := resolveTarget(target)
	var todo []ConflictAt
	for _, c := range st.Conflicts() {
		if target == "" && step == "" || step != "" && c.Step == step || step == "" && c.Step == "" && c.Target() == target {
			if field == "" || c.Field == field || strings.HasSuffix(c.Field, " "+field) {
				todo = append(todo, c)
			}
		}
	}
	what := cmpOr(target, "the plan")
	if step != "" {
		what = "step " + step
		if _, _, err := st.Plan.Step(step); err != nil {
			return Change{}, err
		}
	}
	if len(todo) == 0 {
		on := ""
		if field != "" {
			on = " on " + field
		}
		return Change{}, Errorf(CodeInvalidArgument, "%s has no conflict%s to settle", what, on).Hinted("plangit resolve lists the conflicts").With("target", what)
	}
	var done []string
	for _, c := range todo {
		v, err := st.settle(c, ch)
		if err != nil {
			return Change{}, err
		}
		done = append(done, v)
	}
	if err := st.Plan.Validate(); err != nil {
		return Change{}, WrapError(CodeOf(err), err, "settling %s that way leaves the plan inconsistent", what)
	}
	st.Plan.Touch(now)
	c := Change{Op: "resolve", Summary: "resolve: " + strings.Join(done, "; ")}
	if step != "" {
		c.Step = step
	}
	return c, nil
}

// resolveTarget reads a target: a step id, or the name of another record.
func resolveTarget(t string) (step, target string) {
	t = strings.Join(strings.Fields(strings.ToLower(t)), " ")
	if rest, ok := strings.CutPrefix(t, "step "); ok {
		return normalizeID(rest), ""
	}
	if id := normalizeID(t); IsStepID(id) {
		return id, ""
	}
	for _, kind := range []string{"phase ", "finding "} {
		if rest, ok := strings.CutPrefix(t, kind); ok {
			return "", kind + strings.TrimPrefix(rest, "#")
		}
	}
	return "", t
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// settle applies one conflict's choice and removes the conflict; it
// returns what it did, for the change's summary.
func (st *State) settle(c ConflictAt, ch Choice) (string, error) {
	label := c.Target()
	if c.Step == "" && label != c.Field {
		label = c.Field
	} else if c.Step != "" {
		label += " " + c.Field
	}
	var side ConflictSide
	var from string
	switch {
	case ch.Text != nil:
		f := c.Field[strings.LastIndexByte(c.Field, ' ')+1:]
		if !slices.Contains(textFields, f) {
			return "", Errorf(CodeInvalidArgument, "%s is not text; settle it with --ours, --theirs or --take REV (its sides: %s)", label, c.Display()).With("field", c.Field)
		}
		side, from = ConflictSide{Value: *ch.Text}, "own text"
	default:
		var ok bool
		if side, ok = c.Side(ch.Rev); !ok {
			return "", Errorf(CodeInvalidArgument, "neither side of %s's conflict is revision %q; its sides are %s and %s", label, Clip(ch.Rev), c.Sides[0].Rev, c.Sides[1].Rev).
				With("sides", []string{c.Sides[0].Rev, c.Sides[1].Rev})
		}
		from = side.Rev
	}
	var err error
	if c.Step != "" {
		err = st.settleStep(c.Step, c.Field, side)
	} else {
		err = st.settlePlan(c.Field, side)
	}
	if err != nil {
		return "", err
	}
	shown := side.Value
	if side.Removed {
		shown = "removed"
	}
	return fmt.Sprintf("%s → %s (%s)", label, Clip(strings.ReplaceAll(shown, "\n", " ")), from), nil
}

func (st *State) settleStep(id, field string, side ConflictSide) error {
	p := st.Plan
	s, ph, err := p.Step(id)
	if err != nil {
		return err
	}
	drop := func() {
		s.Conflicts = slices.DeleteFunc(s.Conflicts, func(c Conflict) bool { return c.Field == field })
	}
	switch field {
	case "removed":
		drop()
		if !side.Removed {
			return nil
		}
		for _, o := range p.Steps() {
			if o != s && slices.Contains(o.Needs, s.ID) {
				return Errorf(CodeInvalidDependency, "step %s needs step %s, so it cannot go; change its needs first (plangit step edit %s --needs ...), or keep step %s", o.ID, s.ID, o.ID, s.ID).
					With("step", s.ID).With("needed_by", o.ID)
			}
		}
		ph.Steps = slices.DeleteFunc(ph.Steps, func(x *Step) bool { return x == s })
		return nil
	case "phase":
		to, err := p.Phase(side.Value)
		if err != nil {
			return err
		}
		if to != ph {
			ph.Steps = slices.DeleteFunc(ph.Steps, func(x *Step) bool { return x == s })
			to.Steps = append(to.Steps, s)
		}
		drop()
		return nil
	case "status":
		if err := setStatusValue(s, side.Value); err != nil {
			return err
		}
	case "text":
		t, err := CleanLine("step text", side.Value)
		if err != nil {
			return err
		}
		if t == "" {
			return Errorf(CodeInvalidArgument, "a step needs text")
		}
		s.Text = t
	case "progress":
		s.Progress = Progress{}
		if side.Value != "" {
			if s.Progress, err = ParseProgress(side.Value); err != nil {
				return err
			}
		}
	default:
		for _, f := range stepFields {
			if f.name == field {
				v := side.Value
				if field != "needs" && field != "active" {
					if v, err = CleanText(field, v); err != nil {
						return err
					}
				}
				f.set(s, v)
			}
		}
	}
	drop()
	return nil
}

func (st *State) settlePlan(field string, side ConflictSide) error {
	p := st.Plan
	drop := func() {
		p.Conflicts = slices.DeleteFunc(p.Conflicts, func(c Conflict) bool { return c.Field == field })
	}
	f := strings.Fields(field)
	var err error
	switch {
	case field == "title":
		var t string
		if t, err = CleanLine("title", side.Value); err == nil && t != "" {
			p.Title = t
		}
	case field == "goal":
		p.Goal, err = CleanText("goal", side.Value)
	case field == "result":
		p.Result, err = CleanText("result", side.Value)
	case field == "reason":
		p.Reason, err = CleanText("reason", side.Value)
	case field == "status":
		s, ok := ParsePlanStatus(side.Value)
		if !ok {
			return Errorf(CodeInvalidArgument, "%q is not a plan status", Clip(side.Value))
		}
		p.Status = s
	case field == "deliverable":
		if side.Removed {
			st.Deliverable = nil
			break
		}
		d, ok := deliverableSide(st.Deliverable, side.Rev)
		if !ok {
			return Errorf(CodeInvalidArgument, "deliverable.md no longer holds both sides between <<<<<<< and >>>>>>> lines; write the deliverable you want (plangit deliverable set) after settling this with --take %s or --ours", side.Rev)
		}
		st.Deliverable = d
	case len(f) == 3 && f[0] == "phase":
		ph, perr := p.Phase(f[1])
		if perr != nil {
			break // the phase is gone: nothing to settle but the record
		}
		switch f[2] {
		case "title":
			var t string
			if t, err = CleanLine("phase title", side.Value); err == nil && t != "" {
				ph.Title = t
			}
		case "notes":
			ph.Notes, err = CleanBlock("phase notes", side.Value)
		}
	case len(f) == 3 && f[0] == "finding":
		var fd *Finding
		for _, x := range st.Findings {
			if x.ID == f[1] {
				fd = x
			}
		}
		if fd == nil {
			break
		}
		switch f[2] {
		case "category":
			var c Category
			if c, err = ParseCategory(side.Value); err == nil {
				fd.Category = c
			}
		case "title":
			var t string
			if t, err = CleanLine("finding title", side.Value); err == nil && t != "" {
				fd.Title = t
			}
		case "content":
			fd.Content, err = CleanBlock("finding content", side.Value)
		case "source":
			fd.Source, err = CleanLine("source", side.Value)
		case "step":
			fd.Step = side.Value
		}
	}
	if err != nil {
		return err
	}
	drop()
	return nil
}

// settled refuses a change to a step a merge left in conflict.
func (s *Step) settled() error {
	if len(s.Conflicts) == 0 {
		return nil
	}
	return unsettled("step "+s.ID, s.ID, s.Conflicts[0]).With("step", s.ID)
}

// unsettled is the error for a change to a record in conflict.
func unsettled(what, target string, c Conflict) *Error {
	return Errorf(CodeConflict, "%s has a merge conflict (%s); settle it first: plangit resolve %s --ours, --theirs or --take REV", what, c.Display(), target).
		With("conflict", c)
}

// settledPlan refuses a change to a field of the plan a merge left in
// conflict.
func (p *Plan) settledPlan(fields ...string) error {
	for _, f := range fields {
		if c := conflictOn(p.Conflicts, f); c != nil {
			return unsettled("the plan's "+f, conflictTarget(f), *c)
		}
	}
	return nil
}
