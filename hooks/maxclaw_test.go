package hooks

import (
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// The maxclaw seed (000), "2. Step Progression": when a step is detected
// complete,
//
//	currentStep.status = "completed"
//	currentStep.result = summarizeStepResult(timeline)
//	plan.current_step_index++
//	if plan.current_step_index < len(plan.steps) {
//	    nextStep.status = "running"
//
// and its design table: "生命周期 | Agent 自主管理 | LLM 经常忘记调用工具，
// 机械工作由 Agent 处理". "3. Step Creation": "[Step] 下载2024年财报PDF".

var (
	nextUse     = map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "plangit next"}}
	maxclawMsgs = []string{
		"找到5个PDF链接: tencent_2024.pdf, tencent_2023.pdf...\n\n接下来下载所有PDF文件到本地。",
	}
)

// TestStepLinesStartTheFirstStep: a plan made from [Step] lines starts its
// first step, as maxclaw's plan runs from current_step_index 0; so does a
// plan made at the first tool use ("第一轮 LLM 响应包含工具调用", steps
// empty) once [Step] lines fill it.
func TestStepLinesStartTheFirstStep(t *testing.T) {
	t.Parallel()
	t.Run("from [Step] lines", func(t *testing.T) {
		f := newFixture(t)
		f.send("Stop", map[string]any{"last_assistant_message": "[Step] 下载2024年财报PDF\n[Step] 提取关键财务指标"})
		if s1, s2 := f.step("1"), f.step("2"); s1.Status != plan.StepInProgress || s2.Status != plan.StepPending {
			t.Fatalf("steps 1 and 2 are %s and %s", s1.Status, s2.Status)
		}
		revs := f.revisions(sessionID)
		if got := revs[len(revs)-1].Summary; got != "init: from [Step] lines (2 steps); step 1 started" {
			t.Errorf("the revision says %q", got)
		}
	})
	t.Run("from the first tool use", func(t *testing.T) {
		f := newFixture(t)
		f.send(UserPromptSubmit, map[string]any{"prompt": "下载分析腾讯最近5年年度财报PDF，提取关键财务指标，制作成图表"})
		f.send("PostToolUse", readUse)
		if n := len(f.state(sessionID).Plan.Steps()); n != 0 {
			t.Fatalf("the plan of the first tool use has %d steps", n)
		}
		f.send("Stop", map[string]any{"last_assistant_message": "[Step] 搜索腾讯2020-2024年财报PDF链接\n[Step] 下载所有PDF文件到本地"})
		if s := f.step("1"); s.Status != plan.StepInProgress {
			t.Fatalf("step 1 is %s", s.Status)
		}
	})
	t.Run("not under step_confirmation", func(t *testing.T) {
		f := newFixture(t)
		f.config(`{"step_confirmation": true}`)
		f.send("Stop", map[string]any{"last_assistant_message": "[Step] 下载2024年财报PDF"})
		if s := f.step("1"); s.Status != plan.StepPending {
			t.Fatalf("step 1 started without the person's word: %s", s.Status)
		}
	})
}

// TestAutoAdvanceIsPerStep: the agent's word decides for a step it drove
// itself (plangit next), never again for the session: a step the hooks or
// the person started still advances by itself, with a result drawn from
// what the agent said (summarizeStepResult), not its announcement of what
// comes next.
func TestAutoAdvanceIsPerStep(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.config(`{"auto_advance": true, "advance_after": 3}`)
	f.send("Stop", map[string]any{"last_assistant_message": "[Step] 搜索腾讯2020-2024年财报PDF链接\n[Step] 下载所有PDF文件到本地\n[Step] 提取关键财务指标"})
	use := map[string]any{"transcript_path": f.transcript(maxclawMsgs...)}
	for k, v := range readUse {
		use[k] = v
	}
	for range 3 {
		f.send("PostToolUse", use)
	}
	s1, s2 := f.step("1"), f.step("2")
	if s1.Status != plan.StepCompleted || !s1.Auto || s2.Status != plan.StepInProgress {
		t.Fatalf("after 3 uses in the step the hooks started: step 1 %+v, step 2 %s", s1, s2.Status)
	}
	if s1.Result != "找到5个PDF链接: tencent_2024.pdf, tencent_2023.pdf..." {
		t.Errorf("step 1's result is %q", s1.Result)
	}
	// The agent drives step 2: its word decides for it.
	f.send("PostToolUse", nextUse)
	for range 5 {
		f.send("PostToolUse", readUse)
	}
	f.send("Stop", map[string]any{"last_assistant_message": "现在让我提取关键财务指标。"})
	if s := f.step("2"); s.Status != plan.StepInProgress {
		t.Fatalf("step 2, which the agent drove, is %s", s.Status)
	}
	// It completes step 2; the person starts step 3 in their terminal:
	// a step the agent did not drive advances again.
	f.change(sessionID, func(p *plan.Plan) (plan.Change, error) {
		return p.Transition("2", plan.ActDone, plan.TransitionOpts{Result: "5 PDFs"}, f.now)
	})
	f.send("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "plangit step done 2 --result \"5 PDFs\""}})
	f.change(sessionID, func(p *plan.Plan) (plan.Change, error) {
		return p.Transition("3", plan.ActStart, plan.TransitionOpts{}, f.now)
	})
	f.newTurn(sessionID)
	said := f.transcript("第一份财报的营收与净利润已提取。", "现在让我看下一份。")
	f.send("PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "a.pdf"}, "transcript_path": said})
	f.send("PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "b.pdf"}, "transcript_path": said})
	f.send("Stop", map[string]any{"transcript_path": said, "last_assistant_message": "现在让我看下一份。"})
	if s := f.step("3"); s.Status != plan.StepCompleted || !s.Auto || s.Result != "第一份财报的营收与净利润已提取。" {
		t.Fatalf("step 3, which the person started, after transition words: %+v", s)
	}
}

// TestPauseSpeaksThePlansLanguage: "4. Iteration Limit Handling" —
//
//	return fmt.Sprintf(
//	    "任务执行中（%d/%d 步已完成）。输入'继续'以恢复执行。",
//
// a plan written in Chinese hears the seed's sentence; one in English
// hears it in English.
func TestPauseSpeaksThePlansLanguage(t *testing.T) {
	t.Parallel()
	t.Run("chinese", func(t *testing.T) {
		f := newFixture(t)
		f.config(`{"max_iterations": 2}`)
		f.send("Stop", map[string]any{"last_assistant_message": "[Step] 下载2024年财报PDF\n[Step] 提取关键财务指标"})
		f.send("PostToolUse", readUse)
		out := f.sendRaw("PostToolUse", readUse)
		if !strings.Contains(out, "任务执行中（0/2 步已完成）。") || !strings.Contains(out, "输入'继续'或运行") {
			t.Fatalf("the pause of a Chinese plan: %s", out)
		}
	})
	t.Run("english", func(t *testing.T) {
		f := newFixture(t)
		f.withPlan(sessionID)
		f.config(`{"max_iterations": 2}`)
		f.send("PostToolUse", readUse)
		if out := f.sendRaw("PostToolUse", readUse); !strings.Contains(out, "plangit paused the plan after 2 tool uses (max_iterations): 1/4 steps done") {
			t.Fatalf("the pause of an English plan: %s", out)
		}
	})
}
