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

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// engine handles one event.
type engine struct {
	env  Env
	in   *Input
	proj repo.Project
	cfg  repo.Config
	sess *repo.Session // the session, when replaying a queued event
	hs   *state        // the hook counters as this event first read them
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
	e.proj = repo.Project{Root: root}
	if e.cfg, err = e.proj.Config(); err != nil {
		return nil, err
	}
	out, err := e.dispatch()
	if errors.Is(err, errQueued) {
		return nil, nil
	}
	return out, err
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
		return nil, errors.New("the payload has no session_id")
	}
	if err := repo.ValidateSessionID(e.in.SessionID); err != nil {
		return nil, err
	}
	defer e.publish()
	switch e.in.Event {
	case SessionStart:
		return e.sessionStart()
	case UserPromptSubmit:
		return e.userPromptSubmit()
	case PreToolUse:
		return e.preToolUse()
	case PostToolUse:
		return e.postToolUse()
	case PostToolUseFailure:
		return e.postToolUseFailure()
	case Stop, SubagentStop:
		return e.stop()
	case PreCompact:
		return e.preCompact()
	}
	return nil, nil // SessionEnd: nothing to say
}

// session opens the host session's plan; nil when it has none. Events
// other hooks queued for it are applied by this process when it holds the
// lock, within the hook's time.
func (e *engine) session() (*repo.Session, error) {
	if e.sess != nil {
		return e.sess, nil
	}
	s, err := e.proj.Open(e.in.SessionID)
	if plan.HasCode(err, plan.CodeSessionNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	e.attach(s)
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
	}
	return e.hs.clone()
}

// glance opens the host session's plan and reads its glance; s is nil
// when it has none or either fails. Queued events are applied first, if
// any wait and the session is free.
func (e *engine) glance() (s *repo.Session, g *glance, err error) {
	if s, err = e.session(); err != nil || s == nil {
		return nil, nil, err
	}
	s.CatchUp()
	if g, err = readGlance(s, e.cfg.Rules()); err != nil {
		return nil, nil, err
	}
	return s, g, nil
}

// options are the change options of a hook's commit.
func (e *engine) options() repo.Options {
	return repo.Options{Now: e.env.Now(), LockWait: e.env.LockWait, Yield: true,
		Meta: repo.Meta{Actor: "hook", Hook: e.in.Event, Tool: e.in.ToolName}}
}

func (e *engine) context(parts []string) *Output {
	if len(parts) == 0 {
		return nil
	}
	return &Output{Context: render.Fit(parts, e.cfg.ContextBudget)}
}

// sessionStart reminds the agent of its unfinished plan; with none, it
// names unfinished plans of other sessions and how to adopt one.
func (e *engine) sessionStart() (*Output, error) {
	s, err := e.session()
	if err != nil {
		return nil, err
	}
	if s != nil {
		s.CatchUp()
		st, err := s.State()
		if err != nil {
			return nil, err
		}
		st.Plan.Rules = e.cfg.Rules()
		if st.Plan.Status.Unfinished() {
			return e.context(render.Reminder(st, s.ID)), nil
		}
		return nil, nil
	}
	others := e.unfinishedElsewhere(3)
	if len(others) == 0 {
		return nil, nil
	}
	descs := make([]string, len(others))
	for i, o := range others {
		descs[i] = o.desc
	}
	cmd := adoptCommand(others[0].id, e.in.SessionID)
	line := fmt.Sprintf("[plangit] No plan for this session. Unfinished plan in this project: %s. To continue it here: %s", descs[0], cmd)
	if len(others) > 1 {
		line = fmt.Sprintf("[plangit] No plan for this session. Unfinished plans in this project: %s. To continue the most recent here: %s (or name another of them)",
			strings.Join(descs, "; "), cmd)
	}
	return e.context([]string{line}), nil
}

// adoptCommand is the command line that adopts session from into session
// to. An id that begins with "-" goes after "--", where it cannot read as
// a flag.
func adoptCommand(from, to string) string {
	session := "--session " + to
	if strings.HasPrefix(to, "-") {
		session = "--session=" + to
	}
	if strings.HasPrefix(from, "-") {
		return "plangit adopt " + session + " -- " + from
	}
	return "plangit adopt " + from + " " + session
}

// elsewhere is an unfinished plan of another session.
type elsewhere struct {
	id   string
	desc string // "ID (Title, 1/4 done)"
}

