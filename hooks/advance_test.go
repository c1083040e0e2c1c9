package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// transcript writes a Claude Code transcript in which the agent, after the
// person's prompt, said msgs; it returns its path.
func (f *fixture) transcript(msgs ...string) string {
	f.t.Helper()
	var b strings.Builder
	b.WriteString(`{"type":"user","message":{"role":"user","content":"Go on with the cache."}}` + "\n")
	for _, m := range msgs {
		b.WriteString(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":` + marshalString(m) + `}]}}` + "\n")
	}
	path := filepath.Join(f.t.TempDir(), sessionID+".jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		f.t.Fatal(err)
	}
	return path
}

func (f *fixture) step(id string) *plan.Step {
	f.t.Helper()
	s, _, err := f.state(sessionID).Plan.Step(id)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

var (
	readUse    = map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "service.go"}}
	plangitUse = map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "plangit show"}}
	mcpUse     = map[string]any{"tool_name": "mcp__plangit__status", "tool_input": map[string]any{}}
	drivesUse  = map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "plangit --session x step progress 2 1/3"}}
)

// TestAutoAdvanceIsOffByDefault: a step a dozen tool uses into its work
// is still in progress: nobody said it was done.
func TestAutoAdvanceIsOffByDefault(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	for range 12 {
		f.send("PostToolUse", readUse)
	}
	f.send("Stop", map[string]any{"last_assistant_message": "Now let me run the tests."})
	if s := f.step("2"); s.Status != plan.StepInProgress {
		t.Fatalf("step 2 is %s after 12 tool uses with auto_advance at its default", s.Status)
	}
}

// TestAutoAdvanceCountsTheAgentsWork: turned on, auto-advance counts the
// agent's work in the step — never plangit's own commands or MCP tools —
// and marks the completion as its own guess, with a result in the agent's
// words.
func TestAutoAdvanceCountsTheAgentsWork(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	f.config(`{"auto_advance": true, "advance_after": 3}`)
	f.send("PostToolUse", readUse)
	f.send("PostToolUse", readUse)
	for _, own := range []map[string]any{plangitUse, mcpUse, plangitUse} {
		f.send("PostToolUse", own)
	}
	if s := f.step("2"); s.Status != plan.StepInProgress {
		t.Fatalf("plangit's own tool uses counted as work: step 2 is %s", s.Status)
	}
	use := map[string]any{"transcript_path": f.transcript("The cache design is settled: an LRU of 10k entries.\n\nNext I will build it.")}
	for k, v := range readUse {
		use[k] = v
	}
	out := f.send("PostToolUse", use)
	s := f.step("2")
	if s.Status != plan.StepCompleted || !s.Auto || s.Result != "The cache design is settled: an LRU of 10k entries." {
		t.Fatalf("after 3 uses of work: %+v", s)
	}
	if !strings.Contains(out, "Step 2 is marked done after 3 tool uses in it (auto_advance)") {
		t.Errorf("the agent was told %q", out)
	}
	if md, _ := os.ReadFile(filepath.Join(f.proj().PlansDir(), sessionID, plan.PlanFile)); !strings.Contains(string(md), "Design the cache `#2 needs:1 auto`") {
		t.Errorf("task_plan.md does not mark the completion as automatic:\n%s", md)
	}
	revs := f.revisions(sessionID)
	if last := revs[len(revs)-1]; !strings.HasPrefix(last.Summary, "auto-advance: step 2 completed") {
		t.Errorf("the revision says %q", last.Summary)
	}
}

// TestDrivenStepsNeverAutoAdvance: once the agent drives its steps itself
// (a plangit step command, its todo tool), its word decides: no count and
// no transition word completes a step for it.
func TestDrivenStepsNeverAutoAdvance(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	f.config(`{"auto_advance": true, "advance_after": 2}`)
	f.send("PostToolUse", drivesUse)
	for range 5 {
		f.send("PostToolUse", readUse)
	}
	f.send("Stop", map[string]any{"last_assistant_message": "Now let me run the tests."})
	if s := f.step("2"); s.Status != plan.StepInProgress {
		t.Fatalf("step 2 of an agent that drives its steps is %s", s.Status)
	}
}

// TestTheAgentTakesBackAnAutoAdvance: the agent saying the step is not
// done, right after auto-advance completed it, puts it back in progress.
func TestTheAgentTakesBackAnAutoAdvance(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	f.config(`{"auto_advance": true, "advance_after": 2}`)
	f.send("PostToolUse", readUse)
	f.send("PostToolUse", readUse)
	if s := f.step("2"); s.Status != plan.StepCompleted || !s.Auto {
		t.Fatalf("step 2 after 2 uses: %+v", s)
	}
	f.send("Stop", map[string]any{"last_assistant_message": "Step 2 is not done yet: the eviction is missing."})
	if s, s3 := f.step("2"), f.step("3"); s.Status != plan.StepInProgress || s.Auto || s3.Status != plan.StepPending {
		t.Fatalf("after the agent said not done: step 2 %+v, step 3 %s", s, s3.Status)
	}
}

// TestStepLinesFromTheWholeTurn: [Step] lines of every message of the
// turn become steps, not only those of the last one.
func TestStepLinesFromTheWholeTurn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID)
	path := f.transcript("Plan:\n[Step] Measure the hit rate", "Reading GetUser.", "[Step] Add metrics\n[Step] Measure the hit rate")
	f.send("Stop", map[string]any{"transcript_path": path, "last_assistant_message": "Done for now."})
	var texts []string
	for _, s := range f.state(sessionID).Plan.Steps() {
		texts = append(texts, s.Text)
	}
	if got := strings.Join(texts, "|"); !strings.HasSuffix(got, "|Measure the hit rate|Add metrics") {
		t.Fatalf("steps: %s", got)
	}
}
