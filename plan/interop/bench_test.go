package interop

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkImportMany imports planning-with-files plans of many small
// blocks at 1 MB and 2 MB: the time doubles with the size. Joining a
// field read from many blocks and adding a finding or an error among all
// the others each made it grow with the square.
func BenchmarkImportMany(b *testing.B) {
	rows := func(n int, row func(i int) string) string {
		var s strings.Builder
		for i := 0; s.Len() < n; i++ {
			s.WriteString(row(i))
		}
		return s.String()
	}
	pwf := "# Task Plan: x\n\n## Goal\ng\n\n## Phases\n\n### Phase 1: A\n- [ ] a\n\n"
	for _, c := range []struct {
		name string
		src  func(n int) string
	}{
		{"pwf phases", func(n int) string {
			return pwf + rows(n, func(i int) string { return fmt.Sprintf("### Phase %d: A\n- [x] a\n", i+1) })
		}},
		{"pwf decisions", func(n int) string {
			return pwf + "## Decisions Made\n| Decision | Rationale |\n|--|--|\n" + rows(n, func(i int) string { return fmt.Sprintf("| d%d | r |\n", i) })
		}},
		{"pwf errors", func(n int) string {
			return pwf + "## Errors Encountered\n| Error | Attempt | Resolution |\n|--|--|--|\n" + rows(n, func(i int) string { return fmt.Sprintf("| e%d | 2 | r |\n", i) })
		}},
	} {
		for _, n := range []int{1 << 20, 2 << 20} {
			src := []byte(c.src(n))
			b.Run(fmt.Sprintf("%s/%dMB", c.name, n>>20), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					if _, err := Import("task_plan.md", src, FormatPWF, tImport); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
