package cmd

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// Tools are plangit's commands as an MCP server offers them to a model:
// typed inputs in, and out what the command prints — the data of its --json
// envelope and the text a person reads. Each call runs the same function
// the command line runs, on a Factory of its own, so calls may run at once;
// changes serialise on the session's lock as the CLI's do.
//
// Every input names its session or leaves it to the server: then
// PLANGIT_SESSION, else the project's only unfinished session, else the
// active one, and the result says which it used.
type Tools struct {
	base *Factory
}

// NewTools returns the tools over f's project, environment and clock.
func NewTools(f *Factory) *Tools { return &Tools{base: f} }

// ToolResult is what a tool call produced.
type ToolResult struct {
	// Data is what the command's --json envelope holds.
	Data any
	// Text is what the command prints for a person.
	Text string
	// Session is the session the call used, and Chosen how it was chosen
	// when the input named none.
	Session, Chosen string
}

// Note says which session a call used when the input named none.
func (r *ToolResult) Note() string {
	if r == nil || r.Chosen == "" {
		return ""
	}
	return fmt.Sprintf("[session %s: %s]", r.Session, r.Chosen)
}

// Inputs. Every tool takes session; changes take if_rev.

// StatusInput asks where the plan stands.
type StatusInput struct {
	Session string `json:"session,omitempty"`
}

// ShowInput reads the plan, or one step with its history.
type ShowInput struct {
	Step             string   `json:"step,omitempty"`
	Status           []string `json:"status,omitempty"`
	IncludeCompleted bool     `json:"include_completed,omitempty"`
	Rev              string   `json:"rev,omitempty" jsonschema:"as at rev"`
	Session          string   `json:"session,omitempty"`
}

// StepInput changes a step.
type StepInput struct {
	Action   string  `json:"action"`
	ID       string  `json:"id,omitempty"`
	Text     *string `json:"text,omitempty"`
	Phase    string  `json:"phase,omitempty" jsonschema:"add: id or title"`
	After    string  `json:"after,omitempty" jsonschema:"add: after this step"`
	Needs    *string `json:"needs,omitempty" jsonschema:"ids, e.g. 1,2"`
	Why      *string `json:"why,omitempty"`
	Result   string  `json:"result,omitempty" jsonschema:"done: what it produced"`
	Reason   string  `json:"reason,omitempty" jsonschema:"fail, skip, block: why"`
	Retry    *bool   `json:"retry,omitempty" jsonschema:"fail: false: no retry"`
	Force    bool    `json:"force,omitempty" jsonschema:"past open needs, a claim, a step in progress"`
	Also     bool    `json:"also,omitempty" jsonschema:"next: beside one in progress"`
	Progress string  `json:"progress,omitempty" jsonschema:"N/M"`
	Lease    string  `json:"lease,omitempty"`
	Take     bool    `json:"take,omitempty"`
	Agent    string  `json:"agent,omitempty"`
	Token    int     `json:"token,omitempty"`
	IfRev    string  `json:"if_rev,omitempty"`
	Session  string  `json:"session,omitempty"`
}

// StepActions are the actions of the step tool, each with the inputs it
// takes besides action, session and if_rev.
var StepActions = []ActionSpec{
	{"add", []string{"text", "phase", "after", "needs", "why"}},
	{"start", []string{"id", "force"}},
	{"done", []string{"id", "result", "force"}},
	{"fail", []string{"id", "reason", "retry"}},
	{"skip", []string{"id", "reason"}},
	{"block", []string{"id", "reason"}},
	{"reopen", []string{"id"}},
	{"edit", []string{"id", "text", "needs", "why", "force"}},
	{"rm", []string{"id"}},
	{"progress", []string{"id", "progress"}},
	{"revert", []string{"id"}},
	{"next", []string{"also"}},
	{"claim", []string{"id", "lease", "take", "force"}},
	{"release", []string{"id", "force"}},
}

