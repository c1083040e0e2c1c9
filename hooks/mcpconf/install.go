// Package mcpconf installs plangit's MCP server into agent hosts'
// settings: the file each host reads its MCP servers from, per scope, and
// the entry plangit adds there — a server named plangit that runs
// `plangit mcp`. It links no MCP library: plangit's setup uses it as
// plangit mcp install does.
package mcpconf

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/confedit"
)

// serverName is the name the server is installed under.
const serverName = "plangit"

// Scopes of an installation.
const (
	ScopeProject = "project" // the project's own settings, shared through its repository
	ScopeUser    = "user"    // the user's settings, for every project
)

// Host is an agent host plangit installs its server into.
type Host struct {
	Name string
	// Project and User are the settings file of each scope; getenv reads
	// the environment (HOME, and the host's own overrides).
	Project func(root string) string
	User    func(getenv func(string) string) string
	// TOML says the file is TOML (Codex); otherwise it is JSON with the
	// servers under mcpServers. Comments says the host reads // and /* */
	// comments in its JSON. StdioType says the host's own entries carry
	// "type": "stdio".
	TOML, Comments, StdioType bool
	// Dir is the host's own directory the file is in, if any (.codex):
	// uninstall removes it when it leaves it empty.
	Dir string
	// Note is what a person should know after installing.
	Note string
}

// Hosts are the hosts plangit installs into, by name.
//
// Claude Code: .mcp.json at the project root, ~/.claude.json (under
// $CLAUDE_CONFIG_DIR when set) for the user — `claude mcp add --scope
// project|user` writes the same files. Codex: [mcp_servers.NAME] tables in
// .codex/config.toml (read in trusted projects) and $CODEX_HOME/config.toml
// (~/.codex). Gemini CLI: mcpServers in .gemini/settings.json and
// ~/.gemini/settings.json, which it reads as JSON with comments. Cursor:
// .cursor/mcp.json and ~/.cursor/mcp.json.
var Hosts = []Host{
	{Name: "claude", StdioType: true,
		Project: func(root string) string { return filepath.Join(root, ".mcp.json") },
		User: func(getenv func(string) string) string {
			if dir := getenv("CLAUDE_CONFIG_DIR"); dir != "" {
				return filepath.Join(dir, ".claude.json")
			}
			return homePath(getenv, ".claude.json")
		},
		Note: "Claude Code asks once before it starts a server from a project's .mcp.json; /mcp shows it"},
	{Name: "codex", TOML: true, Dir: ".codex",
		Project: func(root string) string { return filepath.Join(root, ".codex", "config.toml") },
		User: func(getenv func(string) string) string {
			if dir := getenv("CODEX_HOME"); dir != "" {
				return filepath.Join(dir, "config.toml")
			}
			return homePath(getenv, ".codex", "config.toml")
		},
		Note: "Codex reads a project's .codex/config.toml only when it trusts the project; codex mcp list shows the server"},
	{Name: "gemini", Comments: true, Dir: ".gemini",
		Project: func(root string) string { return filepath.Join(root, ".gemini", "settings.json") },
		User:    func(getenv func(string) string) string { return homePath(getenv, ".gemini", "settings.json") },
		Note:    "gemini mcp list shows the server"},
	{Name: "cursor", Dir: ".cursor",
		Project: func(root string) string { return filepath.Join(root, ".cursor", "mcp.json") },
		User:    func(getenv func(string) string) string { return homePath(getenv, ".cursor", "mcp.json") },
		Note:    "Cursor lists the server under Settings, MCP"},
}

