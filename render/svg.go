package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
)

// Graph layout, done by plangit itself so the report needs no library:
// phases are bands, top to bottom in plan order; inside a phase, a step sits
// one layer below the latest step it needs from the same phase, so chains
// read downwards and independent steps sit side by side, at most graphCols
// to a row. Edges run from the bottom of a step to the top of each step that
// needs it; an edge that has to climb (a step needing a later phase's step)
// runs up the right-hand side.
const (
	graphCols = 3
	nodeW     = 300
	nodeH     = 34
	colGap    = 40
	rowGap    = 14
	layerGap  = 30
	phasePad  = 12
	phaseHead = 28
	phaseGap  = 18
	margin    = 14
	labelMax  = 40
)

type box struct{ x, y int }

// layers puts each step of a phase in its layer: one below the deepest step
// it needs from the same phase.
func layers(ph *plan.Phase) [][]*plan.Step {
	in := map[string]*plan.Step{}
	for _, s := range ph.Steps {
		in[s.ID] = s
	}
	depth := map[string]int{}
	var walk func(s *plan.Step, seen map[string]bool) int
	walk = func(s *plan.Step, seen map[string]bool) int {
		if d, ok := depth[s.ID]; ok {
			return d
		}
		if seen[s.ID] {
			return 0 // a cycle cannot be stored; guard anyway
		}
		seen[s.ID] = true
		d := 0
		for _, n := range s.Needs {
			if dep, ok := in[n]; ok {
				d = max(d, walk(dep, seen)+1)
			}
		}
		depth[s.ID] = d
		return d
	}
	var out [][]*plan.Step
	for _, s := range ph.Steps {
		d := walk(s, map[string]bool{})
		for len(out) <= d {
			out = append(out, nil)
		}
		out[d] = append(out[d], s)
	}
	return out
}

// GraphSVG writes the plan's dependency graph as inline SVG.
func GraphSVG(w io.Writer, p *plan.Plan) {
	width := 2*margin + 2*phasePad + graphCols*nodeW + (graphCols-1)*colGap
	pos := map[string]box{}
	type band struct {
		ph   *plan.Phase
		y, h int
	}
	var bands []band
	y := margin
	for _, ph := range p.Phases {
		top := y
		y += phaseHead + phasePad
		for i, layer := range layers(ph) {
			if i > 0 {
				y += layerGap - rowGap
			}
			for row := 0; row*graphCols < len(layer); row++ {
				cells := layer[row*graphCols : min(len(layer), (row+1)*graphCols)]
				used := len(cells)*nodeW + (len(cells)-1)*colGap
				x := (width - used) / 2
				for _, s := range cells {
					pos[s.ID] = box{x, y}
					x += nodeW + colGap
				}
				y += nodeH + rowGap
			}
		}
		if len(ph.Steps) == 0 {
			y += nodeH + rowGap
		}
		y += phasePad - rowGap
		bands = append(bands, band{ph, top, y - top})
		y += phaseGap
	}
	height := max(y-phaseGap+margin, 2*margin+nodeH)
	fmt.Fprintf(w, "<svg id=\"dependency-graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"step dependency graph\">\n", width, height, width, height)
	fmt.Fprintf(w, "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#57606a\"/></marker></defs>\n")
	for _, bd := range bands {
		fmt.Fprintf(w, "<g class=\"cluster\" id=\"cluster-%s\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"8\" fill=\"#ffffff\" stroke=\"#d1d9e0\"/>", h(bd.ph.ID), margin, bd.y, width-2*margin, bd.h)
		title := bd.ph.Status().Icon() + " Phase " + bd.ph.ID + ": " + bd.ph.Title
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"600\" fill=\"#1f2328\">%s</text>", margin+phasePad, bd.y+19, h(cutLabel(oneLine(title), 120)))
		if len(bd.ph.Steps) == 0 {
			fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#59636e\">no steps</text>", margin+phasePad, bd.y+phaseHead+phasePad+20)
		}
		fmt.Fprintf(w, "</g>\n")
	}
	for _, s := range p.Steps() {
		to := pos[s.ID]
		for _, n := range s.Needs {
			from, ok := pos[n]
			if !ok {
				continue
			}
			var d string
			if to.y > from.y {
				x1, y1, x2, y2 := from.x+nodeW/2, from.y+nodeH, to.x+nodeW/2, to.y-2
				bend := max(12, (y2-y1)/2)
				d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, y1, x1, y1+bend, x2, y2-bend, x2, y2)
			} else {
				x1, y1, x2, y2 := from.x+nodeW, from.y+nodeH/2, to.x+nodeW+2, to.y+nodeH/2
				out := max(x1, x2) + 28
				d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, y1, out, y1, out, y2, x2, y2)
			}
			fmt.Fprintf(w, "<path class=\"edge\" data-from=\"%s\" data-to=\"%s\" d=\"%s\" fill=\"none\" stroke=\"#57606a\" stroke-width=\"1.3\" marker-end=\"url(#arrow)\"/>\n", h(n), h(s.ID), d)
		}
	}
	ready := readySet(p)
	for _, s := range p.Steps() {
		b := pos[s.ID]
		c := statusFill[s.Status]
		class, state, stroke := "", string(s.Status), "1"
		if ready[s.ID] {
			class, state, stroke = " ready", "ready", "2.5"
		}
		fmt.Fprintf(w, "<g class=\"node s-%s%s\" id=\"node-%s\"><title>%s %s: %s (%s)</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>",
			s.Status, class, h(s.ID), s.Status.Icon(), h(s.ID), h(s.Text), state, b.x, b.y, nodeW, nodeH, c[0], c[1], stroke)
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#1f2328\"><tspan fill=\"%s\">%s</tspan> <tspan fill=\"#59636e\">%s</tspan> %s</text></g>\n",
			b.x+9, b.y+nodeH/2+4, c[1], s.Status.Icon(), h(s.ID), h(cutLabel(oneLine(s.Text), labelMax)))
	}
	fmt.Fprintf(w, "</svg>\n")
}