// ActionSpec is one action of a tool and the inputs it takes.
type ActionSpec struct {
	Name   string
	Inputs []string
}

// Names lists the actions' names.
func Names(specs []ActionSpec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.Name
	}
	return out
}

// PhaseInput adds or changes a phase.
type PhaseInput struct {
	Action  string  `json:"action"`
	ID      string  `json:"id,omitempty"`
	Title   *string `json:"title,omitempty"`
	Notes   *string `json:"notes,omitempty"`
	Status  string  `json:"status,omitempty" jsonschema:"edit: moves its steps"`
	Reason  string  `json:"reason,omitempty" jsonschema:"status blocked: why"`
	IfRev   string  `json:"if_rev,omitempty"`
	Session string  `json:"session,omitempty"`
}

// PhaseActions are the actions of the phase tool.
var PhaseActions = []ActionSpec{
	{"add", []string{"title", "notes"}},
	{"edit", []string{"id", "title", "notes", "status", "reason"}},
}

// PlanInput starts a plan or changes its state.
type PlanInput struct {
	Action  string   `json:"action"`
	Title   string   `json:"title,omitempty"`
	Goal    string   `json:"goal,omitempty"`
	Phases  []string `json:"phases,omitempty"`
	Reason  string   `json:"reason,omitempty"`
	Result  string   `json:"result,omitempty"`
	Force   bool     `json:"force,omitempty" jsonschema:"finish with steps open"`
	IfRev   string   `json:"if_rev,omitempty"`
	Session string   `json:"session,omitempty" jsonschema:"init: the new session's id"`
}

// PlanActions are the actions of the plan tool.
var PlanActions = []ActionSpec{
	{"init", []string{"title", "goal", "phases"}},
	{"pause", []string{"reason"}},
	{"resume", nil},
	{"approve", nil},
	{"finish", []string{"result", "force"}},
	{"abort", []string{"reason"}},
}

// FindingInput records or lists findings.
type FindingInput struct {
	Action   string   `json:"action"`
	Category string   `json:"category,omitempty"`
	Title    string   `json:"title,omitempty"`
	Content  string   `json:"content,omitempty" jsonschema:"markdown"`
	Source   string   `json:"source,omitempty" jsonschema:"path, URL or command"`
	Step     string   `json:"step,omitempty" jsonschema:"default: current"`
	IDs      []string `json:"ids,omitempty"`
	IfRev    string   `json:"if_rev,omitempty"`
	Session  string   `json:"session,omitempty"`
}

// FindingActions are the actions of the finding tool.
var FindingActions = []ActionSpec{
	{"add", []string{"category", "title", "content", "source", "step"}},
	{"list", []string{"category"}},
	{"rm", []string{"ids"}},
}

// ErrorInput logs, lists or resolves errors.
type ErrorInput struct {
	Action  string   `json:"action"`
	Tool    string   `json:"tool,omitempty"`
	Message string   `json:"message,omitempty"`
	Step    string   `json:"step,omitempty" jsonschema:"default: current"`
	Params  string   `json:"params,omitempty"`
	IDs     []string `json:"ids,omitempty" jsonschema:"resolve: none: all"`
	Note    string   `json:"note,omitempty" jsonschema:"resolve: how"`
	Open    bool     `json:"open,omitempty" jsonschema:"list: only unresolved"`
	IfRev   string   `json:"if_rev,omitempty"`
	Session string   `json:"session,omitempty"`
}

// ErrorActions are the actions of the error tool.
var ErrorActions = []ActionSpec{
	{"add", []string{"tool", "message", "step", "params"}},
	{"list", []string{"tool", "open"}},
	{"resolve", []string{"ids", "note"}},
}

// HistoryInput reads the history.
type HistoryInput struct {
	Action  string `json:"action"`
	Step    string `json:"step,omitempty"`
	Since   string `json:"since,omitempty" jsonschema:"log: 2h, 3d or a date"`
	Limit   int    `json:"limit,omitempty"`
	From    string `json:"from,omitempty" jsonschema:"diff: default HEAD~1"`
	To      string `json:"to,omitempty" jsonschema:"diff: default HEAD"`
	Session string `json:"session,omitempty"`
}