// homePath is a path under $HOME, or "" without a home.
func homePath(getenv func(string) string, elem ...string) string {
	home := getenv("HOME")
	if home == "" {
		home = getenv("USERPROFILE")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(append([]string{home}, elem...)...)
}

// HostNames lists the hosts' names.
func HostNames() []string {
	var out []string
	for _, h := range Hosts {
		out = append(out, h.Name)
	}
	return out
}

// FindHost returns the host named name.
func FindHost(name string) (Host, error) {
	for _, h := range Hosts {
		if h.Name == strings.ToLower(name) {
			return h, nil
		}
	}
	return Host{}, plan.Errorf(plan.CodeInvalidArgument, "unknown host %q; one of %s", name, strings.Join(HostNames(), ", "))
}

// Path is the settings file of a scope.
func (h Host) Path(scope, root string, getenv func(string) string) (string, error) {
	switch scope {
	case ScopeProject, "":
		return h.Project(root), nil
	case ScopeUser:
		if p := h.User(getenv); p != "" {
			return p, nil
		}
		return "", plan.Errorf(plan.CodeInvalidArgument, "no home directory ($HOME) for the user scope")
	}
	return "", plan.Errorf(plan.CodeInvalidArgument, "unknown scope %q; one of project, user", scope)
}

// Entry is the server entry: the program a host runs, and its arguments.
type Entry struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// Edit is the server installed into, or removed from, one settings file:
// the file as it is and as it will be.
type Edit struct {
	Host    string `json:"host"`
	Path    string `json:"path"`
	Server  *Entry `json:"server,omitempty"`
	Changed bool   `json:"changed"`
	// Created says the file is new; Removed that it goes, because it held
	// nothing but what install wrote.
	Created bool `json:"created,omitempty"`
	Removed bool `json:"removed,omitempty"`

	dir     string // the host's own directory, removed when left empty
	existed bool
	before  []byte
	after   []byte
	mode    fs.FileMode
}

// Content is the file as the edit leaves it (nothing when it is removed).
func (e *Edit) Content() []byte { return e.after }

// Install plans adding server to the settings file at path. An entry named
// plangit running the same program is already there (nothing changes); one
// running another is a CONFLICT. A file that does not parse is refused.
func (h Host) Install(path string, server Entry) (*Edit, error) {
	f, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return h.InstallFile(f, server)
}

// InstallFile is Install on a file as f holds it.
func (h Host) InstallFile(f File, server Entry) (*Edit, error) {
	e := h.edit(f)
	var err error
	e.Server = &server
	if h.TOML {
		err = e.tomlInstall(server)
	} else {
		err = e.jsonInstall(h, server)
	}
	if err != nil {
		return nil, err
	}
	e.Changed = !e.existed || string(e.after) != string(e.before)
	e.Created = !e.existed
	return e, nil
}

// Uninstall plans removing the server named plangit from the settings file
// at path, whatever it runs.
func (h Host) Uninstall(path string) (*Edit, error) {
	f, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return h.UninstallFile(f)
}

// UninstallFile is Uninstall on a file as f holds it.
func (h Host) UninstallFile(f File) (*Edit, error) {
	e := h.edit(f)
	var err error
	if !e.existed {
		return e, nil
	}
	if h.TOML {
		err = e.tomlUninstall()
	} else {
		err = e.jsonUninstall(h)
	}
	if err != nil {
		return nil, err
	}
	e.Changed = string(e.after) != string(e.before) || e.Removed
	return e, nil
}

// File is a settings file as it is: its path, whether it exists, its
// bytes and its permissions.
type File struct {
	Path   string
	Exists bool
	Data   []byte
	Mode   fs.FileMode
}

// ReadFile reads the settings file at path (a missing one does not
// exist). What is not a regular file is refused.
func ReadFile(path string) (File, error) {
	f := File{Path: path, Mode: 0o644}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, nil
	case err != nil:
		return File{}, plan.WrapError(plan.CodeIOError, err, "cannot read %s", path)
	case !fi.Mode().IsRegular():
		return File{}, plan.Errorf(plan.CodeInvalidArgument, "%s is not a regular file", path)
	}
	if f.Data, err = os.ReadFile(path); err != nil {
		return File{}, plan.WrapError(plan.CodeIOError, err, "cannot read %s", path)
	}
	f.Exists, f.Mode = true, fi.Mode().Perm()
	return f, nil
}

func (h Host) edit(f File) *Edit {
	e := &Edit{Host: h.Name, Path: f.Path, mode: f.Mode, dir: h.Dir}
	if e.mode == 0 {
		e.mode = 0o644
	}
	if f.Exists {
		e.existed, e.before, e.after = true, f.Data, f.Data
	}
	return e
}

// Server is the server named plangit in the file as f holds it: the
// program it runs and its arguments; nil when there is none. A file that
// does not parse is refused.
func (h Host) Server(f File) (*Entry, error) {
	e := h.edit(f)
	if !e.existed || len(strings.TrimSpace(string(e.before))) == 0 {
		return nil, nil
	}
	var had any
	if h.TOML {
		m, err := confedit.DecodeTOML(e.before)
		if err != nil {
			return nil, e.refused("TOML", err)
		}
		s, ok := tomlServer(m, serverName)
		if !ok {
			return nil, nil
		}
		had = s
	} else {
		_, m, err := e.readJSON(h, e.before)
		if err != nil {
			return nil, err
		}
		servers, _ := m["mcpServers"].(map[string]any)
		s, ok := servers[serverName]
		if !ok {
			return nil, nil
		}
		had = s
	}
	out := &Entry{Args: []string{}}
	m, _ := had.(map[string]any)
	out.Command, _ = m["command"].(string)
	args, _ := m["args"].([]any)
	for _, a := range args {
		s, _ := a.(string)
		out.Args = append(out.Args, s)
	}
	return out, nil
}

// Runs reports whether the entry runs the same program with the same
// arguments as s.
func (x Entry) Runs(s Entry) bool { return x.Command == s.Command && slices.Equal(x.Args, s.Args) }

