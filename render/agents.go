package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
)

// Agents writes each agent of a session: when it last changed the plan,
// how many revisions name it, the steps it completed and the claims it
// holds, live and expired.
func Agents(w io.Writer, session string, agents []history.Agent, now time.Time) {
	if len(agents) == 0 {
		fmt.Fprintf(w, "no agent is named in session %s's history or claims; a change names one with --agent or PLANGIT_AGENT\n", session)
		return
	}
	for _, a := range agents {
		last := "no change of its own"
		if !a.Last.IsZero() {
			last = fmt.Sprintf("last change %s (@%d)", Ago(now, a.Last), a.LastN)
		}
		fmt.Fprintln(w, Clean(fmt.Sprintf("%s  %s · %s · %d done · %d held", a.Name, last, Count(a.Revisions, "revision"), len(a.Done), live(a.Held))))
		if len(a.Done) > 0 {
			steps := make([]string, len(a.Done))
			for i, d := range a.Done {
				steps[i] = d.Step + " " + plan.Clip(oneLine(d.Text))
			}
			fmt.Fprintln(w, Clean("  done: "+strings.Join(steps, "; ")))
		}
		for _, c := range a.Held {
			if c.Live {
				fmt.Fprintln(w, Clean(fmt.Sprintf("  holds: step %s since %s, lease %s left (token %d) — %s", c.Step, c.Since.UTC().Format(shortTime), plan.FormatDuration(c.Until.Sub(now)), c.Token, plan.Clip(oneLine(c.Text)))))
			} else {
				fmt.Fprintln(w, Clean(fmt.Sprintf("  expired: step %s, lease ended %s — %s", c.Step, Ago(now, c.Until), plan.Clip(oneLine(c.Text)))))
			}
		}
	}
}

// live counts the claims that are live.
func live(held []history.AgentClaim) int {
	n := 0
	for _, c := range held {
		if c.Live {
			n++
		}
	}
	return n
}

// The agent lanes of the HTML report: one row per agent along a time axis
// from the first revision to the report's, each agent's runs of steps
// drawn as bars (coloured by how they ended) and its revisions as ticks.
const (
	laneW     = 1032
	laneLabel = 170 // the agents' names
	laneRight = 16
	laneH     = 28
	laneTop   = 10
	laneAxis  = 30 // the times under the lanes
	laneName  = 24 // characters of a name shown; the whole name is its title
)

// laneFill is a run's colours, by how it ended: fill, stroke.
var laneFill = map[plan.StepStatus][2]string{
	plan.StepCompleted: {"#dafbe1", "#1a7f37"},
	plan.StepFailed:    {"#ffebe9", "#cf222e"},
	plan.StepBlocked:   {"#ffebe9", "#cf222e"},
	"":                 {"#fff8c5", "#9a6700"}, // going on, or handed over
}

// AgentLanesSVG writes the agents' lanes as inline SVG over the time axis
// of revs (oldest first); a run still going on reaches the axis' end.
func AgentLanesSVG(w io.Writer, agents []history.Agent, revs []history.Revision) {
	if len(agents) == 0 || len(revs) == 0 {
		return
	}
	first, last := revs[0].Time, revs[0].Time
	for _, r := range revs {
		if r.Time.Before(first) {
			first = r.Time
		}
		if r.Time.After(last) {
			last = r.Time
		}
	}
	plotW := float64(laneW - laneLabel - laneRight)
	span := last.Sub(first)
	xAt := func(t time.Time) float64 {
		if span <= 0 {
			return float64(laneLabel) + plotW/2
		}
		return float64(laneLabel) + plotW*float64(t.Sub(first))/float64(span)
	}
	height := laneTop + len(agents)*laneH + laneAxis
	fmt.Fprintf(w, "<svg id=\"agent-lanes\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"each agent's steps and revisions over time\">\n", laneW, height, laneW, height)
	ticks := map[string][]history.Revision{}
	for _, r := range revs {
		if r.Agent != "" {
			ticks[r.Agent] = append(ticks[r.Agent], r)
		}
	}
	for i, a := range agents {
		y := laneTop + i*laneH
		fmt.Fprintf(w, "<g class=\"lane\" id=\"lane-%d\" data-agent=\"%s\"><title>%s</title>", i+1, h(a.Name), h(a.Name))
		fmt.Fprintf(w, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", laneLabel, y+2, int(plotW), laneH-4, laneShade(i))
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#1f2328\" text-anchor=\"end\">%s</text>", laneLabel-8, y+laneH/2+4, h(cutLabel(a.Name, laneName)))
		for _, sp := range a.Spans {
			end := sp.To
			if sp.Open() {
				end = last
			}
			x1, x2 := xAt(sp.From), xAt(end)
			c := laneFill[sp.End]
			if _, ok := laneFill[sp.End]; !ok {
				c = [2]string{"#eaeef2", "#8c959f"} // skipped, back to pending, removed
			}
			fmt.Fprintf(w, "<rect class=\"run\" data-step=\"%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" rx=\"3\" fill=\"%s\" stroke=\"%s\"><title>%s</title></rect>",
				h(sp.Step), x1, y+6, max(3, x2-x1), laneH-12, c[0], c[1], h(runTitle(sp)))
		}
		for _, r := range ticks[a.Name] {
			x := xAt(r.Time)
			fmt.Fprintf(w, "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#0550ae\" stroke-width=\"1.5\"><title>@%d %s</title></line>",
				x, y+3, x, y+laneH-3, r.N, h(oneLine(r.Summary)))
		}
		fmt.Fprintf(w, "</g>\n")
	}
	axis := laneTop + len(agents)*laneH + 18
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#59636e\">%s</text><text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#59636e\" text-anchor=\"end\">%s</text>\n",
		laneLabel, axis, first.UTC().Format(shortTime), laneW-laneRight, axis, last.UTC().Format(shortTime))
	fmt.Fprintf(w, "</svg>\n")
}

// laneShade alternates the lanes' backgrounds.
func laneShade(i int) string {
	if i%2 == 0 {
		return "#f6f8fa"
	}
	return "#ffffff"
}

// runTitle says what a run was: "step 3: Build · 10:01 → 10:05, completed".
func runTitle(sp history.AgentSpan) string {
	t := "step " + sp.Step + ": " + oneLine(sp.Text) + " · " + sp.From.UTC().Format(shortTime) + " → "
	switch {
	case sp.Open():
		return t + "going on"
	case sp.Handed != "":
		return t + sp.To.UTC().Format(shortTime) + ", taken over by " + sp.Handed
	case sp.End == "":
		return t + sp.To.UTC().Format(shortTime)
	}
	return t + sp.To.UTC().Format(shortTime) + ", " + strings.ReplaceAll(string(sp.End), "_", " ")
}