// HistoryActions are the actions of the history tool.
var HistoryActions = []ActionSpec{
	{"log", []string{"step", "since", "limit"}},
	{"diff", []string{"from", "to"}},
	{"blame", []string{"step"}},
	{"code", []string{"step", "from", "to"}},
}

// RollbackInput rolls the session's files back to a revision.
type RollbackInput struct {
	Rev     string `json:"rev,omitempty" jsonschema:"hash, HEAD~N or @N"`
	IfRev   string `json:"if_rev,omitempty"`
	Session string `json:"session,omitempty"`
}

// ImportInput imports a plan another tool wrote.
type ImportInput struct {
	Content string `json:"content" jsonschema:"the plan file's text"`
	Format  string `json:"format,omitempty" jsonschema:"default: detected"`
	DryRun  bool   `json:"dry_run,omitempty"`
	Append  bool   `json:"append,omitempty" jsonschema:"add, not update in place"`
	IfRev   string `json:"if_rev,omitempty"`
	Session string `json:"session,omitempty"`
}

// DeliverableInput records, removes or reads the deliverable.
type DeliverableInput struct {
	Text    string `json:"text,omitempty" jsonschema:"markdown"`
	Clear   bool   `json:"clear,omitempty"`
	IfRev   string `json:"if_rev,omitempty"`
	Session string `json:"session,omitempty"`
}

// Status says where the plan stands (plangit status).
func (t *Tools) Status(in StatusInput) (*ToolResult, error) {
	return t.run(in.Session, "", statusRun)
}

// Show reads the plan, some of its steps, or one step (plangit show).
func (t *Tools) Show(in ShowInput) (*ToolResult, error) {
	o := &showOptions{All: in.IncludeCompleted, Rev: in.Rev, Step: in.Step}
	if in.Status != nil {
		var err error
		if o.Statuses, err = parseStatuses(strings.Join(in.Status, ","), "status"); err != nil {
			return nil, err
		}
	}
	if o.Step != "" && (o.Statuses != nil || o.All) {
		return nil, toolArgf("step shows one step; status and include_completed are for the whole plan")
	}
	return t.run(in.Session, "", func(f *Factory) error {
		o.f = f
		return showRun(o)
	})
}

