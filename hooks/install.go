package hooks

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/confedit"
)

// Installing plangit's hooks into agent hosts' hook files. A file is
// edited as text (package confedit), not rewritten from a struct: every
// byte of every key, hook and line that was there stays, and only
// plangit's own entries — command hooks running "plangit hook EVENT" (or
// the hook binary, plangit-hook) — are added, upgraded or removed.
// Installing twice is installing once; uninstalling removes exactly the
// bytes installing added, and a file installing created.
//
// Where each host keeps its hooks, and how it runs them:
//
//   - Claude Code: "hooks" in .claude/settings.json (project),
//     .claude/settings.local.json (local), ~/.claude/settings.json (user);
//     matcher groups; timeout in seconds; a command with "args" runs
//     without a shell (exec form, Claude Code 2.1.139 and later; hooks
//     reference, "Command hook fields").
//   - Codex CLI: .codex/hooks.json, $CODEX_HOME/hooks.json (~/.codex);
//     matcher groups; seconds; always through a shell, so shell form: the
//     user's login shell from the password database when it is zsh, bash,
//     sh or PowerShell, else bash or zsh (zsh first on macOS), with -c
//     (PowerShell: -NoProfile -Command); PowerShell on Windows
//     (developers.openai.com/codex/hooks; codex-rs: build_hooks_for_config,
//     shell.rs default_user_shell, hooks command_runner.rs).
//     The file must hold only "hooks": Codex refuses unknown keys.
//   - Cursor: .cursor/hooks.json, ~/.cursor/hooks.json; {"version": 1,
//     "hooks": {event: [entry, …]}}, entries without groups; seconds;
//     shell form (cursor.com/docs/agent/hooks); PowerShell on Windows.
//   - Gemini CLI: "hooks" in .gemini/settings.json, ~/.gemini/settings.json;
//     matcher groups; timeout in milliseconds; bash -c, so shell form
//     (gemini-cli docs/hooks/reference.md); PowerShell on Windows.
//
// A shell-form entry is quoted for the shell its host runs it through on
// the system the hooks are for (windowsShells, in quote.go, says which
// and where each host's source says so).
//   - GitHub Copilot CLI: a file of its own in .github/hooks/ or
//     $COPILOT_HOME/hooks/ (~/.copilot); {"version": 1, "hooks": {event:
//     [entry, …]}}; "timeoutSec"; "exec" with "args" runs without a shell
//     (docs.github.com, Copilot hooks reference).

// Scopes of hook files.
const (
	ScopeProject = "project" // in the project, shared with the team
	ScopeLocal   = "local"   // Claude Code's .claude/settings.local.json, this machine only
	ScopeUser    = "user"    // in the home directory, every project
)

// hookTimeout is the seconds a host gives a plangit hook. plangit answers
// in milliseconds; the margin covers a busy session's lock wait.
const hookTimeout = 30

// toolEvents are the events whose matcher selects tools.
var toolEvents = []string{PreToolUse, PostToolUse, PostToolUseFailure}

// HookProgram is the name of the hook binary, which answers the events
// that come with every tool call, every prompt and every stop — the
// read-only ones from the glance, PostToolUse's count and the Stop gate —
// and hands every other case to plangit.
const HookProgram = hookwire.HookProgram

// HookBinaryEvents are, for each host, the events that installed hooks
// give the hook binary when it is installed beside plangit: the ones it
// answers itself when the glance is fresh and the event changes nothing —
// Claude Code's four that come with every tool call, prompt and stop, the
// read-only ones of the others. The other events run plangit at once:
// through the hook binary they would start two programs.
var HookBinaryEvents = map[string][]string{
	HostClaude:  {PreToolUse, UserPromptSubmit, PostToolUse, Stop},
	HostCodex:   {PreToolUse, UserPromptSubmit},
	HostCursor:  {PreToolUse, UserPromptSubmit},
	HostGemini:  {PreToolUse, UserPromptSubmit},
	HostCopilot: {PreToolUse, UserPromptSubmit},
}

// Programs are what installed hooks run.
type Programs struct {
	Plangit string // "plangit" when on PATH, else its path
	// Hook is the hook binary installed beside plangit ("plangit-hook" or
	// its path); "" when there is none, and plangit answers every event.
	Hook string
	// OS is the system the hosts run the hooks on, as runtime.GOOS names
	// it ("" for this one): it picks the shell whose quoting a command-line
	// entry takes.
	OS string
}

