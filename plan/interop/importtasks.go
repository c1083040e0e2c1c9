package interop

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/yuin/goldmark/ast"
)

// The tasks.md formats: GitHub spec-kit's (`- [ ] T001 [P] [US1] text`
// under `## Phase N: Title`, from templates/tasks-template.md) and
// OpenSpec's (`- [ ] 1.1 text` under `## 1. Group`, from
// schemas/spec-driven/templates/tasks.md). Both keep a task's id at the
// start of its line; plangit keeps the line as the step's text, the id a
// label that re-imports match by and exports write back.

// TasksSource is the Source of the findings a tasks.md import makes of its
// sections without tasks; the tasks.md exports write them back.
const TasksSource = "tasks.md"

var (
	specKitTaskLine  = regexp.MustCompile(`(?m)^[ \t]*[-*+] \[[ xX]\] T(\d+|X+)\b`)
	openSpecTaskLine = regexp.MustCompile(`(?m)^[ \t]*[-*+] \[[ xX]\] \d+(\.\d+)+\.?[ \t]`)
	specKitPhase     = regexp.MustCompile(`^Phase\s+[\w.-]+\s*:\s*`)
	openSpecGroup    = regexp.MustCompile(`^\d+\.\s+`)
	specKitID        = regexp.MustCompile(`^T\d+$`)
	openSpecID       = regexp.MustCompile(`^\d+(\.\d+)+\.?$`)
	dependsOn        = regexp.MustCompile(`(?i)\bdepends on (T\d+(?:\s*(?:,|and|&)\s*T\d+)*)`)
	taskIDRef        = regexp.MustCompile(`T\d+`)
)

// TaskLabel is the task id a spec-kit or OpenSpec task line opens with
// ("T001", "1.2"), or "" when the text opens with none.
func TaskLabel(text string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(text), " ")
	if specKitID.MatchString(first) || openSpecID.MatchString(first) {
		return first
	}
	return ""
}

// stripLabel is text without the task id it opens with.
func stripLabel(text string) string {
	if l := TaskLabel(text); l != "" {
		return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), l))
	}
	return text
}

// detectTasks tells a spec-kit or an OpenSpec tasks.md by its task lines;
// "" for neither.
func detectTasks(src []byte) string {
	switch {
	case specKitTaskLine.Match(src):
		return FormatSpecKit
	case openSpecTaskLine.Match(src):
		return FormatOpenSpec
	}
	return ""
}

