package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/plangit/plangit/plan"
)

// The dependency graph: one node per step, phases as clusters, an edge from
// each step to the steps that need it, nodes coloured by status.

// statusFill is each status's node colour: fill, then border.
var statusFill = map[plan.StepStatus][2]string{
	plan.StepPending:    {"#f6f8fa", "#8c959f"},
	plan.StepInProgress: {"#fff8c5", "#bf8700"},
	plan.StepCompleted:  {"#dafbe1", "#1a7f37"},
	plan.StepFailed:     {"#ffebe9", "#cf222e"},
	plan.StepBlocked:    {"#ffebe9", "#cf222e"},
	plan.StepSkipped:    {"#eaeef2", "#6e7781"},
}

// readySet is the ids of the steps ready to start, which graphs and
// reports mark as plangit ready and next do: drawn with a heavier border.
func readySet(p *plan.Plan) map[string]bool {
	m := map[string]bool{}
	for _, s := range p.Ready() {
		m[s.ID] = true
	}
	return m
}

// nodeLabel is a step's label in a graph: icon, id and its text, cut.
func nodeLabel(s *plan.Step, max int) string {
	text := oneLine(s.Text)
	if r := []rune(text); len(r) > max {
		text = string(r[:max-1]) + "…"
	}
	return s.Status.Icon() + " " + s.ID + " " + text
}

// mermaidEscaper writes text for a quoted Mermaid label: every character
// Mermaid reads as markup or a directive becomes an entity code, "%" and
// the braces too, so that no "%%{init: …}%%" in a step's text is read as
// a directive (Mermaid finds those anywhere in a diagram's text).
var mermaidEscaper = strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "&", "#amp;", "`", "#96;", "#", "#35;",
	"%", "#37;", "{", "#123;", "}", "#125;", "\n", " ", "\r", " ")

// mermaidText escapes a label for a quoted Mermaid label, its control
// characters shown (Clean).
func mermaidText(s string) string { return mermaidEscaper.Replace(Clean(s)) }

// Mermaid writes the graph as a Mermaid flowchart, which GitHub renders.
func Mermaid(w io.Writer, p *plan.Plan) {
	fmt.Fprintln(w, "flowchart LR")
	for _, ph := range p.Phases {
		fmt.Fprintf(w, "  subgraph P%s[\"%s\"]\n", ph.ID, mermaidText(ph.Status().Icon()+" Phase "+ph.ID+": "+ph.Title))
		if len(ph.Steps) == 0 {
			fmt.Fprintf(w, "    P%s_empty[\"no steps\"]\n", ph.ID)
		}
		for _, s := range ph.Steps {
			fmt.Fprintf(w, "    S%s[\"%s\"]:::%s\n", s.ID, mermaidText(nodeLabel(s, 40)), s.Status)
		}
		fmt.Fprintln(w, "  end")
	}
	var ready []string
	for _, s := range p.Steps() {
		for _, n := range s.Needs {
			fmt.Fprintf(w, "  S%s --> S%s\n", n, s.ID)
		}
		if readySet(p)[s.ID] {
			ready = append(ready, "S"+s.ID)
		}
	}
	for _, st := range []plan.StepStatus{plan.StepPending, plan.StepInProgress, plan.StepCompleted, plan.StepFailed, plan.StepBlocked, plan.StepSkipped} {
		c := statusFill[st]
		fmt.Fprintf(w, "  classDef %s fill:%s,stroke:%s,color:#1f2328\n", st, c[0], c[1])
	}
	if len(ready) > 0 {
		fmt.Fprintf(w, "  classDef ready stroke-width:3px\n  class %s ready\n", strings.Join(ready, ","))
	}
}

// dotEscaper writes text for a quoted DOT string: a backslash, which
// starts Graphviz's escapes (\N, \G, \l…), a quote, a line break, and "&",
// which starts a character entity Graphviz reads in every label.
var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\n`, "&", "&amp;")

// dotText escapes a label for a quoted DOT string, its control characters
// shown (Clean).
func dotText(s string) string { return dotEscaper.Replace(Clean(s)) }

// DOT writes the graph in Graphviz's DOT language.
func DOT(w io.Writer, p *plan.Plan) {
	fmt.Fprintf(w, "digraph plan {\n")
	fmt.Fprintf(w, "  label=\"%s\";\n  labelloc=t;\n  rankdir=LR;\n  fontname=\"Helvetica\";\n", dotText(p.Title))
	fmt.Fprintf(w, "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=11];\n  edge [color=\"#57606a\"];\n")
	ready := readySet(p)
	for _, ph := range p.Phases {
		fmt.Fprintf(w, "  subgraph cluster_%s {\n    label=\"%s\";\n    style=rounded;\n    color=\"#d0d7de\";\n", ph.ID, dotText(ph.Status().Icon()+" Phase "+ph.ID+": "+ph.Title))
		if len(ph.Steps) == 0 {
			fmt.Fprintf(w, "    p%s_empty [label=\"no steps\", style=dashed];\n", ph.ID)
		}
		for _, s := range ph.Steps {
			c := statusFill[s.Status]
			extra := ""
			if ready[s.ID] {
				extra = ", penwidth=2.5"
			}
			fmt.Fprintf(w, "    s%s [label=\"%s\", fillcolor=\"%s\", color=\"%s\", tooltip=\"%s\"%s];\n", s.ID, dotText(nodeLabel(s, 40)), c[0], c[1], dotText(oneLine(s.Text)), extra)
		}
		fmt.Fprintln(w, "  }")
	}
	for _, s := range p.Steps() {
		for _, n := range s.Needs {
			fmt.Fprintf(w, "  s%s -> s%s;\n", n, s.ID)
		}
	}
	fmt.Fprintln(w, "}")
}
