// Package hooks answers agent hosts' hook events. A host adapter decodes
// the host's JSON into an Input and encodes an Output in the host's
// protocol (Claude Code's adapter is in claude.go; another host's goes
// beside it). Between them, the engine applies plangit's rules, host-neutral:
// reminders at session start and before critical tools, todo sync, the
// 2-action rule, the 3-strike rule, the completion gate at Stop, the
// iteration limit, the continue intent and [Step] lines.
//
// A hook never breaks the agent: on any internal failure it answers
// nothing, exits 0, and appends the failure to .code-agent/plangit.log.
package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// Events, by their Claude Code names.
const (
	SessionStart       = "SessionStart"
	UserPromptSubmit   = "UserPromptSubmit"
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	Stop               = "Stop"
	SubagentStop       = "SubagentStop"
	PreCompact         = "PreCompact"
	SessionEnd         = "SessionEnd"
)

// maxPayload bounds what a hook reads from its host: tool responses can
// hold whole files.
const maxPayload = 16 << 20

// Input is one hook event, whatever host sent it.
type Input struct {
	Event                string
	SessionID            string
	Cwd                  string
	Source               string          // SessionStart: startup, resume, clear, compact
	Prompt               string          // UserPromptSubmit
	ToolName             string          // PreToolUse, PostToolUse, PostToolUseFailure
	ToolInput            json.RawMessage // the tool's parameters
	ToolResponse         json.RawMessage // PostToolUse: the tool's result
	Error                string          // PostToolUseFailure
	IsInterrupt          bool            // PostToolUseFailure: the user interrupted
	ErrorOnly            bool            // PostToolUseFailure: the host shows the model the tool's error alone, no context (Gemini CLI)
	StopHookActive       bool            // Stop: the agent is already continuing because of a stop hook
	LastAssistantMessage string          // Stop: the agent's last message
	Trigger              string          // PreCompact: manual or auto
	// MaybeCompact says the host fires PreCompact whether or not it
	// compacts (Gemini CLI's PreCompress, before every request): no
	// checkpoint then. Compacted, when not "", says the host's transcript
	// shows the context was compacted since the last request, and names
	// the first response after it (Gemini CLI, which has no SessionStart
	// after a compaction): the checkpoint, and the plan recalled, once.
	MaybeCompact   bool
	Compacted      string
	TranscriptPath string // the host's transcript: what the agent said in the turn (hookwire.TurnMessages)
	PermissionMode string // Claude Code's permission mode: "plan" in plan mode (claudePlanFile)
	HostAsks       bool   // the host puts a PreToolUse "ask" to the person (Asker)

	// AgentID is the subagent the event comes from (Claude Code:
	// agent_id); "" for the main agent. A subagent's Stop is gated only on
	// the steps it started.
	AgentID string
	// AgentType is the subagent's type (Claude Code, Codex: agent_type),
	// a part of its agent name (engine.agent).
	AgentType string
	// Agent is the agent's name as the claims know it (engine.agent),
	// fixed when the event arrives: a queued event is its agent's still.
	Agent string
	// HostSession is the host's session id when the event works on
	// another session's plan (PLANGIT_PLAN, plangit attach): SessionID
	// is that plan's then.
	HostSession string

	// Host names the agent host that sent the event (HostNames), for the
	// commits it makes (repo.Meta.Host).
	Host string

	// What the agent's shell knows. An adapter fills these from what its
	// host documents; left zero, every command a hook suggests names
	// --session, which is always right.

	// ShellSession says that every shell command the agent runs already
	// reaches this session without --session: the host sets, in that
	// command's environment, one of SessionVars to the event's session id
	// (Claude Code sets CLAUDE_CODE_SESSION_ID since 2.1.132). Suggested
	// commands then read "plangit step done 3".
	ShellSession bool
	// EnvFile is a file of shell lines the host runs before each of the
	// agent's shell commands (Claude Code: $CLAUDE_ENV_FILE, given to
	// SessionStart hooks). SessionStart appends "export PLANGIT_SESSION=…"
	// and "export PLANGIT_ROOT=…" to it, and from then on the session's
	// suggested commands do without --session. "" when the host has none.
	EnvFile string
	// RecordShell says the host's agent shell has no variable naming the
	// session (Gemini CLI): the hook records the session for the host
	// process that runs it, where the CLI in that shell finds it
	// (hookwire.RecordShellSession), and ShellSession holds once it did.
	RecordShell bool
}

