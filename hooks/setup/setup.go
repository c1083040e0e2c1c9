// Package setup sets plangit up for agent hosts in one step: each host's
// hooks (package hooks), its MCP server where plangit installs one
// (package mcpconf) and plangit's Agent Skill (package skill); it says
// what is installed, outdated or missing; and it undoes what it wrote,
// byte for byte.
//
// Every file setup writes is recorded before it is written: its bytes as
// they were (or that it did not exist) and a digest of the bytes setup
// left, in .code-agent/setup.json for the project scope and in plangit's
// user configuration directory (UserConfigDir) for the user scope. Undo
// gives each file back its recorded bytes — a file setup created is
// removed, with the folders it created when they are left empty — when
// the file is still as setup left it; a file changed since loses only
// plangit's part (the hooks and the MCP server as uninstall takes them
// out; a skill file changed since is kept), so nothing a person wrote
// after setup is lost.
package setup

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plangit/plangit/hooks"
	"github.com/plangit/plangit/hooks/mcpconf"
	"github.com/plangit/plangit/hooks/skill"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// Scopes setup knows.
const (
	ScopeProject = hooks.ScopeProject
	ScopeUser    = hooks.ScopeUser
)

// What setup writes for a host.
const (
	PartHooks = "hooks"
	PartMCP   = "mcp"
	PartSkill = "skill"
)

// States of a part, as Check reports them.
const (
	StateInstalled = "installed"
	StateOutdated  = "outdated"
	StateMissing   = "missing"
)

// Options say where setup works and what the hooks run.
type Options struct {
	Root     string   // the project's root
	Scope    string   // ScopeProject or ScopeUser
	Hosts    []string // the hosts, by hooks.HostNames
	Programs hooks.Programs
	Getenv   func(string) string
	OS       string // the system, as runtime.GOOS names it
}

// Part is one thing setup writes for a host.
type Part struct {
	Kind    string `json:"kind"` // PartHooks, PartMCP, PartSkill
	Path    string `json:"path"`
	State   string `json:"state"`            // as it was before setup (Setup) or is (Check)
	Changed bool   `json:"changed"`          // setup wrote it
	Detail  string `json:"detail,omitempty"` // what differs
}

// Host is what setup did, or found, for one host.
type Host struct {
	Host  string `json:"host"`
	Parts []Part `json:"parts"`
	// Program is the plangit the host's hooks ran before setup ("" for
	// none), by the name or path they give it.
	Program string `json:"program,omitempty"`
	Note    string `json:"note,omitempty"`
}

// SkillPath is where a host of the scope reads plangit's skill: Claude
// Code .claude/skills/plangit/SKILL.md (~/.claude/skills/ for the user),
// the others — Codex, Gemini CLI, Copilot CLI, Cursor — the shared
// .agents/skills/plangit/SKILL.md (~/.agents/skills/).
func SkillPath(host, scope, root string, getenv func(string) string) (string, error) {
	dir := ".agents"
	if host == hooks.HostClaude {
		dir = ".claude"
	}
	base := root
	if scope == ScopeUser {
		if base = getenv("HOME"); base == "" {
			return "", plan.Errorf(plan.CodeInvalidArgument, "no home directory ($HOME) for the user scope")
		}
	}
	return filepath.Join(base, dir, "skills", skill.Name, "SKILL.md"), nil
}

// file is one file as setup found it and as it will leave it.
type file struct {
	path   string
	before mcpconf.File // as found
	data   []byte       // as it will be
	parts  []string     // "host kind" of what is in it
}

func (f *file) now() mcpconf.File {
	return mcpconf.File{Path: f.path, Exists: f.before.Exists || f.data != nil, Data: f.data, Mode: f.before.Mode}
}

func (f *file) changed() bool {
	return f.data != nil && (!f.before.Exists || string(f.data) != string(f.before.Data))
}

// plannedSetup is every file setup would write, in the order it found them.
type plannedSetup struct {
	files []*file
	hosts []Host
}

