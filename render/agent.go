package render

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/plangit/plangit/plan"
)

// Text for agents: reminders that hooks inject into an agent's context.
// Every piece is built as parts, most important first, and Fit cuts the
// parts to a byte budget so a hook never floods the context.

// moreHint ends a reminder that was cut.
const moreHint = "… (plangit show for the full plan)"

// Fit joins parts with newlines, keeping as many whole parts as fit in
// budget bytes, most important first. A first part longer than the budget
// is cut at a rune boundary. When anything is left out, the result ends
// with a pointer to plangit show; the result never exceeds the budget.
func Fit(parts []string, budget int) string {
	var kept []string
	used := 0
	for i, p := range parts {
		if p == "" {
			continue
		}
		need := len(p)
		if len(kept) > 0 {
			need++ // the newline before it
		}
		room := budget - used
		if i < len(parts)-1 {
			room -= len("\n" + moreHint) // keep room to say more was left out
		}
		if need <= room {
			kept = append(kept, p)
			used += need
			continue
		}
		if len(kept) == 0 {
			if cut := cutRunes(p, budget-len(moreHint)-1); cut != "" {
				kept = append(kept, cut)
			}
		}
		return strings.Join(append(kept, moreHint), "\n")
	}
	return strings.Join(kept, "\n")
}

func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func progressLine(p *plan.Plan) string {
	c := p.Counts()
	return fmt.Sprintf("%s — %s, %d/%d steps done", oneLine(p.Title), p.Status, c.Done, c.Total)
}

// Reminder is what an agent reads at the start of a session (or after a
// compaction) when its plan is unfinished: the plan and its session (which
// an agent passes to plangit's MCP tools), where it stands, what to do now
// and next, what went wrong lately, how to record progress.
func Reminder(st *plan.State, session string) []string {
	p := st.Plan
	parts := []string{"[plangit] Your plan (session " + session + "): " + progressLine(p)}
	if p.Goal != "" {
		parts = append(parts, "Goal: "+oneLine(p.Goal))
	}
	switch p.Status {
	case plan.PlanPaused:
		parts = append(parts, "The plan is paused; say \"continue\" (or run plangit resume) to go on.")
	case plan.PlanPending:
		parts = append(parts, "The plan awaits approval: plangit approve.")
	}
	cur := p.Current()
	if cur != nil {
		parts = append(parts, "Current: "+StepLine(p, cur))
	}
	ready := p.Ready()
	for i, s := range ready {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("(+%d more ready)", len(ready)-3))
			break
		}
		parts = append(parts, "Next: "+StepLine(p, s))
	}
	for _, s := range p.Steps() {
		if s.Status == plan.StepBlocked || s.Status == plan.StepFailed {
			parts = append(parts, "Attention: "+StepLine(p, s))
		}
	}
	for i, e := range st.Errors.Open() {
		if i == 2 {
			break
		}
		parts = append(parts, fmt.Sprintf("Recent error: %s ×%d: %s", e.Tool, e.Count, clipLine(e.Message, 160)))
	}
	if n := len(st.Findings); n > 0 {
		parts = append(parts, fmt.Sprintf("Findings so far: %d (plangit findings)", n))
	}
	hint := "Record progress: plangit step done ID --result \"...\"; plangit next starts the next step."
	if cur != nil {
		hint = fmt.Sprintf("Record progress: plangit step done %s --result \"...\" (or step progress %s N/M).", cur.ID, cur.ID)
	}
	return append(parts, hint)
}

// StatusLine is one line on where the plan stands.
func StatusLine(p *plan.Plan) string {
	line := "[plangit] " + progressLine(p)
	if cur := p.Current(); cur != nil {
		line += "; current: " + cur.ID + " " + clipLine(cur.Text, 80)
	} else if ready := p.Ready(); len(ready) > 0 {
		line += "; next: " + ready[0].ID + " " + clipLine(ready[0].Text, 80)
	}
	return line
}

// ToolContext is what an agent reads before using a critical tool: the
// step it works on and how this tool failed before (open errors only: a
// resolved error is history).
func ToolContext(st *plan.State, tool string) []string {
	p := st.Plan
	var parts []string
	if cur := p.Current(); cur != nil {
		parts = append(parts, "[plangit] Current step: "+StepLine(p, cur))
	} else if ready := p.Ready(); len(ready) > 0 {
		parts = append(parts, "[plangit] No step in progress; next is "+StepLine(p, ready[0])+" (plangit next starts it)")
	}
	for i, e := range st.Errors.Open().ForTool(tool) {
		if i == 3 {
			break
		}
		if i == 0 && len(parts) == 0 {
			parts = append(parts, "[plangit]")
		}
		parts = append(parts, fmt.Sprintf("%s failed before ×%d: %s", tool, e.Count, clipLine(e.Message, 200)))
	}
	return parts
}

// LeftToDo lists a plan's unfinished steps, for the Stop gate.
func LeftToDo(p *plan.Plan) []string {
	left := p.Unfinished()
	verb := "are"
	if len(left) == 1 {
		verb = "is"
	}
	parts := []string{fmt.Sprintf("[plangit] %d of %s %s not done:", len(left), Count(p.Counts().Total, "step"), verb)}
	for _, s := range left {
		parts = append(parts, "  "+StepLine(p, s))
	}
	return append(parts, "Finish them (plangit step done ID --result \"...\"), skip them (plangit step skip ID --reason \"...\"), or pause the plan (plangit pause) before stopping.")
}

// StrikeWarning tells an agent that the same error keeps coming back.
func StrikeWarning(e *plan.ErrorRecord, limit int) string {
	return fmt.Sprintf("[plangit] %s has failed %d times the same way (the strike limit is %d): %s\n"+
		"Stop retrying this approach. Record what you learned (plangit finding add --category issue --title \"...\"), "+
		"then change approach — or block the step with the reason (plangit step block ID --reason \"...\").",
		e.Tool, e.Count, limit, clipLine(e.Message, 200))
}

func clipLine(s string, n int) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
