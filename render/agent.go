package render

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render/brief"
)

// Text for agents: reminders that hooks inject into an agent's context.
// Every piece is built as parts, most important first, and brief.Fit
// cuts the parts to a byte budget so a hook never floods the context.
// What the parts repeat of the plan's files — titles, goals, step and
// finding text, error messages, results — is recorded text, given with
// data (brief.Data), which Fit fences as data, not instructions; the
// sentences and commands around it are plangit's own.

// data is recorded text for a part (brief.Data).
func data(s string) string { return brief.Data(s) }

func progressLine(p *plan.Plan) string {
	c := p.Counts()
	return fmt.Sprintf("%s — %s, %d/%d steps done", oneLine(p.Title), p.Status, c.Done, c.Total)
}

// Texts for agents name commands with cli: "plangit", or "plangit
// --session ID" where the agent's shell does not reach its session by
// itself.

// StepHint is how to record the current step's progress, and how to add
// steps.
func StepHint(p *plan.Plan, cli string) string {
	hint := "Record progress: " + cli + " step done ID --result \"...\"; start the next step with " + cli + " next."
	if cur := p.Current(); cur != nil {
		hint = fmt.Sprintf("Record progress: %s step done %s --result \"...\" (or step progress %s N/M).", cli, cur.ID, cur.ID)
	}
	return hint + " " + StepSyntax
}

// StepSyntax teaches the agent to declare steps in its replies.
const StepSyntax = brief.StepSyntax

// Reminder is what an agent reads at the start of a session (or after a
// compaction) when its plan is unfinished: the plan and its session (which
// an agent passes to plangit's MCP tools), where it stands, what to do now
// and next, what went wrong lately, what it found, how to record progress.
func Reminder(st *plan.State, session, cli string) []string {
	p := st.Plan
	parts := []string{"[plangit] Your plan (session " + session + "):\n" + data("Plan: "+progressLine(p))}
	if p.Goal != "" {
		parts = append(parts, data("Goal: "+clipLine(p.Goal, 300)))
	}
	switch {
	case p.Status == plan.PlanPaused:
		c := p.Counts()
		parts = append(parts, fmt.Sprintf("The plan is paused (%d/%d steps done); say \"continue\" (or run %s resume) to go on.", c.Done, c.Total, cli))
	case p.Status == plan.PlanPending:
		parts = append(parts, "The plan awaits approval: "+cli+" approve.")
	case p.Complete():
		parts = append(parts, CompletedLine(p))
	}
	cur := p.Current()
	if cur != nil {
		line := "Current: " + StepLine(p, cur)
		if ph := phaseOf(p, cur); ph != nil {
			line += " (phase " + ph.ID + ": " + clipLine(ph.Title, 60) + ")"
		}
		parts = append(parts, data(line))
	}
	ready := p.Ready()
	for i, s := range ready {
		if i == 3 {
			parts = append(parts, data(fmt.Sprintf("(+%d more ready)", len(ready)-3)))
			break
		}
		parts = append(parts, data("Next: "+StepLine(p, s)))
	}
	for _, s := range p.Steps() {
		if s.Status == plan.StepBlocked || s.Status == plan.StepFailed {
			parts = append(parts, data("Attention: "+StepLine(p, s)))
		}
	}
	if cs := st.Conflicts(); len(cs) > 0 {
		// A merge with another machine's copy left these; a person may
		// need to say which side stands.
		parts = append(parts, data(fmt.Sprintf("Conflict from a merge: %s: %s", cs[0].Target(), clipLine(cs[0].Display(), 160)))+
			"\n"+cli+" resolve lists the merge's conflicts and settles them.")
	}
	parts = append(parts, recentErrors(st.Errors.Open(), cli)...)
	parts = append(parts, findingTitles(st.Findings, cli)...)
	return append(parts, StepHint(p, cli))
}

// recentErrors gives the open errors the reminder shows: the five seen
// last, latest first (Manus's getRecentErrors, limit 5), and "+N more"
// with how to read them all when there are more.
func recentErrors(open plan.ErrorLog, cli string) []string {
	open = slices.Clone(open)
	slices.SortStableFunc(open, func(a, b *plan.ErrorRecord) int { return b.Last.Compare(a.Last) })
	var lines []string
	for i, e := range open {
		if i == maxReminderErrors {
			lines = append(lines, data(fmt.Sprintf("(+%d more open errors)", len(open)-i))+"\n"+cli+" errors lists them.")
			break
		}
		lines = append(lines, data("Open error "+ErrorLabel(e)+": "+clipLine(e.Message, 160)))
	}
	return lines
}

// maxReminderErrors is how many open errors the reminder shows.
const maxReminderErrors = 5