func (p *plannedSetup) file(path string) (*file, error) {
	for _, f := range p.files {
		if f.path == path {
			return f, nil
		}
	}
	before, err := mcpconf.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f := &file{path: path, before: before}
	if before.Exists {
		f.data = before.Data
	}
	p.files = append(p.files, f)
	return f, nil
}

// plan works out, in memory, what setup writes for each host: a file that
// cannot be read or edited is an error before anything is written.
func (o Options) plan(check bool) (*plannedSetup, error) {
	p := &plannedSetup{}
	for _, host := range o.Hosts {
		h := Host{Host: host}
		if !check {
			h.Note = hooks.InstallNote(host, o.Root, o.Getenv)
		}
		// The hooks.
		path, err := hooks.HookFilePath(host, o.Scope, o.Root, o.Getenv)
		if err != nil {
			return nil, err
		}
		f, err := p.file(path)
		if err != nil {
			return nil, err
		}
		hf, err := hooks.ParseHookFile(host, path, f.data, f.now().Exists)
		if err != nil {
			return nil, err
		}
		part := Part{Kind: PartHooks, Path: path}
		state, differ := hf.State(o.Programs)
		part.State = map[string]string{hooks.StateAbsent: StateMissing}[state]
		if part.State == "" {
			part.State = state
		}
		part.Detail = strings.Join(differ, ", ")
		h.Program = hf.Program()
		if err := hf.Install(o.Programs); err != nil {
			return nil, err
		}
		if hf.Changed() {
			f.data, part.Changed = hf.Bytes(), true
		}
		f.parts = append(f.parts, host+" "+PartHooks)
		h.Parts = append(h.Parts, part)

		// The MCP server, where plangit installs one.
		if mh, err := mcpconf.FindHost(host); err == nil {
			part, err := o.mcp(p, mh)
			if err != nil {
				return nil, err
			}
			h.Parts = append(h.Parts, part)
		}

		// The skill.
		if path, err = SkillPath(host, o.Scope, o.Root, o.Getenv); err != nil {
			return nil, err
		}
		if f, err = p.file(path); err != nil {
			return nil, err
		}
		// As found: hosts that read one skill file share it.
		part = Part{Kind: PartSkill, Path: path, State: StateInstalled}
		switch {
		case !f.before.Exists:
			part.State = StateMissing
		case string(f.before.Data) != string(skill.File):
			part.State, part.Detail = StateOutdated, "differs from this plangit's"
		}
		if part.State != StateInstalled {
			f.data, part.Changed = skill.File, true
		}
		f.parts = append(f.parts, host+" "+PartSkill)
		h.Parts = append(h.Parts, part)
		p.hosts = append(p.hosts, h)
	}
	return p, nil
}

// mcpEntry is the MCP server's entry: the plangit the hooks run, serving.
func (o Options) mcpEntry() mcpconf.Entry {
	return mcpconf.Entry{Command: o.Programs.Plangit, Args: []string{"mcp"}}
}

func (o Options) mcp(p *plannedSetup, mh mcpconf.Host) (Part, error) {
	path, err := mh.Path(o.Scope, o.Root, o.Getenv)
	if err != nil {
		return Part{}, err
	}
	f, err := p.file(path)
	if err != nil {
		return Part{}, err
	}
	want := o.mcpEntry()
	part := Part{Kind: PartMCP, Path: path, State: StateInstalled}
	cur := f.now()
	had, err := mh.Server(cur)
	if err != nil {
		return Part{}, err
	}
	switch {
	case had == nil:
		part.State = StateMissing
	case !had.Runs(want):
		part.State, part.Detail = StateOutdated, "runs "+strings.Join(append([]string{had.Command}, had.Args...), " ")
		if !strings.HasPrefix(strings.ToLower(filepath.Base(had.Command)), "plangit") {
			// A server named plangit that is not plangit's: the person's.
			return Part{}, plan.Errorf(plan.CodeConflict, "%s already has an MCP server named plangit that runs %s; plangit mcp uninstall --host %s removes it, then setup adds plangit's",
				path, had.Command, mh.Name).With("path", path)
		}
		// An earlier plangit's: taken out, then written as today.
		u, err := mh.UninstallFile(cur)
		if err != nil {
			return Part{}, err
		}
		cur = mcpconf.File{Path: path, Exists: !u.Removed, Data: u.Content(), Mode: cur.Mode}
	}
	e, err := mh.InstallFile(cur, want)
	if err != nil {
		return Part{}, err
	}
	if part.State != StateInstalled {
		f.data, part.Changed = e.Content(), true
	}
	f.parts = append(f.parts, mh.Name+" "+PartMCP)
	return part, nil
}

