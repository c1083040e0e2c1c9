package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
)

// Export formats: the seeds' own file shapes, which Import reads back.
var ExportFormats = []string{FormatMaxclaw, FormatPlanTool, FormatPlanManager, FormatPlanExecute, FormatManus, FormatSpecKit, FormatOpenSpec}

// exportAliases are other spellings of the export formats.
var exportAliases = map[string]string{"planmanager": FormatPlanManager, "plantool": FormatPlanTool, "planexecute": FormatPlanExecute,
	"speckit": FormatSpecKit, "spec_kit": FormatSpecKit, "open-spec": FormatOpenSpec}

// File is one file an export writes: its name in the seed's layout and its
// bytes.
type File struct {
	Name string `json:"name"`
	Data []byte `json:"-"`
}

// ExportFormat resolves an export format's name (an alias included); an
// unknown one is INVALID_ARGUMENT listing the formats.
func ExportFormat(name string) (string, error) {
	f := strings.ToLower(strings.TrimSpace(name))
	if a, ok := exportAliases[f]; ok {
		f = a
	}
	for _, x := range ExportFormats {
		if f == x {
			return f, nil
		}
	}
	return "", plan.Errorf(plan.CodeInvalidArgument, "unknown export format %q; one of %s", plan.Clip(name), strings.Join(ExportFormats, ", "))
}

// Export writes a session's state in one of ExportFormats, as the seed
// system writes it:
//
//   - maxclaw: plan.json {id, goal, status, created_at, updated_at, steps,
//     current_step_index, iteration_count} (seed 000, "Plan Schema");
//   - plan-tool: plan.json {task_description, steps:[{step, action,
//     status, result}], total_steps, ...} (seed 001, "生成的plan.json文件");
//   - plan-manager: plan.json {meta, state, tasks:[{id, name, status,
//     dependencies, reasoning, result}]} (seed 002, 2.1), state.progress
//     being getPlanStatus's fraction of the tasks done;
//   - plan-execute: plan.json, the Plan {state, tasks:[{id, description,
//     state, result}]} (seed 003, "核心数据结构");
//   - manus: task_plan.md, findings.md and errors.md as seed 004's
//     PlanManager.toMarkdown, FindingsManager and ErrorTracker write them
//     (findings.md and errors.md only when there are findings or errors);
//   - spec-kit, openspec: tasks.md as their templates lay it out
//     (exportTasks).
//
// What a format has no field for (phases in the JSON formats but
// PlanManager's, needs outside PlanManager, a step's reasoning outside
// PlanManager) is not written. Import of an export gives the plan the
// export was made from, as far as the format holds it; its export again is
// the same bytes.
func Export(st *plan.State, format string) ([]File, error) {
	f, err := ExportFormat(format)
	if err != nil {
		return nil, err
	}
	p := st.Plan
	var v any
	switch f {
	case FormatMaxclaw:
		v = exportMaxclaw(p)
	case FormatPlanTool:
		v = exportPlanTool(p)
	case FormatPlanManager:
		v = exportPlanManager(p)
	case FormatPlanExecute:
		v = exportPlanExecute(p)
	case FormatManus:
		files := []File{{Name: plan.PlanFile, Data: manusPlan(p)}}
		if len(st.Findings) > 0 {
			files = append(files, File{Name: plan.FindingsFile, Data: manusFindings(st.Findings)})
		}
		if len(st.Errors) > 0 {
			files = append(files, File{Name: plan.ErrorsFile, Data: manusErrors(st.Errors)})
		}
		return files, nil
	case FormatSpecKit, FormatOpenSpec:
		return []File{{Name: "tasks.md", Data: exportTasks(st, f)}}, nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // as the seeds write it: ensure_ascii=False, indent=2
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "writing the %s plan", f)
	}
	return []File{{Name: "plan.json", Data: b.Bytes()}}, nil
}

