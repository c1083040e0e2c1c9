// Package interop holds the readers and writers of other tools' plan
// formats — the seeds' JSON and markdown shapes — beside the model in
// package plan: TodoWrite lists, Claude Code task data, planning-with-files
// and Manus-style task_plan.md, findings.md and errors.md, maxclaw's
// plan.json, the plan tool's, PlanManager's and Plan-and-Execute's JSON.
//
// Import reads one into a whole session state and reports, field by
// field, what it did not keep (Dropped); Append and Update bring an
// imported state into a session's. The package knows nothing of files or
// git: it reads bytes, as plan does.
package interop

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
)

// Import formats.
const (
	FormatPlangit     = "plangit"      // plangit's own task_plan.md
	FormatTodos       = "todos"        // a TodoWrite {"todos":[...]} list
	FormatTasks       = "tasks"        // Claude Code Task tool data
	FormatPWF         = "pwf"          // a planning-with-files task_plan.md
	FormatManus       = "manus"        // a Manus-style task_plan.md: objective, phases with status icons
	FormatMaxclaw     = "maxclaw"      // {goal, steps, current_step_index}
	FormatPlanTool    = "plan-tool"    // {task_description, steps}
	FormatPlanManager = "plan-manager" // {meta, state, tasks} with dependencies
	FormatPlanExecute = "plan-execute" // a Plan-and-Execute plan {state, tasks} or response {planResult, ...}
	FormatFindings    = "findings"     // a findings.md: plangit's, or a Manus-style one (no plan)
	FormatErrors      = "errors"       // an errors.md: plangit's, or a Manus-style one (no plan)
	FormatSpecKit     = "spec-kit"     // GitHub spec-kit's tasks.md: - [ ] T001 [P] [US1] ... under ## Phase N
	FormatOpenSpec    = "openspec"     // OpenSpec's tasks.md: - [ ] 1.1 ... under ## 1. Group
	FormatClaudePlan  = "claude-plan"  // a Claude Code plan mode plan file (~/.claude/plans/*.md)
)

// ImportFormats lists the formats Import reads.
var ImportFormats = []string{FormatPlangit, FormatTodos, FormatTasks, FormatPWF, FormatManus, FormatMaxclaw, FormatPlanTool, FormatPlanManager, FormatPlanExecute, FormatFindings, FormatErrors, FormatSpecKit, FormatOpenSpec, FormatClaudePlan}

// Imported is what an import read: a whole session state — the plan, and
// the findings and errors the source held — and what the source held that
// plangit did not keep, each with the reason.
type Imported struct {
	Format  string
	State   *plan.State
	Dropped []Dropped
	// IDs says the steps' ids are the source's own: a seed plan's step
	// numbers (the plan tool's step, maxclaw's step_N, PlanManager's and
	// Plan-and-Execute's task ids), which name the same step each time the
	// tool writes its plan again. Update matches steps by them first.
	IDs bool
	// Partial says the source names some steps only, as Plan-and-Execute's
	// per-task response does: it applies to the steps it names and adds
	// none.
	Partial bool
	// Labels says each step's text opens with the source's own task id
	// (spec-kit's T001, OpenSpec's 1.2; TaskLabel): Update matches steps
	// by it before their text.
	Labels bool
	// Boxes says the source tells of a step only whether it is done (a
	// checkbox): an unticked box leaves a step that is not done as it is
	// (in progress, blocked), a ticked one a skipped step skipped.
	Boxes bool
	// Plain says the source's steps carry no status but a ticked box, as
	// a plan from Claude Code's plan mode: a step the source does not
	// tick keeps the plan's status, so a re-plan undoes no work done.
	Plain bool
}

// Dropped is one thing a source held that the import did not keep as it
// was.
type Dropped struct {
	Field string `json:"field"`           // where: a JSON path (steps[2].priority) or a line (line 12)
	Value string `json:"value,omitempty"` // what it held, cut to a line
	Why   string `json:"why"`
}

// String writes d as a line of an import's report: field (value): why.
func (d Dropped) String() string {
	if d.Value == "" {
		return d.Field + ": " + d.Why
	}
	return d.Field + " (" + d.Value + "): " + d.Why
}

