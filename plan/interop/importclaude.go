package interop

import (
	"bytes"
	"regexp"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/yuin/goldmark/ast"
)

// Claude Code's plan files: the markdown plan mode writes into its plans
// directory (plansDirectory; ~/.claude/plans/NAME.md by default) and
// ExitPlanMode carries for the person to approve. It has no fixed layout:
// a title heading, then sections — a context, the approach, the steps,
// the files to change, how to verify — written as headings, lists and
// prose.

var (
	// stepSection names a section that holds a plan's steps.
	stepSection = regexp.MustCompile(`(?i)\b(implementation|steps?|tasks?|phases?|todos?)\b`)
	// goalSection names a section that says what the plan is for.
	goalSection = regexp.MustCompile(`(?i)^(context|summary|overview|goals?|background|problem|objective|why)\b`)
	// stepNumber is a heading's step number: "1. ", "Step 2: ", "3) ".
	stepNumber = regexp.MustCompile(`(?i)^(step\s+)?\d+[.):]?\s+|^step\s+\d+\s*[:.-]\s*`)
	// phaseNumber is a heading's phase number: "Phase 1: ".
	phaseNumber = regexp.MustCompile(`(?i)^phase\s+[\w.-]+\s*[:.-]\s*`)
)

// isClaudePlan reports whether a markdown file reads as a Claude Code
// plan file: a level-1 heading first, and none of planning-with-files'
// marks (a "# Task Plan" title, "## Current Phase" or "## Phases", a
// **Status:** line).
func isClaudePlan(src []byte) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(string(src)), "\n")
	first = strings.TrimSpace(first)
	if !strings.HasPrefix(first, "# ") || strings.HasPrefix(strings.TrimSpace(first[2:]), "Task Plan") {
		return false
	}
	for _, mark := range []string{"\n## Current Phase", "\n## Phases", "**Status:**"} {
		if bytes.Contains(src, []byte(mark)) {
			return false
		}
	}
	return true
}

// claudeSection is a section of a plan file: its heading and blocks.
type claudeSection struct {
	head   *ast.Heading // nil: the blocks before the first section
	text   string
	blocks []ast.Node
}

// importClaudePlan reads a Claude Code plan file:
//
//  1. the first heading is the title ("Plan:" cut off);
//  2. the blocks before the first section, and a section named Context,
//     Summary, Overview, Goal, Background, Problem or Objective, are the
//     goal;
//  3. a section whose heading names steps (Implementation, Steps, Tasks,
//     Phases, Todo) holds them: its sub-headings are steps, the blocks
//     under each its reasoning — or phases, when named "Phase N:" or
//     followed by a list, the list's items their steps; without
//     sub-headings, its lists' items are the steps of one phase named by
//     the section;
//  4. without such a section, every section holding a numbered list is a
//     phase of the list's items;
//  5. a step is a top-level list item ([x] completed) or a sub-heading;
//     what is nested under it is its reasoning;
//  6. any other section is an insight finding, its content as written.
func importClaudePlan(name string, src []byte, now time.Time) (*Imported, error) {
	r, err := newMDReader(name, src, now)
	if err != nil {
		return nil, err
	}
	d := r.d
	secs := []*claudeSection{{}}
	level := 0 // the level of the plan's sections
	titled := false
	for n := d.Root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			if !titled {
				t := d.HeadingText(h)
				for _, p := range []string{"Plan:", "Implementation Plan:"} {
					if rest, ok := strings.CutPrefix(t, p); ok {
						t = rest
					}
				}
				r.setTitle(lineField(r.lineOf(h)), t)
				titled = true
				continue
			}
			if level == 0 || h.Level <= level {
				level = h.Level
				secs = append(secs, &claudeSection{head: h, text: d.HeadingText(h)})
				continue
			}
		}
		last := secs[len(secs)-1]
		last.blocks = append(last.blocks, n)
	}
	hasSteps := false
	for _, s := range secs[1:] {
		if !goalSection.MatchString(s.text) && stepSection.MatchString(s.text) {
			hasSteps = true
		}
	}
	for i, s := range secs {
		switch {
		case i == 0 || goalSection.MatchString(s.text):
			r.goal(s.blocks)
		case hasSteps && stepSection.MatchString(s.text):
			r.stepSection(s)
		case !hasSteps && hasOrderedList(s.blocks):
			ph := r.phase(phaseNumber.ReplaceAllString(s.text, ""))
			r.phaseBlocks(ph, s.blocks, true)
		default:
			r.sectionFinding(s)
		}
	}
	r.notes.Join()
	in, err := r.finish()
	if err != nil {
		return nil, err
	}
	in.Format = FormatClaudePlan
	return in, nil
}

// goal adds blocks to the plan's goal, as written: a paragraph's wrapped
// lines joined, a quote without its markers.
func (r *mdReader) goal(blocks []ast.Node) {
	for _, n := range blocks {
		switch n := n.(type) {
		case *ast.HTMLBlock:
			r.dropBlock(n, "HTML plangit does not keep")
		case *ast.ThematicBreak:
		case *ast.Blockquote:
			r.notes.Add(&r.p.Goal, r.text(lineField(r.lineOf(n)), r.d.QuoteSource(n)))
		case *ast.Paragraph: // a wrapped line is one line
			r.notes.Add(&r.p.Goal, r.text(lineField(r.lineOf(n)), r.d.JoinedLines(n, " ")))
		default:
			r.notes.Add(&r.p.Goal, r.text(lineField(r.lineOf(n)), r.blockSource(n)))
		}
	}
}

// hasOrderedList reports whether blocks hold a numbered list.
func hasOrderedList(blocks []ast.Node) bool {
	for _, n := range blocks {
		if l, ok := n.(*ast.List); ok && l.IsOrdered() {
			return true
		}
	}
	return false
}

