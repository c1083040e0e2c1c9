package cmd

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/hooks"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/interop"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

type initOptions struct {
	f        *Factory
	Title    string
	Goal     string
	Phases   []string
	From     string
	Format   string
	Approval bool
	DryRun   bool
}

// NewCmdInit builds `plangit init`.
func NewCmdInit(f *Factory) *cobra.Command {
	o := &initOptions{f: f}
	c := &cobra.Command{
		Use:   "init [TITLE]",
		Short: "Start a session with a new plan and make it the active one",
		Long: `Start a session: a git repository under .code-agent/plans/<session>/ holding the plan.
The session id is --session, else $PLANGIT_SESSION, else the agent host's own session id
($CLAUDE_CODE_SESSION_ID, $CODEX_THREAD_ID: the session its hooks keep), else a new one. The
new session becomes the active one (.code-agent/active) unless the environment named it: an
agent's session is never the active one, which is a person's choice.

--from reads a plan another tool wrote (a TodoWrite list, Claude Code task data, a
planning-with-files or Manus-style task_plan.md, a maxclaw/plan-tool/PlanManager/
Plan-and-Execute plan.json, or a plangit task_plan.md); the format is detected, or given
with --format. What the file holds that plangit does not keep is listed; --dry-run shows
what would be imported and changes nothing.`,
		Example: `  plangit init "Add caching to UserService" --goal "cache lookups without changing the API" \
      --phase Analysis --phase Build
  plangit init --from todos.json
  echo '{"todos":[{"content":"Write tests","status":"pending"}]}' | plangit init "Tests" --from -`,
		Args: rangeArgs(0, 1, "at most a TITLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Title = args[0]
			}
			if o.Title == "" && o.From == "" {
				return usagef("give the plan a title: plangit init \"Title\" (or --from FILE)")
			}
			return initRun(o)
		},
	}
	c.Flags().StringVar(&o.Goal, "goal", "", "what the plan achieves")
	c.Flags().StringArrayVar(&o.Phases, "phase", nil, "a phase to create (repeatable, in order)")
	c.Flags().StringVar(&o.From, "from", "", "read the plan from FILE, or - for standard input")
	c.Flags().StringVar(&o.Format, "format", "", "format of --from: "+joinFormats())
	c.Flags().BoolVar(&o.Approval, "approval", false, "start the plan awaiting approval (plangit approve); always so with plan_confirmation on")
	c.Flags().BoolVar(&o.DryRun, "dry-run", false, "with --from: show what would be imported, change nothing")
	return c
}

func joinFormats() string {
	s := ""
	for i, f := range interop.ImportFormats {
		if i > 0 {
			s += "|"
		}
		s += f
	}
	return s
}

// readInput reads a file argument, "-" meaning standard input, refusing
// anything over plan.MaxFile.
func (f *Factory) readInput(name string) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = f.IO.In
	} else {
		file, err := os.Open(name)
		if err != nil {
			return nil, plan.WrapError(plan.CodeIOError, err, "cannot read %s", name)
		}
		defer file.Close()
		r = file
	}
	b, err := io.ReadAll(io.LimitReader(r, plan.MaxFile+1))
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read %s", name)
	}
	if len(b) > plan.MaxFile {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s is larger than %d bytes", inputName(name), plan.MaxFile)
	}
	return b, nil
}

// inputName is how errors name a file argument.
func inputName(name string) string {
	if name == "-" {
		return "stdin"
	}
	return filepath.Base(name)
}

