package render

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/share"
)

const shortTime = "2006-01-02 15:04"

// Log writes revisions one per line: hash, number, time, who, progress,
// summary; under a merge, what each side brought and what conflicts.
func Log(w io.Writer, revs []repo.Revision, s Style) {
	logLines(w, revs, s, nil, nil)
}

// LogGraph is Log with the history's lines drawn on the left, as git log
// --graph draws them: a merge opens a line for its second parent, which
// joins the first's where the two sides met.
func LogGraph(w io.Writer, revs []repo.Revision, s Style) {
	logLines(w, revs, s, &graph{}, nil)
}

// LogCode is Log (LogGraph with graph) with, under each revision that
// took a code snapshot of its own, what it changed in the project's
// files (log --code).
func LogCode(w io.Writer, revs []repo.Revision, code map[string]*history.CodeStat, graphed bool, s Style) {
	var g *graph
	if graphed {
		g = &graph{}
	}
	logLines(w, revs, s, g, code)
}

// revNumber is a revision's @N, or blanks for a revision this machine has
// not numbered (a remote's, not fetched yet).
func revNumber(n int) string {
	if n == 0 {
		return "    "
	}
	return fmt.Sprintf("@%-3d", n)
}

func logLines(w io.Writer, revs []repo.Revision, s Style, g *graph, code map[string]*history.CodeStat) {
	if len(revs) == 0 {
		fmt.Fprintln(w, "no revisions match")
		return
	}
	// A narrower terminal drops the year, then the time, before it cuts
	// the summary short.
	layout := shortTime
	switch {
	case s.Width > 0 && s.Width < 60:
		layout = ""
	case s.Width > 0 && s.Width < 80:
		layout = "01-02 15:04"
	}
	for _, r := range revs {
		prefix := ""
		if g != nil {
			prefix = g.commit(r)
		}
		who := r.Who()
		if s == (Style{}) {
			fmt.Fprintf(w, "%s%s %s %s  %-5s %s %s\n", prefix, r.Hash[:7], revNumber(r.N), r.Time.UTC().Format(shortTime), who, progressOf(r), r.Summary)
		} else {
			head := []string{s.paint(yellow, r.Hash[:7]), s.paint(dim, revNumber(r.N))}
			used := Columns(prefix) + 7 + 1 + 4
			if layout != "" {
				head = append(head, " "+s.paint(dim, r.Time.UTC().Format(layout)))
				used += 2 + len(layout)
			}
			progress := progressOf(r)
			head = append(head, s.paint(actorColor(r.Actor), fmt.Sprintf("%-5s", who)), progress)
			used += 1 + max(5, Columns(who)) + 1 + len(progress) + 1
			summary := Clean(r.Summary)
			if s.Width > 0 {
				summary = fitText(summary, max(8, s.Width-used))
			}
			fmt.Fprintf(w, "%s%s %s\n", prefix, strings.Join(head, " "), summary)
		}
		rest := ""
		if g != nil {
			for _, line := range g.more {
				fmt.Fprintln(w, line)
			}
			rest = g.row(nil) + " "
		}
		if r.Merge != nil {
			for _, line := range mergeDetail(r.Merge) {
				line = Clean(line)
				if s.Width > 0 {
					line = fitText(line, max(8, s.Width-Columns(rest)-8))
				}
				fmt.Fprintf(w, "%s        %s\n", rest, line)
			}
		}
		if st := code[r.Hash]; st != nil {
			line := codeStatLine(st)
			if s.Width > 0 {
				line = fitText(line, max(8, s.Width-Columns(rest)-8))
			}
			fmt.Fprintf(w, "%s        %s\n", rest, s.paint(cyan, line))
		}
	}
}

// mergeDetail is what a merge's message says, a line each: each side and
// what it brought (or what was dropped), what was renumbered, kept, and
// what conflicts.
func mergeDetail(m *repo.MergeInfo) []string {
	var out []string
	for _, side := range m.Sides {
		out = append(out, strings.ToLower(side.Heading[:1])+side.Heading[1:]+":")
		for _, c := range side.Changes {
			out = append(out, "  "+c)
		}
	}
	for _, r := range m.Renumbered {
		out = append(out, "renumbered "+r)
	}
	for _, k := range m.Kept {
		out = append(out, "kept "+k)
	}
	for _, c := range m.Conflicts {
		out = append(out, "conflict "+c)
	}
	return out
}