// unfinishedElsewhere finds up to n unfinished plans of other sessions,
// most recently changed first.
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
		out = append(out, elsewhere{c.id, fmt.Sprintf("%s (%s, %d/%d done)", c.id, plan.TruncateText(st.Plan.Title, 60), k.Done, k.Total)})
		if len(out) == n {
			break
		}
	}
	return out
}

// continueIntents are what a person types to resume a paused plan.
var continueIntents = []string{"continue", "go on", "继续", "继续执行", "继续任务", "resume", "proceed"}

// isContinue reports whether a prompt is a continue intent: one of
// continueIntents, in any case, spaces and closing punctuation aside.
func isContinue(prompt string) bool {
	p := strings.ToLower(strings.TrimSpace(prompt))
	p = strings.TrimRight(p, ".!。！ ")
	return slices.Contains(continueIntents, p)
}

// userPromptSubmit resumes a paused plan on a continue intent and says
// where it stands; otherwise it gives a one-line status.
func (e *engine) userPromptSubmit() (*Output, error) {
	s, g, err := e.glance()
	if s == nil {
		return nil, err
	}
	if g.Status == plan.PlanPaused && isContinue(e.in.Prompt) {
		res, err := e.update(s, func(st *plan.State) (plan.Change, error) {
			hs := e.state(s)
			hs.StopBlocks = 0
			if err := hs.save(s); err != nil {
				return plan.Change{}, err
			}
			return st.Plan.Resume(e.env.Now())
		})
		if err != nil {
			return nil, err
		}
		return e.context(append([]string{"[plangit] Resumed the plan."}, strings.Split(strings.TrimSpace(render.Summary(res.State)), "\n")...)), nil
	}
	if !g.Status.Unfinished() {
		return nil, nil
	}
	if stopBlocks(s) > 0 {
		// A new turn: the Stop gate starts counting again.
		s.Locked(e.env.LockWait, func() error {
			hs := loadState(s)
			hs.StopBlocks = 0
			return hs.save(s)
		})
	}
	return e.context([]string{g.StatusLine}), nil
}

// preToolUse gives critical tools the current step and their error
// history, and asks before write tools while the plan awaits approval and
// before starting a step when steps need confirmation.
func (e *engine) preToolUse() (*Output, error) {
	tool := e.in.ToolName
	critical := slices.Contains(e.cfg.CriticalTools, tool)
	gatePlan := e.cfg.PlanConfirmation && slices.Contains(e.cfg.WriteTools, tool)
	gateStep := e.cfg.StepConfirmation && tool == "Bash" && startsStep(bashCommand(e.in.ToolInput))
	if !critical && !gatePlan && !gateStep {
		return nil, nil // most tool calls end here, having read no plan
	}
	s, g, err := e.glance()
	if s == nil {
		return nil, err
	}
	out := &Output{}
	if critical && g.Status.Unfinished() {
		out.Context = render.Fit(g.toolContext(tool), e.cfg.ContextBudget)
	}
	switch {
	case gatePlan && g.Status == plan.PlanPending:
		out.Permission = "ask"
		out.PermissionReason = "plangit: the plan awaits approval. Review it (plangit show) and approve it (plangit approve) before changing files."
	case gateStep:
		out.Permission = "ask"
		out.PermissionReason = "plangit: step confirmation is on; confirm before the agent starts a step."
	}
	return out, nil
}

// bashCommand is a Bash tool call's command.
func bashCommand(input json.RawMessage) string {
	var in struct {
		Command string `json:"command"`
	}
	json.Unmarshal(input, &in)
	return in.Command
}

// startsStep reports whether a shell command runs `plangit step start` or
// `plangit next`.
func startsStep(command string) bool {
	fields := strings.FieldsFunc(command, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '&' || r == '|' })
	for i, f := range fields {
		if filepath.Base(f) != "plangit" {
			continue
		}
		for j := i + 1; j < len(fields); j++ {
			switch {
			case fields[j] == "next":
				return true
			case fields[j] == "step" && j+1 < len(fields) && fields[j+1] == "start":
				return true
			case !strings.HasPrefix(fields[j], "-") && fields[j-1] != "--session" && fields[j-1] != "--root" && fields[j-1] != "--if-rev":
				j = len(fields) // another subcommand
			}
		}
	}
	return false
}
