package interop

import (
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// An import cuts a note over the limit and says so; nothing goes unreported.
func TestImportReportsCutNotes(t *testing.T) {
	big := strings.Repeat("n", plan.MaxText+500)
	for name, body := range map[string]string{
		"quote":      "> " + big,
		"code block": "```\n" + big + "\n```",
	} {
		t.Run(name, func(t *testing.T) {
			src := "# Task Plan: T\n\n## Phase 1: A\n\n" + body + "\n\n- [ ] one\n"
			in, err := Import("task_plan.md", []byte(src), FormatPWF, tImport)
			if err != nil {
				t.Fatal(err)
			}
			notes := in.State.Plan.Phases[0].Notes
			if !strings.Contains(notes, "nnnn") || len(notes) > plan.MaxText {
				t.Errorf("notes are %d bytes, want the note cut to at most %d", len(notes), plan.MaxText)
			}
			cut := false
			for _, d := range in.Dropped {
				cut = cut || strings.Contains(d.Why, "cut to 65536 bytes")
			}
			if !cut {
				t.Errorf("dropped = %v, want the cut reported", in.Dropped)
			}
		})
	}
}
