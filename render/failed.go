package render

import (
	"fmt"
	"strings"

	"github.com/plangit/plangit/plan"
)

// Failure is a failed step and the unfinished steps that wait on it,
// directly or through other steps that wait: none of them is ready, nor
// will be, until the failure is dealt with.
type Failure struct {
	Step    *plan.Step
	Waiting []*plan.Step
}

// Failures are the plan's failed steps, in plan order, each with the steps
// that wait on it.
func Failures(p *plan.Plan) []Failure {
	var out []Failure
	for _, s := range p.Steps() {
		if s.Status == plan.StepFailed {
			out = append(out, Failure{Step: s, Waiting: waitingOn(p, s.ID)})
		}
	}
	return out
}

// waitingOn is the unfinished steps that need id, or need a step that
// does, in plan order.
func waitingOn(p *plan.Plan, id string) []*plan.Step {
	waits := map[string]bool{id: true}
	for grew := true; grew; {
		grew = false
		for _, s := range p.Steps() {
			if waits[s.ID] || s.Status.Resolved() || s.Status == plan.StepFailed {
				continue
			}
			for _, n := range s.Needs {
				if waits[n] {
					waits[s.ID], grew = true, true
					break
				}
			}
		}
	}
	var out []*plan.Step
	for _, s := range p.Steps() {
		if s.ID != id && waits[s.ID] && !s.Status.Resolved() && s.Status != plan.StepFailed {
			out = append(out, s)
		}
	}
	return out
}

// waitsOnFailure reports whether s waits on a failed step.
func waitsOnFailure(p *plan.Plan, s *plan.Step) bool {
	for _, f := range Failures(p) {
		for _, w := range f.Waiting {
			if w == s {
				return true
			}
		}
	}
	return false
}

// Stuck reports whether a running plan can go no further without a word
// on a failure: a step failed, none is in progress or ready, and every
// step left is a failed one or waits on one.
func Stuck(p *plan.Plan) bool {
	fs := Failures(p)
	if p.Status != plan.PlanRunning || len(fs) == 0 || p.Current() != nil || len(p.Ready()) > 0 {
		return false
	}
	for _, s := range p.Unfinished() {
		if s.Status != plan.StepFailed && !waitsOnFailure(p, s) {
			return false
		}
	}
	return true
}

// FailedLine names the failed steps and those that wait on them: "Step 3
// failed; 4, 5 wait on it." — ids only, so that it needs no fence; ""
// when no step failed.
func FailedLine(p *plan.Plan) string {
	var said []string
	for _, f := range Failures(p) {
		line := "step " + f.Step.ID + " failed"
		switch len(f.Waiting) {
		case 0:
		case 1:
			line += " (" + f.Waiting[0].ID + " waits on it)"
		default:
			line += " (" + stepIDs(f.Waiting) + " wait on it)"
		}
		said = append(said, line)
	}
	if len(said) == 0 {
		return ""
	}
	s := strings.Join(said, "; ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// WaysOut says what settles a failure: retry the step, skip it, or take
// the need of a step that waits on it away — the commands, for the first
// failure.
func WaysOut(p *plan.Plan, cli string) string {
	fs := Failures(p)
	if len(fs) == 0 {
		return ""
	}
	f := fs[0]
	ways := fmt.Sprintf("retry it (%s step reopen %s, then %s step start %s), skip it (%s step skip %s --reason \"...\")", cli, f.Step.ID, cli, f.Step.ID, cli, f.Step.ID)
	if len(f.Waiting) > 0 {
		ways += fmt.Sprintf(", or drop the need (%s step edit %s --needs \"...\")", cli, f.Waiting[0].ID)
	}
	return ways
}

// FailureParts are what the agent is told of the plan's failures: each
// failed step with its reason, recorded text, and the steps that wait on
// it; for a stuck plan, that it is stuck and the ways out. None when no
// step failed.
func FailureParts(p *plan.Plan, cli string) []string {
	fs := Failures(p)
	if len(fs) == 0 {
		return nil
	}
	var reasons []string
	for _, f := range fs {
		if f.Step.Reason != "" {
			reasons = append(reasons, "Failed: "+f.Step.ID+" "+clipLine(f.Step.Text, 60)+": "+clipLine(f.Step.Reason, 120))
		} else {
			reasons = append(reasons, "Failed: "+f.Step.ID+" "+clipLine(f.Step.Text, 60))
		}
	}
	head := "[plangit] " + FailedLine(p) + "."
	if Stuck(p) {
		head = "[plangit] The plan is stuck: " + lowerFirst(FailedLine(p)) + ", and nothing else is left to do. Ways out: " + WaysOut(p, cli) + "."
	} else {
		head += " Deal with it: " + WaysOut(p, cli) + "."
	}
	return []string{head + "\n" + data(strings.Join(reasons, "\n"))}
}

func stepIDs(steps []*plan.Step) string {
	ids := make([]string, len(steps))
	for i, s := range steps {
		ids[i] = s.ID
	}
	return strings.Join(ids, ", ")
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
