// Command plangit-hook answers the hook events that come with every tool
// call, every prompt and every stop from the session's glance, which
// every change of the plan writes: Claude Code's PreToolUse and
// UserPromptSubmit, which only read the plan, PostToolUse, which counts a
// tool use, and Stop, which holds a stop with steps left; and the
// read-only ones — before a tool, at a prompt — of the other hosts: Codex
// CLI, Cursor, Gemini CLI and Copilot CLI. It links the standard library, package
// hookwire and bigstack alone, so it starts in about the time of
// an empty Go program. Every other case — another event or host, a stale
// or missing glance, a paused plan, a change waiting to land, a busy
// session, anything that changes the plan — it hands to `plangit hook`
// with the same arguments and standard input, so its answers are always
// plangit's.
//
//	plangit-hook [EVENT] [--host codex|cursor|gemini|copilot]
//
// The payload's hook_event_name, where the host sends one, names the
// event, as it does for plangit hook; EVENT is for a payload without one
// (Copilot CLI's own hooks get none).
//
// plangit hooks install runs it for those events when it is installed
// beside plangit (go install ./... from a clone installs both).
package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	_ "github.com/plangit/plangit/cmd/internal/bigstack"
	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/repo/disk"
)

// maxPayload bounds what is read of the host's payload, as plangit does.
const maxPayload = 16 << 20

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

func run(args []string, stdin io.Reader, stdout, stderr *os.File, getenv func(string) string) int {
	payload, err := io.ReadAll(io.LimitReader(stdin, maxPayload+1))
	if err == nil && len(payload) <= maxPayload {
		if event, h, ok := parseArgs(args); ok {
			if out, ok := answerOrNot(event, h, payload, getenv); ok {
				if out == nil {
					out = []byte(h.nothing)
				}
				stdout.Write(out)
				return 0
			}
		}
	}
	return fallback(args, payload, stdout, stderr)
}

// host is how the hook binary reads a host's events and writes its
// answers, with package hookwire's readers and writers, which plangit's
// adapters call too.
type host struct {
	// events are the host's names of the events the hook binary answers,
	// with plangit's (Claude Code's) name of each: its prompt and the
	// moment before a tool; Claude Code's PostToolUse and Stop too. Other
	// hosts' events after a tool read failures from its result, and their
	// other events are installed as plangit's.
	events [][2]string
	decode func(payload []byte) (*hookwire.Payload, error)
	// tool is the engine's tool a call is, and the input it reads.
	tool func(name string, input []byte) (string, []byte)
	// todo is the host's todo tool: plangit reads it, as it does
	// anything that reads as TodoWrite on a host that is not Claude Code.
	todo     string
	shellVar string // where the agent's shell has the session id; "" for none
	// shellAlways says the host gives the agent's shell the session id
	// though its hooks' environment lacks it (Codex: CODEX_THREAD_ID;
	// Copilot CLI: COPILOT_AGENT_SESSION_ID): suggested commands need no
	// --session.
	shellAlways bool
	// recordShell says the host's agent shell has no session variable
	// (Gemini CLI): the hook records the session for the host process, as
	// plangit's does (hookwire.RecordShellSession), and the shell then
	// reaches it.
	recordShell string
	encode      func(event, sessionID string, out *hookwire.Output) []byte
	nothing     string // the answer that says nothing
	asks        bool   // the host puts a PreToolUse "ask" to the person (hooks.Asker)
}

