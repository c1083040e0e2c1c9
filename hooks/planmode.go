package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/interop"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/disk"
)

// planModeSummary names the revision a plan from Claude Code's plan mode
// makes.
const planModeSummary = "plan from plan mode"

// planModePlan is the plan an ExitPlanMode call carries, as Claude Code
// sends its PostToolUse (2.1.332): the host runs the tool only once the
// person approved the plan, and its tool_response holds the plan it read
// from the plan file ({"plan": ..., "filePath": ...}); its tool_input is
// then empty. PreToolUse's tool_input holds the plan too ({"plan",
// "planFilePath"}, which the host puts there from the file), read here
// when the response has none.
func planModePlan(in *Input) string {
	if text := inputString(in.ToolResponse, "plan"); strings.TrimSpace(text) != "" {
		return text
	}
	return inputString(in.ToolInput, "plan")
}

// planMode records the plan the person approved in Claude Code's plan
// mode (PostToolUse of ExitPlanMode), read as a Claude Code plan file
// (interop's claude-plan reader):
//
//  1. no plan in the session, or one the hooks started on their own that
//     has no step yet (Plan.Untouched) → the plan from plan mode is the
//     plan (From "planmode");
//  2. a plan → it is updated in place (interop.Update: steps matched by
//     text, none duplicated), in one revision "plan from plan mode";
//  3. with plan_confirmation on and the plan awaiting approval, the
//     person's approval in plan mode approves it, in the same revision
//     ("approved in plan mode"): the host asked them, and ran the tool
//     only when they said yes, so the hook writes the asked record that
//     lets the change through the gate (repo's gate.go).
//
// A plan with no step plangit can read changes nothing; the agent hears
// why. ok is false when the call carries no plan.
func (e *engine) planMode() (out *Output, ok bool, err error) {
	text := planModePlan(e.in)
	if strings.TrimSpace(text) == "" {
		return nil, false, nil
	}
	now := e.env.Now()
	imp, err := interop.Import("the plan from plan mode", []byte(text), interop.FormatClaudePlan, now)
	if err != nil {
		return &Output{Context: "[plangit] The plan from plan mode is not recorded: " + plan.TruncateText(err.Error(), 300)}, true, nil
	}
	imp.Plain = true // a re-plan undoes no work done
	s, err := e.session()
	if err != nil {
		return nil, true, err
	}
	if s == nil {
		return e.startFromPlanMode(imp)
	}
	if e.cfg.PlanConfirmation {
		// The person approved the plan in the host (see 3).
		if err := s.AppendPrivate(disk.AskedFile, []byte(disk.AskedLine("approve", now.Unix()))); err != nil {
			return nil, true, err
		}
	}
	var refused error
	res, err := e.update(s, func(st *plan.State) (plan.Change, error) {
		refused = nil
		p := st.Plan
		var what []string
		if p.Untouched() {
			next := imp.State.Plan
			next.Status = plan.PlanRunning
			if _, err := p.TakeOver(next, now); err != nil {
				return plan.Change{}, err
			}
			p.From = "planmode"
			what = append(what, "taking over the plan the hooks started")
			if e.cfg.PlanConfirmation {
				what = append(what, "approved in plan mode")
			}
		} else if p.Status == plan.PlanPending && e.cfg.PlanConfirmation {
			if _, err := p.Approve(now); err != nil {
				return plan.Change{}, err
			}
			what = append(what, "approved in plan mode")
		}
		c, _, err := interop.Update(st, imp, now)
		if err != nil {
			if len(what) == 0 {
				refused = err
				return plan.Change{}, nil
			}
			return plan.Change{}, err
		}
		if c.Op == "" && len(what) == 0 {
			return plan.Change{}, nil // the plan holds it already
		}
		if _, moved, ok := strings.Cut(c.Summary, " — "); ok {
			what = append([]string{moved}, what...)
		}
		p.Touch(now)
		return plan.Change{Op: "plan.import", Summary: planModeSummary + ": " + strings.Join(what, "; ")}, p.Validate()
	})
	if err != nil {
		return nil, true, err
	}
	if refused != nil {
		return &Output{Context: "[plangit] The plan from plan mode is not recorded: " + plan.TruncateText(refused.Error(), 300)}, true, nil
	}
	if res == nil || res.Commit == nil {
		return &Output{Context: "[plangit] The plan holds the plan from plan mode already."}, true, nil
	}
	if !e.replaying() {
		e.renew(s, res.State)
	}
	return &Output{Context: fmt.Sprintf("[plangit] Recorded the plan from plan mode (revision %s): %s. %s next starts its first step.",
		res.Commit.Hash[:7], strings.TrimPrefix(res.Commit.Change.Summary, planModeSummary+": "), e.cli(e.turn(s)))}, true, nil
}

