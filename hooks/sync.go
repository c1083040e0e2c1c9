package hooks

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/interop"
)

// Syncing an agent's todo list into the plan. Each todo maps to one step,
// stably: by the id plangit gave it the first time (remembered in the hook
// state), else by a step with the same text, else a new step. Repeated
// syncs never duplicate steps. A todo the agent drops from its list is
// skipped in the plan ("dropped from the todo list"), where a done step
// stays done: the plan keeps what the todo list forgets, and says so.
//
// A list never takes the plan back in time. The hook state remembers, for
// each todo (and task), the status the list last gave it (stepRef.Said)
// and the step's status as that sync left it (stepRef.Left); a step whose
// status is no longer what the sync left has been moved by the plan since
// — a plangit command, an adopted edit, auto-advance, another agent — and
// the list may be older than that. For an item the list shows as want,
// mapped to a step s:
//
//  1. s is as the list's last sync left it: the plan has not moved it
//     since, and the list's word stands, forward or back (the agent
//     reopens its own item; an unticked box puts a done step back).
//  2. The plan moved s since, and the list's word is news (not what it
//     said last) that moves s forward, or across (pending → in progress →
//     completed, skipped or failed): it applies.
//  3. The plan moved s since, and the list shows it behind — pending or
//     in progress where the plan has it completed, skipped or failed; or
//     pending where the plan started it — or repeats the very word it
//     gave before the plan's change (a step the person reopened, which
//     the list still shows completed): s keeps the plan's state, and its
//     result. The agent is told, once for each state of the step, which
//     items of its list are behind, by whom and when they changed, and to
//     update its list (the reply to the tool call, on every host whose
//     hook answers with context: the two-way sync). Later lists that still
//     say the same change nothing and say nothing.
//  4. An item never synced before (a new list on a plan already under way)
//     counts as moved since: it moves a step forward only.
//  5. A step the list itself skipped by dropping its todo is the list's
//     own: listed again, it comes back (case 1).
//
// A person's plangit step reopen after which the list shows the item
// pending is the list agreeing with the plan: nothing to tell. TaskUpdate,
// which speaks of one task, follows the same cases.
//
// TodoWrite's persistent-plan extras (the planning service's todo_write):
// planTitle names a plan the todos start (or one still under the default
// title), each todo's phaseId puts its new step in that phase (by id or
// title, made if missing), and persist: false keeps a list out of the plan.

// todoTitle is the title of a plan started from a todo list without a
// planTitle.
const todoTitle = "Agent todo list"

// droppedReason is why a step whose todo left the list is skipped.
const droppedReason = "dropped from the todo list"

// syncCount tallies what a sync did, for its summary.
type syncCount struct {
	added, renamed, started, completed, reopened, skipped, dropped, claimed int
	titled                                                                  bool
	startedIDs                                                              []string
	behind                                                                  []string // the list's items behind the plan, to tell
	hs                                                                      *state   // holdStarts and held
}