var (
	claude = host{events: [][2]string{{"PreToolUse", "PreToolUse"}, {"UserPromptSubmit", "UserPromptSubmit"}, {"PostToolUse", "PostToolUse"}, {"Stop", "Stop"}},
		decode: decodeClaude, shellVar: "CLAUDE_CODE_SESSION_ID", encode: encodeClaude, asks: true}
	codex = host{events: [][2]string{{"PreToolUse", "PreToolUse"}, {"UserPromptSubmit", "UserPromptSubmit"}}, decode: decodeCodex, tool: hookwire.CodexTool, todo: "update_plan", shellAlways: true,
		encode: func(event, _ string, out *hookwire.Output) []byte { return hookwire.EncodeCodex(event, out) }}
	cursor = host{events: [][2]string{{"preToolUse", "PreToolUse"}, {"beforeSubmitPrompt", "UserPromptSubmit"}},
		decode: decodeCursor, tool: hookwire.CursorTool, encode: hookwire.EncodeCursor}
	gemini = host{events: [][2]string{{"BeforeTool", "PreToolUse"}, {"BeforeAgent", "UserPromptSubmit"}},
		decode: hookwire.DecodeGemini, tool: hookwire.GeminiTool, todo: "write_todos", recordShell: hookwire.HostGemini,
		encode: func(event, _ string, out *hookwire.Output) []byte { return hookwire.EncodeGemini(event, out) }, nothing: hookwire.GeminiNothing}
	copilot = host{events: [][2]string{{"preToolUse", "PreToolUse"}, {"userPromptSubmitted", "UserPromptSubmit"}},
		decode: decodeCopilot, tool: hookwire.CopilotTool, todo: "update_todo", shellAlways: true, encode: hookwire.EncodeCopilot, asks: true}
)

// decodeClaude reads Claude Code's payload: only Claude Code's, since
// other hosts run the hooks of its settings too (Cursor, Copilot CLI),
// and plangit answers them as those hosts, or not at all where the host
// runs plangit's own hooks as well.
func decodeClaude(payload []byte) (*hookwire.Payload, error) {
	if hookwire.Recognise(payload) != hookwire.HostClaude {
		return nil, errors.New("another host's payload")
	}
	return hookwire.DecodeClaude(payload)
}

func encodeClaude(event, _ string, out *hookwire.Output) []byte {
	return hookwire.EncodeClaude(event, out)
}

// decodeCodex reads Codex CLI's payload, Claude Code's shape.
func decodeCodex(payload []byte) (*hookwire.Payload, error) {
	return hookwire.DecodeClaude(hookwire.StripBOM(payload))
}

func decodeCursor(payload []byte) (*hookwire.Payload, error) {
	p, err := hookwire.DecodeCursor(payload)
	if err != nil {
		return nil, err
	}
	return &p.Payload, nil
}

func decodeCopilot(payload []byte) (*hookwire.Payload, error) {
	p, err := hookwire.DecodeCopilot(payload)
	if err != nil {
		return nil, err
	}
	return &p.Payload, nil
}

// parseArgs reads the command line as hooks install writes it — [EVENT]
// [--host NAME] — for the hosts the hook binary answers: Claude Code (no
// --host), Codex CLI, Cursor, Gemini CLI and Copilot CLI. ok is false for
// anything else, which plangit reads.
func parseArgs(args []string) (event string, h *host, ok bool) {
	name := hookwire.HostClaude
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--host" && i+1 < len(args):
			i++
			name = args[i]
		case strings.HasPrefix(a, "--host="):
			name = a[len("--host="):]
		case strings.HasPrefix(a, "-") || event != "":
			return "", nil, false
		default:
			event = a // the payload names it: a host may run the command without its arguments
		}
	}
	switch name {
	case hookwire.HostClaude:
		return event, &claude, true
	case hookwire.HostCodex:
		return event, &codex, true
	case hookwire.HostCursor:
		return event, &cursor, true
	case hookwire.HostGemini:
		return event, &gemini, true
	case hookwire.HostCopilot:
		return event, &copilot, true
	}
	return "", nil, false
}

// call is an event the hook binary answers, as the payload gives it.
type call struct {
	event string // plangit's name
	host  *host
	p     *hookwire.Payload
	root  string // the project root (disk.FindRoot)
	dir   string // the session's directory
	shell bool   // the agent's shell reaches the session (CLAUDE_CODE_SESSION_ID, CODEX_THREAD_ID)
	// hostSession is the host's session id, whichever plan the event
	// works on; getenv the hook's environment.
	hostSession string
	getenv      func(string) string
}

