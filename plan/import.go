package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/yuin/goldmark/ast"
)

// Import formats.
const (
	FormatPlangit     = "plangit"      // plangit's own task_plan.md
	FormatTodos       = "todos"        // a TodoWrite {"todos":[...]} list
	FormatTasks       = "tasks"        // Claude Code Task tool data
	FormatPWF         = "pwf"          // a planning-with-files task_plan.md
	FormatMaxclaw     = "maxclaw"      // {goal, steps, current_step_index}
	FormatPlanTool    = "plan-tool"    // {task_description, steps}
	FormatPlanManager = "plan-manager" // {meta, state, tasks} with dependencies
)

// ImportFormats lists the formats Import reads.
var ImportFormats = []string{FormatPlangit, FormatTodos, FormatTasks, FormatPWF, FormatMaxclaw, FormatPlanTool, FormatPlanManager}

// Imported is a plan read from another tool's format. Its steps carry the
// statuses the source gave them; needs refer to the imported steps' ids.
type Imported struct {
	Format string
	Plan   *Plan
}

// Import reads a plan in one of ImportFormats; format "" detects it. name
// is the source's name for error positions ("todos.json", "stdin").
func Import(name string, src []byte, format string, now time.Time) (*Imported, error) {
	if len(src) > MaxFile {
		return nil, Errorf(CodeInvalidArgument, "the file is %d bytes; plangit imports files up to %d bytes", len(src), MaxFile)
	}
	if format == "" {
		var err error
		if format, err = detectFormat(name, src); err != nil {
			return nil, err
		}
	}
	var (
		p   *Plan
		err error
	)
	switch format {
	case FormatPlangit:
		p, err = ParsePlan(src)
	case FormatPWF:
		p, err = importPWF(src, now)
	case FormatTodos, FormatTasks, FormatMaxclaw, FormatPlanTool, FormatPlanManager:
		p, err = importJSON(name, src, format, now)
	default:
		return nil, Errorf(CodeInvalidArgument, "unknown format %q; one of %s", clip(format), strings.Join(ImportFormats, ", "))
	}
	if err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Imported{Format: format, Plan: p}, nil
}

// DetectFormat tells which import format src is in.
func DetectFormat(src []byte) (string, error) { return detectFormat("input", src) }

func detectFormat(name string, src []byte) (string, error) {
	t := bytes.TrimSpace(bytes.TrimPrefix(src, []byte("\uFEFF")))
	if len(t) == 0 {
		return "", Errorf(CodeInvalidArgument, "the file is empty")
	}
	if t[0] != '{' && t[0] != '[' {
		if bytes.Contains(t, []byte(machineTag)) {
			return FormatPlangit, nil
		}
		return FormatPWF, nil
	}
	var v any
	if err := json.Unmarshal(t, &v); err != nil {
		return "", jsonError(name, t, err)
	}
	unknown := Errorf(CodeInvalidArgument, "cannot tell which plan format this JSON is; pass --format (one of %s)", strings.Join(ImportFormats, ", "))
	switch v := v.(type) {
	case []any:
		if len(v) == 0 {
			return FormatTodos, nil
		}
		if m, ok := v[0].(map[string]any); ok {
			if _, ok := m["subject"]; ok {
				return FormatTasks, nil
			}
			if _, ok := m["content"]; ok {
				return FormatTodos, nil
			}
		}
	case map[string]any:
		has := func(k string) bool { _, ok := v[k]; return ok }
		switch {
		case has("todos"):
			return FormatTodos, nil
		case has("meta") && has("tasks"):
			return FormatPlanManager, nil
		case has("tasks") || has("subject"):
			return FormatTasks, nil
		case has("task_description"):
			return FormatPlanTool, nil
		case has("current_step_index") || (has("goal") && has("steps")):
			return FormatMaxclaw, nil
		}
	}
	return "", unknown
}

