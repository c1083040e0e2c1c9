package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

const shortTime = "2006-01-02 15:04"

// Log writes revisions one per line: hash, number, time, actor, progress,
// summary.
func Log(w io.Writer, revs []repo.Revision, s Style) {
	if len(revs) == 0 {
		fmt.Fprintln(w, "no revisions match")
		return
	}
	for _, r := range revs {
		head := fmt.Sprintf("%s @%-3d %s  %-5s %3d/%-3d ", r.Hash[:7], r.N, r.Time.UTC().Format(shortTime), r.Actor, r.Done, r.Total)
		if s == (Style{}) {
			fmt.Fprintf(w, "%s%s\n", head, r.Summary)
			continue
		}
		summary := r.Summary
		if s.Width > 0 {
			summary = fitText(summary, max(20, s.Width-Columns(head)))
		}
		fmt.Fprintf(w, "%s %s  %s %s %s %s\n", s.paint(yellow, r.Hash[:7]), s.paint(dim, fmt.Sprintf("@%-3d", r.N)),
			s.paint(dim, r.Time.UTC().Format(shortTime)), s.paint(actorColor(r.Actor), fmt.Sprintf("%-5s", r.Actor)),
			fmt.Sprintf("%3d/%-3d", r.Done, r.Total), summary)
	}
}

func endpoint(e history.Endpoint) string {
	if e.N > 0 {
		return fmt.Sprintf("@%d (%s)", e.N, e.Rev[:7])
	}
	return e.Rev[:7]
}

// Diff writes a semantic diff, one change per line: + added, - removed,
// ~ changed.
func Diff(w io.Writer, d *history.Diff, s Style) {
	fmt.Fprintf(w, "%s → %s\n", endpoint(d.From), endpoint(d.To))
	if len(d.Changes) == 0 {
		fmt.Fprintln(w, "  no changes")
		return
	}
	for _, c := range d.Changes {
		mark, color := "~", yellow
		switch c.Action {
		case "added":
			mark, color = "+", green
		case "removed":
			mark, color = "-", red
		}
		fmt.Fprintf(w, "  %s %s\n", s.paint(color, mark), s.fitLine(oneLine(c.Detail)))
	}
}

// TextDiff writes unified diffs of the files that changed.
func TextDiff(w io.Writer, from, to history.Endpoint, files []history.FileDiff, s Style) {
	if len(files) == 0 {
		fmt.Fprintf(w, "no differences between %s and %s\n", endpoint(from), endpoint(to))
		return
	}
	for _, f := range files {
		fmt.Fprintln(w, s.paint(bold, fmt.Sprintf("diff %s %s → %s", f.Name, endpoint(from), endpoint(to))))
		if !s.Color {
			io.WriteString(w, f.Unified)
			continue
		}
		for _, line := range strings.SplitAfter(f.Unified, "\n") {
			switch {
			case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
				io.WriteString(w, s.paint(bold, strings.TrimSuffix(line, "\n"))+"\n")
			case strings.HasPrefix(line, "+"):
				io.WriteString(w, s.paint(green, strings.TrimSuffix(line, "\n"))+"\n")
			case strings.HasPrefix(line, "-"):
				io.WriteString(w, s.paint(red, strings.TrimSuffix(line, "\n"))+"\n")
			case strings.HasPrefix(line, "@@"):
				io.WriteString(w, s.paint(cyan, strings.TrimSuffix(line, "\n"))+"\n")
			default:
				io.WriteString(w, line)
			}
		}
	}
}

// Stat writes how many lines each file gained and lost.
func Stat(w io.Writer, from, to history.Endpoint, files []history.FileDiff) {
	fmt.Fprintf(w, "%s → %s\n", endpoint(from), endpoint(to))
	added, deleted := 0, 0
	for _, f := range files {
		fmt.Fprintf(w, "  %-14s | +%d -%d\n", f.Name, f.Added, f.Deleted)
		added += f.Added
		deleted += f.Deleted
	}
	fmt.Fprintf(w, "  %s changed, %s(+), %s(-)\n", Count(len(files), "file"), Count(added, "insertion"), Count(deleted, "deletion"))
}

// Blame writes, for each step, the revision that last changed it.
func Blame(w io.Writer, lines []history.BlameLine) {
	if len(lines) == 0 {
		fmt.Fprintln(w, "the plan has no steps")
		return
	}
	for _, l := range lines {
		if l.Rev == "" {
			fmt.Fprintf(w, "%-7s %-4s %-16s %-5s %s %s  %s\n", "-", "", "", "", l.Status.Icon(), l.Step, oneLine(l.Text))
			continue
		}
		fmt.Fprintf(w, "%s @%-3d %s %-5s %s %s  %s  — %s\n", l.Rev[:7], l.N, l.Time.UTC().Format(shortTime), l.Actor,
			l.Status.Icon(), l.Step, oneLine(l.Text), oneLine(l.What))
	}
}

