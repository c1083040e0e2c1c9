package plan

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// addSeeds adds the golden files and some random writes as fuzz seeds.
func addSeeds(f *testing.F, write func(r *rand.Rand) []byte, files ...string) {
	for _, name := range files {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b)
		}
	}
	for seed := 0; seed < 20; seed++ {
		f.Add(write(rand.New(rand.NewPCG(uint64(seed), 3))))
	}
}

// FuzzParsePlan: whatever ParsePlan accepts, it writes back to a form that
// parses again and is a fixed point of write∘parse; it never panics.
func FuzzParsePlan(f *testing.F) {
	addSeeds(f, func(r *rand.Rand) []byte { return WritePlan(randomPlan(r)) }, "demo_plan.md")
	f.Add([]byte("# T\n\n## Phase 1: A\n\n- [ ] one\n- [x] two\n  - result: r\n"))
	// A merge's conflicts: on a step, and on the plan's own fields.
	f.Add([]byte("# T\n\n> **Goal:** g\n>\n> **Conflict:** goal: \"a\\n\\\"b\\\"\" (abc1234) | removed (def5678)\n\n## Phase 1: A\n\n" +
		"- [ ] ○ one `#1`\n  - conflict: status: \"completed 2026-11-20T10:05:00Z → 2026-11-20T10:20:00Z retries:1\" (abc1234) | \"blocked\" (def5678)\n" +
		"  - conflict: removed: removed (abc1234) | \"changed\" (def5678)\n\n<!-- plangit next-step=2 next-finding=4 next-error=3 -->\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := ParsePlan(src)
		if err != nil {
			return
		}
		out := WritePlan(p)
		q, err := ParsePlan(out)
		if err != nil {
			t.Fatalf("written plan does not parse: %v\n--- input\n%q\n--- written\n%s", err, src, out)
		}
		if out2 := WritePlan(q); !bytes.Equal(out, out2) {
			t.Fatalf("write(parse(x)) is not a fixed point\n--- input\n%q\n--- first\n%s\n--- second\n%s", src, out, out2)
		}
	})
}

// FuzzParseFindings is FuzzParsePlan for findings.md.
func FuzzParseFindings(f *testing.F) {
	addSeeds(f, func(r *rand.Rand) []byte { return WriteFindings(randomFindings(r)) }, "findings.md")
	f.Fuzz(func(t *testing.T, src []byte) {
		fs, err := ParseFindings(src)
		if err != nil {
			return
		}
		out := WriteFindings(fs)
		again, err := ParseFindings(out)
		if err != nil {
			t.Fatalf("written findings do not parse: %v\n%q\n%s", err, src, out)
		}
		if out2 := WriteFindings(again); !bytes.Equal(out, out2) {
			t.Fatalf("not a fixed point\n%q\n%s\n---\n%s", src, out, out2)
		}
	})
}

// FuzzParseErrors is FuzzParsePlan for errors.md.
func FuzzParseErrors(f *testing.F) {
	addSeeds(f, func(r *rand.Rand) []byte { return WriteErrors(randomErrors(r)) }, "errors.md")
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := ParseErrors(src)
		if err != nil {
			return
		}
		out := WriteErrors(l)
		again, err := ParseErrors(out)
		if err != nil {
			t.Fatalf("written errors do not parse: %v\n%q\n%s", err, src, out)
		}
		if out2 := WriteErrors(again); !bytes.Equal(out, out2) {
			t.Fatalf("not a fixed point\n%q\n%s\n---\n%s", src, out, out2)
		}
	})
}
