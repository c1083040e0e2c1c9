package hooks

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// TestFailuresAreTold: the Plan-and-Execute seed (003), its sequence:
//
//	A->>S: 更新任务状态为Succeed/Failed
//	alt 任务失败
//	    A->>U: 报告执行失败
//	end
//
// a failed step is reported to the person, and the steps waiting on it
// are named, never offered as next; a plan whose only steps left wait on
// the failure is called stuck, with the ways out.
func TestFailuresAreTold(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID) // 3 needs 2, 4 needs 3
	f.send(UserPromptSubmit, map[string]any{"prompt": "go on with the cache"})
	f.change(sessionID, func(p *plan.Plan) (plan.Change, error) {
		return p.Transition("2", plan.ActFail, plan.TransitionOpts{Reason: "the cache library does not build", NoRetry: true}, f.now)
	})
	raw := f.sendRaw("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "plangit step fail 2 --reason \"the cache library does not build\" --no-retry"}})
	var a struct {
		SystemMessage string `json:"systemMessage"`
	}
	json.Unmarshal([]byte(raw), &a)
	if !strings.Contains(a.SystemMessage, "step 2 failed (3, 4 wait on it); the plan is stuck") || !strings.Contains(a.SystemMessage, "step reopen 2") {
		t.Fatalf("the person's notice: %q", a.SystemMessage)
	}
	if again := f.sendRaw("PostToolUse", readUse); strings.Contains(again, "systemMessage") {
		t.Errorf("the person is told twice: %s", again)
	}

	reason := f.send("Stop", map[string]any{"last_assistant_message": "I could not build it."})
	for _, want := range []string{"The plan is stuck: step 2 failed (3, 4 wait on it)", "Failed: 2 Design the cache: the cache library does not build", "plangit step skip 2 --reason", "plangit step edit 3 --needs"} {
		if !strings.Contains(reason, want) {
			t.Errorf("the stop reason lacks %q:\n%s", want, reason)
		}
	}
	if strings.Contains(reason, "Next: 3") {
		t.Errorf("the stop reason offers a step that waits on the failure:\n%s", reason)
	}

	line := f.send(UserPromptSubmit, map[string]any{"prompt": "how is it going?"})
	if !strings.Contains(line, "step 2 failed (3, 4 wait on it). The plan is stuck; ways out: retry it (plangit step reopen 2, then plangit step start 2), skip it (plangit step skip 2 --reason \"...\"), or drop the need (plangit step edit 3 --needs \"...\")") {
		t.Errorf("the turn line: %s", line)
	}
	if strings.Contains(line, "next: 3") {
		t.Errorf("the turn line offers a step that waits on the failure: %s", line)
	}

}

// TestAFailureBesideWorkIsNamed: a failure with other work still ready is
// named, with its waiting steps, but the plan is not stuck.
func TestAFailureBesideWorkIsNamed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID, func(st *plan.State) {
		st.Plan.AddStep(plan.StepSpec{Text: "Write the docs", Phase: "2"}, t0)
	})
	f.change(sessionID, func(p *plan.Plan) (plan.Change, error) {
		return p.Transition("2", plan.ActFail, plan.TransitionOpts{NoRetry: true}, f.now)
	})
	line := f.send(UserPromptSubmit, map[string]any{"prompt": "status?"})
	if !strings.Contains(line, "step 2 failed (3, 4 wait on it).") || strings.Contains(line, "stuck") || !strings.Contains(line, "next: 5 Write the docs") {
		t.Errorf("the turn line: %s", line)
	}
}
