package render

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/interop"
)

// PlanOptions control the plan view.
type PlanOptions struct {
	All         bool              // show completed steps too
	Statuses    []plan.StepStatus // show only steps in these statuses (and the phases holding them)
	Deliverable []byte            // the session's deliverable.md, summarised under the header
	Style       Style
}

// shows reports whether the view shows step st.
func (o PlanOptions) shows(st *plan.Step) bool {
	if len(o.Statuses) > 0 {
		return slices.Contains(o.Statuses, st.Status)
	}
	return o.All || st.Status != plan.StepCompleted
}

// barWidth is the width of the plan's progress bar on a terminal.
func barWidth(s Style) int {
	if s.Width > 0 {
		return max(10, min(40, s.Width-20))
	}
	return 30
}

// StepLine is one step on one line: icon, id, text, then what matters about
// its state. Needs are shown only while unmet.
func StepLine(p *plan.Plan, s *plan.Step) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s  %s", s.Status.Icon(), s.ID, oneLine(s.Text))
	var tags []string
	if s.Progress.Total > 0 && !s.Status.Resolved() {
		tags = append(tags, s.Progress.String())
	}
	switch s.Status {
	case plan.StepBlocked, plan.StepFailed, plan.StepSkipped:
		t := string(s.Status)
		if s.Reason != "" {
			t += ": " + oneLine(s.Reason)
		}
		tags = append(tags, t)
	}
	if open := p.OpenNeeds(s); len(open) > 0 && !s.Status.Resolved() {
		tags = append(tags, "waits for "+strings.Join(open, ","))
	} else if s.Status == plan.StepPending || s.Status == plan.StepBlocked {
		if ph := p.WaitsFor(s); ph != nil {
			tags = append(tags, "waits for phase "+ph.ID)
		}
	}
	if s.Auto && s.Status == plan.StepCompleted {
		tags = append(tags, "auto-advance: unconfirmed")
	}
	switch {
	case s.Retries == 1:
		tags = append(tags, "1 retry")
	case s.Retries > 1:
		tags = append(tags, retries(s.Retries))
	}
	if len(tags) > 0 {
		b.WriteString("  [" + strings.Join(tags, "; ") + "]")
	}
	return b.String()
}

// Plan writes the plan as people read it in a terminal. Completed steps are
// hidden unless o.All, as an agent rereading its plan needs what is left.
func Plan(w io.Writer, p *plan.Plan, o PlanOptions) {
	s := o.Style
	c := p.Counts()
	if s.Bars {
		fmt.Fprintf(w, "%s  %s\n", s.paint(bold, s.fitLine(p.Title)), s.paint(planColor(p.Status), string(p.Status)))
		fmt.Fprintln(w, s.progressBar(c.Done, c.Total, barWidth(s)))
	} else {
		fmt.Fprintf(w, "%s  [%s · %d/%d done]\n", p.Title, p.Status, c.Done, c.Total)
	}
	if p.Goal != "" {
		fmt.Fprintf(w, "%s %s\n", s.paint(dim, "Goal:"), indentRest(p.Goal, "      "))
	}
	if p.Result != "" {
		fmt.Fprintf(w, "%s %s\n", s.paint(dim, "Result:"), indentRest(p.Result, "        "))
	}
	if p.Reason != "" {
		fmt.Fprintf(w, "%s %s\n", s.paint(dim, "Reason:"), indentRest(p.Reason, "        "))
	}
	if len(o.Deliverable) > 0 {
		fmt.Fprintf(w, "%s %s\n", s.paint(dim, "Deliverable:"), s.fitLine(DeliverableLine(o.Deliverable)))
	}
	for _, c := range p.Conflicts {
		fmt.Fprintf(w, "%s %s\n", s.paint(red, "Conflict:"), s.fitLine(c.Display()))
	}
	matched := 0
	for _, ph := range p.Phases {
		if len(o.Statuses) > 0 && !slices.ContainsFunc(ph.Steps, o.shows) {
			continue
		}
		done := ph.Done()
		status := ph.Status()
		name := fmt.Sprintf("Phase %s: %s", ph.ID, ph.Title)
		if s.Bars {
			fmt.Fprintf(w, "\n%s %s  %s\n", s.paint(phaseColor(status), status.Icon()), s.paint(bold, s.fitLine(name)), s.progressBar(done, len(ph.Steps), 10))
		} else {
			fmt.Fprintf(w, "\n%s %s  (%d/%d)\n", status.Icon(), name, done, len(ph.Steps))
		}
		hidden := 0
		for _, st := range ph.Steps {
			if !o.shows(st) {
				if len(o.Statuses) == 0 {
					hidden++
				}
				continue
			}
			matched++
			fmt.Fprintf(w, "  %s\n", s.styledStep(p, st, 2))
			for _, c := range st.Conflicts {
				fmt.Fprintf(w, "      %s %s\n", s.paint(red, "conflict:"), s.fitLine(c.Display()))
			}
			if (o.All || len(o.Statuses) > 0) && st.Result != "" {
				fmt.Fprintf(w, "      %s %s\n", s.paint(dim, "result:"), indentRest(st.Result, "              "))
			}
		}
		if hidden > 0 {
			fmt.Fprintf(w, "  %s\n", s.paint(dim, fmt.Sprintf("(%d completed hidden; --all shows them)", hidden)))
		}
	}
	if len(p.Phases) == 0 {
		fmt.Fprintln(w, "\nNo steps yet: plangit step add \"...\"")
	}
	if len(o.Statuses) > 0 {
		names := make([]string, len(o.Statuses))
		for i, st := range o.Statuses {
			names[i] = string(st)
		}
		fmt.Fprintf(w, "\n%d of %d steps are %s\n", matched, c.Total, strings.Join(names, " or "))
		return
	}
	if cur := p.Current(); cur != nil {
		fmt.Fprintf(w, "\n%s %s %s\n", s.paint(bold, "Current:"), cur.ID, s.fitLine(oneLine(cur.Text)))
	}
	if ready := p.Ready(); len(ready) > 0 {
		fmt.Fprintf(w, "%s %s %s\n", s.paint(bold, "Next:"), ready[0].ID, s.fitLine(oneLine(ready[0].Text)))
	}
}

