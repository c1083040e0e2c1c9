package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// The payloads in testdata/hooks/real/claude-planmode/ are what Claude
// Code 2.1.332 sent in plan mode, run headless as the Agent SDK runs it
// (hooks/realhost TestClaudePlanMode): the model writes its plan to the
// plan file and calls ExitPlanMode, the person approves it; turn 2
// (16–19) re-plans with a step more. PostToolUse's tool_input is empty;
// its tool_response holds the plan.
const planModeHost = "claude-planmode"

// stepTexts lists a plan's steps as "ID text status".
func stepTexts(p *plan.Plan) []string {
	var out []string
	for _, st := range p.Steps() {
		out = append(out, st.ID+" "+st.Text+" "+string(st.Status))
	}
	return out
}

// TestPlanModeStartsThePlan: with no plan, the approved plan from plan
// mode is the session's plan, in one revision that says so.
func TestPlanModeStartsThePlan(t *testing.T) {
	t.Parallel()
	f := newHostFixture(t)
	out := f.real(Claude{}, planModeHost, "08-PostToolUse-ExitPlanMode")
	if !strings.Contains(out, "Started a persistent plan from plan mode") {
		t.Errorf("answer: %s", out)
	}
	p := f.state(sessionID).Plan
	if got := strings.Join(stepTexts(p), "; "); got != "1 Write the cache pending; 2 Test the cache pending" {
		t.Errorf("steps: %s", got)
	}
	if p.Title != "Add caching" || p.From != "planmode" || p.Status != plan.PlanRunning || !strings.Contains(p.Goal, "UserService.GetUser") {
		t.Errorf("plan: title %q, from %q, status %s, goal %q", p.Title, p.From, p.Status, p.Goal)
	}
	revs := f.revisions(sessionID)
	if len(revs) != 1 || !strings.Contains(revs[0].Summary, "plan from plan mode") {
		t.Errorf("revisions: %+v", revs)
	}
}

// TestPlanModeUpdatesInPlace: the agent re-plans in plan mode; the plan
// is updated in place — the new step added, none duplicated, a step done
// stays done — in one revision "plan from plan mode"; the same plan again
// changes nothing.
func TestPlanModeUpdatesInPlace(t *testing.T) {
	t.Parallel()
	f := newHostFixture(t)
	f.real(Claude{}, planModeHost, "08-PostToolUse-ExitPlanMode")
	f.change(sessionID, func(p *plan.Plan) (plan.Change, error) {
		return p.Transition("1", plan.ActDone, plan.TransitionOpts{Result: "written", Force: true}, f.now)
	})
	out := f.real(Claude{}, planModeHost, "19-PostToolUse-ExitPlanMode")
	if !strings.Contains(out, "Recorded the plan from plan mode") || !strings.Contains(out, "1 step added (3)") {
		t.Errorf("answer: %s", out)
	}
	p := f.state(sessionID).Plan
	if got := strings.Join(stepTexts(p), "; "); got != "1 Write the cache completed; 2 Test the cache pending; 3 Document the cache pending" {
		t.Errorf("steps: %s", got)
	}
	revs := f.revisions(sessionID)
	if len(revs) != 3 || revs[2].Summary != "plan from plan mode: 1 step added (3)" {
		for _, r := range revs {
			t.Logf("%s", r.Summary)
		}
		t.Errorf("want three revisions, the last %q (oldest first)", "plan from plan mode: 1 step added (3)")
	}
	out = f.real(Claude{}, planModeHost, "19-PostToolUse-ExitPlanMode")
	if len(f.revisions(sessionID)) != 3 || !strings.Contains(out, "holds the plan from plan mode already") {
		t.Errorf("the same plan again: %d revisions, answer %s", len(f.revisions(sessionID)), out)
	}
}

