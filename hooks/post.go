package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/render/brief"
	"github.com/plangit/plangit/repo"
)

// postToolUse records what the tool did to the plan and reminds the agent
// of the rules, each reminder once a turn: todo lists sync into the plan;
// edits of the session's own files are adopted; the tool succeeding on
// what it failed on before resolves those errors; every N look-ups ask for
// a finding (the 2-action rule); write tools ask for the step to be
// updated; tool uses count, a step that took advance_after of them
// advances (auto_advance), and at max_iterations the plan pauses and the
// agent stops.
func (e *engine) postToolUse() (*Output, error) {
	s, err := e.session()
	if err != nil {
		return nil, err
	}
	tool := e.in.ToolName
	if hookwire.HostPlan(tool) {
		if out, ok, err := e.planMode(); ok {
			return out, err
		}
	}
	sync := isPlanningTool(tool) && persisted(e.in.ToolInput)
	var started string
	if s == nil {
		if sync {
			return e.startFromTodos()
		}
		if s, started, err = e.startAtFirstTool(); s == nil {
			return nil, err
		}
	}
	t := e.turn(s)
	cli := e.cli(t)
	out := &Output{}
	var parts []hookwire.Part
	var memo string
	tasks := e.tasksEdited(s) // the agent's edit of the tracked tasks file (tracked.go)
	var ticked *plan.Change
	var untaken error
	res, err := e.update(s, func(st *plan.State) (plan.Change, error) {
		parts, memo, *out, ticked, untaken = nil, "", Output{}, nil, nil // fn may run again on a newer state
		hs := e.state(s)
		p := st.Plan
		now := e.env.Now()
		var change plan.Change
		var started []string
		hs.holdStarts = e.cfg.StepConfirmation && !s.Asked("start", now)
		hs.agent, hs.lease = e.agent(), e.cfg.Lease()
		hs.claiming = len(p.Claimed()) > 0 || p.Claims > 0 || e.in.HostSession != "" || e.in.AgentID != ""
		if sync && p.Editable() == nil {
			var err error
			switch tool {
			case "TodoWrite":
				change, started, err = syncTodos(p, e.in.ToolInput, hs, now)
			case "TaskCreate":
				change, err = syncTaskCreate(p, e.in.ToolInput, e.in.ToolResponse, hs, now)
			case "TaskUpdate":
				change, started, err = syncTaskUpdate(p, e.in.ToolInput, hs, now)
			}
			if err != nil {
				return plan.Change{}, err
			}
		}
		if tasks != nil && tasks.bad == nil && change.Op == "" {
			if untaken = p.Editable(); untaken == nil {
				c, err := tasks.apply(st, "the agent's "+tool, e)
				if untaken = err; err == nil && c.Op != "" {
					change, ticked = c, &c
				}
			}
		}
		if key, _ := hookwire.ToolKey(e.in.ToolInput); key != "" && change.Op == "" {
			if done := st.ResolveKey(tool, key, "the same call succeeded", now); len(done) > 0 {
				change = resolvedChange(done)
				for _, r := range done {
					parts = append(parts, hookwire.Part{Text: "[plangit] Error #" + r.ID + " is resolved: the same call succeeded."})
				}
			}
		}
		for _, id := range hs.held {
			parts = append(parts, hookwire.Part{Key: "held " + id, Text: fmt.Sprintf("[plangit] Step %s waits for the person to start it (step_confirmation): they run %s step start %s, or allow yours when your host asks them.", id, hookwire.CLI(e.in.SessionID, false), id)})
		}
		cur := p.Current()
		_, command := hookwire.ToolKey(e.in.ToolInput)
		own, drives := hookwire.OwnUse(tool, command)
		counted, due := hs.Count(postPlan(st), glanceRules(e.cfg), hookwire.Use{Tool: tool, Plangit: own, Drives: drives || sync || tasks != nil,
			OwnFile: e.ownFile() || tasks != nil, Subagent: e.in.AgentID != "", Changed: change.Op != "", CLI: cli})
		parts = append(parts, counted...)
		if e.in.AgentID != "" {
			started = append(started, startedBy(p, inputString(e.in.ToolInput, "command"))...)
			hs.noteStarted(e.in.AgentID, started)
		}
		if due == hookwire.DueAdvance && cur.Claim.Live(now) && cur.Claim.Agent != e.agent() {
			due = hookwire.DueNothing // another agent's step: its holder says when it is done
		}
		switch due {
		case hookwire.DueAdvance:
			uses := hs.StepUses
			c, next, err := autoAdvance(p, cur, stepResult(e.said()), false, now)
			if err != nil {
				return plan.Change{}, err
			}
			change = c
			change.Summary += fmt.Sprintf(" (after %d tool uses)", uses)
			memo = "A " + cur.ID + " " + hookwire.Undash(next) + "\n"
			text := fmt.Sprintf("[plangit] Step %s is marked done after %d tool uses in it (auto_advance).", cur.ID, uses)
			if n, _, err := p.Step(next); err == nil {
				text += "\n" + brief.Data("Now: "+render.StepLine(p, n))
				memo += hookwire.SaidLines(curName(n)) // the new current step is said here
			}
			parts = append(parts, hookwire.Part{Text: text})
			hs.Step, hs.StepUses = "", 0
		case hookwire.DuePause:
			lim := e.cfg.MaxIterations
			k := p.Counts()
			c, err := p.Pause(fmt.Sprintf("reached max_iterations (%d tool uses), %d/%d steps done", lim, k.Done, k.Total), now)
			if err != nil {
				return plan.Change{}, err
			}
			change = c
			change.Summary += fmt.Sprintf(" (max_iterations: %d tool uses)", lim)
			out.Stop = true
			out.StopReason = pauseReason(p, hs.Iterations-hs.LimitBase, k, cli)
			hs.LimitUsed, hs.LimitBase = hs.Iterations-hs.LimitBase, hs.Iterations
		}
		if change.Op != "" && p.Complete() {
			parts = append(parts, hookwire.Part{Key: "complete", Text: "[plangit] " + render.CompletedLine(p) + "."})
		}
		out.Notice = joinNotices(hs.noticeComplete(p), hs.noticeFailed(p, e.in.SessionID)) // the person hears it once, however it came
		for _, r := range hs.refused {
			parts = append(parts, hookwire.Part{Key: "refused " + r, Text: "[plangit] " + r})
		}
		parts = append(e.claimParts(p, now), parts...)
		return change, hs.save(s)
	})
	if plan.HasCode(err, plan.CodeClaimed) && !e.replaying() {
		// The claims refused the change (another agent's step): the
		// agent hears why; the hook does not fail.
		return &Output{Context: e.say(s, t, []hookwire.Part{{Key: "refused " + err.Error(), Text: "[plangit] Not recorded: " + plan.TruncateText(err.Error(), 300)}})}, nil
	}
	if err != nil {
		return nil, err
	}
	if res != nil {
		e.renew(s, res.State)
	}
	if tasks != nil {
		tasks.record(e, s)
	}
	var notes []hookwire.Part
	if started != "" {
		notes = append(notes, hookwire.Part{Key: "started", Text: started})
	}
	rev := ""
	if res.Commit != nil {
		rev = res.Commit.Hash[:7]
	}
	notes = append(notes, tasksNotes(tasks, ticked, rev, untaken)...)
	if res.Adopted != nil && e.ownFile() {
		notes = append(notes, hookwire.Part{Text: "[plangit] Adopted your edit as revision " + res.Adopted.Hash[:7] + ":\n" + brief.Data(res.Adopted.Change.Summary)})
	}
	if res.Refused != nil {
		notes = append(notes, hookwire.Part{Text: "[plangit] Your edit was not adopted (" + string(plan.CodeConfirmationRequired) + "): " + plan.TruncateText(res.Refused.Error(), 400) + "\nThe session's files are back as the plan has them."})
	}
	if res.Stale != nil && e.ownFile() {
		notes = append(notes, hookwire.Part{Text: "[plangit] " + staleNote(res.Stale)})
	}
	if res.Commit != nil && sync {
		notes = append(notes, hookwire.Part{Text: "[plangit] " + res.Commit.Change.Summary + " (revision " + res.Commit.Hash[:7] + ")."})
	}
	e.remember(s, memo)
	if !e.replaying() {
		out.Context = e.say(s, t, append(notes, parts...))
	}
	return out, nil
}