// graph draws the lines of a history, newest first: one column per line
// of history open at that point.
type graph struct {
	lanes []string // the revision each column waits for
	more  []string // connector lines to write after the last revision's
}

// commit places r and returns the prefix of its line; g.more are the
// connector lines to write under it.
func (g *graph) commit(r repo.Revision) string {
	col := slices.Index(g.lanes, r.Hash)
	if col < 0 {
		g.lanes = append(g.lanes, r.Hash)
		col = len(g.lanes) - 1
	}
	var b strings.Builder
	for i := range g.lanes {
		if i == col {
			b.WriteString("* ")
		} else {
			b.WriteString("| ")
		}
	}
	parents := r.Parents
	if len(parents) == 0 && r.Parent != "" {
		parents = []string{r.Parent}
	}
	g.more = nil
	if len(parents) == 0 {
		g.lanes = slices.Delete(g.lanes, col, col+1)
	} else {
		g.lanes[col] = parents[0]
		opened := 0
		for _, p := range parents[1:] {
			if !slices.Contains(g.lanes, p) {
				opened++
				g.lanes = slices.Insert(g.lanes, col+opened, p)
				g.more = append(g.more, g.row(map[int]string{col + opened: "\\"}))
			}
		}
	}
	// Two columns waiting for the same revision join.
	for i := 0; i < len(g.lanes); i++ {
		if j := slices.Index(g.lanes[:i], g.lanes[i]); j >= 0 {
			g.more = append(g.more, g.row(map[int]string{i: "/"}))
			g.lanes = slices.Delete(g.lanes, i, i+1)
			i--
		}
	}
	return b.String()
}

