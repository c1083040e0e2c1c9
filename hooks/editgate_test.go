package hooks

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/disk"
	"github.com/plangit/plangit/repo/repotest"
)

// TestEditsMeetTheGates: the seed's Plan-and-Execute flow asks the person
// before a task runs and before a plan executes ("alt 需要步骤确认: A->>U:
// 请求确认任务; U->>A: 确认任务", "alt 需要计划确认: U->>A: 确认计划"). An
// agent's Edit of task_plan.md that starts a step (○ → ◐) or approves the
// plan is put to the person before it runs, as plangit step start and
// plangit approve are; without their yes it is not adopted and the files
// go back to the plan's; with it, it is adopted as the agent's, by its
// Edit tool. A person's own edit of the file, which no hook saw a tool
// make, stays theirs and passes.
func TestEditsMeetTheGates(t *testing.T) {
	t.Parallel()
	t.Run("step confirmation", func(t *testing.T) {
		f := newFixture(t)
		f.withPlan(sessionID, func(st *plan.State) {
			st.Plan.Transition("2", plan.ActDone, plan.TransitionOpts{}, t0)
		})
		f.config(`{"step_confirmation": true}`)
		f.editGate(t, "start", "pre_tool_use_edit_start.json", "post_tool_use_edit_start.json",
			"- [ ] ○ Build the cache layer", "- [ ] ◐ Build the cache layer",
			func(st *plan.State) bool { s, _, _ := st.Plan.Step("3"); return s.Status == plan.StepInProgress })

		// The person's own edit, saved from their editor, is adopted by the
		// next hook as theirs: no gate holds it.
		f.editFile(t, "- [ ] ○ Use it in GetUser", "- [ ] ◐ Use it in GetUser")
		f.run("post_tool_use_read.json")
		if s := f.step("4"); s.Status != plan.StepInProgress {
			t.Fatalf("the person's own start: step 4 is %s", s.Status)
		}
		if rev := f.lastRevision(t); rev.Actor != "user" || rev.Op != "edit" || rev.Tool == "Edit" {
			t.Fatalf("the person's edit is recorded as %+v", rev)
		}
	})
	t.Run("plan confirmation", func(t *testing.T) {
		f := newFixture(t)
		f.withPlan(sessionID, func(st *plan.State) { st.Plan.Status = plan.PlanPending })
		f.config(`{"plan_confirmation": true}`)
		f.editGate(t, "approve", "pre_tool_use_edit_approve.json", "post_tool_use_edit_approve.json",
			"**Status:** pending", "**Status:** running",
			func(st *plan.State) bool { return st.Plan.Status == plan.PlanRunning })
	})
}

// editGate plays the agent's Edit of task_plan.md from old to new, which
// does what (done tells it from the state), twice: unasked, the edit is
// refused; asked first (pre's PreToolUse), it is adopted as the agent's.
func (f *fixture) editGate(t *testing.T, what, pre, post, old, new string, done func(*plan.State) bool) {
	t.Helper()
	path := filepath.Join(f.root, repo.DirName, "plans", sessionID, plan.PlanFile)
	before, _ := os.ReadFile(path)
	revs := len(f.revisions(sessionID))

	// No question was put (a host that ran no PreToolUse hook): the edit
	// is refused, the agent hears why, and the file is the plan's again.
	f.editFile(t, old, new)
	out := f.run(post)
	if done(f.state(sessionID)) {
		t.Fatalf("the unasked edit was adopted: %s", out)
	}
	if ctx := agentText(t, out); !strings.Contains(ctx, "Your edit was not adopted (CONFIRMATION_REQUIRED)") || !strings.Contains(ctx, "back as the plan has them") {
		t.Fatalf("the agent is not told its edit was refused: %s", ctx)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, before) {
		t.Fatalf("the plan file is not the plan's again:\n%s", now)
	}
	for _, r := range f.revisions(sessionID)[revs:] {
		if r.Op == "edit" {
			t.Fatalf("a revision records the refused edit: %+v", r)
		}
	}

	// Before the tool runs, the person is asked, and their yes is kept
	// for the edit's adoption.
	out = f.run(pre)
	if !strings.Contains(out, `"permissionDecision":"ask"`) || !strings.Contains(out, "this edit of task_plan.md") {
		t.Fatalf("the edit is not put to the person: %s", out)
	}
	s, _ := f.proj().Open(sessionID)
	if b, _ := os.ReadFile(s.PrivatePath(disk.AskedFile)); !strings.Contains(string(b), " "+what) {
		t.Fatalf("the asked record holds %q, want %q", b, what)
	}
	f.editFile(t, old, new)
	out = f.run(post)
	if !done(f.state(sessionID)) {
		t.Fatalf("the edit the person allowed was not adopted: %s", out)
	}
	var edit repo.Revision
	for _, r := range f.revisions(sessionID) {
		if r.Op == "edit" {
			edit = r
		}
	}
	if edit.Actor != "agent" || edit.Tool != "Edit" || edit.Hook != PostToolUse {
		t.Fatalf("the agent's edit is recorded as %+v", edit)
	}
	msg, err := exec.Command(repotest.RequireTool(t, "git"), "-C", filepath.Dir(path), "log", "-1", "--format=%B", edit.Hash).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Plangit-Actor: agent", "Plangit-Tool: Edit"} {
		if !strings.Contains(string(msg), want) {
			t.Fatalf("the edit's commit lacks %q:\n%s", want, msg)
		}
	}
	if b, _ := os.ReadFile(s.PrivatePath(disk.AskedFile)); strings.Contains(string(b), " "+what) {
		t.Fatalf("the person's yes was not taken: %q", b)
	}
}

