package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// postToolUse records what the tool did to the plan and reminds the agent
// of the rules: todo lists sync into the plan; edits of the session's own
// files are adopted; every N view tools ask for findings (the 2-action
// rule); write tools ask for the step to be updated; tool uses count, and
// at max_iterations the plan pauses and the agent stops.
func (e *engine) postToolUse() (*Output, error) {
	s, err := e.session()
	if err != nil {
		return nil, err
	}
	tool := e.in.ToolName
	if s == nil {
		if isPlanningTool(tool) {
			return e.startFromTodos()
		}
		return nil, nil
	}
	out := &Output{}
	var notes []string
	res, err := e.update(s, func(st *plan.State) (plan.Change, error) {
		hs := e.state(s)
		hs.Iterations++
		p := st.Plan
		var change plan.Change
		if p.Editable() == nil {
			var err error
			switch tool {
			case "TodoWrite":
				change, err = syncTodos(p, e.in.ToolInput, hs, e.env.Now())
			case "TaskCreate":
				change, err = syncTaskCreate(p, e.in.ToolInput, e.in.ToolResponse, hs, e.env.Now())
			case "TaskUpdate":
				change, err = syncTaskUpdate(p, e.in.ToolInput, hs, e.env.Now())
			}
			if err != nil {
				return plan.Change{}, err
			}
		}
		// The 2-action rule: a finding recorded since resets the count.
		if len(st.Findings) > hs.Findings {
			hs.ViewActions = 0
		}
		hs.Findings = len(st.Findings)
		if slices.Contains(e.cfg.ViewTools, tool) {
			hs.ViewActions++
			if hs.ViewActions >= e.cfg.ActionThreshold {
				notes = append(notes, fmt.Sprintf("[plangit] %d look-ups since your last finding: save what you learned before it scrolls away: plangit finding add --category code|architecture|dependency|issue|insight --title \"...\" \"what you found\"", hs.ViewActions))
				hs.ViewActions = 0
			}
		}
		cur := p.Current()
		if slices.Contains(e.cfg.WriteTools, tool) && p.Status == plan.PlanRunning && !e.ownFile() {
			if cur != nil {
				notes = append(notes, fmt.Sprintf("[plangit] You changed files during step %s (%s): record progress (plangit step progress %s N/M) or finish it (plangit step done %s --result \"...\").", cur.ID, clip(cur.Text), cur.ID, cur.ID))
			} else {
				notes = append(notes, "[plangit] You changed files with no step in progress: start the step this belongs to (plangit next, or plangit step start ID).")
			}
		}
		if cur != nil {
			if hs.Step != cur.ID {
				hs.Step, hs.StepUses = cur.ID, 0
			}
			hs.StepUses++
		}
		if lim := e.cfg.MaxIterations; lim > 0 && hs.Iterations-hs.LimitBase >= lim && p.Status == plan.PlanRunning && change.Op == "" {
			c, err := p.Pause(fmt.Sprintf("reached max_iterations (%d tool uses)", lim), e.env.Now())
			if err != nil {
				return plan.Change{}, err
			}
			change = c
			change.Summary += fmt.Sprintf(" (max_iterations: %d tool uses)", lim)
			out.Stop = true
			out.StopReason = fmt.Sprintf("plangit paused the plan after %d tool uses (max_iterations). Review it (plangit show); say \"continue\" or run plangit resume to go on.", hs.Iterations-hs.LimitBase)
			hs.LimitBase = hs.Iterations
		}
		if change.Op != "" {
			p.Iterations = max(p.Iterations, hs.Iterations)
		}
		return change, hs.save(s)
	})
	if err != nil {
		return nil, err
	}
	if res.Adopted != nil && e.ownFile() {
		notes = append([]string{fmt.Sprintf("[plangit] Adopted your edit as revision %s: %s.", res.Adopted.Hash[:7], res.Adopted.Change.Summary)}, notes...)
	}
	if res.Commit != nil && isPlanningTool(tool) {
		notes = append([]string{"[plangit] " + res.Commit.Change.Summary + " (revision " + res.Commit.Hash[:7] + ")."}, notes...)
	}
	if len(notes) > 0 {
		out.Context = render.Fit(notes, e.cfg.ContextBudget)
	}
	return out, nil
}

// ownFile reports whether the tool call wrote a file of this session.
func (e *engine) ownFile() bool {
	var in struct {
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(e.in.ToolInput, &in) != nil || in.FilePath == "" {
		return false
	}
	dir := filepath.Join(e.proj.PlansDir(), e.in.SessionID)
	path := in.FilePath
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.in.Cwd, path)
	}
	return filepath.Dir(filepath.Clean(path)) == dir
}

