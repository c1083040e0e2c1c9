package hooks

import (
	"encoding/json"
	"os"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// The glance: what the read-only hooks say, precomputed from the plan and
// kept in .git/plangit/glance.json with the FilesKey of the working files
// it was computed from. PreToolUse and UserPromptSubmit run on every tool
// call and every prompt; with a good glance they answer without parsing
// the plan. The first of them after a change parses and writes it.

const glanceFile = "glance.json"

// glanceVersion changes whenever what a glance holds, or how it is drawn,
// changes, so an old glance is never read as a new one.
const glanceVersion = 1

type glance struct {
	Version    int                 `json:"v"`
	Key        string              `json:"key"`
	Status     plan.PlanStatus     `json:"status"`
	StatusLine string              `json:"status_line"`
	Step       []string            `json:"step,omitempty"`   // ToolContext for a tool with no errors
	Errors     map[string][]string `json:"errors,omitempty"` // ToolContext for each tool with errors
}

// toolContext is render.ToolContext(st, tool), from the glance.
func (g *glance) toolContext(tool string) []string {
	if parts, ok := g.Errors[tool]; ok {
		return parts
	}
	return g.Step
}

func newGlance(st *plan.State, key string) *glance {
	g := &glance{Version: glanceVersion, Key: key, Status: st.Plan.Status, StatusLine: render.StatusLine(st.Plan),
		Step: render.ToolContext(st, ""), Errors: map[string][]string{}}
	for _, e := range st.Errors {
		if _, ok := g.Errors[e.Tool]; !ok {
			g.Errors[e.Tool] = render.ToolContext(st, e.Tool)
		}
	}
	return g
}

// readGlance returns the session's glance when it matches the working
// files as they stand; otherwise it parses them and, when no change
// replaced them meanwhile, stores a new glance for the next hook.
func readGlance(s *repo.Session) (*glance, error) {
	key := s.FilesKey()
	if b, err := os.ReadFile(s.PrivatePath(glanceFile)); err == nil {
		var old glance
		if json.Unmarshal(b, &old) == nil && old.Version == glanceVersion && old.Key == key {
			return &old, nil
		}
	}
	st, err := s.State()
	if err != nil {
		return nil, err
	}
	g := newGlance(st, key)
	if s.FilesKey() == key {
		if b, err := json.Marshal(g); err == nil {
			repo.WriteFileAtomic(s.PrivatePath(glanceFile), b, 0o644, false) // a cache: a failed write costs only speed
		}
	}
	return g, nil
}
