package plan

import (
	"slices"
	"strconv"
	"strings"
)

// Action is a status change a person or agent asks of a step.
type Action string

// Step actions.
const (
	ActStart  Action = "start"
	ActDone   Action = "done"
	ActFail   Action = "fail"
	ActSkip   Action = "skip"
	ActBlock  Action = "block"
	ActReopen Action = "reopen"
)

// Actions lists every step action in a stable order.
var Actions = []Action{ActStart, ActDone, ActFail, ActSkip, ActBlock, ActReopen}

// transitions holds, for each action, the statuses it may start from and the
// status it leads to. A completed step goes back only through reopen (or a
// revert, which history records).
var transitions = map[Action]struct {
	from []StepStatus
	to   StepStatus
}{
	ActStart:  {[]StepStatus{StepPending, StepBlocked}, StepInProgress},
	ActDone:   {[]StepStatus{StepPending, StepInProgress}, StepCompleted},
	ActFail:   {[]StepStatus{StepPending, StepInProgress, StepBlocked}, StepFailed},
	ActSkip:   {[]StepStatus{StepPending, StepInProgress, StepBlocked, StepFailed}, StepSkipped},
	ActBlock:  {[]StepStatus{StepPending, StepInProgress}, StepBlocked},
	ActReopen: {[]StepStatus{StepInProgress, StepCompleted, StepFailed, StepSkipped, StepBlocked}, StepPending},
}

// Leads returns the status the action leads to ("" for an unknown one).
func (a Action) Leads() StepStatus { return transitions[a].to }

// LegalActions returns the actions allowed from a status.
func LegalActions(from StepStatus) []Action {
	var out []Action
	for _, a := range Actions {
		if slices.Contains(transitions[a].from, from) {
			out = append(out, a)
		}
	}
	return out
}

// CheckTransition returns INVALID_STATUS, naming the legal actions, when
// action is not allowed from the step's status.
func CheckTransition(s *Step, a Action) error {
	t, ok := transitions[a]
	if !ok {
		return Errorf(CodeInvalidArgument, "unknown step action %q", a)
	}
	if slices.Contains(t.from, s.Status) {
		return nil
	}
	legal := LegalActions(s.Status)
	names := make([]string, len(legal))
	for i, l := range legal {
		names[i] = string(l)
	}
	hint := "none"
	if len(names) > 0 {
		hint = strings.Join(names, ", ")
	}
	verb := string(a)
	if a == ActDone {
		verb = "complete"
	}
	return Errorf(CodeInvalidStatus, "cannot %s step %s: it is %s (from %s: %s)", verb, s.ID, s.Status, s.Status, hint).
		With("step", s.ID).With("status", string(s.Status)).With("action", string(a)).With("legal", names)
}

// ParseStepStatus parses a status name.
func ParseStepStatus(s string) (StepStatus, bool) {
	for _, st := range stepStatuses {
		if string(st) == s {
			return st, true
		}
	}
	return "", false
}

// ParsePlanStatus parses a plan status name.
func ParsePlanStatus(s string) (PlanStatus, bool) {
	for _, st := range planStatuses {
		if string(st) == s {
			return st, true
		}
	}
	return "", false
}

// Validate checks the whole plan: unique ids, known statuses, known
// dependencies and no cycles.
func (p *Plan) Validate() error {
	if _, ok := ParsePlanStatus(string(p.Status)); !ok {
		return Errorf(CodeInvalidStatus, "unknown plan status %q", p.Status)
	}
	phases := make(map[string]bool, len(p.Phases))
	steps := make(map[string]bool, p.stepCount())
	for _, ph := range p.Phases {
		if phases[ph.ID] {
			return Errorf(CodeInvalidArgument, "two phases have id %s; give the copy another (or drop \"Phase %s:\" from its heading, and plangit numbers it)", ph.ID, ph.ID).With("phase", ph.ID)
		}
		phases[ph.ID] = true
		for _, s := range ph.Steps {
			if steps[s.ID] {
				return Errorf(CodeInvalidArgument, "two steps have id %s", s.ID).Hinted("remove the id from the copy so it gets a fresh one").With("step", s.ID).With("repeated", true)
			}
			steps[s.ID] = true
			if _, ok := ParseStepStatus(string(s.Status)); !ok {
				return Errorf(CodeInvalidStatus, "step %s has unknown status %q", s.ID, s.Status)
			}
		}
	}
	for _, s := range p.Steps() {
		for _, n := range s.Needs {
			if n == s.ID {
				return Errorf(CodeInvalidDependency, "step %s needs itself", s.ID).With("step", s.ID)
			}
			if !steps[n] {
				return Errorf(CodeInvalidDependency, "step %s needs step %s, which does not exist", s.ID, Clip(n)).
					With("step", s.ID).With("needs", n)
			}
		}
	}
	if cycle := p.findCycle(); cycle != nil {
		return Errorf(CodeCircularDependency, "steps depend on each other in a cycle: %s", strings.Join(cycle, " → ")).
			With("cycle", cycle)
	}
	return nil
}

// findCycle returns a dependency cycle as a path that starts and ends on the
// same step id, or nil.
func (p *Plan) findCycle() []string {
	if !p.hasNeeds() {
		return nil
	}
	byID := p.index()
	const (
		unseen = iota
		onPath
		done
	)
	state := make(map[string]int, len(byID))
	var path []string
	var visit func(id string) []string
	visit = func(id string) []string {
		state[id] = onPath
		path = append(path, id)
		for _, n := range byID[id].Needs {
			switch state[n] {
			case onPath:
				i := slices.Index(path, n)
				return append(slices.Clone(path[i:]), n)
			case unseen:
				if _, ok := byID[n]; ok {
					if c := visit(n); c != nil {
						return c
					}
				}
			}
		}
		path = path[:len(path)-1]
		state[id] = done
		return nil
	}
	for _, s := range p.Steps() {
		if state[s.ID] == unseen {
			if c := visit(s.ID); c != nil {
				return c
			}
		}
	}
	return nil
}

// ParseNeeds parses a comma-separated list of step ids ("1,2", "#1, #2").
func ParseNeeds(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		if id := normalizeID(f); id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// ParseProgress parses "2/5".
func ParseProgress(s string) (Progress, error) {
	cur, total, ok := strings.Cut(strings.TrimSpace(s), "/")
	c, err1 := strconv.Atoi(strings.TrimSpace(cur))
	t, err2 := strconv.Atoi(strings.TrimSpace(total))
	if !ok || err1 != nil || err2 != nil || t <= 0 || c < 0 || c > t || t > 1_000_000 {
		return Progress{}, Errorf(CodeInvalidArgument, "progress %q is not CURRENT/TOTAL with 0 ≤ CURRENT ≤ TOTAL, TOTAL > 0 (e.g. 2/5)", Clip(s))
	}
	return Progress{Current: c, Total: t}, nil
}

// stepRef reads a reference to a step ("3" or "#3"); ok is false when it is
// not a well-formed id.
func stepRef(s string) (id string, ok bool) {
	id = normalizeID(s)
	return id, id == "" || IsStepID(id)
}

// IsStepID reports whether s is a well-formed step or phase id: 1 to 9 digits,
// no leading zero.
func IsStepID(s string) bool {
	if len(s) == 0 || len(s) > 9 || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