// Step adds, changes, moves or reverts a step (plangit step, next).
func (t *Tools) Step(in StepInput) (*ToolResult, error) {
	if err := checkAction("step", in.Action, StepActions, in); err != nil {
		return nil, err
	}
	var fn func(f *Factory) error
	switch a := in.Action; a {
	case "next":
		fn = func(f *Factory) error { return nextRun(f, in.Also) }
	case "claim":
		o := &claimOptions{lease: in.Lease, take: in.Take, force: in.Force}
		fn = func(f *Factory) error { return claimRun(f, in.ID, o) }
	case "release":
		fn = func(f *Factory) error { return releaseRun(f, in.ID, in.Force) }
	case "add":
		if in.Text == nil {
			return nil, toolArgf("step add needs text")
		}
		spec := plan.StepSpec{Text: *in.Text, Phase: in.Phase, After: in.After, Why: deref(in.Why)}
		spec.Needs = plan.ParseNeeds(deref(in.Needs))
		fn = func(f *Factory) error { return stepAddRun(f, spec) }
	case "edit":
		e := plan.StepEdit{Text: in.Text, Why: in.Why, Force: in.Force}
		if in.Needs != nil {
			n := plan.ParseNeeds(*in.Needs)
			e.Needs = &n
		}
		if e.Text == nil && e.Why == nil && e.Needs == nil {
			return nil, toolArgf("say what to change: text, needs or why")
		}
		fn = func(f *Factory) error { return stepEditRun(f, in.ID, e) }
	case "rm":
		fn = func(f *Factory) error { return stepRmRun(f, in.ID) }
	case "progress":
		pr, err := plan.ParseProgress(in.Progress)
		if err != nil {
			return nil, err
		}
		fn = func(f *Factory) error { return stepProgressRun(f, in.ID, pr) }
	case "revert":
		fn = func(f *Factory) error { return stepRevertRun(f, in.ID) }
	default: // a transition
		opts := plan.TransitionOpts{Result: in.Result, Reason: in.Reason, Force: in.Force}
		if in.Retry != nil {
			opts.Retry, opts.NoRetry = *in.Retry, !*in.Retry
		}
		fn = func(f *Factory) error { return transitionRun(f, in.ID, plan.Action(a), opts) }
	}
	if in.Action != "next" && in.Action != "add" && in.Action != "claim" && in.ID == "" {
		return nil, toolArgf("step %s needs the step's id", in.Action)
	}
	if in.Agent != "" {
		if err := plan.ValidAgent(in.Agent); err != nil {
			return nil, err
		}
	}
	if in.Token < 0 {
		return nil, toolArgf("token %d is not a claim's token: tokens are 1 and up", in.Token)
	}
	inner := fn
	fn = func(f *Factory) error {
		if in.Agent != "" {
			f.AgentFlag = in.Agent
		}
		f.Token, f.Force = in.Token, in.Force
		return inner(f)
	}
	return t.run(in.Session, in.IfRev, fn)
}

// Phase adds or changes a phase (plangit phase).
func (t *Tools) Phase(in PhaseInput) (*ToolResult, error) {
	if err := checkAction("phase", in.Action, PhaseActions, in); err != nil {
		return nil, err
	}
	if in.Action == "add" {
		if in.Title == nil {
			return nil, toolArgf("phase add needs a title")
		}
		return t.run(in.Session, in.IfRev, func(f *Factory) error { return phaseAddRun(f, *in.Title, deref(in.Notes)) })
	}
	if in.ID == "" {
		return nil, toolArgf("phase edit needs the phase's id (or title)")
	}
	e := plan.PhaseEdit{Title: in.Title, Notes: in.Notes, Reason: in.Reason}
	if in.Status != "" {
		st, err := plan.ParsePhaseStatus(in.Status)
		if err != nil {
			return nil, err
		}
		e.Status = &st
	}
	if e.Title == nil && e.Notes == nil && e.Status == nil {
		return nil, toolArgf("say what to change: title, notes or status")
	}
	return t.run(in.Session, in.IfRev, func(f *Factory) error { return phaseEditRun(f, in.ID, e) })
}

// Plan starts a plan in a new session, or pauses, resumes, approves,
// finishes or aborts it (plangit init, pause, …).
func (t *Tools) Plan(in PlanInput) (*ToolResult, error) {
	if err := checkAction("plan", in.Action, PlanActions, in); err != nil {
		return nil, err
	}
	var fn func(f *Factory) error
	switch in.Action {
	case "init":
		if in.Title == "" {
			return nil, toolArgf("plan init needs a title")
		}
		if in.IfRev != "" {
			return nil, toolArgf("plan init starts a session; if_rev is for changes to one")
		}
		// A new session: chosen by the input, PLANGIT_SESSION, or made up.
		return t.call(in.Session, "", "", "", func(f *Factory) error {
			return initRun(&initOptions{f: f, Title: in.Title, Goal: in.Goal, Phases: in.Phases})
		})
	case "pause":
		fn = func(f *Factory) error { return pauseRun(f, in.Reason) }
	case "resume":
		fn = resumeRun
	case "approve":
		fn = approveRun
	case "finish":
		fn = func(f *Factory) error { return finishRun(f, in.Result, in.Force) }
	case "abort":
		if in.Reason == "" {
			return nil, toolArgf("plan abort needs a reason")
		}
		fn = func(f *Factory) error { return abortRun(f, in.Reason) }
	}
	return t.run(in.Session, in.IfRev, fn)
}