// refused is the error for a settings file plangit cannot read.
func (e *Edit) refused(kind string, err error) error {
	return plan.Errorf(plan.CodeInvalidArgument, "%s is not valid %s (%v); fix it first, plangit will not overwrite it", e.Path, kind, err).With("path", e.Path)
}

// conflict is the error for a server named plangit that runs something
// else.
func (e *Edit) conflict(had any) error {
	return plan.Errorf(plan.CodeConflict, "%s already has an MCP server named %s (%v); plangit mcp uninstall --host %s removes it, then install adds plangit's",
		e.Path, serverName, had, e.Host).With("path", e.Path)
}

// runs reports whether a decoded server entry runs s.
func runs(entry any, s Entry) bool {
	m, ok := entry.(map[string]any)
	if !ok || m["command"] != s.Command {
		return false
	}
	args, _ := m["args"].([]any)
	if len(args) != len(s.Args) {
		return false
	}
	for i, a := range args {
		if a != s.Args[i] {
			return false
		}
	}
	return true
}

// emptySettings is a JSON settings file with nothing in it, as install
// starts a new one.
const emptySettings = "{\n}\n"

// jsonEntry is the server's JSON value as install writes it: "type"
// first where the host's own entries carry it.
type jsonEntry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func (h Host) jsonEntry(s Entry) jsonEntry {
	e := jsonEntry{Command: s.Command, Args: s.Args}
	if h.StdioType {
		e.Type = "stdio"
	}
	return e
}

func (e *Edit) jsonInstall(h Host, s Entry) error {
	data := e.before
	if len(strings.TrimSpace(string(data))) == 0 {
		data = []byte(emptySettings)
	}
	doc, before, err := e.readJSON(h, data)
	if err != nil {
		return err
	}
	if servers := doc.Lookup("mcpServers"); servers != nil {
		if servers.Kind != '{' {
			return e.refused("settings", errors.New("mcpServers is not an object"))
		}
		if servers.Get(serverName) != nil {
			had := before["mcpServers"].(map[string]any)[serverName]
			if !runs(had, s) {
				return e.conflict(had)
			}
			return nil
		}
	}
	err = doc.Set([]string{"mcpServers", serverName}, h.jsonEntry(s))
	var after map[string]any
	if err == nil {
		err = doc.Decode(doc.Root(), &after)
	}
	return e.verify(doc.Bytes(), err == nil && installed(before, after, "mcpServers", s), err)
}

// jsonUninstall takes the server out: of the files install would have
// turned into this one — the file without the server, without an
// mcpServers left empty, or no file at all — the first that install gives
// back byte for byte, so install then uninstall leaves no trace; a file
// edited since loses the server alone.
func (e *Edit) jsonUninstall(h Host) error {
	if len(strings.TrimSpace(string(e.before))) == 0 {
		return nil
	}
	doc, before, err := e.readJSON(h, e.before)
	if err != nil {
		return err
	}
	servers := doc.Lookup("mcpServers")
	if servers == nil || servers.Kind != '{' {
		return nil // no server of plangit's in it
	}
	j := slices.IndexFunc(servers.Members, func(m confedit.Member) bool { return m.Key == serverName })
	if j < 0 {
		return nil
	}
	var had Entry
	if doc.Decode(servers.Members[j].Value, &had) != nil {
		had = Entry{}
	}
	// without is the file without the i-th member of the object at path.
	without := func(i int, path ...string) []byte {
		d, _, _ := e.readJSON(h, e.before)
		if d.Remove(d.Lookup(path...), i) != nil {
			return nil
		}
		return d.Bytes()
	}
	// The smallest first: a file left with nothing, then the file without
	// an mcpServers holding only the server, then the file without the
	// server.
	var candidates [][]byte
	if len(servers.Members) == 1 {
		i := slices.IndexFunc(doc.Root().Members, func(m confedit.Member) bool { return m.Value == servers })
		if out := without(i); out != nil {
			if d, err := confedit.Parse(out); err == nil && d.Root().Len() == 0 {
				candidates = append(candidates, nil) // no file
			}
			candidates = append(candidates, out)
		}
	}
	out := without(j, "mcpServers")
	candidates = append(candidates, out)
	for _, c := range candidates {
		back := &Edit{Path: e.Path, before: c}
		if back.jsonInstall(h, had) == nil && string(back.after) == string(e.before) {
			out = c
			break
		}
	}
	if out == nil {
		e.after, e.Removed = nil, true
		return nil
	}
	var after map[string]any
	d, err := confedit.ParseJSONC(out)
	if err == nil {
		err = d.Decode(d.Root(), &after)
	}
	return e.verify(out, err == nil && uninstalled(before, after, "mcpServers"), err)
}

