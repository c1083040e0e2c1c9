package interop

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/plangit/plangit/plan"
	"github.com/yuin/goldmark/ast"
)

// The markdown formats: planning-with-files' task_plan.md and the
// Manus-style task_plan.md of a persistent planning service. Both are read
// through goldmark's syntax tree; what the import does not keep is reported
// by line.

// detectMarkdown tells plangit's own task_plan.md, a Manus-style one
// (an **Objective:** line, "## ○ Phase: Title" headings), a spec-kit or
// OpenSpec tasks.md (their task lines), a Claude Code plan file (a
// level-1 heading first, no planning-with-files marks) and a
// planning-with-files one apart.
func detectMarkdown(src []byte) string {
	if plan.IsPlanFile(src) {
		return FormatPlangit
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(src)), "\n")
	switch strings.TrimSpace(first) {
	case "# Findings", "# Findings & Notes":
		return FormatFindings
	case "# Errors", "# Error Log":
		return FormatErrors
	}
	if bytes.Contains(src, []byte("**Objective:**")) {
		return FormatManus
	}
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "## "); ok {
			icon, title := cutIcon(rest)
			if icon != "" && strings.HasPrefix(title, "Phase:") {
				return FormatManus
			}
		}
	}
	if f := detectTasks(src); f != "" {
		return f
	}
	if isClaudePlan(src) {
		return FormatClaudePlan
	}
	return FormatPWF
}

// phaseIcons are the icons a Manus-style plan gives phases and steps.
var manusIcons = map[string]plan.StepStatus{"○": plan.StepPending, "◐": plan.StepInProgress, "●": plan.StepCompleted, "✖": plan.StepBlocked, "⊘": plan.StepSkipped}

// cutIcon splits a leading status icon off s.
func cutIcon(s string) (icon, rest string) {
	s = strings.TrimSpace(s)
	for ic := range manusIcons {
		if r, ok := strings.CutPrefix(s, ic); ok && (r == "" || r[0] == ' ') {
			return ic, strings.TrimSpace(r)
		}
	}
	return "", s
}

// mdReader reads a markdown source into a builder.
type mdReader struct {
	*builder
	d     *plan.Doc
	notes plan.Gathered // fields read from several blocks, joined when the last is read
}

func newMDReader(name string, src []byte, now time.Time) (*mdReader, error) {
	d, err := plan.ParseDoc(name, src)
	if err != nil {
		return nil, err
	}
	return &mdReader{builder: newBuilder(name, "", "", now), d: d, notes: plan.Gathered{}}, nil
}

func (r *mdReader) lineOf(n ast.Node) int {
	line, _ := r.d.Position(r.d.Start(n))
	return line
}

func lineField(n int) string { return "line " + strconv.Itoa(n) }

// source is the raw text of a block.
func (r *mdReader) source(n ast.Node) string {
	return strings.TrimSpace(string(r.d.Src[r.d.Start(n):r.d.End(n)]))
}

// dropBlock reports a block the import does not keep.
func (r *mdReader) dropBlock(n ast.Node, why string) {
	r.drop(lineField(r.lineOf(n)), r.source(n), why)
}

// item is one list item: its checkbox, its text (the first block, lines
// joined) and where it is.
type item struct {
	node    ast.Node
	line    int
	text    string
	boxed   bool
	checked bool
}

// items reads a list's items; blocks nested under an item are reported.
func (r *mdReader) items(list ast.Node) []item {
	var out []item
	for it := list.FirstChild(); it != nil; it = it.NextSibling() {
		first := it.FirstChild()
		if first == nil {
			continue
		}
		if !plan.IsTextBlock(first) {
			r.dropBlock(it, "plangit reads a list item's text, not a "+plan.KindName(first))
			continue
		}
		x := item{node: it, line: r.lineOf(it), text: r.d.JoinedLines(first, " ")}
		if x.checked, x.boxed = plan.CheckBox(first); x.boxed {
			x.text = strings.TrimSpace(x.text[3:])
		}
		out = append(out, x)
		for c := first.NextSibling(); c != nil; c = c.NextSibling() {
			r.dropBlock(c, "plangit keeps a list item's first paragraph; this is nested under it")
		}
	}
	return out
}

// paragraphLines are a paragraph's lines, trimmed, with their line numbers.
func (r *mdReader) paragraphLines(n ast.Node) ([]string, []int) {
	lines := n.Lines()
	var text []string
	var nums []int
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		text = append(text, strings.TrimSpace(string(seg.Value(r.d.Src))))
		line, _ := r.d.Position(seg.Start)
		nums = append(nums, line)
	}
	return text, nums
}

