package render

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
)

// trickyPlan has labels that must be escaped in every format.
func trickyPlan(t *testing.T) *plan.Plan {
	st := sampleState(t)
	p := st.Plan
	p.AddPhase(`Ship "v2" <now> & #later`, "", t0)
	p.AddStep(plan.StepSpec{Text: "Quote \" backslash \\ backtick ` hash # angle <b>", Phase: "3", Needs: []string{"4"}}, t0)
	p.AddStep(plan.StepSpec{Text: `%%{init: {"theme": "dark"}}%% 100% & {braces}`, Phase: "3"}, t0)
	return p
}

func TestGraphs(t *testing.T) {
	t.Parallel()
	p := trickyPlan(t)
	var m, d bytes.Buffer
	Mermaid(&m, p)
	DOT(&d, p)
	repotest.Golden(t, "graph.mmd", m.Bytes())
	repotest.Golden(t, "graph.dot", d.Bytes())
	for _, s := range p.Steps() {
		if !strings.Contains(m.String(), "S"+s.ID+"[") || !strings.Contains(d.String(), "s"+s.ID+" [") {
			t.Errorf("step %s is missing", s.ID)
		}
	}
	if strings.Count(m.String(), "-->") != 4 || strings.Count(d.String(), "->") != 4 {
		t.Error("one edge per need")
	}
}

// The graphs and the reports mark the steps plangit ready names, under
// either phase order: they agree with ready and next.
func TestGraphsMarkReady(t *testing.T) {
	t.Parallel()
	p := phasedPlan()
	for _, order := range []plan.PhaseOrder{plan.PhasesStrict, plan.PhasesFree} {
		p.Rules.PhaseOrder = order
		var ids []string
		for _, s := range p.Ready() {
			ids = append(ids, s.ID)
		}
		var m, d, svg strings.Builder
		Mermaid(&m, p)
		DOT(&d, p)
		GraphSVG(&svg, p)
		var marked []string
		for _, s := range p.Steps() {
			inDOT := strings.Contains(d.String(), "s"+s.ID+" [") && strings.Contains(d.String(), "tooltip=\""+s.Text+"\", penwidth=2.5]")
			inSVG := strings.Contains(svg.String(), `ready" id="node-`+s.ID+`"`)
			if inDOT != inSVG {
				t.Errorf("%s: DOT and SVG disagree on step %s", order, s.ID)
			}
			if inDOT {
				marked = append(marked, s.ID)
			}
		}
		if strings.Join(marked, ",") != strings.Join(ids, ",") || !strings.Contains(m.String(), "class S"+strings.Join(ids, ",S")+" ready") {
			t.Errorf("%s: ready %v, graphs mark %v\n%s", order, ids, marked, m.String())
		}
	}
}

// phasedPlan has two phases, a step in progress and steps ready.
func phasedPlan() *plan.Plan {
	p, _ := plan.New("", "Phased", "", []string{"A", "B"}, t0, false)
	p.AddStep(plan.StepSpec{Text: "a1", Phase: "1"}, t0)
	p.AddStep(plan.StepSpec{Text: "a2", Phase: "1"}, t0)
	p.AddStep(plan.StepSpec{Text: "b1", Phase: "2"}, t0)
	p.Transition("1", plan.ActStart, plan.TransitionOpts{}, t0)
	return p
}

// TestDOTAcceptedByGraphviz: Graphviz's dot renders every DOT output.
func TestDOTAcceptedByGraphviz(t *testing.T) {
	t.Parallel()
	dot := repotest.RequireTool(t, "dot")
	empty, _ := plan.New("", "Empty plan", "", []string{"Nothing yet"}, t0, false)
	for name, p := range map[string]*plan.Plan{"sample": sampleState(t).Plan, "tricky": trickyPlan(t), "empty": empty, "ready": phasedPlan()} {
		var d bytes.Buffer
		DOT(&d, p)
		cmd := exec.Command(dot, "-Tsvg")
		cmd.Stdin = &d
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("<svg")) {
			t.Errorf("%s: dot -Tsvg: %v\n%s", name, err, out)
		}
	}
}

// TestGraphTextIsNeverADirective: a step text or a phase title written as
// a Mermaid directive ("%%{init: …}%%", the themeCSS of which made the
// diagram fetch a URL) or a comment stays label text: no "%", "{" or "}"
// reaches the Mermaid source from a label, in the graph and in the
// markdown report's; DOT takes "&" as text, not an entity, and a
// backslash as text, not an escape.
func TestGraphTextIsNeverADirective(t *testing.T) {
	t.Parallel()
	directive := `%%{init: {"themeCSS": "body{background:url(https://example.com/x)}"}}%%`
	st := sampleState(t)
	p := st.Plan
	p.AddPhase(directive, "", t0)
	p.AddStep(plan.StepSpec{Text: directive + " %% a comment", Phase: "3"}, t0)
	p.AddStep(plan.StepSpec{Text: `&lt;b&gt; \N \G`, Phase: "3"}, t0)
	var m, d bytes.Buffer
	Mermaid(&m, p)
	DOT(&d, p)
	for _, line := range strings.Split(m.String(), "\n") {
		if strings.ContainsAny(line, "%{}") {
			t.Errorf("a Mermaid line holds a directive character: %q", line)
		}
	}
	if !strings.Contains(m.String(), `#37;#37;#123;init: #123;#quot;themeCSS#quot;: #quot;body#123;background:url(https://example.com/x)#125;#quot;#125;#125;#37;#37;`) {
		t.Errorf("the directive is not kept as label text:\n%s", m.String())
	}
	r := recorded(t)
	r.State.Plan = p
	var md bytes.Buffer
	MarkdownReport(&md, r)
	for _, block := range mermaidBlocks(md.String()) {
		if strings.Contains(block, "%%") || strings.Contains(block, "{init") {
			t.Errorf("a Mermaid block of the markdown report holds a directive:\n%s", block)
		}
	}
	if !strings.Contains(d.String(), `label="○ 7 &amp;lt;b&amp;gt; \\N \\G"`) {
		t.Errorf("DOT reads the label's entity or escapes:\n%s", d.String())
	}
}
