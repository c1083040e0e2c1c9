package hooks

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/disk"
)

// subAgent is the name of the subagent of the recorded payloads
// (subagent_stop.json, post_tool_use_subagent_start.json: agent_type
// general-purpose, agent_id a1b2c3).
const subAgent = "claude:general-purpose:a1b2c3"

// mainAgent is the main agent's name: its host and session.
const mainAgent = "claude:" + sessionID

// sendEnv sends payload to the hooks of host h, with the hook's environment
// env, and returns stdout.
func (f *fixture) sendEnv(h Host, payload []byte, env map[string]string) string {
	f.t.Helper()
	f.now = f.now.Add(time.Minute)
	now := f.now
	out, code := Run(h, "", bytes.NewReader(payload), Env{Now: func() time.Time { return now }, Getenv: func(k string) string { return env[k] }})
	if code != 0 {
		f.t.Fatalf("exit code %d", code)
	}
	return string(out)
}

// The agent a hook acts for, from what each host's recorded payloads
// say: the session for a main agent, the type and id for a subagent,
// PLANGIT_AGENT above the host's names.
func TestAgentNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		host    Host
		payload string
		env     map[string]string
		want    string
	}{
		{Claude{}, "post_tool_use_bash.json", nil, mainAgent},
		{Claude{}, "post_tool_use_subagent_start.json", nil, subAgent},
		{Claude{}, "subagent_stop.json", nil, subAgent},
		{Claude{}, "post_tool_use_bash.json", map[string]string{"PLANGIT_AGENT": "reviewer-1"}, "reviewer-1"},
		// A subagent shares its parent's environment: its name is still its own.
		{Claude{}, "post_tool_use_subagent_start.json", map[string]string{"PLANGIT_AGENT": "reviewer-1"}, "reviewer-1:general-purpose:a1b2c3"},
		{Claude{}, "post_tool_use_bash.json", map[string]string{"PLANGIT_AGENT": "no spaces"}, mainAgent},
		{Codex{}, "codex/post_tool_use_bash.json", nil, "codex:" + sessionID},
		{Codex{}, "codex/subagent_stop.json", nil, "codex:explorer:agent-2"},
		{Gemini{}, "gemini/after_tool_shell.json", nil, "gemini:" + sessionID},
		{Copilot{}, "copilot/post_tool_use_bash.json", map[string]string{"event": "postToolUse"}, "copilot:" + sessionID},
	} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", c.payload))
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.ReplaceAll(b, []byte("{{SESSION}}"), []byte(sessionID))
		event := EventName(strings.TrimSuffix(filepath.Base(c.payload), ".json"))
		if c.env["event"] != "" {
			event = c.env["event"] // the payload does not name it
		}
		in, err := c.host.Decode(event, b)
		if err != nil {
			t.Fatalf("%s: %v", c.payload, err)
		}
		in.Host = hostName(c.host)
		e := &engine{env: Env{Getenv: func(k string) string { return c.env[k] }}, in: in}
		if got := e.agent(); got != c.want {
			t.Errorf("%s %v: agent %q, want %q", c.payload, c.env, got, c.want)
		}
		if plan.ValidAgent(e.agent()) != nil {
			t.Errorf("%s: %q is not a name plangit takes", c.payload, e.agent())
		}
	}
}