// table is a markdown table written as a paragraph of "| a | b |" lines
// (plangit's parser has no table extension): its header and rows.
type table struct {
	header []string
	rows   [][]string
	lines  []int
}

// readTable reads the lines of a paragraph as a table; ok is false when
// they are no table.
func readTable(lines []string, nums []int) (t table, ok bool) {
	for i, l := range lines {
		if !strings.HasPrefix(l, "|") {
			return table{}, false
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		sep := true
		for _, c := range cells {
			if strings.Trim(c, ":-") != "" || c == "" {
				sep = false
			}
		}
		switch {
		case i == 0:
			t.header = cells
		case sep && i == 1:
		default:
			t.rows, t.lines = append(t.rows, cells), append(t.lines, nums[i])
		}
	}
	return t, len(lines) > 0
}

// column finds a header column by the start of its name; -1 when absent.
func (t table) column(names ...string) int {
	for i, h := range t.header {
		for _, n := range names {
			if strings.HasPrefix(strings.ToLower(h), n) {
				return i
			}
		}
	}
	return -1
}

func cell(row []string, i int) string {
	if i < 0 || i >= len(row) {
		return ""
	}
	return row[i]
}

// importManus reads a Manus-style task_plan.md, as a persistent planning
// service writes it:
//
//	# Title
//	> **Objective:** ...
//	> **Progress:** 1/5 steps completed
//	## ◐ Phase: Build
//	> notes
//	- [x] ● a step
//	- [ ] ◐ another
//	*Last updated: 2026-01-14T10:30:00.000Z*
func importManus(name string, src []byte, now time.Time) (*Imported, error) {
	r, err := newMDReader(name, src, now)
	if err != nil {
		return nil, err
	}
	d := r.d
	var (
		ph       *plan.Phase
		titled   bool
		progress []Dropped
		icons    = map[*plan.Phase][2]string{} // the phase's icon and its line
	)
	header := func(lines []string, nums []int) {
		for i, l := range lines {
			label, value, ok := plan.CutLabel(l)
			switch {
			case ok && (strings.EqualFold(label, "Objective") || strings.EqualFold(label, "Goal")):
				r.notes.Add(&r.p.Goal, r.text(lineField(nums[i]), value))
			case ok && strings.EqualFold(label, "Progress"):
				progress = append(progress, Dropped{Field: lineField(nums[i]), Value: value})
			case !ok && ph == nil:
				r.notes.Add(&r.p.Goal, r.text(lineField(nums[i]), l))
			default:
				r.drop(lineField(nums[i]), l, "a header line plangit does not know")
			}
		}
	}
	for n := d.Root.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			text := d.HeadingText(n)
			switch {
			case n.Level == 1 && !titled:
				r.setTitle(lineField(r.lineOf(n)), text)
				titled = true
			case n.Level == 2:
				icon, title := cutIcon(text)
				if t, ok := strings.CutPrefix(title, "Phase:"); ok {
					title = t
				}
				ph = r.phase(strings.TrimSpace(title))
				icons[ph] = [2]string{icon, lineField(r.lineOf(n))}
			case ph != nil:
				r.notes.Add(&ph.Notes, r.source(n))
			default:
				r.dropBlock(n, "a heading outside the plan's phases")
			}
		case *ast.Blockquote:
			if ph != nil {
				r.notes.Add(&ph.Notes, r.block(lineField(r.lineOf(n)), d.QuoteSource(n)))
				continue
			}
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if p, ok := c.(*ast.Paragraph); ok {
					lines, nums := r.paragraphLines(p)
					header(lines, nums)
				} else {
					r.dropBlock(c, "plangit reads the header's **Label:** lines")
				}
			}
		case *ast.Paragraph:
			lines, nums := r.paragraphLines(n)
			if len(lines) == 1 {
				if stamp, ok := strings.CutPrefix(strings.Trim(lines[0], "*_ "), "Last updated:"); ok {
					if t := r.timeField(lineField(nums[0]), stamp); !t.IsZero() {
						r.p.Updated = t
					}
					continue
				}
			}
			if ph != nil && !strings.HasPrefix(lines[0], "**") {
				r.notes.Add(&ph.Notes, r.block(lineField(nums[0]), strings.Join(lines, "\n")))
				continue
			}
			header(lines, nums)
		case *ast.List:
			if ph == nil {
				ph = r.phase(plan.DefaultPhaseTitle)
			}
			for _, it := range r.items(n) {
				icon, text := cutIcon(it.text)
				st := plan.StepPending
				if s, ok := manusIcons[icon]; ok {
					st = s
				}
				if it.checked {
					st = plan.StepCompleted
				}
				r.step(ph, lineField(it.line), text, st)
			}
		case *ast.ThematicBreak:
		case *ast.HTMLBlock:
			r.dropBlock(n, "HTML plangit does not keep")
		default:
			if ph != nil {
				r.notes.Add(&ph.Notes, r.source(n))
				continue
			}
			r.dropBlock(n, "a "+plan.KindName(n)+" outside the plan's phases")
		}
	}
	r.notes.Join()
	in, err := r.finish()
	if err != nil {
		return nil, err
	}
	c := r.p.Counts()
	for _, pr := range progress {
		why := "a count the file keeps; plangit counts the steps itself"
		if want := fmt.Sprintf("%d/%d", c.Completed, c.Total); !strings.HasPrefix(pr.Value, want) {
			why += ", and the steps say " + want
		}
		r.drop(pr.Field, pr.Value, why)
	}
	for _, p := range r.p.Phases {
		ic := icons[p]
		if want := p.Status().Icon(); ic[0] != "" && ic[0] != want {
			r.drop(ic[1], ic[0], fmt.Sprintf("the phase's status icon; plangit derives it from the steps (%s %s)", want, p.Status()))
		}
	}
	in.Dropped = r.dropped
	in.Format = FormatManus
	return in, nil
}