// hookFile is how a host keeps its hooks in a JSON file.
type hookFile struct {
	host    string
	scopes  []string
	flat    bool   // entries straight under the event, not in matcher groups
	version bool   // a new file starts with "version": 1
	matcher string // the matcher of tool events' groups; "" for none
	dir     string // the host's directory in a project, by which install detects it
	// comments: the host reads // and /* */ comments in the file (Gemini
	// CLI's settings.json, read through strip-json-comments), and they stay.
	comments bool
}

var hookFiles = []hookFile{
	{host: HostClaude, scopes: []string{ScopeProject, ScopeLocal, ScopeUser}, matcher: "*", dir: ".claude"},
	{host: HostCodex, scopes: []string{ScopeProject, ScopeUser}, dir: ".codex"},
	{host: HostCursor, scopes: []string{ScopeProject, ScopeUser}, flat: true, version: true, dir: ".cursor"},
	{host: HostGemini, scopes: []string{ScopeProject, ScopeUser}, dir: ".gemini", comments: true},
	{host: HostCopilot, scopes: []string{ScopeProject, ScopeUser}, flat: true, version: true, dir: filepath.Join(".github", "hooks")},
}

func findHookFile(host string) (*hookFile, error) {
	if _, err := lookupHost(host); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(hookFiles, func(f hookFile) bool { return f.host == strings.ToLower(host) })
	if i < 0 {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "plangit cannot install hooks for %s", host)
	}
	return &hookFiles[i], nil
}

// Scopes lists the scopes a host has.
func Scopes(host string) []string {
	f, err := findHookFile(host)
	if err != nil {
		return nil
	}
	return f.scopes
}

// HookFilePath is the hook file of a host's scope. getenv reads HOME and
// the hosts' own overrides (CODEX_HOME, COPILOT_HOME).
func HookFilePath(host, scope, projectRoot string, getenv func(string) string) (string, error) {
	f, err := findHookFile(host)
	if err != nil {
		return "", err
	}
	if scope == "" {
		scope = ScopeProject
	}
	if !slices.Contains(f.scopes, scope) {
		return "", plan.Errorf(plan.CodeInvalidArgument, "unknown scope %q for %s; one of %s", scope, f.host, strings.Join(f.scopes, ", "))
	}
	home := getenv("HOME")
	user := func(override string, elem ...string) (string, error) {
		if override != "" {
			if dir := getenv(override); dir != "" {
				return filepath.Join(append([]string{dir}, elem[1:]...)...), nil
			}
		}
		if home == "" {
			return "", plan.Errorf(plan.CodeInvalidArgument, "no home directory ($HOME) for the user scope")
		}
		return filepath.Join(append([]string{home}, elem...)...), nil
	}
	switch f.host + " " + scope {
	case "claude project":
		return filepath.Join(projectRoot, ".claude", "settings.json"), nil
	case "claude local":
		return filepath.Join(projectRoot, ".claude", "settings.local.json"), nil
	case "claude user":
		return user("", ".claude", "settings.json")
	case "codex project":
		return filepath.Join(projectRoot, ".codex", "hooks.json"), nil
	case "codex user":
		return user("CODEX_HOME", ".codex", "hooks.json")
	case "cursor project":
		return filepath.Join(projectRoot, ".cursor", "hooks.json"), nil
	case "cursor user":
		return user("", ".cursor", "hooks.json")
	case "gemini project":
		return filepath.Join(projectRoot, ".gemini", "settings.json"), nil
	case "gemini user":
		return user("", ".gemini", "settings.json")
	case "copilot project":
		return filepath.Join(projectRoot, ".github", "hooks", "plangit.json"), nil
	case "copilot user":
		return user("COPILOT_HOME", ".copilot", "hooks", "plangit.json")
	}
	return "", plan.Errorf(plan.CodeInternal, "no hook file for %s %s", f.host, scope)
}

// SettingsPath is Claude Code's settings file of a scope.
func SettingsPath(scope, projectRoot, home string) (string, error) {
	return HookFilePath(HostClaude, scope, projectRoot, func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	})
}