// description is the one text field a seed names its plan with (maxclaw's
// goal, the plan tool's task_description, PlanManager's meta.goal): the
// goal when the plan's title is what an import takes from it, else the
// title and the goal.
func description(p *plan.Plan) string {
	switch {
	case p.Goal == "":
		return p.Title
	case titleOf(p.Goal) == p.Title:
		return p.Goal
	}
	return p.Title + "\n\n" + p.Goal
}

// titleOf is the title an import takes from a description: its first
// line, cut as builder.setTitle cuts it.
func titleOf(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	t, _ := plan.CleanLine("title", plan.TruncateText(strings.TrimSpace(first), 200))
	return t
}

// stamp writes a time as the seeds do (RFC 3339, UTC); nil for none.
func stamp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

// number is a step id as the seeds' numeric ids: 3 for "3".
func number(id string) any {
	if n, err := strconv.Atoi(id); err == nil {
		return n
	}
	return id
}

// orNull is s, or null when empty.
func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

type maxclawStep struct {
	ID          string         `json:"id"`
	Description string         `json:"description"`
	Status      string         `json:"status"`
	Result      string         `json:"result"`
	Progress    *plan.Progress `json:"progress,omitempty"`
	StartedAt   *string        `json:"started_at"`
	CompletedAt *string        `json:"completed_at"`
}

type maxclawPlan struct {
	ID               string        `json:"id"`
	Goal             string        `json:"goal"`
	Status           string        `json:"status"`
	CreatedAt        *string       `json:"created_at"`
	UpdatedAt        *string       `json:"updated_at"`
	Steps            []maxclawStep `json:"steps"`
	CurrentStepIndex int           `json:"current_step_index"`
	IterationCount   int           `json:"iteration_count"`
}

// maxclawStatus is a step status as maxclaw writes it: running for in
// progress; plangit's word for what maxclaw has none for.
func maxclawStatus(s plan.StepStatus) string {
	if s == plan.StepInProgress {
		return "running"
	}
	return string(s)
}

func exportMaxclaw(p *plan.Plan) maxclawPlan {
	out := maxclawPlan{ID: p.ID, Goal: description(p), Status: string(p.Status), CreatedAt: stamp(p.Created), UpdatedAt: stamp(p.Updated),
		Steps: []maxclawStep{}, IterationCount: p.Iterations}
	cur := -1
	for i, s := range p.Steps() {
		ms := maxclawStep{ID: "step_" + s.ID, Description: s.Text, Status: maxclawStatus(s.Status), Result: s.Result,
			StartedAt: stamp(s.Started), CompletedAt: stamp(s.Completed)}
		if s.Progress.Total > 0 {
			pr := s.Progress
			ms.Progress = &pr
		}
		if cur < 0 && (s.Status == plan.StepInProgress || s.Status == plan.StepPending) {
			cur = i
		}
		out.Steps = append(out.Steps, ms)
	}
	if cur < 0 {
		cur = len(out.Steps)
	}
	if c := p.Current(); c != nil {
		for i, s := range p.Steps() {
			if s == c {
				cur = i
			}
		}
	}
	out.CurrentStepIndex = cur
	return out
}

type planToolStep struct {
	Step   any    `json:"step"`
	Action string `json:"action"`
	Status string `json:"status"`
	Result string `json:"result"`
}

type planToolPlan struct {
	TaskDescription string         `json:"task_description"`
	Steps           []planToolStep `json:"steps"`
	TotalSteps      int            `json:"total_steps"`
	CompletedSteps  int            `json:"completed_steps"`
	InProgressSteps int            `json:"in_progress_steps"`
	PendingSteps    int            `json:"pending_steps"`
	FailedSteps     int            `json:"failed_steps"`
}

func exportPlanTool(p *plan.Plan) planToolPlan {
	out := planToolPlan{TaskDescription: description(p), Steps: []planToolStep{}}
	for _, s := range p.Steps() {
		out.Steps = append(out.Steps, planToolStep{Step: number(s.ID), Action: s.Text, Status: string(s.Status), Result: s.Result})
	}
	c := p.Counts()
	out.TotalSteps, out.CompletedSteps, out.InProgressSteps, out.PendingSteps, out.FailedSteps = c.Total, c.Completed, c.InProgress, c.Pending, c.Failed
	return out
}