// answerOrNot is answer, with a crash handed to plangit: a hook that
// exits 2 blocks, and one that exits otherwise may deny the tool
// (Copilot CLI).
func answerOrNot(event string, h *host, payload []byte, getenv func(string) string) (out []byte, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	return answer(event, h, payload, getenv)
}

// answer answers the event; ok is false when plangit must. Nothing to say
// is nil (the host's nothing).
func answer(event string, h *host, payload []byte, getenv func(string) string) (out []byte, ok bool) {
	for _, v := range []string{"PLANGIT_ROOT", "PLANGIT_NOW", "PLANGIT_LOCK_WAIT"} {
		if getenv(v) != "" {
			return nil, false // plangit reads these, and checks them
		}
	}
	p, err := h.decode(payload)
	if err != nil {
		return nil, false
	}
	if p.HookEventName != "" {
		event = p.HookEventName
	}
	if event = h.event(event); event == "" {
		return nil, false
	}
	if h == &claude && hookwire.ClaudePluginDefers(event, p.Cwd, getenv) {
		return nil, true // run from plangit's plugin: the settings' plangit hook answers
	}
	if h.tool != nil {
		if h.todo != "" && p.ToolName == h.todo {
			return nil, false // a todo list: plangit reads it
		}
		if p.ToolName, p.ToolInput = h.tool(p.ToolName, p.ToolInput); p.ToolName == "TodoWrite" {
			return nil, false
		}
	}
	if !filepath.IsAbs(p.Cwd) || !disk.PlainSessionID(p.SessionID) {
		return nil, false
	}
	if fi, err := disk.Stat(p.Cwd); err != nil || !fi.Dir {
		return nil, false
	}
	unsure := false
	root := disk.FindRoot(p.Cwd, func(main string) bool {
		separate, ok := hookwire.WorktreeSeparate(main)
		unsure = !ok
		return separate
	})
	if unsure {
		return nil, false // the main worktree's config.json: plangit reads it, and says what is wrong
	}
	if link, _ := disk.OutsideLink(root); link != "" {
		return nil, false // .code-agent leads out of the project: plangit refuses it and says so
	}
	c := &call{event: event, host: h, p: p, root: root, dir: disk.SessionDir(root, p.SessionID),
		shell:       h.shellAlways || h.shellVar != "" && getenv(h.shellVar) == p.SessionID,
		hostSession: p.SessionID, getenv: getenv}
	if id := planFor(root, p.SessionID, getenv); id != "" {
		// The host session works on another session's plan (PLANGIT_PLAN,
		// plangit attach): its hooks answer from that plan.
		p.SessionID, c.dir = id, disk.SessionDir(root, id)
	}
	// The session is recorded for the host's shell whether or not it has a
	// plan yet, as plangit's hook does: the agent's first plangit init
	// there must find it.
	if h.recordShell != "" && hookwire.RecordShellSession(filepath.Join(root, disk.ProjectDir), h.recordShell, p.SessionID) {
		c.shell = true
	}
	if _, err := disk.Lstat(c.dir); err != nil {
		// No plan: nothing to say before a tool or to count after one;
		// a prompt to keep, a todo list, [Step] lines, or the agent's first
		// tool after a kept prompt may start one, which is plangit's.
		none := event == "PreToolUse" || event == "PostToolUse" && !hookwire.PlanningTool(p.ToolName) && !hookwire.HostPlan(p.ToolName) && !c.prompted() ||
			event == "Stop" && len(hookwire.StepDeclarations(p.LastAssistantMessage)) == 0 && !declaredInTurn(p.TranscriptPath)
		return nil, os.IsNotExist(err) && none
	}
	if p.AgentID != "" && (event == "PreToolUse" || event == "PostToolUse") {
		// A subagent not yet told its name, which it passes as --agent:
		// plangit names it (its shell names its parent).
		if t, good := c.turn(); !good || !t.Said(hookwire.SayKey(hookwire.SubagentKey(p.AgentID))) {
			return nil, false
		}
	}
	switch event {
	case "PostToolUse":
		return c.postToolUse()
	case "Stop":
		return c.stop()
	}
	if !c.settled() {
		return nil, false
	}
	g, good := c.glance()
	if !good {
		return nil, false
	}
	if slices.Contains(g.Rules.Off, event) {
		return nil, true
	}
	if event == "PreToolUse" && (g.Rules.PlanConfirmation || g.Rules.StepConfirmation) && hookwire.WritesIn(p.ToolInput, p.Cwd, c.dir) {
		return nil, false // an edit of the session's files under a gate: plangit reads what it does
	}
	if event == "PreToolUse" && g.Rules.PlanConfirmation && p.PermissionMode == "plan" && hookwire.EditTool(p.ToolName) {
		return nil, false // perhaps Claude Code writing its plan in plan mode, which plangit asks nothing of
	}
	tc, gated := g.Rules.Tool(p.ToolName, p.ToolInput)
	if event == "PreToolUse" && !gated {
		return nil, true
	}
	t, good := c.turn()
	if !good {
		return nil, false
	}
	if g.Claims > 0 && (event != "PreToolUse" || !c.toldClaims(g, t)) {
		return nil, false // a plan with claims: what an agent hears is its own, plangit's
	}
	shell := c.shell || t.Shell
	var a hookwire.Answer
	switch event {
	case "PreToolUse":
		a = g.PreToolUse(tc, t, hookwire.CLI(p.SessionID, shell), p.SessionID)
	case "UserPromptSubmit":
		if hookwire.NotThePersons(p.Prompt) {
			return nil, true // plangit's stop reason handed back, or a host's notice: the turn goes on
		}
		if g.Status == "paused" || len(t.Advanced) > 0 || t.Size >= hookwire.TurnMaxSize {
			return nil, false // a resume, an advance taken back, or a memory to start over: plangit's
		}
		a = g.Prompt(shell, hookwire.CLI(p.SessionID, shell))
	}
	c.remember(a.Remember)
	if a.Permission == "ask" && a.Asked != "" && c.host.asks {
		// The host puts the question to the person: their yes lets the
		// agent's change through plangit's gate (package repo, gate.go).
		if disk.AppendFile(disk.PrivatePath(c.dir, disk.AskedFile), []byte(disk.AskedLine(a.Asked, time.Now().Unix()))) != nil {
			return nil, false
		}
	}
	return c.encode(&hookwire.Output{Context: a.Context, Permission: a.Permission, PermissionReason: a.PermissionReason}), true
}