// A main agent and its subagent on one plan: the subagent claims step 2
// from its shell (plangit step claim 2 --agent NAME); the main agent
// hears of the claim, the subagent's stop is held on its own claim, and
// the main agent's stop is not held by it.
func TestTwoAgentsOnOnePlan(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	// The subagent is told its name, for --agent.
	if out := f.run("post_tool_use_subagent_start.json"); !strings.Contains(out, "as agent "+subAgent+": pass --agent "+subAgent) {
		t.Errorf("the subagent is not told its name: %s", out)
	}
	if err := f.changeAs(repo.Meta{Agent: subAgent}, true, sessionID, func(p *plan.Plan) (plan.Change, error) {
		return p.Claim("2", plan.ClaimOpts{Agent: subAgent}, f.now)
	}); err != nil {
		t.Fatal(err)
	}
	out := f.run("user_prompt_submit_other.json")
	if !strings.Contains(out, "Claimed by others: step 2: "+subAgent) {
		t.Errorf("the main agent does not hear of the claim: %s", out)
	}
	if out := f.run("pre_tool_use_bash.json"); strings.Contains(out, "Claimed by others") {
		t.Errorf("the claims are said twice in a turn: %s", out)
	}
	if out := f.run("stop.json"); held(out) {
		t.Errorf("the main agent's stop is held by the subagent's claim: %s", out)
	}
	if out := f.run("subagent_stop.json"); !strings.Contains(out, `"decision":"block"`) || !strings.Contains(out, "2 Design the cache") {
		t.Errorf("the subagent's stop is not held on its claim: %s", out)
	}
	// The main agent's todo list cannot finish the subagent's step; the
	// rest of the list applies, and the agent hears why.
	todos := `{"session_id":"` + sessionID + `","cwd":` + string(jsonString(f.root)) + `,"hook_event_name":"PostToolUse","tool_name":"TodoWrite",
		"tool_input":{"todos":[{"content":"Design the cache","status":"completed","activeForm":"Designing"},{"content":"Write the docs","status":"pending","activeForm":"Writing"}]}}`
	out = f.sendEnv(Claude{}, []byte(todos), nil)
	if !strings.Contains(out, "Step 2 is claimed by "+subAgent) {
		t.Errorf("the refusal is not said: %s", out)
	}
	st := f.state(sessionID)
	s2, _, _ := st.Plan.Step("2")
	if s2.Status != plan.StepInProgress || s2.Claim == nil || s2.Claim.Agent != subAgent {
		t.Errorf("step 2 after the main agent's list: %s %+v", s2.Status, s2.Claim)
	}
	if last := st.Plan.Steps()[len(st.Plan.Steps())-1]; last.Text != "Write the docs" {
		t.Error("the rest of the todo list was lost")
	}
	// Its own todo list puts a step in progress: a claim for it.
	sub := `{"session_id":"` + sessionID + `","cwd":` + string(jsonString(f.root)) + `,"hook_event_name":"PostToolUse","agent_id":"a1b2c3","agent_type":"general-purpose","tool_name":"TodoWrite",
		"tool_input":{"todos":[{"content":"Design the cache","status":"completed","activeForm":"Designing"},{"content":"Write the docs","status":"in_progress","activeForm":"Writing"}]}}`
	f.sendEnv(Claude{}, []byte(sub), nil)
	st = f.state(sessionID)
	s2, _, _ = st.Plan.Step("2")
	if s2.Status != plan.StepCompleted || s2.Claim != nil {
		t.Errorf("the subagent's list completes its own step: %s %+v", s2.Status, s2.Claim)
	}
	docs := st.Plan.Steps()[len(st.Plan.Steps())-1]
	if docs.Status != plan.StepInProgress || docs.Claim == nil || docs.Claim.Agent != subAgent {
		t.Errorf("the step the subagent's list started is not its claim: %s %+v", docs.Status, docs.Claim)
	}
}

// A tool use renews its agent's lease without a commit: status shows the
// new end, the revisions stay as they were.
func TestToolUseRenewsLease(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	if err := f.changeAs(repo.Meta{Agent: mainAgent}, true, sessionID, func(p *plan.Plan) (plan.Change, error) {
		return p.Claim("2", plan.ClaimOpts{Agent: mainAgent, Lease: 15 * time.Minute}, f.now)
	}); err != nil {
		t.Fatal(err)
	}
	claimed := f.now
	revs := len(f.revisions(sessionID))
	f.now = f.now.Add(5 * time.Minute)
	f.run("post_tool_use_read.json")
	s2, _, _ := f.state(sessionID).Plan.Step("2")
	if want := f.now.Add(15 * time.Minute).Truncate(time.Second); !s2.Claim.Until.Equal(want) {
		t.Errorf("lease ends %s, want %s (claimed %s)", s2.Claim.Until, want, claimed)
	}
	if n := len(f.revisions(sessionID)); n != revs {
		t.Errorf("the renewal committed: %d revisions, had %d", n, revs)
	}
	// Another agent's tool use renews nothing of it.
	until := s2.Claim.Until
	f.now = f.now.Add(5 * time.Minute)
	f.run("post_tool_use_subagent_start.json")
	if s2, _, _ := f.state(sessionID).Plan.Step("2"); !s2.Claim.Until.Equal(until) {
		t.Errorf("the subagent's tool use renewed the main agent's lease: %s", s2.Claim.Until)
	}
}