// DetectHosts lists the hosts whose directory the project has (.claude,
// .codex, .cursor, .gemini, .github/hooks), in the order of HostNames.
func DetectHosts(projectRoot string) []string {
	var out []string
	for _, f := range hookFiles {
		if _, err := lookupHost(f.host); err != nil {
			continue // plangit does not answer it yet
		}
		if st, err := os.Stat(filepath.Join(projectRoot, f.dir)); err == nil && st.IsDir() {
			out = append(out, f.host)
		}
	}
	return out
}

// hookEntry is one command hook, in any host's spelling; the fields a host
// does not use stay empty and are not written.
type hookEntry struct {
	Name       string   `json:"name,omitempty"`
	Type       string   `json:"type,omitempty"`
	Command    string   `json:"command,omitempty"`
	Bash       string   `json:"bash,omitempty"`
	Exec       string   `json:"exec,omitempty"`
	Args       []string `json:"args,omitempty"`
	Timeout    int      `json:"timeout,omitempty"`
	TimeoutSec int      `json:"timeoutSec,omitempty"`
}

// argv is the program and arguments the entry runs, as far as it says.
func (h hookEntry) argv() []string {
	switch {
	case h.Exec != "":
		return append([]string{h.Exec}, h.Args...)
	case h.Command != "" && len(h.Args) > 0:
		return append([]string{h.Command}, h.Args...)
	case h.Command != "":
		return commandFields(h.Command)
	}
	return commandFields(h.Bash)
}

// ShellJoin writes argv as a POSIX shell command line, quoting what needs it.
func ShellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n\"'$`\\!*?&;|<>()#~{}[]=") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}

// isOurs reports whether a hook entry is a plangit hook
// (hookwire.IsPlangitHook).
func isOurs(raw json.RawMessage) bool { return hookwire.IsPlangitHook(raw) }

// want is the entry install writes for one of the host's events: a
// command line in the quoting of the shell the host runs it through on
// prog.OS, or a program and its arguments where the host runs them
// without a shell.
func (f *hookFile) want(ev HostEvent, prog Programs) (hookEntry, error) {
	argv := []string{prog.Plangit, "hook", ev.Name}
	if f.host != HostClaude {
		// Claude Code's entries name no host: Cursor and Copilot CLI run
		// them too, and plangit tells their payloads apart.
		argv = append(argv, "--host", f.host)
	}
	if prog.Hook != "" && slices.Contains(HookBinaryEvents[f.host], ev.Event) {
		argv = append([]string{prog.Hook}, argv[2:]...) // EVENT [--host NAME]
	}
	switch f.host {
	case HostClaude:
		return hookEntry{Type: "command", Command: argv[0], Args: argv[1:], Timeout: hookTimeout}, nil
	case HostCopilot:
		return hookEntry{Type: "command", Exec: argv[0], Args: argv[1:], TimeoutSec: hookTimeout}, nil
	}
	goos := prog.OS
	if goos == "" {
		goos = runtime.GOOS
	}
	sh := hostShell(f.host, goos)
	line, err := sh.Join(argv)
	if err != nil {
		return hookEntry{}, plan.WrapError(plan.CodeInvalidArgument, err, "cannot install hooks for %s", f.host)
	}
	if f.host == HostGemini {
		return hookEntry{Name: "plangit", Type: "command", Command: line, Timeout: hookTimeout * 1000}, nil
	}
	return hookEntry{Type: "command", Command: line, Timeout: hookTimeout}, nil
}

// hookGroup is one matcher group of an event.
type hookGroup struct {
	Matcher string            `json:"matcher,omitempty"`
	Hooks   []json.RawMessage `json:"hooks"`
}

// HookFile is a host's hook file being edited.
type HookFile struct {
	Host    string
	Path    string
	spec    *hookFile
	exists  bool
	doc     *confedit.Doc
	changed bool
}

// Settings is Claude Code's settings file being edited.
type Settings = HookFile

// LoadSettings reads a Claude Code settings file.
func LoadSettings(path string) (*HookFile, error) { return LoadHookFile(HostClaude, path) }

// LoadHookFile reads a host's hook file (a missing one is empty). A file
// that is not a JSON object, or whose hooks are not as the host reads
// them, is an error, and is never overwritten.
func LoadHookFile(host, path string) (*HookFile, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ParseHookFile(host, path, nil, false)
	case err != nil:
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read %s", path)
	}
	return ParseHookFile(host, path, data, true)
}