// StepDetail writes one step with everything recorded about it and the
// revisions that changed it.
func StepDetail(w io.Writer, p *plan.Plan, st *plan.Step, ph *plan.Phase, events []history.StepEvent, s Style) {
	fmt.Fprintln(w, s.styledStep(p, st, 0))
	field := func(name, value string) {
		if value != "" {
			fmt.Fprintf(w, "  %s %s\n", s.paint(dim, fmt.Sprintf("%-8s", name+":")), indentRest(Clean(value), "           "))
		}
	}
	field("status", string(st.Status))
	field("phase", ph.ID+" "+ph.Title)
	if len(st.Needs) > 0 {
		var needs []string
		for _, id := range st.Needs {
			if n, _, err := p.Step(id); err == nil {
				needs = append(needs, id+" ("+string(n.Status)+")")
			}
		}
		field("needs", strings.Join(needs, ", "))
	}
	field("doing", st.Active)
	field("why", st.Why)
	field("result", st.Result)
	field("reason", st.Reason)
	if st.Auto && st.Status == plan.StepCompleted {
		field("done by", "auto-advance, not the agent's word: step done confirms it, step start takes it back")
	}
	for _, c := range st.Conflicts {
		field("conflict", c.Display())
	}
	if st.Progress.Total > 0 {
		field("progress", st.Progress.String())
	}
	if st.Retries > 0 {
		field("retries", strconv.Itoa(st.Retries))
	}
	if !st.Started.IsZero() {
		field("started", st.Started.UTC().Format(time.RFC3339))
	}
	if !st.Completed.IsZero() {
		field("done", st.Completed.UTC().Format(time.RFC3339))
	}
	if len(events) == 0 {
		fmt.Fprintf(w, "  %s no revision changed it (a hand edit not yet adopted?)\n", s.paint(dim, "history:"))
		return
	}
	fmt.Fprintf(w, "  %s\n", s.paint(dim, "history:"))
	for _, e := range events {
		what := "changed"
		switch {
		case e.From == "" && e.To != "":
			what = "added (" + string(e.To) + ")"
		case e.To == "" && e.From != "":
			what = "removed"
		case e.Status:
			what = string(e.From) + " → " + string(e.To)
		}
		line := fmt.Sprintf("@%-4d %s  %-6s %s", e.N, e.Time.UTC().Format(shortTime), cmp.Or(e.Who, e.Actor), what)
		if e.Summary != "" && !strings.HasSuffix(e.Summary, string(e.From)+" → "+string(e.To)) {
			line += "  — " + oneLine(e.Summary)
		}
		fmt.Fprintf(w, "    %s\n", s.fitLine(line))
	}
}

