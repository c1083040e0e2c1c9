package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/render/brief"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/disk"
)

// engine handles one event.
type engine struct {
	env      Env
	in       *Input
	proj     repo.Project
	cfg      repo.Config
	sess     *repo.Session // the session, when replaying a queued event
	batch    *repo.Batch   // what the replayed event's changes go to
	opened   *repo.Session // the session as this event opened it
	hs       *state        // the hook counters as this event first read them
	envSet   bool          // this event wrote the session to the host's env file
	turnSaid []string      // what the agent said in the turn, once read (said)
	saidRead bool
}

func (e *engine) handle() (*Output, error) {
	// A project that is not a directory (a cwd that does not exist, say)
	// is no project: nothing to do, and nothing is created.
	if e.env.Root == "" && e.in.Cwd != "" && !isDir(e.in.Cwd) {
		return nil, nil
	}
	root, err := repo.FindRoot(e.env.Root, e.in.Cwd)
	if err != nil {
		return nil, err
	}
	if e.env.Root != "" && !isDir(root) {
		return nil, nil
	}
	e.proj = repo.Project{Root: root, Landed: WriteGlance}
	if e.cfg, err = e.proj.Config(); err != nil {
		return nil, err
	}
	if e.in.SessionID != "" && repo.ValidateSessionID(e.in.SessionID) == nil {
		if id := e.planFor(); id != "" {
			e.in.HostSession, e.in.SessionID = e.in.SessionID, id
		}
		e.agent()
	}
	out, err := e.dispatch()
	if errors.Is(err, errQueued) {
		return nil, nil
	}
	if unreadable(err) && !e.replaying() {
		// The next hook repairs a plan file that cannot be read, as the
		// maxclaw seed keeps a backup of a broken plan and goes on:
		// plangit repair, the rejected text kept beside it, and the event
		// answered on the repaired plan.
		if said, notice := e.repairUnreadable(err); said != "" {
			out, err = e.dispatch()
			if err == nil {
				if out == nil {
					out = &Output{}
				}
				out.Context = brief.Join(brief.Fit([]string{said}, e.cfg.ContextBudget), out.Context)
				out.Notice = strings.TrimSpace(notice + "\n" + out.Notice)
			}
		}
	}
	if unreadable(err) {
		if o := e.unreadable(err); o != nil {
			logFailure(e.env, e.in.Cwd, e.in.Event, e.in.SessionID, err)
			return o, nil
		}
	}
	return out, err
}

// unreadable reports whether err is the session's files failing to read:
// a line plangit cannot parse, or what parses but cannot stand (two steps
// with one id, a need of a step that does not exist, a cycle).
func unreadable(err error) bool {
	return errors.Is(err, repo.ErrUnreadable) || plan.HasCode(err, plan.CodePlanParseError)
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// dispatch applies the event's rules.
func (e *engine) dispatch() (*Output, error) {
	if !e.cfg.Hooks[e.in.Event] {
		return nil, nil
	}
	if e.in.SessionID == "" {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "the payload has no session_id")
	}
	if err := repo.ValidateSessionID(e.in.SessionID); err != nil {
		return nil, err
	}
	defer e.publish()
	e.recordShell()
	switch e.in.Event {
	case SessionStart:
		return e.sessionStart()
	case UserPromptSubmit:
		return e.userPromptSubmit()
	case PreToolUse:
		return e.preToolUse()
	case PostToolUse, PostToolUseFailure:
		recalled, err := e.afterCompaction()
		if err != nil {
			return nil, err
		}
		var out *Output
		if e.in.Event == PostToolUse {
			out, err = e.postToolUse()
		} else {
			out, err = e.postToolUseFailure()
		}
		if recalled != "" && err == nil {
			if out == nil {
				out = &Output{}
			}
			out.Context = brief.Join(recalled, out.Context)
		}
		return out, err
	case Stop, SubagentStop:
		return e.stop()
	case PreCompact:
		return e.preCompact()
	case SessionEnd:
		return e.sessionEnd()
	}
	return nil, nil
}