// Import reads a plan in one of ImportFormats; format "" detects it. name
// is the source's name for error positions ("todos.json", "stdin"). Times
// the source gives are kept; what it does not date stays undated.
//
// An import that finds no step, or a status it does not know, fails with
// PLAN_PARSE_ERROR or INVALID_ARGUMENT naming the field.
func Import(name string, src []byte, format string, now time.Time) (*Imported, error) {
	if len(src) > plan.MaxFile {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "the file is %d bytes; plangit imports files up to %d bytes", len(src), plan.MaxFile)
	}
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	if format != "" && !slices.Contains(ImportFormats, format) {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "unknown format %q; one of %s", plan.Clip(format), strings.Join(ImportFormats, ", "))
	}
	t := bytes.TrimSpace(src)
	if len(t) == 0 {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "the file is empty")
	}
	// A source named .json is read as JSON: one that is not gets the
	// JSON reader's error, at its position, not the markdown detector's.
	isJSON := t[0] == '{' || t[0] == '[' || format == "" && strings.HasSuffix(strings.ToLower(name), ".json")
	if format == "" && !isJSON {
		format = detectMarkdown(src)
	}
	var (
		in  *Imported
		err error
	)
	switch format {
	case FormatPlangit:
		var p *plan.Plan
		if p, err = plan.ParsePlan(src); err == nil {
			in = &Imported{State: &plan.State{Plan: p}}
			if p.ID != "" {
				in.Dropped = []Dropped{{Field: "id", Value: p.ID, Why: "the plan takes its session's id"}}
			}
		}
	case FormatPWF:
		in, err = importPWF(name, src, now)
	case FormatManus:
		in, err = importManus(name, src, now)
	case FormatSpecKit, FormatOpenSpec:
		in, err = importTasks(name, src, format, now)
	case FormatClaudePlan:
		in, err = importClaudePlan(name, src, now)
	case FormatFindings, FormatErrors:
		// Notes and an error log, no plan: they go into a session's.
		st := &plan.State{Plan: &plan.Plan{}}
		if format == FormatFindings {
			st.Findings, err = plan.ParseFindings(src)
		} else {
			st.Errors, err = plan.ParseErrors(src)
		}
		if err != nil {
			return nil, err
		}
		if len(st.Findings)+len(st.Errors) == 0 {
			return nil, plan.Errorf(plan.CodePlanParseError, "%s: found nothing in this %s file", name, format).Hinted("nothing to import").With("format", format)
		}
		return &Imported{Format: format, State: st}, nil
	default:
		in, err = importJSON(name, t, format, now)
	}
	if err != nil {
		return nil, err
	}
	if in.Format == "" {
		in.Format = format
	}
	if in.State.Plan.Counts().Total == 0 && !initialMaxclaw(in) {
		return nil, plan.Errorf(plan.CodePlanParseError, "%s: found no step in this %s plan", name, in.Format).Hinted("nothing to import").With("format", in.Format)
	}
	if err := in.State.Plan.Validate(); err != nil {
		return nil, err
	}
	return in, nil
}

// initialMaxclaw reports whether in is maxclaw's initial plan: a goal and
// no steps yet (seed 000, "Plan 初始结构": goal = the person's message, steps
// = [], filled in by the model as it goes). It imports as a plan without
// steps, titled with its goal.
func initialMaxclaw(in *Imported) bool {
	return in.Format == FormatMaxclaw && in.State.Plan.Goal != ""
}

// DetectFormat tells which import format src is in.
func DetectFormat(src []byte) (string, error) {
	t := bytes.TrimSpace(bytes.TrimPrefix(src, []byte("\uFEFF")))
	if len(t) == 0 {
		return "", plan.Errorf(plan.CodeInvalidArgument, "the file is empty")
	}
	if t[0] != '{' && t[0] != '[' {
		return detectMarkdown(t), nil
	}
	root, err := parseJSONTree("input", t)
	if err != nil {
		return "", err
	}
	return detectJSON(root)
}

// importStatuses maps the step statuses other tools write onto plangit's.
var importStatuses = map[string]plan.StepStatus{
	"pending": plan.StepPending, "todo": plan.StepPending, "to_do": plan.StepPending, "not_started": plan.StepPending, "open": plan.StepPending,
	"queued": plan.StepPending, "waiting": plan.StepPending, "new": plan.StepPending, "planned": plan.StepPending,
	"in_progress": plan.StepInProgress, "inprogress": plan.StepInProgress, "running": plan.StepInProgress, "active": plan.StepInProgress,
	"doing": plan.StepInProgress, "wip": plan.StepInProgress, "started": plan.StepInProgress, "executing": plan.StepInProgress, "current": plan.StepInProgress,
	"completed": plan.StepCompleted, "complete": plan.StepCompleted, "done": plan.StepCompleted, "resolved": plan.StepCompleted, "success": plan.StepCompleted,
	"succeeded": plan.StepCompleted, "succeed": plan.StepCompleted, "passed": plan.StepCompleted, "finished": plan.StepCompleted,
	"failed": plan.StepFailed, "failure": plan.StepFailed, "error": plan.StepFailed, "errored": plan.StepFailed,
	"skipped": plan.StepSkipped, "skip": plan.StepSkipped, "cancelled": plan.StepSkipped, "canceled": plan.StepSkipped,
	"blocked": plan.StepBlocked,
}