// pwfPhase is a planning-with-files phase as read.
type pwfPhase struct {
	ph           *plan.Phase
	number       string // "2" of "Phase 2: ..."
	line         int
	status       plan.StepStatus
	statusLine   int
	steps        []*bstep
	hasStatus    bool
	statusSource string
}

// importPWF reads a planning-with-files task_plan.md (v3): the title
// ("# Task Plan: ..."), ## Goal, ## Current Phase, ### Phase N headings
// with task items and **Status:** / **Result:** lines, ## Key Questions
// and ## Decisions Made (→ findings), ## Errors Encountered (→ errors.md
// with counts), ## Notes (→ the first phase's notes). Any other section
// becomes a finding of its own; HTML comments (the template's guidance)
// are reported.
func importPWF(name string, src []byte, now time.Time) (*Imported, error) {
	r, err := newMDReader(name, src, now)
	if err != nil {
		return nil, err
	}
	d := r.d
	var (
		titled      bool
		section     string // the level-2 section, lower case
		cur         *pwfPhase
		phases      []*pwfPhase
		current     string
		currentLine int
		notes       []string
		other       *plan.Finding // the finding an unknown section becomes
		errs        []*plan.ErrorRecord
	)
	startPhase := func(n *ast.Heading, text string) {
		t := plan.StripIcon(text)
		num := ""
		if rest, ok := strings.CutPrefix(t, "Phase "); ok {
			num, _, _ = strings.Cut(rest, ":")
			num = strings.TrimSpace(num)
		}
		cur = &pwfPhase{ph: r.phase(pwfPhaseTitle(text)), number: num, line: r.lineOf(n)}
		phases = append(phases, cur)
	}
	addNotes := func(text string) {
		if cur != nil {
			r.notes.Add(&cur.ph.Notes, text)
		}
	}
	for n := d.Root.FirstChild(); n != nil; n = n.NextSibling() {
		line := r.lineOf(n)
		if h, ok := n.(*ast.Heading); ok {
			text := d.HeadingText(h)
			lower := strings.ToLower(plan.StripIcon(text))
			switch {
			case h.Level == 1 && !titled:
				titled = true
				t, _ := strings.CutPrefix(text, "Task Plan:")
				r.setTitle(lineField(line), t)
			case strings.HasPrefix(lower, "phase ") || strings.HasPrefix(lower, "phase:") || (h.Level > 2 && section == "phases"):
				section = "phases"
				startPhase(h, text)
			case h.Level <= 2:
				section, cur, other = lower, nil, nil
				switch section {
				case "goal", "current phase", "phases", "key questions", "decisions made", "decisions", "errors encountered", "errors", "notes", "session management":
				default:
					title := r.line(lineField(line), text)
					if title == "" {
						title = "Section at line " + strconv.Itoa(line)
					}
					other = &plan.Finding{Category: plan.CatInsight, Title: title}
					r.newFindings = append(r.newFindings, other)
				}
			default:
				if other != nil {
					r.notes.Add(&other.Content, r.source(h))
				} else {
					r.dropBlock(h, "a heading plangit has no place for here")
				}
			}
			continue
		}
		if html, ok := n.(*ast.HTMLBlock); ok {
			r.drop(lineField(line), r.source(html), "an HTML comment: the template's guidance, not the plan's")
			continue
		}
		if _, ok := n.(*ast.ThematicBreak); ok {
			continue
		}
		if other != nil {
			r.notes.Add(&other.Content, r.source(n))
			continue
		}
		switch section {
		case "goal":
			r.notes.Add(&r.p.Goal, r.text(lineField(line), r.plain(n)))
		case "current phase":
			current, currentLine = strings.TrimSpace(r.plain(n)), line
		case "phases":
			if cur == nil {
				r.dropBlock(n, "text under Phases before the first phase heading")
				continue
			}
			r.phaseBlock(cur, n, addNotes)
		case "key questions":
			r.findings(n, plan.CatIssue, "")
		case "decisions made", "decisions":
			r.findings(n, plan.CatArchitecture, "rationale")
		case "session management":
			r.sessions(n)
		case "errors encountered", "errors":
			errs = append(errs, r.errorRows(n)...)
		case "notes":
			if list, ok := n.(*ast.List); ok {
				for _, it := range r.items(list) {
					notes = append(notes, "- "+it.text)
				}
			} else {
				notes = append(notes, r.plain(n))
			}
		default:
			r.dropBlock(n, "text before the plan's first section")
		}
	}
	if !titled {
		return nil, plan.Errorf(plan.CodePlanParseError, "%s: no \"# Task Plan: Title\" line", name).Hinted("is this a planning-with-files task_plan.md?")
	}
	if len(notes) > 0 && len(phases) > 0 {
		r.notes.Add(&phases[0].ph.Notes, r.block("notes", "Notes:\n"+strings.Join(notes, "\n")))
	}
	r.notes.Join()
	if err := r.settlePhases(phases, current, currentLine); err != nil {
		return nil, err
	}
	r.addErrors(errs)
	in, err := r.finish()
	if err != nil {
		return nil, err
	}
	in.Format = FormatPWF
	return in, nil
}

