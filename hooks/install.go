package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// Installing plangit's hooks into Claude Code's settings. The settings file
// is edited, not rewritten from a struct: every key, hook and ordering that
// was there stays, the file's indentation is kept, and only plangit's own
// entries — command hooks running "plangit hook EVENT" — are added or
// removed. Installing twice is installing once; uninstalling removes
// exactly what installing added.

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

// object is a JSON object that keeps its keys' order, and the original
// bytes of every value it did not change.
type object struct {
	keys    []string
	vals    map[string]json.RawMessage
	changed map[string]bool
}

func parseObject(data []byte) (*object, error) {
	o := &object{vals: map[string]json.RawMessage{}, changed: map[string]bool{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := o.vals[key]; !dup {
			o.keys = append(o.keys, key)
		}
		o.vals[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return o, nil
}

func (o *object) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
	o.changed[key] = true
}

func (o *object) del(key string) {
	delete(o.vals, key)
	o.keys = slices.DeleteFunc(o.keys, func(k string) bool { return k == key })
}

// encode writes the object with the given indent unit. A value it did not
// change is written exactly as it was read; a changed one is indented in
// the same style.
func (o *object) encode(indent string) []byte {
	var b bytes.Buffer
	if len(o.keys) == 0 {
		return []byte("{}\n")
	}
	b.WriteString("{\n")
	for i, k := range o.keys {
		key, _ := json.Marshal(k)
		v := o.vals[k]
		if o.changed[k] {
			var buf bytes.Buffer
			json.Indent(&buf, v, indent, indent)
			v = buf.Bytes()
		}
		fmt.Fprintf(&b, "%s%s: %s", indent, key, v)
		if i < len(o.keys)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// detectIndent finds the indent unit a JSON file uses; two spaces if it
// has none.
func detectIndent(data []byte) string {
	for _, line := range strings.Split(string(data), "\n")[1:] {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return "  "
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
	indent  string
	top     *object
	hooks   *object
	changed bool
}

// LoadSettings reads a settings file (a missing one is empty). A file that
// is not a JSON object is an error, and is never overwritten.
func LoadSettings(path string) (*Settings, error) {
	data, err := os.ReadFile(path)
	s := &Settings{Path: path, indent: "  "}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read %s", path)
	default:
		s.exists = true
		s.indent = detectIndent(data)
	}
	if s.top, err = parseObject(data); err != nil {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s is not valid settings JSON (%v); fix it first, plangit will not overwrite it", path, err)
	}
	s.hooks = &object{vals: map[string]json.RawMessage{}, changed: map[string]bool{}}
	if raw, ok := s.top.vals["hooks"]; ok {
		if s.hooks, err = parseObject(raw); err != nil {
			return nil, plan.Errorf(plan.CodeInvalidArgument, "%s: \"hooks\" is not a JSON object; fix it first", path)
		}
	}
	return s, nil
}

func (s *Settings) groups(event string) ([]hookGroup, error) {
	raw, ok := s.hooks.vals[event]
	if !ok {
		return nil, nil
	}
	var gs []hookGroup
	if err := json.Unmarshal(raw, &gs); err != nil {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s: hooks.%s is not a list of matcher groups", s.Path, event)
	}
	return gs, nil
}

// Install adds plangit's hook for each event that has none yet, running
// command ("plangit" or a path to it).
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
		var raw json.RawMessage
		if existing, ok := s.hooks.vals[event]; ok {
			raw = appendToArray(existing, g)
		} else {
			raw, _ = json.Marshal([]hookGroup{g})
		}
		s.hooks.set(event, raw)
		s.changed = true
	}
	s.syncHooks()
	return nil
}

// appendToArray adds a group to an event's array, keeping the existing
// groups byte for byte.
func appendToArray(existing json.RawMessage, g hookGroup) json.RawMessage {
	var items []json.RawMessage
	json.Unmarshal(existing, &items)
	b, _ := json.Marshal(g)
	items = append(items, b)
	out, _ := json.Marshal(items)
	return out
}

// Uninstall removes every plangit hook, then any group and event it left
// empty.
func (s *Settings) Uninstall() error {
	for _, event := range slices.Clone(s.hooks.keys) {
		var items []json.RawMessage
		if err := json.Unmarshal(s.hooks.vals[event], &items); err != nil {
			continue // not ours to judge
		}
		var kept []json.RawMessage
		removed := false
		for _, item := range items {
			var g struct {
				Hooks []json.RawMessage `json:"hooks"`
			}
			if json.Unmarshal(item, &g) != nil || !slices.ContainsFunc(g.Hooks, isOurs) {
				kept = append(kept, item)
				continue
			}
			removed = true
			others := slices.DeleteFunc(slices.Clone(g.Hooks), isOurs)
			if len(others) > 0 {
				grp, _ := parseObject(item)
				h, _ := json.Marshal(others)
				grp.set("hooks", h)
				kept = append(kept, compact(grp))
			}
		}
		if !removed {
			continue
		}
		s.changed = true
		if len(kept) == 0 {
			s.hooks.del(event)
		} else {
			raw, _ := json.Marshal(kept)
			s.hooks.set(event, raw)
		}
	}
	s.syncHooks()
	return nil
}

func compact(o *object) json.RawMessage {
	var b bytes.Buffer
	json.Compact(&b, o.encode(""))
	return b.Bytes()
}

// syncHooks puts the edited hooks object back into the top object,
// removing it when it is empty.
func (s *Settings) syncHooks() {
	if !s.changed {
		return
	}
	if len(s.hooks.keys) == 0 {
		s.top.del("hooks")
		return
	}
	s.top.set("hooks", compact(s.hooks))
}

// Bytes is the settings file as it would be written.
func (s *Settings) Bytes() []byte { return s.top.encode(s.indent) }

// Changed reports whether Install or Uninstall changed anything.
func (s *Settings) Changed() bool { return s.changed }

// Save writes the file atomically, if anything changed.
func (s *Settings) Save() error {
	if !s.changed {
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