func (c syncCount) change(tool string) plan.Change {
	var parts []string
	if c.titled {
		parts = append(parts, "titled")
	}
	for _, x := range []struct {
		n    int
		what string
	}{{c.added, "added"}, {c.renamed, "renamed"}, {c.started, "started"}, {c.completed, "completed"}, {c.reopened, "reopened"}, {c.skipped, "skipped"}, {c.dropped, "dropped"}, {c.claimed, "claimed"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	if len(parts) == 0 {
		return plan.Change{}
	}
	return plan.Change{Op: "sync", Summary: "sync: " + tool + " — " + strings.Join(parts, ", ")}
}

// persisted reports whether a planning tool's call goes into the plan:
// all do, but a TodoWrite that says persist: false.
func persisted(input json.RawMessage) bool {
	keep := true
	hookwire.Members(input, func(key string, value []byte) error {
		if key == "persist" {
			if v, ok := hookwire.Bool(value); ok && !v && string(value) == "false" {
				keep = false
			}
		}
		return nil
	})
	return keep
}

// unchecked is the status of a todo read from a checklist's "- [ ]"
// (Copilot CLI's update_todo): not done, and nothing more — it does not
// put back to pending a step the agent started.
const unchecked = "unchecked"

// syncTodos applies a TodoWrite call: {"todos":[{content,status,activeForm,
// phaseId}], "planTitle"}. It returns the steps it started.
func syncTodos(p *plan.Plan, input json.RawMessage, hs *state, now time.Time) (plan.Change, []string, error) {
	var in struct {
		Todos []struct {
			Content    string `json:"content"`
			Status     string `json:"status"`
			ActiveForm string `json:"activeForm"`
			PhaseID    string `json:"phaseId"`
		} `json:"todos"`
		PlanTitle string `json:"planTitle"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return plan.Change{}, nil, fmt.Errorf("TodoWrite input: %w", err)
	}
	c := syncCount{hs: hs}
	if title, _ := plan.CleanLine("planTitle", plan.TruncateText(in.PlanTitle, 200)); title != "" && p.Title == todoTitle && title != p.Title {
		p.Title, c.titled = title, true
	}
	listed := map[string]bool{}
	for _, t := range in.Todos {
		key := strings.TrimSpace(t.Content)
		if key == "" {
			continue
		}
		listed[key] = true
		s, err := findOrAdd(p, hs.Todos, key, t.Content, t.ActiveForm, "", t.PhaseID, now, &c)
		if err != nil {
			return plan.Change{}, nil, err
		}
		want := interop.MapStatus(t.Status)
		if t.Status == unchecked {
			if s.Status != plan.StepCompleted {
				hs.Todos[key] = hs.Todos[key].synced(plan.StepPending, s)
				continue // a box cannot say started, blocked or failed: the step's own stands
			}
			want = plan.StepPending // unticked: no longer done
		}
		if err := c.apply(p, s, hs.Todos, key, want, now); err != nil {
			return plan.Change{}, nil, err
		}
	}
	if err := dropTodos(p, hs.Todos, listed, now, &c); err != nil {
		return plan.Change{}, nil, err
	}
	c.tellBehind()
	return c.change("TodoWrite"), c.startedIDs, nil
}

// dropTodos skips the steps of the todos that left the list, and forgets
// those todos. A step that is done, or no longer the step its todo made,
// is left alone; in a plan that is not running the skips wait for a later
// sync.
func dropTodos(p *plan.Plan, todos map[string]stepRef, listed map[string]bool, now time.Time, c *syncCount) error {
	if p.Status != plan.PlanRunning {
		return nil
	}
	for _, key := range slices.Sorted(maps.Keys(todos)) {
		if listed[key] {
			continue
		}
		ref := todos[key]
		delete(todos, key)
		s, _, err := p.Step(ref.ID)
		if err != nil || !strings.EqualFold(s.Text, ref.Text) || s.Status.Resolved() || s.Claim.Live(now) && c.hs != nil && s.Claim.Agent != c.hs.agent {
			continue // done, not its todo's any more, or another agent's
		}
		if _, err := p.Transition(s.ID, plan.ActSkip, plan.TransitionOpts{Reason: droppedReason}, now); err != nil {
			return err
		}
		c.dropped++
	}
	return nil
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
	} else {
		// The host just created the task: a step mapped under its id
		// before was another task's (an earlier host session's list,
		// numbered from 1 again). The new one is found by its text, or
		// added.
		delete(hs.Tasks, key)
	}
	c := syncCount{hs: hs}
	if _, err := findOrAdd(p, hs.Tasks, key, in.Subject, in.ActiveForm, in.Description, "", now, &c); err != nil {
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
// activeForm}. It returns the steps it started.
func syncTaskUpdate(p *plan.Plan, input json.RawMessage, hs *state, now time.Time) (plan.Change, []string, error) {
	var in struct {
		TaskID     json.RawMessage `json:"taskId"`
		Status     string          `json:"status"`
		Subject    string          `json:"subject"`
		ActiveForm string          `json:"activeForm"`
		Owner      string          `json:"owner"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return plan.Change{}, nil, fmt.Errorf("TaskUpdate input: %w", err)
	}
	key := strings.Trim(string(in.TaskID), `" `)
	ref, ok := hs.Tasks[key]
	if !ok {
		return plan.Change{}, nil, nil // a task plangit never saw created
	}
	s, _, err := p.Step(ref.ID)
	if err != nil || ref.Text != "" && !strings.EqualFold(s.Text, ref.Text) {
		return plan.Change{}, nil, nil // removed from the plan since, or not the step it was
	}
	c := syncCount{hs: hs}
	if c.theirs(s, now) {
		return plan.Change{}, nil, nil
	}
	if in.Subject != "" && in.Subject != s.Text && !s.Status.Resolved() {
		text := in.Subject
		// The agent renames its own task, even the one it works on.
		if _, err := p.EditStep(s.ID, plan.StepEdit{Text: &text, Force: true}, now); err != nil {
			return plan.Change{}, nil, err
		}
		c.renamed++
	}
	ref.ID, ref.Text = s.ID, s.Text
	hs.Tasks[key] = ref
	if owner := strings.TrimSpace(in.Owner); owner != "" && p.Status == plan.PlanRunning && !s.Status.Resolved() && s.Status != plan.StepBlocked {
		// The task's owner is the step's claimant (Claude Code's task
		// list): the claim is the owner's.
		name := owner
		if plan.ValidAgent(name) != nil {
			name = plan.AgentName(owner)
		}
		if s.Claim == nil || !s.Claim.Live(now) || s.Claim.Agent != name {
			if err := c.claim(p, s, name, now); err != nil {
				return plan.Change{}, nil, err
			}
		}
	}
	if in.Status != "" {
		if err := c.apply(p, s, hs.Tasks, key, interop.MapStatus(in.Status), now); err != nil {
			return plan.Change{}, nil, err
		}
	}
	c.tellBehind()
	return c.change("TaskUpdate"), c.startedIDs, nil
}

// findOrAdd returns the step a todo or task maps to, adding it if new. A
// mapped step counts only if it still has the text it had when mapped (or
// the todo's own): a step renamed by hand is found again by its text, or
// added anew, never confused with another.
func findOrAdd(p *plan.Plan, ids map[string]stepRef, key, text, active, why, phase string, now time.Time, c *syncCount) (*plan.Step, error) {
	text = strings.TrimSpace(text)
	if ref, ok := ids[key]; ok {
		if s, _, err := p.Step(ref.ID); err == nil && (strings.EqualFold(s.Text, ref.Text) || strings.EqualFold(s.Text, text)) {
			ref.Text = s.Text // what the list said of it, and how it left it, still hold
			ids[key] = ref
			return s, nil
		}
	}
	for _, s := range p.Steps() {
		if strings.EqualFold(s.Text, text) {
			ids[key] = stepRef{ID: s.ID, Text: s.Text}
			return s, nil
		}
	}
	spec := plan.StepSpec{Text: text, Active: active, Why: why}
	if phase = strings.TrimSpace(phase); phase != "" {
		ph, err := p.Phase(phase)
		if err != nil {
			if ph, err = p.AddPhase(plan.TruncateText(phase, 200), "", now); err != nil {
				return nil, err
			}
		}
		spec.Phase = ph.ID
	}
	s, err := p.AddStep(spec, now)
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
//
// Claims: a step another agent holds a live claim on takes no change from
// the list (the agent hears why, syncState.refused), and where the sync
// claims (syncState.claiming), a step the list puts in progress is claimed
// for the agent, as plangit step claim does.
func setStatus(p *plan.Plan, s *plan.Step, want plan.StepStatus, now time.Time, c *syncCount) error {
	claimIt := want == plan.StepInProgress && c.hs != nil && c.hs.claiming && !c.hs.holdStarts && s.Claim == nil &&
		(s.Status == plan.StepPending || s.Status == plan.StepInProgress)
	if p.Status != plan.PlanRunning || s.Status == want && !claimIt || c.theirs(s, now) {
		return nil
	}
	if claimIt {
		return c.claim(p, s, c.hs.agent, now)
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
		if c.hs != nil && c.hs.holdStarts {
			c.hs.held = append(c.hs.held, s.ID) // the person's to start
			return nil
		}
		if err := reopenIf(plan.StepCompleted, plan.StepFailed, plan.StepSkipped); err != nil {
			return err
		}
		c.started++
		c.startedIDs = append(c.startedIDs, s.ID)
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

// theirs reports whether another agent than the syncing one holds a live
// claim on s; if so the agent is told, and the list's change to s waits.
func (c *syncCount) theirs(s *plan.Step, now time.Time) bool {
	if c.hs == nil || !s.Claim.Live(now) || s.Claim.Agent == c.hs.agent {
		return false
	}
	c.hs.refused = append(c.hs.refused, fmt.Sprintf("Step %s is claimed by %s (%s left): your list's change to it is not recorded; leave it to its holder, or pick another step.",
		s.ID, s.Claim.Agent, plan.FormatDuration(s.Claim.Until.Sub(now))))
	return true
}

// claim claims s for agent, starting it if it is pending; a refusal (an
// expired claim not taken, a name plangit does not take) is said to the
// agent, and the rest of the sync applies.
func (c *syncCount) claim(p *plan.Plan, s *plan.Step, agent string, now time.Time) error {
	was := s.Status
	if _, err := p.Claim(s.ID, plan.ClaimOpts{Agent: agent, Lease: c.hs.lease, Force: true}, now); err != nil {
		if plan.HasCode(err, plan.CodeClaimed) || plan.HasCode(err, plan.CodeInvalidAgent) || plan.HasCode(err, plan.CodeInvalidStatus) {
			c.hs.refused = append(c.hs.refused, "Not claimed: "+plan.TruncateText(err.Error(), 240))
			return nil
		}
		return err
	}
	c.claimed++
	if was != plan.StepInProgress {
		c.started++
		c.startedIDs = append(c.startedIDs, s.ID)
	}
	return nil
}
