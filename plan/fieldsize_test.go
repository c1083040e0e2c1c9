package plan

import (
	"strings"
	"testing"
)

// A field over its limit in a file read back is a parse error at its
// block, naming the field and the sizes: the file is refused as
// unreadable, never read without the text.
func TestParseRefusesFieldOverLimit(t *testing.T) {
	big := strings.Repeat("y", MaxText+500)
	long := strings.Repeat("s", MaxLine+10)
	const finding = "# Findings\n\n## Insight\n\n### Noted `#1`\n\n"
	const errHead = "# Errors\n\n## Bash ×1 `#1`\n\n- first: 2026-11-20T10:00:00Z\n"
	const plan = "# T\n\n## ○ Phase 1: Work `P1`\n\n"
	cases := []struct {
		name, src, field string
		line             int
		parse            func([]byte) error
	}{
		{"finding quote", finding + "> " + big + "\n", "finding content", 7, findings},
		{"finding paragraph", finding + big + "\n", "finding content", 7, findings},
		{"finding source", finding + "- source: " + long + "\n", "source", 7, findings},
		{"finding manus source", finding + "*Source: " + long + "*\n", "source", 7, findings},
		{"error quote", errHead + "\n> " + big + "\n", "error message", 7, errs},
		{"error paragraph", errHead + "\n" + big + "\n", "error message", 7, errs},
		{"error manus message", errHead + "\n**Message:** " + big + "\n", "error message", 7, errs},
		{"error resolution", errHead + "- resolution: " + big + "\n", "resolution", 6, errs},
		{"phase note quote", plan + "> " + big + "\n", "phase notes", 5, plans},
		{"phase note paragraph", plan + big + "\n", "phase notes", 5, plans},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The same file with the field in bounds parses.
			small := strings.ReplaceAll(strings.ReplaceAll(c.src, big, "short"), long, "short")
			if err := c.parse([]byte(small)); err != nil {
				t.Fatalf("the file in bounds: %v", err)
			}
			err := c.parse([]byte(c.src))
			e, ok := err.(*Error)
			if !ok || e.Code != CodePlanParseError {
				t.Fatalf("err = %v, want PLAN_PARSE_ERROR", err)
			}
			if e.Details["field"] != c.field || e.Details["line"] != c.line {
				t.Errorf("details = %v, want field %q at line %d", e.Details, c.field, c.line)
			}
			if !strings.Contains(e.Message, c.field+" is ") || !strings.Contains(e.Message, "the limit is") || !strings.Contains(e.Message, "shorten it") {
				t.Errorf("message = %q, want the field, its size, the limit and what to do", e.Message)
			}
		})
	}
}

func findings(src []byte) error { _, err := ParseFindings(src); return err }
func errs(src []byte) error     { _, err := ParseErrors(src); return err }
func plans(src []byte) error    { _, err := ParsePlan(src); return err }