// findingTitles gives up to three finding titles per category, the
// latest, one line per category, recorded text; the last says how to
// read them all.
func findingTitles(fs plan.Findings, cli string) []string {
	var lines []string
	for _, c := range plan.Categories {
		var titles []string
		for i := len(fs) - 1; i >= 0 && len(titles) < 3; i-- {
			if fs[i].Category == c {
				titles = append(titles, clipLine(fs[i].Title, 80))
			}
		}
		if len(titles) > 0 {
			lines = append(lines, data("Findings, "+string(c)+": "+strings.Join(titles, "; ")))
		}
	}
	if len(lines) > 0 {
		lines[len(lines)-1] += "\n" + cli + " findings shows the findings."
	}
	return lines
}

func phaseOf(p *plan.Plan, s *plan.Step) *plan.Phase {
	for _, ph := range p.Phases {
		for _, x := range ph.Steps {
			if x == s {
				return ph
			}
		}
	}
	return nil
}

// NextStep is what comes after the current step: the first ready step,
// else the first pending step in plan order that waits for something
// under way — never one that waits on a failed step, which nothing but a
// word on the failure makes ready (Failures) — else nil.
func NextStep(p *plan.Plan) *plan.Step {
	if ready := p.Ready(); len(ready) > 0 {
		return ready[0]
	}
	for _, s := range p.Steps() {
		if s.Status == plan.StepPending && !waitsOnFailure(p, s) {
			return s
		}
	}
	return nil
}

// StatusLine is the one line an agent reads with each prompt: progress,
// how many errors are open, and the plan's title with the current step
// and the next, recorded text.
func StatusLine(st *plan.State, cli string) string {
	p := st.Plan
	c := p.Counts()
	title := data("Plan: " + clipLine(p.Title, 80))
	switch {
	case p.Complete():
		return "[plangit] " + CompletedLine(p) + "\n" + title
	case p.Status == plan.PlanPaused:
		return fmt.Sprintf("[plangit] Plan paused, %d/%d steps done; say \"continue\" (or run %s resume) to go on.\n%s", c.Done, c.Total, cli, title)
	case p.Status == plan.PlanPending:
		return fmt.Sprintf("[plangit] Plan awaiting approval (%s approve), %d/%d steps done%s.\n%s", cli, c.Done, c.Total, openErrors(st, cli), data(planNow(p)))
	case p.Status == plan.PlanRunning:
		return fmt.Sprintf("[plangit] Plan %d/%d done%s%s.\n%s", c.Done, c.Total, openErrors(st, cli), failedNow(p, cli), data(planNow(p)))
	}
	return "[plangit] Plan " + string(p.Status) + ".\n" + title
}

// failedNow is what the prompt line says of failed steps: "; step 3
// failed (4 waits on it)", and for a stuck plan the ways out; "" when no
// step failed.
func failedNow(p *plan.Plan, cli string) string {
	line := FailedLine(p)
	if line == "" {
		return ""
	}
	line = "; " + lowerFirst(line)
	if Stuck(p) {
		line += ". The plan is stuck; ways out: " + WaysOut(p, cli)
	}
	return line
}

// openErrors is "; N errors open (plangit errors --open)", or "".
func openErrors(st *plan.State, cli string) string {
	if n := len(st.Errors.Open()); n > 0 {
		return fmt.Sprintf("; %s open (%s errors --open)", Count(n, "error"), cli)
	}
	return ""
}

// planNow is the plan's title, its current step and its next, for the
// prompt line.
func planNow(p *plan.Plan) string {
	line := "Plan: " + clipLine(p.Title, 80)
	if cur := p.Current(); cur != nil {
		line += "; now: " + cur.ID + " " + clipLine(cur.Text, 70) + " (" + position(p, cur)
		if cur.Progress.Total > 0 {
			line += ", progress " + cur.Progress.String()
		}
		line += ")"
	}
	if next := NextStep(p); next != nil {
		line += "; next: " + next.ID + " " + clipLine(next.Text, 70)
	}
	return line
}

// position is where a step stands in the plan's order: "step 4/9", as the
// maxclaw seed tells its agent (current_step_index+1 of len(steps)).
func position(p *plan.Plan, s *plan.Step) string {
	steps := p.Steps()
	for i, x := range steps {
		if x == s {
			return fmt.Sprintf("step %d/%d", i+1, len(steps))
		}
	}
	return ""
}

// StepContext is what an agent reads before a critical tool: the step it
// works on, else the step to start; "" when there is neither.
func StepContext(p *plan.Plan, cli string) string {
	if cur := p.Current(); cur != nil {
		return data("Current step: " + StepLine(p, cur))
	}
	if ready := p.Ready(); len(ready) > 0 {
		return "[plangit] No step in progress; " + cli + " next starts this one:\n" + data("Next: "+StepLine(p, ready[0]))
	}
	return ""
}

