package interop

import (
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// seed001Plan is the plan.json the plan tool writes (seed 001, "生成的
// plan.json文件"): five steps, each {step, action, status, result}.
const seed001Plan = `{
  "task_description": "制作产品介绍视频",
  "steps": [
    {"step": 1, "action": "调研竞品视频风格", "status": "pending", "result": ""},
    {"step": 2, "action": "撰写脚本文案", "status": "pending", "result": ""},
    {"step": 3, "action": "生成配音", "status": "pending", "result": ""},
    {"step": 4, "action": "生成视频素材", "status": "pending", "result": ""},
    {"step": 5, "action": "合成最终视频", "status": "pending", "result": ""}
  ],
  "total_steps": 5,
  "completed_steps": 0,
  "in_progress_steps": 0,
  "pending_steps": 5,
  "failed_steps": 0
}`

// Seed 001, "如何更新计划":
//
//	# 方式1：重新调用create_plan（覆盖整个计划）
//	"steps": [
//	    {"step": 1, "action": "调研竞品", "status": "completed", "result": "已完成3个竞品分析"},
//	    {"step": 2, "action": "撰写脚本", "status": "in_progress", "result": ""},
//	    # ... 其他步骤
//	]
//
// The whole plan written again, steps 1 and 2 renamed: the steps are
// matched by their step number, updated in place, and the plan still has
// five steps.
func TestUpdatePlanToolByStepNumber(t *testing.T) {
	t.Parallel()
	first, err := Import("plan.json", []byte(seed001Plan), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	if !first.IDs {
		t.Fatal("the plan tool's step numbers are not kept as the steps' ids")
	}
	st := first.State
	again := strings.Replace(seed001Plan, `{"step": 1, "action": "调研竞品视频风格", "status": "pending", "result": ""}`,
		`{"step": 1, "action": "调研竞品", "status": "completed", "result": "已完成3个竞品分析"}`, 1)
	again = strings.Replace(again, `{"step": 2, "action": "撰写脚本文案", "status": "pending", "result": ""}`,
		`{"step": 2, "action": "撰写脚本", "status": "in_progress", "result": ""}`, 1)
	in, err := Import("plan.json", []byte(again), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	c, dropped, err := Update(st, in, t0)
	if err != nil {
		t.Fatal(err)
	}
	p := st.Plan
	if n := p.Counts().Total; n != 5 {
		t.Fatalf("%d steps after the plan was written again, want 5: %v", n, dropped)
	}
	s1, _, _ := p.Step("1")
	s2, _, _ := p.Step("2")
	if s1.Text != "调研竞品" || s1.Status != plan.StepCompleted || s1.Result != "已完成3个竞品分析" {
		t.Errorf("step 1: %+v", s1)
	}
	if s2.Text != "撰写脚本" || s2.Status != plan.StepInProgress {
		t.Errorf("step 2: %+v", s2)
	}
	if c.Summary != "import: updated in place — 2 steps changed (1, 2)" {
		t.Errorf("summary %q", c.Summary)
	}
	// The same file once more changes nothing.
	if c, _, err := Update(st, in, t0); err != nil || c.Op != "" {
		t.Errorf("a second update: %+v %v", c, err)
	}
}

// A todo list's ids are the list's, not the plan's: its steps are still
// matched by text, and a renamed todo is a new step.
func TestUpdateTodosByText(t *testing.T) {
	t.Parallel()
	first, err := Import("todos.json", []byte(`{"todos":[{"id":"1","content":"a","status":"pending"},{"id":"2","content":"b","status":"pending"}]}`), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	in, err := Import("todos.json", []byte(`{"todos":[{"id":"1","content":"c","status":"pending"},{"id":"2","content":"b","status":"completed"}]}`), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	if in.IDs {
		t.Fatal("a todo list's ids taken for the plan's")
	}
	if _, _, err := Update(first.State, in, t0); err != nil {
		t.Fatal(err)
	}
	p := first.State.Plan
	b, _, _ := p.Step("2")
	if p.Counts().Total != 3 || b.Status != plan.StepCompleted {
		t.Fatalf("%d steps, b %s", p.Counts().Total, b.Status)
	}
}

// Seed 003, "响应格式示例": the plan is created with
//
//	{"planResult": {"state": "Pending", "tasks": [{"id": "task-1",
//	 "description": "Research topic and gather information", "state": "Pending"}]},
//	 "executeState": "Pending", "reason": "Created initial plan"}
//
// and "执行任务" answers with the task alone:
//
//	{"currentTaskStatus": {"id": "task-1", "description": "Research topic and
//	 gather information", "state": "Running"}, "executeState": "Executing",
//	 "reason": "Started executing task-1"}
//
// which applies to task-1 of the plan: it is started, and nothing is added.
func TestPlanExecuteTaskResponse(t *testing.T) {
	t.Parallel()
	created := `{
  "planResult": {
    "state": "Pending",
    "tasks": [
      {
        "id": "task-1",
        "description": "Research topic and gather information",
        "state": "Pending"
      }
    ]
  },
  "executeState": "Pending",
  "reason": "Created initial plan"
}`
	running := `{
  "currentTaskStatus": {
    "id": "task-1",
    "description": "Research topic and gather information",
    "state": "Running"
  },
  "executeState": "Executing",
  "reason": "Started executing task-1"
}`
	first, err := Import("plan.json", []byte(created), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	st := first.State
	st.Plan.Status = plan.PlanRunning // approved
	in, err := Import("response.json", []byte(running), "", t0)
	if err != nil {
		t.Fatalf("the per-task response: %v", err)
	}
	if in.Format != FormatPlanExecute || !in.Partial || !in.IDs {
		t.Fatalf("format %s partial %v ids %v", in.Format, in.Partial, in.IDs)
	}
	c, dropped, err := Update(st, in, t0)
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := st.Plan.Step("1")
	if st.Plan.Counts().Total != 1 || s.Status != plan.StepInProgress {
		t.Fatalf("after the response: %d steps, task-1 %s; %v", st.Plan.Counts().Total, s.Status, dropped)
	}
	if c.Summary != "import: updated in place — 1 step changed (1)" {
		t.Errorf("summary %q", c.Summary)
	}
	// The task done, with its result.
	done := `{"currentTaskStatus": {"id": "task-1", "state": "Succeed", "result": "three sources"}, "executeState": "Executing"}`
	in, err = Import("response.json", []byte(done), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Update(st, in, t0); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := st.Plan.Step("1"); s.Status != plan.StepCompleted || s.Result != "three sources" || s.Text != "Research topic and gather information" {
		t.Fatalf("task-1 after Succeed: %+v", s)
	}
	// A response on a task the plan does not have adds nothing, and says so.
	other := `{"currentTaskStatus": {"id": "task-9", "description": "Write it up", "state": "Running"}}`
	in, _ = Import("response.json", []byte(other), "", t0)
	c, dropped, err = Update(st, in, t0)
	if err != nil || c.Op != "" || st.Plan.Counts().Total != 1 || !droppedAt(dropped, "step 9") {
		t.Fatalf("%+v %v %v", c, dropped, err)
	}
	// It cannot be appended: it has no steps of its own.
	_, _, err = Append(st, in, t0)
	wantCode(t, err, plan.CodeInvalidArgument)
	// A response with neither a plan nor a task is refused, naming both.
	_, err = Import("response.json", []byte(`{"executeState": "Executing", "reason": "thinking"}`), "", t0)
	if err == nil || !strings.Contains(err.Error(), "currentTaskStatus") {
		t.Fatalf("%v", err)
	}
}

// Seed 004, 3.5 FindingsManager.saveToFile writes each finding's content
// as it is:
//
//	md += `### ${item.title}\n\n`;
//	md += `${item.content}\n\n`;
//	if (item.source) { md += `*Source: ${item.source}*\n\n`; }
//
// so a finding's content can be a code block or a list. Both import, as
// they read, and a plangit findings.md written from them reads back the
// same.
func TestImportManusFindingsRawContent(t *testing.T) {
	t.Parallel()
	src := "# Findings & Notes\n\n> Research findings and important discoveries.\n\n" +
		"## Code\n\n### GetUser is the hot path\n\nEvery request calls it:\n\n" +
		"```go\nfunc (s *UserService) GetUser(id string) (*User, error) {\n\treturn s.db.Find(id)\n}\n```\n\n" +
		"*Source: src/services/user.go*\n\n" +
		"## Insight\n\n### Cache candidates\n\n- GetUser\n- ListUsers\n\n1. read-through\n2. write-through\n\n"
	in, err := Import("findings.md", []byte(src), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	fs := in.State.Findings
	if len(fs) != 2 {
		t.Fatalf("%d findings", len(fs))
	}
	code, list := fs.ByCategory(plan.CatCode)[0], fs.ByCategory(plan.CatInsight)[0]
	wantContent := "Every request calls it:\n\n```go\nfunc (s *UserService) GetUser(id string) (*User, error) {\n\treturn s.db.Find(id)\n}\n```"
	if code.Content != wantContent || code.Source != "src/services/user.go" {
		t.Errorf("code finding: %q from %q", code.Content, code.Source)
	}
	if list.Content != "- GetUser\n- ListUsers\n\n1. read-through\n2. write-through" {
		t.Errorf("list finding: %q", list.Content)
	}
	back, err := plan.ParseFindings(plan.WriteFindings(fs))
	if err != nil {
		t.Fatal(err)
	}
	if back[0].Content != fs[0].Content || back[1].Content != fs[1].Content {
		t.Errorf("written and read back: %q, %q", back[0].Content, back[1].Content)
	}
	// A block before any finding still belongs to none.
	_, err = Import("findings.md", []byte("# Findings & Notes\n\n## Code\n\n```\nx\n```\n"), FormatFindings, t0)
	wantCode(t, err, plan.CodePlanParseError)
}

// Seed 000, "Plan 初始结构": the plan maxclaw makes on the first tool call
// has goal = the person's message, steps = [] (filled in later),
// current_step_index = 0, status = "running". It imports: a plan titled
// with its goal and no steps yet. A maxclaw file with neither a goal nor
// a step holds nothing to import.
func TestImportInitialMaxclawPlan(t *testing.T) {
	t.Parallel()
	src := `{"id": "plan_abc123", "goal": "下载分析腾讯最近5年年度财报PDF，提取关键财务指标，制作成图表", "status": "running",
  "created_at": "2026-02-24T10:00:00Z", "updated_at": "2026-02-24T10:00:00Z", "steps": [], "current_step_index": 0, "iteration_count": 0}`
	in, err := Import("plan.json", []byte(src), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	p := in.State.Plan
	if in.Format != FormatMaxclaw || p.Title != "下载分析腾讯最近5年年度财报PDF，提取关键财务指标，制作成图表" || p.Counts().Total != 0 || p.Status != plan.PlanRunning {
		t.Fatalf("%s %q %d %s", in.Format, p.Title, p.Counts().Total, p.Status)
	}
	_, err = Import("plan.json", []byte(`{"steps": [], "current_step_index": 0}`), "", t0)
	wantCode(t, err, plan.CodePlanParseError)
}

// Seed 001, 验证点4: "缺少task_description时抛出ValueError" — the plan tool
// never writes a plan without its description. A file that lacks it
// still imports, titled with its first step (not a name every such import
// shares), and the report says so.
func TestImportPlanToolWithoutDescription(t *testing.T) {
	t.Parallel()
	in, err := Import("plan.json", []byte(`{"steps": [{"step": 1, "action": "调研竞品视频风格", "status": "pending"}, {"step": 2, "action": "撰写脚本文案", "status": "pending"}]}`), FormatPlanTool, t0)
	if err != nil {
		t.Fatal(err)
	}
	if in.State.Plan.Title != "调研竞品视频风格" || !droppedAt(in.Dropped, "title") {
		t.Fatalf("title %q, %v", in.State.Plan.Title, in.Dropped)
	}
}