// plain is a block's text: a paragraph's lines, a list's items, a quote's
// text, else its source.
func (r *mdReader) plain(n ast.Node) string {
	switch n := n.(type) {
	case *ast.Paragraph:
		lines, _ := r.paragraphLines(n)
		return strings.Join(lines, "\n")
	case *ast.Blockquote:
		return r.d.QuoteSource(n)
	case *ast.List:
		var out []string
		for _, it := range r.items(n) {
			out = append(out, it.text)
		}
		return strings.Join(out, "\n")
	}
	return r.source(n)
}

// phaseBlock reads a block under a planning-with-files phase heading: task
// items, **Status:** and **Result:** lines, and notes.
func (r *mdReader) phaseBlock(cur *pwfPhase, n ast.Node, addNotes func(string)) {
	list, ok := n.(*ast.List)
	if !ok {
		if p, isPara := n.(*ast.Paragraph); isPara {
			lines, nums := r.paragraphLines(p)
			for i, l := range lines {
				r.phaseLine(cur, l, nums[i], false, false, addNotes)
			}
			return
		}
		addNotes(r.block(lineField(r.lineOf(n)), r.plain(n)))
		return
	}
	for _, it := range r.items(list) {
		r.phaseLine(cur, it.text, it.line, it.boxed, it.checked, addNotes)
	}
}

func (r *mdReader) phaseLine(cur *pwfPhase, text string, line int, boxed, checked bool, addNotes func(string)) {
	label, value, isLabel := plan.CutLabel(text)
	switch {
	case boxed:
		st := plan.StepPending
		if checked {
			st = plan.StepCompleted
		}
		if bs := r.step(cur.ph, lineField(line), text, st); bs != nil {
			cur.steps = append(cur.steps, bs)
		}
	case isLabel && strings.EqualFold(label, "Status"):
		cur.hasStatus, cur.statusLine, cur.statusSource = true, line, value
	case isLabel && strings.EqualFold(label, "Result"):
		if strings.EqualFold(strings.TrimSpace(value), "pending") || value == "" {
			r.drop(lineField(line), text, "the phase has no result yet")
			return
		}
		addNotes("Result: " + value)
	case isLabel:
		addNotes(label + ": " + value)
	default:
		// A bullet without a checkbox under a phase is a task too.
		if bs := r.step(cur.ph, lineField(line), text, plan.StepPending); bs != nil {
			cur.steps = append(cur.steps, bs)
		}
	}
}