// toldClaims reports whether the agent of a Claude Code event was told
// the plan's claims, as they stand, in this turn: plangit would then say
// nothing of them, and the hook binary answers as on any plan. The agent
// is named as plangit names it (package hooks' agentName) where the
// host's ids make a plain name (hookwire.PlainAgent) and PLANGIT_AGENT is
// unset; otherwise the naming, and the answer, are plangit's.
func (c *call) toldClaims(g *hookwire.Glance, t *hookwire.Turn) bool {
	me, ok := c.agent()
	return ok && t.Said(hookwire.SayKey(hookwire.ClaimsKey(me, g.ClaimKey)))
}

// agent is the name of the agent of a Claude Code event, as plangit
// names it, where the hook binary can (toldClaims); ok is false
// otherwise.
func (c *call) agent() (string, bool) {
	if c.host != &claude || c.getenv("PLANGIT_AGENT") != "" {
		return "", false
	}
	if c.p.AgentID != "" {
		return hookwire.PlainAgent("claude", c.p.AgentType, c.p.AgentID)
	}
	return hookwire.PlainAgent("claude", c.hostSession)
}

// event is plangit's name of the host's event, when the hook binary
// answers it; "" otherwise.
func (h *host) event(name string) string {
	for _, e := range h.events {
		if e[0] == name {
			return e[1]
		}
	}
	return ""
}

