package hooks

import (
	"hash/fnv"
	"os"
	"strconv"
	"strings"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// The glance: what the read-only hooks say, precomputed from the plan and
// kept in .git/plangit/glance with the FilesKey of the working files
// it was computed from. PreToolUse and UserPromptSubmit run on every tool
// call and every prompt; with a good glance they answer without parsing
// the plan. The first of them after a change parses and writes it.
//
// What a glance holds is text ready to say, each piece with the key under
// which the turn memory (turn.go) counts it as said. Commands in it are
// written with cliMark for "plangit", which the answer replaces with the
// command line that reaches the session (engine.cli). Reading a glance and
// answering from it takes the standard library alone.

const glanceFile = "glance"

// glanceVersion changes whenever what a glance holds, or how it is drawn,
// changes, so an old glance is never read as a new one.
const glanceVersion = "plangit glance 3"

// cliMark stands for the command that runs plangit in text kept for later:
// a control character, which no plan text can hold.
const cliMark = "\x1a"

type glance struct {
	Key    string
	Status plan.PlanStatus
	Line   part     // the prompt line (UserPromptSubmit)
	Names  []string // the things the prompt line says, by key: the current and next step
	Step   part     // the step before a critical tool: the current one, else the next
	Cur    string   // the step in progress, "" for none
	Sig    string   // the plan's step signature (stepSig)
	Errors []glanceError
}

// glanceError is an open error, newest first.
type glanceError struct {
	Tool, ID, Count string
	Key             string // what the tool acted on, normalised (normKey)
	Text            string // the message, one line, clipped
}

func newGlance(st *plan.State, key string) *glance {
	p := st.Plan
	g := &glance{Key: key, Status: p.Status, Sig: stepSig(p)}
	g.Line = part{text: render.StatusLine(st, cliMark)}
	g.Line.key = g.Line.text
	if cur := p.Current(); cur != nil {
		g.Cur = cur.ID
		g.Names = append(g.Names, curName(cur))
	}
	if next := render.NextStep(p); next != nil {
		g.Names = append(g.Names, nextName(next))
	}
	g.Step = stepPart(p, cliMark)
	perTool := map[string]int{}
	for _, e := range st.Errors.Open() {
		if perTool[e.Tool] == maxToolErrors {
			continue
		}
		perTool[e.Tool]++
		g.Errors = append(g.Errors, glanceError{Tool: e.Tool, ID: e.ID, Count: strconv.Itoa(e.Count),
			Key: normKey(e.Key), Text: plan.TruncateText(strings.Join(strings.Fields(e.Message), " "), 200)})
	}
	return g
}

// maxToolErrors is how many open errors of one tool a glance keeps: the
// pre-tool error history names up to five.
const maxToolErrors = 5

// curName and nextName are the turn memory's names for saying which step
// is current and which is next, whatever the wording.
func curName(s *plan.Step) string  { return "current " + s.ID + " " + s.Text }
func nextName(s *plan.Step) string { return "next " + s.ID + " " + s.Text }

// stepPart is the step before a critical tool, keyed by its name.
func stepPart(p *plan.Plan, cli string) part {
	text := render.StepContext(p, cli)
	switch cur := p.Current(); {
	case text == "":
		return part{}
	case cur != nil:
		return part{key: curName(cur), text: text}
	}
	return part{key: nextName(p.Ready()[0]), text: text}
}

// stepSig sums up the plan's steps — ids, statuses and texts — so that a
// hook can tell whether any changed.
func stepSig(p *plan.Plan) string {
	h := fnv.New64a()
	for _, s := range p.Steps() {
		h.Write([]byte(s.ID + "\x00" + string(s.Status) + "\x00" + s.Text + "\x00"))
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// normKey is plan.NormalizeKey, for the hook's hot path: white space
// collapsed and trimmed, at most 1,000 bytes.
func normKey(s string) string {
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

// toolParts is what to say before a critical tool that acts on key (for
// a shell tool, its command): the step, the error this very key met
// before, and the tool's other open errors in one line.
func (g *glance) toolParts(tool, key string) []part {
	parts := []part{g.Step}
	key = normKey(key)
	var others []string
	var names []string
	for _, e := range g.Errors {
		if e.Tool != tool {
			continue
		}
		if key != "" && e.Key == key {
			parts = append(parts, part{key: "error " + e.ID + " " + e.Count,
				text: "[plangit] `" + clipKey(e.Key) + "` failed before (error #" + e.ID + ", ×" + e.Count + "): " + e.Text})
			continue
		}
		what := e.Text
		if e.Key != "" {
			what = "`" + clipKey(e.Key) + "`"
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
		parts = append(parts, part{key: "errors " + tool + " " + strings.Join(names, ","),
			text: "[plangit] " + label + strings.Join(others, "; ") + " (" + cliMark + " errors --open)"})
	}
	return parts
}

func clipKey(k string) string {
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
//	plangit glance 3
//	key "task_plan.md:812:…"
//	status "running"
//	sig "9f3c…"
//	cur "2"
//	line "KEY" "[plangit] …"
//	name "current 2 Design the cache"
//	step "KEY" "[plangit] Current step: …"
//	error "Bash" "1" "2" "go test ./..." "Exit code 1: …"
//	end
//
// A glance without its last line is no glance.
func (g *glance) encode() []byte {
	b := []byte(glanceVersion + "\n")
	line := func(name string, values ...string) {
		b = append(b, name...)
		for _, v := range values {
			b = strconv.AppendQuote(append(b, ' '), v)
		}
		b = append(b, '\n')
	}
	line("key", g.Key)
	line("status", string(g.Status))
	line("sig", g.Sig)
	line("cur", g.Cur)
	line("line", g.Line.key, g.Line.text)
	for _, n := range g.Names {
		line("name", n)
	}
	line("step", g.Step.key, g.Step.text)
	for _, e := range g.Errors {
		line("error", e.Tool, e.ID, e.Count, e.Key, e.Text)
	}
	return append(b, "end\n"...)
}

// decodeGlance reads what encode wrote; ok is false for anything else.
func decodeGlance(b []byte) (g *glance, ok bool) {
	lines := strings.Split(string(b), "\n")
	n := len(lines)
	if n < 3 || lines[0] != glanceVersion || lines[n-2] != "end" || lines[n-1] != "" {
		return nil, false
	}
	g = &glance{}
	want := map[string]int{"key": 1, "status": 1, "sig": 1, "cur": 1, "line": 2, "name": 1, "step": 2, "error": 5}
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
		case "status":
			g.Status = plan.PlanStatus(v[0])
		case "sig":
			g.Sig = v[0]
		case "cur":
			g.Cur = v[0]
		case "line":
			g.Line = part{key: v[0], text: v[1]}
		case "name":
			g.Names = append(g.Names, v[0])
		case "step":
			g.Step = part{key: v[0], text: v[1]}
		case "error":
			g.Errors = append(g.Errors, glanceError{Tool: v[0], ID: v[1], Count: v[2], Key: v[3], Text: v[4]})
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

// readGlance returns the session's glance when it matches the working
// files as they stand and the rules; otherwise it parses them and, when no
// change replaced them meanwhile, stores a new glance for the next hook.
func readGlance(s *repo.Session, rules plan.Rules) (*glance, error) {
	filesKey := func() string { return "order:" + string(rules.PhaseOrder) + ";" + s.FilesKey() }
	key := filesKey()
	if b, err := os.ReadFile(s.PrivatePath(glanceFile)); err == nil {
		if old, ok := decodeGlance(b); ok && old.Key == key {
			return old, nil
		}
	}
	st, err := s.State()
	if err != nil {
		return nil, err
	}
	st.Plan.Rules = rules
	g := newGlance(st, key)
	if filesKey() == key {
		s.WritePrivate(glanceFile, g.encode()) // a cache: a failed write costs only speed
	}
	return g, nil
}