// ImportStatus reads another tool's step status ("running", "done",
// "Succeed", "in-progress", ...); ok is false for a status it does not know.
// An empty status is pending.
func ImportStatus(s string) (plan.StepStatus, bool) {
	k := strings.ReplaceAll(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_"), " ", "_")
	if k == "" {
		return plan.StepPending, true
	}
	st, ok := importStatuses[k]
	return st, ok
}

// MapStatus maps another tool's step status onto plangit's, reading one it
// does not know as pending. Imports refuse unknown statuses instead
// (ImportStatus); hooks, which must not fail, use this.
func MapStatus(s string) plan.StepStatus {
	st, _ := ImportStatus(s)
	return st
}

// importPlanStatus reads another tool's plan status. PlanManager's idle (no
// task running) is a running plan with no step in progress.
func importPlanStatus(s string) (plan.PlanStatus, bool) {
	switch strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_") {
	case "", "running", "executing", "in_progress", "active", "idle":
		return plan.PlanRunning, true
	case "pending", "awaiting_approval":
		return plan.PlanPending, true
	case "paused":
		return plan.PlanPaused, true
	case "completed", "complete", "done", "succeed", "succeeded", "success", "finished":
		return plan.PlanCompleted, true
	case "failed", "aborted", "cancelled", "canceled":
		return plan.PlanFailed, true
	}
	return "", false
}

const stepStatusNames = "pending, in_progress, completed, failed, skipped, blocked (or running, done, succeed, cancelled, ...)"

// builder assembles an imported state and the report of what was dropped.
type builder struct {
	name        string // the source's name, for messages
	p           *plan.Plan
	st          *plan.State
	now         time.Time
	steps       []*bstep
	current     *bstep // the step the source names as the one under way
	dropped     []Dropped
	newFindings []*plan.Finding // added to st in finish, in one pass
	keptIDs     bool            // settleIDs kept the source's step ids
	partial     bool            // the source names some steps only (Imported.Partial)
}

// bstep is an imported step with where it came from.
type bstep struct {
	s         *plan.Step
	path      string // the step in the source: steps[2], line 14
	srcID     string // the source's id for it, if any
	idPath    string
	needs     []string // source ids
	needsPath string
}

func newBuilder(name, title, goal string, now time.Time) *builder {
	p := &plan.Plan{Status: plan.PlanRunning, Created: plan.Stamp(now), Updated: plan.Stamp(now), NextStep: 1, NextPhase: 1, Rules: plan.DefaultRules()}
	b := &builder{name: name, p: p, st: &plan.State{Plan: p}, now: plan.Stamp(now)}
	b.setTitle("title", title)
	p.Goal = b.text("goal", goal)
	return b
}

// drop reports that the source's field was not kept.
func (b *builder) drop(field, value, why string) {
	b.dropped = append(b.dropped, Dropped{Field: field, Value: clipLine(value), Why: why})
}

// clipLine cuts a value to one short line for the dropped report.
func clipLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		return string(r[:119]) + "…"
	}
	return s
}

// line cleans a one-line value from the source, reporting a cut.
func (b *builder) line(field, s string) string {
	return b.clean(field, s, plan.MaxLine, "a line", plan.CleanLine)
}

// text cleans a multi-line value from the source, reporting a cut.
func (b *builder) text(field, s string) string {
	return b.clean(field, s, plan.MaxText, "a text", plan.CleanText)
}

// block cleans a value from the source written as its own block, reporting
// a cut.
func (b *builder) block(field, s string) string {
	return b.clean(field, s, plan.MaxText, "a text", plan.CleanBlock)
}

func (b *builder) clean(field, s string, limit int, what string, clean func(field, s string) (string, error)) string {
	if len(s) > limit {
		b.drop(field, s[limit-10:], fmt.Sprintf("cut to %d bytes, plangit's limit for %s", limit, what))
		s = plan.TruncateText(s, limit)
	}
	out, _ := clean(field, s)
	return out
}

// setTitle sets the plan's title from the first line of s; the rest of a
// long, multi-line title stays in the goal when the goal is the same text.
func (b *builder) setTitle(field, s string) {
	s = strings.TrimSpace(s)
	first, _, _ := strings.Cut(s, "\n")
	if t := b.line(field, plan.TruncateText(strings.TrimSpace(first), 200)); t != "" {
		b.p.Title = t
	}
}

