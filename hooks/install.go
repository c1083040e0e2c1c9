package hooks

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/jsonedit"
)

// Installing plangit's hooks into Claude Code's settings. The settings file
// is edited as text (package jsonedit), not rewritten from a struct: every
// byte of every key, hook and line that was there stays, and only
// plangit's own entries — command hooks running "plangit hook EVENT" — are
// added or removed. Installing twice is installing once; uninstalling
// removes exactly the bytes installing added, and a file installing
// created.

// Scopes of Claude Code settings.
const (
	ScopeProject = "project" // .claude/settings.json, shared with the team
	ScopeLocal   = "local"   // .claude/settings.local.json, this machine only
	ScopeUser    = "user"    // ~/.claude/settings.json, every project
)

// hookTimeout is the seconds Claude Code gives a plangit hook. plangit
// answers in milliseconds; the margin covers a busy session's lock wait.
const hookTimeout = 30

// toolEvents are the events whose matcher selects tools.
var toolEvents = []string{PreToolUse, PostToolUse, PostToolUseFailure}

// SettingsPath is the settings file of a scope.
func SettingsPath(scope, projectRoot, home string) (string, error) {
	switch scope {
	case ScopeProject, "":
		return filepath.Join(projectRoot, ".claude", "settings.json"), nil
	case ScopeLocal:
		return filepath.Join(projectRoot, ".claude", "settings.local.json"), nil
	case ScopeUser:
		if home == "" {
			return "", plan.Errorf(plan.CodeInvalidArgument, "no home directory for the user scope")
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	return "", plan.Errorf(plan.CodeInvalidArgument, "unknown scope %q; one of project, local, user", scope)
}

// hookGroup is one matcher group of a settings event.
type hookGroup struct {
	Matcher string            `json:"matcher,omitempty"`
	Hooks   []json.RawMessage `json:"hooks"`
}

type commandHook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// isOurs reports whether a hook entry is a plangit hook: a command whose
// program is named plangit… and whose first argument is "hook".
func isOurs(raw json.RawMessage) bool {
	var h commandHook
	if json.Unmarshal(raw, &h) != nil || h.Type != "command" {
		return false
	}
	f := strings.Fields(h.Command)
	return len(f) >= 3 && strings.HasPrefix(filepath.Base(strings.Trim(f[0], `"'`)), "plangit") && f[1] == "hook"
}

// Settings is a settings file being edited.
type Settings struct {
	Path    string
	exists  bool
	doc     *jsonedit.Doc
	changed bool
}

// LoadSettings reads a settings file (a missing one is empty). A file that
// is not a JSON object is an error, and is never overwritten.
func LoadSettings(path string) (*Settings, error) {
	data, err := os.ReadFile(path)
	s := &Settings{Path: path}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read %s", path)
	default:
		s.exists = true
	}
	if s.doc, err = jsonedit.Parse(data); err != nil || s.doc.Root().Kind != '{' {
		why := "not a JSON object"
		if err != nil {
			why = err.Error()
		}
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s is not valid settings JSON (%s); fix it first, plangit will not overwrite it", path, why)
	}
	if h := s.doc.Lookup("hooks"); h != nil && h.Kind != '{' {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s: \"hooks\" is not a JSON object; fix it first", path)
	}
	return s, nil
}

func (s *Settings) groups(event string) ([]hookGroup, error) {
	v := s.doc.Lookup("hooks", event)
	if v == nil {
		return nil, nil
	}
	var gs []hookGroup
	if v.Kind != '[' || s.doc.Decode(v, &gs) != nil {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s: hooks.%s is not a list of matcher groups", s.Path, event)
	}
	return gs, nil
}

