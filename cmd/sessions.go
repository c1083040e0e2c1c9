package cmd

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/hooks"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/interop"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/share"
)

// NewCmdImport builds `plangit import`.
func NewCmdImport(f *Factory) *cobra.Command {
	var format string
	var dryRun, appendTo bool
	c := &cobra.Command{
		Use:   "import FILE|-",
		Short: "Import a plan another tool wrote into the session (a new session if there is none)",
		Long: `Import a plan: a TodoWrite {"todos":[...]} list, Claude Code task data (a task, an array of
tasks or {"tasks":[...]}), a planning-with-files task_plan.md, a Manus-style task_plan.md,
a maxclaw plan.json {goal, steps, current_step_index}, a {task_description, steps} plan, a
PlanManager {meta, state, tasks} plan, a Plan-and-Execute {state, tasks} plan or response, a
spec-kit or OpenSpec tasks.md, a Claude Code plan file (~/.claude/plans/*.md), or a plangit
task_plan.md. The format is detected unless --format.

Everything the file holds is imported — findings and errors too, into findings.md and
errors.md in the same revision — or listed as not imported, with why. Times the file gives
are kept; what it does not date stays undated. A file with no step, or a status plangit
does not know, is refused and nothing changes. --dry-run shows what would be imported.

Into an existing plan, the file updates the plan in place, as a tool that writes its whole
plan again means it to (the plan tool's create_plan called again, a todo list, a plan.json
saved again): phases match by title and steps by text (a tasks.md's by task id first); a matched step takes the file's
status, result and progress; a step the plan lacks is added; a step the file no longer holds
stays, and is listed; findings and errors already there are not added again. One revision says
what moved, and nothing is duplicated. --append adds the file's phases and steps after the
plan's, with fresh ids, as a plan of their own. Either way the plan keeps its title, goal and
status, and at most one step is in progress. A findings.md or errors.md (plangit's, or a
Manus-style one) brings its findings or errors. With no session chosen or active, import
starts a new session, as init --from does.

A spec-kit or OpenSpec tasks.md imported from a path becomes the session's tracked tasks
file, in place of any other: when the agent's edit tool ticks a box there, the hooks record
its step done (and a change made otherwise is applied at the agent's next stop).`,
		Example: `  plangit import todos.json
  plangit import specs/001-photo-albums/tasks.md
  plangit import --format pwf ../other/task_plan.md --dry-run
  cat plan.json | plangit import -`,
		Args: exactArgs(1, "a FILE, or - for standard input"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return importRun(f, args[0], format, dryRun, appendTo)
		},
	}
	c.Flags().StringVar(&format, "format", "", "the file's format: "+joinFormats())
	c.Flags().BoolVar(&dryRun, "dry-run", false, "show what would be imported, change nothing")
	c.Flags().BoolVar(&appendTo, "append", false, "add the file's phases and steps after the plan's (fresh ids), instead of updating it in place")
	return c
}

// importRun imports the plan in file name ("-": standard input) into the
// session, or into a new session when none is chosen or active.
func importRun(f *Factory, name, format string, dryRun, appendTo bool) error {
	proj, err := f.Project()
	if err != nil {
		return err
	}
	id, err := f.SessionID(proj)
	if plan.HasCode(err, plan.CodePlanNotFound) {
		return initRun(&initOptions{f: f, From: name, Format: format, DryRun: dryRun})
	}
	if err != nil {
		return err
	}
	if _, err := proj.Open(id); plan.HasCode(err, plan.CodeSessionNotFound) && f.SessionFlag != "" {
		return initRun(&initOptions{f: f, From: name, Format: format, DryRun: dryRun})
	}
	src, before, err := f.readSource(name)
	if err != nil {
		return err
	}
	in, err := interop.Import(inputName(name), src, format, f.Now())
	if err != nil {
		return err
	}
	return importInto(f, in, dryRun, appendTo, source{name, before, src})
}

// source is a file an import read: its name, what was seen of it before
// it was read (nil for standard input), and its content.
type source struct {
	name   string
	before os.FileInfo
	src    []byte
}

// readSource reads a file argument (readInput), looked at first: a
// tasks file the import tracks is known by how it stood before it was
// read (trackTasks).
func (f *Factory) readSource(name string) ([]byte, os.FileInfo, error) {
	var before os.FileInfo
	if name != "-" {
		before, _ = os.Stat(name)
	}
	src, err := f.readInput(name)
	return src, before, err
}

// trackTasks makes a spec-kit or OpenSpec tasks file an import read the
// one the session tracks, whose ticked boxes the hooks apply
// (hooks.TrackTasks); it returns the path as shown, "" when not tracked.
// A record that cannot be written is a warning: the import stands.
func (f *Factory) trackTasks(s *repo.Session, in *interop.Imported, from source) string {
	path, err := hooks.TrackTasks(s, from.name, in.Format, from.before, from.src)
	if err != nil {
		fmt.Fprintln(f.IO.ErrOut, "plangit: warning: the hooks will not apply "+inputName(from.name)+" when it changes:", render.Clean(err.Error()))
		return ""
	}
	return path
}