// ParseHookFile is LoadHookFile on a file's bytes: data is what the file
// at path holds (exists false: there is no file).
func ParseHookFile(host, path string, data []byte, exists bool) (*HookFile, error) {
	spec, err := findHookFile(host)
	if err != nil {
		return nil, err
	}
	s := &HookFile{Host: spec.host, Path: path, spec: spec, exists: exists}
	if !exists {
		data = nil
	}
	parse := confedit.Parse
	if spec.comments {
		parse = confedit.ParseJSONC
	}
	if s.doc, err = parse(data); err != nil || s.doc.Root().Kind != '{' {
		why := "not a JSON object"
		if err != nil {
			why = err.Error()
		}
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s is not a JSON object plangit can edit (%s)", path, why).Hinted("fix it first, plangit will not overwrite it")
	}
	h := s.doc.Lookup("hooks")
	if h != nil && h.Kind != '{' {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s: \"hooks\" is not a JSON object", path).Hinted("fix it first")
	}
	if h != nil {
		for _, m := range h.Members {
			if _, err := s.entries(m.Key); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// place is where one hook entry sits in the file.
type place struct {
	event string
	group int // the matcher group, for hosts that have them
	entry int
	raw   json.RawMessage
}

// entries lists an event's hook entries.
func (s *HookFile) entries(event string) ([]place, error) {
	v := s.doc.Lookup("hooks", event)
	if v == nil {
		return nil, nil
	}
	bad := func(what string) error {
		return plan.Errorf(plan.CodeInvalidArgument, "%s: hooks.%s is not a list of %s", s.Path, event, what).Hinted("fix it first")
	}
	if s.spec.flat {
		var es []json.RawMessage
		if v.Kind != '[' || s.doc.Decode(v, &es) != nil {
			return nil, bad("hook entries")
		}
		out := make([]place, len(es))
		for i, e := range es {
			out[i] = place{event: event, entry: i, raw: e}
		}
		return out, nil
	}
	var gs []hookGroup
	if v.Kind != '[' || s.doc.Decode(v, &gs) != nil {
		return nil, bad("matcher groups")
	}
	var out []place
	for gi, g := range gs {
		for hi, h := range g.Hooks {
			out = append(out, place{event: event, group: gi, entry: hi, raw: h})
		}
	}
	return out, nil
}

// ours lists plangit's entries in the file, event by event.
func (s *HookFile) ours() []place {
	var out []place
	h := s.doc.Lookup("hooks")
	if h == nil {
		return nil
	}
	for _, m := range h.Members {
		ps, _ := s.entries(m.Key)
		for _, p := range ps {
			if isOurs(p.raw) {
				out = append(out, p)
			}
		}
	}
	return out
}

// value is where p's entry sits in the document.
func (s *HookFile) value(p place) *confedit.Value {
	list := s.doc.Lookup("hooks", p.event)
	if !s.spec.flat {
		list = list.Elems[p.group].Get("hooks")
	}
	return list.Elems[p.entry]
}

func sameEntry(raw json.RawMessage, want hookEntry) bool {
	var a, b any
	w, _ := json.Marshal(want)
	return json.Unmarshal(raw, &a) == nil && json.Unmarshal(w, &b) == nil && reflect.DeepEqual(a, b)
}

// Install gives each of the host's events one plangit hook running prog,
// as the host runs it today. An event without one gets it as text at the
// end of its place — a new matcher group (or entry) at the end of the
// event's list, a new event at the end of "hooks", "hooks" at the end of
// the file — written in the style of what is around it, so that Uninstall
// can take out exactly those bytes. An entry an earlier plangit wrote in
// another form (a shell command where the host now runs programs without
// one, another timeout, the hook binary newly installed) is rewritten in
// place; a second plangit entry for an event, or one for an event plangit
// no longer hooks, is taken out.
func (s *HookFile) Install(prog Programs) error {
	events, err := HostEvents(s.Host)
	if err != nil {
		return err
	}
	// Every entry is written before the file changes: one that cannot be
	// changes nothing.
	wants := make([]hookEntry, len(events))
	for i, ev := range events {
		if wants[i], err = s.spec.want(ev, prog); err != nil {
			return err
		}
	}
	if !s.exists && s.spec.version && s.doc.Lookup("version") == nil {
		if err := s.doc.Set([]string{"version"}, 1); err != nil {
			return plan.WrapError(plan.CodeInternal, err, "cannot write %s", s.Path)
		}
	}
	for i, ev := range events {
		want := wants[i]
		ps, _ := s.entries(ev.Name)
		var mine []place
		for _, p := range ps {
			if isOurs(p.raw) {
				mine = append(mine, p)
			}
		}
		if len(mine) > 0 {
			if !sameEntry(mine[0].raw, want) {
				if err := s.doc.Replace(s.value(mine[0]), want); err != nil {
					return plan.WrapError(plan.CodeInternal, err, "cannot upgrade the %s hook in %s", ev.Name, s.Path)
				}
				s.changed = true
			}
			continue
		}
		var item any = want
		if !s.spec.flat {
			g := struct {
				Matcher string      `json:"matcher,omitempty"`
				Hooks   []hookEntry `json:"hooks"`
			}{Hooks: []hookEntry{want}}
			if slices.Contains(toolEvents, ev.Event) {
				g.Matcher = s.spec.matcher
			}
			item = g
		}
		if s.doc.Lookup("hooks", ev.Name) != nil {
			err = s.doc.Append([]string{"hooks", ev.Name}, item)
		} else {
			err = s.doc.Set([]string{"hooks", ev.Name}, []any{item})
		}
		if err != nil {
			return plan.WrapError(plan.CodeInternal, err, "cannot add the %s hook to %s", ev.Name, s.Path)
		}
		s.changed = true
	}
	// What is left over: doubles, and events plangit no longer hooks.
	for s.removeOne(func(p place, first bool) bool {
		return !first || !slices.ContainsFunc(events, func(e HostEvent) bool { return e.Name == p.event })
	}) {
		s.changed = true
	}
	return nil
}

// Uninstall removes every plangit hook, then any matcher group, event list
// and "hooks" object it leaves empty — the inverse of Install, byte for
// byte, when nothing else changed in between.
func (s *HookFile) Uninstall() error {
	for s.removeOne(func(place, bool) bool { return true }) {
		s.changed = true
	}
	return nil
}

// removeOne takes out the first plangit entry that drop selects (told
// whether the entry is its event's first), with whatever it leaves empty,
// and reports whether it found one.
func (s *HookFile) removeOne(drop func(p place, first bool) bool) bool {
	seen := map[string]bool{}
	for _, p := range s.ours() {
		first := !seen[p.event]
		seen[p.event] = true
		if !drop(p, first) {
			continue
		}
		hooksObj := s.doc.Lookup("hooks")
		ei := slices.IndexFunc(hooksObj.Members, func(m confedit.Member) bool { return m.Key == p.event })
		list := hooksObj.Members[ei].Value
		// The innermost container that would not be left empty loses its
		// item.
		var c *confedit.Value
		var i int
		switch {
		case !s.spec.flat && list.Elems[p.group].Get("hooks").Len() > 1:
			c, i = list.Elems[p.group].Get("hooks"), p.entry
		case list.Len() > 1 && s.spec.flat:
			c, i = list, p.entry
		case list.Len() > 1:
			c, i = list, p.group
		case hooksObj.Len() > 1:
			c, i = hooksObj, ei
		default:
			c = s.doc.Root()
			i = slices.IndexFunc(c.Members, func(m confedit.Member) bool { return m.Value == hooksObj })
		}
		s.doc.Remove(c, i)
		return true
	}
	return false
}

// Bytes is the file as it would be written.
func (s *HookFile) Bytes() []byte { return s.doc.Bytes() }

// Changed reports whether Install or Uninstall changed anything.
func (s *HookFile) Changed() bool { return s.changed }

// empty reports whether nothing is left in the file but an empty object
// (and, for hosts whose files carry one, the "version" install wrote).
func (s *HookFile) empty() bool {
	r := s.doc.Root()
	if s.spec.version && r.Len() == 1 && r.Members[0].Key == "version" {
		return true
	}
	return r.Len() == 0
}

// Save writes the file atomically, if anything changed. A file left with
// nothing in it is removed: what install created, uninstall takes away.
func (s *HookFile) Save() error {
	if !s.changed {
		return nil
	}
	if s.empty() {
		if err := os.Remove(s.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return plan.WrapError(plan.CodeIOError, err, "cannot remove %s", s.Path)
		}
		s.removeEmptyDirs()
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot create %s", filepath.Dir(s.Path))
	}
	return repo.WriteFileAtomic(s.Path, s.Bytes(), 0o644, true)
}

// removeEmptyDirs removes the host's directories the removed file was in
// (".claude"; ".github" and its "hooks"), each only when nothing else is
// in it: install created them, and an empty one left behind would still
// mark the project as the host's to the next install. A directory of
// another name (CODEX_HOME, say) stays.
func (s *HookFile) removeEmptyDirs() {
	if s.spec == nil || s.spec.dir == "" {
		return
	}
	dir := filepath.Dir(s.Path)
	names := strings.Split(s.spec.dir, string(filepath.Separator))
	for i := len(names) - 1; i >= 0; i-- {
		if filepath.Base(dir) != names[i] || os.Remove(dir) != nil {
			return // not the host's, or not empty
		}
		dir = filepath.Dir(dir)
	}
}

// Installed lists, for each event, plangit's command in this file ("" when
// none): a command line as the entry has it, in its shell's quoting; a
// program and its arguments as a POSIX shell would read them.
func (s *HookFile) Installed() map[string]string {
	out := map[string]string{}
	for _, p := range s.ours() {
		if _, ok := out[p.event]; ok {
			continue
		}
		var h hookEntry
		json.Unmarshal(p.raw, &h)
		if h.Command != "" && h.Exec == "" && len(h.Args) == 0 {
			out[p.event] = h.Command
		} else {
			out[p.event] = ShellJoin(h.argv())
		}
	}
	return out
}

// Hook file states, as status reports them.
const (
	StateInstalled = "installed" // every event has plangit's hook, as install writes it today
	StateOutdated  = "outdated"  // some are missing, doubled, or written in an earlier form: install upgrades them
	StateAbsent    = "absent"    // no plangit hook
)

// State says whether the file holds plangit's hooks as Install would write
// them for prog, and which events differ.
func (s *HookFile) State(prog Programs) (state string, differ []string) {
	events, _ := HostEvents(s.Host)
	ours := s.ours()
	if len(ours) == 0 {
		return StateAbsent, nil
	}
	for _, ev := range events {
		var mine []place
		for _, p := range ours {
			if p.event == ev.Name {
				mine = append(mine, p)
			}
		}
		want, err := s.spec.want(ev, prog)
		if len(mine) != 1 || err != nil || !sameEntry(mine[0].raw, want) {
			differ = append(differ, ev.Name)
		}
	}
	for _, p := range ours {
		if !slices.ContainsFunc(events, func(e HostEvent) bool { return e.Name == p.event }) && !slices.Contains(differ, p.event) {
			differ = append(differ, p.event)
		}
	}
	if len(differ) > 0 {
		return StateOutdated, differ
	}
	return StateInstalled, nil
}

// Exists reports whether the file exists.
func (s *HookFile) Exists() bool { return s.exists }

// InstallNote is what a person should know after installing plangit's
// hooks for host in a project.
func InstallNote(host, projectRoot string, getenv func(string) string) string {
	claudeToo := ""
	if host == HostCursor || host == HostCopilot {
		for _, scope := range Scopes(HostClaude) {
			path, err := HookFilePath(HostClaude, scope, projectRoot, getenv)
			if err != nil {
				continue
			}
			if s, err := LoadHookFile(HostClaude, path); err == nil && len(s.ours()) > 0 {
				claudeToo = "; it also runs the hooks in " + path + ", and plangit answers each event once, in the host's own protocol"
				break
			}
		}
	}
	switch host {
	case HostClaude:
		return "Claude Code 2.1.139 or later runs these hooks without a shell; /hooks lists them"
	case HostCodex:
		return "Codex runs project hooks only once you trust them: open /hooks in Codex and trust plangit's (again after any change to them)"
	case HostCursor:
		return "Cursor runs project hooks in trusted workspaces" + claudeToo
	case HostGemini:
		return "Gemini CLI asks before it runs new or changed project hooks"
	case HostCopilot:
		return "Copilot CLI reads hooks when it starts: restart it" + claudeToo
	}
	return ""
}

// Program is the plangit program the file's plangit hooks run ("" when
// none do): what status compares them against, so that a path given to
// install --command is no reason to call them outdated.
func (s *HookFile) Program() string {
	for _, p := range s.ours() {
		var h hookEntry
		json.Unmarshal(p.raw, &h)
		if argv := h.argv(); !strings.HasPrefix(programBase(argv[0]), HookProgram) {
			return argv[0]
		}
	}
	return ""
}
