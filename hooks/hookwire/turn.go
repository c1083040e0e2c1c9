package hookwire

import (
	"strconv"
	"strings"

	"github.com/plangit/plangit/repo/disk"
)

// The turn memory: what the hooks said to the agent in its current turn —
// from one prompt (UserPromptSubmit) to the next — so that each thing is
// said once, and what the Stop gate needs to know of the turn. It is one
// small file, .git/plangit/turn, read and appended without the session
// lock: every hook that says something appends what it said in one write
// to the file opened for appending, so hooks running side by side never
// tear each other's lines. Two hooks in the very same moment may both say
// a thing once; nothing is ever lost by the memory, only repeated.
//
// The format is lines of words, simple enough for any program to read and
// write (the read-only hooks are meant to run from a program linking the
// standard library alone):
//
//	T <step> <sig> <shell>   a turn begins: the step in progress then ("-" for
//	                         none), the plan's step signature then, and
//	                         whether the agent's shell reaches the session
//	                         without --session ("shell" or "-")
//	S <key>                  said: 16 hex digits, FNV-1a 64 of the thing's key
//	B <agent>                the Stop gate blocked ("-": the main agent)
//	A <step> <next>          auto-advance completed <step> and started <next> ("-": none)
//
// Only the lines from the last T on count (all of them, when no turn has
// begun since the memory started). A line without its newline (a
// write cut short) is no line. The file starts over when a turn begins and
// it has grown past TurnMaxSize; until then a turn begins with an append.

const (
	TurnFile    = "turn"
	TurnMaxSize = 8 << 10
)

// Turn is the memory of the current turn.
type Turn struct {
	Begun    bool           // a T line was read
	Step     string         // the step in progress when the turn began
	Sig      string         // the plan's step signature when the turn began
	Shell    bool           // the agent's shell reaches the session without --session
	Blocks   map[string]int // Stop blocks in this turn, by agent ("-": the main agent); nil when none
	Advanced [][2]string    // auto-advances in this turn: step, next
	Size     int            // the file's size
	said     []string       // the keys said in this turn
}

// ReadTurn reads the turn memory at path; a missing or unreadable file is
// a turn of which nothing is known. It reads the file with one string and
// a slice of it, whatever its length: the hooks read it on every call.
func ReadTurn(path string) *Turn {
	t := &Turn{}
	text, err := disk.ReadFileString(path)
	if err != nil {
		return t
	}
	t.Size = len(text)
	i := strings.LastIndexByte(text, '\n')
	if i < 0 {
		return t
	}
	text = text[:i+1] // a last line without its newline is no line
	if i = strings.LastIndex(text, "\nT "); i >= 0 {
		text = text[i+1:] // what came before is an earlier turn's
	}
	t.said = make([]string, 0, strings.Count(text, "\nS "))
	var f [5]string
	for text != "" {
		i := strings.IndexByte(text, '\n')
		n := fields(text[:i], &f)
		text = text[i+1:]
		switch {
		case n == 0:
		case f[0] == "T" && n == 4:
			t.Begun, t.Step, t.Sig, t.Shell = true, Dash(f[1]), Dash(f[2]), f[3] == "shell"
		case f[0] == "S" && n == 2:
			t.said = append(t.said, f[1])
		case f[0] == "B" && n == 2:
			if t.Blocks == nil {
				t.Blocks = map[string]int{}
			}
			t.Blocks[f[1]]++
		case f[0] == "A" && n == 3:
			t.Advanced = append(t.Advanced, [2]string{f[1], Dash(f[2])})
		}
	}
	return t
}

// fields splits a line of the memory at runs of white space, as
// strings.Fields does, into f; it returns how many fields the line has,
// len(f) at most.
func fields(line string, f *[5]string) int {
	const space = " \t\r\v\f"
	n := 0
	for line != "" && n < len(f) {
		line = strings.TrimLeft(line, space)
		if line == "" {
			break
		}
		end := strings.IndexAny(line, space)
		if end < 0 {
			end = len(line)
		}
		f[n], line = line[:end], line[end:]
		n++
	}
	return n
}

// Said reports whether the thing whose memory name (SayKey) is key was
// said in this turn.
func (t *Turn) Said(key string) bool {
	for _, k := range t.said {
		if k == key {
			return true
		}
	}
	return false
}

// SaidCount is how many things were said in this turn.
func (t *Turn) SaidCount() int { return len(t.said) }

func Dash(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

func Undash(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n") {
		return "-"
	}
	return s
}

// SayKey is the memory's name for a thing said: 16 hex digits of FNV-1a 64.
func SayKey(key string) string {
	return strconv.FormatUint(fnv64a(key)|1<<63, 16)
}

// SubagentKey is the key under which a subagent is told its name, once a
// turn (package hooks): until it is said, the subagent's tool events are
// plangit's, whatever the plan, since only plangit names agents.
func SubagentKey(agentID string) string { return "subagent " + agentID }

// Part is one thing a hook may say: its text, and the key under which it
// counts as said (the text itself unless the thing has a name of its own,
// such as the current step, whose wording varies by event).
type Part struct {
	Key  string
	Text string
}

// Say keeps the parts not yet said in this turn and returns their texts,
// and the memory lines that record them; a part whose text is empty is
// dropped.
func (t *Turn) Say(parts []Part) (texts []string, lines string) {
	var b strings.Builder
	for _, p := range parts {
		if p.Text == "" {
			continue
		}
		key := p.Key
		if key == "" {
			key = p.Text
		}
		k := SayKey(key)
		if t.Said(k) {
			continue
		}
		t.said = append(t.said, k)
		texts = append(texts, p.Text)
		b.WriteString("S " + k + "\n")
	}
	return texts, b.String()
}

// BeginLine is the T line that begins a turn.
func BeginLine(step, sig string, shell bool) string {
	sh := "-"
	if shell {
		sh = "shell"
	}
	return "T " + Undash(step) + " " + Undash(sig) + " " + sh + "\n"
}

// SaidLines are the S lines that record keys as said, without saying them.
func SaidLines(keys ...string) string {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString("S " + SayKey(k) + "\n")
	}
	return b.String()
}

// PlangitsText reports whether a prompt is plangit's own words, which some
// hosts hand back as the next prompt — Gemini CLI after an AfterAgent
// deny, Copilot CLI after an agentStop block, each with the reason as
// the prompt: never read as the person's (a "not done" in it takes back
// no step), and answered with nothing, the turn going on.
func PlangitsText(prompt string) bool { return strings.Contains(prompt, "[plangit]") }

// NotThePersons reports whether a prompt is not the person's: plangit's
// own words handed back (PlangitsText), or a host's notice delivered as a
// prompt — Claude Code's <task-notification> when a command it ran in the
// background ends mid-turn. Neither starts a turn nor is read for what
// the person asks.
func NotThePersons(prompt string) bool {
	return PlangitsText(prompt) || strings.HasPrefix(strings.TrimSpace(prompt), "<task-notification>")
}
