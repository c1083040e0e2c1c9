package hookwire

import (
	"slices"
	"strings"

	"github.com/plangit/plangit/render/brief"
)

// The read-only answers — PreToolUse and UserPromptSubmit — from a glance
// and the turn memory: one implementation, which plangit's hook engine and
// the hook binary both call, so that their answers are the same bytes.

// Answer is a read-only hook's answer, and the turn memory lines that
// record what it said.
type Answer struct {
	Context          string
	Permission       string // PreToolUse: "ask", or "" for no opinion
	PermissionReason string
	// Asked is what the person's yes to the question allows the agent
	// ("approve", "start"), for the asked record: "" for a question whose
	// yes lets no plangit change through.
	Asked    string
	Remember string // turn memory lines to append
}

// CLI is the command line that runs plangit on a session from the agent's
// shell: "plangit" where the shell reaches the session by itself, else
// "plangit --session ID" (an id that begins with "-" joined to its flag,
// where it cannot read as one).
func CLI(sessionID string, shell bool) string {
	switch {
	case shell:
		return "plangit"
	case strings.HasPrefix(sessionID, "-"):
		return "plangit --session=" + sessionID
	}
	return "plangit --session " + sessionID
}

// ToolCall is what the rules make of a tool call before any plan is read.
type ToolCall struct {
	Tool     string
	Key      string   // what it acts on (ToolKey)
	Critical bool     // it gets the current step and its open errors first
	GatePlan bool     // it changes something, and plan confirmation is on
	GateStep bool     // it starts a step, and step confirmation is on
	Approves bool     // it runs plangit approve
	Own      bool     // it runs plangit: the agent works the plan itself, and plangit's output tells it where it stands
	Todos    []string // a todo list's items it starts (TodoStarts)
}

// Tool reads a tool call under the rules; ok is false when the rules have
// nothing to say about it whatever the plan: most tool calls end there,
// having read no plan.
func (r Rules) Tool(tool string, input []byte) (c ToolCall, ok bool) {
	critical := slices.Contains(r.CriticalTools, tool)
	changes := critical || slices.Contains(r.WriteTools, tool)
	if !critical && !(changes && r.PlanConfirmation) && !r.StepConfirmation {
		return c, false
	}
	key, command := ToolKey(input)
	c = ToolCall{Tool: tool, Key: key, Critical: critical,
		GatePlan: r.PlanConfirmation && changes && !PlangitOnly(command),
		GateStep: r.StepConfirmation && StartsStep(command),
		Approves: RunsPlangit(command) && strings.Contains(command, "approve"), Own: RunsPlangit(command)}
	if r.StepConfirmation && PlanningTool(tool) {
		c.Todos = TodoStarts(tool, input)
		c.GateStep = len(c.Todos) > 0
	}
	return c, critical || c.GatePlan || c.GateStep
}

// Say keeps the parts t has not heard yet, fitted to budget with CLIMark
// read as cli, and the memory lines that record them; "" when all of it
// was said.
func Say(t *Turn, parts []Part, budget int, cli string) (text, remember string) {
	texts, lines := t.Say(parts)
	if len(texts) == 0 {
		return "", ""
	}
	return strings.ReplaceAll(brief.Fit(texts, budget), CLIMark, cli), lines
}

// PreToolUse answers before a tool call: the current step and the tool's
// open errors — the one this very call met before first — each once a
// turn, except before the agent's own plangit command, whose output says
// where the plan stands once it ran (hosts show a PreToolUse's context
// with the call's result); and, while the plan awaits approval or steps need confirmation, a
// question, for the person, whose shell does not reach the session by
// itself: the commands it names carry --session. A nil t (an event
// replayed from the queue, whose answer goes nowhere) hears nothing.
func (g *Glance) PreToolUse(c ToolCall, t *Turn, cli, sessionID string) Answer {
	var a Answer
	if c.Critical && g.Unfinished && t != nil && !c.Own {
		a.Context, a.Remember = Say(t, g.ToolParts(c.Tool, c.Key), g.Rules.Budget, cli)
	}
	switch {
	case c.GatePlan && g.Status == "pending":
		a.Permission = "ask"
		person := CLI(sessionID, false)
		a.PermissionReason = "plangit: the plan awaits approval. Review it (" + person + " show) and approve it (" + person + " approve) before the agent changes anything."
		if c.Approves {
			a.Asked = "approve"
		}
	case c.GateStep && (len(c.Todos) == 0 || !slices.Equal(c.Todos, []string{g.CurText})):
		a.Permission = "ask"
		a.PermissionReason = "plangit: step confirmation is on; confirm before the agent starts a step."
		a.Asked = "start"
	}
	return a
}

// Prompt answers a prompt that neither resumes a paused plan nor takes
// back an auto-advance: a new turn begins — the memory's T line — and an
// unfinished plan's prompt line is said, its current and next step with
// it. shell says whether the agent's shell reaches the session.
func (g *Glance) Prompt(shell bool, cli string) Answer {
	lines := BeginLine(g.Cur, g.Sig, shell)
	if !g.Unfinished {
		return Answer{Remember: lines}
	}
	return Answer{Context: brief.Fit([]string{strings.ReplaceAll(g.Line.Text, CLIMark, cli)}, g.Rules.Budget),
		Remember: lines + SaidLines(append([]string{g.Line.Key}, g.Names...)...)}
}
