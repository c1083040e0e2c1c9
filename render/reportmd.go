package render

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
)

// The markdown report: the HTML report's content in GitHub-flavoured
// markdown, for a pull request. The graph and the progress chart are
// Mermaid blocks, which GitHub draws; the newest revisions carry their text
// diff in a collapsed <details>, older ones are listed folded, so the
// report of a long session stays within what a comment holds.

// chartPoints is the most revisions the markdown progress chart plots;
// longer histories are sampled evenly, always keeping the last.
const chartPoints = 50

// mdEscaper backslash-escapes what markdown would read as markup in a line
// of plan text.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "|", `\|`, "~", `\~`, "#", `\#`, "\r", "", "\n", "<br>",
)

// md escapes plan text for inline markdown, its control characters shown
// (Clean); line breaks become <br>.
func md(s string) string { return mdEscaper.Replace(Clean(strings.TrimRight(s, "\n"))) }

// fenced wraps text, its control characters shown (Clean), in a code
// fence longer than any backtick run inside it.
func fenced(lang, text string) string {
	text = Clean(text)
	run, longest := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + strings.TrimSuffix(text, "\n") + "\n" + fence + "\n"
}

// MarkdownReport writes the report as GitHub-flavoured markdown.
func MarkdownReport(w io.Writer, r *history.Report) {
	p := r.State.Plan
	c := p.Counts()
	b := &bytes.Buffer{}
	fmt.Fprintf(b, "# %s\n\n", md(p.Title))
	if p.Goal != "" {
		fmt.Fprintf(b, "> %s\n\n", md(p.Goal))
	}
	fmt.Fprintf(b, "**%s** · %d/%d steps done (%d%%) `%s` · session `%s` at `@%d %s` · updated %s\n\n",
		p.Status, c.Done, c.Total, Percent(c.Done, c.Total), Bar(c.Done, c.Total, 20), r.Session, r.Rev.N, r.Rev.Hash[:7], p.Updated.UTC().Format(shortTime))
	if p.Result != "" {
		fmt.Fprintf(b, "**Result:** %s\n\n", md(p.Result))
	}
	if p.Reason != "" {
		fmt.Fprintf(b, "**Reason:** %s\n\n", md(p.Reason))
	}
	if note := CompletedLine(p); note != "" {
		fmt.Fprintf(b, "**%s**\n\n", md(note))
	}

	mdSection(b, "Plan")
	if len(p.Phases) == 0 {
		b.WriteString("No steps yet.\n\n")
	}
	ready := readySet(p)
	for _, ph := range p.Phases {
		fmt.Fprintf(b, "### %s Phase %s: %s (%d/%d)\n\n", ph.Status().Icon(), ph.ID, md(ph.Title), ph.Done(), len(ph.Steps))
		if ph.Notes != "" {
			fmt.Fprintf(b, "> %s\n\n", md(ph.Notes))
		}
		for _, s := range ph.Steps {
			b.WriteString(mdStep(p, s, ready[s.ID]))
		}
		if len(ph.Steps) > 0 {
			b.WriteString("\n")
		}
	}

	if d := r.State.Deliverable; len(d) > 0 {
		mdSection(b, "Deliverable")
		for _, line := range strings.Split(strings.TrimRight(string(d), "\n"), "\n") {
			b.WriteString(strings.TrimRight("> "+line, " ") + "\n")
		}
	}

	mdSection(b, "Dependencies")
	var g strings.Builder
	Mermaid(&g, p)
	b.WriteString(fenced("mermaid", g.String()))
	mdSection(b, "Progress over time")
	b.WriteString(fenced("mermaid", mermaidProgress(r.Revisions)))

	if len(r.Agents) > 0 {
		mdSection(b, "Agents")
		b.WriteString("| agent | revisions | last change | done | holds |\n|---|---:|---|---|---|\n")
		for _, a := range r.Agents {
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s |\n", md(a.Name), a.Revisions, reportTime(a.Last), md(agentDone(a)), md(agentHeld(a)))
		}
	}

	mdSection(b, "History ("+Count(len(r.Revisions), "revision")+")")
	older := len(r.Revisions) - recentRevisions
	for i := len(r.Revisions) - 1; i >= 0; i-- {
		rv := r.Revisions[i]
		if i == older-1 {
			fmt.Fprintf(b, "\n<details><summary>%s, without text diffs</summary>\n\n", Count(older, "older revision"))
		}
		fmt.Fprintf(b, "- **@%d** `%s` %s · %s · %s (%d/%d)\n", rv.N, rv.Hash[:7], rv.Time.UTC().Format(shortTime), md(rv.Who()), md(rv.Summary), rv.Done, rv.Total)
		if rv.Merge != nil {
			for _, line := range mergeDetail(rv.Merge) {
				fmt.Fprintf(b, "  - %s\n", md(strings.TrimSpace(line)))
			}
		}
		for _, ch := range revisionChanges(rv) {
			fmt.Fprintf(b, "  - %s\n", md(ch.Detail))
		}
		if i >= older && len(rv.Files) > 0 {
			var d strings.Builder
			for _, f := range rv.Files {
				d.WriteString(f.Unified)
			}
			b.WriteString("\n  <details><summary>text diff</summary>\n\n")
			for _, line := range strings.SplitAfter(fenced("diff", d.String()), "\n") {
				if line != "" {
					b.WriteString("  " + line)
				}
			}
			b.WriteString("\n  </details>\n\n")
		}
	}
	if older > 0 {
		b.WriteString("\n</details>\n")
	}

	mdSection(b, "Findings")
	if len(r.State.Findings) == 0 {
		b.WriteString("No findings recorded.\n")
	}
	for _, cat := range plan.Categories {
		group := r.State.Findings.ByCategory(cat)
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(b, "### %s\n\n", md(string(cat)))
		for _, f := range group {
			var src []string
			if f.Source != "" {
				src = append(src, "source: "+md(f.Source))
			}
			if f.Step != "" {
				src = append(src, "step "+f.Step)
			}
			fmt.Fprintf(b, "- **%s**", md(f.Title))
			if len(src) > 0 {
				fmt.Fprintf(b, " (%s)", strings.Join(src, ", "))
			}
			if f.Content != "" {
				fmt.Fprintf(b, "<br>%s", md(f.Content))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}

	mdSection(b, "Errors")
	if len(r.State.Errors) == 0 {
		b.WriteString("No errors logged.\n")
	} else {
		b.WriteString("| id | tool | count | first | last | step | state | message |\n|---|---|---:|---|---|---|---|---|\n")
		for _, e := range r.State.Errors {
			fmt.Fprintf(b, "| #%s | %s | ×%d | %s | %s | %s | %s | %s |\n", e.ID, md(e.Tool), e.Count, reportTime(e.First), reportTime(e.Last), md(e.Step), md(errorState(e)), md(e.Message))
		}
	}
	fmt.Fprintf(b, "\n---\n_Generated by plangit on %s from `.code-agent/plans/%s`._\n", r.Generated.UTC().Format(time.RFC3339), r.Session)
	w.Write(b.Bytes())
}

// mdSection starts a section after exactly one blank line.
func mdSection(b *bytes.Buffer, title string) {
	b.Truncate(len(bytes.TrimRight(b.Bytes(), "\n")))
	fmt.Fprintf(b, "\n\n## %s\n\n", title)
}

// mdStep is one step as a task-list line, its details below it; ready
// marks a step ready to start.
func mdStep(p *plan.Plan, s *plan.Step, ready bool) string {
	box := " "
	if s.Status.Resolved() {
		box = "x"
	}
	var tags []string
	if s.Status != plan.StepPending && s.Status != plan.StepCompleted {
		tags = append(tags, strings.ReplaceAll(string(s.Status), "_", " "))
	}
	if ready {
		tags = append(tags, "ready")
	} else if w := p.WaitsFor(s); w != nil && s.Status == plan.StepPending && len(p.OpenNeeds(s)) == 0 {
		tags = append(tags, "waits for phase "+w.ID)
	}
	if len(s.Needs) > 0 {
		tags = append(tags, "needs "+strings.Join(s.Needs, ", "))
	}
	if s.Progress.Total > 0 {
		tags = append(tags, "progress "+s.Progress.String())
	}
	if s.Retries > 0 {
		tags = append(tags, retries(s.Retries))
	}
	line := fmt.Sprintf("- [%s] %s **%s** %s", box, s.Status.Icon(), s.ID, md(s.Text))
	if s.Status == plan.StepSkipped {
		line = fmt.Sprintf("- [%s] %s **%s** ~~%s~~", box, s.Status.Icon(), s.ID, md(s.Text))
	}
	if len(tags) > 0 {
		line += " · _" + strings.Join(tags, " · ") + "_"
	}
	line += "\n"
	for _, d := range [][2]string{{"why", s.Why}, {"result", s.Result}, {"reason", s.Reason}} {
		if d[1] != "" {
			line += fmt.Sprintf("  - %s: %s\n", d[0], md(d[1]))
		}
	}
	return line
}

// mermaidProgress is a Mermaid xychart of steps done and steps in the plan,
// sampled to at most chartPoints revisions.
func mermaidProgress(revs []history.Revision) string {
	var pick []history.Revision
	if n := len(revs); n <= chartPoints {
		pick = revs
	} else {
		for i := range chartPoints {
			pick = append(pick, revs[i*(n-1)/(chartPoints-1)])
		}
	}
	most := 1
	var xs, done, total []string
	for _, r := range pick {
		most = max(most, r.Total)
		xs = append(xs, fmt.Sprintf("\"@%d\"", r.N))
		done = append(done, fmt.Sprint(r.Done))
		total = append(total, fmt.Sprint(r.Total))
	}
	var b strings.Builder
	b.WriteString("xychart-beta\n  title \"Steps done (lower line) and steps in the plan, by revision\"\n")
	fmt.Fprintf(&b, "  x-axis [%s]\n  y-axis \"steps\" 0 --> %d\n", strings.Join(xs, ", "), most)
	fmt.Fprintf(&b, "  line [%s]\n  line [%s]\n", strings.Join(total, ", "), strings.Join(done, ", "))
	return b.String()
}