// Status writes a few lines on where the plan stands.
func Status(w io.Writer, st *plan.State, now time.Time, s Style) {
	p := st.Plan
	c := p.Counts()
	fmt.Fprintln(w, s.paint(bold, p.Title))
	parts := []string{s.paint(planColor(p.Status), string(p.Status)), fmt.Sprintf("%d/%d steps done (%d%%)", c.Done, c.Total, Percent(c.Done, c.Total))}
	if p.Idle() && !p.Complete() {
		parts[0] += " (idle: no step in progress)"
	}
	for _, x := range []struct {
		n    int
		name string
	}{{c.InProgress, "in progress"}, {c.Blocked, "blocked"}, {c.Failed, "failed"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.name))
		}
	}
	fmt.Fprintln(w, strings.Join(parts, " · "))
	if s.Bars {
		fmt.Fprintln(w, s.progressBar(c.Done, c.Total, barWidth(s)))
	}
	if cs := st.Conflicts(); len(cs) > 0 {
		var targets []string
		for _, c := range cs {
			if t := c.Target(); !slices.Contains(targets, t) {
				targets = append(targets, t)
			}
		}
		fmt.Fprintf(w, "%s %s (from a merge; plangit resolve lists them and settles each)\n", s.paint(red, "conflicts:"), strings.Join(targets, ", "))
	}
	if cur := p.Current(); cur != nil {
		fmt.Fprintf(w, "current: %s\n", s.styledStep(p, cur, 9))
	}
	if ready := p.Ready(); len(ready) > 0 {
		fmt.Fprintf(w, "ready:   %s\n", s.styledStep(p, ready[0], 9))
		if len(ready) > 1 {
			fmt.Fprintf(w, "         (+%d more ready)\n", len(ready)-1)
		}
	}
	errs := fmt.Sprintf("errors: %d", len(st.Errors))
	if open := len(st.Errors.Open()); open != len(st.Errors) {
		errs = fmt.Sprintf("errors: %d open, %d resolved", open, len(st.Errors)-open)
	}
	fmt.Fprintf(w, "findings: %d · %s\n", len(st.Findings), errs)
	if len(st.Deliverable) > 0 {
		fmt.Fprintf(w, "deliverable: %s\n", DeliverableLine(st.Deliverable))
	}
	if !p.Updated.IsZero() {
		fmt.Fprintf(w, "updated %s (%s)\n", p.Updated.UTC().Format(time.RFC3339), Ago(now, p.Updated))
	}
	if hint := nextHint(p); hint != "" {
		fmt.Fprintln(w, hint)
	}
}

// nextHint says what to do next when the plan is not simply under way.
func nextHint(p *plan.Plan) string {
	switch p.Status {
	case plan.PlanPending:
		return "the plan awaits approval: plangit approve"
	case plan.PlanPaused:
		return "the plan is paused: plangit resume"
	case plan.PlanRunning:
		if p.Complete() {
			return CompletedLine(p)
		}
	}
	return ""
}

// ImportReport says what an import brought besides the plan — findings
// and errors — and lists what the source held that plangit did not keep.
func ImportReport(w io.Writer, st *plan.State, dropped []interop.Dropped) {
	if len(st.Findings) > 0 || len(st.Errors) > 0 {
		fmt.Fprintf(w, "  with %s and %s\n", Count(len(st.Findings), "finding"), Count(len(st.Errors), "error"))
	}
	if len(dropped) == 0 {
		return
	}
	fmt.Fprintf(w, "not imported (%d):\n", len(dropped))
	for _, d := range dropped {
		fmt.Fprintf(w, "  %s\n", oneLine(d.String()))
	}
}

// DeliverableLine sums up a deliverable in one line: its first line of
// text and its size, and how to read it all.
func DeliverableLine(d []byte) string {
	text := strings.TrimSpace(string(d))
	first, _, _ := strings.Cut(text, "\n")
	first = strings.TrimSpace(strings.TrimLeft(first, "# "))
	lines := strings.Count(text, "\n") + 1
	return fmt.Sprintf("%s (%s; plangit deliverable shows it)", clipLine(first, 80), Count(lines, "line"))
}

// CompletedLine says that a running plan's steps are all done and how to
// record the final result; "" while steps are left.
func CompletedLine(p *plan.Plan) string {
	if !p.Complete() {
		return ""
	}
	c := p.Counts()
	return fmt.Sprintf("Plan completed %d/%d — plangit finish records the result", c.Done, c.Total)
}