// Install adds plangit's hook for each event that has none yet, running
// command ("plangit" or a path to it). Each is added as text at the end of
// its place — a new matcher group at the end of the event's list, a new
// event at the end of "hooks", "hooks" at the end of the file — written in
// the style of what is around it, so that Uninstall can take out exactly
// those bytes.
func (s *Settings) Install(command string) error {
	for _, event := range repo.HookEvents {
		gs, err := s.groups(event)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(gs, func(g hookGroup) bool { return slices.ContainsFunc(g.Hooks, isOurs) }) {
			continue
		}
		entry, _ := json.Marshal(commandHook{Type: "command", Command: command + " hook " + event, Timeout: hookTimeout})
		g := hookGroup{Hooks: []json.RawMessage{entry}}
		if slices.Contains(toolEvents, event) {
			g.Matcher = "*"
		}
		if gs != nil {
			err = s.doc.Append([]string{"hooks", event}, g)
		} else {
			err = s.doc.Set([]string{"hooks", event}, []hookGroup{g})
		}
		if err != nil {
			return plan.WrapError(plan.CodeInternal, err, "cannot add the %s hook to %s", event, s.Path)
		}
		s.changed = true
	}
	return nil
}

// Uninstall removes every plangit hook, then any matcher group, event list
// and "hooks" object it leaves empty — the inverse of Install, byte for
// byte, when nothing else changed in between.
func (s *Settings) Uninstall() error {
	for s.removeOne() {
		s.changed = true
	}
	return nil
}

// removeOne takes out one plangit hook, with whatever it leaves empty, and
// reports whether it found one.
func (s *Settings) removeOne() bool {
	hooksObj := s.doc.Lookup("hooks")
	if hooksObj == nil || hooksObj.Kind != '{' {
		return false
	}
	for ei, ev := range hooksObj.Members {
		if ev.Value.Kind != '[' {
			continue // not ours to judge
		}
		for gi, g := range ev.Value.Elems {
			list := g.Get("hooks")
			if g.Kind != '{' || list == nil || list.Kind != '[' {
				continue
			}
			for hi, h := range list.Elems {
				if !isOurs(s.doc.Text(h)) {
					continue
				}
				// The innermost container that would not be left empty
				// loses its item.
				switch {
				case list.Len() > 1:
					s.doc.Remove(list, hi)
				case ev.Value.Len() > 1:
					s.doc.Remove(ev.Value, gi)
				case hooksObj.Len() > 1:
					s.doc.Remove(hooksObj, ei)
				default:
					s.doc.Remove(s.doc.Root(), slices.IndexFunc(s.doc.Root().Members, func(m jsonedit.Member) bool { return m.Value == hooksObj }))
				}
				return true
			}
		}
	}
	return false
}

// Bytes is the settings file as it would be written.
func (s *Settings) Bytes() []byte { return s.doc.Bytes() }

// Changed reports whether Install or Uninstall changed anything.
func (s *Settings) Changed() bool { return s.changed }

// empty reports whether nothing is left in the file but an empty object.
func (s *Settings) empty() bool { return s.doc.Root().Len() == 0 }

// Save writes the file atomically, if anything changed. A file left with
// nothing in it is removed: what install created, uninstall takes away.
func (s *Settings) Save() error {
	if !s.changed {
		return nil
	}
	if s.empty() {
		if err := os.Remove(s.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return plan.WrapError(plan.CodeIOError, err, "cannot remove %s", s.Path)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot create %s", filepath.Dir(s.Path))
	}
	return repo.WriteFileAtomic(s.Path, s.Bytes(), 0o644, true)
}

// Installed lists, for each event, plangit's command in this file ("" when
// none).
func (s *Settings) Installed() map[string]string {
	out := map[string]string{}
	for _, event := range repo.HookEvents {
		gs, _ := s.groups(event)
		for _, g := range gs {
			for _, h := range g.Hooks {
				if isOurs(h) {
					var c commandHook
					json.Unmarshal(h, &c)
					out[event] = c.Command
				}
			}
		}
	}
	return out
}

// Exists reports whether the settings file exists.
func (s *Settings) Exists() bool { return s.exists }