// postPlan is what the counting of a tool use and the advance at a stop
// read of the plan (the glance holds the same for the hook binary).
func postPlan(st *plan.State) hookwire.PostPlan {
	p := st.Plan
	pp := hookwire.PostPlan{Running: p.Status == plan.PlanRunning, Findings: newestFinding(st.Findings)}
	if cur := p.Current(); cur != nil {
		pp.Cur, pp.CurText = cur.ID, clip(cur.Text)
	}
	return pp
}

// newestFinding is the largest finding id: ids are never given twice, so
// it rises with every finding recorded, and a removal does not hide one.
func newestFinding(fs plan.Findings) int {
	top := 0
	for _, f := range fs {
		if n, err := strconv.Atoi(f.ID); err == nil {
			top = max(top, n)
		}
	}
	return top
}

// resolvedChange is the change that resolved errors.
func resolvedChange(done plan.ErrorLog) plan.Change {
	ids := make([]string, len(done))
	for i, r := range done {
		ids[i] = "#" + r.ID
	}
	c := plan.Change{Op: "error.resolve", Summary: fmt.Sprintf("error %s resolved: %s `%s` succeeded", strings.Join(ids, ", "), done[0].Tool, hookwire.ClipKey(hookwire.NormKey(done[0].Key)))}
	if len(done) == 1 {
		c.Step = done[0].Step
	}
	return c
}