// jsonError turns a JSON syntax error into PLAN_PARSE_ERROR with a position.
func jsonError(name string, src []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		d := &doc{name: name, src: src}
		return d.errAt(int(se.Offset)-1, "malformed JSON: %s", se.Error())
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		d := &doc{name: name, src: src}
		return d.errAt(int(te.Offset)-1, "field %q should be %s, not %s", te.Field, te.Type, te.Value)
	}
	return WrapError(CodePlanParseError, err, "malformed JSON")
}

// MapStatus maps another tool's step status onto plangit's.
func MapStatus(s string) StepStatus {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "in_progress", "in-progress", "inprogress", "running", "active", "doing", "wip", "started":
		return StepInProgress
	case "completed", "complete", "done", "resolved", "success", "succeeded", "passed", "finished":
		return StepCompleted
	case "failed", "failure", "error":
		return StepFailed
	case "skipped", "cancelled", "canceled", "deleted":
		return StepSkipped
	case "blocked":
		return StepBlocked
	}
	return StepPending
}

// builder assembles an imported plan, mapping source ids to plangit's.
type builder struct {
	p     *Plan
	now   time.Time
	ids   map[string]string // source id → plangit id
	needs map[*Step][]string
}

func newBuilder(title, goal string, now time.Time) (*builder, error) {
	title = firstLine(title)
	if title == "" {
		title = "Imported plan"
	}
	title = TruncateText(title, 120)
	p, err := New("", title, TruncateText(goal, MaxText), nil, now, false)
	if err != nil {
		return nil, err
	}
	return &builder{p: p, now: Stamp(now), ids: map[string]string{}, needs: map[*Step][]string{}}, nil
}

func (b *builder) phase(title string) *Phase {
	title, _ = CleanLine("phase title", TruncateText(title, MaxLine))
	if title == "" {
		title = DefaultPhaseTitle
	}
	ph := &Phase{ID: strconv.Itoa(b.p.NextPhase), Title: title}
	b.p.NextPhase++
	b.p.Phases = append(b.p.Phases, ph)
	return ph
}

// step adds a step with a status as given. srcID, when set, lets needs refer
// to it; needs are source ids, mapped in finish.
func (b *builder) step(ph *Phase, srcID, text string, st StepStatus, needs []string) (*Step, error) {
	text, err := CleanLine("step text", TruncateText(text, MaxLine))
	if err != nil {
		return nil, err
	}
	if text == "" {
		return nil, nil
	}
	s := &Step{ID: strconv.Itoa(b.p.NextStep), Text: text, Status: st}
	b.p.NextStep++
	switch st {
	case StepInProgress:
		s.Started = b.now
	case StepCompleted:
		s.Completed = b.now
	}
	if srcID != "" {
		b.ids[srcID] = s.ID
	}
	if len(needs) > 0 {
		b.needs[s] = needs
	}
	ph.Steps = append(ph.Steps, s)
	return s, nil
}

func (b *builder) finish() (*Plan, error) {
	for s, needs := range b.needs {
		for _, n := range needs {
			id, ok := b.ids[n]
			if !ok {
				return nil, Errorf(CodeInvalidDependency, "step %q depends on %q, which the file does not define", clip(s.Text), clip(n))
			}
			if id != s.ID {
				s.Needs = append(s.Needs, id)
			}
		}
	}
	return b.p, nil
}

func cleanOr(field, s string) string {
	s, _ = CleanText(field, TruncateText(s, MaxText))
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// flexID reads an id that may be a JSON string or number.
type flexID string

func (f *flexID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = flexID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*f = flexID(n.String())
	return nil
}

func flexIDs(in []flexID) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = string(v)
	}
	return out
}