// cutFrontMatter blanks a leading YAML front matter block ("---" lines
// around it, as spec-kit's template has), keeping the lines so positions
// stay the file's; it returns what the block held and the line it starts
// on.
func cutFrontMatter(src []byte) ([]byte, string, int) {
	if !bytes.HasPrefix(src, []byte("---\n")) && !bytes.HasPrefix(src, []byte("---\r\n")) {
		return src, "", 0
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	for i := 1; i < len(lines); i++ {
		if string(bytes.TrimSpace(lines[i])) != "---" {
			continue
		}
		var held []string
		at := 0
		for j, l := range lines[1:i] {
			if t := strings.TrimSpace(string(l)); t != "" {
				held = append(held, t)
				if at == 0 {
					at = j + 2
				}
			}
		}
		out := make([]byte, 0, len(src))
		for range i + 1 {
			out = append(out, '\n')
		}
		for _, l := range lines[i+1:] {
			out = append(out, l...)
		}
		return out, strings.Join(held, "; "), at
	}
	return src, "", 0
}

// task is a task line as read, beside its step.
type task struct {
	bs       *bstep
	parallel bool     // [P]: it need not wait for the task before it
	deps     []string // the ids its "depends on T012, T013" names
	line     int
}

// tasksReader reads a tasks.md into a builder.
type tasksReader struct {
	*mdReader
	format string
	phases [][]*task // each phase's tasks, in order
}

// importTasks reads a spec-kit or OpenSpec tasks.md (format FormatSpecKit
// or FormatOpenSpec):
//
//  1. the first level-1 heading is the title ("Tasks:" cut off); without
//     one, an OpenSpec file takes its change's directory name;
//  2. the blocks before the first section are the goal (spec-kit's
//     **Input**: and **Prerequisites**: lines, OpenSpec's quote);
//  3. a level-2 section is a phase when its heading is one ("Phase N:
//     Title", "N. Title") or it holds a task; its title is the heading's
//     after that number;
//  4. a task line is a step: its text the line after the checkbox, id and
//     markers kept; [x] or [X] completed, [ ] pending; a nested task is a
//     step after its parent;
//  5. in spec-kit's, a task needs the task before it in its phase unless it
//     is marked [P], and the tasks its "depends on T012, T013" names;
//  6. the phase's other blocks — Purpose, Goal, Independent Test,
//     Checkpoint lines, sub-headings, notes — are its notes;
//  7. a section without tasks (spec-kit's Dependencies & Execution Order,
//     Notes, ...) is a finding, its source TasksSource;
//  8. front matter and HTML comments (the template's guidance) are
//     reported, not kept.
func importTasks(name string, src []byte, format string, now time.Time) (*Imported, error) {
	src, front, frontLine := cutFrontMatter(src)
	m, err := newMDReader(name, src, now)
	if err != nil {
		return nil, err
	}
	r := &tasksReader{mdReader: m, format: format}
	if front != "" {
		r.drop(lineField(frontLine), front, "front matter, the template's, not the plan's")
	}
	d := r.d
	type section struct {
		head   *ast.Heading
		blocks []ast.Node
	}
	var (
		pre    []ast.Node
		secs   []*section
		titled bool
	)
	for n := d.Root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			if h.Level == 1 && !titled && len(secs) == 0 {
				t := d.HeadingText(h)
				if rest, ok := strings.CutPrefix(t, "Tasks:"); ok {
					t = rest
				}
				r.setTitle(lineField(r.lineOf(h)), t)
				titled = true
				continue
			}
			if h.Level <= 2 {
				secs = append(secs, &section{head: h})
				continue
			}
		}
		if len(secs) == 0 {
			pre = append(pre, n)
		} else {
			secs[len(secs)-1].blocks = append(secs[len(secs)-1].blocks, n)
		}
	}
	var loose *plan.Phase // tasks before the first section
	for _, n := range pre {
		if l, ok := n.(*ast.List); ok && hasTask(l) {
			if loose == nil {
				loose = r.phase(plan.DefaultPhaseTitle)
				r.phases = append(r.phases, nil)
			}
			r.list(loose, l)
			continue
		}
		r.goal([]ast.Node{n})
	}
	for _, s := range secs {
		text := d.HeadingText(s.head)
		title, numbered := r.phaseTitle(text)
		tasks := numbered
		for _, n := range s.blocks {
			if l, ok := n.(*ast.List); ok && hasTask(l) {
				tasks = true
			}
		}
		if !tasks {
			r.finding(s.head, text, s.blocks)
			continue
		}
		ph := r.phase(title)
		r.phases = append(r.phases, nil)
		for _, n := range s.blocks {
			r.phaseBlock(ph, n)
		}
	}
	r.notes.Join()
	if r.p.Title == "" && format == FormatOpenSpec {
		if dir := filepath.Base(filepath.Dir(name)); dir != "." && dir != string(filepath.Separator) && dir != "" {
			r.setTitle("title", dir)
			r.dropped = append(r.dropped, Dropped{Field: "title", Why: "the file gives the plan no title; it takes its change's directory name"})
		}
	}
	in, err := r.finish()
	if err != nil {
		return nil, err
	}
	if format == FormatSpecKit {
		r.needs()
	}
	in.Dropped, in.Format, in.Labels, in.Boxes = r.dropped, format, true, true
	return in, nil
}

// phaseTitle cuts a section heading's phase number off: "Phase 2:
// Foundational" in spec-kit's, "2. Core" in OpenSpec's. numbered says the
// heading had one.
func (r *tasksReader) phaseTitle(text string) (string, bool) {
	re := openSpecGroup
	if r.format == FormatSpecKit {
		re = specKitPhase
	}
	if loc := re.FindStringIndex(text); loc != nil {
		return strings.TrimSpace(text[loc[1]:]), true
	}
	return text, false
}

// hasTask reports whether a list holds a task line, at any depth.
func hasTask(list ast.Node) bool {
	found := false
	_ = ast.Walk(list, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && n.Kind() == ast.KindListItem {
			if _, ok := plan.CheckBox(n.FirstChild()); ok {
				found = true
				return ast.WalkStop, nil
			}
		}
		return ast.WalkContinue, nil
	})
	return found
}

