package plan

import (
	"fmt"
	"testing"
)

// An error's remedy is its hint: the message stays short, Error joins
// the two for a reader of plain text, and Parts gives them apart to the
// views that print the hint on a line of its own.
func TestErrorHint(t *testing.T) {
	t.Parallel()
	e := Errorf(CodePlanNotActive, "the plan is paused").Hinted("resume it first: %s", "plangit resume")
	if e.Error() != "the plan is paused; resume it first: plangit resume" {
		t.Errorf("Error: %q", e.Error())
	}
	if msg, hint := Parts(e); msg != "the plan is paused" || hint != "resume it first: plangit resume" {
		t.Errorf("Parts: %q, %q", msg, hint)
	}
	wrapped := fmt.Errorf("session s1: %w", e)
	if msg, hint := Parts(wrapped); msg != wrapped.Error() || hint != "" {
		t.Errorf("Parts of a wrapped error: %q, %q", msg, hint)
	}
	if CodeOf(wrapped) != CodePlanNotActive {
		t.Error("the code is lost")
	}
}