// Check says, for each host, what is installed, outdated or missing.
// Nothing is written.
func Check(o Options) ([]Host, error) {
	p, err := o.plan(true)
	if err != nil {
		return nil, err
	}
	for i := range p.hosts {
		for j := range p.hosts[i].Parts {
			p.hosts[i].Parts[j].Changed = false
		}
	}
	return p.hosts, nil
}

// Setup writes, for each host, its hooks, its MCP server and the skill,
// and records what each file held before. Every file is worked out before
// any is written: one that cannot be read or edited changes nothing.
// Running it twice is running it once.
func Setup(o Options) ([]Host, error) {
	p, err := o.plan(false)
	if err != nil {
		return nil, err
	}
	var writes []*file
	for _, f := range p.files {
		if f.changed() {
			writes = append(writes, f)
		}
	}
	if len(writes) == 0 {
		return p.hosts, nil
	}
	recPath, err := RecordPath(o.Scope, o.Root, o.Getenv, o.OS)
	if err != nil {
		return nil, err
	}
	rec, err := readRecord(recPath)
	if err != nil {
		return nil, err
	}
	base := o.base()
	// The record first: a write cut short leaves what undo needs.
	if o.Scope == ScopeProject {
		if err := rec.ensureProjectDir(o.Root); err != nil {
			return nil, err
		}
	}
	for _, f := range writes {
		rec.note(base, f)
	}
	if err := rec.save(recPath, base); err != nil {
		return nil, err
	}
	for _, f := range writes {
		if err := writeFile(f.path, f.data, f.before.Mode); err != nil {
			return nil, err
		}
	}
	return p.hosts, nil
}

func (o Options) base() string {
	if o.Scope == ScopeUser {
		return ""
	}
	return o.Root
}

// writeFile writes data atomically into the file at path (the file a
// symbolic link there points at), creating its folders, keeping an
// existing file's permissions.
func writeFile(path string, data []byte, mode fs.FileMode) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if mode == 0 {
		mode = 0o644
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot create %s", filepath.Dir(path))
	}
	return repo.WriteFileAtomic(path, data, mode, true)
}

// digest is the hex SHA-256 of data.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// record is what setup wrote in one scope, as undo needs it.
type record struct {
	Version int             `json:"version"`
	Files   []recordedFile  `json:"files"`
	Dirs    []string        `json:"dirs,omitempty"` // folders setup created, in the order it created them
	raw     json.RawMessage // as read
}

// recordedFile is one file setup wrote.
type recordedFile struct {
	Path    string      `json:"path"` // relative to the project's root in the project scope
	Existed bool        `json:"existed"`
	Before  []byte      `json:"before,omitempty"`
	Mode    fs.FileMode `json:"mode,omitempty"`
	After   string      `json:"after_sha256"` // the bytes setup left
	Parts   []string    `json:"parts"`        // "host kind" of what setup put in it
}

// RecordPath is the file setup keeps its record in: .code-agent/setup.json
// for the project scope; setup.json in plangit's folder of the user's
// configuration directory (UserConfigDir) for the user scope.
func RecordPath(scope, root string, getenv func(string) string, goos string) (string, error) {
	if scope != ScopeUser {
		return filepath.Join(root, repo.DirName, "setup.json"), nil
	}
	dir, err := UserConfigDir(getenv, goos)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "plangit", "setup.json"), nil
}

