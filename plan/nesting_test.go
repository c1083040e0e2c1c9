package plan

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// workReader counts goldmark's work on a source: one for each line and
// advance, and for each LineOffset the columns it measures from the start
// of the line — the work that grew with the square of a line's nesting.
type workReader struct {
	text.Reader
	src  []byte
	work int
}

func (r *workReader) LineOffset() int {
	_, seg := r.Position()
	r.work += 1 + seg.Start - (bytes.LastIndexByte(r.src[:seg.Start], '\n') + 1)
	return r.Reader.LineOffset()
}

func (r *workReader) PeekLine() ([]byte, text.Segment) {
	r.work++
	return r.Reader.PeekLine()
}

func (r *workReader) Advance(n int) {
	r.work++
	r.Reader.Advance(n)
}

func (r *workReader) AdvanceLine() {
	r.work++
	r.Reader.AdvanceLine()
}

// parseWork parses src as parseDoc does and returns goldmark's work and
// the syntax tree.
func parseWork(src []byte) (int, ast.Node) {
	r := &workReader{Reader: text.NewReader(limitNesting(src)), src: src}
	root := mdParser().Parse(r)
	return r.work, root
}

// depth is the deepest chain of block quotes and list items in the tree.
func depth(n ast.Node) int {
	deepest := 0
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		deepest = max(deepest, depth(c))
	}
	switch n.(type) {
	case *ast.Blockquote, *ast.ListItem:
		deepest++
	}
	return deepest
}

// pathological are sources of n bytes or so in the shapes that made
// goldmark's work grow with the square of their size.
var pathological = map[string]func(n int) string{
	"quotes on one line":    func(n int) string { return "> " + strings.Repeat(">", n) + "\n" },
	"quotes and spaces":     func(n int) string { return strings.Repeat("> ", n/2) + "x\n" },
	"quotes and tabs":       func(n int) string { return strings.Repeat(">\t", n/2) + "x\n" },
	"bullets on one line":   func(n int) string { return strings.Repeat("- ", n/2) + "x\n" },
	"numbers on one line":   func(n int) string { return strings.Repeat("1. ", n/3) + "x\n" },
	"quotes in lists":       func(n int) string { return strings.Repeat("> - ", n/4) + "x\n" },
	"lines after quotes":    func(n int) string { return strings.Repeat(">", n/2) + " x\n" + strings.Repeat("y\n", n/4) },
	"lines after bullets":   func(n int) string { return strings.Repeat("- ", n/4) + "x\n" + strings.Repeat("y\n", n/4) },
	"long quoted lines":     func(n int) string { return strings.Repeat(strings.Repeat(">", 100)+" x\n", n/102) },
	"indented lists":        func(n int) string { return indented(n, false) },
	"lines after indenting": func(n int) string { return indented(n, true) },
}

// indented is a list nested one level deeper on each line, by indentation
// alone, followed by as much text when lazy.
func indented(n int, lazy bool) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(strings.Repeat(" ", 2*i) + "- x\n")
		if lazy && b.Len() > n/2 {
			b.WriteString(strings.Repeat("y\n", n/4))
		}
	}
	return b.String()
}

// TestNestingLimit: a line reads at most MaxNesting quote and list markers,
// each within MaxNestingColumn columns; what is past the limit is the
// line's text, kept as written.
func TestNestingLimit(t *testing.T) {
	deep := strings.Repeat(">", MaxText-100) // as long as a finding's content may be
	cases := []struct {
		name, src string
		depth     int
	}{
		{"quotes", "> " + deep + "\n", MaxNesting},
		{"quotes and spaces", strings.Repeat("> ", 40) + "x\n", MaxNesting},
		{"bullets", strings.Repeat("- ", 40) + "x\n", MaxNesting},
		{"numbers", strings.Repeat("1. ", 40) + "x\n", MaxNestingColumn/3 + 1},
		{"a marker past the columns", strings.Repeat(" ", MaxNestingColumn) + "> x\n", 0},
		{"a thematic break past the limit", strings.Repeat("- ", 40) + "\n", 0},
		{"within the limits", strings.Repeat("> ", 8) + "- > - x\n", 11},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := ParseDoc("x", []byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := depth(d.Root); got != c.depth {
				t.Errorf("nested %d deep, want %d", got, c.depth)
			}
		})
	}
	// Within the limits goldmark parses the source itself.
	src := []byte(strings.Repeat("> ", MaxNesting-1) + "- x\n" + strings.Repeat(" ", MaxNestingColumn-1) + "> y\n")
	if out := limitNesting(src); &out[0] != &src[0] {
		t.Error("a source within the limits was copied")
	}
	// The text past the limit is the quote's, exactly as written: a
	// finding's content and a phase's notes round-trip.
	fs := Findings{{ID: "1", Category: CatInsight, Title: "t", Content: deep + "\n\n" + strings.Repeat("- ", 40) + "x"}}
	got, err := ParseFindings(WriteFindings(fs))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Content != fs[0].Content {
		t.Errorf("the content did not round-trip")
	}
	p := benchPlan(t, 3)
	p.Phases[0].Notes = strings.Repeat("> ", 40) + "x\n" + deep
	q, err := ParsePlan(WritePlan(p))
	if err != nil {
		t.Fatal(err)
	}
	if q.Phases[0].Notes != p.Phases[0].Notes {
		t.Errorf("the notes did not round-trip: %q", Clip(q.Phases[0].Notes))
	}
}

