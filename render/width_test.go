package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
)

// TestViewsFitTheWidth: every terminal view, drawn as plangit draws it on
// a terminal 40, 80 and 120 columns wide (laid out for the width, then
// each line fitted by FitLines), keeps every line within the width — long
// step texts, goals, results, findings, error messages and diff lines are
// cut with "…", never wrapped. The goldens show each view at each width.
func TestViewsFitTheWidth(t *testing.T) {
	t.Parallel()
	st := sampleState(t)
	p := st.Plan
	p.Goal = "cache user lookups without changing the public API, so that GetUser answers in microseconds\nand the database sees a tenth of today's reads"
	p.Phases[1].Steps[1].Text = "Use it in GetUser, and in GetUsers, ListUsers and every other path that reads a user from the database"
	p.Phases[0].Steps[0].Result = "3 hot paths, all in GetUser, each reading the whole user row with its preferences and audit fields"
	st.Findings.Add(plan.Finding{Category: plan.CatInsight, Title: "Most reads are of the same hundred users, during the morning batch of report generation",
		Source: "https://metrics.example.com/dashboards/user-service/reads-by-user?from=now-7d", Content: "The top 100 users account for 83% of GetUser calls between 06:00 and 09:00 UTC, when the reports run."}, t0)

	s := recordedSession(t)
	h := readHistory(t, s, 6, "@1")
	revs, d, files, from, to, spans := h.revs, h.diff, h.files, h.from, h.to, h.spans
	blame, err := history.Blame(s)
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(30 * time.Minute)
	rows := []SessionRow{
		{ID: "20261120-100000-3fa9c1", Active: true, Title: "Add caching to UserService and to every other service that reads users", Status: plan.PlanRunning, Done: 3, Total: 8, Revisions: 29, LastChange: t0.Add(29 * time.Minute), Size: 48 << 10},
		{ID: "broken", Problem: "task_plan.md:5:1: steps belong under a phase: add a \"## Phase 1: Name\" heading above them"},
	}

	for _, width := range []int{40, 80, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			style := Style{Bars: true, Width: width}
			views := []struct {
				name string
				draw func(io.Writer)
			}{
				{"show --all", func(w io.Writer) { Plan(w, p, PlanOptions{All: true, Style: style}) }},
				{"status", func(w io.Writer) { Status(w, st, now, style) }},
				{"ready", func(w io.Writer) { Ready(w, p, p.Ready()) }},
				{"findings", func(w io.Writer) { Findings(w, st.Findings) }},
				{"errors", func(w io.Writer) { Errors(w, st.Errors, "") }},
				{"log", func(w io.Writer) { Log(w, revs, style) }},
				{"diff", func(w io.Writer) { Diff(w, d, style) }},
				{"diff --text", func(w io.Writer) { TextDiff(w, from, to, files, style) }},
				{"diff --stat", func(w io.Writer) { Stat(w, from, to, files) }},
				{"timeline --chart", func(w io.Writer) { Timeline(w, spans, now, true, style) }},
				{"blame", func(w io.Writer) { Blame(w, blame, style) }},
				{"sessions", func(w io.Writer) { Sessions(w, rows, now, "/p/.code-agent/plans") }},
			}
			var all bytes.Buffer
			for _, v := range views {
				var b bytes.Buffer
				fw := FitLines(&b, width)
				v.draw(fw)
				if err := fw.Flush(); err != nil {
					t.Fatal(err)
				}
				for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
					if Columns(line) > width {
						t.Errorf("%s: %d columns, wider than %d: %q", v.name, Columns(line), width, line)
					}
				}
				fmt.Fprintf(&all, "$ plangit %s\n%s\n", v.name, b.String())
			}
			repotest.Golden(t, fmt.Sprintf("width_%d.txt", width), all.Bytes())
		})
	}
}

// TestTimelineChartWidth: the chart is drawn from TimelineChartColumns on,
// and not below.
func TestTimelineChartWidth(t *testing.T) {
	t.Parallel()
	n := TimelineChartColumns()
	if layoutTimeline(n).bar < timelineBar || layoutTimeline(n-1).bar != 0 {
		t.Errorf("the chart starts at %d columns: %+v, %+v below", n, layoutTimeline(n), layoutTimeline(n-1))
	}
	if layoutTimeline(0).bar != 30 || layoutTimeline(200).bar != 30 {
		t.Error("the chart is 30 cells when there is room")
	}
}

// TestFitANSI: colour codes take no columns, stay whole, and a cut inside
// a colour is closed.
func TestFitANSI(t *testing.T) {
	t.Parallel()
	red := "\x1b[31m"
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"plain text", 20, "plain text"},
		{"plain text", 6, "plain…"},
		{red + "red" + reset + " text", 8, red + "red" + reset + " text"},
		{red + "red text here" + reset, 6, red + "red t…" + reset},
		{"缓存用户查询", 7, "缓存用…"},
		{"", 5, ""},
	} {
		if got := FitANSI(c.in, c.width); got != c.want {
			t.Errorf("FitANSI(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
	var b bytes.Buffer
	fw := FitLines(&b, 5)
	fmt.Fprint(fw, "abcdefgh\nab")
	fmt.Fprint(fw, "cdefgh\nxy")
	fw.Flush()
	if b.String() != "abcd…\nabcd…\nxy" {
		t.Errorf("FitLines: %q", b.String())
	}
}