// afterCompaction is what a tool's event does first when the host's
// context was compacted since the last request and the host said so by no
// event of its own (Input.Compacted): the checkpoint a PreCompact makes
// elsewhere, the turn memory started over — the agent lost what it was
// told — and the plan recalled, as SessionStart does after a compaction.
// It returns the recall; "" when there is none to make.
func (e *engine) afterCompaction() (string, error) {
	if e.in.Compacted == "" || e.replaying() {
		return "", nil
	}
	s, err := e.session()
	if err != nil || s == nil {
		return "", err
	}
	mark := []byte(e.in.Compacted + "\n")
	if b, _ := os.ReadFile(s.PrivatePath(compactedFile)); string(b) == string(mark) {
		return "", nil // another tool of the same response saw it first
	}
	if err := s.WritePrivate(compactedFile, mark); err != nil {
		return "", err
	}
	res, err := e.update(s, func(st *plan.State) (plan.Change, error) {
		st.Plan.Updated = plan.Stamp(e.env.Now())
		return plan.Change{Op: "checkpoint", Summary: "checkpoint: the context was compacted (auto)", Marker: true}, nil
	})
	if err != nil {
		return "", err
	}
	st := res.State
	p := st.Plan
	p.Rules = e.cfg.Rules()
	old := e.turn(s)
	t := &hookwire.Turn{Shell: old.Shell || e.in.ShellSession}
	lines := hookwire.BeginLine(curID(p), stepSig(p), t.Shell)
	if !p.Status.Unfinished() {
		e.beginTurn(s, old, lines)
		return "", nil
	}
	e.beginTurn(s, old, lines+hookwire.SaidLines(names(p)...))
	return brief.Fit(render.Reminder(st, s.ID, e.cli(t)), e.cfg.ContextBudget), nil
}

// compactedFile names the response after the last compaction a tool's
// event recalled the plan for (afterCompaction).
const compactedFile = "compacted"

// recordShell records, for a host whose agent's shell has no session
// variable, the session of the host process that runs this hook, where
// the CLI in that shell finds it (hookwire.RecordShellSession); once it
// did, suggested commands need no --session. SessionEnd forgets it.
func (e *engine) recordShell() {
	if !e.in.RecordShell || e.replaying() {
		return
	}
	if e.in.Event == SessionEnd {
		hookwire.ForgetShellSession(e.proj.Dir(), e.in.Host, e.in.SessionID)
		return
	}
	if hookwire.RecordShellSession(e.proj.Dir(), e.in.Host, e.in.SessionID) {
		e.in.ShellSession = true
	}
}

// said is what the agent said in the current turn, oldest first: the
// messages of the host's transcript since the person's prompt
// (hookwire.TurnMessages), and the stop payload's last message when the
// transcript does not end with it.
func (e *engine) said() []string {
	if e.saidRead {
		return e.turnSaid
	}
	e.saidRead = true
	msgs := hookwire.TurnMessages(e.in.TranscriptPath)
	if last := strings.TrimSpace(e.in.LastAssistantMessage); last != "" && (len(msgs) == 0 || strings.TrimSpace(msgs[len(msgs)-1]) != last) {
		msgs = append(msgs, e.in.LastAssistantMessage)
	}
	e.turnSaid = msgs
	return msgs
}

// replaying reports whether the event is a queued one being applied:
// its answer goes nowhere, so it says nothing and remembers nothing said.
func (e *engine) replaying() bool { return e.sess != nil }