// The JSON shapes plangit imports.
type (
	todoItem struct {
		ID         flexID `json:"id"`
		Content    string `json:"content"`
		Status     string `json:"status"`
		ActiveForm string `json:"activeForm"`
	}
	taskItem struct {
		ID          flexID   `json:"id"`
		Subject     string   `json:"subject"`
		Description string   `json:"description"`
		ActiveForm  string   `json:"activeForm"`
		Status      string   `json:"status"`
		BlockedBy   []flexID `json:"blockedBy"`
	}
	maxclawPlan struct {
		ID     string `json:"id"`
		Goal   string `json:"goal"`
		Status string `json:"status"`
		Steps  []struct {
			ID          flexID    `json:"id"`
			Description string    `json:"description"`
			Status      string    `json:"status"`
			Result      string    `json:"result"`
			Progress    *Progress `json:"progress"`
		} `json:"steps"`
		CurrentStepIndex int `json:"current_step_index"`
		IterationCount   int `json:"iteration_count"`
	}
	planToolStep struct {
		Text   string
		Status string
		Result string
	}
	planManagerPlan struct {
		Meta struct {
			Goal  string `json:"goal"`
			Title string `json:"title"`
		} `json:"meta"`
		State struct {
			Status string `json:"status"`
		} `json:"state"`
		Tasks []struct {
			ID           flexID   `json:"id"`
			Name         string   `json:"name"`
			Status       string   `json:"status"`
			Dependencies []flexID `json:"dependencies"`
			Reasoning    string   `json:"reasoning"`
			Result       string   `json:"result"`
		} `json:"tasks"`
	}
)

// UnmarshalJSON accepts a step as a string or as an object with any of the
// usual text keys.
func (s *planToolStep) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &s.Text); err == nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := m[k].(string); ok && v != "" {
				return v
			}
		}
		return ""
	}
	s.Text = str("description", "content", "step", "title", "text", "name")
	s.Status = str("status")
	s.Result = str("result", "notes", "note")
	return nil
}