// startFromPlanMode starts the session's plan from the plan the person
// approved in plan mode (planMode's case 1, no session yet).
func (e *engine) startFromPlanMode(imp *interop.Imported) (*Output, bool, error) {
	st := imp.State
	p := st.Plan
	p.ID, p.From, p.Rules, p.Status = e.in.SessionID, "planmode", e.cfg.Rules(), plan.PlanRunning
	summary := fmt.Sprintf("init: %s (%s, %s)", p.Title, planModeSummary, render.Count(len(p.Steps()), "step"))
	if e.cfg.PlanConfirmation {
		summary += ", approved in plan mode"
	}
	s, res, err := e.proj.Create(e.in.SessionID, st, plan.Change{Op: "init", Summary: summary}, e.options())
	switch {
	case errors.Is(err, repo.ErrExists):
		e.opened = nil
		return e.planMode() // another hook started it meanwhile: into it
	case err != nil:
		return nil, true, err
	}
	t := &hookwire.Turn{Shell: e.shellReaches()}
	e.remember(s, hookwire.BeginLine("", stepSig(p), t.Shell))
	e.proj.UnmarkShell(e.in.SessionID)
	return &Output{Context: fmt.Sprintf("[plangit] Started a persistent plan from plan mode (revision %s, %s); %s next starts its first step.",
		res.Commit.Hash[:7], render.Count(len(p.Steps()), "step"), e.cli(t))}, true, nil
}

// claudePlanFile reports whether the tool call is Claude Code writing its
// own plan in plan mode: permission_mode "plan", an edit tool, and a file
// in its plans directory — the plansDirectory of its settings (the
// project's .claude/settings.local.json, then .claude/settings.json, then
// the user's ~/.claude/settings.json; a relative one from the project
// root), else ~/.claude/plans ($CLAUDE_CONFIG_DIR/plans where that is
// set). That write is the planning the person approves when the agent
// leaves plan mode (planMode), not a change plan_confirmation holds: the
// hook asks nothing of it.
func (e *engine) claudePlanFile() bool {
	if e.in.PermissionMode != "plan" || !hookwire.EditTool(e.in.ToolName) {
		return false
	}
	path := hookwire.FilePath(e.in.ToolInput)
	if path == "" {
		return false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.in.Cwd, path)
	}
	dir := e.claudePlansDir()
	return dir != "" && filepath.Dir(filepath.Clean(path)) == dir
}

// claudePlansDir is Claude Code's plans directory for the project
// (claudePlanFile), clean; "" when it cannot be told.
func (e *engine) claudePlansDir() string {
	getenv := func(string) string { return "" }
	if e.env.Getenv != nil {
		getenv = e.env.Getenv
	}
	home, config := getenv("HOME"), getenv("CLAUDE_CONFIG_DIR")
	if config == "" && home != "" {
		config = filepath.Join(home, ".claude")
	}
	files := []string{filepath.Join(e.proj.Root, ".claude", "settings.local.json"), filepath.Join(e.proj.Root, ".claude", "settings.json")}
	if config != "" {
		files = append(files, filepath.Join(config, "settings.json"))
	}
	for _, name := range files {
		b, err := disk.ReadFile(name)
		if err != nil || len(b) > plan.MaxFile {
			continue
		}
		var settings struct {
			PlansDirectory string `json:"plansDirectory"`
		}
		if json.Unmarshal(b, &settings) != nil || settings.PlansDirectory == "" {
			continue
		}
		dir := settings.PlansDirectory
		if rest, ok := strings.CutPrefix(dir, "~/"); ok && home != "" {
			dir = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(e.proj.Root, dir)
		}
		return filepath.Clean(dir)
	}
	if config == "" {
		return ""
	}
	return filepath.Join(config, "plans")
}