// autoAdvance completes cur — with result, the agent's own words where
// there are some — and, unless hold, starts the next ready step. It
// returns the change and the step it started.
func autoAdvance(p *plan.Plan, cur *plan.Step, result string, hold bool, now time.Time) (plan.Change, string, error) {
	if _, err := p.Transition(cur.ID, plan.ActDone, plan.TransitionOpts{Result: result, Force: true, Auto: true}, now); err != nil {
		return plan.Change{}, "", err
	}
	c := plan.Change{Op: "step.done", Step: cur.ID, Summary: "auto-advance: step " + cur.ID + " completed"}
	if hold || p.Status != plan.PlanRunning {
		return c, "", nil
	}
	if ready := p.Ready(); len(ready) > 0 {
		if _, err := p.Transition(ready[0].ID, plan.ActStart, plan.TransitionOpts{}, now); err != nil {
			return plan.Change{}, "", err
		}
		c.Step = ""
		c.Summary += "; step " + ready[0].ID + " started"
		return c, ready[0].ID, nil
	}
	return c, "", nil
}

// noteStarted records steps a subagent started: its Stop is gated on
// those alone.
func (st *state) noteStarted(agent string, ids []string) {
	if len(ids) == 0 {
		return
	}
	if st.Agents == nil {
		st.Agents = map[string][]string{}
	}
	for _, id := range ids {
		if !slices.Contains(st.Agents[agent], id) {
			st.Agents[agent] = append(st.Agents[agent], id)
		}
	}
}

// startedBy is the steps a shell command started, as the plan stands
// after it ran: those `plangit step start ID` names, and for `plangit
// next` the step now in progress.
func startedBy(p *plan.Plan, command string) []string {
	ids, next := hookwire.StepStarts(command)
	var out []string
	for _, id := range ids {
		if s, _, err := p.Step(id); err == nil && s.Status == plan.StepInProgress {
			out = append(out, s.ID)
		}
	}
	if cur := p.Current(); next && cur != nil {
		out = append(out, cur.ID)
	}
	return out
}

// ownFile reports whether the tool call wrote a file of this session.
func (e *engine) ownFile() bool {
	return hookwire.WritesIn(e.in.ToolInput, e.in.Cwd, filepath.Join(e.proj.PlansDir(), e.in.SessionID))
}

func isPlanningTool(tool string) bool { return hookwire.PlanningTool(tool) }