// PlanManagerProgress is PlanManager's getPlanStatus progress: the
// fraction of the tasks done (completed or skipped), to three places; 0
// for a plan without tasks.
func PlanManagerProgress(c plan.Counts) float64 {
	if c.Total == 0 {
		return 0
	}
	return math.Round(float64(c.Done)/float64(c.Total)*1000) / 1000
}

type planManagerTask struct {
	ID           any     `json:"id"`
	Name         string  `json:"name"`
	Status       string  `json:"status"`
	Dependencies []any   `json:"dependencies"`
	Reasoning    string  `json:"reasoning"`
	Result       *string `json:"result"`
	RetryCount   int     `json:"retry_count,omitempty"`
}

type planManagerPlan struct {
	Meta struct {
		Title     string  `json:"title,omitempty"`
		Goal      string  `json:"goal"`
		CreatedAt *string `json:"created_at"`
		UpdatedAt *string `json:"updated_at"`
	} `json:"meta"`
	State struct {
		CurrentTaskID any     `json:"current_task_id"`
		Status        string  `json:"status"`
		Progress      float64 `json:"progress"`
	} `json:"state"`
	Tasks []planManagerTask `json:"tasks"`
}

func exportPlanManager(p *plan.Plan) planManagerPlan {
	var out planManagerPlan
	out.Meta.Goal = p.Goal
	if p.Goal == "" || titleOf(p.Goal) != p.Title {
		out.Meta.Title = p.Title
	}
	out.Meta.CreatedAt, out.Meta.UpdatedAt = stamp(p.Created), stamp(p.Updated)
	out.State.Status = string(p.Status)
	if c := p.Current(); c != nil {
		out.State.CurrentTaskID = number(c.ID)
	}
	out.State.Progress = PlanManagerProgress(p.Counts())
	out.Tasks = []planManagerTask{}
	for _, s := range p.Steps() {
		t := planManagerTask{ID: number(s.ID), Name: s.Text, Status: string(s.Status), Dependencies: []any{}, Reasoning: s.Why, Result: orNull(s.Result), RetryCount: s.Retries}
		for _, n := range s.Needs {
			t.Dependencies = append(t.Dependencies, number(n))
		}
		out.Tasks = append(out.Tasks, t)
	}
	return out
}

type planExecuteTask struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	State       string `json:"state"`
	Result      string `json:"result"`
}

type planExecutePlan struct {
	State string            `json:"state"`
	Tasks []planExecuteTask `json:"tasks"`
}

// planExecuteStates are Plan-and-Execute's TaskState words.
var planExecuteStates = map[plan.StepStatus]string{plan.StepPending: "Pending", plan.StepInProgress: "Running", plan.StepCompleted: "Succeed",
	plan.StepFailed: "Failed", plan.StepSkipped: "Skipped", plan.StepBlocked: "Blocked"}

// planExecutePlanStates are its PlanState words (Paused is plangit's: the
// pattern has no pause).
var planExecutePlanStates = map[plan.PlanStatus]string{plan.PlanPending: "Pending", plan.PlanRunning: "Executing", plan.PlanCompleted: "Succeed",
	plan.PlanFailed: "Failed", plan.PlanPaused: "Paused"}

func exportPlanExecute(p *plan.Plan) planExecutePlan {
	out := planExecutePlan{State: planExecutePlanStates[p.Status], Tasks: []planExecuteTask{}}
	for _, s := range p.Steps() {
		out.Tasks = append(out.Tasks, planExecuteTask{ID: "task-" + s.ID, Description: s.Text, State: planExecuteStates[s.Status], Result: s.Result})
	}
	return out
}