// Finding records, lists or removes findings (plangit finding add,
// findings, finding rm).
func (t *Tools) Finding(in FindingInput) (*ToolResult, error) {
	if err := checkAction("finding", in.Action, FindingActions, in); err != nil {
		return nil, err
	}
	var cat plan.Category
	if in.Category != "" {
		var err error
		if cat, err = plan.ParseCategory(in.Category); err != nil {
			return nil, err
		}
	}
	switch in.Action {
	case "list":
		return t.run(in.Session, "", func(f *Factory) error { return findingsRun(f, cat) })
	case "rm":
		if len(in.IDs) == 0 {
			return nil, toolArgf("finding rm needs the ids")
		}
		if err := checkNoteRefs("a finding", in.IDs); err != nil {
			return nil, err
		}
		return t.run(in.Session, in.IfRev, func(f *Factory) error { return findingRmRun(f, in.IDs) })
	}
	if in.Title == "" {
		return nil, toolArgf("finding add needs a title")
	}
	if cat == "" {
		cat = plan.CatInsight
	}
	fd := plan.Finding{Category: cat, Title: in.Title, Content: in.Content, Source: in.Source, Step: in.Step}
	return t.run(in.Session, in.IfRev, func(f *Factory) error { return findingAddRun(f, fd) })
}

// Error logs an error, lists them, or resolves them (plangit error, errors).
func (t *Tools) Error(in ErrorInput) (*ToolResult, error) {
	if err := checkAction("error", in.Action, ErrorActions, in); err != nil {
		return nil, err
	}
	switch in.Action {
	case "list":
		return t.run(in.Session, "", func(f *Factory) error { return errorsRun(f, in.Tool, in.Open) })
	case "resolve":
		if err := checkNoteRefs("an error", in.IDs); err != nil {
			return nil, err
		}
		return t.run(in.Session, in.IfRev, func(f *Factory) error { return errorResolveRun(f, in.IDs, in.Note) })
	}
	if in.Tool == "" || in.Message == "" {
		return nil, toolArgf("error add needs the tool and the message")
	}
	rec := plan.ErrorRecord{Tool: in.Tool, Message: in.Message, Step: in.Step, Params: in.Params}
	return t.run(in.Session, in.IfRev, func(f *Factory) error { return errorAddRun(f, rec) })
}

// History reads the log, a semantic diff or the blame (plangit log, diff,
// blame).
func (t *Tools) History(in HistoryInput) (*ToolResult, error) {
	if err := checkAction("history", in.Action, HistoryActions, in); err != nil {
		return nil, err
	}
	switch in.Action {
	case "diff":
		var revs []string
		switch {
		case in.From != "" && in.To != "":
			revs = []string{in.From, in.To}
		case in.From != "":
			revs = []string{in.From}
		case in.To != "":
			return nil, toolArgf("history diff with to needs from")
		}
		return t.run(in.Session, "", func(f *Factory) error { return diffRun(f, revs, false, false) })
	case "blame":
		return t.run(in.Session, "", func(f *Factory) error { return blameRun(f, in.Step) })
	case "code":
		// A step's work in the project (diff --code STEP), or the
		// project's files between two revisions (diff --code FROM TO).
		args := []string{in.Step}
		switch {
		case in.Step != "" && (in.From != "" || in.To != ""):
			return nil, toolArgf("history code takes a step, or from and to; not both")
		case in.Step != "":
			if err := plan.CheckStepRef(in.Step); err != nil {
				return nil, err
			}
		case in.From != "":
			args = []string{in.From, cmp.Or(in.To, "HEAD")}
		default:
			return nil, toolArgf("history code needs a step, or from (and to)")
		}
		return t.run(in.Session, "", func(f *Factory) error { return codeDiffRun(f, args, false) })
	}
	if in.Limit < 0 {
		return nil, toolArgf("limit must be positive")
	}
	o := history.LogOptions{N: in.Limit, Step: in.Step}
	if in.Since != "" {
		var err error
		if o.Since, err = history.ParseSince(in.Since, t.base.Now()); err != nil {
			return nil, err
		}
	}
	return t.run(in.Session, "", func(f *Factory) error { return logRun(f, o, false, false) })
}

