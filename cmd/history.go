package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// NewCmdLog builds `plangit log`.
func NewCmdLog(f *Factory) *cobra.Command {
	var o history.LogOptions
	var since string
	var graph, withCode bool
	c := &cobra.Command{
		Use:   "log [REV]",
		Short: "List revisions, newest first: hash, number, time, who, progress, summary",
		Long: `log lists the session's revisions, newest first: hash, @N, time, who made it (the person's git
identity, and the agent or hook that acted for them), progress and summary. A merge of
another machine's revisions is listed with what each side brought and what conflicts, and
the revisions it brought in are listed too, with the numbers this machine gave them: @N
never changes once given, and the same revision has the same hash everywhere. --graph draws
the lines of the history beside it.

--code adds, under each revision that took a code snapshot of its own, what it changed in
the project's files since the snapshot before it: files and lines added and deleted.`,
		Example: `  plangit log -n 10
  plangit log --step 3          # only revisions that changed step 3
  plangit log --since 2h --json
  plangit log --graph           # the two lines of a merge, drawn
  plangit log --code            # each snapshot's files and lines
  plangit log origin/main       # the remote's tip, kept beside a shared session`,
		Args: rangeArgs(0, 1, "at most one revision"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Rev = args[0]
			}
			if since != "" {
				t, err := history.ParseSince(since, f.Now())
				if err != nil {
					return asUsage(err)
				}
				o.Since = t
			}
			if o.N < 0 {
				return usagef("-n/--max-count must be positive")
			}
			if o.Step != "" {
				if err := checkStepRefs("step", o.Step); err != nil {
					return err
				}
			}
			if graph && (o.Step != "" || since != "") {
				return usagef("--graph draws every revision; --step and --since leave some out")
			}
			return logRun(f, o, graph, withCode)
		},
	}
	c.Flags().BoolVar(&graph, "graph", false, "draw the lines of the history: a merge and the two sides it joins")
	c.Flags().BoolVar(&withCode, "code", false, "under each revision, what its code snapshot changed in the project's files")
	c.Flags().IntVarP(&o.N, "max-count", "n", 0, "at most N revisions")
	c.Flags().StringVar(&since, "since", "", "only revisions since an age (2h, 3d) or a date (2026-11-20)")
	c.Flags().StringVar(&o.Step, "step", "", "only revisions that changed this step")
	return c
}

// logRun lists revisions, newest first.
func logRun(f *Factory, o history.LogOptions, graph, withCode bool) error {
	s, err := f.Session()
	if err != nil {
		return err
	}
	// A step the plan no longer has (removed, or gone with a rollback)
	// still has its history: only a step no revision ever changed is
	// unknown.
	var unknown error
	if o.Step != "" {
		if st, err := s.State(); err == nil {
			_, _, unknown = st.Plan.Step(o.Step)
		}
	}
	revs, err := history.Log(s, o)
	if err != nil {
		return err
	}
	if unknown != nil && len(revs) == 0 {
		return unknown
	}
	if withCode {
		return codeLogRun(f, s, revs, graph)
	}
	return f.print(map[string]any{"session": s.ID, "revisions": revs}, func(w io.Writer) {
		if graph {
			render.LogGraph(w, revs, f.Style())
			return
		}
		render.Log(w, revs, f.Style())
	})
}

// NewCmdDiff builds `plangit diff`.
func NewCmdDiff(f *Factory) *cobra.Command {
	var text, stat, withCode bool
	c := &cobra.Command{
		Use:   "diff [A [B]]",
		Short: "Show what changed between two revisions (default: HEAD~1 and HEAD), or in the project (--code)",
		Long: `diff compares two revisions: by default the last revision with the one before; with one
revision, that one with HEAD. It prints the semantic changes — steps added, removed, renamed,
moved, their status, needs and results, findings and errors — or, with --text, a unified diff
of the files, or with --stat the lines changed per file.

--code diffs the work beside the plan: the code snapshots of the project's files taken at
every step boundary. diff --code STEP is what the project's files gained and lost during the
step's latest run, from the snapshot of its start to that of its end (a step in progress: to
the newest one); when other steps ran at the same time it says so, since the snapshots cannot
tell whose hand changed a file. diff --code A B compares two revisions' snapshots (one: A and
HEAD). --stat gives the summary: each file's status and lines.`,
		Example: `  plangit diff
  plangit diff @3
  plangit diff @3 @7 --text
  plangit diff HEAD~5 --stat --json
  plangit diff --code 3         # what step 3 changed in the project
  plangit diff --code 3 --stat
  plangit diff --code @3 @7     # the project's files between two revisions`,
		Args: rangeArgs(0, 2, "at most two revisions"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if text && stat {
				return usagef("--text and --stat are alternatives; give one")
			}
			if withCode {
				if text {
					return usagef("--code prints a unified diff of the project's files already; --text is for the plan's")
				}
				if len(args) == 0 {
					return usagef("diff --code needs a STEP (plangit diff --code 3) or revisions (plangit diff --code @3 @7)")
				}
				return codeDiffRun(f, args, stat)
			}
			return diffRun(f, args, text, stat)
		},
	}
	c.Flags().BoolVar(&text, "text", false, "a unified diff of the files")
	c.Flags().BoolVar(&stat, "stat", false, "lines added and deleted per file")
	c.Flags().BoolVar(&withCode, "code", false, "diff the project's files: a STEP's work, or two revisions' snapshots")
	return c
}

