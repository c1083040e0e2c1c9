package hookwire

import (
	"slices"
	"strings"

	"github.com/plangit/plangit/render/brief"
)

// The Stop event's rules that read the agent's last message — [Step]
// lines, transition words — and the Stop gate: one implementation, which
// plangit's hook engine and the hook binary both call.

// StepDeclarations returns the text of the "[Step] ..." lines of a
// message (StepLine), never of a line inside a fenced code block. It
// reads lines, not the message's structure: it finds every line that may
// declare a step, a quote's too, and is what the hook binary asks before
// it hands a stop to plangit, which reads the message's prose alone
// (plan.ProseLines).
func StepDeclarations(msg string) []string {
	var out []string
	for _, line := range ProseLines(msg) {
		if rest, ok := StepLine(line); ok && !slices.Contains(out, rest) {
			out = append(out, rest)
		}
	}
	return out
}

// StepLine reads a line that declares a step: one that begins with
// [Step] (any case), after a list marker ("-", "*", "+", "1.", "1)") or
// a quote's ">", and inside bold ("**[Step]** text", "**[Step] text**").
// It returns the step's text; ok is false for another line, or one with
// no text after [Step].
func StepLine(line string) (text string, ok bool) {
	l := strings.TrimSpace(line)
	l = StripMarkers(l)
	mark := ""
	for _, m := range []string{"**", "__"} {
		if strings.HasPrefix(l, m) {
			mark, l = m, l[len(m):]
			break
		}
	}
	if len(l) < len("[Step]") || !strings.EqualFold(l[:len("[Step]")], "[Step]") {
		return "", false
	}
	rest := strings.TrimSpace(l[len("[Step]"):])
	if mark != "" {
		rest = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(rest, mark), mark))
	}
	rest = strings.TrimSpace(strings.TrimLeft(rest, ":：-–— "))
	return rest, rest != ""
}

// ProseLines are the lines of a markdown message outside its fenced code
// blocks, as written.
func ProseLines(msg string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(msg, "\n") {
		l := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(l, fence) && strings.Trim(l, fence[:1]) == "" {
				fence = ""
			}
		case fenceOf(l) != "":
			fence = fenceOf(l)
		default:
			out = append(out, line)
		}
	}
	return out
}

// fenceOf is the fence a line opens ("```" or "~~~", as long as written),
// or "".
func fenceOf(l string) string {
	for _, c := range []string{"`", "~"} {
		n := len(l) - len(strings.TrimLeft(l, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// StripMarkers takes list markers and quote marks off the start of a line.
func StripMarkers(l string) string {
	for {
		switch {
		case strings.HasPrefix(l, "- "), strings.HasPrefix(l, "* "), strings.HasPrefix(l, "+ "), strings.HasPrefix(l, "> "):
			l = strings.TrimSpace(l[2:])
			continue
		case l == ">" || strings.HasPrefix(l, ">"):
			l = strings.TrimSpace(l[1:])
			continue
		}
		i := 0
		for i < len(l) && i < 9 && l[i] >= '0' && l[i] <= '9' {
			i++
		}
		if i > 0 && i+1 < len(l) && (l[i] == '.' || l[i] == ')') && l[i+1] == ' ' {
			l = strings.TrimSpace(l[i+2:])
			continue
		}
		return l
	}
}

// transitionWords say an agent moves on: the seed's list, and English
// phrases that say the same. Not the bare English "now", "next" or
// "then": "step 5 is next" or "I know now why" do not finish a step.
var transitionWords = []string{"现在", "接下来", "然后", "继续", "开始", "现在让我",
	"moving on", "now let me", "let me now", "next, let me", "next i will", "next, i will", "next i'll", "next, i'll", "now i will", "now i'll", "proceeding to", "on to the next step"}

// Advance decides auto-advance at a stop: transition words after at least
// two tool uses in the step, or the step's limit of tool uses.
func Advance(msg string, uses, limit int) bool {
	if uses >= limit {
		return true
	}
	if uses < 2 {
		return false
	}
	lower := strings.ToLower(msg)
	for _, w := range transitionWords {
		if containsWord(lower, w) {
			return true
		}
	}
	return false
}

// containsWord finds w in s; an ASCII word must stand alone ("now", not
// "know").
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if w[0] >= 0x80 || (!isLetter(s, start-1) && !isLetter(s, end)) {
			return true
		}
		i = start + 1
	}
}

func isLetter(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// StopGate decides what a stop hears, by stop_mode, given what is left
// (reason, its lines most important first) and the turn: block, with the
// reason fitted to budget; or, in advise mode, the reason as context; or
// nothing. blocks is how often Stop blocked this agent in this turn;
// worked, whether the turn worked on the plan.
//
//   - gate: block at most once a turn, and only in a turn that worked on
//     the plan;
//   - always: block while steps are left, unless the agent is already
//     continuing because of a stop hook, up to blockCap in a turn;
//   - advise: say what is left, without blocking; off: nothing.
func StopGate(mode string, reason []string, blocks, blockCap int, active, worked bool, budget int) (block bool, text string) {
	switch mode {
	case "off":
		return false, ""
	case "advise":
		return false, brief.Fit(reason, budget)
	case "always":
		if active || blocks >= blockCap {
			return false, ""
		}
	default: // gate
		if active || blocks > 0 || !worked {
			return false, ""
		}
	}
	return true, brief.Fit(reason, budget)
}
