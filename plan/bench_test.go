package plan

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchPlan is a plan of n steps in phases of 10, a third done, with needs,
// results and progress, as a long agent session leaves it.
func benchPlan(tb testing.TB, n int) *Plan {
	tb.Helper()
	p, err := New("bench", "A long plan", "exercise the parser", nil, t0, false)
	if err != nil {
		tb.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if (i-1)%10 == 0 {
			p.AddPhase(fmt.Sprintf("Phase of steps %d to %d", i, i+9), "", t0)
		}
		spec := StepSpec{Text: fmt.Sprintf("Step %d: change `pkg/file%d.go` and run the tests", i, i)}
		if i > 1 {
			spec.Needs = []string{strconv.Itoa(i - 1)}
		}
		if _, err := p.AddStep(spec, t0); err != nil {
			tb.Fatal(err)
		}
	}
	for i := 1; i <= n/3; i++ {
		id := strconv.Itoa(i)
		p.Transition(id, ActStart, TransitionOpts{}, t0)
		p.Transition(id, ActDone, TransitionOpts{Result: "done, tests pass"}, t0.Add(time.Minute))
	}
	if n > 3 {
		p.Transition(strconv.Itoa(n/3+1), ActStart, TransitionOpts{}, t0)
		p.SetProgress(strconv.Itoa(n/3+1), Progress{Current: 2, Total: 5}, t0)
	}
	return p
}

func BenchmarkParsePlan(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		src := WritePlan(benchPlan(b, n))
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParsePlan(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkWritePlan(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		p := benchPlan(b, n)
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				WritePlan(p)
			}
		})
	}
}

// BenchmarkParseNested parses the deeply nested files that took seconds
// when goldmark read every ">": each is within 100 ms now (the nesting
// limit; TestParseWorkLinear counts the work).
func BenchmarkParseNested(b *testing.B) {
	quotes := func(n int) string { return strings.Repeat(">", n) }
	var eight strings.Builder
	eight.WriteString("# Findings\n\n## Insight\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&eight, "\n### finding %d `#%d`\n\n> %s\n", i, i, quotes(MaxText-2))
	}
	head := "# T\n\n> **Goal:** g\n\n## Phase 1: A\n\n"
	var lines strings.Builder
	lines.WriteString(head)
	for lines.Len() < 7<<20 {
		lines.WriteString("> " + quotes(64<<10) + "\n")
	}
	for _, c := range []struct {
		name  string
		src   string
		parse func([]byte) error
	}{
		{"eight findings of 64 KB of >", eight.String(), func(src []byte) error { _, err := ParseFindings(src); return err }},
		{"a 200 KB line", head + "> " + quotes(200<<10) + "\n", func(src []byte) error { _, err := ParsePlan(src); return err }},
		{"7 MB of 64 KB lines", lines.String(), func(src []byte) error { _, err := ParsePlan(src); return err }},
		{"a 7 MB line", head + "> " + quotes(7<<20) + "\n", func(src []byte) error { _, err := ParsePlan(src); return err }},
	} {
		src := []byte(c.src)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if err := c.parse(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseMany parses files of many small blocks at 1 MB and 2 MB:
// the time doubles with the size. Reading a block's line, joining a field
// read from many blocks, checking an id against every other and adding a
// finding or an error among all the others each made it grow with the
// square.
func BenchmarkParseMany(b *testing.B) {
	rows := func(n int, row func(i int) string) string {
		var s strings.Builder
		for i := 0; s.Len() < n; i++ {
			s.WriteString(row(i))
		}
		return s.String()
	}
	for _, c := range []struct {
		name  string
		src   func(n int) string
		parse func([]byte) error
	}{
		{"plan notes", func(n int) string { return "# T\n\n## Phase 1: A\n\n" + strings.Repeat("note\n\n", n/6) }, func(src []byte) error { _, err := ParsePlan(src); return err }},
		{"errors", func(n int) string {
			return "# Errors\n" + rows(n, func(i int) string { return fmt.Sprintf("\n## Bash ×1 `#%d`\n\n> failed\n", i+1) })
		}, func(src []byte) error { _, err := ParseErrors(src); return err }},
		{"finding content", func(n int) string {
			return "# Findings\n\n## Insight\n\n### t `#1`\n\n" + strings.Repeat("text\n\n", n/6)
		}, func(src []byte) error { _, err := ParseFindings(src); return err }},
	} {
		for _, n := range []int{1 << 20, 2 << 20} {
			src := []byte(c.src(n))
			b.Run(fmt.Sprintf("%s/%dMB", c.name, n>>20), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					if err := c.parse(src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// claimsPlan is a plan of n ready steps (phase order free) of which the
// first live are held by other agents' claims, as many agents on one plan
// leave it.
func claimsPlan(tb testing.TB, n, live int) *Plan {
	tb.Helper()
	p, err := New("bench", "Many agents, one plan", "claim steps", nil, t0, false)
	if err != nil {
		tb.Fatal(err)
	}
	p.Rules.PhaseOrder = PhasesFree
	for i := 1; i <= n; i++ {
		if (i-1)%20 == 0 {
			p.AddPhase(fmt.Sprintf("Phase of steps %d to %d", i, i+19), "", t0)
		}
		if _, err := p.AddStep(StepSpec{Text: fmt.Sprintf("Step %d: change `pkg/file%d.go` and run the tests", i, i)}, t0); err != nil {
			tb.Fatal(err)
		}
	}
	for i := 1; i <= live; i++ {
		if _, err := p.Claim(strconv.Itoa(i), ClaimOpts{Agent: fmt.Sprintf("agent-%d", i), Lease: time.Hour}, t0); err != nil {
			tb.Fatal(err)
		}
	}
	return p
}

// BenchmarkClaim is next --claim's work on a 400-step plan with 20 live
// claims: find the first claimable step and claim it, on a copy of the
// plan as a change makes one.
func BenchmarkClaim(b *testing.B) {
	p := claimsPlan(b, 400, 20)
	now := t0.Add(time.Minute)
	b.ReportAllocs()
	for b.Loop() {
		q := p.Clone()
		ready := q.Claimable(now)
		if len(ready) == 0 {
			b.Fatal("no claimable step")
		}
		if _, err := q.Claim(ready[0].ID, ClaimOpts{Agent: "bench", Lease: time.Hour}, now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFenced is the claims' rule applied to one change of a
// 400-step plan with 20 live claims — as every change to such a plan
// applies it — for a claim of a free step, for the holder's change to its
// own step, and for another agent's change it refuses.
func BenchmarkFenced(b *testing.B) {
	before := claimsPlan(b, 400, 20)
	now := t0.Add(time.Minute)
	for _, c := range []struct {
		name   string
		fence  Fence
		change func(*Plan) error
		refuse bool
	}{
		{"claim", Fence{Agent: "bench"}, func(p *Plan) error {
			_, err := p.Claim("21", ClaimOpts{Agent: "bench", Lease: time.Hour}, now)
			return err
		}, false},
		{"holder", Fence{Agent: "agent-5", Token: 5}, func(p *Plan) error {
			_, err := p.SetProgress("5", Progress{Current: 1, Total: 2}, now)
			return err
		}, false},
		{"refused", Fence{Agent: "bench"}, func(p *Plan) error {
			_, err := p.Transition("5", ActDone, TransitionOpts{Result: "done"}, now)
			return err
		}, true},
	} {
		after := before.Clone()
		if err := c.change(after); err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Fenced(before, after, c.fence, now); (err != nil) != c.refuse {
					b.Fatalf("Fenced: %v", err)
				}
			}
		})
	}
}