// diffRun shows what changed between the revisions revs name (none: the
// last revision; one: that one and HEAD): semantically, or as a text diff
// of the files, or as lines changed per file.
func diffRun(f *Factory, revs []string, text, stat bool) error {
	s, err := f.Session()
	if err != nil {
		return err
	}
	a, b := history.DefaultRange(revs)
	if text || stat {
		files, from, to, err := history.TextBetween(s, a, b)
		if err != nil {
			return err
		}
		if stat {
			for i := range files {
				files[i].Unified = ""
			}
			return f.print(map[string]any{"from": from, "to": to, "files": files}, func(w io.Writer) { render.Stat(w, from, to, files) })
		}
		return f.print(map[string]any{"from": from, "to": to, "files": files}, func(w io.Writer) { render.TextDiff(w, from, to, files, f.Style()) })
	}
	d, err := history.Between(s, a, b)
	if err != nil {
		return err
	}
	return f.print(d, func(w io.Writer) { render.Diff(w, d, f.Style()) })
}

// NewCmdBlame builds `plangit blame`.
func NewCmdBlame(f *Factory) *cobra.Command {
	var withCode bool
	c := &cobra.Command{
		Use:   "blame [--code FILE]",
		Short: "For every step, the revision, time and actor that last changed it, and what changed",
		Long: `blame lists, for every step, the revision that last changed it: when, by whom, and what
changed.

blame --code FILE reads a file of the project instead: for each line of it as the newest code
snapshot holds it, the revision whose snapshot first held the line so and the step whose work
that was (the steps in progress then, else the step whose status the revision changed). Lines
unchanged since the session's first snapshot are marked as its. FILE is a path in the project,
from the current directory or the work tree's top.`,
		Example: `  plangit blame
  plangit blame --code src/cache.go
  plangit blame --code README.md --json`,
		Args: rangeArgs(0, 1, "FILE, with --code"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if withCode {
				if len(args) == 0 {
					return usagef("blame --code needs a FILE of the project: plangit blame --code src/main.go")
				}
				return codeBlameRun(f, args[0])
			}
			if len(args) > 0 {
				return usagef("blame takes no arguments; blame --code FILE reads a file of the project")
			}
			return blameRun(f, "")
		},
	}
	c.Flags().BoolVar(&withCode, "code", false, "for each line of FILE, the revision and step that last changed it")
	return c
}

// blameRun prints, for every step (or the one step given), the revision
// and actor that last changed it.
func blameRun(f *Factory, step string) error {
	s, err := f.Session()
	if err != nil {
		return err
	}
	lines, err := history.Blame(s)
	if err != nil {
		return err
	}
	if step != "" {
		st, err := s.State()
		if err != nil {
			return err
		}
		x, _, err := st.Plan.Step(step)
		if err != nil {
			return err
		}
		lines = slices.DeleteFunc(lines, func(l history.BlameLine) bool { return l.Step != x.ID })
	}
	return f.print(map[string]any{"steps": lines}, func(w io.Writer) { render.Blame(w, lines, f.Style()) })
}

// NewCmdRollback builds `plangit rollback`.
func NewCmdRollback(f *Factory) *cobra.Command {
	var withCode bool
	c := withClaimForce(f, &cobra.Command{
		Use:   "rollback REV [--code [--force]]",
		Short: "Make a new revision whose files equal REV's (history is kept; undo reverses it)",
		Long: `Make a new revision whose files equal REV's (history is kept; undo reverses it).

With --code the project's work tree is brought back to REV's code snapshot too:
every file the snapshots hold becomes REV's (files recorded by size only are left
as they are). The work tree as it stands is snapshotted first, so undo puts it back;
changes in it that no snapshot holds yet are refused unless --force.`,
		Example: `  plangit rollback @3
  plangit rollback HEAD~4
  plangit rollback @3 --code`,
		Args: exactArgs(1, "a revision"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if withCode {
				return rollbackCodeRun(f, args[0])
			}
			return rollbackRun(f, args[0])
		},
	})
	c.Flags().BoolVar(&withCode, "code", false, "bring the project's work tree back to REV's code snapshot too")
	c.Flags().Lookup("force").Usage = "even though another agent holds a step it changes; with --code, even though the work tree has changes no snapshot holds (they are snapshotted first)"
	return c
}