// stepSection reads a section that holds the plan's steps (case 3).
func (r *mdReader) stepSection(s *claudeSection) {
	// Split the section at its sub-headings.
	type part struct {
		head   *ast.Heading
		blocks []ast.Node
	}
	parts := []*part{{}}
	sub := 0
	for _, n := range s.blocks {
		if h, ok := n.(*ast.Heading); ok && (sub == 0 || h.Level <= sub) {
			sub = h.Level
			parts = append(parts, &part{head: h})
			continue
		}
		parts[len(parts)-1].blocks = append(parts[len(parts)-1].blocks, n)
	}
	var own *plan.Phase // the phase the section itself names
	ownPhase := func() *plan.Phase {
		if own == nil {
			own = r.phase(phaseNumber.ReplaceAllString(s.text, ""))
		}
		return own
	}
	if len(parts[0].blocks) > 0 {
		r.phaseBlocks(ownPhase(), parts[0].blocks, false)
	}
	for _, p := range parts[1:] {
		text := r.d.HeadingText(p.head)
		if phaseNumber.MatchString(text) || !stepNumber.MatchString(text) && startsWithList(p.blocks) {
			ph := r.phase(phaseNumber.ReplaceAllString(text, ""))
			own = nil // steps after this phase are not the section's
			r.phaseBlocks(ph, p.blocks, false)
			continue
		}
		ph := own
		if ph == nil {
			ph = ownPhase()
		}
		line := r.lineOf(p.head)
		bs := r.step(ph, lineField(line), stepNumber.ReplaceAllString(text, ""), plan.StepPending)
		if bs == nil {
			continue
		}
		var why []string
		for _, n := range p.blocks {
			if _, ok := n.(*ast.HTMLBlock); ok {
				r.dropBlock(n, "HTML plangit does not keep")
				continue
			}
			why = append(why, r.blockSource(n))
		}
		bs.s.Why = r.text(lineField(line)+" (reasoning)", strings.Join(why, "\n\n"))
	}
}

// startsWithList reports whether the first block that is not a paragraph
// is a list: a sub-heading over a list names a phase of the list's items.
func startsWithList(blocks []ast.Node) bool {
	for _, n := range blocks {
		switch n.(type) {
		case *ast.List:
			return true
		case *ast.Paragraph:
			continue
		}
		return false
	}
	return false
}

// phaseBlocks reads a phase's blocks: lists' items are its steps (only
// numbered lists' when ordered), the rest its notes.
func (r *mdReader) phaseBlocks(ph *plan.Phase, blocks []ast.Node, ordered bool) {
	for _, n := range blocks {
		switch n := n.(type) {
		case *ast.List:
			if !ordered || n.IsOrdered() {
				r.itemSteps(ph, n)
				continue
			}
			r.notes.Add(&ph.Notes, r.block(lineField(r.lineOf(n)), r.source(n)))
		case *ast.HTMLBlock:
			r.dropBlock(n, "HTML plangit does not keep")
		case *ast.ThematicBreak:
		default:
			r.notes.Add(&ph.Notes, r.block(lineField(r.lineOf(n)), r.blockSource(n)))
		}
	}
}

// itemSteps makes a step of each top-level item of list; what is nested
// under an item is the step's reasoning.
func (r *mdReader) itemSteps(ph *plan.Phase, list *ast.List) {
	for it := list.FirstChild(); it != nil; it = it.NextSibling() {
		first := it.FirstChild()
		if first == nil {
			continue
		}
		line := r.lineOf(it)
		if !plan.IsTextBlock(first) {
			r.dropBlock(it, "plangit reads a list item's text, not a "+plan.KindName(first))
			continue
		}
		text := r.d.JoinedLines(first, " ")
		st := plan.StepPending
		if checked, boxed := plan.CheckBox(first); boxed {
			text = strings.TrimSpace(text[3:])
			if checked {
				st = plan.StepCompleted
			}
		}
		bs := r.step(ph, lineField(line), text, st)
		if bs == nil {
			continue
		}
		var why []string
		for c := first.NextSibling(); c != nil; c = c.NextSibling() {
			why = append(why, dedent(r.source(c)))
		}
		if len(why) > 0 {
			bs.s.Why = r.text(lineField(line)+" (reasoning)", strings.Join(why, "\n"))
		}
	}
}

// blockSource is a block as written; a heading with its marker.
func (r *mdReader) blockSource(n ast.Node) string {
	if h, ok := n.(*ast.Heading); ok {
		return strings.Repeat("#", h.Level) + " " + r.d.HeadingText(h)
	}
	return r.source(n)
}

// sectionFinding keeps a section that is neither goal nor steps as an
// insight finding (case 6).
func (r *mdReader) sectionFinding(s *claudeSection) {
	field := lineField(r.lineOf(s.head))
	var parts []string
	for _, n := range s.blocks {
		switch n.(type) {
		case *ast.HTMLBlock:
			r.dropBlock(n, "HTML plangit does not keep")
			continue
		case *ast.ThematicBreak:
			continue
		}
		parts = append(parts, r.blockSource(n))
	}
	title := r.line(field, s.text)
	if title == "" {
		title = "Section at " + field
	}
	r.newFindings = append(r.newFindings, &plan.Finding{Category: plan.CatInsight, Title: title, Content: r.text(field, strings.Join(parts, "\n\n"))})
}

// dedent takes the indent of its first line off every line of s.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) < 2 {
		return s
	}
	ind := len(lines[1]) - len(strings.TrimLeft(lines[1], " \t"))
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		n := min(ind, len(l)-len(strings.TrimLeft(l, " \t")))
		lines[i] = l[n:]
	}
	return strings.Join(lines, "\n")
}