func cutLabel(s string, n int) string {
	r := []rune(s)
	if n < 4 || len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// ProgressSVG writes steps done against steps in the plan, revision by
// revision, as an inline SVG chart.
func ProgressSVG(w io.Writer, revs []history.Revision) {
	const (
		width, height        = 1032, 250
		left, right, top, bt = 46, 16, 18, 34
	)
	plotW, plotH := width-left-right, height-top-bt
	most := 1
	for _, r := range revs {
		most = max(most, r.Total, r.Done)
	}
	n := len(revs)
	xAt := func(i int) float64 {
		if n <= 1 {
			return float64(left + plotW/2)
		}
		return float64(left) + float64(i)*float64(plotW)/float64(n-1)
	}
	yAt := func(v int) float64 { return float64(top) + float64(plotH)*(1-float64(v)/float64(most)) }
	fmt.Fprintf(w, "<svg id=\"progress-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"steps done over revisions\">\n", width, height, width, height)
	for _, v := range []int{0, most / 2, most} {
		y := yAt(v)
		fmt.Fprintf(w, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#d1d9e0\"/><text x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"#59636e\" text-anchor=\"end\">%d</text>\n", left, y, width-right, y, left-6, y+4, v)
	}
	var total, done, area strings.Builder
	for i, r := range revs {
		fmt.Fprintf(&total, "%.1f,%.1f ", xAt(i), yAt(r.Total))
		fmt.Fprintf(&done, "%.1f,%.1f ", xAt(i), yAt(r.Done))
	}
	if n > 0 {
		fmt.Fprintf(&area, "%.1f,%.1f %s%.1f,%.1f", xAt(0), yAt(0), done.String(), xAt(n-1), yAt(0))
		fmt.Fprintf(w, "<polygon points=\"%s\" fill=\"#2da44e\" fill-opacity=\"0.15\"/>\n", area.String())
		fmt.Fprintf(w, "<polyline class=\"total\" points=\"%s\" fill=\"none\" stroke=\"#8c959f\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n", strings.TrimSpace(total.String()))
		fmt.Fprintf(w, "<polyline class=\"done\" points=\"%s\" fill=\"none\" stroke=\"#1a7f37\" stroke-width=\"2\"/>\n", strings.TrimSpace(done.String()))
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#59636e\">@%d</text><text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#59636e\" text-anchor=\"end\">@%d</text>\n",
			left, height-12, revs[0].N, width-right, height-12, revs[n-1].N)
	}
	fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#1a7f37\">— steps done</text><text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#59636e\">- - steps in the plan</text>\n",
		width/2-110, height-12, width/2+10, height-12)
	fmt.Fprintf(w, "</svg>\n")
}
