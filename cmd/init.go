package cmd

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/plan"
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
}

// NewCmdInit builds `plangit init`.
func NewCmdInit(f *Factory) *cobra.Command {
	o := &initOptions{f: f}
	c := &cobra.Command{
		Use:   "init [TITLE]",
		Short: "Start a session with a new plan and make it the active one",
		Long: `Start a session: a git repository under .code-agent/plans/<session>/ holding the plan.
The session id is --session, else $PLANGIT_SESSION, else a new one. The new session becomes
the active one (.code-agent/active).

--from reads a plan another tool wrote (a TodoWrite list, Claude Code task data, a
planning-with-files task_plan.md, a maxclaw/plan-tool/PlanManager plan.json, or a plangit
task_plan.md); the format is detected, or given with --format.`,
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
	return c
}

func joinFormats() string {
	s := ""
	for i, f := range plan.ImportFormats {
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
	id := f.SessionFlag
	if id == "" {
		id = f.Getenv("PLANGIT_SESSION")
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
	var p *plan.Plan
	if o.From != "" {
		src, err := f.readInput(o.From)
		if err != nil {
			return err
		}
		in, err := plan.Import(inputName(o.From), src, o.Format, now)
		if err != nil {
			return err
		}
		p = in.Plan
		if o.Title != "" {
			if p.Title, err = plan.CleanLine("title", o.Title); err != nil {
				return err
			}
		}
		if o.Goal != "" {
			if p.Goal, err = plan.CleanText("goal", o.Goal); err != nil {
				return err
			}
		}
		for _, name := range o.Phases {
			if _, err := p.AddPhase(name, "", now); err != nil {
				return err
			}
		}
		p.Created, p.Updated = plan.Stamp(now), plan.Stamp(now)
		if o.Approval && p.Status == plan.PlanRunning {
			p.Status = plan.PlanPending
		}
	} else if p, err = plan.New(id, o.Title, o.Goal, o.Phases, now, o.Approval); err != nil {
		return err
	}
	p.ID = id
	c := p.Counts()
	size := render.Count(len(p.Phases), "phase") + ", " + render.Count(c.Total, "step")
	change := plan.Change{Op: "init", Summary: fmt.Sprintf("init: %s (%s)", p.Title, size)}
	s, res, err := proj.Create(id, &plan.State{Plan: p}, change, f.Options())
	if err != nil {
		return err
	}
	if err := proj.SetActive(id); err != nil {
		return err
	}
	rel, _ := filepath.Rel(proj.Root, s.Dir)
	return f.print(map[string]any{"session": id, "dir": s.Dir, "rev": res.Commit.Hash, "plan": p}, func(w io.Writer) {
		fmt.Fprintf(w, "started session %s: %s (%s)\n", id, p.Title, size)
		fmt.Fprintf(w, "  %s  revision %s\n", rel, res.Commit.Hash[:7])
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