// session opens the host session's plan; nil when it has none. Events
// other hooks queued for it are applied by this process when it holds the
// lock, within the hook's time.
func (e *engine) session() (*repo.Session, error) {
	if e.sess != nil {
		return e.sess, nil
	}
	if e.opened != nil {
		return e.opened, nil
	}
	s, err := e.proj.Open(e.in.SessionID)
	if plan.HasCode(err, plan.CodeSessionNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	e.attach(s)
	e.opened = s
	return s, nil
}

// attach makes s apply queued events through this engine's rules, and log
// its warnings.
func (e *engine) attach(s *repo.Session) {
	AttachQueue(s, e.env, e.env.LockWait+drainTime)
	s.OnWarning(func(msg string) { e.proj.AppendLog(e.env.Now(), "hook "+e.in.Event+": "+msg) })
}

// state returns the session's hook counters as this event first read them:
// a change that starts over (a person saved a file meanwhile) counts once.
func (e *engine) state(s *repo.Session) *state {
	if e.hs == nil {
		e.hs = loadState(s)
		e.hs.revisions, e.hs.replay = s.Revisions, e.replaying()
	}
	return e.hs.clone()
}

// glance opens the host session's plan and reads its glance; s is nil
// when it has none or either fails. Queued events are applied first, if
// any wait and the session is free.
func (e *engine) glance() (s *repo.Session, g *hookwire.Glance, err error) {
	if s, err = e.session(); err != nil || s == nil {
		return nil, nil, err
	}
	s.CatchUp()
	if g, err = readGlance(s, e.cfg); err != nil {
		return nil, nil, err
	}
	return s, g, nil
}

// options are the change options of a hook's commit.
// After the agent's tool wrote a file of the session, the edit it finds
// is the agent's (Options.EditBy).
func (e *engine) options() repo.Options {
	o := repo.Options{Now: e.env.Now(), LockWait: e.env.LockWait, Yield: true, Asked: true,
		Meta: repo.Meta{Actor: "hook", Hook: e.in.Event, Tool: e.in.ToolName, Host: e.in.Host, HostSession: e.hostSession(), Agent: e.agent()}}
	if e.in.Event == PostToolUse && e.ownFile() {
		o.EditBy = e.in.ToolName
	}
	return o
}

// cli is the command line that runs plangit on this session from the
// agent's shell: "plangit" where the shell reaches the session by itself
// (Input.ShellSession, or the session went into the host's env file),
// else "plangit --session ID".
// shellReaches reports whether the agent's shell reaches a session this
// event starts without --session: the host says so, or this or an
// earlier SessionStart put it in the host's env file.
func (e *engine) shellReaches() bool {
	return e.in.ShellSession || e.envSet || e.proj.ShellMarked(e.in.SessionID)
}

func (e *engine) cli(t *hookwire.Turn) string {
	return hookwire.CLI(e.in.SessionID, e.in.ShellSession || e.envSet || (t != nil && t.Shell))
}

// turn reads the session's turn memory.
func (e *engine) turn(s *repo.Session) *hookwire.Turn {
	return hookwire.ReadTurn(s.PrivatePath(hookwire.TurnFile))
}

// remember appends lines to the turn memory (nothing while replaying: a
// queued event's answer was never seen). A failure costs a repetition.
func (e *engine) remember(s *repo.Session, lines string) {
	if lines == "" || e.replaying() {
		return
	}
	if err := s.AppendPrivate(hookwire.TurnFile, []byte(lines)); err != nil {
		e.proj.AppendLog(e.env.Now(), fmt.Sprintf("hook %s session=%s: the turn memory: %v", e.in.Event, s.ID, err))
	}
}

// beginTurn starts the turn memory over with lines, which begin with a T
// line: by an append, unless the memory has grown past hookwire.TurnMaxSize.
func (e *engine) beginTurn(s *repo.Session, old *hookwire.Turn, lines string) {
	if e.replaying() {
		return
	}
	if old.Size < hookwire.TurnMaxSize {
		e.remember(s, lines)
		return
	}
	if err := s.WritePrivate(hookwire.TurnFile, []byte(lines)); err != nil {
		e.proj.AppendLog(e.env.Now(), fmt.Sprintf("hook %s session=%s: the turn memory: %v", e.in.Event, s.ID, err))
	}
}

// say keeps what the turn has not heard yet, remembers it, and returns it
// fitted to the context budget with hookwire.CLIMark read as the command
// line; "" when all of it was said.
func (e *engine) say(s *repo.Session, t *hookwire.Turn, parts []hookwire.Part) string {
	text, lines := hookwire.Say(t, parts, e.cfg.ContextBudget, e.cli(t))
	e.remember(s, lines)
	return text
}

// repairUnreadable repairs a session whose files cannot be parsed
// (cause), and says what it did: to the agent, and in one line to the
// person; "" when there was nothing it could repair.
func (e *engine) repairUnreadable(cause error) (said, notice string) {
	s, err := e.session()
	if err != nil || s == nil {
		return "", ""
	}
	rep, err := s.Repair(e.options())
	if err != nil || len(rep.Restored) == 0 {
		if err != nil {
			e.proj.AppendLog(e.env.Now(), fmt.Sprintf("hook %s session=%s: repair: %v", e.in.Event, s.ID, err))
		}
		return "", ""
	}
	var kept []string
	for _, r := range rep.Restored {
		what := r.File
		if r.KeptAt != "" {
			what += " (its text kept as " + filepath.Base(r.KeptAt) + ")"
		}
		kept = append(kept, what)
	}
	msg := strings.TrimSuffix(cause.Error(), " ["+string(plan.CodeOf(cause))+"]")
	msg, _, _ = strings.Cut(msg, " (fix the file by hand")
	files := strings.Join(kept, ", ")
	e.opened = nil // the session as repair left it
	return "[plangit] The plan's files could not be read; plangit restored " + files + " from the last revision:\n" +
			brief.Data("Read error: "+plan.TruncateText(msg, 200)) + "\nRedo the edit through plangit, or fix the kept text and copy it back.",
		"plangit: restored " + files + " from the last revision; it could not be read"
}

// unreadable is the answer when the session's files cannot be parsed: one
// line, once a turn, saying so and how to repair, on the events whose
// answer the agent reads; nil elsewhere.
func (e *engine) unreadable(cause error) *Output {
	switch e.in.Event {
	case SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure:
	default:
		return nil
	}
	s, err := e.session()
	if err != nil || s == nil || e.replaying() {
		return nil
	}
	t := e.turn(s)
	if e.in.Event == UserPromptSubmit || e.in.Event == SessionStart {
		begun := &hookwire.Turn{Shell: t.Shell || e.in.ShellSession || e.envSet}
		e.beginTurn(s, t, hookwire.BeginLine("", "", begun.Shell))
		t = begun
	}
	msg := strings.TrimSuffix(cause.Error(), " ["+string(plan.CodeOf(cause))+"]")
	text := e.say(s, t, []hookwire.Part{{Key: "unreadable " + msg, Text: "[plangit] The plan's files cannot be read:\n" + brief.Data("Read error: "+plan.TruncateText(msg, 300)) +
		"\nFix the file, or run " + hookwire.CLIMark + " repair: it restores the last revision and keeps the text it replaces as NAME.rejected.N."}})
	if text == "" {
		return nil
	}
	return &Output{Context: text}
}

func (e *engine) context(parts []string) *Output {
	if len(parts) == 0 {
		return nil
	}
	return &Output{Context: brief.Fit(parts, e.cfg.ContextBudget)}
}

// sessionStart gives the agent's shell the session (the host's env file),
// starts the turn memory over — after a compaction the agent has lost
// what it was told — and reminds the agent of its unfinished plan; with
// none, it names unfinished plans of other sessions and how to adopt one.
func (e *engine) sessionStart() (*Output, error) {
	out, err := e.sessionStarted()
	if cleaned := e.autoCleanup("session_start"); cleaned != "" {
		if out == nil {
			out = &Output{}
		}
		out.Notice = strings.TrimSpace(out.Notice + "\n" + cleaned)
	}
	return out, err
}

// autoCleanup runs cleanup when cleanup_on names this moment (the
// Manus-style seed's autoCleanup): sessions older than retention_days, as
// plangit cleanup removes them, at most once an hour. It returns what to
// tell the person; a failure is logged, never the agent's.
func (e *engine) autoCleanup(when string) string {
	if e.cfg.CleanupOn != when || e.replaying() {
		return ""
	}
	rep, err := e.proj.AutoCleanup(e.cfg, e.in.SessionID, e.env.Now())
	if err != nil {
		e.proj.AppendLog(e.env.Now(), fmt.Sprintf("hook %s session=%s: cleanup_on: %v", e.in.Event, e.in.SessionID, err))
		return ""
	}
	if rep == nil || rep.Removed == 0 {
		return ""
	}
	return fmt.Sprintf("plangit: removed %s last changed over %d days ago (cleanup_on %s; %d KB freed)",
		render.Count(rep.Removed, "session"), e.cfg.RetentionDays, when, (rep.Freed+1023)/1024)
}

// sessionStarted is SessionStart's answer, cleanup aside.
func (e *engine) sessionStarted() (*Output, error) {
	if e.in.EnvFile != "" && !e.replaying() {
		if err := writeEnvFile(e.in.EnvFile, e.in.SessionID, e.proj.Root); err != nil {
			e.proj.AppendLog(e.env.Now(), fmt.Sprintf("hook SessionStart session=%s: cannot write the host's env file: %v", e.in.SessionID, err))
		} else {
			e.envSet = true
		}
	}
	s, err := e.session()
	if err != nil {
		return nil, err
	}
	if s == nil && e.envSet && e.cfg.AutoCreatePlan {
		// The plan a later hook starts is reached by this shell: say so
		// to that hook.
		if err := e.proj.MarkShell(e.in.SessionID); err != nil {
			e.proj.AppendLog(e.env.Now(), fmt.Sprintf("hook SessionStart session=%s: %v", e.in.SessionID, err))
		}
	}
	if s != nil {
		s.CatchUp()
		st, err := s.State()
		if err != nil {
			return nil, err
		}
		p := st.Plan
		p.Rules = e.cfg.Rules()
		old := e.turn(s)
		t := &hookwire.Turn{Shell: e.envSet || e.in.ShellSession}
		lines := hookwire.BeginLine(curID(p), stepSig(p), t.Shell)
		if !p.Status.Unfinished() {
			e.beginTurn(s, old, lines)
			return nil, nil
		}
		parts := render.Reminder(st, s.ID, e.cli(t))
		c := p.Counts()
		notice := fmt.Sprintf("plangit: plan %q — %d/%d steps done (session %s)", plan.TruncateText(p.Title, 80), c.Done, c.Total, s.ID)
		var names []string
		if cur := p.Current(); cur != nil {
			names = append(names, curName(cur))
		}
		for i, r := range p.Ready() {
			if i < 3 {
				names = append(names, nextName(r))
			}
		}
		e.beginTurn(s, old, lines+hookwire.SaidLines(names...))
		out := e.context(parts)
		if out != nil {
			out.Notice = notice // the person sees the plan was found
		}
		return out, nil
	}
	others := e.unfinishedElsewhere(3)
	if len(others) == 0 {
		return nil, nil
	}
	descs := make([]string, len(others))
	fetched := false
	for i, o := range others {
		descs[i] = o.desc
		fetched = fetched || o.fetched
	}
	cmd := adoptCommand(others[0].id, e.in.SessionID)
	head, tail := "[plangit] No plan for this session. Unfinished plan in this project:", "To continue it here: "+cmd
	if len(others) > 1 {
		head, tail = "[plangit] No plan for this session. Unfinished plans in this project:", "To continue the most recent here: "+cmd+" (or name another of them)"
	}
	if fetched {
		// Another person's record: the agent reads it before it takes
		// it over, and treats its text as theirs.
		tail += "\nA fetched session was written elsewhere: read it (plangit --session ID show) before adopting it."
	}
	return e.context([]string{head + "\n" + brief.Data(strings.Join(descs, "\n")) + "\n" + tail}), nil
}

func curID(p *plan.Plan) string {
	if cur := p.Current(); cur != nil {
		return cur.ID
	}
	return ""
}

// adoptCommand is the command line that adopts session from into session
// to. An id that begins with "-" goes after "--", where it cannot read as
// a flag.
func adoptCommand(from, to string) string {
	session := strings.TrimPrefix(hookwire.CLI(to, false), "plangit ")
	if strings.HasPrefix(from, "-") {
		return "plangit adopt " + session + " -- " + from
	}
	return "plangit adopt " + from + " " + session
}

// elsewhere is an unfinished plan of another session.
type elsewhere struct {
	id      string
	desc    string // "ID (Title, 1/4 done)", and where it came from when fetched
	fetched bool
}

// unfinishedElsewhere finds up to n unfinished plans of other sessions
// that have steps, most recently changed first.
func (e *engine) unfinishedElsewhere(n int) []elsewhere {
	ids, err := e.proj.SessionIDs()
	if err != nil {
		return nil
	}
	type cand struct {
		id  string
		mod int64
	}
	var cands []cand
	for _, id := range ids {
		if id == e.in.SessionID {
			continue
		}
		fi, err := os.Stat(filepath.Join(e.proj.PlansDir(), id, plan.PlanFile))
		if err == nil {
			cands = append(cands, cand{id, fi.ModTime().UnixNano()})
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].mod > cands[j].mod })
	var out []elsewhere
	for _, c := range cands {
		s, err := e.proj.Open(c.id)
		if err != nil {
			continue
		}
		st, err := s.State()
		if err != nil || !st.Plan.Status.Unfinished() {
			continue
		}
		k := st.Plan.Counts()
		if k.Total == 0 {
			continue // a plan started from a prompt and never given a step
		}
		o := elsewhere{id: c.id, desc: fmt.Sprintf("%s (%s, %d/%d done)", c.id, plan.TruncateText(st.Plan.Title, 60), k.Done, k.Total)}
		if from := fetchedFrom(s); from != "" {
			o.desc, o.fetched = o.desc+", "+from, true
		}
		out = append(out, o)
		if len(out) == n {
			break
		}
	}
	return out
}