// Summary is the progress summary printed on resume: the plan, where it
// stands, and what is next, in a few lines.
func Summary(st *plan.State) string {
	p := st.Plan
	c := p.Counts()
	var b strings.Builder
	fmt.Fprintf(&b, "%s — %s, %d/%d steps done\n", p.Title, p.Status, c.Done, c.Total)
	if p.Goal != "" {
		fmt.Fprintf(&b, "goal: %s\n", oneLine(p.Goal))
	}
	if cur := p.Current(); cur != nil {
		fmt.Fprintf(&b, "current: %s\n", StepLine(p, cur))
	}
	for i, s := range p.Ready() {
		if i == 3 {
			break
		}
		fmt.Fprintf(&b, "next: %s\n", StepLine(p, s))
	}
	for _, s := range p.Steps() {
		if s.Status == plan.StepBlocked || s.Status == plan.StepFailed {
			fmt.Fprintf(&b, "attention: %s\n", StepLine(p, s))
		}
	}
	return b.String()
}

// Ready lists ready steps.
func Ready(w io.Writer, p *plan.Plan, steps []*plan.Step) {
	if len(steps) == 0 {
		fmt.Fprintln(w, "no step is ready")
		return
	}
	for _, s := range steps {
		fmt.Fprintln(w, StepLine(p, s))
	}
}

// Findings writes findings by category.
func Findings(w io.Writer, fs plan.Findings) {
	if len(fs) == 0 {
		fmt.Fprintln(w, "no findings yet: plangit finding add --category insight --title \"...\" \"what you found\"")
		return
	}
	var cat plan.Category
	for _, f := range fs {
		if f.Category != cat {
			cat = f.Category
			fmt.Fprintf(w, "%s:\n", cat)
		}
		fmt.Fprintf(w, "  %s  %s", f.ID, f.Title)
		if f.Source != "" {
			fmt.Fprintf(w, "  (%s)", f.Source)
		}
		fmt.Fprintln(w)
		if f.Content != "" {
			for _, l := range strings.Split(f.Content, "\n") {
				fmt.Fprintf(w, "      %s\n", l)
			}
		}
	}
}

// Errors writes the error log, newest first; empty says what an empty
// log means ("no errors logged" when "").
func Errors(w io.Writer, l plan.ErrorLog, empty string) {
	if len(l) == 0 {
		if empty == "" {
			empty = "no errors logged"
		}
		fmt.Fprintln(w, empty)
		return
	}
	for _, e := range l {
		fmt.Fprintf(w, "#%s %s ×%d", e.ID, e.Tool, e.Count)
		if !e.Last.IsZero() {
			fmt.Fprintf(w, "  last %s", e.Last.UTC().Format(time.RFC3339))
		}
		if e.Step != "" {
			fmt.Fprintf(w, "  step %s", e.Step)
		}
		if e.Resolved {
			w.Write([]byte("  resolved"))
			if !e.ResolvedAt.IsZero() {
				fmt.Fprintf(w, " %s", e.ResolvedAt.UTC().Format(time.RFC3339))
			}
			if e.Resolution != "" {
				fmt.Fprintf(w, ": %s", oneLine(e.Resolution))
			}
		}
		fmt.Fprintf(w, "\n  %s\n", indentRest(e.Message, "  "))
	}
}

// Ago says how long before now t was, compactly: "5m ago".
func Ago(now, t time.Time) string {
	d := now.Sub(t)
	if d < 0 {
		return "in " + plan.FormatDuration(plan.AbsDuration(d))
	}
	if d < time.Second {
		return "just now"
	}
	return plan.FormatDuration(d) + " ago"
}

// Percent is n of total as a whole percentage, rounded to the nearest —
// 2 of 3 is 67% — except that only all of it is 100% and only none of it
// is 0%.
func Percent(n, total int) int {
	if total <= 0 || n <= 0 {
		return 0
	}
	if n >= total {
		return 100
	}
	return min(99, max(1, (n*200+total)/(2*total)))
}

// oneLine flattens text onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// indentRest indents every line of s after the first.
func indentRest(s, indent string) string {
	return strings.ReplaceAll(s, "\n", "\n"+indent)
}

// retries is a step's retry count: "1 retry", "2 retries".
func retries(n int) string {
	if n == 1 {
		return "1 retry"
	}
	return fmt.Sprintf("%d retries", n)
}