// Rollback makes a revision whose files equal rev's, or undoes the last
// revision (plangit rollback, undo).
func (t *Tools) Rollback(in RollbackInput) (*ToolResult, error) {
	return t.run(in.Session, in.IfRev, func(f *Factory) error { return rollbackRun(f, in.Rev) })
}

// Import imports a plan another tool wrote, into the session or a new one
// (plangit import).
func (t *Tools) Import(in ImportInput) (*ToolResult, error) {
	if strings.TrimSpace(in.Content) == "" {
		return nil, toolArgf("import needs the plan's content")
	}
	fn := func(f *Factory) error { return importRun(f, "-", in.Format, in.DryRun, in.Append) }
	id, how, err := t.pick(in.Session)
	if errors.Is(err, errNoSession) {
		// No session yet: the import starts one, as plangit import does.
		return t.call("", "", in.IfRev, in.Content, fn)
	}
	if err != nil {
		return &ToolResult{Session: id, Chosen: how}, err
	}
	return t.call(id, how, in.IfRev, in.Content, fn)
}

// Deliverable records the deliverable, removes it, or reads it (plangit
// deliverable).
func (t *Tools) Deliverable(in DeliverableInput) (*ToolResult, error) {
	switch {
	case in.Clear && in.Text != "":
		return nil, toolArgf("clear removes the deliverable; give no text with it")
	case in.Clear:
		return t.run(in.Session, in.IfRev, func(f *Factory) error { return deliverableSetRun(f, nil) })
	case strings.TrimSpace(in.Text) != "":
		return t.run(in.Session, in.IfRev, func(f *Factory) error { return deliverableSetRun(f, []byte(in.Text)) })
	case in.Text != "":
		return nil, toolArgf("the deliverable is empty; give its text, or clear to remove it")
	}
	if in.IfRev != "" {
		return nil, toolArgf("if_rev is for changes; give text or clear")
	}
	return t.run(in.Session, "", deliverableShow)
}

// errNoSession is pick's answer for a project with no session to use.
var errNoSession = errors.New("no session")

// pick chooses the session of a call: the one named, else PLANGIT_SESSION,
// else the project's only unfinished session, else the active one. how
// says which rule chose it ("" when the input named it).
func (t *Tools) pick(named string) (id, how string, err error) {
	if named != "" {
		return named, "", repo.ValidateSessionID(named)
	}
	if env := t.base.Getenv("PLANGIT_SESSION"); env != "" {
		return env, "PLANGIT_SESSION", repo.ValidateSessionID(env)
	}
	proj, err := t.base.Project()
	if err != nil {
		return "", "", err
	}
	unfinished, err := unfinishedSessions(proj)
	if err != nil {
		return "", "", err
	}
	if len(unfinished) == 1 {
		return unfinished[0], "the only unfinished session", nil
	}
	active, err := proj.Active()
	if err != nil {
		return "", "", err
	}
	if active != "" {
		return active, "the active session", nil
	}
	if len(unfinished) > 1 {
		return "", "", plan.Errorf(plan.CodePlanNotFound, "%d sessions are unfinished (%s) and none is active; pass session",
			len(unfinished), strings.Join(unfinished, ", ")).With("sessions", unfinished)
	}
	return "", "", fmt.Errorf("%w: %w", errNoSession,
		plan.Errorf(plan.CodePlanNotFound, "no plan in %s yet; plan with action init starts one", proj.Dir()))
}