// importInto merges an import into the current session, or with dryRun
// shows what merging would do.
func importInto(f *Factory, in *interop.Imported, dryRun, appendTo bool, from source) error {
	merge := interop.Update
	if appendTo {
		merge = interop.Append
	}
	s, err := f.Session()
	if err != nil {
		return err
	}
	if dryRun {
		st, err := s.State()
		if err == nil {
			err = f.applyRules(s, st)
		}
		if err != nil {
			return err
		}
		trial := &plan.State{Plan: st.Plan.Clone(), Findings: slices.Clone(st.Findings), Errors: cloneErrors(st.Errors)}
		_, merged, err := merge(trial, in, f.Now())
		if err != nil {
			return err
		}
		return f.printImportPreview(s.ID, false, in, append(slices.Clone(in.Dropped), merged...))
	}
	cfg, err := s.Project.Config()
	if err != nil {
		return err
	}
	var dropped []interop.Dropped
	res, err := s.Update(f.Options(), func(st *plan.State) (plan.Change, error) {
		st.Plan.Rules = cfg.Rules()
		c, merged, err := merge(st, in, f.Now())
		dropped = append(slices.Clone(in.Dropped), merged...)
		if c.Op != "" {
			c.Summary += " from " + in.Format
		}
		return c, err
	})
	if err != nil {
		return err
	}
	d := f.changeData(s, res)
	d.Format, d.Dropped = in.Format, orNoDrops(dropped)
	d.Tracked = f.trackTasks(s, in, from)
	return f.print(d, func(w io.Writer) {
		if res.Commit == nil && res.Adopted == nil {
			if res.Stale != nil {
				fmt.Fprintln(w, render.StaleLine(res.Stale))
			}
			fmt.Fprintln(w, "nothing changed: the plan holds what the file says")
		} else {
			f.printChangeText(w, d, res, nil)
			render.ImportReport(w, in.State, dropped)
		}
		f.printTracked(w, d.Tracked)
	})
}

// printTracked says which tasks file the session tracks now.
func (f *Factory) printTracked(w io.Writer, path string) {
	if path != "" {
		fmt.Fprintf(w, "tracking %s: the hooks record a box the agent ticks there as its step done\n", render.Clean(f.shownPath(path)))
	}
}

// cloneErrors copies an error log deeply, for a trial change.
func cloneErrors(l plan.ErrorLog) plan.ErrorLog {
	out := make(plan.ErrorLog, len(l))
	for i, e := range l {
		c := *e
		out[i] = &c
	}
	return out
}

// NewCmdSessions builds `plangit sessions`.
func NewCmdSessions(f *Factory) *cobra.Command {
	var remote string
	c := &cobra.Command{
		Use:   "sessions [--remote[=NAME]]",
		Short: "List the project's sessions: title, status, progress, revisions, last change, size",
		Long: `sessions lists the project's sessions: title, status, progress, revisions, last change, size,
and how each stands with the git remotes it was pushed to or fetched from.

--remote lists the sessions on the project's git remote instead (--remote=NAME names it; the
default is push_remote, else the branch's upstream remote, else origin): title, status,
progress and last change, read from each session's tip alone, without fetching its history.`,
		Example: `  plangit sessions
  plangit sessions --remote
  plangit sessions --remote=upstream --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if flagChanged(cmd.Flags(), "remote") {
				if remote == defaultRemote {
					remote = ""
				}
				return sessionsRemote(f, remote)
			}
			proj, err := f.Project()
			if err != nil {
				return err
			}
			rows, err := listSessions(proj)
			if err != nil {
				return err
			}
			f.noteWorktree(proj)
			return f.print(map[string]any{"sessions": rows}, func(w io.Writer) { render.Sessions(w, rows, f.Now(), proj.PlansDir()) })
		},
	}
	c.Flags().StringVar(&remote, "remote", "", "list the sessions on the project's git remote, or on remote `NAME`")
	c.Flags().Lookup("remote").NoOptDefVal = defaultRemote
	return c
}

// defaultRemote is --remote given without a name: no git remote can be
// called so, since a ref name cannot hold a "*".
const defaultRemote = "*"

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
				if err == nil {
					r.Share, err = share.StatusOf(s)
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
never follows a symlink out of .code-agent/plans/.

With push_on set, a session with revisions no remote holds stays too, unless --force. A
removed session this machine had pushed goes on the prune list: plangit push --prune deletes
it on the remote as well.`,
		Example: `  plangit cleanup --dry-run
  plangit cleanup --older-than 36h --include-unfinished`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			proj, err := f.Project()
			if err != nil {
				return err
			}
			cfg, err := proj.Config()
			if err != nil {
				return err
			}
			o.OlderThan = time.Duration(cfg.RetentionDays) * 24 * time.Hour
			if olderThan != "" {
				d, err := history.ParseAge(olderThan)
				if err != nil {
					return asUsage(err)
				}
				o.OlderThan = d
			}
			o.KeepUnpushed = cfg.PushOn != "off"
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
	c.Flags().BoolVar(&o.Force, "force", false, "remove sessions not pushed even when push_on is set")
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
  - where the last revision's files do not parse (a file over the size limit, say), a new
    revision restores those of the newest revision whose files do;
  - a working file that does not parse, or is a symbolic link, is restored from the last revision
    and kept beside it as NAME.rejected.N (a new N each time); valid hand edits are adopted;
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
				for _, c := range []*repo.Commit{rep.Kept, rep.ReadBack} {
					if c != nil {
						fmt.Fprintf(w, "%s (%s)\n", c.Change.Summary, c.Hash[:7])
					}
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
				if rep.Stale != nil {
					fmt.Fprintln(w, render.StaleLine(rep.Stale))
				}
				for _, l := range rep.Lost {
					fmt.Fprintf(w, "could not recover: %s\n", l)
				}
				if rep.RefRecovered == "" && rep.Kept == nil && rep.ReadBack == nil && len(rep.ObjectsRecovered) == 0 && len(rep.Restored) == 0 && rep.Adopted == nil && rep.Stale == nil && len(rep.Lost) == 0 {
					fmt.Fprintln(w, "nothing to repair")
				}
			})
		},
	}
}
