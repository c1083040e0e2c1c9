package code

import "github.com/plangit/plangit/plan"

// Boundary says whether a change of the plan from before to after, by the
// change ch, is a step boundary, where a snapshot is taken:
//
//  1. the session's first revision (before is nil: init, an import);
//  2. a step's status changed: it started, completed, failed, was
//     skipped, or went back to pending (a revert, a retry), or a step
//     was added already under way;
//  3. the plan finished (ch.Op "finish"), or was rolled back or undone
//     (the statuses it brings back are a boundary of their own);
//  4. wroteCode says the change itself wrote the project's files (a code
//     revert, a code rollback).
//
// Nothing else is: a note, a finding, a new step, a renamed phase leave the
// project as it was for the plan's purposes.
func Boundary(before, after *plan.Plan, ch plan.Change, wroteCode bool) bool {
	if before == nil || wroteCode {
		return true
	}
	switch ch.Op {
	case "finish", "rollback", "undo":
		return true
	}
	for _, d := range plan.DiffSteps(before, after) {
		if d.Kind == plan.StepChanged && d.From != d.To || d.Kind == plan.StepAdded && d.To != "" && d.To != plan.StepPending {
			return true
		}
	}
	return false
}