// settlePhases applies the phases' statuses and the Current Phase: a
// complete phase's steps are completed; the current phase — the one
// Current Phase names, else the first in progress — has a step in
// progress (its first unfinished one, undated, when none is ticked as
// such); another phase marked in progress is reported. No time is set.
func (r *mdReader) settlePhases(phases []*pwfPhase, current string, currentLine int) error {
	for _, pp := range phases {
		if !pp.hasStatus {
			pp.status = plan.StepPending
			continue
		}
		st, ok := ImportStatus(pp.statusSource)
		if !ok {
			return plan.Errorf(plan.CodeInvalidArgument, "%s:%d: Phase %s Status: unknown status %q; plangit reads pending, in_progress, complete (or %s)",
				r.name, pp.statusLine, pp.number, plan.Clip(pp.statusSource), stepStatusNames).With("field", lineField(pp.statusLine)).With("line", pp.statusLine)
		}
		pp.status = st
		if len(pp.steps) == 0 {
			// A phase without items is one step: the phase itself.
			if bs := r.step(pp.ph, lineField(pp.line), pp.ph.Title, plan.StepPending); bs != nil {
				pp.steps = append(pp.steps, bs)
			}
		}
	}
	var cur *pwfPhase
	if current != "" {
		want := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(current), "Phase")))
		for _, pp := range phases {
			if pp.number == want || strings.EqualFold(pp.ph.Title, current) || strings.EqualFold(pp.number+": "+pp.ph.Title, want) {
				cur = pp
				break
			}
		}
		if cur == nil {
			r.drop(lineField(currentLine), current, "names no phase of the plan")
		}
	}
	if cur == nil {
		for _, pp := range phases {
			if pp.status == plan.StepInProgress {
				cur = pp
				break
			}
		}
	}
	for _, pp := range phases {
		switch pp.status {
		case plan.StepCompleted:
			for _, bs := range pp.steps {
				bs.s.Status = plan.StepCompleted
			}
		case plan.StepSkipped:
			for _, bs := range pp.steps {
				if !bs.s.Status.Resolved() {
					bs.s.Status = plan.StepSkipped
				}
			}
		case plan.StepFailed, plan.StepBlocked:
			for _, bs := range pp.steps {
				if !bs.s.Status.Resolved() {
					bs.s.Status = pp.status
					break
				}
			}
		case plan.StepInProgress:
			if pp != cur {
				r.drop(lineField(pp.statusLine), pp.statusSource, fmt.Sprintf("Current Phase is %q; this phase's steps stay as their boxes say", current))
			}
		}
	}
	if cur == nil || cur.status == plan.StepCompleted {
		return nil
	}
	for _, bs := range cur.steps {
		if bs.s.Status == plan.StepInProgress {
			r.current = bs
			return nil
		}
	}
	for _, bs := range cur.steps {
		if !bs.s.Status.Resolved() && bs.s.Status == plan.StepPending {
			bs.s.Status, r.current = plan.StepInProgress, bs
			return nil
		}
	}
	return nil
}

// findings reads a section's items — list items or table rows — as
// findings of a category; content is the table column of that name.
func (r *mdReader) findings(n ast.Node, cat plan.Category, contentColumn string) {
	add := func(line int, title, content string) {
		title = strings.TrimSpace(title)
		if title == "" {
			if strings.TrimSpace(content) != "" {
				r.drop(lineField(line), content, "a row without a title")
			}
			return
		}
		r.newFindings = append(r.newFindings, &plan.Finding{Category: cat, Title: r.line(lineField(line), title), Content: r.text(lineField(line), content)})
	}
	switch n := n.(type) {
	case *ast.List:
		for _, it := range r.items(n) {
			add(it.line, it.text, "")
		}
	case *ast.Paragraph:
		lines, nums := r.paragraphLines(n)
		if t, ok := readTable(lines, nums); ok {
			c := t.column(contentColumn)
			if c < 0 {
				c = 1
			}
			for i, row := range t.rows {
				add(t.lines[i], cell(row, 0), cell(row, c))
			}
			return
		}
		for i, l := range lines {
			add(nums[i], l, "")
		}
	default:
		r.dropBlock(n, "plangit reads this section's list items or table rows")
	}
}