// fetchedFrom says where a session fetched from a remote came from and
// who made its last revision: "fetched from origin, last changed by Ann
// (ann@example.com)" (recorded text holds no "<", Data); "" for a session
// made here.
func fetchedFrom(s *repo.Session) string {
	o := s.ShareRecord().Origin
	if o == nil {
		return ""
	}
	from := "fetched from " + o.Remote
	if last, err := s.Last(); err == nil {
		who := strings.TrimSpace(last.Author.Name + " (" + last.Author.Email + ")")
		switch {
		case last.Author.Email == "":
			who = strings.TrimSpace(last.Author.Name)
		case last.Author.Name == "":
			who = last.Author.Email
		}
		if who != "" {
			from += ", last changed by " + plan.TruncateText(who, 80)
		}
	}
	return from
}

// continueIntents are what a person types to resume a paused plan.
var continueIntents = []string{"continue", "go on", "继续", "继续执行", "继续任务", "resume", "proceed"}

// isContinue reports whether a prompt is a continue intent: one of
// continueIntents, in any case, spaces and closing punctuation aside; or
// any prompt that says 继续执行, "continue the plan" or "resume the plan"
// (and not "don't").
func isContinue(prompt string) bool {
	p := strings.ToLower(strings.TrimSpace(prompt))
	p = strings.TrimRight(p, ".!。！ ")
	if slices.Contains(continueIntents, p) {
		return true
	}
	if containsAny(p, "don't", "do not", "不要", "别") {
		return false
	}
	return containsAny(p, "继续执行", "continue the plan", "resume the plan")
}

