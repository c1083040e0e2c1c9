package hooks

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// TestGatesHoldOnEveryPath: approving a plan that awaits approval, and
// starting a step under step confirmation, are the person's. The agent's
// shell and hooks may do them only when its host asked the person first
// and they said yes (the asked record, once); MCP never; a person at a
// terminal always.
func TestGatesHoldOnEveryPath(t *testing.T) {
	t.Parallel()
	approve := func(p *plan.Plan) (plan.Change, error) { return p.Approve(t0) }
	agent, person := repo.Meta{Actor: "agent"}, repo.Meta{Actor: "user"}
	todo := func(content, status string) map[string]any {
		return map[string]any{"content": content, "status": status, "activeForm": content}
	}

	f := newFixture(t)
	f.withPlan(sessionID, func(st *plan.State) { st.Plan.Status = plan.PlanPending })
	f.config(`{"plan_confirmation": true}`)
	if err := f.changeAs(agent, true, sessionID, approve); !plan.HasCode(err, plan.CodeConfirmationRequired) ||
		!strings.Contains(err.Error(), "run plangit approve in their own terminal") {
		t.Fatalf("the agent approved its own plan unasked: %v", err)
	}
	// Claude Code asks the person before the agent's plangit approve: a
	// yes lets it through, once; MCP takes no such yes.
	f.send(PreToolUse, bash("plangit approve"))
	if err := f.changeAs(agent, false, sessionID, approve); !plan.HasCode(err, plan.CodeConfirmationRequired) {
		t.Fatalf("an MCP tool approved the plan: %v", err)
	}
	if err := f.changeAs(agent, true, sessionID, approve); err != nil {
		t.Fatalf("the approve the person allowed: %v", err)
	}
	if st := f.state(sessionID); st.Plan.Status != plan.PlanRunning {
		t.Fatalf("status %s", st.Plan.Status)
	}

	// Step confirmation: a todo list that starts a step leaves it for the
	// person, and says so; asked first, it starts it.
	g := newFixture(t)
	g.withPlan(sessionID)
	g.config(`{"step_confirmation": true}`)
	g.change(sessionID, func(p *plan.Plan) (plan.Change, error) {
		return p.Transition("2", plan.ActDone, plan.TransitionOpts{}, t0)
	})
	todos := map[string]any{"tool_name": "TodoWrite", "tool_input": map[string]any{"todos": []any{
		todo("Read the service", "completed"), todo("Design the cache", "completed"), todo("Build the cache layer", "in_progress")}}}
	out := g.send(PostToolUse, todos)
	if s := g.step("3"); s.Status != plan.StepPending || !strings.Contains(out, "Step 3 waits for the person to start it (step_confirmation)") {
		t.Fatalf("an unasked todo list started step 3 (%s): %s", s.Status, out)
	}
	if ctx := g.sendRaw(PreToolUse, todos); !strings.Contains(ctx, `"permissionDecision":"ask"`) {
		t.Fatalf("the todo list that starts a step is not put to the person: %s", ctx)
	}
	g.send(PostToolUse, todos)
	if s := g.step("3"); s.Status != plan.StepInProgress {
		t.Fatalf("the start the person allowed: step 3 is %s", s.Status)
	}
	// A person at a terminal needs no question.
	if err := g.changeAs(person, false, sessionID, func(p *plan.Plan) (plan.Change, error) {
		return p.Transition("4", plan.ActStart, plan.TransitionOpts{Force: true}, t0)
	}); err != nil {
		t.Fatalf("the person's own start: %v", err)
	}
}

// TestNoticesForThePerson: the person sees one line when a plan is found
// at a session's start, and once when the plan is complete, however it
// came to be (here the agent's own plangit step done).
func TestNoticesForThePerson(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	notice := func(out string) string {
		var a struct {
			SystemMessage string `json:"systemMessage"`
		}
		json.Unmarshal([]byte(out), &a)
		return a.SystemMessage
	}
	if n := notice(f.run("session_start_startup.json")); n != `plangit: plan "Add caching to UserService" — 1/4 steps done (session `+sessionID+`)` {
		t.Errorf("at the start: %q", n)
	}
	for _, id := range []string{"2", "3", "4"} {
		f.change(sessionID, func(p *plan.Plan) (plan.Change, error) {
			return p.Transition(id, plan.ActDone, plan.TransitionOpts{Force: true}, t0)
		})
	}
	done := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "plangit step done 4 --result ok"}}
	if n := notice(f.sendRaw(PostToolUse, done)); n != `plangit: plan "Add caching to UserService" completed, 4/4 steps done` {
		t.Errorf("the plan complete: %q", n)
	}
	f.newTurn(sessionID)
	if n := notice(f.sendRaw(PostToolUse, readUse)); n != "" {
		t.Errorf("told twice: %q", n)
	}
}

// TestCleanupOn: with cleanup_on session_start, a session's start removes
// the finished sessions older than retention_days — never an unfinished
// one, nor the session starting — tells the person, and runs at most once
// an hour.
func TestCleanupOn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	old := f.now.Add(-30 * 24 * time.Hour)
	for _, id := range []string{"old-done", "old-open"} {
		p, _ := plan.New(id, "Old "+id, "", nil, old, false)
		p.AddStep(plan.StepSpec{Text: "x"}, old)
		if id == "old-done" {
			p.Transition("1", plan.ActDone, plan.TransitionOpts{Force: true}, old)
			p.Finish("done", true, old)
		}
		if _, _, err := f.proj().Create(id, &plan.State{Plan: p}, plan.Change{Op: "init", Summary: "init"}, repo.Options{Now: old}); err != nil {
			t.Fatal(err)
		}
	}
	f.config(`{"cleanup_on": "session_start", "retention_days": 7}`)
	var a struct {
		SystemMessage string `json:"systemMessage"`
	}
	json.Unmarshal([]byte(f.run("session_start_startup.json")), &a)
	if !strings.Contains(a.SystemMessage, "plangit: removed 1 session last changed over 7 days ago (cleanup_on session_start") {
		t.Errorf("the person was told %q", a.SystemMessage)
	}
	ids, _ := f.proj().SessionIDs()
	if slices.Contains(ids, "old-done") || !slices.Contains(ids, "old-open") || !slices.Contains(ids, sessionID) {
		t.Fatalf("sessions left: %v", ids)
	}
	if _, err := f.proj().AutoCleanup(repo.DefaultConfig(), sessionID, f.now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if rep, _ := f.proj().AutoCleanup(repo.DefaultConfig(), sessionID, f.now.Add(2*time.Minute)); rep != nil {
		t.Error("cleanup ran twice within the hour")
	}
}