// NewCmdUndo builds `plangit undo`.
func NewCmdUndo(f *Factory) *cobra.Command {
	return withClaimForce(f, &cobra.Command{
		Use:   "undo",
		Short: "Roll back the most recent revision (as a new revision)",
		Long: `Roll back the most recent revision (as a new revision). When that revision wrote
the project's files (step revert --code, rollback --code, or an undo of one), they are
put back too, by the same three-way merge: later edits in other lines stay.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return rollbackRun(f, "")
		},
	})
}

func newCmdStepRevert(f *Factory) *cobra.Command {
	var withCode bool
	c := withClaimForce(f, &cobra.Command{
		Use:   "revert ID [--code]",
		Short: "Undo the latest status change of a step (a mistaken completion); later changes to other steps stay",
		Long: `Undo the latest status change of a step (a mistaken completion); later changes to
other steps stay.

With --code the step's work is taken out of the project's work tree as well: what the
step changed between the code snapshots of its latest run is merged out, three-way as
git revert does, so that later work in other lines stays. Where later work changed the
same lines, nothing at all is changed and the files and lines are listed (CONFLICT).
The work tree is snapshotted before the write; plangit undo puts the work back.`,
		Example: `  plangit step revert 3
  plangit step revert 3 --code`,
		Args: stepArgs(1, "a step ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if withCode {
				return stepRevertCodeRun(f, args[0])
			}
			return stepRevertRun(f, args[0])
		},
	})
	c.Flags().BoolVar(&withCode, "code", false, "take the step's work out of the project's files too")
	return c
}

// withClaimForce gives c --force: its change may change steps another
// agent holds a live claim on (repo.Options.Force).
func withClaimForce(f *Factory, c *cobra.Command) *cobra.Command {
	c.Flags().BoolVar(&f.Force, "force", false, "even though another agent holds a step it changes")
	return c
}

// rollbackRun makes a new revision whose files equal rev's, or with no
// rev rolls back the last revision (undo), with the project's files it
// wrote.
func rollbackRun(f *Factory, rev string) error {
	s, err := f.Session()
	if err != nil {
		return err
	}
	if rev == "" {
		res, w, err := history.UndoCode(s, f.Options())
		if err != nil {
			return err
		}
		if w.Before == "" && len(w.Kept) == 0 {
			w = nil // it wrote none of the project's files
		}
		return f.printCodeChange(s, res, w)
	}
	res, err := history.Rollback(s, rev, f.Options())
	if err != nil {
		return err
	}
	return f.printChange(s, res, nil)
}

// rollbackCodeRun is rollback --code.
func rollbackCodeRun(f *Factory, rev string) error {
	s, err := f.Session()
	if err != nil {
		return err
	}
	res, w, err := history.RollbackCode(s, rev, f.Force, f.Options())
	if err != nil {
		return err
	}
	return f.printCodeChange(s, res, w)
}

// stepRevertRun undoes the latest status change of one step.
func stepRevertRun(f *Factory, id string) error {
	s, err := f.Session()
	if err != nil {
		return err
	}
	res, err := history.RevertStep(s, id, f.Options())
	if err != nil {
		return err
	}
	return f.printChange(s, res, nil)
}

// stepRevertCodeRun is step revert --code.
func stepRevertCodeRun(f *Factory, id string) error {
	s, err := f.Session()
	if err != nil {
		return err
	}
	res, w, err := history.RevertStepCode(s, id, f.Options())
	if err != nil {
		return err
	}
	return f.printCodeChange(s, res, w)
}

// printCodeChange prints a change and what it wrote to the project's
// files: under "code" in JSON, a line a file for a person.
func (f *Factory) printCodeChange(s *repo.Session, res *repo.Result, w *history.CodeWrite) error {
	d := f.changeData(s, res)
	data := struct {
		changeData
		Code *history.CodeWrite `json:"code,omitempty"`
	}{d, w}
	return f.print(data, func(out io.Writer) {
		f.printChangeText(out, d, res, nil)
		if w == nil {
			return
		}
		for _, x := range w.Files {
			fmt.Fprintf(out, "  %s %s\n", x.Action, x.Path)
		}
		for _, k := range w.Kept {
			fmt.Fprintf(out, "  left %s: %s\n", k.Path, k.Why)
		}
	})
}

// NewCmdTimeline builds `plangit timeline`.
func NewCmdTimeline(f *Factory) *cobra.Command {
	var chart, noChart bool
	c := &cobra.Command{
		Use:   "timeline",
		Short: "When each step started and finished, and how long it took, from history",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.Session()
			if err != nil {
				return err
			}
			spans, err := history.Timeline(s)
			if err != nil {
				return err
			}
			draw := (f.IO.OutTTY || chart) && !noChart
			style := f.Style()
			if need := render.TimelineChartColumns(); chart && !f.JSON && style.Width > 0 && style.Width < need {
				fmt.Fprintf(f.IO.ErrOut, "plangit: no chart: it needs a terminal %d columns wide, and this one has %d\n", need, style.Width)
			}
			return f.print(map[string]any{"steps": spans}, func(w io.Writer) { render.Timeline(w, spans, f.Now(), draw, style) })
		},
	}
	c.Flags().BoolVar(&chart, "chart", false, "draw bars even when not on a terminal")
	c.Flags().BoolVar(&noChart, "no-chart", false, "no bars, even on a terminal")
	return c
}

// NewCmdAgents builds `plangit agents`.
func NewCmdAgents(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "agents",
		Short: "Each agent of the session: its last change, revisions, steps done and claims held",
		Long: `agents lists every agent the session's history names (each change's Plangit-Agent
trailer: --agent, $PLANGIT_AGENT or its host's name for the session) or that holds a
claim in the plan, the most recently active first: how long since its last change and
which revision that was, how many revisions name it, the steps it completed (the plan's
completed steps whose completion it made) and the claims it holds, live with the lease
left, or expired. --json adds each agent's runs of steps: from the revision that started
or claimed a step for it to the one that finished it or handed it to another agent.`,
		Example: `  plangit agents
  plangit agents --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return agentsRun(f)
		},
	}
}

