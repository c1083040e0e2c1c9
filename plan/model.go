// Package plan is plangit's model: plans, phases, steps, findings and error
// records, every rule about statuses, transitions, ids and dependencies, and
// the markdown files that hold them (task_plan.md, findings.md, errors.md).
//
// The package knows nothing of files or git: it parses and writes bytes.
package plan

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/plan/redact"
)

// PlanStatus is the status of a whole plan.
type PlanStatus string

// Plan statuses.
const (
	PlanPending   PlanStatus = "pending" // awaiting approval
	PlanRunning   PlanStatus = "running"
	PlanPaused    PlanStatus = "paused"
	PlanCompleted PlanStatus = "completed"
	PlanFailed    PlanStatus = "failed" // aborted
)

var planStatuses = []PlanStatus{PlanPending, PlanRunning, PlanPaused, PlanCompleted, PlanFailed}

// Unfinished reports whether a plan in this status still has work ahead.
func (s PlanStatus) Unfinished() bool {
	return s == PlanPending || s == PlanRunning || s == PlanPaused
}

// StepStatus is the status of one step.
type StepStatus string

// Step statuses.
const (
	StepPending    StepStatus = "pending"
	StepInProgress StepStatus = "in_progress"
	StepCompleted  StepStatus = "completed"
	StepFailed     StepStatus = "failed"
	StepSkipped    StepStatus = "skipped"
	StepBlocked    StepStatus = "blocked"
)

var stepStatuses = []StepStatus{StepPending, StepInProgress, StepCompleted, StepFailed, StepSkipped, StepBlocked}

// Resolved reports whether a step in this status satisfies the steps that
// need it: completed or skipped.
func (s StepStatus) Resolved() bool { return s == StepCompleted || s == StepSkipped }

// Icon is the status icon used in task_plan.md and terminal views.
func (s StepStatus) Icon() string {
	switch s {
	case StepInProgress:
		return "◐"
	case StepCompleted:
		return "●"
	case StepFailed, StepBlocked:
		return "✖"
	case StepSkipped:
		return "⊘"
	default:
		return "○"
	}
}

// Progress is a step's sub-progress, current out of total. The zero value
// means no progress is recorded.
type Progress struct {
	Current int `json:"current"`
	Total   int `json:"total"`
}

func (p Progress) String() string {
	return strconv.Itoa(p.Current) + "/" + strconv.Itoa(p.Total)
}

// Plan is one session's plan.
type Plan struct {
	ID         string     `json:"id"`
	Title      string     `json:"title"`
	Goal       string     `json:"goal"`
	Status     PlanStatus `json:"status"`
	Created    time.Time  `json:"created"`
	Updated    time.Time  `json:"updated"`
	Iterations int        `json:"iterations"`
	Result     string     `json:"result,omitempty"` // final result, set by finish
	Reason     string     `json:"reason,omitempty"` // why the plan was aborted or paused
	Phases     []*Phase   `json:"phases"`
	// From says the hooks started the plan on their own, and from what:
	// the person's first request ("prompt"), the agent's todo list
	// ("todos"), its [Step] lines ("steps") or the plan the person
	// approved in the host's plan mode ("planmode"); "" for a plan someone
	// started (init, import). An automatic plan not yet worked on is the
	// agent's to take over (TakeOver).
	From string `json:"from,omitempty"`
	// Conflicts are the plan's own fields — and its phases', findings' and
	// deliverable's — that a merge found changed both ways (Merge); a
	// step's are on the step.
	Conflicts []Conflict `json:"conflicts,omitempty"`

	// NextStep and NextPhase are the ids the next added step and phase get.
	// They only grow, so an id is never reused inside a plan.
	NextStep  int `json:"-"`
	NextPhase int `json:"-"`
	// NextFinding and NextError, when set, are the least ids the next
	// finding and error get: a merge that took one side's files whole
	// raises them past the ids the other side had issued. Zero: one more
	// than the largest id in findings.md and errors.md.
	NextFinding int `json:"-"`
	NextError   int `json:"-"`
	// Claims is the last fencing token a claim got (Claim.Token): it only
	// grows.
	Claims int `json:"-"`
	// Floor is the largest ids the session's history issued (Issued), set
	// by the store for a change and never written: no id at or below it
	// is given again.
	Floor Issued `json:"-"`

	// Rules are the project's settings that change how the plan behaves.
	// They are not stored in the plan: New, ParsePlan and Import give a plan
	// DefaultRules, and callers set the project's own (repo.Config.Rules).
	Rules Rules `json:"-"`
}