// TestParseWorkLinear: goldmark's work grows with the size of the source,
// whatever its shape: twice the source is at most a little over twice the
// work. Work is counted, not timed (BenchmarkParseNested times it).
func TestParseWorkLinear(t *testing.T) {
	for name, mk := range pathological {
		t.Run(name, func(t *testing.T) {
			small, root := parseWork([]byte(mk(16 << 10)))
			large, _ := parseWork([]byte(mk(32 << 10)))
			if large > 2*small+small/10 {
				t.Errorf("twice the source is %.1f times the work (%d, %d)", float64(large)/float64(small), small, large)
			}
			if d := depth(root); d > MaxNesting+MaxNestingColumn {
				t.Errorf("nested %d deep", d)
			}
		})
	}
}

// maxWorkPerByte bounds goldmark's work per byte of source, as workReader
// counts it. The deepest nesting the limits allow costs some 30 a byte.
const maxWorkPerByte = 100

// FuzzParseWork: no source makes goldmark work more than linearly in its
// size, or nests deeper than the limits allow.
func FuzzParseWork(f *testing.F) {
	for _, mk := range pathological {
		f.Add([]byte(mk(4 << 10)))
	}
	f.Add([]byte(strings.Repeat("  ", 40) + strings.Repeat("- > ", 20) + "\n  y\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		work, root := parseWork(src)
		if work > maxWorkPerByte*(len(src)+64) {
			t.Fatalf("%d bytes cost %d work\n%q", len(src), work, Clip(string(src)))
		}
		if d := depth(root); d > MaxNesting+MaxNestingColumn {
			t.Fatalf("nested %d deep\n%q", d, Clip(string(src)))
		}
	})
}

// TestAddAllAsAdd: adding findings in one pass, and merging errors into an
// empty log in one pass, give what adding them one by one gives.
func TestAddAllAsAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 6))
	for range 200 {
		var one, all Findings
		for range r.IntN(6) {
			f := &Finding{ID: strconv.Itoa(1 + r.IntN(9)), Category: Categories[r.IntN(len(Categories))]}
			g := *f
			one, all = append(one, f), append(all, &g) // in any order, as a hand edit leaves them
		}
		var add []*Finding
		for i := range r.IntN(8) {
			add = append(add, &Finding{Title: strconv.Itoa(i), Category: Categories[r.IntN(len(Categories))]})
		}
		for _, f := range add {
			c := *f
			one.Insert(&c)
		}
		all.InsertAll(add)
		if string(WriteFindings(one)) != string(WriteFindings(all)) || len(one) != len(all) {
			t.Fatalf("one by one:\n%s\nin one pass:\n%s", WriteFindings(one), WriteFindings(all))
		}

		var recs []*ErrorRecord
		for i := range r.IntN(8) {
			e := &ErrorRecord{Tool: "Bash", Message: "error " + strconv.Itoa(i), Count: 1}
			if r.IntN(3) > 0 {
				e.First = t0.Add(time.Duration(r.IntN(3)) * time.Minute)
				e.Last = e.First
			}
			e.Resolved = r.IntN(2) == 0
			recs = append(recs, e)
		}
		var byOne, inOne ErrorLog
		for _, e := range recs {
			byOne.Merge(e)
		}
		inOne.MergeAll(recs)
		if string(WriteErrors(byOne)) != string(WriteErrors(inOne)) {
			t.Fatalf("one by one:\n%s\nin one pass:\n%s", WriteErrors(byOne), WriteErrors(inOne))
		}
	}
}
