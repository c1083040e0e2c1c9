package hooks

import (
	"maps"
	"os"
	"slices"
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

const glanceFile = "glance"

// glanceVersion changes whenever what a glance holds, or how it is drawn,
// changes, so an old glance is never read as a new one.
const glanceVersion = "plangit glance 2"

type glance struct {
	Key        string
	Status     plan.PlanStatus
	StatusLine string
	Step       []string            // ToolContext for a tool with no errors
	Errors     map[string][]string // ToolContext for each tool with errors
}

// toolContext is render.ToolContext(st, tool), from the glance.
func (g *glance) toolContext(tool string) []string {
	if parts, ok := g.Errors[tool]; ok {
		return parts
	}
	return g.Step
}

func newGlance(st *plan.State, key string) *glance {
	g := &glance{Key: key, Status: st.Plan.Status, StatusLine: render.StatusLine(st.Plan),
		Step: render.ToolContext(st, ""), Errors: map[string][]string{}}
	for _, e := range st.Errors.Open() {
		if _, ok := g.Errors[e.Tool]; !ok {
			g.Errors[e.Tool] = render.ToolContext(st, e.Tool)
		}
	}
	return g
}

// A glance is written as lines of a name and Go-quoted values, a format
// read without reflection (see json.go for why that matters here):
//
//	plangit glance 2
//	key "task_plan.md:812:…"
//	status "running"
//	line "[plangit] …"
//	step "…"
//	error "Bash" "…"
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
	line("line", g.StatusLine)
	for _, p := range g.Step {
		line("step", p)
	}
	tools := slices.Sorted(maps.Keys(g.Errors))
	for _, tool := range tools {
		for _, p := range g.Errors[tool] {
			line("error", tool, p)
		}
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
	g = &glance{Errors: map[string][]string{}}
	for _, l := range lines[1 : n-2] {
		name, rest, _ := strings.Cut(l, " ")
		v1, rest, err := unquotePrefix(rest)
		if err != nil {
			return nil, false
		}
		switch name {
		case "key":
			g.Key = v1
		case "status":
			g.Status = plan.PlanStatus(v1)
		case "line":
			g.StatusLine = v1
		case "step":
			g.Step = append(g.Step, v1)
		case "error":
			v2, tail, err := unquotePrefix(strings.TrimPrefix(rest, " "))
			if err != nil || tail != "" {
				return nil, false
			}
			g.Errors[v1] = append(g.Errors[v1], v2)
			continue
		default:
			return nil, false
		}
		if rest != "" {
			return nil, false
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
