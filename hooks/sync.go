package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
)

// Syncing an agent's todo list into the plan. Each todo maps to one step,
// stably: by the id plangit gave it the first time (remembered in the hook
// state), else by a step with the same text, else a new step. Repeated
// syncs never duplicate steps, and a todo that disappears from the list
// leaves its step alone: the plan keeps what the todo list forgets.

// syncCount tallies what a sync did, for its summary.
type syncCount struct{ added, renamed, started, completed, reopened, skipped int }

func (c syncCount) change(tool string) plan.Change {
	var parts []string
	for _, x := range []struct {
		n    int
		what string
	}{{c.added, "added"}, {c.renamed, "renamed"}, {c.started, "started"}, {c.completed, "completed"}, {c.reopened, "reopened"}, {c.skipped, "skipped"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	if len(parts) == 0 {
		return plan.Change{}
	}
	return plan.Change{Op: "sync", Summary: "sync: " + tool + " — " + strings.Join(parts, ", ")}
}

// syncTodos applies a TodoWrite call: {"todos":[{content,status,activeForm}]}.
func syncTodos(p *plan.Plan, input json.RawMessage, hs *state, now time.Time) (plan.Change, error) {
	var in struct {
		Todos []struct {
			Content    string `json:"content"`
			Status     string `json:"status"`
			ActiveForm string `json:"activeForm"`
		} `json:"todos"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return plan.Change{}, fmt.Errorf("TodoWrite input: %w", err)
	}
	var c syncCount
	for _, t := range in.Todos {
		key := strings.TrimSpace(t.Content)
		if key == "" {
			continue
		}
		s, err := findOrAdd(p, hs.Todos, key, t.Content, t.ActiveForm, "", now, &c)
		if err != nil {
			return plan.Change{}, err
		}
		if err := setStatus(p, s, plan.MapStatus(t.Status), now, &c); err != nil {
			return plan.Change{}, err
		}
	}
	return c.change("TodoWrite"), nil
}

// syncTaskCreate applies a TaskCreate call: {subject, description,
// activeForm}; the task's id comes from the tool's response.
func syncTaskCreate(p *plan.Plan, input, response json.RawMessage, hs *state, now time.Time) (plan.Change, error) {
	var in struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
		ActiveForm  string `json:"activeForm"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return plan.Change{}, fmt.Errorf("TaskCreate input: %w", err)
	}
	if strings.TrimSpace(in.Subject) == "" {
		return plan.Change{}, nil
	}
	key := taskID(response)
	if key == "" {
		key = "subject:" + strings.TrimSpace(in.Subject)
	}
	var c syncCount
	if _, err := findOrAdd(p, hs.Tasks, key, in.Subject, in.ActiveForm, in.Description, now, &c); err != nil {
		return plan.Change{}, err
	}
	return c.change("TaskCreate"), nil
}

// taskID finds the new task's id in a TaskCreate response, which carries
// it as {"task":{"id":"1",...}}, {"id":"1"}, or text like "Task #1 created".
func taskID(response json.RawMessage) string {
	var r struct {
		Task struct {
			ID json.RawMessage `json:"id"`
		} `json:"task"`
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(response, &r) == nil {
		for _, raw := range []json.RawMessage{r.Task.ID, r.ID} {
			if id := strings.Trim(string(raw), `" `); id != "" && id != "null" {
				return id
			}
		}
	}
	var text string
	if json.Unmarshal(response, &text) == nil {
		if _, rest, ok := strings.Cut(text, "#"); ok {
			id, _, _ := strings.Cut(rest, " ")
			return strings.Trim(id, ":.")
		}
	}
	return ""
}

// syncTaskUpdate applies a TaskUpdate call: {taskId, status, subject,
// activeForm}.
func syncTaskUpdate(p *plan.Plan, input json.RawMessage, hs *state, now time.Time) (plan.Change, error) {
	var in struct {
		TaskID     json.RawMessage `json:"taskId"`
		Status     string          `json:"status"`
		Subject    string          `json:"subject"`
		ActiveForm string          `json:"activeForm"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return plan.Change{}, fmt.Errorf("TaskUpdate input: %w", err)
	}
	key := strings.Trim(string(in.TaskID), `" `)
	ref, ok := hs.Tasks[key]
	if !ok {
		return plan.Change{}, nil // a task plangit never saw created
	}
	s, _, err := p.Step(ref.ID)
	if err != nil || ref.Text != "" && !strings.EqualFold(s.Text, ref.Text) {
		return plan.Change{}, nil // removed from the plan since, or not the step it was
	}
	var c syncCount
	if in.Subject != "" && in.Subject != s.Text && !s.Status.Resolved() {
		text := in.Subject
		// The agent renames its own task, even the one it works on.
		if _, err := p.EditStep(s.ID, plan.StepEdit{Text: &text, Force: true}, now); err != nil {
			return plan.Change{}, err
		}
		c.renamed++
	}
	hs.Tasks[key] = stepRef{ID: s.ID, Text: s.Text}
	if in.Status != "" {
		if err := setStatus(p, s, plan.MapStatus(in.Status), now, &c); err != nil {
			return plan.Change{}, err
		}
	}
	return c.change("TaskUpdate"), nil
}

// findOrAdd returns the step a todo or task maps to, adding it if new. A
// mapped step counts only if it still has the text it had when mapped (or
// the todo's own): a step renamed by hand is found again by its text, or
// added anew, never confused with another.
func findOrAdd(p *plan.Plan, ids map[string]stepRef, key, text, active, why string, now time.Time, c *syncCount) (*plan.Step, error) {
	text = strings.TrimSpace(text)
	if ref, ok := ids[key]; ok {
		if s, _, err := p.Step(ref.ID); err == nil && (strings.EqualFold(s.Text, ref.Text) || strings.EqualFold(s.Text, text)) {
			ids[key] = stepRef{ID: s.ID, Text: s.Text}
			return s, nil
		}
	}
	for _, s := range p.Steps() {
		if strings.EqualFold(s.Text, text) {
			ids[key] = stepRef{ID: s.ID, Text: s.Text}
			return s, nil
		}
	}
	s, err := p.AddStep(plan.StepSpec{Text: text, Active: active, Why: why}, now)
	if err != nil {
		return nil, err
	}
	ids[key] = stepRef{ID: s.ID, Text: s.Text}
	c.added++
	return s, nil
}

// setStatus moves a step to the status its todo says, through legal
// transitions (reopening first where the table requires it). A plan that
// is not running takes no status changes: they wait for the next sync.
func setStatus(p *plan.Plan, s *plan.Step, want plan.StepStatus, now time.Time, c *syncCount) error {
	if s.Status == want || p.Status != plan.PlanRunning {
		return nil
	}
	do := func(a plan.Action) error {
		_, err := p.Transition(s.ID, a, plan.TransitionOpts{Force: true}, now)
		return err
	}
	reopenIf := func(from ...plan.StepStatus) error {
		for _, f := range from {
			if s.Status == f {
				c.reopened++
				return do(plan.ActReopen)
			}
		}
		return nil
	}
	switch want {
	case plan.StepCompleted:
		if err := reopenIf(plan.StepFailed, plan.StepSkipped, plan.StepBlocked); err != nil {
			return err
		}
		c.completed++
		return do(plan.ActDone)
	case plan.StepInProgress:
		if err := reopenIf(plan.StepCompleted, plan.StepFailed, plan.StepSkipped); err != nil {
			return err
		}
		c.started++
		return do(plan.ActStart)
	case plan.StepSkipped:
		c.skipped++
		return do(plan.ActSkip)
	case plan.StepPending:
		c.reopened++
		return do(plan.ActReopen)
	}
	return nil // failed or blocked: todo lists do not say so
}