func isPlanningTool(tool string) bool {
	return tool == "TodoWrite" || tool == "TaskCreate" || tool == "TaskUpdate"
}

// startFromTodos starts the session's plan from its first todo list, so an
// agent that plans with TodoWrite gets a persistent, versioned plan.
func (e *engine) startFromTodos() (*Output, error) {
	p, err := plan.New(e.in.SessionID, "Agent todo list", "", nil, e.env.Now(), e.cfg.PlanConfirmation)
	if err != nil {
		return nil, err
	}
	p.Rules = e.cfg.Rules()
	hs := &state{Todos: map[string]stepRef{}, Tasks: map[string]stepRef{}, Iterations: 1}
	var change plan.Change
	switch e.in.ToolName {
	case "TodoWrite":
		change, err = syncTodos(p, e.in.ToolInput, hs, e.env.Now())
	case "TaskCreate":
		change, err = syncTaskCreate(p, e.in.ToolInput, e.in.ToolResponse, hs, e.env.Now())
	default:
		return nil, nil // an update to a task plangit never saw
	}
	if err != nil || len(p.Steps()) == 0 {
		return nil, err
	}
	_, what, _ := strings.Cut(change.Summary, " — ")
	change.Op, change.Summary = "init", "init: from the agent's "+e.in.ToolName+" ("+what+")"
	s, res, err := e.proj.Create(e.in.SessionID, &plan.State{Plan: p}, change, e.options())
	switch {
	case errors.Is(err, repo.ErrExists):
		return e.postToolUse() // another hook started it meanwhile: sync into it
	case plan.HasCode(err, plan.CodeLockTimeout):
		if s, oerr := e.session(); oerr == nil && s != nil {
			return nil, e.enqueue(s)
		}
		return nil, err
	case err != nil:
		return nil, err
	}
	if err := s.Locked(e.env.LockWait, func() error { return hs.save(s) }); err != nil {
		return nil, err
	}
	return &Output{Context: fmt.Sprintf("[plangit] Started a persistent plan from your %s (revision %s); plangit show displays it.", e.in.ToolName, res.Commit.Hash[:7])}, nil
}