// notThePersons reports whether a prompt is plangit's own words or a
// host's notice (hookwire.NotThePersons).
func notThePersons(prompt string) bool { return hookwire.NotThePersons(prompt) }

// isNotDone reports whether a prompt says a step is not done (还没完成).
func isNotDone(prompt string) bool {
	return containsAny(strings.ToLower(prompt), "没完成", "未完成", "not done", "isn't done", "is not done", "not finished", "isn't finished")
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// userPromptSubmit begins a turn. A continue intent resumes a paused plan
// and says where it stands; "not done" right after an auto-advance puts
// that step back in progress; otherwise it gives the prompt line. A
// session without a plan gets one from its first prompt (auto_create_plan).
func (e *engine) userPromptSubmit() (*Output, error) {
	s, g, err := e.glance()
	if err != nil {
		return nil, err
	}
	if notThePersons(e.in.Prompt) {
		// The host hands plangit's stop reason back as the next prompt,
		// or delivers a notice of its own as one: the turn goes on, what
		// it said stays said, and no plan is started from it.
		return nil, nil
	}
	if s == nil {
		if e.cfg.AutoCreatePlan {
			return nil, e.notePrompt()
		}
		return nil, nil
	}
	old := e.turn(s)
	t := &hookwire.Turn{Shell: old.Shell || e.in.ShellSession}
	switch {
	case g.Status == string(plan.PlanPaused) && isContinue(e.in.Prompt):
		var used int
		res, err := e.update(s, func(st *plan.State) (plan.Change, error) {
			hs := e.state(s)
			used = hs.Iterations - hs.LimitBase
			if hs.LimitUsed > 0 {
				used, hs.LimitUsed = hs.LimitUsed, 0
				if err := hs.save(s); err != nil {
					return plan.Change{}, err
				}
			}
			return st.Plan.Resume(e.env.Now())
		})
		if err != nil {
			return nil, err
		}
		p := res.State.Plan
		e.beginTurn(s, old, hookwire.BeginLine(curID(p), stepSig(p), t.Shell)+hookwire.SaidLines(names(p)...))
		return e.context(render.ResumeSummary(res.State, used, e.cfg.MaxIterations)), nil
	case g.Status == string(plan.PlanRunning) && len(old.Advanced) > 0 && isNotDone(e.in.Prompt):
		adv := old.Advanced[len(old.Advanced)-1]
		res, err := e.update(s, func(st *plan.State) (plan.Change, error) { return undoAdvance(st.Plan, adv, e.env.Now()) })
		if err != nil {
			return nil, err
		}
		p := res.State.Plan
		e.beginTurn(s, old, hookwire.BeginLine(curID(p), stepSig(p), t.Shell)+hookwire.SaidLines(names(p)...))
		if res.Commit == nil {
			return e.context([]string{strings.ReplaceAll(g.Line.Text, hookwire.CLIMark, e.cli(t))}), nil
		}
		cur, _, _ := p.Step(adv[0])
		return e.context([]string{fmt.Sprintf("[plangit] Step %s is back in progress: auto-advance had marked it done. %s step done %s --result \"...\" records it when it is.",
			cur.ID, e.cli(t), cur.ID), render.StatusLine(res.State, e.cli(t))}), nil
	}
	a := g.Prompt(t.Shell, e.cli(t))
	e.beginTurn(s, old, a.Remember)
	a.Context = brief.Join(e.glanceClaims(s, g, t), a.Context)
	if a.Context == "" {
		return nil, nil
	}
	return &Output{Context: a.Context}, nil
}

// names are the turn memory's names of the current and next step.
func names(p *plan.Plan) []string {
	var out []string
	if cur := p.Current(); cur != nil {
		out = append(out, curName(cur))
	}
	if next := render.NextStep(p); next != nil {
		out = append(out, nextName(next))
	}
	return out
}

// undoAdvance puts back what an auto-advance did: the step it completed is
// in progress again, and the step it started is pending.
func undoAdvance(p *plan.Plan, adv [2]string, now time.Time) (plan.Change, error) {
	s, _, err := p.Step(adv[0])
	if err != nil || s.Status != plan.StepCompleted {
		return plan.Change{}, nil // changed since: leave it
	}
	if adv[1] != "" {
		if n, _, err := p.Step(adv[1]); err == nil && n.Status == plan.StepInProgress {
			if _, err := p.Transition(n.ID, plan.ActReopen, plan.TransitionOpts{}, now); err != nil {
				return plan.Change{}, err
			}
		}
	}
	if _, err := p.Transition(s.ID, plan.ActReopen, plan.TransitionOpts{}, now); err != nil {
		return plan.Change{}, err
	}
	if _, err := p.Transition(s.ID, plan.ActStart, plan.TransitionOpts{Force: true}, now); err != nil {
		return plan.Change{}, err
	}
	return plan.Change{Op: "step.reopen", Step: s.ID, Summary: fmt.Sprintf("step %s: completed → in_progress (not done: auto-advance undone)", s.ID)}, nil
}

// notePrompt keeps the person's request to a session without a plan
// (auto_create_plan): the plan starts from it when the agent's reply first
// uses a tool (startFromPrompt), as the maxclaw seed does — a greeting the
// agent answers in words starts none. A prompt that asks nothing of a plan
// is not kept.
func (e *engine) notePrompt() error {
	prompt := strings.TrimSpace(e.in.Prompt)
	if prompt == "" || strings.HasPrefix(prompt, "/") || isContinue(prompt) || isNotDone(prompt) || notThePersons(prompt) || e.replaying() {
		return nil
	}
	return e.proj.NotePrompt(e.in.SessionID, prompt)
}

// startFromPrompt starts the session's plan from the person's request the
// prompt hook kept, now that the agent uses a tool: the request as its
// goal, a short line of it as its title. It returns what to tell the
// agent: that the plan is there, how to make it its own (plangit init
// takes it over) and how to add steps; "" when there is no request, or
// another hook started the plan meanwhile.
func (e *engine) startFromPrompt() (string, error) {
	prompt, ok := e.proj.PendingPrompt(e.in.SessionID)
	if !ok || e.replaying() {
		return "", nil
	}
	p, err := plan.New(e.in.SessionID, promptTitle(prompt), plan.TruncateText(prompt, 4000), nil, e.env.Now(), e.cfg.PlanConfirmation)
	if err != nil {
		return "", err
	}
	p.From = "prompt"
	p.Rules = e.cfg.Rules()
	s, res, err := e.proj.Create(e.in.SessionID, &plan.State{Plan: p}, plan.Change{Op: "init", Summary: "init: " + p.Title + " (from the person's first request)"}, e.options())
	if errors.Is(err, repo.ErrExists) {
		return "", nil // another hook started it meanwhile
	}
	if err != nil {
		return "", err
	}
	t := &hookwire.Turn{Shell: e.shellReaches()}
	e.remember(s, hookwire.BeginLine("", stepSig(p), t.Shell))
	e.proj.UnmarkShell(e.in.SessionID)
	cli := e.cli(t)
	return fmt.Sprintf("[plangit] Plan started from the request (%s). %s init \"Title\" --goal \"...\" makes it yours; %s step add \"...\" adds a step.",
		res.Commit.Hash[:7], cli, cli), nil
}

// promptTitle is a plan's title made of a person's request: its first
// sentence, without a greeting or "please", at most 60 characters, cut at
// a word.
func promptTitle(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	line = strings.Join(strings.Fields(line), " ")
	for changed := true; changed; {
		changed = false
		for _, lead := range []string{"hi", "hello", "hey", "please", "pls", "can you", "could you", "would you", "i want you to", "i'd like you to", "你好", "您好", "请", "帮我", "麻烦"} {
			if len(line) > len(lead) && strings.EqualFold(line[:len(lead)], lead) && (lead[0] >= 0x80 || !isWordByte(line[len(lead)])) {
				line = strings.TrimLeft(line[len(lead):], " ,，:：!！")
				changed = line != ""
				break
			}
		}
	}
	for _, end := range []string{". ", "? ", "! ", "。", "？", "！", "; "} {
		if i := strings.Index(line, end); i > 0 {
			line = line[:i]
		}
	}
	line = strings.TrimRight(line, " .?!。？！,，:;")
	if line == "" {
		line, _, _ = strings.Cut(strings.TrimSpace(prompt), "\n")
	}
	if r := []rune(line); len(r) > 0 {
		line = strings.ToUpper(string(r[0])) + string(r[1:])
	}
	if utf8.RuneCountInString(line) > 60 {
		cut := string([]rune(line)[:59])
		if i := strings.LastIndexByte(cut, ' '); i > 30 {
			cut = cut[:i]
		}
		line = strings.TrimRight(cut, " ,，") + "…"
	}
	return plan.TruncateText(line, 200)
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// clipRunes cuts s to at most n runes, the last of them "…" when cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// preToolUse gives critical tools the current step and their open errors
// — the one this very call met before first — each once a turn; asks
// before a tool that changes anything while the plan awaits approval, and
// before starting a step when steps need confirmation.
func (e *engine) preToolUse() (*Output, error) {
	c, ok := glanceRules(e.cfg).Tool(e.in.ToolName, e.in.ToolInput)
	if c.GatePlan && e.claudePlanFile() {
		// Claude Code writing its plan in plan mode: planning, which the
		// person approves when the agent leaves plan mode.
		c.GatePlan = false
		ok = c.Critical || c.GateStep
	}
	edit := e.editGated()
	if !ok && !edit {
		return nil, nil // most tool calls end here, having read no plan
	}
	s, g, err := e.glance()
	if s == nil {
		return nil, err
	}
	var t *hookwire.Turn
	if !e.replaying() {
		t = e.turn(s)
	}
	claims := e.glanceClaims(s, g, t)
	a := g.PreToolUse(c, t, e.cli(t), e.in.SessionID)
	if edit {
		e.askEdit(s, &a)
	}
	e.remember(s, a.Remember)
	a.Context = brief.Join(claims, a.Context)
	if a.Permission == "ask" && a.Asked != "" && e.in.HostAsks && !e.replaying() {
		// The host puts the question to the person: their yes lets the
		// agent's change through the gate (repo's gate.go).
		if err := s.AppendPrivate(disk.AskedFile, []byte(disk.AskedLine(a.Asked, e.env.Now().Unix()))); err != nil {
			e.proj.AppendLog(e.env.Now(), fmt.Sprintf("hook PreToolUse session=%s: the asked record: %v", s.ID, err))
		}
	}
	return &Output{Context: a.Context, Permission: a.Permission, PermissionReason: a.PermissionReason}, nil
}

// inputString is the string member name of a tool's input, or "".
func inputString(input json.RawMessage, name string) string {
	var v string
	hookwire.Members(input, func(key string, value []byte) error {
		if key == name {
			v, _ = hookwire.String(value)
		}
		return nil
	})
	return v
}