// readJSON reads data as the host's JSON settings: the document, and what
// it decodes to. A file that does not parse, or is not an object, is
// refused.
func (e *Edit) readJSON(h Host, data []byte) (*confedit.Doc, map[string]any, error) {
	parse := confedit.Parse
	if h.Comments {
		parse = confedit.ParseJSONC
	}
	doc, err := parse(data)
	if err == nil && doc.Root().Kind != '{' {
		err = errors.New("not a JSON object")
	}
	var m map[string]any
	if err == nil {
		err = doc.Decode(doc.Root(), &m)
	}
	if err != nil {
		return nil, nil, e.refused("JSON", err)
	}
	return doc, m, nil
}

// withoutServer is doc without the server named plangit in its servers
// table, key; a table left empty goes too when drop says so.
func withoutServer(doc map[string]any, key string, drop bool) map[string]any {
	out := maps.Clone(doc)
	servers, ok := doc[key].(map[string]any)
	if !ok {
		return out
	}
	left := maps.Clone(servers)
	delete(left, serverName)
	out[key] = left
	if drop && len(left) == 0 {
		delete(out, key)
	}
	return out
}

// installed reports whether after is before with the server s added to
// the servers table key, and nothing else changed.
func installed(before, after map[string]any, key string, s Entry) bool {
	servers, _ := after[key].(map[string]any)
	_, had := before[key]
	return runs(servers[serverName], s) && reflect.DeepEqual(withoutServer(after, key, !had), before)
}

// uninstalled reports whether after is before without the server, and
// nothing else changed.
func uninstalled(before, after map[string]any, key string) bool {
	_, still := after[key]
	return reflect.DeepEqual(after, withoutServer(before, key, !still))
}

// verify makes out the edit's result when it decoded as it should; if not,
// nothing is written.
func (e *Edit) verify(out []byte, ok bool, err error) error {
	if !ok {
		return plan.Errorf(plan.CodeIOError, "editing %s went wrong (%v); nothing was written — please report this with the file", e.Path, err)
	}
	e.after = out
	return nil
}

// tomlServer reads mcp_servers.NAME from decoded TOML.
func tomlServer(m map[string]any, name string) (map[string]any, bool) {
	servers, _ := m["mcp_servers"].(map[string]any)
	s, ok := servers[name].(map[string]any)
	return s, ok
}

// tomlBlock is the [mcp_servers.plangit] table install appends.
func tomlBlock(s Entry) string {
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = confedit.TOMLString(a)
	}
	return "[mcp_servers." + serverName + "]\ncommand = " + confedit.TOMLString(s.Command) + "\nargs = [" + strings.Join(args, ", ") + "]\n"
}

func (e *Edit) tomlInstall(s Entry) error {
	before, err := confedit.DecodeTOML(e.before)
	if err != nil {
		return e.refused("TOML", err)
	}
	if had, ok := tomlServer(before, serverName); ok {
		if !runs(had, s) {
			return e.conflict(had)
		}
		return nil
	}
	if servers, ok := before["mcp_servers"]; ok {
		if _, isTable := servers.(map[string]any); !isTable {
			return e.refused("Codex settings", errors.New("mcp_servers is not a table"))
		}
	}
	out := confedit.AppendTOML(e.before, tomlBlock(s))
	after, err := confedit.DecodeTOML(out)
	return e.verify(out, err == nil && installed(before, after, "mcp_servers", s), err)
}

func (e *Edit) tomlUninstall() error {
	before, err := confedit.DecodeTOML(e.before)
	if err != nil {
		return e.refused("TOML", err)
	}
	if _, ok := tomlServer(before, serverName); !ok {
		return nil
	}
	out, err := confedit.RemoveTOMLTable(e.before, "mcp_servers", serverName)
	if err != nil {
		return plan.Errorf(plan.CodeInvalidArgument, "%s: %v; remove it by hand", e.Path, err).With("path", e.Path)
	}
	after, err := confedit.DecodeTOML(out)
	if err := e.verify(out, err == nil && uninstalled(before, after, "mcp_servers"), err); err != nil {
		return err
	}
	if len(out) == 0 {
		e.after, e.Removed = nil, true
	}
	return nil
}

// Save writes the edit: atomically, keeping the file's permissions, into
// the file a symbolic link points at; a file left with nothing of its own
// is removed.
func (e *Edit) Save() error {
	if !e.Changed {
		return nil
	}
	path := e.Path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if e.Removed {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return plan.WrapError(plan.CodeIOError, err, "cannot remove %s", e.Path)
		}
		if parent := filepath.Dir(e.Path); e.dir != "" && filepath.Base(parent) == e.dir {
			os.Remove(parent) // only if empty
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot create %s", filepath.Dir(path))
	}
	return repo.WriteFileAtomic(path, e.after, e.mode, true)
}
