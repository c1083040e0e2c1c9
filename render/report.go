package render

import (
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
)

// The HTML report: one self-contained file — inline CSS, inline SVG, no
// script, no font or image fetched from anywhere — that opens in any
// browser, offline. Long lists are collapsed with <details>, so a session
// of a thousand revisions still opens quickly.

// recentRevisions is how many revisions the report shows open; older ones
// are folded under one <details>.
const recentRevisions = 50

const reportCSS = `
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa;--green:#1a7f37;--yellow:#9a6700;--red:#cf222e}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1100px;margin:0 auto;padding:24px 20px 60px}
header h1{margin:0 0 4px;font-size:28px}
.goal{color:var(--muted);margin:0 0 12px}
.meta{display:flex;flex-wrap:wrap;gap:8px 18px;align-items:center;color:var(--muted);font-size:13px}
.pill{display:inline-block;padding:1px 10px;border-radius:999px;font-weight:600;font-size:12px;border:1px solid var(--line)}
.st-running,.st-in_progress{background:#fff8c5;color:#7d4e00;border-color:#d4a72c}
.st-completed{background:#dafbe1;color:#116329;border-color:#4ac26b}
.st-failed,.st-blocked{background:#ffebe9;color:#a40e26;border-color:#ff8182}
.st-paused,.st-pending,.st-skipped{background:#eaeef2;color:#424a53}
.bar{display:inline-block;width:220px;height:10px;border-radius:5px;background:#eaeef2;overflow:hidden;vertical-align:middle}
.bar>span{display:block;height:100%;background:var(--green)}
.bar.small{width:90px;height:7px}
nav{margin:18px 0;padding:8px 0;border-top:1px solid var(--line);border-bottom:1px solid var(--line);font-size:14px}
nav a{margin-right:16px;color:#0969da;text-decoration:none}
section{margin-top:32px}
h2{font-size:20px;border-bottom:1px solid var(--line);padding-bottom:6px}
.phase{border:1px solid var(--line);border-radius:8px;margin:14px 0;overflow:hidden}
.phase h3{margin:0;padding:8px 14px;background:var(--soft);font-size:15px;display:flex;gap:10px;align-items:center}
.phase h3 .count{margin-left:auto;color:var(--muted);font-weight:400;font-size:13px}
.notes{margin:0;padding:8px 14px;color:var(--muted);white-space:pre-wrap;border-bottom:1px solid var(--line)}
ul.steps{list-style:none;margin:0;padding:0}
ul.steps li{padding:7px 14px;border-top:1px solid var(--line)}
ul.steps li:first-child{border-top:0}
.icon{display:inline-block;width:1.3em;text-align:center}
.s-completed .icon{color:var(--green)} .s-in_progress .icon{color:var(--yellow)} .s-failed .icon,.s-blocked .icon{color:var(--red)} .s-skipped{color:var(--muted)}
.sid{color:var(--muted);font-variant-numeric:tabular-nums;margin-right:6px}
.s-completed .stext,.s-skipped .stext{color:var(--muted)}
.tag{font-size:12px;color:var(--muted);margin-left:8px}
.detail{margin:3px 0 0 2.1em;font-size:13px;color:var(--muted);white-space:pre-wrap}
.detail b{color:var(--fg);font-weight:600}
.scroll{overflow-x:auto;border:1px solid var(--line);border-radius:8px;background:var(--soft)}
svg text{font-family:inherit}
.scroll svg{display:block;margin:0 auto}
ol.revs{list-style:none;padding:0;margin:0}
ol.revs>li{border-top:1px solid var(--line);padding:8px 0}
.rhead{display:flex;gap:12px;align-items:baseline;flex-wrap:wrap}
.rhead code{color:#0969da}
.rn{color:var(--muted);font-variant-numeric:tabular-nums;min-width:3.5em}
.actor{font-size:12px;padding:0 6px;border-radius:4px;background:#ddf4ff;color:#0550ae}
.actor-user{background:#fbefff;color:#8250df} .actor-hook{background:#eaeef2;color:#424a53}
.merge{margin:4px 0 4px 12px;padding-left:8px;border-left:3px solid #d0d7de;font-size:13px} .merge p{margin:4px 0}
.when{color:var(--muted);font-size:13px;margin-left:auto}
ul.changes{margin:4px 0 0 4.5em;padding:0;list-style:none;font-size:13px}
ul.changes .add{color:var(--green)} ul.changes .del{color:var(--red)} ul.changes .mod{color:var(--yellow)}
details{margin:4px 0 0 4.5em} details summary{cursor:pointer;color:#0969da;font-size:13px}
details.older{margin-left:0} details.older>summary{font-size:14px;padding:8px 0}
pre.diff{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--soft);padding:8px;border-radius:6px;overflow-x:auto}
pre.diff .a{color:var(--green)} pre.diff .d{color:var(--red)} pre.diff .h{color:#8250df}
.cat{font-size:13px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin:18px 0 4px}
.finding{border:1px solid var(--line);border-radius:8px;padding:8px 14px;margin:8px 0}
.finding h4{margin:0;font-size:15px} .finding .src{font-size:12px;color:var(--muted)}
.finding .body{white-space:pre-wrap;margin-top:4px;font-size:14px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;border-bottom:1px solid var(--line);padding:6px 8px;vertical-align:top}
td.msg{white-space:pre-wrap;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
footer{margin-top:40px;color:var(--muted);font-size:12px}
.tag.ready{color:var(--green);font-weight:600}
pre.deliverable{white-space:pre-wrap;font:14px/1.5 inherit;background:var(--soft);border:1px solid var(--line);border-radius:8px;padding:12px 14px}
tr.resolved td{color:var(--muted)}
details.code{margin:4px 0 0 2.1em} .codemeta{font-size:13px;color:var(--muted);margin:4px 0}
`