// PhaseOrder says whether a plan's phases run one after another.
type PhaseOrder string

// Phase orders.
const (
	// PhasesStrict: a step is ready only once every step of the earlier
	// phases is completed or skipped.
	PhasesStrict PhaseOrder = "strict"
	// PhasesFree: only a step's needs order it.
	PhasesFree PhaseOrder = "free"
)

// DefaultMaxRetries is how often a failed step goes back to pending before
// a failure sticks, unless the project says otherwise.
const DefaultMaxRetries = 3

// Rules are the settings that change how a plan behaves.
type Rules struct {
	PhaseOrder PhaseOrder // "" reads as strict
	MaxRetries int        // a failed step goes back to pending while it has fewer retries than this
	AutoFinish bool       // completing the last step completes the plan
	// Redact redacts credentials in what the session records from tool
	// calls: the table of package redact, and the project's own patterns
	// (redact_extra). Nil applies the table alone.
	Redact *redact.Redactor
}

// DefaultRules are the rules of a project with no settings.
func DefaultRules() Rules { return Rules{PhaseOrder: PhasesStrict, MaxRetries: DefaultMaxRetries} }

// strictPhases reports whether the plan's phases run in order.
func (r Rules) strictPhases() bool { return r.PhaseOrder != PhasesFree }

// ParsePhaseOrder reads a phase order name.
func ParsePhaseOrder(s string) (PhaseOrder, bool) {
	switch PhaseOrder(s) {
	case PhasesStrict, PhasesFree:
		return PhaseOrder(s), true
	}
	return "", false
}

// Phase groups steps. Its status is derived from its steps.
type Phase struct {
	ID    string  `json:"id"`
	Title string  `json:"title"`
	Notes string  `json:"notes,omitempty"`
	Steps []*Step `json:"steps"`
}

// Step is one unit of work.
type Step struct {
	ID        string     `json:"id"`
	Text      string     `json:"text"`
	Status    StepStatus `json:"status"`
	Active    string     `json:"active_form,omitempty"` // present-continuous text, as TodoWrite's activeForm
	Needs     []string   `json:"needs,omitempty"`
	Why       string     `json:"why,omitempty"`    // reasoning
	Result    string     `json:"result,omitempty"` // what completing it produced
	Reason    string     `json:"reason,omitempty"` // why it failed, was blocked or skipped
	Progress  Progress   `json:"progress,omitzero"`
	Started   time.Time  `json:"started,omitzero"`
	Completed time.Time  `json:"completed,omitzero"`
	Retries   int        `json:"retries,omitempty"`
	// Auto says the step was completed by auto-advance — plangit's guess
	// that it was done, which the agent never said: its own step done
	// confirms it, its own step start takes it back.
	Auto bool `json:"auto,omitempty"`
	// Claim is the agent's hold on the step while it is in progress
	// (claim.go); nil: no one's.
	Claim *Claim `json:"claim,omitempty"`
	// Conflicts are the step's fields a merge found changed both ways;
	// until they are settled the step keeps its value from before the
	// sides diverged, and takes no other change.
	Conflicts []Conflict `json:"conflicts,omitempty"`
}

// PhaseStatus is a phase's derived status.
type PhaseStatus string

// Phase statuses.
const (
	PhasePending    PhaseStatus = "pending"
	PhaseInProgress PhaseStatus = "in_progress"
	PhaseCompleted  PhaseStatus = "completed"
	PhaseBlocked    PhaseStatus = "blocked"
)

