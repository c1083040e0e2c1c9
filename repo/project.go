// Package repo is plangit's store: a project's .code-agent directory and,
// for each agent session, a git repository holding the session's files. It
// writes git objects directly (no worktree scan), moves the branch by
// compare-and-set under a per-session file lock, and keeps the index in step
// so the session directory is always clean to git.
package repo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/redact"
	"github.com/plangit/plangit/repo/disk"
	"github.com/plangit/plangit/repo/store"
)

// Names inside a project.
const (
	DirName      = disk.ProjectDir
	plansDir     = disk.PlansDir
	activeFile   = "active"
	ConfigFile   = "config.json"
	LogFile      = "plangit.log"
	gitignore    = ".gitignore"
	maxSessionID = 128
)

// Project is a directory holding .code-agent/.
type Project struct {
	Root string // the project directory
	// Landed, when set, runs after each change to one of the project's
	// sessions lands — a commit, or a hand edit adopted — still holding
	// the session's lock, with the new state: plangit's hooks write the
	// glance there, so that the hook binary finds it fresh.
	Landed func(s *Session, st *plan.State)
	// Warn, when set, is where the project's sessions report non-fatal
	// problems until Session.OnWarning says otherwise: a session being
	// created has no other place yet.
	Warn func(msg string)
	// memory, when set (by tests), keeps the sessions' git objects, branch
	// and revision log in memory (store.NewMemory), one store a session.
	memory *memoryStores
}

// memoryStores are a project's in-memory stores, by session.
type memoryStores struct {
	mu     sync.Mutex
	stores map[string]store.Store
}

func (m *memoryStores) of(id string) store.Store {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stores == nil {
		m.stores = map[string]store.Store{}
	}
	if m.stores[id] == nil {
		m.stores[id] = store.NewMemory()
	}
	return m.stores[id]
}

// FindRoot finds the project root: explicit (from --root or PLANGIT_ROOT)
// if given, else disk.FindRoot's rule from dir — the nearest ancestor
// holding .code-agent/, else dir, where a linked git worktree's project is
// its main worktree's unless the main worktree's config.json says
// worktree: separate. A main worktree's config.json that cannot be read
// is its error (INVALID_ARGUMENT naming the key), returned with the main
// worktree, whose log may record it.
func FindRoot(explicit, dir string) (string, error) {
	if explicit != "" {
		abs, err := filepath.Abs(explicit)
		if err != nil {
			return "", plan.WrapError(plan.CodeIOError, err, "cannot resolve the root %q", explicit)
		}
		return abs, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", plan.WrapError(plan.CodeIOError, err, "cannot resolve the working directory")
	}
	var cerr error
	root := disk.FindRoot(abs, func(main string) bool {
		var c Config
		c, cerr = Project{Root: main}.Config()
		return cerr == nil && c.Worktree == "separate"
	})
	return root, cerr
}

// Dir is the project's .code-agent directory.
func (p Project) Dir() string { return filepath.Join(p.Root, DirName) }

// PlansDir is where session repositories live.
func (p Project) PlansDir() string { return filepath.Join(p.Root, DirName, plansDir) }

// ValidateSessionID refuses anything but 1–128 characters of
// [A-Za-z0-9._-] not starting with a dot, before any file is touched.
func ValidateSessionID(id string) error {
	bad := func(why string) error {
		return plan.Errorf(plan.CodeInvalidSessionID, "session id %q %s; use 1–%d characters of A-Z a-z 0-9 . _ - not starting with a dot",
			clipID(id), why, maxSessionID).With("session", clipID(id))
	}
	switch {
	case id == "":
		return plan.Errorf(plan.CodeInvalidSessionID, "no session id given").With("session", "")
	case len(id) > maxSessionID:
		return bad("is longer than 128 characters")
	case id[0] == '.':
		return bad("starts with a dot")
	}
	if !disk.PlainSessionID(id) {
		return bad("has a character plangit does not allow")
	}
	return nil
}

// ValidateNewSessionID is ValidateSessionID for a session about to be
// created, which may not begin with "-" either: such an id reads as a flag
// on a command line. Sessions that already have one stay readable
// (--session=-x, or after --).
func ValidateNewSessionID(id string) error {
	if err := ValidateSessionID(id); err != nil {
		return err
	}
	if id[0] == '-' {
		return plan.Errorf(plan.CodeInvalidSessionID, "session id %q begins with \"-\", which reads as a flag; begin it with a letter or a digit", clipID(id)).With("session", clipID(id))
	}
	return nil
}

// clipID is a refused id as an error shows it: redacted (the table
// alone: the project's config is not read for an id refused), then cut to
// 40 bytes, so that no part of a credential shows.
func clipID(id string) string {
	id = (*redact.Redactor)(nil).String(id)
	if len(id) > 40 {
		return strings.ToValidUTF8(id[:40], "") + "…"
	}
	return strings.ToValidUTF8(id, "?")
}

// SessionDir is a session's directory. The id is validated first, and
// the project (Check).
func (p Project) SessionDir(id string) (string, error) {
	if err := ValidateSessionID(id); err != nil {
		return "", err
	}
	if err := p.Check(); err != nil {
		return "", err
	}
	return filepath.Join(p.PlansDir(), id), nil
}

