package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/hooks"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/disk"
)

// IOStreams are a command's input and outputs: data to Out, warnings and
// progress to ErrOut.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// OutTTY says whether Out is a terminal (human output, actor "user").
	OutTTY bool
	// Width is Out's terminal width, 0 when unknown.
	Width int
	// NoEscapes says that Out, a terminal, draws no escape codes (an
	// old Windows console): no colours.
	NoEscapes bool
}

// Factory hands commands what they need from the outside world, so tests
// can build fresh commands around fake streams, clock and environment.
type Factory struct {
	IO     *IOStreams
	Now    func() time.Time
	Getenv func(string) string
	Getwd  func() (string, error)

	// Global flags.
	RootFlag    string
	SessionFlag string
	JSON        bool
	Quiet       bool
	NoColor     bool
	IfRev       string
	AgentFlag   string // --agent
	Token       int    // --token
	Force       bool   // the command's --force: a change to a step another agent holds (repo.Options.Force)

	// nowErr is PLANGIT_NOW's problem, for hooks to log: they run on
	// with the real clock rather than fail.
	nowErr error

	// MCP builds `plangit mcp` in a binary that links the MCP server
	// (plangit-mcp); without it, plangit mcp runs that binary.
	MCP MCPCommand

	// capture, when set, takes what a command prints instead of Out: the
	// data --json would hold and the text a person would read. It is set
	// for the MCP tools alone, which are always the agent's: no person is
	// at a terminal there, and no host asks them anything.
	capture func(data any, human func(io.Writer))
}

// NewFactory returns a factory over the process's real streams and
// environment. PLANGIT_NOW (RFC 3339) fixes the clock, for reproducible
// demos and tests.
func NewFactory() *Factory {
	tty, width := terminal(os.Stdout)
	f := &Factory{
		IO:     &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, OutTTY: tty, Width: width, NoEscapes: tty && !escapes(os.Stdout)},
		Getenv: os.Getenv,
		Getwd:  os.Getwd,
		Now:    time.Now,
	}
	if v := os.Getenv("PLANGIT_NOW"); v != "" {
		if t, ok := fixedNow(v); ok {
			f.Now = func() time.Time { return t }
		} else {
			f.nowErr = f.checkEnv()
		}
	}
	return f
}

// Project finds the project: --root, PLANGIT_ROOT, else from the working
// directory by disk.FindRoot's rule — the nearest ancestor holding
// .code-agent/, else the working directory, where a linked git worktree's
// project is its main worktree's (config worktree: shared, the default).
func (f *Factory) Project() (repo.Project, error) {
	explicit, name := f.RootFlag, "--root "
	if explicit == "" {
		explicit, name = f.Getenv("PLANGIT_ROOT"), "PLANGIT_ROOT="
	}
	if fi, err := os.Stat(explicit); explicit != "" && err == nil && !fi.IsDir() {
		return repo.Project{}, usagef("%s%s is a file; it names the project's directory, the one holding .code-agent/", name, explicit)
	} else if explicit != "" && errors.Is(err, fs.ErrNotExist) {
		// A mistyped root would otherwise get a project of its own.
		return repo.Project{}, usagef("%s%s does not exist; it names the project's directory, the one holding .code-agent/", name, explicit)
	}
	wd, err := f.Getwd()
	if err != nil {
		return repo.Project{}, plan.WrapError(plan.CodeIOError, err, "cannot read the working directory")
	}
	root, err := repo.FindRoot(explicit, wd)
	// Every change writes the hooks' glance as it lands, so the hook
	// binary answers from a fresh one.
	warn := func(msg string) { fmt.Fprintln(f.IO.ErrOut, "plangit: warning:", render.Clean(msg)) }
	return repo.Project{Root: root, Landed: hooks.WriteGlance, Warn: warn}, err
}

// noteWorktree says on ErrOut what a linked git worktree hides from p,
// found from the working directory: the sessions it keeps of its own,
// which the main worktree's project stands in for (disk.FindRoot's case
// 2), or why its .git file leads to no main worktree to share. plangit
// sessions and plangit init say it, where one looks for sessions or makes
// one; nothing is said with --root or PLANGIT_ROOT.
func (f *Factory) noteWorktree(p repo.Project) {
	if f.RootFlag != "" || f.Getenv("PLANGIT_ROOT") != "" {
		return
	}
	wd, err := f.Getwd()
	if err != nil {
		return
	}
	w, ok := disk.FindWorktree(wd)
	switch {
	case !ok:
	case w.Problem != "":
		fmt.Fprintf(f.IO.ErrOut, "plangit: note: %s; plangit reads this directory's own .code-agent, not a main worktree's\n", render.Clean(w.Problem))
	case w.Main == p.Root:
		if n := disk.OwnSessions(w.Top); n > 0 {
			sessions := "1 session"
			if n > 1 {
				sessions = strconv.Itoa(n) + " sessions"
			}
			fmt.Fprintf(f.IO.ErrOut, "plangit: note: this linked git worktree keeps %s of its own in %s, which plangit no longer reads: the project's sessions are the main worktree's, %s; plangit config set worktree separate (in the main worktree) reads them again\n",
				sessions, render.Clean(filepath.Join(w.Top, repo.DirName, "plans")), render.Clean(p.Dir()))
		}
	}
}