// manusIcon is a step's icon as seed 004's toMarkdown writes it; a failed
// step, which it has no icon of its own for, is ✖.
func manusIcon(s plan.StepStatus) string {
	switch s {
	case plan.StepInProgress:
		return "◐"
	case plan.StepCompleted:
		return "●"
	case plan.StepSkipped:
		return "⊘"
	case plan.StepFailed, plan.StepBlocked:
		return "✖"
	}
	return "○"
}

// manusPlan writes task_plan.md as seed 004's PlanManager.toMarkdown does.
func manusPlan(p *plan.Plan) []byte {
	var b strings.Builder
	c := p.Counts()
	fmt.Fprintf(&b, "# %s\n\n", p.Title)
	fmt.Fprintf(&b, "> **Objective:** %s\n\n", strings.ReplaceAll(p.Goal, "\n", " "))
	fmt.Fprintf(&b, "> **Progress:** %d/%d steps completed\n\n", c.Completed, c.Total)
	b.WriteString("---\n\n")
	for _, ph := range p.Phases {
		fmt.Fprintf(&b, "## %s Phase: %s\n\n", ph.Status().Icon(), ph.Title)
		if ph.Notes != "" {
			var q strings.Builder
			writeQuoteLines(&q, ph.Notes)
			b.WriteString(q.String() + "\n")
		}
		for _, s := range ph.Steps {
			box := " "
			if s.Status == plan.StepCompleted {
				box = "x"
			}
			fmt.Fprintf(&b, "- [%s] %s %s\n", box, manusIcon(s.Status), s.Text)
		}
		b.WriteString("\n")
	}
	b.WriteString("---\n")
	fmt.Fprintf(&b, "*Last updated: %s*\n", p.Updated.UTC().Format("2006-01-02T15:04:05.000Z"))
	return []byte(b.String())
}

// writeQuoteLines writes text as a blockquote, every line marked.
func writeQuoteLines(b *strings.Builder, s string) {
	for _, l := range strings.Split(s, "\n") {
		if l == "" {
			b.WriteString(">\n")
			continue
		}
		b.WriteString("> " + l + "\n")
	}
}

// manusFindings writes findings.md as seed 004's FindingsManager does:
// "## Category", "### Title", the content as it is, "*Source: …*".
func manusFindings(fs plan.Findings) []byte {
	var b strings.Builder
	b.WriteString("# Findings & Notes\n\n> Research findings and important discoveries.\n\n")
	for _, c := range plan.Categories {
		group := fs.ByCategory(c)
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n", strings.ToUpper(string(c[:1]))+string(c[1:]))
		for _, f := range group {
			fmt.Fprintf(&b, "### %s\n\n", f.Title)
			if f.Content != "" {
				b.WriteString(f.Content + "\n\n")
			}
			if f.Source != "" {
				fmt.Fprintf(&b, "*Source: %s*\n\n", f.Source)
			}
		}
	}
	return []byte(b.String())
}

// manusErrors writes errors.md as seed 004's ErrorTracker does, newest
// first: "## Tool - TIME", the count, the message, the params.
func manusErrors(es plan.ErrorLog) []byte {
	var b strings.Builder
	b.WriteString("# Error Log\n\n> This file tracks errors to avoid repeating the same mistakes.\n\n")
	for _, e := range es {
		at := e.Last
		if at.IsZero() {
			at = e.First
		}
		fmt.Fprintf(&b, "## %s - %s\n\n", e.Tool, at.UTC().Format("2006-01-02T15:04:05.000Z"))
		fmt.Fprintf(&b, "**Count:** %d times\n\n", e.Count)
		fmt.Fprintf(&b, "**Message:** %s\n\n", strings.ReplaceAll(e.Message, "\n", " "))
		if e.Params != "" {
			fmt.Fprintf(&b, "**Params:**\n```json\n%s\n```\n\n", e.Params)
		}
		b.WriteString("---\n\n")
	}
	return []byte(b.String())
}
