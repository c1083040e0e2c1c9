package cmd

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// NewCmdImport builds `plangit import`.
func NewCmdImport(f *Factory) *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "import FILE|-",
		Short: "Import a plan another tool wrote into the session (a new session if there is none)",
		Long: `Import a plan: a TodoWrite {"todos":[...]} list, Claude Code task data (a task, an array of
tasks or {"tasks":[...]}), a planning-with-files task_plan.md, a maxclaw plan.json
{goal, steps, current_step_index}, a {task_description, steps} plan, a PlanManager
{meta, state, tasks} plan, or a plangit task_plan.md. The format is detected unless --format.

Into an existing plan, the imported phases and steps are appended with fresh ids. With no
session chosen or active, import starts a new session, as init --from does.`,
		Example: `  plangit import todos.json
  plangit import --format pwf ../other/task_plan.md
  cat plan.json | plangit import -`,
		Args: exactArgs(1, "a FILE, or - for standard input"),
		RunE: func(cmd *cobra.Command, args []string) error {
			proj, err := f.Project()
			if err != nil {
				return err
			}
			id, err := f.SessionID(proj)
			if plan.HasCode(err, plan.CodePlanNotFound) {
				return initRun(&initOptions{f: f, From: args[0], Format: format})
			}
			if err != nil {
				return err
			}
			if _, err := proj.Open(id); plan.HasCode(err, plan.CodeSessionNotFound) && f.SessionFlag != "" {
				return initRun(&initOptions{f: f, From: args[0], Format: format})
			}
			src, err := f.readInput(args[0])
			if err != nil {
				return err
			}
			in, err := plan.Import(inputName(args[0]), src, format, f.Now())
			if err != nil {
				return err
			}
			return f.applyChange(func(st *plan.State) (plan.Change, error) {
				c, err := st.Plan.Merge(in.Plan, f.Now())
				c.Summary += " from " + in.Format
				return c, err
			}, nil)
		},
	}
	c.Flags().StringVar(&format, "format", "", "the file's format: "+joinFormats())
	return c
}

// NewCmdSessions builds `plangit sessions`.
func NewCmdSessions(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "sessions",
		Short: "List the project's sessions: title, status, progress, revisions, last change, size",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			proj, err := f.Project()
			if err != nil {
				return err
			}
			rows, err := listSessions(proj)
			if err != nil {
				return err
			}
			return f.print(map[string]any{"sessions": rows}, func(w io.Writer) { render.Sessions(w, rows, f.Now(), proj.PlansDir()) })
		},
	}
}

func listSessions(proj repo.Project) ([]render.SessionRow, error) {
	ids, err := proj.SessionIDs()
	if err != nil {
		return nil, err
	}
	active, _ := proj.Active()
	rows := []render.SessionRow{}
	for _, id := range ids {
		r := render.SessionRow{ID: id, Active: id == active}
		s, err := proj.Open(id)
		if err == nil {
			r.Size = s.Size()
			var last repo.Revision
			if last, err = s.Last(); err == nil {
				r.Revisions, r.LastChange = last.N, last.Time
				var st *plan.State
				if st, err = s.State(); err == nil {
					c := st.Plan.Counts()
					r.Title, r.Status, r.Done, r.Total = st.Plan.Title, st.Plan.Status, c.Done, c.Total
				}
			}
		}
		if err != nil {
			r.Problem = strings.SplitN(err.Error(), ";", 2)[0]
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// NewCmdCleanup builds `plangit cleanup`.
func NewCmdCleanup(f *Factory) *cobra.Command {
	var olderThan string
	var o repo.CleanupOptions
	c := &cobra.Command{
		Use:   "cleanup [--older-than AGE]",
		Short: "Remove sessions whose last change is older than AGE (default: retention_days)",
		Long: `cleanup removes sessions whose last commit is older than AGE — 90m, 36h, 7d, 2w — by default the
retention_days setting of .code-agent/config.json (7). Unfinished plans stay unless
--include-unfinished; the active session always stays; --dry-run lists what would go. cleanup
never follows a symlink out of .code-agent/plans/.`,
		Example: `  plangit cleanup --dry-run
  plangit cleanup --older-than 36h --include-unfinished`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			proj, err := f.Project()
			if err != nil {
				return err
			}
			if olderThan != "" {
				d, err := history.ParseAge(olderThan)
				if err != nil {
					return &usageError{err.(*plan.Error)}
				}
				o.OlderThan = d
			} else {
				cfg, err := proj.Config()
				if err != nil {
					return err
				}
				o.OlderThan = time.Duration(cfg.RetentionDays) * 24 * time.Hour
			}
			o.Now, o.LockWait = f.Now(), f.Options().LockWait
			rep, err := proj.Cleanup(o)
			if err != nil {
				return err
			}
			return f.print(rep, func(w io.Writer) { render.Cleanup(w, rep) })
		},
	}
	c.Flags().StringVar(&olderThan, "older-than", "", "age of the last change: 90m, 36h, 7d, 2w (default: retention_days)")
	c.Flags().BoolVar(&o.IncludeUnfinished, "include-unfinished", false, "remove unfinished plans too")
	c.Flags().BoolVar(&o.DryRun, "dry-run", false, "list what would be removed; remove nothing")
	return c
}

// NewCmdRepair builds `plangit repair`.
func NewCmdRepair(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "repair",
		Short: "Recover a damaged session: its branch, lost objects, files that no longer parse",
		Long: `repair brings a session back to a working state and loses nothing it can keep:
  - a change a killed process left half-written is completed, and what it left behind is cleared;
  - damaged objects are moved aside, and file contents that are gone are written again from the
    working files that hold them;
  - a branch that is damaged, lost, or points at a revision that cannot be read is pointed at the
    newest intact revision (its own ancestors, the revision log, then every commit in the
    repository), and working files a lost revision left are committed;
  - a working file that does not parse, or is a symbolic link, is restored from the last revision
    and kept beside it as NAME.rejected; valid hand edits are adopted as a commit;
  - the index and the revision log are rewritten.
What could not be recovered is listed.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.Session()
			if err != nil {
				return err
			}
			rep, err := s.Repair(f.Options())
			if err != nil {
				return err
			}
			return f.print(rep, func(w io.Writer) {
				if rep.RefProblem != "" {
					fmt.Fprintln(w, rep.RefProblem)
				}
				if n := len(rep.ObjectsRecovered); n > 0 {
					fmt.Fprintf(w, "wrote %d lost objects again from the working files\n", n)
				}
				if rep.Kept != nil {
					fmt.Fprintf(w, "%s (%s)\n", rep.Kept.Change.Summary, rep.Kept.Hash[:7])
				}
				for _, r := range rep.Restored {
					fmt.Fprintf(w, "restored %s from the last revision: %s\n", r.File, r.Problem)
					if r.KeptAt != "" {
						fmt.Fprintf(w, "  the rejected file is kept as %s\n", r.KeptAt)
					}
				}
				if rep.Adopted != nil {
					fmt.Fprintf(w, "%s (%s)\n", rep.Adopted.Change.Summary, rep.Adopted.Hash[:7])
				}
				for _, l := range rep.Lost {
					fmt.Fprintf(w, "could not recover: %s\n", l)
				}
				if rep.RefRecovered == "" && len(rep.ObjectsRecovered) == 0 && len(rep.Restored) == 0 && rep.Adopted == nil && len(rep.Lost) == 0 {
					fmt.Fprintln(w, "nothing to repair")
				}
			})
		},
	}
}