// postToolUseFailure logs the error and, at the strike limit, tells the
// agent to change approach.
func (e *engine) postToolUseFailure() (*Output, error) {
	if e.in.IsInterrupt {
		return nil, nil // the person stopped the tool; it did not fail
	}
	s, err := e.session()
	if err != nil || s == nil {
		return nil, err
	}
	var rec *plan.ErrorRecord
	_, err = e.update(s, func(st *plan.State) (plan.Change, error) {
		hs := e.state(s)
		hs.Iterations++ // a failed tool use is a tool use
		if err := hs.save(s); err != nil {
			return plan.Change{}, err
		}
		params := compactJSON(e.in.ToolInput)
		step := ""
		if cur := st.Plan.Current(); cur != nil {
			step = cur.ID
		}
		r, err := st.Errors.Record(plan.ErrorRecord{Tool: e.in.ToolName, Message: e.in.Error, Step: step, Params: params}, e.env.Now())
		if err != nil {
			return plan.Change{}, err
		}
		rec = r
		return plan.Change{Op: "error.add", Step: r.Step, Summary: fmt.Sprintf("error: %s ×%d (%s)", r.Tool, r.Count, clip(firstLine(r.Message)))}, nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case rec.Count >= e.cfg.StrikeLimit:
		return &Output{Context: render.Fit([]string{render.StrikeWarning(rec, e.cfg.StrikeLimit)}, e.cfg.ContextBudget)}, nil
	case rec.Count > 1:
		return &Output{Context: fmt.Sprintf("[plangit] %s has failed this way %d times (limit %d before you must change approach).", rec.Tool, rec.Count, e.cfg.StrikeLimit)}, nil
	}
	return nil, nil
}

// stop takes [Step] lines from the agent's last message as new steps,
// advances a step on transition words when auto_advance is on, and then,
// in gate mode, blocks the stop while steps are left (unless the agent is
// already continuing because of a stop hook, or the block cap is reached);
// in advise mode it only says what is left.
func (e *engine) stop() (*Output, error) {
	s, err := e.session()
	if err != nil || s == nil {
		return nil, err
	}
	out := &Output{}
	_, err = e.update(s, func(st *plan.State) (plan.Change, error) {
		hs := e.state(s)
		p := st.Plan
		var did []string
		var touched string
		if p.Editable() == nil {
			for _, text := range stepDeclarations(e.in.LastAssistantMessage) {
				if slices.ContainsFunc(p.Steps(), func(x *plan.Step) bool { return strings.EqualFold(x.Text, text) }) {
					continue
				}
				added, err := p.AddStep(plan.StepSpec{Text: text}, e.env.Now())
				if err != nil {
					return plan.Change{}, err
				}
				did, touched = append(did, "step "+added.ID+" added from [Step]"), added.ID
			}
		}
		if e.cfg.AutoAdvance && p.Status == plan.PlanRunning {
			if cur := p.Current(); cur != nil && hs.Step == cur.ID && advance(e.in.LastAssistantMessage, hs.StepUses, e.cfg.StepIterationLimit) {
				if _, err := p.Transition(cur.ID, plan.ActDone, plan.TransitionOpts{Force: true}, e.env.Now()); err == nil {
					did, touched = append(did, "step "+cur.ID+" completed by auto-advance"), cur.ID
					hs.Step, hs.StepUses = "", 0
					if ready := p.Ready(); len(ready) > 0 {
						if _, err := p.Transition(ready[0].ID, plan.ActStart, plan.TransitionOpts{}, e.env.Now()); err == nil {
							did = append(did, "step "+ready[0].ID+" started")
						}
					}
				}
			}
		}
		left := p.Unfinished()
		switch {
		case p.Status != plan.PlanRunning || len(left) == 0 || e.cfg.StopMode == "off":
			hs.StopBlocks = 0
		case e.cfg.StopMode == "advise":
			out.Context = render.Fit(render.LeftToDo(p), e.cfg.ContextBudget)
		case e.in.StopHookActive || hs.StopBlocks >= e.cfg.StopBlockCap:
			hs.StopBlocks = 0 // let it stop; the next Stop may block again
		default:
			out.Block, out.Reason = true, render.Fit(render.LeftToDo(p), e.cfg.ContextBudget)
			hs.StopBlocks++
		}
		if err := hs.save(s); err != nil {
			return plan.Change{}, err
		}
		if len(did) == 0 {
			return plan.Change{}, nil
		}
		c := plan.Change{Op: "stop", Summary: "stop: " + strings.Join(did, "; ")}
		if len(did) == 1 {
			c.Step = touched
		}
		return c, nil
	})
	return out, err
}

// stepDeclarations returns the text of "[Step] ..." lines in a message.
func stepDeclarations(msg string) []string {
	var out []string
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*>"))
		if rest, ok := strings.CutPrefix(line, "[Step]"); ok {
			if text := strings.TrimSpace(rest); text != "" && !slices.Contains(out, text) {
				out = append(out, plan.TruncateText(text, plan.MaxLine))
			}
		}
	}
	return out
}

// transitionWords say an agent moves on (the seed's list).
var transitionWords = []string{"现在", "接下来", "然后", "继续", "开始", "现在让我", "next", "now", "then", "continue", "let me", "proceed"}

// advance decides auto-advance: transition words after at least two tool
// uses in the step, or the step's iteration limit.
func advance(msg string, uses, limit int) bool {
	if uses >= limit {
		return true
	}
	if uses < 2 {
		return false
	}
	lower := strings.ToLower(msg)
	for _, w := range transitionWords {
		if containsWord(lower, w) {
			return true
		}
	}
	return false
}

// containsWord finds w in s; an ASCII word must stand alone ("now", not
// "know").
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if w[0] >= 0x80 || (!isLetter(s, start-1) && !isLetter(s, end)) {
			return true
		}
		i = start + 1
	}
}

func isLetter(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// preCompact commits a checkpoint before the host compacts the agent's
// context: the tool-use count goes into the plan.
func (e *engine) preCompact() (*Output, error) {
	s, err := e.session()
	if err != nil || s == nil {
		return nil, err
	}
	_, err = e.update(s, func(st *plan.State) (plan.Change, error) {
		hs := e.state(s)
		st.Plan.Iterations = max(st.Plan.Iterations, hs.Iterations)
		st.Plan.Updated = plan.Stamp(e.env.Now())
		trigger := e.in.Trigger
		if trigger == "" {
			trigger = "auto"
		}
		return plan.Change{Op: "checkpoint", Summary: "checkpoint: before compaction (" + trigger + ")", Marker: true}, nil
	})
	return nil, err
}

func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func clip(s string) string { return plan.TruncateText(strings.Join(strings.Fields(s), " "), 80) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
