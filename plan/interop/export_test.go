package interop

import (
	"bytes"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// The seeds' own examples, as their documents give them.
const (
	// Seed 000, "Plan Schema".
	seed000Plan = `{
  "id": "plan_abc123",
  "goal": "下载分析腾讯最近5年年度财报PDF，提取关键财务指标，制作成图表",
  "status": "running",
  "created_at": "2026-02-24T10:00:00Z",
  "updated_at": "2026-02-24T10:30:00Z",
  "steps": [
    {"id": "step_1", "description": "搜索腾讯2020-2024年财报PDF链接", "status": "completed", "result": "找到5个PDF链接: tencent_2024.pdf, tencent_2023.pdf...",
     "progress": {"current": 5, "total": 5}, "started_at": "2026-02-24T10:00:05Z", "completed_at": "2026-02-24T10:02:30Z"},
    {"id": "step_2", "description": "下载所有PDF文件到本地", "status": "running", "result": "",
     "progress": {"current": 2, "total": 5}, "started_at": "2026-02-24T10:02:35Z", "completed_at": null}
  ],
  "current_step_index": 1,
  "iteration_count": 15
}`
	// Seed 002, "2.1 核心数据结构".
	seed002Plan = `{
  "meta": {"goal": "在京东网站上搜索'机械键盘'，并将价格低于500元的第一款产品加入购物车", "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-01T00:00:00Z"},
  "state": {"current_task_id": 1, "status": "running"},
  "tasks": [
    {"id": 1, "name": "Navigate to JD homepage", "status": "in_progress", "dependencies": [], "reasoning": "Need to open the target website first", "result": null},
    {"id": 2, "name": "Search for mechanical keyboard", "status": "pending", "dependencies": [1], "reasoning": "Can only search after homepage is loaded", "result": null},
    {"id": 3, "name": "Filter results by price under 500", "status": "pending", "dependencies": [2], "reasoning": "Need search results before applying filters", "result": null},
    {"id": 4, "name": "Add first item to cart", "status": "pending", "dependencies": [3], "reasoning": "Need filtered results to select the first item", "result": null}
  ]
}`
	// Seed 003, "创建计划".
	seed003Plan = `{"planResult": {"state": "Pending", "tasks": [{"id": "task-1", "description": "Research topic and gather information", "state": "Pending"}]},
  "executeState": "Pending", "reason": "Created initial plan"}`
	// Seed 004, "8.2 生成的 task_plan.md".
	seed004Plan = "# UserService 缓存重构\n\n> **Objective:** Task objectives extracted from todos\n\n> **Progress:** 0/5 steps completed\n\n---\n\n" +
		"## ○ Phase: Main Tasks\n\n- [ ] ○ 分析现有 UserService 实现\n- [ ] ○ 设计缓存策略\n- [ ] ○ 实现缓存层\n- [ ] ○ 更新 UserService 使用缓存\n- [ ] ○ 编写测试\n\n" +
		"---\n*Last updated: 2026-01-14T10:30:00.000Z*\n"
)

// Import → export → import changes nothing, for every export format and
// its seed's own example: the export imported into the session the first
// import made is no change, and its export is the same bytes.
func TestExportRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ format, src string }{
		{FormatMaxclaw, seed000Plan},
		{FormatPlanTool, seed001Plan},
		{FormatPlanManager, seed002Plan},
		{FormatPlanExecute, seed003Plan},
		{FormatManus, seed004Plan},
	} {
		t.Run(tc.format, func(t *testing.T) {
			first, err := Import("plan", []byte(tc.src), "", t0)
			if err != nil {
				t.Fatal(err)
			}
			files, err := Export(first.State, tc.format)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Import(files[0].Name, files[0].Data, "", t0)
			if err != nil {
				t.Fatalf("the export does not import: %v\n%s", err, files[0].Data)
			}
			if again.Format != tc.format {
				t.Errorf("the export imports as %s", again.Format)
			}
			c, dropped, err := Update(first.State, again, t0)
			if err != nil || c.Op != "" {
				t.Errorf("the export changes the plan: %+v %v %v", c, err, dropped)
			}
			files2, err := Export(again.State, tc.format)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(files[0].Data, files2[0].Data) {
				t.Errorf("export of the import of an export differs:\n%s\n---\n%s", files[0].Data, files2[0].Data)
			}
		})
	}
}