func (b *builder) phase(title string) *plan.Phase {
	t := b.line("phase title", title)
	if t == "" {
		t = plan.DefaultPhaseTitle
	}
	ph := &plan.Phase{ID: strconv.Itoa(b.p.NextPhase), Title: t}
	b.p.NextPhase++
	b.p.Phases = append(b.p.Phases, ph)
	return ph
}

// step adds a step with the status the source gives; its id is settled in
// finish. It returns nil, having reported it, for a step without text.
func (b *builder) step(ph *plan.Phase, path, text string, st plan.StepStatus) *bstep {
	t := b.line(path, text)
	if t == "" {
		b.drop(path, text, "a step without text")
		return nil
	}
	bs := &bstep{s: &plan.Step{Text: t, Status: st}, path: path}
	ph.Steps = append(ph.Steps, bs.s)
	b.steps = append(b.steps, bs)
	return bs
}

// finish settles ids and needs and leaves at most one step in progress.
func (b *builder) finish() (*Imported, error) {
	b.untitled()
	b.st.Findings.InsertAll(b.newFindings)
	b.settleIDs()
	byID := map[string]*bstep{}
	for _, bs := range b.steps {
		if bs.srcID != "" {
			byID[bs.srcID] = bs
		}
	}
	for _, bs := range b.steps {
		for _, n := range bs.needs {
			dep, ok := byID[n]
			if !ok {
				return nil, plan.Errorf(plan.CodeInvalidDependency, "%s: %s: step %q depends on %q, which the file does not define", b.name, bs.needsPath, plan.Clip(bs.s.Text), plan.Clip(n)).With("field", bs.needsPath)
			}
			if dep == bs {
				b.drop(bs.needsPath, n, "a step cannot wait for itself")
			} else if !slices.Contains(bs.s.Needs, dep.s.ID) {
				bs.s.Needs = append(bs.s.Needs, dep.s.ID)
			}
		}
	}
	b.oneInProgress()
	return &Imported{State: b.st, Dropped: b.dropped, Partial: b.partial}, nil
}

// untitled titles a plan the source gave no title. The seeds name the
// plan in one field (the plan tool's task_description, which it requires;
// maxclaw's goal; PlanManager's meta.goal); a file without it titles its
// plan with its first step, the most the file says of what the plan is
// for — better than a name every such import would share. The report says
// so.
func (b *builder) untitled() {
	if b.p.Title != "" || len(b.steps) == 0 {
		return
	}
	b.p.Title = plan.TruncateText(b.steps[0].s.Text, 200)
	b.dropped = append(b.dropped, Dropped{Field: "title", Why: "the file gives the plan no title; it takes its first step's text"})
}

// settleIDs keeps the source's step ids when every step has one that reads
// as a plangit id ("3", "#3", "step_3", "task-3") and no two are the same;
// otherwise it numbers the steps in order, reporting each id it changed.
func (b *builder) settleIDs() {
	keep := len(b.steps) > 0
	seen := map[string]bool{}
	for _, bs := range b.steps {
		id := plan.NormalizeID(bs.srcID)
		if !plan.IsStepID(id) || seen[id] {
			keep = false
			break
		}
		seen[id] = true
	}
	next := 1
	for i, bs := range b.steps {
		if keep {
			bs.s.ID = plan.NormalizeID(bs.srcID)
			n, _ := strconv.Atoi(bs.s.ID)
			next = max(next, n+1)
			continue
		}
		bs.s.ID = strconv.Itoa(i + 1)
		next = i + 2
		if bs.srcID != "" && plan.NormalizeID(bs.srcID) != bs.s.ID {
			b.drop(bs.idPath, bs.srcID, "not usable as a plangit step id (ids are unique numbers); the step is "+bs.s.ID)
		}
	}
	b.p.NextStep = next
	b.keptIDs = keep
}

// oneInProgress leaves one step in progress: the one the source names as
// current, else the first. The others go back to pending, reported.
func (b *builder) oneInProgress() {
	var keep *bstep
	if b.current != nil && b.current.s.Status == plan.StepInProgress {
		keep = b.current
	}
	for _, bs := range b.steps {
		if bs.s.Status != plan.StepInProgress {
			continue
		}
		if keep == nil {
			keep = bs
			continue
		}
		if bs == keep {
			continue
		}
		bs.s.Status, bs.s.Started = plan.StepPending, time.Time{}
		b.drop(bs.path, "in_progress", fmt.Sprintf("only one step is in progress at a time, and step %s is; this one (step %s) is pending", keep.s.ID, bs.s.ID))
	}
}