// UserConfigDir is os.UserConfigDir read through getenv:
// $XDG_CONFIG_HOME or ~/.config on Linux and the BSDs, ~/Library/Application
// Support on macOS, %AppData% on Windows.
func UserConfigDir(getenv func(string) string, goos string) (string, error) {
	var dir string
	switch goos {
	case "windows":
		dir = getenv("AppData")
	case "darwin", "ios":
		if home := getenv("HOME"); home != "" {
			dir = filepath.Join(home, "Library", "Application Support")
		}
	default:
		dir = getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(dir) {
			dir = ""
			if home := getenv("HOME"); home != "" {
				dir = filepath.Join(home, ".config")
			}
		}
	}
	if dir == "" {
		return "", plan.Errorf(plan.CodeInvalidArgument, "no user configuration directory ($HOME) for the user scope")
	}
	return dir, nil
}

func readRecord(path string) (*record, error) {
	rec := &record{Version: 1}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read %s", path)
	}
	if err := json.Unmarshal(data, rec); err != nil || rec.Version != 1 {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s is not a record plangit setup wrote; move it away, plangit will not overwrite it", path)
	}
	rec.raw = data
	return rec, nil
}

// rel is path as the record keeps it: relative to base when inside it.
func rel(base, path string) string {
	if base == "" {
		return path
	}
	if r, err := filepath.Rel(base, path); err == nil && !strings.HasPrefix(r, "..") && !filepath.IsAbs(r) {
		return filepath.ToSlash(r)
	}
	return path
}

// abs is a recorded path as a path on disk.
func abs(base, path string) string {
	if base == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(base, filepath.FromSlash(path))
}

// note records f, about to be written: its bytes before the first setup
// that wrote it, and the folders its write creates.
func (r *record) note(base string, f *file) {
	name := rel(base, f.path)
	i := slices.IndexFunc(r.Files, func(x recordedFile) bool { return x.Path == name })
	if i < 0 {
		r.Files = append(r.Files, recordedFile{Path: name, Existed: f.before.Exists, Before: f.before.Data, Mode: f.before.Mode})
		i = len(r.Files) - 1
		if !f.before.Exists {
			r.Files[i].Before, r.Files[i].Mode = nil, 0
		}
		r.noteDirs(base, filepath.Dir(f.path))
	}
	r.Files[i].After = digest(f.data)
	for _, p := range f.parts {
		if !slices.Contains(r.Files[i].Parts, p) {
			r.Files[i].Parts = append(r.Files[i].Parts, p)
		}
	}
}

// noteDirs records the folders above a file, up to the first that
// exists, which writing it creates.
func (r *record) noteDirs(base, dir string) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if name := rel(base, missing[i]); !slices.Contains(r.Dirs, name) {
			r.Dirs = append(r.Dirs, name)
		}
	}
}

// recordPart marks the .gitignore setup writes with the record.
const recordPart = "plangit record"

// aloneIn reports whether the file at path is the only entry of its folder.
func aloneIn(path string) bool {
	entries, err := os.ReadDir(filepath.Dir(path))
	return err == nil && len(entries) == 1 && entries[0].Name() == filepath.Base(path)
}

// ensureProjectDir creates .code-agent/ and its .gitignore, as plangit
// does, when the project has none, and records them.
func (r *record) ensureProjectDir(root string) error {
	dir := filepath.Join(root, repo.DirName)
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(ignore); err == nil {
		return nil
	}
	f := &file{path: ignore, data: []byte("*\n"), parts: []string{recordPart}}
	r.note(root, f)
	return writeFile(ignore, f.data, 0o644)
}

func (r *record) save(path, base string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return plan.WrapError(plan.CodeInternal, err, "cannot write %s", path)
	}
	if _, err := os.Lstat(filepath.Dir(path)); err != nil {
		r.noteDirs(base, filepath.Dir(path))
		if data, err = json.MarshalIndent(r, "", "  "); err != nil {
			return plan.WrapError(plan.CodeInternal, err, "cannot write %s", path)
		}
	}
	return writeFile(path, append(data, '\n'), 0o644)
}

// Undone is what undo did with one file.
type Undone struct {
	Path string `json:"path"`
	// Action: "restored" (its bytes from before setup), "removed" (setup
	// created it), "uninstalled" (changed since setup: plangit's part taken
	// out, the rest kept), "kept" (changed since setup and nothing of
	// plangit's to take out: left as it is), "unchanged" (already as before).
	Action string `json:"action"`
	Why    string `json:"why,omitempty"` // why a file was kept
}