// A plangit plan with everything the formats hold — phases, needs, a
// result, progress, findings and errors — comes back from each export as
// far as the format holds it (the Manus layout holds no results, the
// Plan-and-Execute plan no title), and its second export is the same
// bytes.
func TestExportPlangitPlan(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	p.Transition("1", plan.ActStart, plan.TransitionOpts{}, t0)
	p.Transition("1", plan.ActDone, plan.TransitionOpts{Result: "3 hot paths"}, t0)
	p.Transition("2", plan.ActStart, plan.TransitionOpts{}, t0)
	st := &plan.State{Plan: p}
	st.Findings.Add(plan.Finding{Category: plan.CatCode, Title: "GetUser is hot", Content: "called on every request:\n\n```go\ns.GetUser(id)\n```", Source: "user.go"}, t0)
	st.Errors.Merge(&plan.ErrorRecord{Tool: "Bash", Message: "go test failed", Count: 2, First: t0, Last: t0})
	for _, f := range ExportFormats {
		t.Run(f, func(t *testing.T) {
			files, err := Export(st, f)
			if err != nil {
				t.Fatal(err)
			}
			in, err := Import(files[0].Name, files[0].Data, "", t0)
			if err != nil {
				t.Fatalf("%v\n%s", err, files[0].Data)
			}
			got := in.State.Plan
			// A tasks.md holds a checkbox: done or not; no result, and a
			// task id before each step's text.
			tasks := f == FormatSpecKit || f == FormatOpenSpec
			if got.Counts() != p.Counts() && !tasks {
				t.Errorf("counts %+v, want %+v", got.Counts(), p.Counts())
			}
			for i, s := range got.Steps() {
				want := p.Steps()[i]
				if tasks {
					if stripLabel(s.Text) != want.Text || s.Status.Resolved() != want.Status.Resolved() {
						t.Errorf("step %d: %+v, want %+v", i, s, want)
					}
					continue
				}
				// The Manus layout has no field for a step's result.
				if s.Text != want.Text || s.Status != want.Status || s.Result != want.Result && f != FormatManus {
					t.Errorf("step %d: %+v, want %+v", i, s, want)
				}
			}
			if f == FormatPlanManager {
				if s, _, _ := got.Step("3"); len(s.Needs) != 1 || s.Needs[0] != "2" {
					t.Errorf("PlanManager dependencies: %v", s.Needs)
				}
			}
			if f != FormatPlanExecute && got.Title != p.Title {
				t.Errorf("title %q", got.Title)
			}
			if f == FormatManus {
				if len(files) != 3 || files[1].Name != "findings.md" || files[2].Name != "errors.md" {
					t.Fatalf("manus files: %v", files)
				}
				fi, err := Import("findings.md", files[1].Data, "", t0)
				if err != nil || len(fi.State.Findings) != 1 || fi.State.Findings[0].Content != st.Findings[0].Content || fi.State.Findings[0].Source != "user.go" {
					t.Fatalf("findings.md: %v %+v\n%s", err, fi, files[1].Data)
				}
				er, err := Import("errors.md", files[2].Data, "", t0)
				if err != nil || len(er.State.Errors) != 1 || er.State.Errors[0].Count != 2 || er.State.Errors[0].Message != "go test failed" {
					t.Fatalf("errors.md: %v\n%s", err, files[2].Data)
				}
			}
			in.State.Plan.ID = p.ID // the session's, as an import takes it
			again, err := Export(in.State, f)
			if err != nil {
				t.Fatal(err)
			}
			if f != FormatManus && f != FormatPlanExecute && !bytes.Equal(again[0].Data, files[0].Data) {
				t.Errorf("second export differs:\n%s\n---\n%s", files[0].Data, again[0].Data)
			}
		})
	}
}

// PlanManager's getPlanStatus (seed 002, 3.3): "progress": 0.4 with 2 of
// 5 tasks completed. The export's state carries the same fraction.
func TestExportPlanManagerProgress(t *testing.T) {
	t.Parallel()
	if got := PlanManagerProgress(plan.Counts{Total: 5, Completed: 2, Done: 2}); got != 0.4 {
		t.Fatalf("progress %v, want 0.4", got)
	}
	in, _ := Import("plan.json", []byte(seed002Plan), "", t0)
	in.State.Plan.Transition("1", plan.ActDone, plan.TransitionOpts{Result: "loaded"}, t0)
	files, _ := Export(in.State, "planmanager")
	if !strings.Contains(string(files[0].Data), `"progress": 0.25`) {
		t.Fatalf("no progress fraction:\n%s", files[0].Data)
	}
}

// An unknown export format is INVALID_ARGUMENT naming the formats.
func TestExportUnknownFormat(t *testing.T) {
	t.Parallel()
	_, err := Export(&plan.State{Plan: samplePlan(t)}, "todos")
	wantCode(t, err, plan.CodeInvalidArgument)
	if !strings.Contains(err.Error(), strings.Join(ExportFormats, ", ")) {
		t.Fatalf("%v", err)
	}
}