// agentsRun lists the session's agents.
func agentsRun(f *Factory) error {
	s, err := f.Session()
	if err != nil {
		return err
	}
	now := f.Now()
	agents, err := history.Agents(s, now)
	if err != nil {
		return err
	}
	return f.print(map[string]any{"session": s.ID, "agents": agents}, func(w io.Writer) { render.Agents(w, s.ID, agents, now) })
}

// NewCmdGC builds `plangit gc`.
func NewCmdGC(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "gc",
		Short: "Pack every object of the session into one pack",
		Long: `plangit packs loose objects automatically every 64 revisions (merging small packs as it goes);
gc packs everything into a single pack now. A pack is verified before anything it replaces is
removed, so a pack that fails to finish loses nothing.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.Session()
			if err != nil {
				return err
			}
			rep, err := s.GC(f.Options())
			if err != nil {
				return err
			}
			return f.print(rep, func(w io.Writer) {
				fmt.Fprintf(w, "packed %s (%d loose, %s before; %s after): %s → %s\n", render.Count(rep.Packed, "object"),
					rep.LooseBefore, render.Count(rep.PacksBefore, "pack"), render.Count(rep.PacksAfter, "pack"), render.Bytes(rep.BytesBefore), render.Bytes(rep.BytesAfter))
			})
		},
	}
}

// NewCmdGraph builds `plangit graph`.
func NewCmdGraph(f *Factory) *cobra.Command {
	var format, rev string
	c := &cobra.Command{
		Use:   "graph",
		Short: "Print the step dependency graph, phases as clusters (Mermaid or Graphviz DOT)",
		Long: `graph prints the plan's dependency graph: a node per step, coloured by status, phases as
clusters, an arrow from each step to the steps that need it. Mermaid renders on GitHub (in a
` + "```mermaid" + ` block); DOT renders with Graphviz: plangit graph --format dot | dot -Tsvg > plan.svg`,
		Example: `  plangit graph
  plangit graph --format dot --rev @5 | dot -Tpng > plan.png`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := f.Session()
			if err != nil {
				return err
			}
			var st *plan.State
			if rev != "" {
				st, _, err = s.StateAt(rev)
			} else {
				st, err = s.State()
			}
			if err == nil {
				err = f.applyRules(s, st)
			}
			if err != nil {
				return err
			}
			var b strings.Builder
			if format == "dot" {
				render.DOT(&b, st.Plan)
			} else {
				render.Mermaid(&b, st.Plan)
			}
			// A graph is a document for other tools: written whole, never
			// fitted to a terminal (its labels are cleaned already).
			return f.print(map[string]any{"format": format, "graph": b.String()}, func(io.Writer) { io.WriteString(f.IO.Out, render.Clean(b.String())) })
		},
	}
	c.Flags().StringVar(&format, "format", "mermaid", "mermaid or dot")
	c.Flags().StringVar(&rev, "rev", "", "the plan as it was at this revision")
	return c
}
