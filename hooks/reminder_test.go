package hooks

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
)

// TestReminderShowsFiveRecentErrors: the Manus seed (004), "3.4
// ErrorTracker":
//
//	async getRecentErrors(toolName?: string, limit: number = 5): Promise<ErrorRecord[]> {
//	  ...
//	  return errors
//	    .sort((a, b) => b.timestamp - a.timestamp)
//	    .slice(0, limit);
//
// the session-start reminder shows the five open errors seen last,
// latest first, and says how many more there are.
func TestReminderShowsFiveRecentErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.withPlan(sessionID, func(st *plan.State) {
		for i, tool := range []string{"Read", "Grep", "Glob", "WebFetch", "Edit", "Write"} {
			st.Errors.Record(plan.ErrorRecord{Tool: tool, Message: fmt.Sprintf("failure %c", 'a'+i), Step: "2"}, t0.Add(time.Duration(i+2)*time.Minute))
		}
	})
	out := f.send("SessionStart", map[string]any{"source": "startup"})
	var shown []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "Open error ") {
			shown = append(shown, line)
		}
	}
	if len(shown) != 5 || !strings.Contains(shown[0], "Write ×1: failure f") || !strings.Contains(shown[4], "Grep ×1: failure b") {
		t.Fatalf("open errors shown:\n%s\nin:\n%s", strings.Join(shown, "\n"), out)
	}
	if !strings.Contains(out, "(+2 more open errors)") || !strings.Contains(out, "plangit errors lists them.") {
		t.Errorf("no word of the other two:\n%s", out)
	}
}