// SessionVars are the environment variables through which agent hosts
// tell the agent's shell commands their session id, the hooks'
// session_id: plangit's CLI reads them after PLANGIT_SESSION, when a
// session of that id exists (cmd.Factory.SessionID).
var SessionVars = []string{"CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "COPILOT_AGENT_SESSION_ID"}

// RecordedShellSession is the session the hooks recorded for the host
// process the CLI runs under, in the agent's shell of a host that gives
// that shell no session variable (Gemini CLI: GEMINI_CLI=1 alone;
// hookwire.RecordShellSession); "" anywhere else, or when none did.
func RecordedShellSession(p repo.Project, getenv func(string) string) string {
	if getenv("GEMINI_CLI") == "" {
		return ""
	}
	return hookwire.ShellSession(p.Dir(), HostGemini)
}

// ShellHosts are the environment variables through which an agent host's
// shell says which host it is and its session: the CLI records them
// (repo.Meta.Host, HostSession) on the changes an agent makes from its
// shell.
var ShellHosts = []struct{ Var, Host string }{
	{"CLAUDE_CODE_SESSION_ID", HostClaude}, {"CODEX_THREAD_ID", HostCodex}, {"COPILOT_AGENT_SESSION_ID", HostCopilot},
}

// EnvReader is a Host whose hook process learns from its own environment
// what the payload does not say (the Input fields on the agent's shell).
// Run calls ReadEnv after Decode.
type EnvReader interface {
	ReadEnv(in *Input, getenv func(string) string)
}

// Quiet is a Host whose "nothing to say" is not an empty stdout (Gemini
// CLI parses stderr when stdout is empty): Run answers Nothing() wherever
// it would answer nothing, a failure or a crash included.
type Quiet interface {
	Nothing() []byte
}

// nothing is h's answer that says nothing.
func nothing(h Host) []byte {
	if q, ok := h.(Quiet); ok {
		return q.Nothing()
	}
	return nil
}

// Output is the engine's answer, whatever host receives it. The zero Output
// says nothing.
type Output = hookwire.Output

// Host is one agent host's hook protocol.
type Host interface {
	// Decode reads an event's payload.
	Decode(event string, payload []byte) (*Input, error)
	// Encode writes the answer and the exit code.
	Encode(in *Input, out *Output) (stdout []byte, exitCode int)
}

// Env is what the engine needs from outside.
type Env struct {
	Now      func() time.Time
	Getenv   func(string) string // the hook process's environment; nil reads none
	Root     string              // an explicit project root (--root, PLANGIT_ROOT); "" uses the host's cwd
	Getwd    func() (string, error)
	LockWait time.Duration // how long a hook waits for a busy session
	// Publish starts pushing a session in the background and returns at
	// once (config push_on); nil pushes nothing.
	Publish func(root, session string) error
	// Problem is something wrong with the hook's environment (a malformed
	// PLANGIT_NOW) that it works around: logged, never fatal.
	Problem error
}

// DefaultLockWait is how long a hook waits for a session another process
// is changing (PLANGIT_LOCK_WAIT sets it). A hook that cannot take the lock
// in that time queues its event for the process holding it and answers at
// once: hooks never keep the agent waiting, and never drop an event.
const DefaultLockWait = 250 * time.Millisecond

// drainTime is how long, beyond its wait, a hook may spend applying events
// other hooks queued; what is left waits for the next process.
const drainTime = 50 * time.Millisecond

// Run handles one hook call from start to end. It never fails: a problem is
// logged to .code-agent/plangit.log and answered with nothing and exit 0.
// A nil h is the host the payload shows (see recognise).
func Run(h Host, event string, stdin io.Reader, env Env) (stdout []byte, exitCode int) {
	defer func() {
		// A crash answers nothing too: some hosts read a crashed hook's
		// exit code as a denial (Copilot CLI's preToolUse).
		if p := recover(); p != nil {
			if env.Now == nil {
				env.Now = time.Now
			}
			logFailure(env, "", event, "", fmt.Errorf("panic: %v", p))
			stdout, exitCode = nothing(h), 0
		}
	}()
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.LockWait == 0 {
		env.LockWait = DefaultLockWait
	}
	payload, err := io.ReadAll(io.LimitReader(stdin, maxPayload+1))
	if err != nil {
		err = plan.WrapError(plan.CodeIOError, err, "cannot read the hook payload")
	} else if len(payload) > maxPayload {
		err = plan.Errorf(plan.CodeInvalidArgument, "payload over %d bytes", maxPayload)
	}
	payload = hookwire.StripBOM(payload)
	recognised := h == nil
	if recognised {
		h = recognise(event, payload)
	}
	if _, ok := h.(Claude); ok {
		event = EventName(event)
	}
	var in *Input
	if err == nil {
		in, err = h.Decode(event, payload)
	}
	if err != nil {
		logFailure(env, "", event, "", err)
		return nothing(h), 0
	}
	if recognised && defers(h, in.Event, in, env) {
		return nothing(h), 0 // another plangit hook answers this event
	}
	in.Host = hostName(h)
	if r, ok := h.(EnvReader); ok && env.Getenv != nil {
		r.ReadEnv(in, env.Getenv)
	}
	if a, ok := h.(Asker); ok {
		in.HostAsks = a.Asks()
	}
	if r, ok := h.(ShellRecorder); ok {
		in.RecordShell = r.RecordsShell()
	}
	if env.Problem != nil {
		logFailure(env, in.Cwd, event, in.SessionID, env.Problem)
	}
	e := &engine{env: env, in: in}
	out, err := e.handle()
	if err != nil {
		logFailure(env, in.Cwd, event, in.SessionID, err)
		return nothing(h), 0
	}
	return h.Encode(in, out)
}

// ShellRecorder is a host whose agent's shell has no variable naming the
// session: its hooks record it (Input.RecordShell).
type ShellRecorder interface{ RecordsShell() bool }

// Asker is a host that puts a PreToolUse "ask" to the person and runs
// the call only with their yes (Claude Code, Copilot CLI); the others'
// "ask" is a denial that names what the person runs.
type Asker interface{ Asks() bool }

// EventName accepts an event as its host writes it ("PreToolUse") or in
// kebab case ("pre-tool-use"), in any case.
func EventName(s string) string {
	flat := strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(s, "-", ""), "_", ""))
	for _, e := range repo.HookEvents {
		if strings.ToLower(e) == flat {
			return e
		}
	}
	return s
}

// logFailure appends a swallowed failure to the project's log.
func logFailure(env Env, cwd, event, session string, err error) {
	dir := cwd
	if dir == "" && env.Getwd != nil {
		dir, _ = env.Getwd()
	}
	root, ferr := repo.FindRoot(env.Root, dir)
	if ferr != nil && root == "" {
		return // a main worktree's broken config.json comes with its root: logged there
	}
	code := plan.CodeOf(err)
	if _, ok := errors.AsType[*hookwire.MalformedError](err); ok {
		code = plan.CodeInvalidArgument // the host's input, not a fault of plangit's
	}
	repo.Project{Root: root}.AppendLog(env.Now(), fmt.Sprintf("hook %s session=%s %s: %v", event, session, code, err))
}