// SessionID is --session, else PLANGIT_SESSION, else the session id the
// agent host gives its shell commands (hooks.SessionVars:
// CLAUDE_CODE_SESSION_ID, CODEX_THREAD_ID, COPILOT_AGENT_SESSION_ID), or
// the one its hooks recorded for the host process (Gemini CLI:
// hooks.RecordedShellSession), when the project has a session of that id
// — the one its hooks keep — else .code-agent/active.
//
// PLANGIT_PLAN, after --session, names the plan the agent works on as one
// of its agents; a host session attached to another session's plan
// (plangit attach) works on that plan.
func (f *Factory) SessionID(p repo.Project) (string, error) {
	id := f.SessionFlag
	if id == "" {
		id = f.Getenv("PLANGIT_PLAN")
	}
	if id == "" {
		id = f.Getenv("PLANGIT_SESSION")
	}
	if id == "" {
		id = f.hostSession(p)
	}
	if plan := p.Attached(id); plan != "" && !sessionExists(p, id) {
		id = plan
	}
	if id == "" {
		active, err := p.Active()
		if err != nil {
			return "", err
		}
		id = active
	}
	if id == "" {
		return "", plan.Errorf(plan.CodePlanNotFound, "no session chosen and none active in %s; plangit init \"Title\" starts one, or pass --session", p.Dir())
	}
	return id, repo.ValidateSessionID(id)
}

// hostSession is the session the agent host names in the environment
// (hooks.SessionVars), or its hooks recorded for the shell
// (hooks.RecordedShellSession), if the project has a session of that id.
func (f *Factory) hostSession(p repo.Project) string {
	ids := make([]string, 0, len(hooks.SessionVars)+1)
	for _, name := range hooks.SessionVars {
		ids = append(ids, f.Getenv(name))
	}
	ids = append(ids, hooks.RecordedShellSession(p, f.Getenv))
	for _, id := range ids {
		if id == "" || repo.ValidateSessionID(id) != nil {
			continue
		}
		if sessionExists(p, id) || p.Attached(id) != "" {
			return id
		}
	}
	return ""
}

// sessionExists reports whether project p has a session of id.
func sessionExists(p repo.Project, id string) bool {
	fi, err := os.Lstat(filepath.Join(p.PlansDir(), id))
	return err == nil && fi.IsDir()
}

// Session opens the session the command works on. Hook events queued for
// it while it was busy are applied first (by this process, if no other
// holds the session), and its warnings go to ErrOut, as does, once, the
// news of the agent's claims a merge voided (tellVoided).
func (f *Factory) Session() (*repo.Session, error) {
	p, err := f.Project()
	if err != nil {
		return nil, err
	}
	id, err := f.SessionID(p)
	if err != nil {
		return nil, err
	}
	s, err := p.Open(id)
	if err != nil {
		return nil, err
	}
	s.OnWarning(func(msg string) { fmt.Fprintln(f.IO.ErrOut, "plangit: warning:", render.Clean(msg)) })
	hooks.AttachQueue(s, hooks.Env{Now: f.Now, Root: p.Root, Getwd: f.Getwd}, 0)
	s.CatchUp()
	f.tellVoided(s)
	return s, nil
}

// State opens the session and reads its current state, under the
// project's rules.
func (f *Factory) State() (*repo.Session, *plan.State, error) {
	s, err := f.Session()
	if err != nil {
		return nil, nil, err
	}
	st, err := s.State()
	if err != nil {
		return nil, nil, err
	}
	// The hooks count tool uses between their revisions: the plan's
	// iterations, as they stand, are what the hooks counted.
	st.Plan.Iterations = max(st.Plan.Iterations, hooks.ToolUses(s))
	return s, st, f.applyRules(s, st)
}

// applyRules gives a state read from s the rules of s's project
// (config.json: phase_order, max_retries, auto_finish).
func (f *Factory) applyRules(s *repo.Session, st *plan.State) error {
	cfg, err := s.Project.Config()
	if err != nil {
		return err
	}
	st.Plan.Rules = cfg.Rules()
	return nil
}

// Actor is who the CLI acts for: PLANGIT_ACTOR, else "user" at a terminal
// and "agent" otherwise.
func (f *Factory) Actor() string {
	if f.capture != nil {
		return "agent" // an MCP tool
	}
	if a := f.Getenv("PLANGIT_ACTOR"); a != "" {
		return a
	}
	if f.IO.OutTTY {
		return "user"
	}
	return "agent"
}