func importJSON(name string, src []byte, format string, now time.Time) (*Plan, error) {
	src = bytes.TrimSpace(bytes.TrimPrefix(src, []byte("\uFEFF")))
	decode := func(v any) error {
		if err := json.Unmarshal(src, v); err != nil {
			return jsonError(name, src, err)
		}
		return nil
	}
	switch format {
	case FormatTodos:
		var items []todoItem
		if len(src) > 0 && src[0] == '[' {
			if err := decode(&items); err != nil {
				return nil, err
			}
		} else {
			var wrap struct{ Todos []todoItem }
			if err := decode(&wrap); err != nil {
				return nil, err
			}
			items = wrap.Todos
		}
		b, err := newBuilder("Todos", "", now)
		if err != nil {
			return nil, err
		}
		ph := b.phase(DefaultPhaseTitle)
		for _, it := range items {
			s, err := b.step(ph, string(it.ID), it.Content, MapStatus(it.Status), nil)
			if err != nil {
				return nil, err
			}
			if s != nil {
				s.Active, _ = CleanLine("active form", TruncateText(it.ActiveForm, MaxLine))
			}
		}
		return b.finish()

	case FormatTasks:
		var items []taskItem
		switch {
		case len(src) > 0 && src[0] == '[':
			if err := decode(&items); err != nil {
				return nil, err
			}
		case bytes.Contains(src, []byte(`"tasks"`)):
			var wrap struct{ Tasks []taskItem }
			if err := decode(&wrap); err != nil {
				return nil, err
			}
			items = wrap.Tasks
		default:
			var one taskItem
			if err := decode(&one); err != nil {
				return nil, err
			}
			items = []taskItem{one}
		}
		b, err := newBuilder("Tasks", "", now)
		if err != nil {
			return nil, err
		}
		ph := b.phase(DefaultPhaseTitle)
		for _, it := range items {
			if strings.EqualFold(it.Status, "deleted") {
				continue
			}
			s, err := b.step(ph, string(it.ID), it.Subject, MapStatus(it.Status), flexIDs(it.BlockedBy))
			if err != nil {
				return nil, err
			}
			if s != nil {
				s.Active, _ = CleanLine("active form", TruncateText(it.ActiveForm, MaxLine))
				s.Why = cleanOr("why", it.Description)
			}
		}
		return b.finish()

	case FormatMaxclaw:
		var mp maxclawPlan
		if err := decode(&mp); err != nil {
			return nil, err
		}
		b, err := newBuilder(mp.Goal, mp.Goal, now)
		if err != nil {
			return nil, err
		}
		b.p.ID = mp.ID
		b.p.Iterations = max(0, mp.IterationCount)
		ph := b.phase("Steps")
		for _, st := range mp.Steps {
			s, err := b.step(ph, string(st.ID), st.Description, MapStatus(st.Status), nil)
			if err != nil {
				return nil, err
			}
			if s == nil {
				continue
			}
			s.Result = cleanOr("result", st.Result)
			if st.Progress != nil && st.Progress.Total > 0 && st.Progress.Current >= 0 && st.Progress.Current <= st.Progress.Total {
				s.Progress = *st.Progress
			}
		}
		b.p.Status = mapPlanStatus(mp.Status)
		return b.finish()

	case FormatPlanTool:
		var pt struct {
			TaskDescription string         `json:"task_description"`
			Steps           []planToolStep `json:"steps"`
		}
		if err := decode(&pt); err != nil {
			return nil, err
		}
		b, err := newBuilder(pt.TaskDescription, pt.TaskDescription, now)
		if err != nil {
			return nil, err
		}
		ph := b.phase("Steps")
		for _, st := range pt.Steps {
			s, err := b.step(ph, "", st.Text, MapStatus(st.Status), nil)
			if err != nil {
				return nil, err
			}
			if s != nil {
				s.Result = cleanOr("result", st.Result)
			}
		}
		return b.finish()

	case FormatPlanManager:
		var pm planManagerPlan
		if err := decode(&pm); err != nil {
			return nil, err
		}
		title := pm.Meta.Title
		if title == "" {
			title = pm.Meta.Goal
		}
		b, err := newBuilder(title, pm.Meta.Goal, now)
		if err != nil {
			return nil, err
		}
		ph := b.phase("Tasks")
		for _, t := range pm.Tasks {
			s, err := b.step(ph, string(t.ID), t.Name, MapStatus(t.Status), flexIDs(t.Dependencies))
			if err != nil {
				return nil, err
			}
			if s != nil {
				s.Why = cleanOr("why", t.Reasoning)
				s.Result = cleanOr("result", t.Result)
			}
		}
		b.p.Status = mapPlanStatus(pm.State.Status)
		return b.finish()
	}
	return nil, Errorf(CodeInvalidArgument, "unknown format %q", format)
}

func mapPlanStatus(s string) PlanStatus {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "paused":
		return PlanPaused
	case "completed", "complete", "done":
		return PlanCompleted
	case "failed", "aborted", "cancelled", "canceled":
		return PlanFailed
	}
	return PlanRunning
}