// encode writes the answer in the host's protocol.
func (c *call) encode(out *hookwire.Output) []byte {
	return c.host.encode(c.event, c.p.SessionID, out)
}

// postToolUse counts a tool use under the session lock, as plangit does,
// when the use changes nothing in the plan: not a todo list, not a file of
// the session's, not an edit of the tasks file the session tracks, not a
// call that succeeds where an open error failed, not a step's advance or
// the plan's pause — those are plangit's, as is a session another process
// holds.
func (c *call) postToolUse() ([]byte, bool) {
	p := c.p
	if hookwire.PlanningTool(p.ToolName) || hookwire.HostPlan(p.ToolName) || hookwire.WritesIn(p.ToolInput, p.Cwd, c.dir) || c.editsTracked() {
		return nil, false
	}
	key, command := hookwire.ToolKey(p.ToolInput)
	if p.AgentID != "" && hookwire.StartsStep(command) {
		return nil, false // a subagent starting a step: plangit notes it
	}
	h, ok := c.hold()
	if h == nil {
		return nil, ok
	}
	defer h.release()
	g := h.g
	if g.Resolves(p.ToolName, key) {
		return nil, false
	}
	if g.Complete && hookwire.Noticed(h.rest) != g.Sig {
		return nil, false // the plan is complete: plangit tells the person, once
	}
	if g.Failed != hookwire.NoticedFailed(h.rest) {
		return nil, false // a step failed: plangit tells the person, once
	}
	t, good := c.turn()
	if !good {
		return nil, false
	}
	cli := hookwire.CLI(p.SessionID, c.shell || t.Shell)
	own, drives := hookwire.OwnUse(p.ToolName, command)
	parts, due := h.tally.Count(g.PostPlan(), g.Rules, hookwire.Use{Tool: p.ToolName, Plangit: own, Drives: drives, Subagent: p.AgentID != "", CLI: cli})
	if due != hookwire.DueNothing {
		return nil, false // the step advances, or the plan pauses: a change
	}
	if g.Claims > 0 && !c.renew(g) {
		return nil, false
	}
	if err := h.save(); err != nil {
		return nil, false
	}
	h.release()
	text, remember := hookwire.Say(t, parts, g.Rules.Budget, cli)
	c.remember(remember)
	return c.encode(&hookwire.Output{Context: text}), true
}

// editsTracked reports whether the tool call is an edit tool's write of
// the tasks file the session tracks (hookwire.TrackedFile): plangit reads
// it again. The record is read only for an edit tool's call.
func (c *call) editsTracked() bool {
	if !hookwire.EditTool(c.p.ToolName) {
		return false
	}
	t, ok := hookwire.ReadTracked(disk.PrivatePath(c.dir, hookwire.TrackedFile))
	return ok && t.Writes(c.p.ToolName, c.p.ToolInput, c.p.Cwd)
}

// stop applies the Stop gate, as plangit does, to a main agent's stop
// that changes nothing in the plan: no [Step] lines in its last message,
// no step it advances, no tracked tasks file changed — those are plangit's, as is a push on stop (the
// config's push_on) and a session another process holds.
func (c *call) stop() ([]byte, bool) {
	p := c.p
	if p.AgentID != "" || len(hookwire.StepDeclarations(p.LastAssistantMessage)) > 0 || declaredInTurn(p.TranscriptPath) {
		return nil, false // [Step] lines in the turn: new steps, a change
	}
	if t, ok := hookwire.ReadTracked(disk.PrivatePath(c.dir, hookwire.TrackedFile)); ok && t.Moved() {
		return nil, false // the tracked tasks file changed since it was read: plangit applies it
	}
	h, ok := c.hold()
	if h == nil {
		return nil, ok
	}
	defer h.release()
	g, r := h.g, h.g.Rules
	if r.PushOnStop || h.tally.AdvancesAtStop(g.PostPlan(), r, p.LastAssistantMessage, false) {
		return nil, false // a push, or the step advances: a change
	}
	if g.Failed != hookwire.NoticedFailed(h.rest) {
		return nil, false // a step failed: plangit tells the person, once
	}
	if !h.had {
		// plangit writes the counters at every stop: the first makes them.
		if h.save() != nil {
			return nil, false
		}
	}
	t, good := c.turn()
	if !good {
		return nil, false
	}
	h.release()
	var out hookwire.Output
	if len(g.Left) > 0 {
		cli := hookwire.CLI(p.SessionID, c.shell || t.Shell)
		reason := make([]string, len(g.Left))
		for i, l := range g.Left {
			reason[i] = strings.ReplaceAll(l, hookwire.CLIMark, cli)
		}
		worked := t.Step != "" || t.Sig != g.Sig
		var text string
		if out.Block, text = hookwire.StopGate(r.StopMode, reason, t.Blocks["-"], r.StopBlockCap, p.StopHookActive, worked, r.Budget); out.Block {
			out.Reason = text
			c.remember("B -\n")
		} else {
			out.Context = text
		}
	}
	return c.encode(&out), true
}

