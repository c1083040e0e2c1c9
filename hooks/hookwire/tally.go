package hookwire

import (
	"slices"
	"strconv"
)

// The hook counters of a session, .git/plangit/hooks.json: runtime counts,
// never committed. PostToolUse counts every tool use in them; the engine
// keeps its todo and task maps in the same file. Tally is the counting
// part, read and written here without reflection, so that the hook binary
// can count a tool use under the session lock; the other members travel
// as they were read.

// TallyFile is the counters' name in the session's private directory.
const TallyFile = "hooks.json"

// Tally is what PostToolUse counts between calls for one session. Its
// JSON names are hooks.json's, in the order encoding/json writes the
// engine's state.
type Tally struct {
	Iterations  int    `json:"iterations"`           // tool uses seen in all
	LimitBase   int    `json:"limit_base"`           // Iterations when max_iterations last paused the plan
	LimitUsed   int    `json:"limit_used,omitempty"` // the tool uses that pause counted, until the plan resumes
	ViewActions int    `json:"view_actions"`         // view-tool uses since the last finding (2-action rule)
	Findings    int    `json:"findings"`             // the newest finding's id when last seen
	Step        string `json:"step,omitempty"`       // the step StepUses counts for
	StepUses    int    `json:"step_uses"`            // tool uses while that step was current, plangit's own aside
	// Drove is the step the agent drove itself (a plangit step or next
	// command, the MCP step tool, its todo tool, an edit of task_plan.md)
	// while it was in progress: for that step its word decides, and
	// auto-advance does not; a step it did not drive — one the hooks or
	// the person started — auto-advance still completes.
	Drove string `json:"drove,omitempty"`
}

// tallyRest are the members of hooks.json that are not the Tally's, in
// the order the engine writes them: kept as read.
var tallyRest = []string{"todos", "tasks", "agents", "noticed"}

// DecodeTally reads hooks.json: the Tally, and the other members the
// engine writes, as raw JSON. ok is false for anything encoding/json would
// not read into the engine's state without loss (a value of the wrong
// type, a number that is no int).
func DecodeTally(b []byte) (t Tally, rest map[string][]byte, ok bool) {
	rest = map[string][]byte{}
	ints := map[string]*int{"iterations": &t.Iterations, "limit_base": &t.LimitBase, "limit_used": &t.LimitUsed,
		"view_actions": &t.ViewActions, "findings": &t.Findings, "step_uses": &t.StepUses}
	bad := false
	err := Members(b, func(key string, value []byte) error {
		switch {
		case ints[key] != nil:
			if string(value) == "null" {
				return nil
			}
			n, err := strconv.Atoi(string(value))
			if err != nil {
				bad = true
			}
			*ints[key] = n
		case key == "step":
			var s bool
			if t.Step, s = String(value); !s {
				bad = true
			}
		case key == "drove":
			var s bool
			if t.Drove, s = String(value); !s {
				bad = true
			}
		case key == "driven":
			// An older plangit's: the agent drove some step. Which one
			// is not known; encoding/json drops it too.
		case slices.Contains(tallyRest, key):
			if string(value) == "null" {
				delete(rest, key)
				return nil
			}
			if value[0] != '{' {
				bad = true
			}
			rest[key] = value
		default:
			bad = true // a member only a newer plangit knows: let plangit read it
		}
		return nil
	})
	return t, rest, err == nil && !bad
}

// Encode writes hooks.json as encoding/json writes the engine's state:
// the Tally, then the other members as read.
func (t Tally) Encode(rest map[string][]byte) []byte {
	var o Object
	o = o.Raw("iterations", strconv.Itoa(t.Iterations)).Raw("limit_base", strconv.Itoa(t.LimitBase))
	if t.LimitUsed != 0 {
		o = o.Raw("limit_used", strconv.Itoa(t.LimitUsed))
	}
	o = o.Raw("view_actions", strconv.Itoa(t.ViewActions)).Raw("findings", strconv.Itoa(t.Findings))
	if t.Step != "" {
		o = o.Raw("step", string(appendHTMLSafe(nil, t.Step)))
	}
	o = o.Raw("step_uses", strconv.Itoa(t.StepUses))
	if t.Drove != "" {
		o = o.Raw("drove", string(appendHTMLSafe(nil, t.Drove)))
	}
	for _, k := range tallyRest {
		if v, ok := rest[k]; ok && string(v) != "{}" {
			o = o.Raw(k, string(v))
		}
	}
	return o.Close()
}