// Undo puts back every file setup wrote in the scope, and removes the
// folders it created when they are left empty, then the record. With no
// record there is nothing to undo.
func Undo(o Options) ([]Undone, error) {
	recPath, err := RecordPath(o.Scope, o.Root, o.Getenv, o.OS)
	if err != nil {
		return nil, err
	}
	rec, err := readRecord(recPath)
	if err != nil {
		return nil, err
	}
	if rec.raw == nil {
		return nil, nil
	}
	base := o.base()
	if err := os.Remove(recPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot remove %s", recPath)
	}
	var out []Undone
	for _, rf := range rec.Files {
		path := abs(base, rf.Path)
		if slices.Contains(rf.Parts, recordPart) && !aloneIn(path) {
			// .code-agent/.gitignore, which setup wrote with the record:
			// it keeps the project's git away from plans made since.
			out = append(out, Undone{Path: path, Action: "kept", Why: "it keeps the project's git away from the plans made since"})
			continue
		}
		cur, err := mcpconf.ReadFile(path)
		if err != nil {
			return out, err
		}
		u := Undone{Path: path}
		switch {
		case cur.Exists && digest(cur.Data) == rf.After && rf.Existed:
			u.Action = "restored"
			err = writeFile(path, rf.Before, rf.Mode)
		case cur.Exists && digest(cur.Data) == rf.After:
			u.Action = "removed"
			if real, e := filepath.EvalSymlinks(path); e == nil {
				path = real
			}
			if err = os.Remove(path); err != nil {
				err = plan.WrapError(plan.CodeIOError, err, "cannot remove %s", path)
			}
		case rf.Existed && cur.Exists && string(cur.Data) == string(rf.Before), !rf.Existed && !cur.Exists:
			u.Action = "unchanged"
		default:
			if u.Action, err = uninstall(path, cur, rf.Parts); u.Action == "kept" {
				u.Why = "changed since setup, with nothing of plangit's left to take out"
			}
		}
		if err != nil {
			return out, err
		}
		out = append(out, u)
	}
	for i := len(rec.Dirs) - 1; i >= 0; i-- {
		os.Remove(abs(base, rec.Dirs[i])) // only if empty
	}
	return out, nil
}

// uninstall takes plangit's parts out of a file changed since setup wrote
// it, keeping the rest; a skill file changed since is kept as it is.
func uninstall(path string, cur mcpconf.File, parts []string) (string, error) {
	if !cur.Exists {
		return "kept", nil
	}
	data, exists := cur.Data, true
	for _, part := range parts {
		host, kind, _ := strings.Cut(part, " ")
		switch kind {
		case PartHooks:
			hf, err := hooks.ParseHookFile(host, path, data, exists)
			if err != nil {
				return "", err
			}
			if hf.Uninstall(); hf.Changed() {
				data = hf.Bytes()
			}
		case PartMCP:
			mh, err := mcpconf.FindHost(host)
			if err != nil {
				return "", err
			}
			e, err := mh.UninstallFile(mcpconf.File{Path: path, Exists: exists, Data: data, Mode: cur.Mode})
			if err != nil {
				return "", err
			}
			if e.Changed {
				data, exists = e.Content(), !e.Removed
			}
		}
	}
	switch {
	case !exists || emptySettings(data):
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
		if err := os.Remove(path); err != nil {
			return "", plan.WrapError(plan.CodeIOError, err, "cannot remove %s", path)
		}
		return "uninstalled", nil
	case string(data) == string(cur.Data):
		return "kept", nil
	}
	return "uninstalled", writeFile(path, data, cur.Mode)
}

// emptySettings reports whether a settings file holds nothing: no member,
// or only the "version" a new hook file starts with.
func emptySettings(data []byte) bool {
	var m map[string]any
	if strings.TrimSpace(string(data)) == "" {
		return true
	}
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	_, v := m["version"]
	return len(m) == 0 || len(m) == 1 && v
}