// Check refuses a project whose .code-agent, or .code-agent/plans, is a
// symbolic link leading out of the project: its sessions would be read
// and written elsewhere. A link that stays inside the project is followed.
func (p Project) Check() error {
	link, target := disk.OutsideLink(p.Root)
	if link == "" {
		return nil
	}
	rel, _ := filepath.Rel(p.Root, link)
	where := "somewhere that does not exist"
	if target != "" {
		where = target
	}
	return plan.Errorf(plan.CodeIOError, "%s is a symbolic link to %s, outside the project %s; plangit keeps a project's sessions inside the project and does not follow it: make %s a directory in the project (move what it holds there), or remove the link", link, where, p.Root, rel).
		With("path", link)
}

// Active returns the id in .code-agent/active, or "" when there is none.
func (p Project) Active() (string, error) {
	if err := p.Check(); err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(p.Dir(), activeFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", plan.WrapError(plan.CodeIOError, err, "cannot read the active session")
	}
	id := strings.TrimSpace(string(b))
	if id == "" {
		return "", nil
	}
	if err := ValidateSessionID(id); err != nil {
		return "", plan.Errorf(plan.CodeInvalidSessionID, "%s holds an invalid session id; set one with plangit use SESSION", filepath.Join(DirName, activeFile))
	}
	return id, nil
}

// SetActive makes id the session the CLI uses by default.
func (p Project) SetActive(id string) error {
	if err := ValidateSessionID(id); err != nil {
		return err
	}
	if err := p.ensureDir(); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(p.Dir(), activeFile), []byte(id+"\n"), 0o644, false)
}

// ensureDir creates .code-agent/ with a .gitignore that keeps the host
// project's git away from it.
func (p Project) ensureDir() error {
	if err := p.Check(); err != nil {
		return err
	}
	if err := os.MkdirAll(p.PlansDir(), 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot create %s", p.PlansDir())
	}
	ignore := filepath.Join(p.Dir(), gitignore)
	if _, err := os.Lstat(ignore); errors.Is(err, fs.ErrNotExist) {
		if err := WriteFileAtomic(ignore, []byte("*\n"), 0o644, false); err != nil {
			return err
		}
	}
	return nil
}

// SessionIDs lists the sessions in plans/, sorted. Entries that are not
// directories (symlinks included) or not valid ids are skipped.
func (p Project) SessionIDs() ([]string, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(p.PlansDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot list sessions")
	}
	var ids []string
	for _, e := range entries {
		if e.Type()&fs.ModeType != fs.ModeDir || ValidateSessionID(e.Name()) != nil {
			continue
		}
		if _, err := os.Lstat(filepath.Join(p.PlansDir(), e.Name(), ".git", "HEAD")); err != nil {
			continue
		}
		ids = append(ids, e.Name())
	}
	return ids, nil
}

// shellDir holds a mark per agent session whose shell reaches its session
// by itself (the host's env file exports PLANGIT_SESSION) but which has
// no plan yet: the hook that starts the plan reads it, so that its
// suggestions do without --session.
const shellDir = "shell"

// MarkShell notes that session id's shell reaches it by itself.
func (p Project) MarkShell(id string) error {
	if err := ValidateSessionID(id); err != nil {
		return err
	}
	if err := p.ensureDir(); err != nil {
		return err
	}
	dir := filepath.Join(p.Dir(), shellDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot create %s", dir)
	}
	return WriteFileAtomic(filepath.Join(dir, id), nil, 0o644, false)
}

// ShellMarked reports whether MarkShell noted session id.
func (p Project) ShellMarked(id string) bool {
	if ValidateSessionID(id) != nil {
		return false
	}
	fi, err := os.Lstat(filepath.Join(p.Dir(), shellDir, id))
	return err == nil && fi.Mode().IsRegular()
}

// UnmarkShell forgets MarkShell's note of session id.
func (p Project) UnmarkShell(id string) {
	if ValidateSessionID(id) == nil {
		os.Remove(filepath.Join(p.Dir(), shellDir, id))
	}
}

// NotePrompt keeps the person's request to session id, which has no plan
// yet (disk.PendingPrompt): the hooks start its plan from it when the
// agent's reply uses a tool, as the maxclaw seed does; a request the agent
// answers without one (a greeting) starts none. A later request replaces
// an earlier one.
func (p Project) NotePrompt(id, prompt string) error {
	if err := ValidateSessionID(id); err != nil {
		return err
	}
	if err := p.ensureDir(); err != nil {
		return err
	}
	path := disk.PendingPrompt(p.Root, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot create %s", filepath.Dir(path))
	}
	return WriteFileAtomic(path, []byte(plan.TruncateText(prompt, 4000)), 0o644, false)
}

// PendingPrompt is the request NotePrompt kept for session id; ok is false
// when there is none.
func (p Project) PendingPrompt(id string) (prompt string, ok bool) {
	if ValidateSessionID(id) != nil {
		return "", false
	}
	b, err := disk.ReadFile(disk.PendingPrompt(p.Root, id))
	return string(b), err == nil
}

// ForgetPrompt drops the request NotePrompt kept for session id.
func (p Project) ForgetPrompt(id string) {
	if ValidateSessionID(id) == nil {
		os.Remove(disk.PendingPrompt(p.Root, id))
	}
}
