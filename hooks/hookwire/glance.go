package hookwire

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The glance: what the read-only hooks say, precomputed from the plan and
// kept in the session's .git/plangit/glance under a key naming the working
// files and the project's config.json as they stood (GlanceKey).
// PreToolUse and UserPromptSubmit run on every tool call and every prompt;
// with a good glance they answer without parsing the plan, and the hook
// binary answers them without plangit at all. Every change writes the
// glance in the same locked step as its commit; a hook that finds none, or
// a stale one, parses the plan and writes it.
//
// What a glance holds is text ready to say, each piece with the key under
// which the turn memory counts it as said, and the rules the read-only
// hooks apply, from config.json. Commands in it are written with CLIMark
// for "plangit", which the answer replaces with the command line that
// reaches the session (CLI).

// GlanceFile is the glance's name in the session's private directory.
const GlanceFile = "glance"

// GlanceVersion changes whenever what a glance holds, or how it is drawn,
// changes, so an old glance is never read as a new one.
const GlanceVersion = "plangit glance 4"

// CLIMark stands for the command that runs plangit in text kept for later:
// a control character, which no plan text can hold.
const CLIMark = "\x1a"

// Glance is what the read-only hooks need of a session.
type Glance struct {
	Key        string
	Files      []string // the working files Key was computed from
	Status     string   // the plan's status
	Unfinished bool     // the plan is pending, running or paused
	Line       Part     // the prompt line (UserPromptSubmit)
	Names      []string // the things the prompt line says, by key: the current and next step
	Step       Part     // the step before a critical tool: the current one, else the next
	Cur        string   // the step in progress, "" for none
	Sig        string   // the plan's step signature
	Errors     []GlanceError
	Rules      Rules
}

// GlanceError is an open error, newest first.
type GlanceError struct {
	Tool, ID, Count string
	Key             string // what the tool acted on, normalised (NormKey)
	Text            string // the message, one line, clipped
}

// Rules are the settings (config.json) the read-only hooks apply.
type Rules struct {
	Off              []string // hook events turned off
	CriticalTools    []string // tools that get the current step and their open errors first
	WriteTools       []string // tools that change files
	PlanConfirmation bool     // ask before a change while the plan awaits approval
	StepConfirmation bool     // ask before a step starts
	Budget           int      // the context budget, in bytes
}

// GlanceKey names the working files and the project's config as they
// stand: configPath's key, then each file's in dir (FileKey).
func GlanceKey(configPath, dir string, files []string) string {
	var b strings.Builder
	b.WriteString("config:" + FileKey(configPath) + ";")
	for _, name := range files {
		b.WriteString(name + ":" + FileKey(filepath.Join(dir, name)) + ";")
	}
	return b.String()
}

// FileKey identifies a file's version without reading it: its size,
// modification time and (where the system has them) inode, device and
// change time; "-" when it does not exist. plangit replaces files by
// rename, so every change it makes gives a new inode; an editor's change
// moves the times.
func FileKey(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "-"
	}
	// strconv, not fmt: hooks compute this on every call.
	return strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + ":" + statID(fi)
}