// importPWF reads a planning-with-files task_plan.md: "# Task Plan: Title",
// a "## Goal" section, and "### Phase N: Title" headings each with task
// items and a "- **Status:** pending|in_progress|complete" line.
func importPWF(src []byte, now time.Time) (*Plan, error) {
	d, err := parseDoc(PlanFile, src)
	if err != nil {
		return nil, err
	}
	var (
		title, goal, section string
		phases               []*pwfPhase
		cur                  *pwfPhase // the phase whose items are being read
	)
	for n := d.root.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			text := d.headingText(n)
			switch {
			case n.Level == 1 && title == "":
				title = strings.TrimSpace(strings.TrimPrefix(text, "Task Plan:"))
				cur = nil
			case n.Level <= 2:
				section, cur = strings.ToLower(text), nil
			case strings.HasPrefix(strings.ToLower(stripIcon(text)), "phase"):
				cur = &pwfPhase{title: pwfPhaseTitle(text)}
				phases = append(phases, cur)
			default:
				cur = nil
			}
		case *ast.Paragraph:
			if section == "goal" && goal == "" {
				goal = d.joinedLines(n, " ")
			}
		case *ast.List:
			if cur == nil {
				continue
			}
			for it := n.FirstChild(); it != nil; it = it.NextSibling() {
				first := it.FirstChild()
				if first == nil || !isTextBlock(first) {
					continue
				}
				raw := d.joinedLines(first, " ")
				checked, boxed := checkBox(first)
				if boxed {
					cur.steps = append(cur.steps, pwfStep{text: strings.TrimSpace(raw[3:]), done: checked})
					continue
				}
				if label, value, ok := cutLabel(raw); ok && strings.EqualFold(label, "Status") {
					cur.status = value
				}
			}
		}
	}
	if title == "" {
		return nil, Errorf(CodePlanParseError, "%s: no \"# Task Plan: Title\" line; is this a planning-with-files task_plan.md?", PlanFile)
	}
	b, err := newBuilder(title, goal, now)
	if err != nil {
		return nil, err
	}
	for _, pp := range phases {
		ph := b.phase(pp.title)
		status := MapStatus(pp.status)
		if len(pp.steps) == 0 {
			if _, err := b.step(ph, "", pp.title, status, nil); err != nil {
				return nil, err
			}
			continue
		}
		started := false
		for _, st := range pp.steps {
			s := StepPending
			switch {
			case st.done || status == StepCompleted:
				s = StepCompleted
			case status == StepInProgress && !started:
				s, started = StepInProgress, true
			}
			if _, err := b.step(ph, "", st.text, s, nil); err != nil {
				return nil, err
			}
		}
	}
	return b.finish()
}

type pwfPhase struct {
	title, status string
	steps         []pwfStep
}

type pwfStep struct {
	text string
	done bool
}

// pwfPhaseTitle turns "Phase 1: Requirements & Discovery ⏳" into
// "Requirements & Discovery".
func pwfPhaseTitle(text string) string {
	t := stripIcon(text)
	if _, rest, ok := strings.Cut(t, ":"); ok {
		t = rest
	}
	// Drop a trailing status emoji such as ⏳ or ✅.
	t = strings.TrimSpace(strings.TrimRightFunc(t, func(r rune) bool {
		return unicode.Is(unicode.So, r) || r == '\uFE0F' || unicode.IsSpace(r)
	}))
	if t == "" {
		return strings.TrimSpace(text)
	}
	return t
}

// Merge appends an imported plan's phases and steps to p with fresh ids.
func (p *Plan) Merge(in *Plan, now time.Time) (Change, error) {
	if err := p.requireEditable(); err != nil {
		return Change{}, err
	}
	ids := map[string]string{}
	n := 0
	for _, ph := range in.Phases {
		cp := &Phase{ID: strconv.Itoa(p.NextPhase), Title: ph.Title, Notes: ph.Notes}
		p.NextPhase++
		for _, s := range ph.Steps {
			c := *s
			c.ID = strconv.Itoa(p.NextStep)
			p.NextStep++
			ids[s.ID] = c.ID
			cp.Steps = append(cp.Steps, &c)
			n++
		}
		p.Phases = append(p.Phases, cp)
	}
	for _, ph := range p.Phases[len(p.Phases)-len(in.Phases):] {
		for _, s := range ph.Steps {
			if len(s.Needs) == 0 {
				continue
			}
			needs := make([]string, len(s.Needs))
			for i, id := range s.Needs {
				needs[i] = ids[id]
			}
			s.Needs = needs
		}
	}
	p.touch(now)
	return Change{Op: "plan.import", Summary: fmt.Sprintf("import: %s in %s", count(n, "step"), count(len(in.Phases), "phase"))}, nil
}