// Status derives the phase's status from its steps: all resolved →
// completed; any in progress → in progress; otherwise failed or blocked steps
// make it blocked; some resolved → in progress; else pending.
func (ph *Phase) Status() PhaseStatus {
	if len(ph.Steps) == 0 {
		return PhasePending
	}
	resolved, active, stuck := 0, false, false
	for _, s := range ph.Steps {
		switch {
		case s.Status.Resolved():
			resolved++
		case s.Status == StepInProgress:
			active = true
		case s.Status == StepFailed || s.Status == StepBlocked:
			stuck = true
		}
	}
	switch {
	case resolved == len(ph.Steps):
		return PhaseCompleted
	case active:
		return PhaseInProgress
	case stuck:
		return PhaseBlocked
	case resolved > 0:
		return PhaseInProgress
	}
	return PhasePending
}

// Done is how many of the phase's steps are resolved (completed or skipped).
func (ph *Phase) Done() int {
	n := 0
	for _, s := range ph.Steps {
		if s.Status.Resolved() {
			n++
		}
	}
	return n
}

// Icon is the phase status icon.
func (s PhaseStatus) Icon() string {
	switch s {
	case PhaseInProgress:
		return "◐"
	case PhaseCompleted:
		return "●"
	case PhaseBlocked:
		return "✖"
	}
	return "○"
}

// MarshalJSON adds the derived status.
func (ph *Phase) MarshalJSON() ([]byte, error) {
	type phase Phase
	return json.Marshal(struct {
		*phase
		Status PhaseStatus `json:"status"`
	}{(*phase)(ph), ph.Status()})
}

// Steps returns every step in plan order.
func (p *Plan) Steps() []*Step {
	n := p.stepCount()
	if n == 0 {
		return nil
	}
	out := make([]*Step, 0, n)
	for _, ph := range p.Phases {
		out = append(out, ph.Steps...)
	}
	return out
}

// Counts is how many steps a plan has, by status.
type Counts struct {
	Total      int `json:"total"`
	Done       int `json:"done"` // completed or skipped
	Completed  int `json:"completed"`
	Skipped    int `json:"skipped"`
	InProgress int `json:"in_progress"`
	Pending    int `json:"pending"`
	Failed     int `json:"failed"`
	Blocked    int `json:"blocked"`
}

// Counts counts the plan's steps by status.
func (p *Plan) Counts() Counts {
	var c Counts
	for _, ph := range p.Phases {
		for _, s := range ph.Steps {
			c.Total++
			switch s.Status {
			case StepCompleted:
				c.Completed++
			case StepSkipped:
				c.Skipped++
			case StepInProgress:
				c.InProgress++
			case StepPending:
				c.Pending++
			case StepFailed:
				c.Failed++
			case StepBlocked:
				c.Blocked++
			}
		}
	}
	c.Done = c.Completed + c.Skipped
	return c
}

// Step finds a step by id. Agents may type "3", "#3", "step_3" or "task-3".
func (p *Plan) Step(id string) (*Step, *Phase, error) {
	id = normalizeID(id)
	for _, ph := range p.Phases {
		for _, s := range ph.Steps {
			if s.ID == id {
				return s, ph, nil
			}
		}
	}
	return nil, nil, Errorf(CodeStepNotFound, "no step %q in this plan; plangit show --all lists every step", Clip(id)).With("step", id)
}

// Phase finds a phase by id ("2", "#2"), or by title when no id matches.
func (p *Plan) Phase(ref string) (*Phase, error) {
	id := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(ref), "#"))
	for _, ph := range p.Phases {
		if ph.ID == id {
			return ph, nil
		}
	}
	for _, ph := range p.Phases {
		if strings.EqualFold(ph.Title, ref) {
			return ph, nil
		}
	}
	return nil, Errorf(CodePhaseNotFound, "no phase %q in this plan; plangit show lists the phases", Clip(ref)).With("phase", ref)
}

// Current returns the first step in progress, or nil.
func (p *Plan) Current() *Step {
	for _, ph := range p.Phases {
		for _, s := range ph.Steps {
			if s.Status == StepInProgress {
				return s
			}
		}
	}
	return nil
}

