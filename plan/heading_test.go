package plan

import (
	"strings"
	"testing"
)

// TestHeadingsHoldNoControls: a title, a phase and an error's tool read
// from a hand-edited file hold no control character — an escape sequence
// written into a heading (OSC 0, OSC 52, CSI 2J, C1 CSI, backspaces, DEL)
// is dropped as CleanLine drops it from every field plangit is given —
// and the file plangit writes back carries none; a bidi control, which
// right-to-left text uses, is kept. Read again, what plangit wrote reads
// back to the same bytes.
func TestHeadingsHoldNoControls(t *testing.T) {
	t.Parallel()
	raw := "A\x1b]0;title\x07B\x1b]52;c;aGk=\x07C\x1b[2JD\u009b2JE\b\b\x7fF\u202eG"
	want := "A]0;titleB]52;c;aGk=C[2JD2JEF\u202eG"

	p, err := ParsePlan([]byte("# Plan " + raw + "\n\n## Phase 1: Build " + raw + "\n\n- [ ] step one `#1`\n\n## Setext " + raw + "\n\n- [ ] step two\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Plan "+want || p.Phases[0].Title != "Build "+want || p.Phases[1].Title != "Setext "+want {
		t.Errorf("headings read as %q, %q, %q; want the controls dropped", p.Title, p.Phases[0].Title, p.Phases[1].Title)
	}
	out := WritePlan(p)
	if strings.ContainsAny(string(out), "\x1b\x07\x08\x7f\u009b") {
		t.Errorf("task_plan.md written back holds a control:\n%q", out)
	}
	if back, err := ParsePlan(out); err != nil || string(WritePlan(back)) != string(out) {
		t.Errorf("task_plan.md does not read back as written (%v):\n%s", err, out)
	}

	l, err := ParseErrors([]byte("# Errors\n\n## Bash" + raw + " ×2 `#1`\n\n- first: 2026-11-20T10:00:00Z\n- last: 2026-11-20T10:00:00Z\n\n> boom\n"))
	if err != nil {
		t.Fatal(err)
	}
	if l[0].Tool != "Bash"+want || l[0].Count != 2 {
		t.Errorf("the error's heading read as tool %q ×%d; want the controls dropped", l[0].Tool, l[0].Count)
	}
	out = WriteErrors(l)
	if strings.ContainsAny(string(out), "\x1b\x07\x08\x7f\u009b") {
		t.Errorf("errors.md written back holds a control:\n%q", out)
	}

	fs, err := ParseFindings([]byte("# Findings\n\n## Insight\n\n### Title" + raw + " `#1`\n\n- time: 2026-11-20T10:00:00Z\n\n> content\n"))
	if err != nil {
		t.Fatal(err)
	}
	if fs[0].Category != CatInsight || fs[0].Title != "Title"+want {
		t.Errorf("findings.md read as %s %q; want the controls dropped", fs[0].Category, fs[0].Title)
	}
}