// sessions reads the Session Management table as insight findings: which
// session did what, when.
func (r *mdReader) sessions(n ast.Node) {
	p, ok := n.(*ast.Paragraph)
	if !ok {
		r.dropBlock(n, "plangit reads this section's table")
		return
	}
	lines, nums := r.paragraphLines(p)
	t, ok := readTable(lines, nums)
	if !ok {
		r.dropBlock(n, "plangit reads this section's table")
		return
	}
	for i, row := range t.rows {
		title := strings.TrimSpace("Session " + cell(row, t.column("session")) + " " + cell(row, t.column("date")))
		var body []string
		for j, h := range t.header {
			if j < len(row) && row[j] != "" && j != t.column("session") && j != t.column("date") {
				body = append(body, h+": "+row[j])
			}
		}
		if len(body) == 0 && title == "Session" {
			continue
		}
		r.newFindings = append(r.newFindings, &plan.Finding{Category: plan.CatInsight, Title: r.line(lineField(t.lines[i]), title), Content: r.text(lineField(t.lines[i]), strings.Join(body, "\n"))})
	}
}

// errorRows reads the Errors Encountered table (Error | Attempt |
// Resolution) or list as error records: the attempt is the count, a
// resolution resolves it. No time is set: the file gives none.
func (r *mdReader) errorRows(n ast.Node) []*plan.ErrorRecord {
	var out []*plan.ErrorRecord
	add := func(line int, msg, attempt, resolution string) {
		msg = strings.TrimSpace(msg)
		if msg == "" {
			if strings.TrimSpace(attempt+resolution) != "" {
				r.drop(lineField(line), strings.TrimSpace(attempt+" "+resolution), "a row without an error")
			}
			return
		}
		count := 1
		if a := strings.TrimSpace(attempt); a != "" {
			if n, err := strconv.Atoi(a); err == nil && n > 0 {
				count = n
			} else {
				r.drop(lineField(line), a, "the attempt is not a number; counted as 1")
			}
		}
		rec := &plan.ErrorRecord{Tool: "unknown", Message: r.text(lineField(line), msg), Count: count}
		if res := strings.TrimSpace(resolution); res != "" {
			rec.Resolved, rec.Resolution = true, r.text(lineField(line), res)
		}
		out = append(out, rec)
	}
	switch n := n.(type) {
	case *ast.Paragraph:
		text, nums := r.paragraphLines(n)
		if t, ok := readTable(text, nums); ok {
			e, a, res := t.column("error"), t.column("attempt"), t.column("resolution")
			if e < 0 {
				e, a, res = 0, 1, 2
			}
			for i, row := range t.rows {
				add(t.lines[i], cell(row, e), cell(row, a), cell(row, res))
			}
			return out
		}
		for i, l := range text {
			add(nums[i], l, "", "")
		}
	case *ast.List:
		for _, it := range r.items(n) {
			add(it.line, it.text, "", "")
		}
	default:
		r.dropBlock(n, "plangit reads this section's table rows or list items")
	}
	return out
}

// addErrors records the errors read, the same error on several rows
// counted once with its highest attempt, resolved if any row says how.
func (r *mdReader) addErrors(errs []*plan.ErrorRecord) {
	var merged []*plan.ErrorRecord
	same := map[string]*plan.ErrorRecord{} // tool and normalized message → the record
	for _, e := range errs {
		key := e.Tool + "\x00" + plan.NormalizeMessage(e.Message)
		if m := same[key]; m != nil {
			m.Count = max(m.Count+1, e.Count)
			if e.Resolved {
				m.Resolved = true
				m.Resolution = joinDistinct(m.Resolution, e.Resolution)
			}
			continue
		}
		c := *e
		merged = append(merged, &c)
		same[key] = &c
	}
	r.st.Errors.MergeAll(merged)
}

// pwfPhaseTitle turns "Phase 1: Requirements & Discovery ⏳" into
// "Requirements & Discovery".
func pwfPhaseTitle(text string) string {
	t := plan.StripIcon(text)
	if _, rest, ok := strings.Cut(t, ":"); ok {
		t = rest
	}
	// Drop a trailing status emoji such as ⏳ or ✅.
	t = strings.TrimSpace(strings.TrimRightFunc(t, func(r rune) bool {
		return unicode.Is(unicode.So, r) || r == '\uFE0F' || unicode.IsSpace(r)
	}))
	if t == "" {
		return strings.TrimSpace(text)
	}
	return t
}

// joinDistinct joins two texts on a new line, once when they are the same.
func joinDistinct(a, b string) string {
	if a == "" || a == b {
		return b
	}
	if b == "" {
		return a
	}
	return a + "\n" + b
}
