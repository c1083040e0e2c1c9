package interop

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
)

// FuzzImport: importing never panics; an imported state always writes
// files that parse, with at most one step in progress.
func FuzzImport(f *testing.F) {
	for _, s := range []string{
		`{"todos":[{"content":"a","status":"completed","activeForm":"A-ing"},{"content":"b","status":"in_progress"}]}`,
		`[{"id":"1","subject":"s","status":"pending","blockedBy":["2"]},{"id":"2","subject":"t"}]`,
		`{"goal":"g","steps":[{"id":"step_1","description":"d","status":"running"}],"current_step_index":0}`,
		`{"task_description":"t","steps":["a",{"description":"b","status":"done"}]}`,
		`{"meta":{"goal":"g"},"state":{"status":"running"},"tasks":[{"id":1,"name":"n","dependencies":[2]},{"id":2,"name":"m"}]}`,
		`{"planResult":{"state":"Executing","tasks":[{"id":"task-1","description":"d","state":"Running"}]},"executeState":"Executing"}`,
		"# Task Plan: x\n\n## Goal\ng\n\n### Phase 1: A\n- [x] a\n- **Status:** complete\n\n## Errors Encountered\n| Error | Attempt | Resolution |\n|--|--|--|\n| e | 2 | r |\n",
		"# T\n\n> **Objective:** o\n\n## ◐ Phase: A\n\n- [ ] ◐ a\n- [x] ● b\n\n*Last updated: 2026-01-14T10:30:00.000Z*\n",
	} {
		f.Add([]byte(s))
	}
	for _, name := range []string{"pwf_full_task_plan.md", "plan_tool_result.json", "claude_tasks.json"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "import", name)); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		in, err := Import("input", src, "", time.Unix(0, 0))
		if err != nil {
			return
		}
		files := in.State.Files()
		st, err := plan.ParseState(files)
		if err != nil {
			t.Fatalf("imported state does not write valid files: %v\n%q\n%s", err, src, files[plan.PlanFile])
		}
		if c := st.Plan.Counts(); c.InProgress > 1 || c.Total == 0 {
			t.Fatalf("%d of %d steps in progress\n%q", c.InProgress, c.Total, src)
		}
	})
}