// startFromTodos starts the session's plan from its first todo list, so an
// agent that plans with TodoWrite gets a persistent, versioned plan.
func (e *engine) startFromTodos() (*Output, error) {
	title := inputString(e.in.ToolInput, "planTitle")
	goal, asked := e.proj.PendingPrompt(e.in.SessionID)
	switch {
	case title != "":
	case asked:
		title = promptTitle(goal) // the person's request names the work
	default:
		title = todoTitle
	}
	p, err := plan.New(e.in.SessionID, plan.TruncateText(title, 200), goal, nil, e.env.Now(), e.cfg.PlanConfirmation)
	if err != nil {
		return nil, err
	}
	p.From = "todos"
	p.Rules = e.cfg.Rules()
	hs := &state{Tally: hookwire.Tally{Iterations: 1}, Todos: map[string]stepRef{}, Tasks: map[string]stepRef{}}
	var change plan.Change
	switch e.in.ToolName {
	case "TodoWrite":
		change, _, err = syncTodos(p, e.in.ToolInput, hs, e.env.Now())
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
		e.opened = nil
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
	t := &hookwire.Turn{Shell: e.shellReaches()}
	e.remember(s, hookwire.BeginLine("", "", t.Shell))
	e.proj.UnmarkShell(e.in.SessionID)
	return &Output{Context: fmt.Sprintf("[plangit] Started a persistent plan from your %s (revision %s); %s show displays it.", e.in.ToolName, res.Commit.Hash[:7], e.cli(t))}, nil
}

// startAtFirstTool starts the plan from the person's request the prompt
// hook kept (startFromPrompt), now that the agent's reply uses a tool —
// unless the tool is plangit's own: an agent at work on plangit starts its
// plan itself. It returns the session and what to tell the agent; a nil
// session when none was started.
func (e *engine) startAtFirstTool() (*repo.Session, string, error) {
	if !e.cfg.AutoCreatePlan {
		return nil, "", nil
	}
	_, command := hookwire.ToolKey(e.in.ToolInput)
	if own, _ := hookwire.OwnUse(e.in.ToolName, command); own {
		return nil, "", nil
	}
	said, err := e.startFromPrompt()
	if err != nil || said == "" {
		return nil, "", err
	}
	s, err := e.session()
	return s, said, err
}

// postToolUseFailure logs the error — for a shell tool with its command,
// by which the same command succeeding later resolves it — and says when
// it keeps coming back: at the strike limit, to change approach. A failure
// that is not the project's (notTheProjects) is counted as a tool use and
// not logged; plangit's own refusal is answered with what plangit said,
// once a turn.
func (e *engine) postToolUseFailure() (*Output, error) {
	if e.in.IsInterrupt {
		return nil, nil // the person stopped the tool; it did not fail
	}
	s, err := e.session()
	if err != nil {
		return nil, err
	}
	var started string
	if s == nil {
		if s, started, err = e.startAtFirstTool(); s == nil {
			return nil, err
		}
	}
	why := notTheProjects(e.in.ToolName, e.in.ToolInput, e.in.Error)
	var rec *plan.ErrorRecord
	_, err = e.update(s, func(st *plan.State) (plan.Change, error) {
		hs := e.state(s)
		hs.Iterations++ // a failed tool use is a tool use
		if err := hs.save(s); err != nil {
			return plan.Change{}, err
		}
		if why != "" {
			return plan.Change{}, nil
		}
		step := ""
		if cur := st.Plan.Current(); cur != nil {
			step = cur.ID
		}
		key, _ := hookwire.ToolKey(e.in.ToolInput)
		r, err := st.RecordError(plan.ErrorRecord{Tool: e.in.ToolName, Message: e.in.Error, Step: step,
			Params: compactJSON(e.in.ToolInput), Key: key}, e.env.Now())
		if err != nil {
			return plan.Change{}, err
		}
		rec = r
		what := r.Tool
		if r.Key != "" {
			what += " `" + hookwire.ClipKey(hookwire.NormKey(r.Key)) + "`"
		}
		return plan.Change{Op: "error.add", Step: r.Step, Summary: fmt.Sprintf("error #%s: %s ×%d (%s)", r.ID, what, r.Count, clip(firstLine(r.Message)))}, nil
	})
	if errors.Is(err, plan.ErrFileFull) && !e.replaying() {
		// Not lost in silence: the agent hears that the failure was not
		// logged, and the project's log says why.
		logFailure(e.env, e.in.Cwd, e.in.Event, e.in.SessionID, err)
		return &Output{Context: "[plangit] this failure was not logged: " + err.Error()}, nil
	}
	if err != nil || e.replaying() {
		return nil, err
	}
	t := e.turn(s)
	var first []hookwire.Part
	if started != "" {
		first = append(first, hookwire.Part{Key: "started", Text: started})
	}
	var p hookwire.Part
	switch {
	case why == plangitsOwn:
		said := plangitRefusal(e.in.Error)
		if said == "" {
			said = strings.TrimSpace(e.in.Error)
			if code, output, ok := shellExit(e.in.Error); ok {
				// Its output went elsewhere (2>/dev/null): the code is all.
				said = fmt.Sprintf("exit code %d", code)
				if line := strings.TrimSpace(firstLine(output)); line != "" {
					said += ": " + line
				}
			}
			said = plan.TruncateText(firstLine(said), 300)
		}
		p = hookwire.Part{Key: "refused " + hookwire.NormKey(said), Text: "[plangit] plangit refused that call (not an error of the project; nothing logged):\n" + brief.Data(said)}
	case why != "":
	case rec.Count >= e.cfg.StrikeLimit:
		p = hookwire.Part{Key: fmt.Sprintf("strike %s %d", rec.ID, rec.Count), Text: render.StrikeWarning(rec, e.cfg.StrikeLimit, hookwire.CLIMark)}
	case rec.Count > 1:
		p = hookwire.Part{Text: fmt.Sprintf("[plangit] That call has failed this way %d times (error #%s; at %d, change approach).", rec.Count, rec.ID, e.cfg.StrikeLimit)}
	}
	if p.Text != "" {
		first = append(first, p)
	}
	if text := e.say(s, t, first); text != "" {
		return &Output{Context: text}, nil
	}
	return nil, nil
}

// stop takes [Step] lines from the agent's last message as new steps (a
// session without a plan starts one from them), advances a step on
// transition words (auto_advance), and applies the Stop gate (stopGate).
func (e *engine) stop() (*Output, error) {
	s, err := e.session()
	if err != nil {
		return nil, err
	}
	decl := turnDeclarations(e.said())
	if s == nil {
		if len(decl) > 0 {
			return nil, e.startFromSteps(decl)
		}
		return nil, nil
	}
	if err := e.tasksAtStop(s); err != nil {
		return nil, err
	}
	t := e.turn(s)
	cli := e.cli(t)
	out := &Output{}
	var memo string
	_, err = e.update(s, func(st *plan.State) (plan.Change, error) {
		*out, memo = Output{}, ""
		hs := e.state(s)
		p := st.Plan
		now := e.env.Now()
		var did []string
		var touched string
		if n := len(t.Advanced); n > 0 && e.in.AgentID == "" && isNotDone(e.in.LastAssistantMessage) {
			// The agent says a step is not done right after auto-advance
			// completed one: the guess is taken back.
			c, err := undoAdvance(p, t.Advanced[n-1], now)
			if err != nil {
				return plan.Change{}, err
			}
			if c.Op != "" {
				did, touched = append(did, strings.TrimPrefix(c.Summary, "step "+c.Step+": ")+" for step "+c.Step), c.Step
			}
		}
		if p.Editable() == nil {
			for _, text := range decl {
				if slices.ContainsFunc(p.Steps(), func(x *plan.Step) bool { return strings.EqualFold(x.Text, text) }) {
					continue
				}
				added, err := p.AddStep(plan.StepSpec{Text: text}, now)
				if err != nil {
					return plan.Change{}, err
				}
				did, touched = append(did, "step "+added.ID+" added from [Step]"), added.ID
			}
			if len(decl) > 0 {
				first, err := startFirstStep(p, e.cfg.StepConfirmation, now)
				if err != nil {
					return plan.Change{}, err
				}
				if first != "" {
					did, touched = append(did, "step "+first+" started"), first
				}
			}
		}
		var ask string
		if cur := p.Current(); hs.AdvancesAtStop(postPlan(st), glanceRules(e.cfg), e.in.LastAssistantMessage, e.in.AgentID != "") {
			if e.cfg.StepConfirmation {
				ask = fmt.Sprintf("Step %s looks done: if it is, record it (%s step done %s --result \"...\"); starting the next asks the person first.", cur.ID, cli, cur.ID)
			} else {
				c, next, err := autoAdvance(p, cur, stepResult(e.said()), false, now)
				if err != nil {
					return plan.Change{}, err
				}
				did, touched = append(did, strings.TrimPrefix(c.Summary, "auto-advance: ")+" by auto-advance"), c.Step
				memo = "A " + cur.ID + " " + hookwire.Undash(next) + "\n"
				hs.Step, hs.StepUses = "", 0
			}
		}
		e.stopGate(p, t, hs, out, cli, ask)
		out.Notice = joinNotices(out.Notice, hs.noticeFailed(p, e.in.SessionID))
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
	if err != nil {
		return nil, err
	}
	if out.Block {
		memo += "B " + hookwire.Undash(e.in.AgentID) + "\n"
	}
	e.remember(s, memo)
	return out, nil
}

// stopGate decides what a stop hears, once the plan is as this Stop leaves
// it (hookwire.StopGate, by stop_mode). Never for a plan that is not
// running or has nothing left; a subagent, only on the steps it started;
// in a plan with claims, any agent only on its own (ownLeft).
// A turn worked on the plan when a step was in progress as it began, or a
// step changed during it (a subagent's own steps are its work).
func (e *engine) stopGate(p *plan.Plan, t *hookwire.Turn, hs *state, out *Output, cli, ask string) {
	if e.cfg.StopMode == "off" || p.Status != plan.PlanRunning || p.Complete() {
		return
	}
	var reason []string
	if own, claims := e.ownLeft(p, hs, e.env.Now()); claims {
		// A plan with claims holds each agent on its own steps alone:
		// another agent's step is that agent's to finish.
		if len(own) == 0 {
			return
		}
		reason = render.StartedLeft(p, own, cli)
	} else if e.in.AgentID != "" {
		var left []*plan.Step
		for _, id := range hs.Agents[e.in.AgentID] {
			if s, _, err := p.Step(id); err == nil && !s.Status.Resolved() {
				left = append(left, s)
			}
		}
		if len(left) == 0 {
			delete(hs.Agents, e.in.AgentID)
			return
		}
		reason = render.StartedLeft(p, left, cli)
	} else {
		if len(p.Unfinished()) == 0 {
			return
		}
		reason = render.LeftToDo(p, cli)
	}
	if ask != "" {
		reason = append([]string{reason[0], ask}, reason[1:]...)
	}
	worked := e.in.AgentID != "" || t.Step != "" || t.Sig != stepSig(p)
	block, text := hookwire.StopGate(e.cfg.StopMode, reason, t.Blocks[hookwire.Undash(e.in.AgentID)], e.cfg.StopBlockCap,
		e.in.StopHookActive, worked, e.cfg.ContextBudget)
	if block {
		out.Block, out.Reason = true, text
	} else {
		out.Context = text
	}
}

// startFromSteps starts the session's plan from the [Step] lines of the
// agent's last message.
func (e *engine) startFromSteps(decl []string) error {
	title := "Steps the agent declared"
	goal, ok := e.proj.PendingPrompt(e.in.SessionID)
	if ok {
		title = promptTitle(goal)
	}
	p, err := plan.New(e.in.SessionID, title, goal, nil, e.env.Now(), e.cfg.PlanConfirmation)
	if err != nil {
		return err
	}
	p.From = "steps"
	p.Rules = e.cfg.Rules()
	for _, text := range decl {
		if _, err := p.AddStep(plan.StepSpec{Text: text}, e.env.Now()); err != nil {
			return err
		}
	}
	summary := fmt.Sprintf("init: from [Step] lines (%s)", render.Count(len(decl), "step"))
	if first, err := startFirstStep(p, e.cfg.StepConfirmation, e.env.Now()); err != nil {
		return err
	} else if first != "" {
		summary += "; step " + first + " started"
	}
	_, _, err = e.proj.Create(e.in.SessionID, &plan.State{Plan: p}, plan.Change{Op: "init", Summary: summary}, e.options())
	if errors.Is(err, repo.ErrExists) {
		e.opened = nil
		_, err = e.stop() // another hook started it meanwhile: add to it
	}
	return err
}

// turnDeclarations returns the "[Step] ..." lines of the turn's messages
// (stepDeclarations), each once, in the order said.
func turnDeclarations(msgs []string) []string {
	var out []string
	for _, m := range msgs {
		for _, d := range stepDeclarations(m) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// stepDeclarations returns the text of the "[Step] ..." lines of a
// message's own prose (plan.ProseLines: a step quoted, or shown in code,
// is none), each once, cut to a step's length. A message with no line
// that may declare one (hookwire.StepDeclarations) is not parsed.
func stepDeclarations(msg string) []string {
	if len(hookwire.StepDeclarations(msg)) == 0 {
		return nil
	}
	var decl []string
	for _, line := range plan.ProseLines(msg) {
		if text, ok := hookwire.StepLine(line); ok {
			if text = plan.TruncateText(text, plan.MaxLine); !slices.Contains(decl, text) {
				decl = append(decl, text)
			}
		}
	}
	return decl
}

// preCompact commits a checkpoint before the host compacts the agent's
// context: the tool-use count goes into the plan.
func (e *engine) preCompact() (*Output, error) {
	if e.in.MaybeCompact {
		return nil, nil // the tool event after a compaction checkpoints (afterCompaction)
	}
	s, err := e.session()
	if err != nil || s == nil {
		return nil, err
	}
	_, err = e.update(s, func(st *plan.State) (plan.Change, error) {
		st.Plan.Updated = plan.Stamp(e.env.Now())
		trigger := e.in.Trigger
		if trigger == "" {
			trigger = "auto"
		}
		return plan.Change{Op: "checkpoint", Summary: "checkpoint: before compaction (" + trigger + ")", Marker: true}, nil
	})
	return nil, err
}

// sessionEnd brings the plan's iterations up to the tool uses the hooks
// counted, when they moved since the plan's last revision: a checkpoint.
func (e *engine) sessionEnd() (*Output, error) {
	if !e.replaying() {
		e.proj.UnmarkShell(e.in.SessionID)
		e.proj.ForgetPrompt(e.in.SessionID)
		if said := e.autoCleanup("session_end"); said != "" {
			e.proj.AppendLog(e.env.Now(), "hook SessionEnd session="+e.in.SessionID+": "+said)
		}
	}
	s, err := e.session()
	if err != nil || s == nil {
		return nil, err
	}
	uses := ToolUses(s)
	_, err = e.update(s, func(st *plan.State) (plan.Change, error) {
		if uses <= st.Plan.Iterations {
			return plan.Change{}, nil
		}
		st.Plan.Updated = plan.Stamp(e.env.Now())
		return plan.Change{Op: "checkpoint", Summary: fmt.Sprintf("checkpoint: session end (%d tool uses)", uses), Marker: true}, nil
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

func clip(s string) string { return hookwire.ClipLine(s) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// staleNote tells the agent that its write of the plan's files held
// nothing the plan does not; what came since the revision it matches is
// recorded text.
func staleNote(st *repo.Stale) string {
	note := "Your write of " + st.Files + " held nothing the plan does not already hold: plangit put back its own form and recorded no edit."
	if st.Base == "" {
		return note
	}
	return note + "\n" + brief.Data("It matches the older revision "+st.Base+"; what came since is kept: "+render.KeptSince(st.Kept))
}
