package hooks

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
)

// The self-driving step lifecycle of a plan the agent does not drive
// itself (maxclaw's): the hooks start its first step, advance it on
// transition words or its tool uses (autoAdvance), and record a result in
// the agent's own words.

// startFirstStep starts the first ready step of a running plan none of
// whose steps has started yet — a plan made from [Step] lines, or one
// made at the first tool use that [Step] lines have just filled — and
// returns its id, "" when it started none. Under step_confirmation a
// start is the person's, and a plan that awaits approval does not run.
func startFirstStep(p *plan.Plan, stepConfirmation bool, now time.Time) (string, error) {
	if stepConfirmation || p.Status != plan.PlanRunning || p.Current() != nil {
		return "", nil
	}
	for _, s := range p.Steps() {
		if s.Status != plan.StepPending {
			return "", nil
		}
	}
	ready := p.Ready()
	if len(ready) == 0 {
		return "", nil
	}
	if _, err := p.Transition(ready[0].ID, plan.ActStart, plan.TransitionOpts{}, now); err != nil {
		return "", err
	}
	return ready[0].ID, nil
}

// stepResult is the result of a step auto-advance completes, drawn from
// what the agent said in the turn (maxclaw's summarizeStepResult): the
// first line of prose of the last message that has one that reports
// rather than announces — a line that only says what comes next ("Now
// let me…", "接下来…") tells nothing of the step — and, when every line
// announces, the last message's first.
func stepResult(msgs []string) string {
	fallback := ""
	for i := len(msgs) - 1; i >= 0; i-- {
		lines := proseResultLines(msgs[i])
		for _, l := range lines {
			if !announces(l) {
				return l
			}
		}
		if fallback == "" && len(lines) > 0 {
			fallback = lines[0]
		}
	}
	return fallback
}

// proseResultLines are a message's lines of prose as a result reads
// them: no code, no [Step] lines, no markdown marks, clipped.
func proseResultLines(msg string) []string {
	var out []string
	for _, line := range hookwire.ProseLines(msg) {
		l := strings.TrimSpace(line)
		l = strings.TrimSpace(strings.Trim(strings.TrimLeft(hookwire.StripMarkers(l), "# "), "*_"))
		if l == "" || len(hookwire.StepDeclarations(line)) > 0 {
			continue
		}
		out = append(out, plan.TruncateText(l, 200))
	}
	return out
}

// announces reports whether a line only says what the agent does next:
// it begins with a transition word (hookwire.Advance's).
func announces(line string) bool {
	lower := strings.ToLower(strings.TrimSpace(line))
	for _, w := range []string{"现在", "接下来", "然后", "继续", "开始", "下一步", "moving on", "now let me", "let me", "next", "now i", "i will now", "i'll now", "proceeding", "on to the next"} {
		if strings.HasPrefix(lower, w) {
			return true
		}
	}
	return false
}

// chinese reports whether the plan is written in Chinese: its title, goal
// or steps hold more Han characters than Latin letters. The seed's own
// messages are then given in Chinese, as the seed gives them.
func chinese(p *plan.Plan) bool {
	han, latin := 0, 0
	count := func(s string) {
		for _, r := range s {
			switch {
			case unicode.Is(unicode.Han, r):
				han++
			case r < 0x80 && unicode.IsLetter(r):
				latin++
			}
		}
	}
	count(p.Title)
	count(p.Goal)
	for _, s := range p.Steps() {
		count(s.Text)
	}
	// A Han character carries about a word: weigh it as four letters.
	return han > 0 && 4*han >= latin
}

// pauseReason is what the agent hears when max_iterations pauses the
// plan, in the plan's language: the seed's own sentence for a plan
// written in Chinese ("任务执行中（%d/%d 步已完成）。输入'继续'以恢复执行。").
func pauseReason(p *plan.Plan, uses int, k plan.Counts, cli string) string {
	if chinese(p) {
		return fmt.Sprintf("任务执行中（%d/%d 步已完成）。plangit 在 %d 次工具调用后暂停了计划（max_iterations）；查看计划：%s show。输入'继续'或运行 %s resume 以恢复执行。",
			k.Done, k.Total, uses, cli, cli)
	}
	return fmt.Sprintf("plangit paused the plan after %d tool uses (max_iterations): %d/%d steps done. Review it (%s show); say \"continue\" or run %s resume to go on.",
		uses, k.Done, k.Total, cli, cli)
}
