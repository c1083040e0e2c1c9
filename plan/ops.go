package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Change describes one change to a plan: the operation, the step it concerns
// and a one-line summary a person reads in `git log --oneline`.
type Change struct {
	Op      string `json:"op"`
	Step    string `json:"step,omitempty"`
	Summary string `json:"summary"`
	// Marker commits the change even when no file changed: a checkpoint
	// that marks a moment in the history.
	Marker bool `json:"-"`
}

// Stamp is the form every stored time takes: UTC, whole seconds.
func Stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

// New creates a plan. With approval required it starts pending (awaiting
// `approve`), otherwise running.
func New(id, title, goal string, phases []string, now time.Time, needApproval bool) (*Plan, error) {
	title, err := CleanLine("title", title)
	if err != nil {
		return nil, err
	}
	if title == "" {
		return nil, Errorf(CodeInvalidArgument, "a plan needs a title: plangit init \"Title\" --goal \"...\"")
	}
	goal, err = CleanText("goal", goal)
	if err != nil {
		return nil, err
	}
	now = Stamp(now)
	p := &Plan{ID: id, Title: title, Goal: goal, Status: PlanRunning, Created: now, Updated: now, NextStep: 1, NextPhase: 1, Rules: DefaultRules()}
	if needApproval {
		p.Status = PlanPending
	}
	for _, name := range phases {
		if _, err := p.AddPhase(name, "", now); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Touch marks the plan as changed at now.
func (p *Plan) Touch(now time.Time) { p.Updated = Stamp(now) }

// Origins are what the hooks start a plan from on their own (Plan.From).
var Origins = []string{"prompt", "todos", "steps", "planmode"}

// Untouched reports whether the plan is one the hooks started on their own
// and nobody has worked on yet: no step, no phase with a step.
func (p *Plan) Untouched() bool { return p.From != "" && len(p.Steps()) == 0 }

// TakeOver makes an untouched automatic plan (Untouched) the agent's own:
// its title, goal, phases and approval are those of next, which init made;
// the plan's id, creation, iterations, findings and errors stay, as do the
// ids it gave out.
func (p *Plan) TakeOver(next *Plan, now time.Time) (Change, error) {
	if !p.Untouched() {
		return Change{}, Errorf(CodeInvalidStatus, "the plan is not an untouched automatic one")
	}
	from := p.From
	p.Title, p.Goal, p.Status, p.From = next.Title, next.Goal, next.Status, ""
	p.Phases = nil
	for _, ph := range next.Phases {
		if _, err := p.AddPhase(ph.Title, ph.Notes, now); err != nil {
			return Change{}, err
		}
	}
	p.Touch(now)
	what := map[string]string{"prompt": "the person's first request", "todos": "a todo list", "steps": "[Step] lines", "planmode": "the plan from plan mode"}[from]
	return Change{Op: "init", Summary: fmt.Sprintf("init: %s (%d phases), taking over the plan the hooks started from %s", p.Title, len(p.Phases), what)}, nil
}

// requireRunning refuses status changes unless the plan is running.
func (p *Plan) requireRunning() error {
	switch p.Status {
	case PlanRunning:
		return nil
	case PlanPaused:
		return Errorf(CodePlanNotActive, "the plan is paused").Hinted("resume it first: plangit resume").With("status", string(p.Status))
	case PlanPending:
		return Errorf(CodePlanNotActive, "the plan awaits approval").Hinted("approve it first: plangit approve").With("status", string(p.Status))
	}
	return p.finishedError()
}

// finishedError says a finished plan takes no more work.
func (p *Plan) finishedError() *Error {
	state := "is completed"
	if p.Status == PlanFailed {
		state = "was aborted"
	}
	return Errorf(CodePlanNotActive, "the plan %s", state).Hinted("plangit reset starts it over").With("status", string(p.Status))
}

// Editable says whether the plan takes changes to its steps and phases:
// nil for a running plan or one awaiting approval (a plan is shaped before
// it is approved), PLAN_NOT_ACTIVE for a paused, completed or aborted one.
func (p *Plan) Editable() error {
	switch p.Status {
	case PlanRunning, PlanPending:
		return nil
	case PlanPaused:
		return Errorf(CodePlanNotActive, "the plan is paused").Hinted("resume it first: plangit resume").With("status", string(p.Status))
	}
	return p.finishedError()
}

// AddPhase appends a phase.
func (p *Plan) AddPhase(title, notes string, now time.Time) (*Phase, error) {
	if err := p.Editable(); err != nil {
		return nil, err
	}
	title, err := CleanLine("phase title", title)
	if err != nil {
		return nil, err
	}
	if title == "" {
		return nil, Errorf(CodeInvalidArgument, "a phase needs a title, such as \"Build\"")
	}
	if notes, err = CleanBlock("phase notes", notes); err != nil {
		return nil, err
	}
	ph := &Phase{ID: strconv.Itoa(p.NextPhase), Title: title, Notes: notes}
	p.NextPhase++
	p.Phases = append(p.Phases, ph)
	p.Touch(now)
	return ph, nil
}

// PhaseEdit lists a phase's fields to change; nil means unchanged.
type PhaseEdit struct {
	Title  *string
	Notes  *string
	Status *PhaseStatus // a phase's status is its steps': setting it moves them (SetPhaseStatus)
	Reason string       // with Status blocked: why
}

// EditPhase changes a phase's title or notes.
func (p *Plan) EditPhase(ref string, e PhaseEdit, now time.Time) (Change, error) {
	if err := p.Editable(); err != nil {
		return Change{}, err
	}
	ph, err := p.Phase(ref)
	if err != nil {
		return Change{}, err
	}
	if err := p.settledPlan("phase "+ph.ID+" title", "phase "+ph.ID+" notes"); err != nil {
		return Change{}, err
	}
	var changed []string
	if e.Title != nil {
		t, err := CleanLine("phase title", *e.Title)
		if err != nil {
			return Change{}, err
		}
		if t == "" {
			return Change{}, Errorf(CodeInvalidArgument, "a phase needs a title, such as \"Build\"")
		}
		if t != ph.Title {
			ph.Title, changed = t, append(changed, "title")
		}
	}
	if e.Notes != nil {
		n, err := CleanBlock("phase notes", *e.Notes)
		if err != nil {
			return Change{}, err
		}
		if n != ph.Notes {
			ph.Notes, changed = n, append(changed, "notes")
		}
	}
	summary := ""
	if len(changed) > 0 {
		summary = "edit " + strings.Join(changed, ", ")
	}
	if e.Status != nil {
		moved, err := p.setPhaseStatus(ph, *e.Status, e.Reason, now)
		if err != nil {
			return Change{}, err
		}
		if moved != "" {
			summary = strings.TrimPrefix(summary+"; "+moved, "; ")
		}
	}
	if summary == "" {
		return Change{}, nil
	}
	p.Touch(now)
	return Change{Op: "phase.edit", Summary: fmt.Sprintf("phase %s: %s", ph.ID, summary)}, nil
}

// setPhaseStatus gives a phase the status asked for — the updatePhaseStatus
// of the Manus-style seed — by moving its steps, whose statuses a phase's
// is derived from: completed completes every step not completed or
// skipped; in_progress starts its first ready step unless one is under
// way; pending puts every step back to pending; blocked blocks every step
// not yet resolved. It says what moved.
func (p *Plan) setPhaseStatus(ph *Phase, want PhaseStatus, reason string, now time.Time) (string, error) {
	if err := p.requireRunning(); err != nil {
		return "", err
	}
	from := ph.Status()
	if from == want {
		return "", nil
	}
	if len(ph.Steps) == 0 {
		return "", Errorf(CodeInvalidStatus, "phase %s has no steps, and a phase's status is its steps'", ph.ID)
	}
	var moved []string
	move := func(s *Step, a Action, o TransitionOpts) error {
		if _, err := p.Transition(s.ID, a, o, now); err != nil {
			return err
		}
		moved = append(moved, s.ID)
		return nil
	}
	switch want {
	case PhaseCompleted:
		for _, s := range ph.Steps {
			if !s.Status.Resolved() {
				if s.Status == StepFailed || s.Status == StepBlocked {
					if err := move(s, ActReopen, TransitionOpts{}); err != nil {
						return "", err
					}
				}
				if err := move(s, ActDone, TransitionOpts{Force: true}); err != nil {
					return "", err
				}
			}
		}
	case PhaseInProgress:
		for _, s := range ph.Steps {
			if s.Status == StepInProgress {
				return "", nil
			}
		}
		var first *Step
		for _, s := range p.Ready() {
			if slices.Contains(ph.Steps, s) {
				first = s
				break
			}
		}
		if first == nil {
			return "", Errorf(CodeInvalidStatus, "no step of phase %s is ready to start", ph.ID)
		}
		if err := move(first, ActStart, TransitionOpts{}); err != nil {
			return "", err
		}
	case PhasePending:
		for _, s := range ph.Steps {
			if s.Status != StepPending {
				if err := move(s, ActReopen, TransitionOpts{}); err != nil {
					return "", err
				}
			}
		}
	case PhaseBlocked:
		if strings.TrimSpace(reason) == "" {
			return "", Errorf(CodeInvalidArgument, "say why the phase is blocked: --reason \"...\"")
		}
		for _, s := range ph.Steps {
			if !s.Status.Resolved() && s.Status != StepBlocked {
				if s.Status == StepFailed {
					if err := move(s, ActReopen, TransitionOpts{}); err != nil {
						return "", err
					}
				}
				if err := move(s, ActBlock, TransitionOpts{Reason: reason}); err != nil {
					return "", err
				}
			}
		}
	default:
		return "", Errorf(CodeInvalidArgument, "a phase's status is pending, in_progress, completed or blocked, not %q", want)
	}
	return fmt.Sprintf("%s → %s (steps %s)", from, ph.Status(), strings.Join(slices.Compact(moved), ", ")), nil
}

// ParsePhaseStatus reads a phase status a person or an agent typed.
func ParsePhaseStatus(s string) (PhaseStatus, error) {
	switch st := PhaseStatus(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")); st {
	case PhasePending, PhaseInProgress, PhaseCompleted, PhaseBlocked:
		return st, nil
	}
	return "", Errorf(CodeInvalidArgument, "a phase's status is pending, in_progress, completed or blocked, not %q", s)
}

// StepSpec describes a step to add.
type StepSpec struct {
	Text   string
	Phase  string   // phase id or title; default: after After, else the last phase
	After  string   // step id to insert after
	Needs  []string // step ids
	Why    string
	Active string
}

// DefaultPhaseTitle names the phase plangit creates for a step added to a
// plan that has no phase yet.
const DefaultPhaseTitle = "Tasks"

// AddStep adds a step and returns it.
func (p *Plan) AddStep(spec StepSpec, now time.Time) (*Step, error) {
	if err := p.Editable(); err != nil {
		return nil, err
	}
	text, err := CleanLine("step text", spec.Text)
	if err != nil {
		return nil, err
	}
	if text == "" {
		return nil, Errorf(CodeInvalidArgument, "a step needs text: plangit step add \"what to do\"")
	}
	why, err := CleanText("why", spec.Why)
	if err != nil {
		return nil, err
	}
	active, err := CleanLine("active form", spec.Active)
	if err != nil {
		return nil, err
	}
	s := &Step{ID: strconv.Itoa(p.nextStepID()), Text: text, Status: StepPending, Why: why, Active: active, Needs: dedupe(spec.Needs)}

	var ph *Phase
	at := -1
	switch {
	case spec.After != "":
		prev, prevPhase, err := p.Step(spec.After)
		if err != nil {
			return nil, err
		}
		if spec.Phase != "" {
			if want, err := p.Phase(spec.Phase); err != nil {
				return nil, err
			} else if want != prevPhase {
				return nil, Errorf(CodeInvalidArgument, "step %s is in phase %s, not %s", prev.ID, prevPhase.ID, want.ID).Hinted("give --after or --phase, not both")
			}
		}
		ph, at = prevPhase, slices.Index(prevPhase.Steps, prev)+1
	case spec.Phase != "":
		if ph, err = p.Phase(spec.Phase); err != nil {
			return nil, err
		}
	case len(p.Phases) > 0:
		ph = p.Phases[len(p.Phases)-1]
	default:
		if ph, err = p.AddPhase(DefaultPhaseTitle, "", now); err != nil {
			return nil, err
		}
	}
	if at < 0 {
		at = len(ph.Steps)
	}
	ph.Steps = slices.Insert(ph.Steps, at, s)
	if err := p.Validate(); err != nil {
		ph.Steps = slices.Delete(ph.Steps, at, at+1)
		return nil, err
	}
	p.IssueStep()
	p.Touch(now)
	return s, nil
}

// TransitionOpts carries what a status change may record.
type TransitionOpts struct {
	Result string // done: what it produced
	Reason string // fail, skip, block: why
	// A failed step goes back to pending, counting a retry, while it has
	// been retried fewer than the plan's Rules.MaxRetries times; then the
	// failure sticks. Retry retries even past that; NoRetry fails outright.
	Retry   bool
	NoRetry bool
	Force   bool // start, done: even though needs or earlier phases are not done
	// Auto: done, by auto-advance, not by anyone's word (Step.Auto).
	Auto bool
}

// retries reports whether failing s puts it back to pending.
func (o TransitionOpts) retries(s *Step, r Rules) bool {
	return !o.NoRetry && (o.Retry || s.Retries < r.MaxRetries)
}

// Transition applies a step action.
func (p *Plan) Transition(id string, a Action, o TransitionOpts, now time.Time) (Change, error) {
	if err := p.requireRunning(); err != nil {
		return Change{}, err
	}
	s, _, err := p.Step(id)
	if err != nil {
		return Change{}, err
	}
	if err := s.settled(); err != nil {
		return Change{}, err
	}
	result, err := CleanText("result", o.Result)
	if err != nil {
		return Change{}, err
	}
	if a == ActDone && s.Status == StepCompleted && s.Auto && !o.Auto {
		// The agent says done of a step auto-advance completed: the
		// completion is now its word, with its result.
		s.Auto = false
		if result != "" {
			s.Result = result
		}
		p.Touch(Stamp(now))
		return Change{Op: "step.result", Step: s.ID, Summary: fmt.Sprintf("step %s: completed, as auto-advance had marked it (confirmed)", s.ID)}, nil
	}
	if a == ActStart && s.Status == StepCompleted && s.Auto {
		// The agent starts a step auto-advance completed: the guess was
		// wrong, and is taken back.
		now = Stamp(now)
		s.Status, s.Completed, s.Result, s.Auto = StepInProgress, time.Time{}, "", false
		if s.Started.IsZero() {
			s.Started = now
		}
		p.Touch(now)
		return Change{Op: "step.start", Step: s.ID, Summary: fmt.Sprintf("step %s: completed → in_progress (auto-advance's completion taken back)", s.ID)}, nil
	}
	if a == ActDone && s.Status == StepCompleted && s.Result == "" && result != "" {
		// A step completed without a result takes the result its doer
		// records afterwards.
		s.Result = result
		p.Touch(Stamp(now))
		return Change{Op: "step.result", Step: s.ID, Summary: fmt.Sprintf("step %s: result recorded (it was already completed)", s.ID)}, nil
	}
	if s.Status == a.Leads() && result == "" && o.Reason == "" {
		// Already so — by a person's edit, another agent, or this one
		// before: nothing to change, and no error to mend.
		return Change{}, nil
	}
	if err := CheckTransition(s, a); err != nil {
		return Change{}, err
	}
	reason, err := CleanText("reason", o.Reason)
	if err != nil {
		return Change{}, err
	}
	if (a == ActStart || a == ActDone) && !o.Force {
		if err := p.checkNeeds(s); err != nil {
			return Change{}, err
		}
	}
	now = Stamp(now)
	from := s.Status
	retry := a == ActFail && o.retries(s, p.Rules)
	s.Auto = a == ActDone && o.Auto
	switch a {
	case ActStart:
		s.Status, s.Started, s.Completed, s.Reason = StepInProgress, now, time.Time{}, ""
	case ActDone:
		s.Status, s.Completed, s.Reason = StepCompleted, now, ""
		if result != "" {
			s.Result = result
		}
		if s.Progress.Total > 0 {
			s.Progress.Current = s.Progress.Total
		}
	case ActFail:
		s.Status, s.Reason = StepFailed, reason
		if retry {
			s.Status, s.Started = StepPending, time.Time{}
			s.Retries++
		}
	case ActSkip:
		s.Status, s.Reason = StepSkipped, reason
	case ActBlock:
		s.Status, s.Reason = StepBlocked, reason
	case ActReopen:
		s.Status, s.Completed, s.Result, s.Reason = StepPending, time.Time{}, "", ""
		s.Started = time.Time{}
	}
	p.Touch(now)
	c := Change{Op: "step." + string(a), Step: s.ID, Summary: fmt.Sprintf("step %s: %s → %s", s.ID, from, s.Status)}
	switch {
	case retry && s.Retries > p.Rules.MaxRetries:
		c.Summary += fmt.Sprintf(" (retry %d)", s.Retries)
	case retry:
		c.Summary += fmt.Sprintf(" (retry %d of %d)", s.Retries, p.Rules.MaxRetries)
	case a == ActFail && !o.NoRetry && p.Rules.MaxRetries > 0:
		c.Summary += fmt.Sprintf(" (no retries left: %d of %d used)", s.Retries, p.Rules.MaxRetries)
	}
	if (a == ActDone || a == ActSkip) && p.Rules.AutoFinish && p.Complete() {
		p.finishCompleted(s.Result, now)
		c.Summary += fmt.Sprintf("; plan completed %d/%d", p.Counts().Done, p.Counts().Total)
	}
	if from.Resolved() && !s.Status.Resolved() {
		c.Summary += p.underWay(s.ID)
	}
	return c, nil
}

// underWay names the steps that need step id and were started or done
// on the strength of it — what a person should look at when id goes back
// from done: "; needed by step 3 (in_progress)"; "" for none.
func (p *Plan) underWay(id string) string {
	var on []string
	for _, o := range p.Steps() {
		if (o.Status == StepInProgress || o.Status == StepCompleted) && slices.Contains(o.Needs, id) {
			on = append(on, fmt.Sprintf("%s (%s)", o.ID, o.Status))
		}
	}
	switch len(on) {
	case 0:
		return ""
	case 1:
		return "; needed by step " + on[0]
	}
	return "; needed by steps " + strings.Join(on, ", ")
}

// FinishIfComplete completes a running plan whose steps are all completed
// or skipped, as the auto_finish setting does, with result as its final
// result. It reports whether it did.
func (p *Plan) FinishIfComplete(result string, now time.Time) bool {
	if !p.Complete() {
		return false
	}
	p.finishCompleted(result, now)
	return true
}

func (p *Plan) finishCompleted(result string, now time.Time) {
	result, _ = CleanText("result", TruncateText(result, MaxText))
	p.Status, p.Result, p.Reason = PlanCompleted, result, ""
	p.Touch(now)
}

func (p *Plan) checkNeeds(s *Step) error {
	var byID map[string]*Step
	if len(s.Needs) > 0 {
		byID = p.index()
	}
	var open []string
	for _, n := range s.Needs {
		if d, ok := byID[n]; ok && !d.Status.Resolved() {
			open = append(open, n+" ("+string(d.Status)+")")
		}
	}
	if len(open) > 0 {
		return Errorf(CodeInvalidStatus, "step %s needs %s first; finish those, or pass --force", s.ID, strings.Join(open, ", ")).
			With("step", s.ID).With("needs", s.Needs)
	}
	if ph := p.WaitsFor(s); ph != nil {
		var left []string
		for _, x := range ph.Steps {
			if !x.Status.Resolved() {
				left = append(left, x.ID)
			}
		}
		return Errorf(CodeInvalidStatus, "step %s waits for phase %s (%s), whose steps %s are not done; phases run in order (phase_order strict): finish them, or pass --force",
			s.ID, ph.ID, Clip(ph.Title), strings.Join(left, ", ")).With("step", s.ID).With("phase", ph.ID)
	}
	return nil
}

// StepEdit lists the fields to change; nil means unchanged.
type StepEdit struct {
	Text   *string
	Needs  *[]string
	Why    *string
	Active *string
	Force  bool // edit a step in progress
}

// EditStep changes a step's text, needs, reasoning or active form. Completed
// and skipped steps are a record and are not edited; reopen them first. A
// step in progress is what someone is doing, so it is edited only with
// Force.
func (p *Plan) EditStep(id string, e StepEdit, now time.Time) (Change, error) {
	if err := p.Editable(); err != nil {
		return Change{}, err
	}
	s, _, err := p.Step(id)
	if err != nil {
		return Change{}, err
	}
	if err := s.settled(); err != nil {
		return Change{}, err
	}
	if s.Status.Resolved() {
		return Change{}, Errorf(CodeStepNotEditable, "step %s is %s and is kept as a record; reopen it first: plangit step reopen %s", s.ID, s.Status, s.ID).With("step", s.ID)
	}
	if s.Status == StepInProgress && !e.Force {
		return Change{}, Errorf(CodeStepNotEditable, "step %s is in progress", s.ID).Hinted("pass --force to change it anyway").With("step", s.ID).With("status", string(s.Status))
	}
	old := *s
	var changed []string
	if e.Text != nil {
		t, err := CleanLine("step text", *e.Text)
		if err != nil {
			return Change{}, err
		}
		if t == "" {
			return Change{}, Errorf(CodeInvalidArgument, "a step needs text")
		}
		if t != s.Text {
			s.Text, changed = t, append(changed, "text")
		}
	}
	if e.Why != nil {
		w, err := CleanText("why", *e.Why)
		if err != nil {
			return Change{}, err
		}
		if w != s.Why {
			s.Why, changed = w, append(changed, "why")
		}
	}
	if e.Active != nil {
		a, err := CleanLine("active form", *e.Active)
		if err != nil {
			return Change{}, err
		}
		if a != s.Active {
			s.Active, changed = a, append(changed, "active form")
		}
	}
	if e.Needs != nil {
		n := dedupe(*e.Needs)
		if !slices.Equal(n, s.Needs) {
			s.Needs, changed = n, append(changed, "needs")
			if err := p.Validate(); err != nil {
				*s = old
				return Change{}, err
			}
		}
	}
	if len(changed) == 0 {
		return Change{}, nil
	}
	p.Touch(now)
	return Change{Op: "step.edit", Step: s.ID, Summary: fmt.Sprintf("step %s: edit %s", s.ID, strings.Join(changed, ", "))}, nil
}

// RemoveStep removes a pending step that no other step needs.
func (p *Plan) RemoveStep(id string, now time.Time) (Change, error) {
	if err := p.Editable(); err != nil {
		return Change{}, err
	}
	s, ph, err := p.Step(id)
	if err != nil {
		return Change{}, err
	}
	if err := s.settled(); err != nil {
		return Change{}, err
	}
	if s.Status != StepPending {
		return Change{}, Errorf(CodeStepNotEditable, "step %s is %s; only pending steps can be removed (skip it instead: plangit step skip %s)", s.ID, s.Status, s.ID).With("step", s.ID)
	}
	for _, o := range p.Steps() {
		if slices.Contains(o.Needs, s.ID) {
			return Change{}, Errorf(CodeInvalidDependency, "step %s needs step %s; change its needs first: plangit step edit %s --needs ...", o.ID, s.ID, o.ID).
				With("step", s.ID).With("needed_by", o.ID)
		}
	}
	ph.Steps = slices.DeleteFunc(ph.Steps, func(x *Step) bool { return x == s })
	p.Touch(now)
	return Change{Op: "step.rm", Step: s.ID, Summary: fmt.Sprintf("step %s: removed (%s)", s.ID, Clip(s.Text))}, nil
}

// SetProgress records a step's sub-progress.
func (p *Plan) SetProgress(id string, pr Progress, now time.Time) (Change, error) {
	if err := p.requireRunning(); err != nil {
		return Change{}, err
	}
	s, _, err := p.Step(id)
	if err != nil {
		return Change{}, err
	}
	if err := s.settled(); err != nil {
		return Change{}, err
	}
	if s.Status.Resolved() || s.Status == StepFailed {
		return Change{}, Errorf(CodeInvalidStatus, "step %s is %s", s.ID, s.Status).Hinted("progress is for steps under way").With("step", s.ID)
	}
	if s.Progress == pr {
		return Change{}, nil
	}
	s.Progress = pr
	p.Touch(now)
	return Change{Op: "step.progress", Step: s.ID, Summary: fmt.Sprintf("step %s: progress %s", s.ID, pr)}, nil
}

// RevertStatus puts step id's status, and the fields that go with a status
// (times, result, reason, progress, retries), back to what old recorded:
// the undoing of one status change that history names (what is a label for
// it, "@12"). It is not bound by the transition table — it restores a state
// the step was in — and leaves the step's text and needs alone.
func (p *Plan) RevertStatus(id string, old *Step, what string, now time.Time) (Change, error) {
	if !p.Status.Unfinished() {
		return Change{}, p.finishedError()
	}
	s, _, err := p.Step(id)
	if err != nil {
		return Change{}, err
	}
	if err := s.settled(); err != nil {
		return Change{}, err
	}
	from := s.Status
	s.Status, s.Started, s.Completed = old.Status, old.Started, old.Completed
	s.Result, s.Reason, s.Progress, s.Retries = old.Result, old.Reason, old.Progress, old.Retries
	p.Touch(now)
	c := Change{Op: "step.revert", Step: s.ID, Summary: fmt.Sprintf("step %s: %s → %s (revert of %s)", s.ID, from, s.Status, what)}
	if from.Resolved() && !s.Status.Resolved() {
		c.Summary += p.underWay(s.ID)
	}
	return c, nil
}

// planTransition moves the plan between statuses.
func (p *Plan) planTransition(op string, from []PlanStatus, to PlanStatus, hint string, now time.Time) (Change, error) {
	if err := p.settledPlan("status", "result", "reason"); err != nil {
		return Change{}, err
	}
	if !slices.Contains(from, p.Status) {
		return Change{}, Errorf(CodeInvalidStatus, "cannot %s: the plan is %s%s", op, p.Status, hint).With("status", string(p.Status))
	}
	old := p.Status
	p.Status = to
	p.Touch(now)
	return Change{Op: "plan." + op, Summary: fmt.Sprintf("plan: %s → %s", old, to)}, nil
}

// Pause pauses a running plan.
func (p *Plan) Pause(reason string, now time.Time) (Change, error) {
	reason, err := CleanText("reason", reason)
	if err != nil {
		return Change{}, err
	}
	c, err := p.planTransition("pause", []PlanStatus{PlanRunning}, PlanPaused, "", now)
	if err == nil {
		p.Reason = reason
	}
	return c, err
}

// Resume resumes a paused plan.
func (p *Plan) Resume(now time.Time) (Change, error) {
	c, err := p.planTransition("resume", []PlanStatus{PlanPaused}, PlanRunning, "", now)
	if err == nil {
		p.Reason = ""
	}
	return c, err
}

// Approve starts a plan that awaits approval.
func (p *Plan) Approve(now time.Time) (Change, error) {
	return p.planTransition("approve", []PlanStatus{PlanPending}, PlanRunning, "; only a plan awaiting approval can be approved", now)
}

// Abort ends an unfinished plan as failed.
func (p *Plan) Abort(reason string, now time.Time) (Change, error) {
	reason, err := CleanText("reason", reason)
	if err != nil {
		return Change{}, err
	}
	if reason == "" {
		return Change{}, Errorf(CodeInvalidArgument, "say why the plan is aborted: plangit abort --reason \"...\"")
	}
	c, err := p.planTransition("abort", []PlanStatus{PlanPending, PlanRunning, PlanPaused}, PlanFailed, "", now)
	if err == nil {
		p.Reason = reason
	}
	return c, err
}

// Finish completes the plan with its final result. Unless forced, every step
// must be completed or skipped.
func (p *Plan) Finish(result string, force bool, now time.Time) (Change, error) {
	result, err := CleanText("result", result)
	if err != nil {
		return Change{}, err
	}
	if left := p.Unfinished(); len(left) > 0 && !force && p.Status.Unfinished() {
		ids := make([]string, len(left))
		for i, s := range left {
			ids[i] = s.ID
		}
		what := "steps " + strings.Join(ids, ", ") + " are not done; finish them, skip them"
		if len(ids) == 1 {
			what = "step " + ids[0] + " is not done; finish it, skip it"
		}
		return Change{}, Errorf(CodeInvalidStatus, "%s, or pass --force", what).With("unfinished", ids)
	}
	c, err := p.planTransition("finish", []PlanStatus{PlanRunning, PlanPaused}, PlanCompleted, "", now)
	if err == nil {
		p.Result, p.Reason = result, ""
	}
	return c, err
}

// Reset puts every step back to pending and the plan back to running.
// Texts, needs and reasoning stay; results, times, progress and retries go.
func (p *Plan) Reset(now time.Time) Change {
	for _, s := range p.Steps() {
		s.Status, s.Result, s.Reason = StepPending, "", ""
		s.Progress, s.Started, s.Completed, s.Retries = Progress{}, time.Time{}, time.Time{}, 0
	}
	old := p.Status
	p.Status, p.Result, p.Reason, p.Iterations = PlanRunning, "", "", 0
	p.Touch(now)
	return Change{Op: "plan.reset", Summary: fmt.Sprintf("plan: reset (%s → running, every step pending)", old)}
}

func dedupe(ids []string) []string {
	var out []string
	for _, id := range ids {
		if id = normalizeID(strings.TrimSpace(id)); id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
