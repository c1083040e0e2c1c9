package render

import (
	"strconv"
	"strings"

	"github.com/plangit/plangit/plan"
)

// Style is how terminal text is drawn. The zero value is plain text —
// what plangit prints when its output is piped, stable for scripts and
// golden files. On a terminal, plangit adds colour, progress bars, and fits
// lines to the terminal's width.
type Style struct {
	Color bool // ANSI colours
	Bars  bool // progress bars for the plan and each phase
	Width int  // fit lines to this many columns; 0: no limit
}

// ANSI codes.
const (
	reset   = "\x1b[0m"
	bold    = "\x1b[1m"
	dim     = "\x1b[2m"
	red     = "\x1b[31m"
	green   = "\x1b[32m"
	yellow  = "\x1b[33m"
	blue    = "\x1b[34m"
	magenta = "\x1b[35m"
	cyan    = "\x1b[36m"
)

// paint wraps text in an ANSI code when colour is on; the text is
// cleaned (Clean), so that a colour is the only code it carries.
func (s Style) paint(code, text string) string {
	text = Clean(text)
	if !s.Color || code == "" || text == "" {
		return text
	}
	return code + text + reset
}

// statusColor is the colour of a step status.
func statusColor(st plan.StepStatus) string {
	switch st {
	case plan.StepCompleted:
		return green
	case plan.StepInProgress:
		return yellow
	case plan.StepFailed, plan.StepBlocked:
		return red
	case plan.StepSkipped:
		return dim
	}
	return ""
}

func phaseColor(st plan.PhaseStatus) string {
	switch st {
	case plan.PhaseCompleted:
		return green
	case plan.PhaseInProgress:
		return yellow
	case plan.PhaseBlocked:
		return red
	}
	return ""
}

func planColor(st plan.PlanStatus) string {
	switch st {
	case plan.PlanCompleted:
		return green
	case plan.PlanRunning:
		return yellow
	case plan.PlanFailed:
		return red
	case plan.PlanPaused, plan.PlanPending:
		return magenta
	}
	return ""
}

func actorColor(actor string) string {
	switch actor {
	case "agent":
		return cyan
	case "user":
		return magenta
	case "hook":
		return blue
	}
	return ""
}

// Bar draws a progress bar of width cells: "█████░░░░░".
func Bar(done, total, width int) string {
	if width <= 0 {
		return ""
	}
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	return strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
}

// progressBar is a bar with its numbers, for a terminal.
func (s Style) progressBar(done, total, width int) string {
	pct := Percent(done, total)
	bar := Bar(done, total, width)
	filled := strings.Count(bar, "█") * len("█")
	return s.paint(green, bar[:filled]) + s.paint(dim, bar[filled:]) + " " + s.paint(bold, strconv.Itoa(done)+"/"+strconv.Itoa(total)) + s.paint(dim, " "+strconv.Itoa(pct)+"%")
}

// Columns is how many terminal columns s takes: wide (East Asian) runes
// and emoji take two.
func Columns(s string) int {
	n := 0
	for _, r := range s {
		n += runeColumns(r)
	}
	return n
}

func runeColumns(r rune) int {
	switch {
	case r < 0x1100:
		return 1
	case r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf, r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff,
		r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1faff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

// fitText cuts s, cleaned (Clean), to at most width columns, ending with
// "…" when cut: the columns counted are those of what is shown.
func fitText(s string, width int) string {
	s = Clean(s)
	if width <= 0 || Columns(s) <= width {
		return s
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		w := runeColumns(r)
		if used+w > width-1 {
			break
		}
		b.WriteRune(r)
		used += w
	}
	return b.String() + "…"
}

// styledStep draws a step line: the plain line of StepLine, coloured and
// fitted to the width (the text is what gets cut).
func (s Style) styledStep(p *plan.Plan, st *plan.Step, indent int) string {
	plain := StepLine(p, st)
	if s == (Style{}) {
		return plain
	}
	head := st.Status.Icon() + " " + st.ID + "  "
	tags := Clean(strings.TrimPrefix(plain, head+oneLine(st.Text)))
	text := Clean(oneLine(st.Text))
	if s.Width > 0 {
		room := s.Width - indent - Columns(head) - Columns(tags)
		if room < 12 {
			room = 12
		}
		text = fitText(text, room)
	}
	c := statusColor(st.Status)
	return s.paint(c, st.Status.Icon()) + " " + s.paint(dim, st.ID) + "  " + s.paint(textColor(st.Status), text) + s.paint(dim, tags)
}

// textColor dims what is done and leaves what is left to read plainly.
func textColor(st plan.StepStatus) string {
	switch st {
	case plan.StepCompleted, plan.StepSkipped:
		return dim
	case plan.StepInProgress:
		return bold
	}
	return ""
}

// fitLine cleans a plain line (Clean) and cuts it to the width.
func (s Style) fitLine(line string) string {
	if s.Width <= 0 {
		return Clean(line)
	}
	return fitText(line, s.Width)
}