// Timeline writes when each step started and finished and how long it took.
// With chart, each step also gets a bar on a shared time axis, for a
// terminal.
func Timeline(w io.Writer, spans []history.Span, now time.Time, chart bool, style Style) {
	if len(spans) == 0 {
		fmt.Fprintln(w, "the plan has no steps")
		return
	}
	var first, last time.Time
	for _, sp := range spans {
		if !sp.Started.IsZero() && (first.IsZero() || sp.Started.Before(first)) {
			first = sp.Started
		}
		end := sp.Finished
		if end.IsZero() && sp.Status == plan.StepInProgress {
			end = now
		}
		if end.After(last) {
			last = end
		}
	}
	// On a terminal, dates lose their year and the chart gives way to the
	// text when the terminal is narrow.
	layout, dateW := shortTime, 16
	if style.Width > 0 {
		layout, dateW = "01-02 15:04", 11
	}
	width := 30
	if style.Width > 0 {
		width = min(width, style.Width-(1+5+2*(dateW+2)+8)-3-16)
		chart = chart && width >= 8
	}
	for _, sp := range spans {
		started, finished, took := "—", "—", ""
		if !sp.Started.IsZero() {
			started = sp.Started.UTC().Format(layout)
		}
		if !sp.Finished.IsZero() {
			finished = sp.Finished.UTC().Format(layout)
		}
		if !sp.Started.IsZero() && !sp.Finished.IsZero() {
			took = plan.FormatDuration(sp.Duration)
		} else if sp.Status == plan.StepInProgress && !sp.Started.IsZero() {
			took = plan.FormatDuration(now.Sub(sp.Started)) + "…"
		}
		cols := fmt.Sprintf(" %-3s %-*s  %-*s  %-7s", sp.Step, dateW, started, dateW, finished, took)
		line := style.paint(statusColor(sp.Status), sp.Status.Icon()) + cols
		used := Columns(sp.Status.Icon() + cols)
		if chart {
			line += " " + style.paint(statusColor(sp.Status), bar(sp, first, last, now, width))
			used += width + 3
		}
		text := oneLine(sp.Text)
		if style.Width > 0 {
			text = fitText(text, max(12, style.Width-used-1))
		}
		fmt.Fprintf(w, "%s %s\n", line, text)
	}
}

// bar draws a step's span on the axis from first to last.
func bar(s history.Span, first, last, now time.Time, width int) string {
	cells := []rune(strings.Repeat("·", width))
	total := last.Sub(first)
	if s.Started.IsZero() {
		return "│" + string(cells) + "│"
	}
	if total <= 0 { // every step started and ended in the same second
		cells[0] = '█'
		return "│" + string(cells) + "│"
	}
	end := s.Finished
	if end.IsZero() {
		end = now
	}
	from := int(float64(s.Started.Sub(first)) / float64(total) * float64(width-1))
	to := int(float64(end.Sub(first)) / float64(total) * float64(width-1))
	for i := max(0, from); i <= min(width-1, to); i++ {
		cells[i] = '█'
	}
	return "│" + string(cells) + "│"
}

// SessionRow is one session as `plangit sessions` shows it.
type SessionRow struct {
	ID         string          `json:"id"`
	Active     bool            `json:"active"`
	Title      string          `json:"title,omitempty"`
	Status     plan.PlanStatus `json:"status,omitempty"`
	Done       int             `json:"done"`
	Total      int             `json:"total"`
	Revisions  int             `json:"revisions"`
	LastChange time.Time       `json:"last_change,omitzero"`
	Size       int64           `json:"size"`
	Problem    string          `json:"problem,omitempty"`
}

// Sessions writes the session list.
func Sessions(w io.Writer, rows []SessionRow, now time.Time, plansDir string) {
	if len(rows) == 0 {
		fmt.Fprintf(w, "no sessions in %s; plangit init \"Title\" starts one\n", plansDir)
		return
	}
	for _, r := range rows {
		mark := " "
		if r.Active {
			mark = "*"
		}
		if r.Problem != "" {
			fmt.Fprintf(w, "%s %s  (%s)\n", mark, r.ID, r.Problem)
			continue
		}
		fmt.Fprintf(w, "%s %s  %s  [%s · %d/%d done]  %s · %s (%s) · %s\n", mark, r.ID, r.Title, r.Status, r.Done, r.Total,
			Count(r.Revisions, "revision"), Ago(now, r.LastChange), r.LastChange.UTC().Format(shortTime), Bytes(r.Size))
	}
}

// Cleanup writes what cleanup removed (or would) and what it kept, and why.
func Cleanup(w io.Writer, rep *repo.CleanupReport) {
	verb := "removed"
	if rep.DryRun {
		verb = "would remove"
	}
	for _, e := range rep.Entries {
		if e.Removed {
			fmt.Fprintf(w, "%s %s  %s (%s, %s)\n", verb, e.Session, e.Title, e.Reason, Bytes(e.Size))
		}
	}
	for _, e := range rep.Entries {
		if !e.Removed {
			fmt.Fprintf(w, "kept %s: %s\n", e.Session, e.Reason)
		}
	}
	fmt.Fprintf(w, "%s %s, %s\n", verb, Count(rep.Removed, "session"), Bytes(rep.Freed))
}

// Count writes a number with its noun, agreeing: "1 revision", "2
// revisions".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Bytes writes a size for people: 812 B, 84 KB, 3.1 MB.
func Bytes(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%d KB", (n+512)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