// planFor is the session whose plan host session id works on: the one
// PLANGIT_PLAN names, else the one plangit attach recorded, when that
// session's directory is there; "" for its own (package hooks' planFor).
func planFor(root, id string, getenv func(string) string) string {
	for _, plan := range []string{getenv("PLANGIT_PLAN"), disk.Attached(root, id)} {
		if plan == "" || plan == id || !disk.PlainSessionID(plan) {
			continue
		}
		if fi, err := disk.Lstat(disk.SessionDir(root, plan)); err == nil && fi.Dir {
			return plan
		}
	}
	return ""
}

// prompted reports whether the person's request to this session, which
// has no plan, was kept for the agent's first tool (disk.PendingPrompt).
func (c *call) prompted() bool {
	_, err := disk.Lstat(disk.PendingPrompt(c.root, c.p.SessionID))
	return err == nil
}

// declaredInTurn reports whether the agent wrote [Step] lines in any of
// its messages of the turn (hookwire.TurnMessages).
func declaredInTurn(transcript string) bool {
	for _, m := range hookwire.TurnMessages(transcript) {
		if len(hookwire.StepDeclarations(m)) > 0 {
			return true
		}
	}
	return false
}

// held is a session held for an event that counts: its lock, a glance
// whose files are the branch's, and the hook counters.
type held struct {
	lock    *os.File // closing it lets the lock go
	private string   // the session's .git/plangit
	path    string   // the counters' file in it
	g       *hookwire.Glance
	tally   hookwire.Tally
	rest    map[string][]byte // the counters' other members, as read
	had     bool              // hooks.json was there
}

// hold takes the session lock and reads what an event that counts needs.
// It returns nil, with ok false when plangit must take the event (the
// session busy, a change or queued events waiting, the files not known to
// be the branch's, counters it cannot read) and ok true when the event's
// hook is turned off.
func (c *call) hold() (h *held, ok bool) {
	private := filepath.Join(c.dir, ".git", disk.PrivateDir)
	lock := disk.TryLockSession(private)
	if lock == nil {
		return nil, false // busy: plangit waits, or queues the event
	}
	g, good := c.glance()
	switch {
	case !c.settled() || !good:
		disk.Release(lock)
		return nil, false
	case slices.Contains(g.Rules.Off, c.event):
		disk.Release(lock)
		return nil, true
	case g.Claims > 0 && (c.event != "PostToolUse" || !c.heardClaims(g)):
		disk.Release(lock)
		return nil, false // a plan with claims: plangit tells the agent of them and gates its stop on its own
	}
	h = &held{lock: lock, private: private, path: disk.PrivatePath(c.dir, hookwire.TallyFile), g: g, rest: map[string][]byte{}}
	b, err := disk.ReadFile(h.path)
	if err == nil {
		h.tally, h.rest, good = hookwire.DecodeTally(b)
		h.had = true
	}
	if err == nil && !good || err != nil && !os.IsNotExist(err) {
		disk.Release(lock)
		return nil, false
	}
	return h, false
}

