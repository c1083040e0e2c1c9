package repo

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
)

// agedSession creates a session whose last commit is at `at`, finished or
// not.
func agedSession(t *testing.T, p Project, id string, at time.Time, finished bool) {
	t.Helper()
	pl, _ := plan.New(id, "Plan "+id, "", []string{"Work"}, at, false)
	pl.AddStep(plan.StepSpec{Text: "one"}, at)
	s, _, err := p.Create(id, &plan.State{Plan: pl}, plan.Change{Op: "init", Summary: "init"}, Options{Now: at})
	if err != nil {
		t.Fatal(err)
	}
	if finished {
		_, err := s.Update(Options{Now: at}, func(st *plan.State) (plan.Change, error) {
			return st.Plan.Finish("done", true, at)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestCleanup(t *testing.T) {
	t.Parallel()
	now := t0.Add(30 * 24 * time.Hour)
	p := Project{Root: t.TempDir()}
	agedSession(t, p, "old-done", now.Add(-10*24*time.Hour), true)
	agedSession(t, p, "old-open", now.Add(-10*24*time.Hour), false)
	agedSession(t, p, "new-done", now.Add(-2*24*time.Hour), true)
	agedSession(t, p, "old-active", now.Add(-20*24*time.Hour), true)
	p.SetActive("old-active")

	// A symlink planted in plans/ pointing outside, at a directory that
	// looks like an old session.
	outside := filepath.Join(t.TempDir(), "victim")
	agedSession(t, Project{Root: outside}, "bait", now.Add(-40*24*time.Hour), true)
	linked := repotest.Symlink(t, filepath.Join(outside, ".code-agent", "plans", "bait"), filepath.Join(p.PlansDir(), "bait"))

	o := CleanupOptions{OlderThan: 7 * 24 * time.Hour, Now: now, DryRun: true}
	rep, err := p.Cleanup(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := removed(rep); !slices.Equal(got, []string{"old-done"}) || rep.Freed == 0 {
		t.Fatalf("dry run would remove %v (%d bytes)", got, rep.Freed)
	}
	ids, _ := p.SessionIDs()
	if len(ids) != 4 {
		t.Fatalf("a dry run removed something: %v", ids)
	}

	o.DryRun = false
	rep, err = p.Cleanup(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := removed(rep); !slices.Equal(got, []string{"old-done"}) {
		t.Fatalf("removed %v", got)
	}
	reasons := map[string]string{}
	for _, e := range rep.Entries {
		reasons[e.Session] = e.Reason
	}
	kept := map[string]string{"old-open": "unfinished", "new-done": "changed 2d ago", "old-active": "the active session"}
	if linked {
		kept["bait"] = "a symlink"
	}
	for id, want := range kept {
		if !strings.HasPrefix(reasons[id], want) {
			t.Errorf("%s kept because %q, want %q", id, reasons[id], want)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, ".code-agent", "plans", "bait", plan.PlanFile)); err != nil {
		t.Fatal("cleanup followed the symlink and removed what it points at")
	}
	if _, err := os.Lstat(filepath.Join(p.PlansDir(), "bait")); err != nil && linked {
		t.Fatal("cleanup removed the symlink itself; it should leave it alone")
	}
	if _, err := os.Lstat(filepath.Join(p.PlansDir(), "old-done")); !os.IsNotExist(err) {
		t.Fatalf("old-done is reported removed, but something of it is left: %v", err)
	}

	o.IncludeUnfinished = true
	rep, _ = p.Cleanup(o)
	if got := removed(rep); !slices.Equal(got, []string{"old-open"}) {
		t.Fatalf("with --include-unfinished removed %v", got)
	}
	ids, _ = p.SessionIDs()
	if !slices.Equal(ids, []string{"new-done", "old-active"}) {
		t.Fatalf("left %v", ids)
	}
	repotest.CheckAll(t, p.Root)
}

func removed(rep *CleanupReport) []string {
	var out []string
	for _, e := range rep.Entries {
		if e.Removed {
			out = append(out, e.Session)
		}
	}
	return out
}

func TestCleanupRefusesASymlinkedPlansDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	target := t.TempDir()
	os.MkdirAll(filepath.Join(root, DirName), 0o755)
	repotest.RequireSymlink(t, target, filepath.Join(root, DirName, plansDir))
	_, err := Project{Root: root}.Cleanup(CleanupOptions{Now: t0})
	if plan.CodeOf(err) != plan.CodeIOError || !strings.Contains(err.Error(), "never follows") {
		t.Fatalf("got %v", err)
	}
}

func TestConfig(t *testing.T) {
	t.Parallel()
	p := Project{Root: t.TempDir()}
	c, err := p.Config()
	if err != nil || c.RetentionDays != 7 || c.StopMode != "gate" || c.ContextBudget != 2000 || !c.Hooks["Stop"] || c.StrikeLimit != 3 || c.ActionThreshold != 2 {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	os.MkdirAll(p.Dir(), 0o755)
	write := func(s string) { os.WriteFile(p.ConfigPath(), []byte(s), 0o644) }

	write(`{"retention_days": 3, "hooks": {"Stop": false}, "view_tools": ["Read"]}`)
	c, err = p.Config()
	if err != nil || c.RetentionDays != 3 || c.Hooks["Stop"] || !c.Hooks["PreToolUse"] || !slices.Equal(c.ViewTools, []string{"Read"}) || c.StrikeLimit != 3 {
		t.Fatalf("partial file: %+v %v", c, err)
	}
	for src, want := range map[string]string{
		`{"retention_dayz": 3}`:                           `config.json: retention_dayz: unknown setting`,
		`{"retention_days": "seven"}`:                     `config.json: retention_days: must be a whole number`,
		`{"retention_days": 0}`:                           `config.json: retention_days: must be at least 1`,
		`{"stop_mode": "maybe"}`:                          `config.json: stop_mode: must be gate, always, advise or off`,
		`{"advance_after": 0}`:                            `config.json: advance_after: must be at least 1`,
		`{"advance_after": 4, "step_iteration_limit": 5}`: `config.json: step_iteration_limit: is the older name of advance_after; keep one of them`,
		`{"hooks": {"OnLunch": true}}`:                    `config.json: hooks.OnLunch: unknown hook event`,
		`{"critical_tools": "Bash"}`:                      `config.json: critical_tools: must be a list of strings`,
		"{\n  \"retention_days\": 3,\n}":                  `config.json: malformed JSON at line 3`,
		`[1, 2]`:                                          `config.json: the file must hold a JSON object`,
	} {
		write(src)
		_, err := p.Config()
		if plan.CodeOf(err) != plan.CodeInvalidArgument || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", src, err, want)
		}
	}

	c = DefaultConfig()
	if err := c.Set("strike_limit", "5"); err != nil || c.StrikeLimit != 5 {
		t.Fatal(err)
	}
	if err := c.Set("write_tools", "Write, Edit"); err != nil || !slices.Equal(c.WriteTools, []string{"Write", "Edit"}) {
		t.Fatal(err)
	}
	if err := c.Set("hooks.PreCompact", "false"); err != nil || c.Hooks["PreCompact"] {
		t.Fatal(err)
	}
	if err := c.Set("context_budget", "50"); err == nil || c.ContextBudget != 2000 {
		t.Fatalf("an invalid value must change nothing: %v %d", err, c.ContextBudget)
	}
	os.Remove(p.ConfigPath())
	for k, v := range map[string]string{"strike_limit": "5", "write_tools": "Write, Edit", "hooks.PreCompact": "false"} {
		if _, err := p.SetConfig(k, v); err != nil {
			t.Fatal(err)
		}
	}
	back, err := p.Config()
	if err != nil || back.StrikeLimit != 5 || back.Hooks["PreCompact"] {
		t.Fatalf("saved config reads back: %+v %v", back, err)
	}
	if v, _ := back.Get("hooks.PreCompact"); v != "false" {
		t.Errorf("get hooks.PreCompact = %s", v)
	}
	if v, _ := back.Get("view_tools"); v != `["Read","Glob","Grep","LS","WebFetch","WebSearch"]` {
		t.Errorf("get view_tools = %s", v)
	}

	// The hooks' loop settings and their defaults: auto-advance off (a
	// step it completes is a guess nobody made; on the real hosts' turns a
	// step takes more than 10 tool uses), a plan made from the first turn
	// that uses a tool.
	if d := DefaultConfig(); d.AutoAdvance || d.AdvanceAfter != 10 || !d.AutoCreatePlan {
		t.Errorf("defaults: auto_advance %v, advance_after %d, auto_create_plan %v", d.AutoAdvance, d.AdvanceAfter, d.AutoCreatePlan)
	}
	// step_iteration_limit, advance_after's older name, reads and is
	// written where a file has it.
	write(`{"step_iteration_limit": 4}`)
	if c, err := p.Config(); err != nil || c.AdvanceAfter != 4 {
		t.Fatalf("the older name: %+v %v", c.AdvanceAfter, err)
	}
	if _, err := p.SetConfig("advance_after", "6"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p.ConfigPath()); string(b) != `{"step_iteration_limit": 6}` {
		t.Errorf("set where the file has it: %s", b)
	}
	if v, err := back.Get("step_iteration_limit"); err != nil || v != "10" {
		t.Errorf("get by the older name: %s %v", v, err)
	}
}