// unfinishedSessions lists the project's sessions whose plan is not done.
func unfinishedSessions(proj repo.Project) ([]string, error) {
	ids, err := proj.SessionIDs()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range ids {
		s, err := proj.Open(id)
		if err != nil {
			continue
		}
		if st, err := s.State(); err == nil && st.Plan.Status.Unfinished() {
			out = append(out, id)
		}
	}
	return out, nil
}

// run calls fn for the session pick chooses.
func (t *Tools) run(named, ifRev string, fn func(f *Factory) error) (*ToolResult, error) {
	id, how, err := t.pick(named)
	if err != nil {
		return &ToolResult{Session: id, Chosen: how}, err
	}
	return t.call(id, how, ifRev, "", fn)
}

// call runs fn on a Factory of its own: session id (or none), if_rev,
// stdin holding input, and what fn prints captured as the result.
func (t *Tools) call(id, how, ifRev, input string, fn func(f *Factory) error) (*ToolResult, error) {
	f := *t.base
	f.IO = &IOStreams{In: strings.NewReader(input), Out: io.Discard, ErrOut: io.Discard}
	f.SessionFlag, f.IfRev, f.JSON, f.Quiet, f.NoColor = id, ifRev, false, false, true
	// Text for a model: plain, whatever the server's environment asks of
	// a terminal.
	f.Getenv = func(k string) string {
		if k == "CLICOLOR_FORCE" || k == "COLUMNS" {
			return ""
		}
		return t.base.Getenv(k)
	}
	res := &ToolResult{Session: id, Chosen: how}
	f.capture = func(data any, human func(io.Writer)) {
		res.Data = data
		if human != nil {
			var b strings.Builder
			human(&b)
			res.Text = b.String()
		}
	}
	if err := fn(&f); err != nil {
		return res, err
	}
	if m, ok := res.Data.(map[string]any); ok && res.Session == "" {
		res.Session, _ = m["session"].(string)
	}
	return res, nil
}

// checkAction checks that action is one of specs and that in sets only the
// inputs it takes.
func checkAction(tool, action string, specs []ActionSpec, in any) error {
	i := slices.IndexFunc(specs, func(s ActionSpec) bool { return s.Name == action })
	if i < 0 {
		return toolArgf("%s: unknown action %q; one of %s", tool, action, strings.Join(Names(specs), ", "))
	}
	for _, name := range givenInputs(in) {
		if !slices.Contains(specs[i].Inputs, name) {
			takes := "nothing but session and if_rev"
			if len(specs[i].Inputs) > 0 {
				takes = strings.Join(specs[i].Inputs, ", ")
			}
			return toolArgf("%s %s takes %s, not %s", tool, action, takes, name)
		}
	}
	return nil
}

// givenInputs lists the JSON names of in's fields that are set, besides
// action, session and if_rev.
func givenInputs(in any) []string {
	v := reflect.ValueOf(in)
	var out []string
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if name != "action" && name != "session" && name != "if_rev" && name != "agent" && name != "token" && !v.Field(i).IsZero() {
			out = append(out, name)
		}
	}
	return out
}

// toolArgf is a tool's INVALID_ARGUMENT error.
func toolArgf(format string, args ...any) error {
	return plan.Errorf(plan.CodeInvalidArgument, format, args...)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// File reads one of a session's files as it stands: task_plan.md,
// findings.md, errors.md or deliverable.md.
func (t *Tools) File(session, name string) ([]byte, error) {
	if !slices.Contains(plan.SessionFiles, name) {
		return nil, toolArgf("no session file %q; one of %s", name, strings.Join(plan.SessionFiles, ", "))
	}
	proj, err := t.base.Project()
	if err != nil {
		return nil, err
	}
	s, err := proj.Open(session)
	if err != nil {
		return nil, err
	}
	files, err := s.ReadFiles()
	if err != nil {
		return nil, err
	}
	data, ok := files[name]
	if !ok {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "session %s has no %s", session, name)
	}
	return data, nil
}