// newSessionID makes an id for a session started without one: the time,
// then random hex, so ids sort by age and never collide.
func newSessionID(f *Factory) string {
	var b [3]byte
	rand.Read(b[:])
	return f.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

func initRun(o *initOptions) error {
	f := o.f
	proj, err := f.Project()
	if err != nil {
		return err
	}
	f.noteWorktree(proj)
	// A session the environment names (PLANGIT_SESSION, or the agent
	// host's own) is an agent's: it does not become the active session,
	// which is only ever a person's choice.
	id, fromEnv := f.SessionFlag, false
	if id == "" {
		id = f.Getenv("PLANGIT_SESSION")
		fromEnv = id != ""
	}
	if id == "" {
		for _, name := range hooks.SessionVars {
			if v := f.Getenv(name); v != "" && repo.ValidateNewSessionID(v) == nil {
				id, fromEnv = v, true
				break
			}
		}
	}
	if id == "" {
		// Gemini CLI's shell names no session: the one its hooks recorded.
		if v := hooks.RecordedShellSession(proj, f.Getenv); v != "" && repo.ValidateNewSessionID(v) == nil {
			id, fromEnv = v, true
		}
	}
	if id == "" {
		id = newSessionID(f)
	}
	if err := repo.ValidateNewSessionID(id); err != nil {
		return err
	}
	cfg, err := proj.Config()
	if err != nil {
		return err
	}
	o.Approval = o.Approval || cfg.PlanConfirmation
	now := f.Now()
	var (
		p    *plan.Plan
		st   = &plan.State{}
		in   *interop.Imported
		from source
	)
	if o.From != "" {
		src, before, err := f.readSource(o.From)
		if err != nil {
			return err
		}
		from = source{o.From, before, src}
		if in, err = interop.Import(inputName(o.From), src, o.Format, now); err != nil {
			return err
		}
		if in.Format == interop.FormatFindings || in.Format == interop.FormatErrors {
			return plan.Errorf(plan.CodeInvalidArgument, "%s holds %s, no plan: bring it into a session's plan (plangit import %s --session ID), or start a plan first (plangit init \"Title\")",
				inputName(o.From), in.Format, o.From)
		}
		if in.Partial {
			return plan.Errorf(plan.CodeInvalidArgument, "%s is a %s response on one task, no plan: it applies to the plan that has the task", inputName(o.From), in.Format).
				Hinted("import the plan first (the response that carries planResult), then plangit import %s", o.From)
		}
		st = in.State
		p = st.Plan
		if o.Title != "" {
			old := p.Title
			if p.Title, err = plan.CleanLine("title", o.Title); err != nil {
				return err
			}
			if old != p.Title {
				in.Dropped = append(in.Dropped, interop.Dropped{Field: "title", Value: old, Why: "replaced by the title given"})
			}
		}
		if o.Goal != "" {
			old := p.Goal
			if p.Goal, err = plan.CleanText("goal", o.Goal); err != nil {
				return err
			}
			if old != "" && old != p.Goal {
				in.Dropped = append(in.Dropped, interop.Dropped{Field: "goal", Value: old, Why: "replaced by the --goal given"})
			}
		}
		for _, name := range o.Phases {
			if _, err := p.AddPhase(name, "", now); err != nil {
				return err
			}
		}
		if o.Approval && p.Status == plan.PlanRunning {
			p.Status = plan.PlanPending
		}
	} else if o.DryRun {
		return usagef("--dry-run goes with --from: it shows what an import would bring")
	} else if p, err = plan.New(id, o.Title, o.Goal, o.Phases, now, o.Approval); err != nil {
		return err
	}
	p.ID = id
	st.Plan = p
	p.Rules = cfg.Rules()
	c := p.Counts()
	if o.DryRun {
		return f.printImportPreview(id, true, in, in.Dropped)
	}
	size := render.Count(len(p.Phases), "phase") + ", " + render.Count(c.Total, "step")
	change := plan.Change{Op: "init", Summary: fmt.Sprintf("init: %s (%s)", p.Title, size)}
	if in != nil {
		change.Summary = fmt.Sprintf("init: %s (%s) from %s", p.Title, size, in.Format)
	}
	s, res, err := proj.Create(id, st, change, f.Options())
	if errors.Is(err, repo.ErrExists) {
		return takeOver(f, proj, id, p, in, from)
	}
	if err != nil {
		return err
	}
	if !fromEnv {
		if err := proj.SetActive(id); err != nil {
			return err
		}
	}
	rel := f.shownPath(s.Dir)
	data := map[string]any{"session": id, "dir": s.Dir, "rev": res.Commit.Hash, "plan": p}
	tracked := ""
	if in != nil {
		data["format"], data["findings"], data["errors"], data["dropped"] = in.Format, len(st.Findings), len(st.Errors), orNoDrops(in.Dropped)
		if tracked = f.trackTasks(s, in, from); tracked != "" {
			data["tracked"] = tracked
		}
	}
	return f.print(data, func(w io.Writer) {
		fmt.Fprintf(w, "started session %s: %s (%s)\n", id, p.Title, size)
		fmt.Fprintf(w, "  %s  revision %s\n", rel, res.Commit.Hash[:7])
		if in != nil {
			render.ImportReport(w, st, in.Dropped)
		}
		f.printTracked(w, tracked)
		if c.Total == 0 {
			fmt.Fprintln(w, "next: plangit step add \"...\"")
		} else if p.Status == plan.PlanPending {
			fmt.Fprintln(w, "next: plangit approve")
		} else {
			fmt.Fprintln(w, "next: plangit next")
		}
	})
}

// NewCmdUse builds `plangit use`.
func NewCmdUse(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "use SESSION",
		Short:   "Make SESSION the active session",
		Example: "  plangit use 20261120-103000-7f3a9c",
		Args:    exactArgs(1, "a SESSION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			proj, err := f.Project()
			if err != nil {
				return err
			}
			s, err := proj.Open(args[0])
			if err != nil {
				return err
			}
			if err := proj.SetActive(s.ID); err != nil {
				return err
			}
			return f.print(map[string]any{"session": s.ID, "dir": s.Dir}, func(w io.Writer) {
				fmt.Fprintf(w, "active session: %s\n", s.ID)
			})
		},
	}
}

func orNoDrops(d []interop.Dropped) []interop.Dropped {
	if d == nil {
		return []interop.Dropped{}
	}
	return d
}

