// Package brief holds what the texts an agent is told share between
// plangit and the hook binary: fitting them to a context budget, and the
// sentences both write. It imports the standard library only.
package brief

import (
	"strings"
	"unicode/utf8"
)

// moreHint ends a reminder that was cut.
const moreHint = "… (plangit show for the full plan)"

// Fit joins parts with newlines, keeping as many whole parts as fit in
// budget bytes, most important first. A first part longer than the budget
// is cut at a rune boundary. When anything is left out, the result ends
// with a pointer to plangit show; the result never exceeds the budget.
func Fit(parts []string, budget int) string {
	var kept []string
	used := 0
	for i, p := range parts {
		if p == "" {
			continue
		}
		need := len(p)
		if len(kept) > 0 {
			need++ // the newline before it
		}
		room := budget - used
		if i < len(parts)-1 {
			room -= len("\n" + moreHint) // keep room to say more was left out
		}
		if need <= room {
			kept = append(kept, p)
			used += need
			continue
		}
		if len(kept) == 0 {
			if cut := cutRunes(p, budget-len(moreHint)-1); cut != "" {
				kept = append(kept, cut)
			}
		}
		return strings.Join(append(kept, moreHint), "\n")
	}
	return strings.Join(kept, "\n")
}

func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// StepSyntax teaches the agent to declare steps in its replies.
const StepSyntax = "Add a step by writing a line \"[Step] what to do\" in a reply."