// reportCSP forbids the page any script, any fetch and any style but its
// own inline one: were a text from the project's files (a file name, a
// line of a diff) ever to reach the page unescaped, it could not run.
const reportCSP = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`

// h escapes text for HTML. A control character is shown as Clean shows
// it; a bidirectional control is kept, as a character reference.
func h(s string) string { return clean(html.EscapeString(s), 0, false, true) }

func htmlBar(done, total int, class string) string {
	return fmt.Sprintf(`<span class="bar%s" title="%d of %d"><span style="width:%d%%"></span></span>`, class, done, total, Percent(done, total))
}

// HTMLReport writes the report as one self-contained HTML page.
func HTMLReport(w io.Writer, r *history.Report) {
	p := r.State.Plan
	c := p.Counts()
	b := &strings.Builder{}
	fmt.Fprintf(b, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n%s\n", reportCSP)
	fmt.Fprintf(b, "<title>%s — plangit report</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n", h(p.Title), reportCSS)

	fmt.Fprintf(b, "<header>\n<h1 id=\"title\">%s</h1>\n", h(p.Title))
	if p.Goal != "" {
		fmt.Fprintf(b, "<p class=\"goal\">%s</p>\n", h(p.Goal))
	}
	fmt.Fprintf(b, "<div class=\"meta\"><span class=\"pill st-%s\">%s</span> %s <span><b>%d/%d</b> steps done · %d%%</span>", p.Status, p.Status, htmlBar(c.Done, c.Total, ""), c.Done, c.Total, Percent(c.Done, c.Total))
	fmt.Fprintf(b, "<span>session <code>%s</code> at <code>@%d %s</code></span><span>updated %s</span></div>\n", h(r.Session), r.Rev.N, r.Rev.Hash[:7], p.Updated.UTC().Format(time.RFC3339))
	if p.Result != "" {
		fmt.Fprintf(b, "<p><b>Result:</b> %s</p>\n", h(p.Result))
	}
	if p.Reason != "" {
		fmt.Fprintf(b, "<p><b>Reason:</b> %s</p>\n", h(p.Reason))
	}
	if note := CompletedLine(p); note != "" {
		fmt.Fprintf(b, "<p><b>%s</b></p>\n", h(note))
	}
	deliverable := ""
	if len(r.State.Deliverable) > 0 {
		deliverable = "<a href=\"#deliverable\">Deliverable</a>"
	}
	agents := ""
	if len(r.Agents) > 0 {
		agents = fmt.Sprintf("<a href=\"#agents\">Agents (%d)</a>", len(r.Agents))
	}
	fmt.Fprintf(b, "</header>\n<nav><a href=\"#plan\">Plan</a>%s<a href=\"#graph\">Dependencies</a><a href=\"#progress\">Progress</a>%s<a href=\"#history\">History (%d)</a><a href=\"#findings\">Findings (%d)</a><a href=\"#errors\">Errors (%d)</a></nav>\n",
		deliverable, agents, len(r.Revisions), len(r.State.Findings), len(r.State.Errors))

	reportPlan(b, p, r)
	if len(r.State.Deliverable) > 0 {
		fmt.Fprintf(b, "<section id=\"deliverable\">\n<h2>Deliverable</h2>\n<pre class=\"deliverable\">%s</pre>\n</section>\n", h(string(r.State.Deliverable)))
	}
	fmt.Fprintf(b, "<section id=\"graph\">\n<h2>Dependencies</h2>\n<div class=\"scroll\">\n")
	GraphSVG(b, p)
	fmt.Fprintf(b, "</div>\n</section>\n")
	fmt.Fprintf(b, "<section id=\"progress\">\n<h2>Progress over time</h2>\n<div class=\"scroll\">\n")
	ProgressSVG(b, r.Revisions)
	fmt.Fprintf(b, "</div>\n</section>\n")
	reportAgents(b, r)
	reportHistory(b, r.Revisions)
	reportFindings(b, r.State.Findings)
	reportErrors(b, r.State.Errors)
	fmt.Fprintf(b, "<footer>Generated by plangit on %s from <code>.code-agent/plans/%s</code>, a git repository: <code>git log</code> there shows the same history.</footer>\n</main>\n</body>\n</html>\n",
		r.Generated.UTC().Format(time.RFC3339), h(r.Session))
	io.WriteString(w, b.String())
}

func reportPlan(b *strings.Builder, p *plan.Plan, r *history.Report) {
	fmt.Fprintf(b, "<section id=\"plan\">\n<h2>Plan</h2>\n")
	if r.CodeMissing {
		fmt.Fprintf(b, "<p class=\"notes\">The session's code snapshots are not here: plangit fetch brings them, and the steps' code diffs with them.</p>\n")
	}
	if len(p.Phases) == 0 {
		fmt.Fprintf(b, "<p>No steps yet.</p>\n")
	}
	ready := readySet(p)
	for _, ph := range p.Phases {
		done := ph.Done()
		st := ph.Status()
		fmt.Fprintf(b, "<div class=\"phase\" id=\"phase-%s\">\n<h3><span class=\"icon\">%s</span> Phase %s: %s <span class=\"count\">%s %d/%d</span></h3>\n",
			h(ph.ID), st.Icon(), h(ph.ID), h(ph.Title), htmlBar(done, len(ph.Steps), " small"), done, len(ph.Steps))
		if ph.Notes != "" {
			fmt.Fprintf(b, "<p class=\"notes\">%s</p>\n", h(ph.Notes))
		}
		fmt.Fprintf(b, "<ul class=\"steps\">\n")
		for _, s := range ph.Steps {
			readyTag := ""
			if ready[s.ID] {
				readyTag = "<span class=\"tag ready\">ready</span>"
			} else if w := p.WaitsFor(s); w != nil && s.Status == plan.StepPending && len(p.OpenNeeds(s)) == 0 {
				readyTag = "<span class=\"tag\">waits for phase " + h(w.ID) + "</span>"
			}
			fmt.Fprintf(b, "<li class=\"step s-%s\" id=\"step-%s\"><span class=\"icon\" title=\"%s\">%s</span><span class=\"sid\">%s</span><span class=\"stext\">%s</span>",
				s.Status, h(s.ID), s.Status, s.Status.Icon(), h(s.ID), h(s.Text))
			if s.Status != plan.StepPending && s.Status != plan.StepCompleted {
				fmt.Fprintf(b, "<span class=\"tag\">%s</span>", strings.ReplaceAll(string(s.Status), "_", " "))
			}
			b.WriteString(readyTag)
			if len(s.Needs) > 0 {
				fmt.Fprintf(b, "<span class=\"tag\">needs %s</span>", h(strings.Join(s.Needs, ", ")))
			}
			if s.Progress.Total > 0 {
				fmt.Fprintf(b, "<span class=\"tag\">%s %s</span>", htmlBar(s.Progress.Current, s.Progress.Total, " small"), s.Progress)
			}
			if s.Retries > 0 {
				fmt.Fprintf(b, "<span class=\"tag\">%s</span>", retries(s.Retries))
			}
			if s.Auto && s.Status == plan.StepCompleted {
				b.WriteString("<span class=\"tag\">auto-advance: unconfirmed</span>")
			}
			for _, d := range [][2]string{{"why", s.Why}, {"result", s.Result}, {"reason", s.Reason}} {
				if d[1] != "" {
					fmt.Fprintf(b, "<div class=\"detail\"><b>%s:</b> %s</div>", d[0], h(d[1]))
				}
			}
			if !s.Started.IsZero() || !s.Completed.IsZero() {
				t := ""
				if !s.Started.IsZero() {
					t = "started " + s.Started.UTC().Format(shortTime)
				}
				if !s.Completed.IsZero() {
					t += " · completed " + s.Completed.UTC().Format(shortTime)
				}
				fmt.Fprintf(b, "<div class=\"detail\">%s</div>", strings.TrimPrefix(t, " · "))
			}
			if d := r.Code[s.ID]; d != nil {
				reportCode(b, d)
			}
			fmt.Fprintf(b, "</li>\n")
		}
		fmt.Fprintf(b, "</ul>\n</div>\n")
	}
	fmt.Fprintf(b, "</section>\n")
}

// reportAgents is the agents' section, when the history names any: their
// lanes along the time axis, then a row each.
func reportAgents(b *strings.Builder, r *history.Report) {
	if len(r.Agents) == 0 {
		return
	}
	fmt.Fprintf(b, "<section id=\"agents\">\n<h2>Agents</h2>\n<div class=\"scroll\">\n")
	AgentLanesSVG(b, r.Agents, r.Revisions)
	fmt.Fprintf(b, "</div>\n<table class=\"agents\"><thead><tr><th>agent</th><th>revisions</th><th>last change</th><th>done</th><th>holds</th></tr></thead><tbody>\n")
	for _, a := range r.Agents {
		fmt.Fprintf(b, "<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", h(a.Name), a.Revisions, reportTime(a.Last), h(agentDone(a)), h(agentHeld(a)))
	}
	fmt.Fprintf(b, "</tbody></table>\n</section>\n")
}

// agentDone lists the steps an agent completed: "1, 2"; "—" for none.
func agentDone(a history.Agent) string {
	ids := make([]string, len(a.Done))
	for i, d := range a.Done {
		ids[i] = d.Step
	}
	return listOr(ids)
}

// agentHeld lists an agent's claims: "3, 4 (expired)"; "—" for none.
func agentHeld(a history.Agent) string {
	ids := make([]string, len(a.Held))
	for i, c := range a.Held {
		ids[i] = c.Step
		if !c.Live {
			ids[i] += " (expired)"
		}
	}
	return listOr(ids)
}

func listOr(items []string) string {
	if len(items) == 0 {
		return "—"
	}
	return strings.Join(items, ", ")
}

func actorClass(actor string) string {
	switch actor {
	case "user", "hook":
		return " actor-" + actor
	}
	return ""
}

func reportHistory(b *strings.Builder, revs []history.Revision) {
	fmt.Fprintf(b, "<section id=\"history\">\n<h2>History</h2>\n<ol class=\"revs\">\n")
	older := len(revs) - recentRevisions
	for i := len(revs) - 1; i >= 0; i-- {
		if i == older-1 {
			fmt.Fprintf(b, "</ol>\n<details class=\"older\"><summary>Show %d older revisions</summary>\n<ol class=\"revs\">\n", older)
		}
		reportRevision(b, revs[i])
	}
	fmt.Fprintf(b, "</ol>\n")
	if older > 0 {
		fmt.Fprintf(b, "</details>\n")
	}
	fmt.Fprintf(b, "</section>\n")
}

func reportRevision(b *strings.Builder, r history.Revision) {
	fmt.Fprintf(b, "<li class=\"rev\" id=\"rev-%d\"><div class=\"rhead\"><span class=\"rn\">@%d</span><code>%s</code><span class=\"actor%s\">%s</span><span>%s</span><span class=\"when\">%s · %d/%d</span></div>\n",
		r.N, r.N, r.Hash[:7], actorClass(r.Actor), h(r.Who()), h(r.Summary), r.Time.UTC().Format(shortTime), r.Done, r.Total)
	if r.Merge != nil {
		// A merge: what each side brought and who made it, then what it
		// renumbered, kept, and left in conflict.
		fmt.Fprintf(b, "<div class=\"merge\">")
		for _, side := range r.Merge.Sides {
			fmt.Fprintf(b, "<p>%s</p><ul class=\"changes\">", h(side.Heading))
			for _, c := range side.Changes {
				class := "add"
				if side.Dropped {
					class = "del"
				}
				fmt.Fprintf(b, "<li class=\"%s\">%s</li>", class, h(c))
			}
			fmt.Fprintf(b, "</ul>")
		}
		for _, group := range []struct {
			name  string
			items []string
		}{{"renumbered", r.Merge.Renumbered}, {"kept", r.Merge.Kept}, {"conflict", r.Merge.Conflicts}} {
			for _, item := range group.items {
				fmt.Fprintf(b, "<p class=\"mod\">%s %s</p>", group.name, h(item))
			}
		}
		fmt.Fprintf(b, "</div>\n")
	}
	if changes := revisionChanges(r); len(changes) > 0 {
		fmt.Fprintf(b, "<ul class=\"changes\">")
		for _, c := range changes {
			class, mark := "mod", "~"
			switch c.Action {
			case "added":
				class, mark = "add", "+"
			case "removed":
				class, mark = "del", "−"
			}
			fmt.Fprintf(b, "<li class=\"%s\">%s %s</li>", class, mark, h(c.Detail))
		}
		fmt.Fprintf(b, "</ul>\n")
	}
	if len(r.Files) > 0 {
		fmt.Fprintf(b, "<details><summary>text diff</summary><pre class=\"diff\">")
		for _, f := range r.Files {
			diffLines(b, f.Unified)
		}
		fmt.Fprintf(b, "</pre></details>\n")
	}
	fmt.Fprintf(b, "</li>\n")
}

func reportFindings(b *strings.Builder, fs plan.Findings) {
	fmt.Fprintf(b, "<section id=\"findings\">\n<h2>Findings</h2>\n")
	if len(fs) == 0 {
		fmt.Fprintf(b, "<p>No findings recorded.</p>\n")
	}
	for _, cat := range plan.Categories {
		group := fs.ByCategory(cat)
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(b, "<div class=\"cat\">%s</div>\n", h(string(cat)))
		for _, f := range group {
			fmt.Fprintf(b, "<article class=\"finding\" id=\"finding-%s\"><h4>%s</h4>", h(f.ID), h(f.Title))
			var src []string
			if f.Source != "" {
				src = append(src, "source: "+f.Source)
			}
			if f.Step != "" {
				src = append(src, "step "+f.Step)
			}
			if !f.Time.IsZero() {
				src = append(src, f.Time.UTC().Format(shortTime))
			}
			if len(src) > 0 {
				fmt.Fprintf(b, "<div class=\"src\">%s</div>", h(strings.Join(src, " · ")))
			}
			if f.Content != "" {
				fmt.Fprintf(b, "<div class=\"body\">%s</div>", h(f.Content))
			}
			fmt.Fprintf(b, "</article>\n")
		}
	}
	fmt.Fprintf(b, "</section>\n")
}

func reportErrors(b *strings.Builder, l plan.ErrorLog) {
	fmt.Fprintf(b, "<section id=\"errors\">\n<h2>Errors</h2>\n")
	if len(l) == 0 {
		fmt.Fprintf(b, "<p>No errors logged.</p>\n</section>\n")
		return
	}
	fmt.Fprintf(b, "<table><thead><tr><th>id</th><th>tool</th><th>count</th><th>first</th><th>last</th><th>step</th><th>state</th><th>message</th></tr></thead><tbody>\n")
	for _, e := range l {
		class := ""
		if e.Resolved {
			class = " class=\"resolved\""
		}
		fmt.Fprintf(b, "<tr%s><td>#%s</td><td>%s</td><td>×%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"msg\">%s</td></tr>\n",
			class, h(e.ID), h(e.Tool), e.Count, reportTime(e.First), reportTime(e.Last), h(e.Step), h(errorState(e)), h(e.Message))
	}
	fmt.Fprintf(b, "</tbody></table>\n</section>\n")
}

// reportTime is a time in a report table, "—" when there is none.
func reportTime(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format(shortTime)
}

// errorState says whether an error is open or resolved, when and how.
func errorState(e *plan.ErrorRecord) string {
	if !e.Resolved {
		return "open"
	}
	s := "resolved"
	if !e.ResolvedAt.IsZero() {
		s += " " + e.ResolvedAt.UTC().Format(shortTime)
	}
	if e.Resolution != "" {
		s += ": " + oneLine(e.Resolution)
	}
	return s
}

// revisionChanges are a revision's semantic changes, less the one its
// summary line already says.
func revisionChanges(r history.Revision) []history.Change {
	var out []history.Change
	for _, c := range r.Changes {
		if c.Detail != r.Summary {
			out = append(out, c)
		}
	}
	return out
}

// maxReportCode is how many bytes of unified diff the report shows of
// one step; the rest is left to plangit diff --code.
const maxReportCode = 256 << 10

// reportCode is a step's code diff, folded: the summary opens it.
func reportCode(b *strings.Builder, d *history.CodeDiff) {
	fmt.Fprintf(b, "<details class=\"code\" id=\"code-%s\"><summary>code: %s, +%d −%d (@%d → @%d)</summary>",
		h(d.Step), Count(len(d.Files), "file"), d.Added, d.Deleted, d.From.N, d.To.N)
	var meta []string
	if d.Open {
		meta = append(meta, "in progress: up to the newest snapshot")
	}
	if d.Agent != "" {
		meta = append(meta, "started by "+d.Agent)
	}
	if len(d.Shared) > 0 {
		meta = append(meta, "shared: "+sharedList(d)+" ran at the same time, and the snapshots cannot tell whose hand changed a file")
	}
	for _, l := range d.Large {
		meta = append(meta, fmt.Sprintf("left out for its size: %s (%s)", l.Path, Bytes(l.Size)))
	}
	for _, m := range meta {
		fmt.Fprintf(b, "<div class=\"codemeta\">%s</div>", h(m))
	}
	if len(d.Files) == 0 {
		fmt.Fprintf(b, "<div class=\"codemeta\">no change to the project's files</div></details>")
		return
	}
	fmt.Fprintf(b, "<pre class=\"diff\" id=\"code-%s-diff\">", h(d.Step))
	shown := 0
	for i, f := range d.Files {
		if shown > maxReportCode {
			fmt.Fprintf(b, "%s\n", h(fmt.Sprintf("… %s more: plangit diff --code %s prints them", Count(len(d.Files)-i, "file"), d.Step)))
			break
		}
		fmt.Fprintf(b, "<span class=\"h\">%s</span>\n", h(fmt.Sprintf("diff --code %s (%s)", codeName(f), f.Status)))
		if f.OldMode != "" && f.NewMode != "" {
			fmt.Fprintf(b, "%s\n", h("mode "+f.OldMode+" → "+f.NewMode))
		}
		if f.Binary {
			fmt.Fprintf(b, "binary file, or over 1 MB: no lines shown\n")
			continue
		}
		shown += len(f.Unified)
		diffLines(b, f.Unified)
	}
	fmt.Fprintf(b, "</pre></details>")
}

// diffLines writes a unified diff's lines into a <pre>, each escaped,
// added and deleted lines and hunk heads marked.
func diffLines(b *strings.Builder, unified string) {
	for _, line := range strings.Split(strings.TrimSuffix(unified, "\n"), "\n") {
		if line == "" {
			continue
		}
		class := ""
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			class = "a"
		case strings.HasPrefix(line, "-"):
			class = "d"
		case strings.HasPrefix(line, "@@"):
			class = "h"
		}
		if class != "" {
			fmt.Fprintf(b, "<span class=\"%s\">%s</span>\n", class, h(line))
		} else {
			fmt.Fprintf(b, "%s\n", h(line))
		}
	}
}
