package plan

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Conflict is one field that both sides of a merge changed, each its own
// way (Merge). Until it is settled (State.Resolve), the record keeps the
// value it had before the two sides diverged, and the conflict keeps both
// sides' values.
//
// A step's conflicts are written under it in task_plan.md, the others
// (the plan's own fields, a phase's, a finding's, the deliverable) in the
// plan's header, in one syntax:
//
//   - conflict: status: "completed 2026-11-20T10:05:00Z → 2026-11-20T10:20:00Z" (a1b2c3d) | "in_progress 2026-11-20T10:07:00Z →" (e4f5a6b)
//     > **Conflict:** goal: "cache lookups" (a1b2c3d) | "cache lookups per tenant" (e4f5a6b)
//
// Each side is its value, quoted as Go quotes strings (or the bare word
// removed: that side removed the record), and the revision of that side,
// abbreviated. The sides are in the order of their revisions' names, so
// the same merge writes the same file on every machine.
type Conflict struct {
	// Field is what conflicts. For a step: text, status, needs, active,
	// why, result, reason, progress, phase, or removed (one side removed
	// the step, the other changed it). For the rest: title, goal, status,
	// result, reason; "phase 2 title", "phase 2 notes"; "finding 3 title"
	// (and category, content, source, step); deliverable.
	Field string          `json:"field"`
	Sides [2]ConflictSide `json:"sides"`
}

// ConflictSide is one side's value of a conflicting field.
type ConflictSide struct {
	Rev     string `json:"rev"`             // the side's tip, abbreviated
	Value   string `json:"value,omitempty"` // the field's value on that side
	Removed bool   `json:"removed,omitempty"`
}

func (c ConflictSide) String() string {
	v := strconv.Quote(c.Value)
	if c.Removed {
		v = "removed"
	}
	return v + " (" + c.Rev + ")"
}

// String writes the conflict as the files carry it: FIELD: SIDE | SIDE.
func (c Conflict) String() string {
	return c.Field + ": " + c.Sides[0].String() + " | " + c.Sides[1].String()
}

// Display is the conflict for a person: values unquoted where they read
// plainly.
func (c Conflict) Display() string {
	side := func(s ConflictSide) string {
		switch {
		case s.Removed:
			return "removed (" + s.Rev + ")"
		case s.Value == "" || strings.ContainsAny(s.Value, "\n|()") || strings.TrimSpace(s.Value) != s.Value:
			return strconv.Quote(s.Value) + " (" + s.Rev + ")"
		}
		return s.Value + " (" + s.Rev + ")"
	}
	return c.Field + ": " + side(c.Sides[0]) + " | " + side(c.Sides[1])
}

// Side returns the side whose revision rev names (a prefix of it, or it a
// prefix of rev), and whether there is one.
func (c Conflict) Side(rev string) (ConflictSide, bool) {
	rev = strings.ToLower(strings.TrimSpace(rev))
	if rev == "" {
		return ConflictSide{}, false
	}
	for _, s := range c.Sides {
		if strings.HasPrefix(s.Rev, rev) || strings.HasPrefix(rev, s.Rev) {
			return s, true
		}
	}
	return ConflictSide{}, false
}

// ParseConflict reads a conflict as Conflict.String writes it.
func ParseConflict(s string) (Conflict, error) {
	bad := func(why string) (Conflict, error) {
		return Conflict{}, Errorf(CodePlanParseError, "a conflict is FIELD: \"VALUE\" (REV) | \"VALUE\" (REV); %s in %q", why, Clip(s))
	}
	field, rest, ok := strings.Cut(s, ":")
	field = strings.Join(strings.Fields(field), " ")
	if !ok || field == "" {
		return bad("no field")
	}
	var c Conflict
	c.Field = field
	rest = strings.TrimSpace(rest)
	for i := range 2 {
		var side ConflictSide
		switch {
		case strings.HasPrefix(rest, `"`):
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return bad("an unterminated value")
			}
			side.Value, _ = strconv.Unquote(q)
			rest = rest[len(q):]
		case strings.HasPrefix(rest, "removed"):
			side.Removed = true
			rest = rest[len("removed"):]
		default:
			return bad("a value that is not quoted")
		}
		rest = strings.TrimLeft(rest, " ")
		inner, after, ok := strings.Cut(strings.TrimPrefix(rest, "("), ")")
		if !strings.HasPrefix(rest, "(") || !ok || !isRevName(inner) {
			return bad("no (REV) after a value")
		}
		side.Rev, rest = strings.ToLower(inner), strings.TrimSpace(after)
		c.Sides[i] = side
		if i == 0 {
			if rest, ok = strings.CutPrefix(rest, "|"); !ok {
				return bad("no | between the sides")
			}
			rest = strings.TrimSpace(rest)
		}
	}
	if rest != "" {
		return bad("text after the second side")
	}
	return c, nil
}