// A host session attached to another session's plan (plangit attach, or
// PLANGIT_PLAN in its environment) works on that plan: no plan of its
// own is made, and its changes are its agent's.
func TestAttachedSession(t *testing.T) {
	t.Parallel()
	const other = "11111111-2222-4333-8444-555555555555"
	for _, how := range []string{"attach", "PLANGIT_PLAN"} {
		t.Run(how, func(t *testing.T) {
			f := newFixture(t)
			f.withPlan(sessionID)
			env := map[string]string{}
			if how == "attach" {
				if err := f.proj().Attach(other, sessionID); err != nil {
					t.Fatal(err)
				}
			} else {
				env["PLANGIT_PLAN"] = sessionID
			}
			start := `{"session_id":"` + other + `","cwd":` + string(jsonString(f.root)) + `,"hook_event_name":"SessionStart","source":"startup"}`
			if out := f.sendEnv(Claude{}, []byte(start), env); !strings.Contains(out, "Add caching to UserService") {
				t.Errorf("the attached session is not reminded of the plan: %s", out)
			}
			todos := `{"session_id":"` + other + `","cwd":` + string(jsonString(f.root)) + `,"hook_event_name":"PostToolUse","tool_name":"TodoWrite",
				"tool_input":{"todos":[{"content":"Build the cache layer","status":"in_progress","activeForm":"Building"}]}}`
			f.sendEnv(Claude{}, []byte(todos), env)
			if _, err := os.Lstat(filepath.Join(f.proj().PlansDir(), other)); err == nil {
				t.Error("a plan was made for the attached host session")
			}
			s3, _, _ := f.state(sessionID).Plan.Step("3")
			if s3.Claim == nil || s3.Claim.Agent != "claude:"+other {
				t.Errorf("the attached session's todo list does not claim for its agent: %s %+v", s3.Status, s3.Claim)
			}
		})
	}
}

// Attach refuses what it cannot do, and changes nothing.
func TestAttachRefuses(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	f.withPlan("own-plan")
	for _, c := range []struct{ host, plan string }{
		{"own-plan", sessionID}, {"x", "no-such-session"}, {sessionID, sessionID}, {"../x", sessionID},
	} {
		if err := f.proj().Attach(c.host, c.plan); err == nil {
			t.Errorf("attach %s to %s: no error", c.host, c.plan)
		} else if plan.CodeOf(err) == "" {
			t.Errorf("attach %s to %s: an error without a code: %v", c.host, c.plan, err)
		}
		if f.proj().Attached(c.host) != "" {
			t.Errorf("attach %s to %s left a record", c.host, c.plan)
		}
	}
}

func jsonString(s string) []byte { return append(append([]byte(`"`), inJSON(s)...), '"') }

// A merge voided the agent's claim (the other machine's reached the
// remote first): its next prompt tells it once, with the next ready step.
func TestVoidedClaimIsToldOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	if err := f.changeAs(repo.Meta{Agent: "desktop"}, true, sessionID, func(p *plan.Plan) (plan.Change, error) {
		return p.Claim("2", plan.ClaimOpts{Agent: "desktop"}, f.now)
	}); err != nil {
		t.Fatal(err)
	}
	s, err := f.proj().Open(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	// What share's merge writes when it voids a claim: STEP TOKEN AGENT HOLDER.
	if err := s.WritePrivate(disk.VoidedFile, []byte("2 1 "+mainAgent+" desktop\n")); err != nil {
		t.Fatal(err)
	}
	out := f.run("user_prompt_submit_other.json")
	if !strings.Contains(out, "your claim on step 2 (token 1) was voided: desktop's claim reached the remote first") {
		t.Fatalf("the voided claim is not told: %s", out)
	}
	if out := f.run("user_prompt_submit_other.json"); strings.Contains(out, "was voided") {
		t.Errorf("the voided claim is told twice: %s", out)
	}
}

// TestPlainAgent: the hook binary's names of agents are plan.AgentName's,
// and it leaves to plangit the parts it cannot name plainly.
func TestPlainAgent(t *testing.T) {
	for _, parts := range [][]string{
		{"claude", "6b1d8c2e-0d4f-4f7e-9d1a-2c3b4a5d6e7f"},
		{"claude", "general-purpose", "a6d39a4c4173d23ae"},
		{"claude", "", "a6d39a4c4173d23ae"},
	} {
		got, ok := hookwire.PlainAgent(parts...)
		if want := plan.AgentName(parts...); !ok || got != want {
			t.Errorf("PlainAgent(%q) = %q, %v; plan.AgentName makes %q", parts, got, ok, want)
		}
	}
	for _, parts := range [][]string{{"claude", "a b"}, {"-x", "y"}, {"claude", "s.1"}, {"claude", strings.Repeat("a", 100)}, {}} {
		if got, ok := hookwire.PlainAgent(parts...); ok {
			t.Errorf("PlainAgent(%q) = %q: a name for plangit to make", parts, got)
		}
	}
}