// appendHTMLSafe appends s as encoding/json writes a string by default:
// with <, > and & escaped too.
func appendHTMLSafe(dst []byte, s string) []byte {
	for _, c := range AppendString(nil, s) {
		if c == '<' || c == '>' || c == '&' {
			dst = append(dst, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		} else {
			dst = append(dst, c)
		}
	}
	return dst
}

// PostPlan is what PostToolUse's counting reads of the plan: from the
// parsed plan in plangit, from the glance in the hook binary.
type PostPlan struct {
	Running bool   // the plan is running
	Cur     string // the step in progress, "" for none
	CurText string // its text, one line, at most 80 characters
	// Findings is the newest finding's id: ids only grow, so a finding
	// recorded since raises it, even where another was removed.
	Findings int
}

// Due is what a tool use asks of the plan beyond the counters.
type Due int

const (
	DueNothing Due = iota
	DueAdvance     // the current step took AdvanceAfter tool uses: it advances (auto_advance)
	DuePause       // the plan reached max_iterations: it pauses and the agent stops
)

// Use is one tool use as PostToolUse counts it.
type Use struct {
	Tool     string
	Plangit  bool   // it is plangit's own (OwnUse): no work in a step
	Drives   bool   // the agent drives its steps with it (OwnUse, a todo list, task_plan.md)
	OwnFile  bool   // it wrote one of the session's own files
	Subagent bool   // a subagent made it
	Changed  bool   // syncing or resolving errors changed the plan already
	CLI      string // the command line that reaches the session
}

// Count counts a tool use — one iteration; a look-up for the 2-action
// rule; a use of the current step — and returns what to say of it, each
// part once a turn: the findings reminder every ActionThreshold look-ups,
// "update the step" after a write, and, with step confirmation, that the
// step took its tool uses. It returns what is due of the plan: an advance
// or a pause, which the caller makes (StepUses is then the step's count).
func (t *Tally) Count(p PostPlan, r Rules, u Use) (parts []Part, due Due) {
	t.Iterations++
	// The 2-action rule: a finding recorded since resets the count.
	if p.Findings > t.Findings {
		t.ViewActions = 0
	}
	t.Findings = p.Findings
	if slices.Contains(r.ViewTools, u.Tool) {
		t.ViewActions++
		if t.ViewActions >= r.ActionThreshold {
			parts = append(parts, Part{Key: "look-ups " + strconv.Itoa(p.Findings),
				Text: "[plangit] " + strconv.Itoa(t.ViewActions) + " look-ups since your last finding: record what you learned: " + u.CLI +
					" finding add --title \"...\" \"what you found\""})
			t.ViewActions = 0
		}
	}
	if slices.Contains(r.WriteTools, u.Tool) && p.Running && !u.OwnFile {
		if p.Cur != "" {
			parts = append(parts, Part{Key: "write " + p.Cur, Text: "[plangit] You changed files during step " + p.Cur + ": record progress (" +
				u.CLI + " step progress " + p.Cur + " N/M) or finish it (" + u.CLI + " step done " + p.Cur + " --result \"...\")."})
		} else {
			parts = append(parts, Part{Key: "write", Text: "[plangit] You changed files with no step in progress: start the step this belongs to (" +
				u.CLI + " next, or " + u.CLI + " step start ID)."})
		}
	}
	if u.Drives || u.OwnFile {
		t.Drove = p.Cur // the step in progress as the agent left it
	}
	if p.Cur != "" {
		if t.Step != p.Cur {
			t.Step, t.StepUses = p.Cur, 0
		}
		if !u.Plangit {
			t.StepUses++
		}
	}
	if p.Cur != "" && r.AutoAdvance && t.Drove != p.Cur && !u.Subagent && p.Running && !u.Changed && !u.Plangit && t.Step == p.Cur && t.StepUses >= r.AdvanceAfter {
		if !r.StepConfirmation {
			return parts, DueAdvance
		}
		parts = append(parts, Part{Key: "advance " + p.Cur, Text: "[plangit] Step " + p.Cur + " has taken " + strconv.Itoa(t.StepUses) +
			" tool uses. If it is done, record it: " + u.CLI + " step done " + p.Cur + " --result \"...\"; the next step's start asks the person first (step_confirmation)."})
	}
	if r.MaxIterations > 0 && t.Iterations-t.LimitBase >= r.MaxIterations && p.Running && !u.Changed {
		return parts, DuePause
	}
	return parts, DueNothing
}

// AdvancesAtStop reports whether a stop advances the current step
// (auto_advance): the step the counters count for is the one in progress,
// and the agent's last message says it moves on, or the step took its
// tool uses (Advance). Never a subagent's stop, nor for a step the agent
// drove itself (Drove).
func (t Tally) AdvancesAtStop(p PostPlan, r Rules, msg string, subagent bool) bool {
	return p.Cur != "" && r.AutoAdvance && t.Drove != p.Cur && !subagent && p.Running && t.Step == p.Cur && Advance(msg, t.StepUses, r.AdvanceAfter)
}

// PostPlan is what the glance tells PostToolUse's counting of the plan.
func (g *Glance) PostPlan() PostPlan {
	return PostPlan{Running: g.Status == "running", Cur: g.Cur, CurText: g.CurText, Findings: g.Findings}
}

// Resolves reports whether the tool succeeding on key may resolve an open
// error — one of the tool's open errors failed on key, or the glance does
// not hold all of the tool's — which is a change of the plan.
func (g *Glance) Resolves(tool, key string) bool {
	key = NormKey(key)
	if key == "" {
		return false
	}
	held := 0
	for _, e := range g.Errors {
		if e.Tool == tool {
			if e.Key == key {
				return true
			}
			held++
		}
	}
	for _, o := range g.OpenErrors {
		if o.Tool == tool && o.N > held {
			return true
		}
	}
	return false
}

// Noticed is what hooks.json's "noticed" says the person was told: the
// step signature of the plan they were told is complete, "" for none.
func Noticed(rest map[string][]byte) string { return noticed(rest, "complete") }

// NoticedFailed is the failed steps hooks.json's "noticed" says the person
// was told of (Glance.Failed), "" for none.
func NoticedFailed(rest map[string][]byte) string { return noticed(rest, "failed") }

func noticed(rest map[string][]byte, what string) string {
	var said string
	Members(rest["noticed"], func(key string, value []byte) error {
		if key == what {
			said, _ = String(value)
		}
		return nil
	})
	return said
}