// isRevName reports whether s can be an abbreviated revision: 4 to 40 hex
// digits.
func isRevName(s string) bool {
	if len(s) < 4 || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return true
}

// conflictOn returns the conflict on field among cs, or nil.
func conflictOn(cs []Conflict, field string) *Conflict {
	for i := range cs {
		if cs[i].Field == field {
			return &cs[i]
		}
	}
	return nil
}

// sortConflicts puts conflicts in the order files write them: by field.
func sortConflicts(cs []Conflict) {
	slices.SortStableFunc(cs, func(a, b Conflict) int { return strings.Compare(a.Field, b.Field) })
}

// ConflictAt is a conflict and the record it is on: "step 6", or "" for
// the plan's own conflicts (whose field names the record: "phase 2
// title").
type ConflictAt struct {
	Step string `json:"step,omitempty"`
	Conflict
}

// Target names the record for a person and for plangit resolve: "step 6",
// "goal", "phase 2", "finding 3", "deliverable".
func (c ConflictAt) Target() string {
	if c.Step != "" {
		return "step " + c.Step
	}
	return conflictTarget(c.Field)
}

// conflictTarget is the record a plan-level conflict's field is on.
func conflictTarget(field string) string {
	f := strings.Fields(field)
	if len(f) >= 2 && (f[0] == "phase" || f[0] == "finding") {
		return f[0] + " " + f[1]
	}
	return field
}

// Conflicts lists every conflict the state records, the plan's own first,
// then each step's in plan order.
func (s *State) Conflicts() []ConflictAt {
	var out []ConflictAt
	for _, c := range s.Plan.Conflicts {
		out = append(out, ConflictAt{Conflict: c})
	}
	for _, st := range s.Plan.Steps() {
		for _, c := range st.Conflicts {
			out = append(out, ConflictAt{Step: st.ID, Conflict: c})
		}
	}
	return out
}

// statusValue writes a step's status and what goes with it — when it
// started and finished, its retries — as one value, the way a status
// conflict carries it: "completed 2026-11-20T10:05:00Z →
// 2026-11-20T10:20:00Z retries:1".
func statusValue(s *Step) string {
	v := string(s.Status)
	if !s.Started.IsZero() || !s.Completed.IsZero() {
		v += strings.TrimRight(" "+formatTime(s.Started)+" → "+formatTime(s.Completed), " ")
	}
	if s.Retries > 0 {
		v += " retries:" + strconv.Itoa(s.Retries)
	}
	return v
}

// setStatusValue reads a value statusValue wrote into s.
func setStatusValue(s *Step, v string) error {
	word, rest, _ := strings.Cut(strings.TrimSpace(v), " ")
	st, ok := ParseStepStatus(word)
	if !ok {
		return Errorf(CodePlanParseError, "%q is not a step status", Clip(word))
	}
	var started, completed time.Time
	retries := 0
	rest = strings.TrimSpace(rest)
	if r, n, ok := strings.Cut(rest, "retries:"); ok {
		var err error
		if retries, err = strconv.Atoi(strings.TrimSpace(n)); err != nil || retries < 0 {
			return Errorf(CodePlanParseError, "bad retries in %q", Clip(v))
		}
		rest = strings.TrimSpace(r)
	}
	if rest != "" {
		a, b, ok := strings.Cut(rest, "→")
		if !ok {
			return Errorf(CodePlanParseError, "the times in %q are START → END", Clip(v))
		}
		if a = strings.TrimSpace(a); a != "" {
			if started, ok = parseTime(a); !ok {
				return Errorf(CodePlanParseError, "bad start time in %q", Clip(v))
			}
		}
		if b = strings.TrimSpace(b); b != "" {
			if completed, ok = parseTime(b); !ok {
				return Errorf(CodePlanParseError, "bad end time in %q", Clip(v))
			}
		}
	}
	s.Status, s.Started, s.Completed, s.Retries = st, started, completed, retries
	return nil
}
