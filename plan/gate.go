package plan

// Gates are the confirmations a project asks for: a plan awaits the
// person's approval before it runs (plan_confirmation); a step starts only
// with the person's word (step_confirmation). They hold whatever way a
// change arrives — the command line, a hook syncing a todo list, an MCP
// tool: the session's commit checks every change (repo) with Gated.
type Gates struct{ Plan, Step bool }

// Gated is what a change from before to after does that, under g, only a
// person may do: "approve" when a plan that awaited approval now runs;
// "start", with the step's id, when a step is in progress that was not (a
// completion auto-advance made, taken back, is no start); "" for nothing.
func Gated(before, after *Plan, g Gates) (what, step string) {
	if before == nil || after == nil {
		return "", ""
	}
	if g.Plan && before.Status == PlanPending && (after.Status == PlanRunning || after.Status == PlanCompleted) {
		return "approve", ""
	}
	if !g.Step {
		return "", ""
	}
	was := map[string]*Step{}
	for _, s := range before.Steps() {
		was[s.ID] = s
	}
	for _, s := range after.Steps() {
		if s.Status != StepInProgress {
			continue
		}
		if w := was[s.ID]; w == nil || w.Status != StepInProgress && !(w.Status == StepCompleted && w.Auto) {
			return "start", s.ID
		}
	}
	return "", ""
}

// GateError is the error for a change Gated found the person's: what
// they run, in their own terminal, to make it — or allow when the agent's
// host asks them.
func GateError(what, step string) *Error {
	if what == "approve" {
		return Errorf(CodeConfirmationRequired, "approving the plan is the person's to do (plan_confirmation): they review it (plangit show) and run plangit approve in their own terminal, or allow the agent's plangit approve when its host asks them").With("needs", "approve")
	}
	return Errorf(CodeConfirmationRequired, "starting step %s needs the person's word (step_confirmation): they run plangit step start %s in their own terminal, or allow the agent's plangit step start %s when its host asks them", step, step, step).With("needs", "start").With("step", step)
}