// Ready returns the steps that can start now, in plan order: pending steps
// whose needs are all completed or skipped and — unless the plan's phases
// run free — whose earlier phases are done.
func (p *Plan) Ready() []*Step {
	var byID map[string]*Step // built for the first step that needs another
	var out []*Step
	for _, ph := range p.Phases {
		for _, s := range ph.Steps {
			if byID == nil && len(s.Needs) > 0 {
				byID = p.index()
			}
			if s.Status == StepPending && len(s.Conflicts) == 0 && needsMet(s, byID) {
				out = append(out, s)
			}
		}
		if p.Rules.strictPhases() && ph.Done() < len(ph.Steps) {
			break // the later phases wait for this one
		}
	}
	return out
}

// WaitsFor returns the earlier phase step s waits for under strict phase
// order — the first one with a step neither completed nor skipped — or nil.
func (p *Plan) WaitsFor(s *Step) *Phase {
	if !p.Rules.strictPhases() {
		return nil
	}
	for _, ph := range p.Phases {
		if slices.Contains(ph.Steps, s) {
			return nil
		}
		if ph.Done() < len(ph.Steps) {
			return ph
		}
	}
	return nil
}

// Complete reports whether the plan is running and every one of its steps,
// of which there is at least one, is completed or skipped: the moment to
// record the final result with finish.
func (p *Plan) Complete() bool {
	c := p.Counts()
	return p.Status == PlanRunning && c.Total > 0 && c.Done == c.Total
}

// Idle reports whether the plan is running with no step in progress: what
// a PlanManager plan calls idle.
func (p *Plan) Idle() bool { return p.Status == PlanRunning && p.Current() == nil }

// OpenNeeds returns the ids of the steps s needs that are not yet completed
// or skipped. It looks each one up along the plan rather than through a
// map of every step: views ask it of every step, and building that map per
// call made a 200-step show allocate 2 MB.
func (p *Plan) OpenNeeds(s *Step) []string {
	var open []string
	for _, n := range s.Needs {
		if d := p.stepByID(n); d == nil || !d.Status.Resolved() {
			open = append(open, n)
		}
	}
	return open
}

// stepByID is the step whose id is exactly id, or nil.
func (p *Plan) stepByID(id string) *Step {
	for _, ph := range p.Phases {
		for _, s := range ph.Steps {
			if s.ID == id {
				return s
			}
		}
	}
	return nil
}

// needsMet reports whether every step s needs is completed or skipped.
func needsMet(s *Step, byID map[string]*Step) bool {
	for _, n := range s.Needs {
		if d, ok := byID[n]; !ok || !d.Status.Resolved() {
			return false
		}
	}
	return true
}

// hasNeeds reports whether any step needs another.
func (p *Plan) hasNeeds() bool {
	for _, ph := range p.Phases {
		for _, s := range ph.Steps {
			if len(s.Needs) > 0 {
				return true
			}
		}
	}
	return false
}

// stepCount is how many steps the plan has.
func (p *Plan) stepCount() int {
	n := 0
	for _, ph := range p.Phases {
		n += len(ph.Steps)
	}
	return n
}

func (p *Plan) index() map[string]*Step {
	m := make(map[string]*Step, p.stepCount())
	for _, ph := range p.Phases {
		for _, s := range ph.Steps {
			m[s.ID] = s
		}
	}
	return m
}

// Unfinished returns the steps that are neither completed nor skipped.
func (p *Plan) Unfinished() []*Step {
	var out []*Step
	for _, s := range p.Steps() {
		if !s.Status.Resolved() {
			out = append(out, s)
		}
	}
	return out
}

// NormalizeID reads the forms agents type for a step id: "3", "#3", " 3 ",
// and the ids other planning tools give ("step_3", "step-3", "task_3",
// "task-3", any case). Anything else is returned trimmed, as it is.
func NormalizeID(id string) string { return normalizeID(id) }

func normalizeID(id string) string {
	id = strings.TrimSpace(id)
	if len(id) > 1 && id[0] == '#' {
		return strings.TrimSpace(id[1:])
	}
	for _, prefix := range []string{"step", "task"} {
		if len(id) > len(prefix)+1 && strings.EqualFold(id[:len(prefix)], prefix) {
			if sep := id[len(prefix)]; (sep == '_' || sep == '-') && IsStepID(id[len(prefix)+1:]) {
				return id[len(prefix)+1:]
			}
		}
	}
	return id
}
