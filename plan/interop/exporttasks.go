package interop

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/plangit/plangit/plan"
)

// exportTasks writes tasks.md as spec-kit's template (format spec-kit) or
// OpenSpec's (openspec) lays it out, so /speckit.implement or /opsx:apply
// reads it and importTasks reads it back as it was:
//
//  1. "# Tasks: Title", then the goal: as written (spec-kit's **Input**:
//     lines) or as a quote (OpenSpec's);
//  2. each phase a section, "## Phase N: Title" or "## N. Title", numbered
//     in order; its notes before its tasks, spec-kit's **Checkpoint**
//     blocks after them;
//  3. each step a task line, its box ticked when the step is completed or
//     skipped ([X] in spec-kit's, as /speckit.implement ticks; [x] in
//     OpenSpec's), its text as it is: the id and markers ([P], [US1]) an
//     import kept. A step whose text opens with no id of the format gets
//     one — T and the next free number; the phase's number and the step's
//     place in it — that a re-import matches by text. An OpenSpec task is
//     indented by its id's depth (1.2.1 under 1.2);
//  4. the findings an import made of the file's sections without tasks
//     (source TasksSource) come after the phases, each a "## Title"
//     section with its content.
func exportTasks(st *plan.State, format string) []byte {
	p := st.Plan
	spec := format == FormatSpecKit
	var b strings.Builder
	fmt.Fprintf(&b, "# Tasks: %s\n\n", p.Title)
	if p.Goal != "" {
		if spec {
			b.WriteString(p.Goal + "\n\n")
		} else {
			writeQuoteLines(&b, p.Goal)
			b.WriteString("\n")
		}
	}
	next := 1 // spec-kit's next free task number
	for _, s := range p.Steps() {
		if l := TaskLabel(s.Text); specKitID.MatchString(l) {
			n, _ := strconv.Atoi(l[1:])
			next = max(next, n+1)
		}
	}
	for i, ph := range p.Phases {
		if spec {
			fmt.Fprintf(&b, "## Phase %d: %s\n\n", i+1, ph.Title)
		} else {
			fmt.Fprintf(&b, "## %d. %s\n\n", i+1, ph.Title)
		}
		var before, after []string
		if ph.Notes != "" {
			for _, block := range strings.Split(ph.Notes, "\n\n") {
				if spec && strings.HasPrefix(block, "**Checkpoint") {
					after = append(after, block)
				} else {
					before = append(before, block)
				}
			}
		}
		if len(before) > 0 {
			b.WriteString(strings.Join(before, "\n\n") + "\n\n")
		}
		for j, s := range ph.Steps {
			done := s.Status == plan.StepCompleted || s.Status == plan.StepSkipped
			text, indent := s.Text, ""
			label := TaskLabel(text)
			switch {
			case spec && !specKitID.MatchString(label):
				text = fmt.Sprintf("T%03d %s", next, text)
				next++
			case !spec && !openSpecID.MatchString(label):
				text = fmt.Sprintf("%d.%d %s", i+1, j+1, text)
			case !spec:
				indent = strings.Repeat("  ", max(0, strings.Count(strings.TrimSuffix(label, "."), ".")-1))
			}
			box := " "
			if done && spec {
				box = "X"
			} else if done {
				box = "x"
			}
			fmt.Fprintf(&b, "%s- [%s] %s\n", indent, box, text)
		}
		if len(ph.Steps) > 0 {
			b.WriteString("\n")
		}
		if len(after) > 0 {
			b.WriteString(strings.Join(after, "\n\n") + "\n\n")
		}
		if spec {
			b.WriteString("---\n\n")
		}
	}
	for _, f := range st.Findings {
		if f.Source != TasksSource {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n", f.Title)
		if f.Content != "" {
			b.WriteString(f.Content + "\n\n")
		}
	}
	return []byte(strings.TrimRight(b.String(), "\n") + "\n")
}