// timeField reads a time the source gives: RFC 3339, any offset, any
// fraction; it is kept to the second in UTC. A value that is no such time
// is reported and left out.
func (b *builder) timeField(field, v string) time.Time {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return plan.Stamp(t)
		}
	}
	b.drop(field, v, "not a time plangit reads (RFC 3339, as 2026-11-20T10:30:00Z)")
	return time.Time{}
}

// Append adds an imported state to s: the imported phases and steps are
// appended with fresh ids (needs follow them), findings are added with
// fresh ids, and errors are added — counting up an open error that is the
// same. The plan's own title, goal, status and times stay; the imported
// ones are reported as dropped. A step in progress in s stays the one in
// progress: imported steps in progress are then pending, reported.
//
// A partial import (Plan-and-Execute's per-task response) names steps of a
// plan to update, not steps to add: Append refuses it.
func Append(s *plan.State, imp *Imported, now time.Time) (plan.Change, []Dropped, error) {
	p, in := s.Plan, imp.State
	if err := p.Editable(); err != nil {
		return plan.Change{}, nil, err
	}
	if imp.Partial {
		return plan.Change{}, nil, plan.Errorf(plan.CodeInvalidArgument, "this %s response speaks of one task of a plan; it has no steps to append", imp.Format).Hinted("plangit import FILE without --append applies it to the task it names")
	}
	var dropped []Dropped
	drop := func(field, value, why string) {
		if value != "" {
			dropped = append(dropped, Dropped{Field: field, Value: clipLine(value), Why: why})
		}
	}
	ip := in.Plan
	drop("title", ip.Title, "the plan keeps its own title")
	drop("goal", ip.Goal, "the plan keeps its own goal")
	if ip.Status != p.Status {
		drop("status", string(ip.Status), "the plan keeps its own status ("+string(p.Status)+")")
	}
	drop("result", ip.Result, "the plan keeps its own result")
	drop("reason", ip.Reason, "the plan keeps its own reason")
	drop("created", formatTime(ip.Created), "the plan keeps its own creation time")
	if ip.Iterations > 0 {
		drop("iterations", strconv.Itoa(ip.Iterations), "the plan keeps its own iteration count")
	}
	cur := p.Current()
	ids := map[string]string{}
	copies := map[string]*plan.Step{} // the imported step's id → its copy in p
	n, first := 0, ""
	for _, ph := range ip.Phases {
		cp := &plan.Phase{ID: strconv.Itoa(p.NextPhase), Title: ph.Title, Notes: ph.Notes}
		p.NextPhase++
		for _, st := range ph.Steps {
			c := *st
			c.Needs = nil
			c.ID = p.IssueStep()
			if first == "" {
				first = c.ID
			}
			ids[st.ID], copies[st.ID] = c.ID, &c
			if c.Status == plan.StepInProgress {
				if cur != nil {
					c.Status, c.Started = plan.StepPending, time.Time{}
					drop("step "+st.ID, "in_progress", fmt.Sprintf("step %s is in progress already, so this one (now step %s) is pending", cur.ID, c.ID))
				} else {
					cur = &c
				}
			}
			cp.Steps = append(cp.Steps, &c)
			n++
		}
		p.Phases = append(p.Phases, cp)
	}
	for _, ph := range ip.Phases {
		for _, st := range ph.Steps {
			added := copies[st.ID]
			for _, need := range st.Needs {
				added.Needs = append(added.Needs, ids[need])
			}
		}
	}
	for _, f := range in.Findings {
		c := *f
		s.Findings.Insert(&c)
	}
	for i := len(in.Errors) - 1; i >= 0; i-- { // oldest first
		s.Errors.Merge(in.Errors[i])
	}
	p.Touch(now)
	summary := fmt.Sprintf("import: %s in %s", count(n, "step"), count(len(ip.Phases), "phase"))
	if n > 0 {
		summary += fmt.Sprintf(" (steps %s–%s)", first, strconv.Itoa(p.NextStep-1))
	}
	if k := len(in.Findings) + len(in.Errors); k > 0 {
		summary += fmt.Sprintf(", %s, %s", count(len(in.Findings), "finding"), count(len(in.Errors), "error"))
	}
	return plan.Change{Op: "plan.import", Summary: summary}, dropped, p.Validate()
}

// formatTime writes a time as plangit's files do: RFC 3339, UTC; the zero
// time is "".
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// count writes a number with its noun, agreeing: "1 step", "2 steps".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