// renew renews the leases of the claims the agent holds, as plangit's
// hooks do at a tool use (package repo's RenewLeases): at most once a
// minute a claim, by a line appended to the leases record. It reports
// whether the record holds what is due.
func (c *call) renew(g *hookwire.Glance) bool {
	me, ok := c.agent()
	if !ok {
		return false
	}
	path := disk.PrivatePath(c.dir, disk.LeasesFile)
	record, err := disk.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return false
	}
	due := hookwire.Renewals(g.Leases, record, me, time.Now().Unix())
	return due == "" || disk.AppendFile(path, []byte(due)) == nil
}

// heardClaims reports whether the agent was told the claims as they
// stand in this turn (toldClaims).
func (c *call) heardClaims(g *hookwire.Glance) bool {
	t, good := c.turn()
	return good && c.toldClaims(g, t)
}

// release lets the lock go, once: an event lets it go as soon as its
// counters are written, and its deferred release then does nothing.
func (h *held) release() {
	if h.lock != nil {
		disk.Release(h.lock)
		h.lock = nil
	}
}

// save writes the counters, under the lock.
func (h *held) save() error {
	return disk.PutFile(h.private, h.path, h.tally.Encode(h.rest), 0o644)
}

// settled reports whether no change waits to land and no hook event waits
// for the lock: either is plangit's to finish first.
func (c *call) settled() bool {
	if disk.IntentPending(disk.PrivatePath(c.dir, disk.IntentFile)) {
		return false
	}
	fi, err := disk.Lstat(disk.PrivatePath(c.dir, disk.QueueFile))
	return err != nil && os.IsNotExist(err) || err == nil && fi.Size == 0
}

// glance reads the session's glance; good is false when there is none,
// or it does not name the files and the config as they stand, or it is
// not of the commit the branch names (Glance.Current): plangit answers
// then, from the plan itself.
func (c *call) glance() (*hookwire.Glance, bool) {
	g, good := hookwire.ReadGlance(disk.PrivatePath(c.dir, hookwire.GlanceFile))
	configPath := filepath.Join(filepath.Dir(filepath.Dir(c.dir)), "config.json")
	if !good || g.Key != hookwire.GlanceKey(configPath, c.dir, g.Files) || !g.Current(c.dir) {
		return nil, false
	}
	return g, true
}

// turn reads the turn memory; good is false when something other than a
// file is in its place.
func (c *call) turn() (*hookwire.Turn, bool) {
	path := disk.PrivatePath(c.dir, hookwire.TurnFile)
	if fi, err := disk.Lstat(path); err == nil && !fi.Regular {
		return nil, false
	}
	return hookwire.ReadTurn(path), true
}

// remember appends lines to the turn memory, in one write: hooks side by
// side never tear a line. A failure costs a repetition.
func (c *call) remember(lines string) {
	if lines == "" {
		return
	}
	disk.AppendFile(disk.PrivatePath(c.dir, hookwire.TurnFile), []byte(lines))
}

// start runs prog with argv on the payload, as a second process, and
// returns its exit code (0 when it cannot be run: a hook never breaks the
// agent).
func start(prog string, argv []string, payload []byte, stdout, stderr *os.File) int {
	r, w, err := os.Pipe()
	if err != nil {
		return 0
	}
	p, err := os.StartProcess(prog, argv, &os.ProcAttr{Files: []*os.File{r, stdout, stderr}})
	r.Close()
	if err != nil {
		w.Close()
		return 0
	}
	go func() {
		w.Write(payload)
		w.Close()
	}()
	st, err := p.Wait()
	if err != nil {
		return 0
	}
	return st.ExitCode()
}

// plangitBeside is the plangit to hand a call to: the one beside this
// binary, else the one on PATH.
func plangitBeside() string {
	if exe, err := os.Executable(); err == nil {
		if beside := filepath.Join(filepath.Dir(exe), "plangit"+filepath.Ext(exe)); isFile(beside) {
			return beside
		}
	}
	return "plangit"
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