// NormKey is plan.NormalizeKey, for the hook's hot path: white space
// collapsed and trimmed, at most 1,000 bytes.
func NormKey(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= 1000 {
		return s
	}
	cut := 1000 - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// ToolParts is what to say before a critical tool that acts on key (for
// a shell tool, its command): the step, the error this very key met
// before, and the tool's other open errors in one line.
func (g *Glance) ToolParts(tool, key string) []Part {
	parts := []Part{g.Step}
	key = NormKey(key)
	var others []string
	var names []string
	for _, e := range g.Errors {
		if e.Tool != tool {
			continue
		}
		if key != "" && e.Key == key {
			parts = append(parts, Part{Key: "error " + e.ID + " " + e.Count,
				Text: "[plangit] `" + ClipKey(e.Key) + "` failed before (error #" + e.ID + ", ×" + e.Count + "): " + e.Text})
			continue
		}
		what := e.Text
		if e.Key != "" {
			what = "`" + ClipKey(e.Key) + "`"
		}
		if len(what) > 80 {
			what = what[:utf8Start(what, 79)] + "…"
		}
		others = append(others, "#"+e.ID+" ×"+e.Count+" "+what)
		names = append(names, e.ID+":"+e.Count)
	}
	if len(others) > 0 {
		label := "Open " + tool + " errors: "
		if len(parts) > 1 {
			label = "Other open " + tool + " errors: "
		}
		parts = append(parts, Part{Key: "errors " + tool + " " + strings.Join(names, ","),
			Text: "[plangit] " + label + strings.Join(others, "; ") + " (" + CLIMark + " errors --open)"})
	}
	return parts
}

// ClipKey cuts a key to 60 bytes for a message.
func ClipKey(k string) string {
	if len(k) <= 60 {
		return k
	}
	return k[:utf8Start(k, 59)] + "…"
}

// utf8Start is the largest i <= n at which a rune of s starts.
func utf8Start(s string, n int) int {
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return n
}

// A glance is written as lines of a name and Go-quoted values, a format
// read without reflection (see json.go for why that matters here):
//
//	plangit glance 4
//	key "config:-;task_plan.md:812:…"
//	file "task_plan.md"
//	status "running" "open"
//	sig "9f3c…"
//	cur "2"
//	line "KEY" "[plangit] …"
//	name "current 2 Design the cache"
//	step "KEY" "[plangit] Current step: …"
//	error "Bash" "1" "2" "go test ./..." "Exit code 1: …"
//	off "PreCompact"
//	critical "Write"
//	write "Write"
//	confirm "plan" "-"
//	budget "2000"
//	end
//
// A glance without its last line is no glance.
func (g *Glance) Encode() []byte {
	b := []byte(GlanceVersion + "\n")
	line := func(name string, values ...string) {
		b = append(b, name...)
		for _, v := range values {
			b = strconv.AppendQuote(append(b, ' '), v)
		}
		b = append(b, '\n')
	}
	line("key", g.Key)
	for _, f := range g.Files {
		line("file", f)
	}
	open := "-"
	if g.Unfinished {
		open = "open"
	}
	line("status", g.Status, open)
	line("sig", g.Sig)
	line("cur", g.Cur)
	line("line", g.Line.Key, g.Line.Text)
	for _, n := range g.Names {
		line("name", n)
	}
	line("step", g.Step.Key, g.Step.Text)
	for _, e := range g.Errors {
		line("error", e.Tool, e.ID, e.Count, e.Key, e.Text)
	}
	r := g.Rules
	for _, e := range r.Off {
		line("off", e)
	}
	for _, t := range r.CriticalTools {
		line("critical", t)
	}
	for _, t := range r.WriteTools {
		line("write", t)
	}
	flag := func(on bool, name string) string {
		if on {
			return name
		}
		return "-"
	}
	line("confirm", flag(r.PlanConfirmation, "plan"), flag(r.StepConfirmation, "step"))
	line("budget", strconv.Itoa(r.Budget))
	return append(b, "end\n"...)
}

// DecodeGlance reads what Encode wrote; ok is false for anything else.
func DecodeGlance(b []byte) (g *Glance, ok bool) {
	lines := strings.Split(string(b), "\n")
	n := len(lines)
	if n < 3 || lines[0] != GlanceVersion || lines[n-2] != "end" || lines[n-1] != "" {
		return nil, false
	}
	g = &Glance{}
	want := map[string]int{"key": 1, "file": 1, "status": 2, "sig": 1, "cur": 1, "line": 2, "name": 1, "step": 2, "error": 5,
		"off": 1, "critical": 1, "write": 1, "confirm": 2, "budget": 1}
	for _, l := range lines[1 : n-2] {
		name, rest, _ := strings.Cut(l, " ")
		count, known := want[name]
		if !known {
			return nil, false
		}
		v := make([]string, count)
		for i := range v {
			var err error
			if i > 0 {
				if !strings.HasPrefix(rest, " ") {
					return nil, false
				}
				rest = rest[1:]
			}
			if v[i], rest, err = unquotePrefix(rest); err != nil {
				return nil, false
			}
		}
		if rest != "" {
			return nil, false
		}
		switch name {
		case "key":
			g.Key = v[0]
		case "file":
			g.Files = append(g.Files, v[0])
		case "status":
			g.Status, g.Unfinished = v[0], v[1] == "open"
		case "sig":
			g.Sig = v[0]
		case "cur":
			g.Cur = v[0]
		case "line":
			g.Line = Part{Key: v[0], Text: v[1]}
		case "name":
			g.Names = append(g.Names, v[0])
		case "step":
			g.Step = Part{Key: v[0], Text: v[1]}
		case "error":
			g.Errors = append(g.Errors, GlanceError{Tool: v[0], ID: v[1], Count: v[2], Key: v[3], Text: v[4]})
		case "off":
			g.Rules.Off = append(g.Rules.Off, v[0])
		case "critical":
			g.Rules.CriticalTools = append(g.Rules.CriticalTools, v[0])
		case "write":
			g.Rules.WriteTools = append(g.Rules.WriteTools, v[0])
		case "confirm":
			g.Rules.PlanConfirmation, g.Rules.StepConfirmation = v[0] == "plan", v[1] == "step"
		case "budget":
			n, err := strconv.Atoi(v[0])
			if err != nil {
				return nil, false
			}
			g.Rules.Budget = n
		}
	}
	return g, true
}

// unquotePrefix reads the quoted string at the start of s.
func unquotePrefix(s string) (value, rest string, err error) {
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", err
	}
	value, err = strconv.Unquote(q)
	return value, s[len(q):], err
}