// row draws a connector row over the current columns; marks puts another
// sign than | in some.
func (g *graph) row(marks map[int]string) string {
	var b strings.Builder
	n := len(g.lanes)
	for i := range n {
		if m, ok := marks[i]; ok {
			b.WriteString(m + " ")
		} else {
			b.WriteString("| ")
		}
	}
	if m, ok := marks[n]; ok {
		b.WriteString(m + " ")
	}
	return strings.TrimRight(b.String(), " ")
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
				io.WriteString(w, Clean(line))
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

// Blame writes, for each step, the revision that last changed it. A
// terminal narrower than 100 columns loses the time, one narrower than 60
// the hash and the actor too, so the step's text keeps its room.
func Blame(w io.Writer, lines []history.BlameLine, s Style) {
	if len(lines) == 0 {
		fmt.Fprintln(w, "the plan has no steps")
		return
	}
	full, narrow := s.Width <= 0 || s.Width >= 100, s.Width > 0 && s.Width < 60
	for _, l := range lines {
		var head string
		switch {
		case l.Rev == "" && narrow:
			head = fmt.Sprintf("%-4s", "-")
		case l.Rev == "" && full:
			head = fmt.Sprintf("%-7s %-4s %-16s %-5s", "-", "", "", "")
		case l.Rev == "":
			head = fmt.Sprintf("%-7s %-4s %-5s", "-", "", "")
		case narrow:
			head = fmt.Sprintf("@%-3d", l.N)
		case full:
			head = fmt.Sprintf("%s %s %s %-5s", l.Rev[:7], revNumber(l.N), l.Time.UTC().Format(shortTime), cmp.Or(l.Who, l.Actor))
		default:
			head = fmt.Sprintf("%s %s %-5s", l.Rev[:7], revNumber(l.N), cmp.Or(l.Who, l.Actor))
		}
		line := fmt.Sprintf("%s %s %s  %s", head, l.Status.Icon(), l.Step, oneLine(l.Text))
		if l.Rev != "" {
			line += "  — " + oneLine(l.What)
		}
		fmt.Fprintln(w, Clean(line))
	}
}

// person is who, when it names a person, not only an actor: "" for
// "agent", "user", "hook" and "git", which every line would say alike.
func person(who string) string {
	switch who {
	case "", "agent", "user", "hook", "git":
		return ""
	}
	return who
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
	l := layoutTimeline(style.Width)
	chart = chart && l.bar > 0
	for _, sp := range spans {
		started, finished, took := "—", "—", ""
		if !sp.Started.IsZero() {
			started = sp.Started.UTC().Format(l.dates)
		}
		if !sp.Finished.IsZero() {
			finished = sp.Finished.UTC().Format(l.dates)
		}
		if !sp.Started.IsZero() && !sp.Finished.IsZero() {
			took = plan.FormatDuration(sp.Duration)
		} else if sp.Status == plan.StepInProgress && !sp.Started.IsZero() {
			took = plan.FormatDuration(now.Sub(sp.Started)) + "…"
		}
		cols := fmt.Sprintf(" %-3s %-*s  %-7s", sp.Step, len(l.dates), started, took)
		if l.finished {
			cols = fmt.Sprintf(" %-3s %-*s  %-*s  %-7s", sp.Step, len(l.dates), started, len(l.dates), finished, took)
		}
		line := style.paint(statusColor(sp.Status), sp.Status.Icon()) + cols
		used := Columns(sp.Status.Icon() + cols)
		if chart {
			line += " " + style.paint(statusColor(sp.Status), bar(sp, first, last, now, l.bar))
			used += l.bar + 3
		}
		text := oneLine(sp.Text)
		if who := person(cmp.Or(sp.FinishedBy, sp.StartedBy)); who != "" {
			text += "  · " + who
		}
		text = Clean(text)
		if style.Width > 0 {
			text = fitText(text, max(timelineText, style.Width-used-1))
		}
		fmt.Fprintf(w, "%s %s\n", line, text)
	}
}

// The timeline's columns: what a narrow terminal keeps.
const (
	timelineText = 16 // columns a step's text keeps at least
	timelineBar  = 8  // cells a chart needs at least
)

// timelineLayout is how the timeline uses a terminal's width.
type timelineLayout struct {
	dates    string // the layout of the times
	finished bool   // a column for when each step finished
	bar      int    // cells of the chart; 0 when it does not fit
}

// layoutTimeline fits the timeline to width columns (0: not a terminal):
// the dates lose their year on a terminal, the finish column goes on a
// narrow one, and the chart, at most 30 cells, goes when fewer than 8
// cells are left beside the text.
func layoutTimeline(width int) timelineLayout {
	if width <= 0 {
		return timelineLayout{dates: shortTime, finished: true, bar: 30}
	}
	l := timelineLayout{dates: "01-02 15:04", finished: width >= 72}
	used := 1 + 1 + 3 + 1 + len(l.dates) + 2 + 7
	if l.finished {
		used += len(l.dates) + 2
	}
	if room := width - used - 3 - 1 - timelineText; room >= timelineBar {
		l.bar = min(30, room)
	}
	return l
}

// TimelineChartColumns is the narrowest terminal the timeline draws its
// chart on.
func TimelineChartColumns() int {
	w := 1
	for layoutTimeline(w).bar == 0 {
		w++
	}
	return w
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
	Share      *share.Status   `json:"share,omitempty"` // its standing with the project's remotes
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
			fmt.Fprintf(w, "%s %s  (%s)\n", mark, r.ID, Clean(r.Problem))
			continue
		}
		fmt.Fprintf(w, "%s %s  %s  [%s · %d/%d done]  %s · %s (%s) · %s\n", mark, r.ID, Clean(r.Title), r.Status, r.Done, r.Total,
			Count(r.Revisions, "revision"), Ago(now, r.LastChange), r.LastChange.UTC().Format(shortTime), Bytes(r.Size))
		if line := shareLine(r.Share, now); line != "" {
			fmt.Fprintln(w, Clean(line))
		}
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

// progressOf is a revision's steps done of all, as the log column shows
// them: "?/?" for one another git client made, whose message says none.
func progressOf(r repo.Revision) string {
	if r.Actor == "git" && r.Done == 0 && r.Total == 0 {
		return "  ?/?  "
	}
	return fmt.Sprintf("%3d/%-3d", r.Done, r.Total)
}