// TestPlanModeApproves: with plan_confirmation on, the person's approval
// in plan mode approves the plan awaiting it — a plan the hooks started
// from the request, taken over, or one with steps — and says so in the
// revision; the approval is taken from the asked record, once.
func TestPlanModeApproves(t *testing.T) {
	t.Parallel()
	for _, from := range []string{"prompt", ""} {
		t.Run("from="+from, func(t *testing.T) {
			f := newHostFixture(t)
			f.config(`{"plan_confirmation": true}`)
			p, _ := plan.New(sessionID, "Plan caching", "", nil, t0, true)
			p.From = from
			if from == "" {
				p.AddStep(plan.StepSpec{Text: "Write the cache"}, t0)
			}
			s, _, err := f.proj().Create(sessionID, &plan.State{Plan: p}, plan.Change{Op: "init", Summary: "init"}, repo.Options{Now: t0})
			if err != nil {
				t.Fatal(err)
			}
			out := f.real(Claude{}, planModeHost, "08-PostToolUse-ExitPlanMode")
			got := f.state(sessionID).Plan
			if got.Status != plan.PlanRunning {
				t.Fatalf("plan %s, want running: %s\n%s", got.Status, out, f.log())
			}
			if texts := strings.Join(stepTexts(got), "; "); texts != "1 Write the cache pending; 2 Test the cache pending" {
				t.Errorf("steps: %s", texts)
			}
			revs := f.revisions(sessionID)
			sum := revs[len(revs)-1].Summary
			if !strings.HasPrefix(sum, "plan from plan mode: ") || !strings.Contains(sum, "approved in plan mode") {
				t.Errorf("revision %q", sum)
			}
			if from == "prompt" && (got.From != "planmode" || got.Title != "Add caching") {
				t.Errorf("taken over: from %q, title %q", got.From, got.Title)
			}
			if s.Asked("approve", f.now) {
				t.Error("the approval is still in the asked record")
			}
		})
	}
}

// TestPlanModeWithoutAPlan: an ExitPlanMode whose plan has no step
// plangit reads changes nothing, and the agent hears why.
func TestPlanModeWithoutAPlan(t *testing.T) {
	t.Parallel()
	f := newHostFixture(t)
	out := f.run("post_tool_use_exitplanmode_nosteps.json")
	if !strings.Contains(out, "The plan from plan mode is not recorded") {
		t.Errorf("answer: %s", out)
	}
	if _, err := f.proj().Open(sessionID); err == nil {
		t.Error("a session was started from a plan with no step")
	}
}

// TestPlanModeWriteIsNotAsked: with plan_confirmation on and the plan
// awaiting approval, Claude Code's Write of its own plan file in plan
// mode (~/.claude/plans, or the plansDirectory of its settings) is asked
// nothing: it is the planning the person approves on leaving plan mode.
// The same Write outside plan mode, and a Write elsewhere in plan mode,
// are asked as before.
func TestPlanModeWriteIsNotAsked(t *testing.T) {
	t.Parallel()
	asked := func(out string) bool { return strings.Contains(out, `"permissionDecision":"ask"`) }
	f := newHostFixture(t)
	f.environ["HOME"] = filepath.Join(f.realRun(), "home")
	f.config(`{"plan_confirmation": true}`)
	p, _ := plan.New(sessionID, "Plan caching", "", nil, t0, true)
	p.AddStep(plan.StepSpec{Text: "Write the cache"}, t0)
	if _, _, err := f.proj().Create(sessionID, &plan.State{Plan: p}, plan.Change{Op: "init", Summary: "init"}, repo.Options{Now: t0}); err != nil {
		t.Fatal(err)
	}
	if out := f.real(Claude{}, planModeHost, "05-PreToolUse-Write"); asked(out) {
		t.Errorf("the plan file's Write in plan mode was asked: %s", out)
	}
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", "real", planModeHost, "05-PreToolUse-Write.json"))
	if err != nil {
		t.Fatal(err)
	}
	send := func(b []byte) string {
		b = bytes.ReplaceAll(b, []byte("{{RUN}}"), inJSON(f.realRun()))
		return f.sendTo(Claude{}, PreToolUse, b)
	}
	if out := send(bytes.Replace(b, []byte(`"permission_mode": "plan"`), []byte(`"permission_mode": "default"`), 1)); !asked(out) {
		t.Errorf("the same Write outside plan mode was not asked: %s", out)
	}
	elsewhere := bytes.Replace(b, []byte("{{RUN}}/home/.claude/plans/"), []byte("{{CWD}}/"), 1)
	if out := send(elsewhere); !asked(out) {
		t.Errorf("a Write in the project in plan mode was not asked: %s", out)
	}
	// plansDirectory in the project's settings: a relative one is the
	// project root's.
	os.MkdirAll(filepath.Join(f.root, ".claude"), 0o755)
	os.WriteFile(filepath.Join(f.root, ".claude", "settings.json"), []byte(`{"plansDirectory": "docs/plans"}`), 0o644)
	inDocs := bytes.Replace(b, []byte("{{RUN}}/home/.claude/plans/"), []byte("{{CWD}}/docs/plans/"), 1)
	if out := send(inDocs); asked(out) {
		t.Errorf("the plan file's Write in plansDirectory was asked: %s", out)
	}
	if out := send(b); !asked(out) {
		t.Errorf("with plansDirectory set, a Write in ~/.claude/plans was not asked: %s", out)
	}
}