// ErrorLabel names an error record in a line: "#3 Bash ×2 `go test ./...`".
func ErrorLabel(e *plan.ErrorRecord) string {
	label := fmt.Sprintf("#%s %s ×%d", e.ID, e.Tool, e.Count)
	if e.Key != "" {
		label += " `" + clipLine(e.Key, 60) + "`"
	}
	return label
}

// LeftToDo says what is left of a plan, for the Stop gate: the steps left
// in the current phase, then the later phases with how many steps each
// has left, and the next step — a few hundred bytes.
func LeftToDo(p *plan.Plan, cli string) []string {
	left := p.Unfinished()
	verb := "are"
	if len(left) == 1 {
		verb = "is"
	}
	head := fmt.Sprintf("[plangit] %d of %s %s not done.", len(left), Count(p.Counts().Total, "step"), verb)
	focus := phaseOf(p, firstOr(p.Current(), left))
	var groups []string
	for _, ph := range p.Phases {
		var here []*plan.Step
		for _, s := range ph.Steps {
			if !s.Status.Resolved() {
				here = append(here, s)
			}
		}
		if len(here) == 0 {
			continue
		}
		name := "Phase " + ph.ID + " " + clipLine(ph.Title, 40)
		if ph != focus {
			groups = append(groups, name+": "+Count(len(here), "step")+" left")
			continue
		}
		var items []string
		for i, s := range here {
			if i == 4 {
				items = append(items, fmt.Sprintf("+%d more", len(here)-4))
				break
			}
			items = append(items, s.Status.Icon()+" "+s.ID+" "+clipLine(s.Text, 60))
		}
		groups = append(groups, name+": "+strings.Join(items, "; "))
	}
	line := strings.Join(groups, ". ") + "."
	if next := NextStep(p); next != nil {
		line += " Next: " + next.ID + " " + clipLine(next.Text, 60) + "."
	}
	lines := append([]string{head + "\n" + data(line)}, FailureParts(p, cli)...)
	if Stuck(p) {
		return append(lines, "Before stopping, take one of those ways out, or pause ("+cli+" pause).")
	}
	return append(lines, "Before stopping, finish ("+cli+" step done ID --result \"...\"), skip ("+cli+" step skip ID --reason \"...\") or pause ("+cli+" pause).")
}

func firstOr(s *plan.Step, left []*plan.Step) *plan.Step {
	if s != nil || len(left) == 0 {
		return s
	}
	return left[0]
}

// StartedLeft says which of the steps a subagent started are not done,
// for its Stop gate.
func StartedLeft(p *plan.Plan, steps []*plan.Step, cli string) []string {
	var items []string
	for _, s := range steps {
		items = append(items, s.Status.Icon()+" "+s.ID+" "+clipLine(s.Text, 60))
	}
	return []string{"[plangit] Steps you started are not done:\n" + data(strings.Join(items, "; ")),
		"Finish them (" + cli + " step done ID --result \"...\") or say why not (" + cli + " step block ID --reason \"...\") before stopping."}
}

// StrikeWarning tells an agent that the same error keeps coming back.
func StrikeWarning(e *plan.ErrorRecord, limit int, cli string) string {
	what := e.Tool
	if e.Key != "" {
		what += " `" + clipLine(e.Key, 60) + "`"
	}
	return fmt.Sprintf("[plangit] Error #%s: this failed %d times the same way (the strike limit is %d):\n%s\n"+
		"Stop retrying it. Re-read the plan (%s show), change approach, or ask the user. "+
		"Record what you learned (%s finding add --category issue --title \"...\" \"...\"), or block the step (%s step block ID --reason \"...\").",
		e.ID, e.Count, limit, data(what+": "+clipLine(e.Message, 200)), cli, cli, cli)
}

// ResumeSummary is what an agent reads when its paused plan resumes: the
// plan, the tool uses spent (limit 0: none), and every step, done and
// left, as the plan lists them.
func ResumeSummary(st *plan.State, used, limit int) []string {
	p := st.Plan
	iters := fmt.Sprintf("iterations used %d", used)
	if limit > 0 {
		iters = fmt.Sprintf("iterations used %d/%d", used, limit)
	}
	parts := []string{"[plangit] Resumed the plan; " + iters + ".\n" + data("Plan: "+progressLine(p))}
	if p.Goal != "" {
		parts = append(parts, data("Goal: "+clipLine(p.Goal, 300)))
	}
	for _, s := range p.Steps() {
		parts = append(parts, data(StepLine(p, s)))
	}
	return parts
}

func clipLine(s string, n int) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