// editFile makes an edit of task_plan.md, as an editor or the agent's Edit
// tool would.
func (f *fixture) editFile(t *testing.T, old, new string) {
	t.Helper()
	path := filepath.Join(f.root, repo.DirName, "plans", sessionID, plan.PlanFile)
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%q is not in the plan file (%v):\n%s", old, err, b)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lastRevision is the session's newest revision.
func (f *fixture) lastRevision(t *testing.T) repo.Revision {
	t.Helper()
	revs := f.revisions(sessionID)
	if len(revs) == 0 {
		t.Fatal("no revisions")
	}
	return revs[len(revs)-1]
}

// TestEditAskedByWhatItDoes: the question before an edit of task_plan.md
// goes by what the edit makes of the plan, whichever tool writes it: a
// MultiEdit or a Write that starts a step is asked about; an edit that
// starts nothing, one the tool will refuse (its old_string is not in the
// file), and an edit of findings.md are not.
func TestEditAskedByWhatItDoes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID, func(st *plan.State) {
		st.Plan.Transition("2", plan.ActDone, plan.TransitionOpts{}, t0)
	})
	f.config(`{"step_confirmation": true}`)
	dir := filepath.Join(f.root, repo.DirName, "plans", sessionID)
	cur, _ := os.ReadFile(filepath.Join(dir, plan.PlanFile))
	edit := func(old, new string) map[string]any {
		return map[string]any{"old_string": old, "new_string": new}
	}
	for _, c := range []struct {
		name  string
		tool  string
		input map[string]any
		asks  bool
	}{
		{"multiedit start", "MultiEdit", map[string]any{"file_path": filepath.Join(dir, plan.PlanFile), "edits": []any{
			edit("Use it in GetUser", "Use it in GetUser and GetUsers"), edit("- [ ] ○ Build the cache layer", "- [ ] ◐ Build the cache layer")}}, true},
		{"write start", "Write", map[string]any{"file_path": filepath.Join(dir, plan.PlanFile),
			"content": strings.Replace(string(cur), "- [ ] ○ Build", "- [ ] ◐ Build", 1)}, true},
		{"text only", "Edit", map[string]any{"file_path": filepath.Join(dir, plan.PlanFile), "old_string": "Use it in GetUser", "new_string": "Use it in GetUsers"}, false},
		{"not in the file", "Edit", map[string]any{"file_path": filepath.Join(dir, plan.PlanFile), "old_string": "- [ ] ○ Ship it", "new_string": "- [ ] ◐ Ship it"}, false},
		{"findings", "Edit", map[string]any{"file_path": filepath.Join(dir, plan.FindingsFile), "old_string": "GetUser is the hot path", "new_string": "GetUser is hot"}, false},
	} {
		out := f.sendRaw(PreToolUse, map[string]any{"tool_name": c.tool, "tool_input": c.input})
		if asks := strings.Contains(out, `"permissionDecision":"ask"`); asks != c.asks {
			t.Errorf("%s: asks %v, want %v: %s", c.name, asks, c.asks, out)
		}
	}
	if now, _ := os.ReadFile(filepath.Join(dir, plan.PlanFile)); !bytes.Equal(now, cur) {
		t.Error("reading an edit before it runs changed the plan file")
	}
}