// Options are the change options from the global flags. PLANGIT_LOCK_WAIT
// (a duration such as 500ms or 30s) sets how long a change waits for a
// session another process is changing.
//
// A change made from an agent host's shell records the host and its
// session (hooks.ShellHosts).
func (f *Factory) Options() repo.Options {
	meta := repo.Meta{Actor: f.Actor()}
	for _, v := range hooks.ShellHosts {
		if id := f.Getenv(v.Var); id != "" {
			meta.Host, meta.HostSession = v.Host, id
			break
		}
	}
	meta.Agent = f.Agent()
	return repo.Options{Now: f.Now(), IfRev: f.IfRev, Meta: meta, LockWait: f.lockWait(), Asked: f.capture == nil, Token: f.Token, Force: f.Force}
}

// Agent is the agent the CLI acts for, as the claims know it: --agent,
// else PLANGIT_AGENT, else the agent host's name for the session whose
// shell runs plangit ("claude:SESSION"); "" when nothing names one.
// checkEnv has refused a name plangit does not take.
func (f *Factory) Agent() string {
	if f.AgentFlag != "" {
		return f.AgentFlag
	}
	if a := f.Getenv("PLANGIT_AGENT"); a != "" {
		return a
	}
	for _, v := range hooks.ShellHosts {
		if id := f.Getenv(v.Var); id != "" {
			return plan.AgentName(v.Host, id)
		}
	}
	if p, err := f.Project(); err == nil && f.Getenv("GEMINI_CLI") != "" {
		if id := hooks.RecordedShellSession(p, f.Getenv); id != "" {
			return plan.AgentName(hooks.HostGemini, id) // the session Gemini CLI's hooks recorded
		}
	}
	return ""
}

// claimant is the agent a claim is made for: Agent, which must name one.
func (f *Factory) claimant() (string, error) {
	a := f.Agent()
	if a == "" {
		return "", plan.Errorf(plan.CodeInvalidAgent, "a claim needs the agent's name, and nothing names one here").
			Hinted("pass --agent NAME or set PLANGIT_AGENT (an agent host's shell names its session itself)")
	}
	return a, nil
}

// lockWait is PLANGIT_LOCK_WAIT, or zero for the default.
func (f *Factory) lockWait() time.Duration {
	if d, err := time.ParseDuration(f.Getenv("PLANGIT_LOCK_WAIT")); err == nil && d > 0 {
		return d
	}
	return 0
}

// Style is how human output is drawn: plain when piped (stable for scripts);
// on a terminal, or with CLICOLOR_FORCE=1, with progress bars, fitted to
// the width ($COLUMNS, else the terminal's), and coloured unless NO_COLOR
// is set or --no-color is given.
func (f *Factory) Style() render.Style {
	if !f.IO.OutTTY && f.Getenv("CLICOLOR_FORCE") == "" {
		return render.Style{}
	}
	width := f.IO.Width
	if n, err := strconv.Atoi(f.Getenv("COLUMNS")); err == nil && n > 0 {
		width = n
	}
	return render.Style{Color: f.Getenv("NO_COLOR") == "" && !f.NoColor && !f.IO.NoEscapes, Bars: true, Width: width}
}

// print writes a command's result: the JSON envelope holding data with
// --json (the exact text), otherwise the human text, unless --quiet. The
// text goes through render.Output, on a terminal and off it: control
// characters from files, commits and remotes are shown, not sent, and on
// a terminal every line is fitted to its width.
func (f *Factory) print(data any, human func(w io.Writer)) error {
	if f.capture != nil {
		f.capture(data, human)
		return nil
	}
	if f.JSON {
		return render.JSON(f.IO.Out, data)
	}
	if !f.Quiet && human != nil {
		w := render.Output(f.IO.Out, f.Style())
		human(w)
		return w.Flush()
	}
	return nil
}

// fixedNow reads PLANGIT_NOW: an RFC 3339 time no earlier than 1970, the
// first time a git commit can carry (git fsck refuses an earlier one).
func fixedNow(v string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, v)
	return t, err == nil && t.Unix() >= 0
}

// checkEnv refuses malformed values of the environment variables plangit
// reads, naming the variable.
func (f *Factory) checkEnv() error {
	if v := f.Getenv("PLANGIT_NOW"); v != "" {
		if _, ok := fixedNow(v); !ok {
			return usagef("PLANGIT_NOW=%q is not an RFC 3339 time from 1970 on, such as 2026-11-20T10:00:00Z", v)
		}
	}
	for _, v := range []struct{ what, name string }{{"--agent", f.AgentFlag}, {"PLANGIT_AGENT", f.Getenv("PLANGIT_AGENT")}} {
		if v.name == "" {
			continue
		}
		if err := plan.ValidAgent(v.name); err != nil {
			return err
		}
	}
	if f.Token < 0 {
		return usagef("--token %d is not a claim's token: tokens are 1 and up", f.Token)
	}
	if v := f.Getenv("PLANGIT_LOCK_WAIT"); v != "" {
		if d, err := time.ParseDuration(v); err != nil || d <= 0 {
			return usagef("PLANGIT_LOCK_WAIT=%q is not a positive duration such as 500ms or 30s", v)
		}
	}
	return nil
}

// shownPath is path as a person at the working directory would type it:
// relative to it when inside it, else absolute.
func (f *Factory) shownPath(path string) string {
	if wd, err := f.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return rel
		}
	}
	return path
}