// printImportPreview prints what an import would do, for --dry-run: the
// plan as it would stand, its findings and errors, and what the file holds
// that plangit would not keep.
func (f *Factory) printImportPreview(session string, newSession bool, in *interop.Imported, dropped []interop.Dropped) error {
	st := in.State
	data := map[string]any{"dry_run": true, "session": session, "new_session": newSession, "format": in.Format,
		"plan": st.Plan, "findings": orFindings(st.Findings), "errors": orErrors(st.Errors), "dropped": orNoDrops(dropped)}
	return f.print(data, func(w io.Writer) {
		c := st.Plan.Counts()
		verb := "would add to session " + session
		if newSession {
			verb = "would start session " + session
		}
		fmt.Fprintf(w, "%s from %s: %s (%d phases, %d steps) — nothing changed (--dry-run)\n\n", verb, in.Format, st.Plan.Title, len(st.Plan.Phases), c.Total)
		render.Plan(w, st.Plan, render.PlanOptions{All: true, Style: f.Style()})
		render.ImportReport(w, st, dropped)
	})
}

func orFindings(fs plan.Findings) plan.Findings {
	if fs == nil {
		return plan.Findings{}
	}
	return fs
}

func orErrors(l plan.ErrorLog) plan.ErrorLog {
	if l == nil {
		return plan.ErrorLog{}
	}
	return l
}

// takeOver is init in a session that has a plan already. A plan the hooks
// started on their own (from the person's request, a todo list, [Step]
// lines) that nobody has worked on yet is the agent's to take over: its
// title, goal and phases become init's, in one revision. Any other plan
// stays; the error says what to do instead.
func takeOver(f *Factory, proj repo.Project, id string, next *plan.Plan, in *interop.Imported, from source) error {
	s, err := proj.Open(id)
	if err != nil {
		return err
	}
	var (
		refused error
		dropped []interop.Dropped
	)
	res, err := s.Update(f.Options(), func(st *plan.State) (plan.Change, error) {
		p := st.Plan
		if !p.Untouched() {
			refused = planExists(id, st, in != nil)
			return plan.Change{}, nil
		}
		change, err := p.TakeOver(next, f.Now())
		if err != nil || in == nil {
			return change, err
		}
		// init --from: the file's steps, findings and errors come in too,
		// as plangit import brings a file into a plan.
		_, lost, err := interop.Update(st, in, f.Now())
		if err != nil {
			return plan.Change{}, err
		}
		dropped = append(append(dropped, in.Dropped...), lost...)
		change.Summary += fmt.Sprintf(", with %s from %s", render.Count(p.Counts().Total, "step"), in.Format)
		return change, nil
	})
	if err != nil {
		return err
	}
	if refused != nil {
		return refused
	}
	p := res.State.Plan
	rel := f.shownPath(s.Dir)
	size := render.Count(len(p.Phases), "phase") + ", " + render.Count(p.Counts().Total, "step")
	data := map[string]any{"session": id, "dir": s.Dir, "rev": res.Commit.Hash, "plan": p, "took_over": true}
	tracked := ""
	if in != nil {
		data["format"], data["dropped"] = in.Format, orNoDrops(dropped)
		if tracked = f.trackTasks(s, in, from); tracked != "" {
			data["tracked"] = tracked
		}
	}
	return f.print(data, func(w io.Writer) {
		fmt.Fprintf(w, "took over session %s: %s (%s), the plan the hooks started from the request\n", id, p.Title, size)
		fmt.Fprintf(w, "  %s  revision %s\n", rel, res.Commit.Hash[:7])
		if in != nil {
			render.ImportReport(w, res.State, dropped)
		}
		f.printTracked(w, tracked)
		if p.Counts().Total == 0 {
			fmt.Fprintln(w, "next: plangit step add \"...\"")
		} else {
			fmt.Fprintln(w, "next: plangit next")
		}
	})
}

// planExists is init's error for a session whose plan is someone's, or has
// been worked on: what the plan is, and what to do instead.
func planExists(id string, st *plan.State, imported bool) error {
	p := st.Plan
	c := p.Counts()
	what := fmt.Sprintf("%q (%d/%d steps done)", p.Title, c.Done, c.Total)
	if from := map[string]string{"prompt": "the person's request", "todos": "a todo list", "steps": "[Step] lines", "planmode": "the plan from plan mode"}[p.From]; from != "" {
		what += ", which the hooks started from " + from + " and which has steps now"
	}
	hint := "plangit show shows it, plangit step add \"...\" adds a step to it"
	if imported {
		hint = "plangit import FILE brings the file into it, plangit show shows it"
	}
	return plan.Errorf(plan.CodeInvalidArgument, "session %s already has a plan, %s", id, what).Hinted("%s; a new plan needs a session of its own: plangit init \"Title\" --session NEW-ID", hint).With("session", id)
}