// phaseBlock reads a block of a phase section: task lists into steps,
// anything else into the phase's notes.
func (r *tasksReader) phaseBlock(ph *plan.Phase, n ast.Node) {
	switch n := n.(type) {
	case *ast.HTMLBlock:
		r.dropBlock(n, "an HTML comment: the template's guidance, not the plan's")
	case *ast.ThematicBreak:
	case *ast.List:
		if hasTask(n) {
			r.list(ph, n)
			return
		}
		r.notes.Add(&ph.Notes, r.block(lineField(r.lineOf(n)), r.source(n)))
	case *ast.Heading:
		r.notes.Add(&ph.Notes, r.block(lineField(r.lineOf(n)), strings.Repeat("#", n.Level)+" "+r.d.HeadingText(n)))
	default:
		r.notes.Add(&ph.Notes, r.block(lineField(r.lineOf(n)), r.source(n)))
	}
}

// list reads a task list: each task line a step, a nested one after its
// parent; an item without a checkbox goes to the phase's notes, other
// blocks under a task are reported.
func (r *tasksReader) list(ph *plan.Phase, list ast.Node) {
	for it := list.FirstChild(); it != nil; it = it.NextSibling() {
		first := it.FirstChild()
		if first == nil {
			continue
		}
		checked, boxed := plan.CheckBox(first)
		if !plan.IsTextBlock(first) || !boxed {
			r.notes.Add(&ph.Notes, r.block(lineField(r.lineOf(it)), "- "+strings.TrimSpace(r.source(it))))
			continue
		}
		text := strings.TrimSpace(r.d.JoinedLines(first, " ")[3:])
		st := plan.StepPending
		if checked {
			st = plan.StepCompleted
		}
		line := r.lineOf(it)
		if bs := r.step(ph, lineField(line), text, st); bs != nil {
			t := &task{bs: bs, line: line}
			t.parallel, t.deps = markers(text)
			r.phases[len(r.phases)-1] = append(r.phases[len(r.phases)-1], t)
		}
		for c := first.NextSibling(); c != nil; c = c.NextSibling() {
			if l, ok := c.(*ast.List); ok && hasTask(l) {
				r.list(ph, l)
				continue
			}
			r.dropBlock(c, "plangit keeps a task's line; this is nested under it")
		}
	}
}

// markers reads a spec-kit task's [P] marker (after its id) and the ids
// its "depends on" names.
func markers(text string) (parallel bool, deps []string) {
	for i, f := range strings.Fields(text) {
		if i == 0 && TaskLabel(f) != "" {
			continue
		}
		if !strings.HasPrefix(f, "[") || !strings.HasSuffix(f, "]") {
			break
		}
		if strings.EqualFold(f, "[P]") {
			parallel = true
		}
	}
	for _, m := range dependsOn.FindAllStringSubmatch(text, -1) {
		deps = append(deps, taskIDRef.FindAllString(m[1], -1)...)
	}
	return parallel, deps
}

// needs gives spec-kit's tasks their needs, once their ids are settled: the
// task before in the phase unless [P], and the tasks "depends on" names.
func (r *tasksReader) needs() {
	byLabel := map[string]*plan.Step{}
	for _, tasks := range r.phases {
		for _, t := range tasks {
			byLabel[TaskLabel(t.bs.s.Text)] = t.bs.s
		}
	}
	for _, tasks := range r.phases {
		for i, t := range tasks {
			s := t.bs.s
			if i > 0 && !t.parallel {
				s.Needs = append(s.Needs, tasks[i-1].bs.s.ID)
			}
			for _, dep := range t.deps {
				d := byLabel[dep]
				switch {
				case d == nil:
					r.drop(lineField(t.line), dep, "names no task of the file; no dependency kept")
				case d == s:
					r.drop(lineField(t.line), dep, "a step cannot wait for itself")
				case !slices.Contains(s.Needs, d.ID):
					s.Needs = append(s.Needs, d.ID)
				}
			}
		}
	}
}

// finding keeps a section without tasks as an insight finding, its
// content the section's blocks as written.
func (r *tasksReader) finding(h *ast.Heading, title string, blocks []ast.Node) {
	field := lineField(r.lineOf(h))
	t := r.line(field, title)
	if t == "" {
		t = fmt.Sprintf("Section at %s", field)
	}
	var parts []string
	for _, n := range blocks {
		switch n := n.(type) {
		case *ast.HTMLBlock:
			r.dropBlock(n, "an HTML comment: the template's guidance, not the plan's")
		case *ast.ThematicBreak:
		case *ast.Heading:
			parts = append(parts, strings.Repeat("#", n.Level)+" "+r.d.HeadingText(n))
		default:
			parts = append(parts, r.source(n))
		}
	}
	content := r.text(field, strings.Join(parts, "\n\n"))
	r.newFindings = append(r.newFindings, &plan.Finding{Category: plan.CatInsight, Title: t, Content: content, Source: TasksSource})
}
