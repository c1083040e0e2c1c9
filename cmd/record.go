package cmd

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
)

// stepOrCurrent returns the step a finding or error belongs to: the one
// given (which must exist), else the step in progress, else none.
func stepOrCurrent(p *plan.Plan, id string) (string, error) {
	if id != "" {
		s, _, err := p.Step(id)
		if err != nil {
			return "", err
		}
		return s.ID, nil
	}
	if cur := p.Current(); cur != nil {
		return cur.ID, nil
	}
	return "", nil
}

// during says which step a finding or error was attached to: ", during
// step N", and when several are in progress, that --step picks another.
func during(p *plan.Plan, id string) string {
	if id == "" {
		return ""
	}
	n := 0
	for _, s := range p.Steps() {
		if s.Status == plan.StepInProgress {
			n++
		}
	}
	if n > 1 {
		return fmt.Sprintf(", during step %s (%d steps in progress: --step names another)", id, n)
	}
	return ", during step " + id
}

// NewCmdFinding builds `plangit finding`.
func NewCmdFinding(f *Factory) *cobra.Command {
	c := &cobra.Command{Use: "finding", Short: "Record research findings (findings.md)"}
	var fd plan.Finding
	var category string
	add := &cobra.Command{
		Use:   "add --category CATEGORY --title TITLE [CONTENT|-]",
		Short: "Record a finding; CONTENT may be markdown, - reads standard input",
		Example: `  plangit finding add --category insight --title "GetUser dominates" "70% of calls go through GetUser"
  plangit finding add --category dependency --title "Redis client" --source go.mod - < notes.md`,
		Args: rangeArgs(0, 1, "at most the CONTENT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if fd.Title == "" {
				return usagef("give the finding a title: --title \"...\"")
			}
			cat, err := plan.ParseCategory(category)
			if err != nil {
				return asUsage(err)
			}
			fd.Category = cat
			if fd.Step != "" {
				if err := checkStepRefs("step", fd.Step); err != nil {
					return err
				}
			}
			if len(args) == 1 {
				fd.Content = args[0]
				if args[0] == "-" {
					b, err := f.readInput("-")
					if err != nil {
						return err
					}
					fd.Content = string(b)
				}
				// An empty CONTENT given is most likely text that went
				// missing (an empty variable, nothing piped): say so.
				if strings.TrimSpace(fd.Content) == "" {
					return usagef("the finding's CONTENT is empty; give its text, or leave CONTENT out for a finding that is its title alone")
				}
			}
			return findingAddRun(f, fd)
		},
	}
	add.Flags().StringVar(&category, "category", "insight", "code, architecture, dependency, issue or insight")
	add.Flags().StringVar(&fd.Title, "title", "", "a one-line title (required)")
	add.Flags().StringVar(&fd.Source, "source", "", "where it was found: a path, URL or command")
	add.Flags().StringVar(&fd.Step, "step", "", "the step it belongs to (default: the step in progress)")
	rm := &cobra.Command{
		Use:   "rm ID...",
		Short: "Remove findings that were wrong (history keeps them; their ids are not given again)",
		Example: `  plangit finding rm 3
  plangit finding rm 2 5`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("say which findings: plangit finding rm ID... (plangit findings lists their ids)")
			}
			return noteRefs("a finding", args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return findingRmRun(f, args)
		},
	}
	c.AddCommand(add, rm)
	return c
}

// findingRmRun removes findings by id. A finding the session had, and no
// longer has, is removed already: the command says so.
func findingRmRun(f *Factory, ids []string) error {
	var already []string
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		already = nil
		var left []string
		for _, id := range ids {
			if n := strings.TrimPrefix(strings.TrimSpace(id), "#"); !slices.ContainsFunc(st.Findings, func(x *plan.Finding) bool { return x.ID == n }) && issuedID(n, st.Plan.Floor.Findings) {
				already = append(already, n)
			} else {
				left = append(left, id)
			}
		}
		if len(left) == 0 {
			return plan.Change{}, nil
		}
		return st.RemoveFindings(left)
	}, func(w io.Writer, _ *plan.State) {
		switch len(already) {
		case 0:
		case 1:
			fmt.Fprintf(w, "finding %s is removed already\n", already[0])
		default:
			fmt.Fprintf(w, "findings %s are removed already\n", strings.Join(already, ", "))
		}
	})
}

// issuedID reports whether id is one the session's history issued: a
// number at most floor (plan.Plan.Floor).
func issuedID(id string, floor int) bool {
	n, err := strconv.Atoi(id)
	return err == nil && n >= 1 && n <= floor
}

// findingAddRun records a finding, for the step in progress unless it
// names one.
func findingAddRun(f *Factory, fd plan.Finding) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		in := fd
		var err error
		if in.Step, err = stepOrCurrent(st.Plan, in.Step); err != nil {
			return plan.Change{}, err
		}
		added, err := st.AddFinding(in, f.Now())
		if err != nil {
			return plan.Change{}, err
		}
		return plan.Change{Op: "finding.add", Step: added.Step, Summary: fmt.Sprintf("finding %s: %s (%s)%s", added.ID, clipText(added.Title), added.Category, during(st.Plan, added.Step))}, nil
	}, nil)
}

// NewCmdFindings builds `plangit findings`.
func NewCmdFindings(f *Factory) *cobra.Command {
	var category string
	c := &cobra.Command{
		Use:   "findings",
		Short: "List findings by category",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var cat plan.Category
			if category != "" {
				var err error
				if cat, err = plan.ParseCategory(category); err != nil {
					return asUsage(err)
				}
			}
			return findingsRun(f, cat)
		},
	}
	c.Flags().StringVar(&category, "category", "", "only this category")
	return c
}

// findingsRun lists the findings, of one category unless cat is empty.
func findingsRun(f *Factory, cat plan.Category) error {
	_, st, err := f.State()
	if err != nil {
		return err
	}
	fs := st.Findings
	if cat != "" {
		fs = fs.ByCategory(cat)
	}
	if fs == nil {
		fs = plan.Findings{}
	}
	return f.print(map[string]any{"findings": fs}, func(w io.Writer) { render.Findings(w, fs) })
}

// NewCmdError builds `plangit error`.
func NewCmdError(f *Factory) *cobra.Command {
	c := &cobra.Command{Use: "error", Short: "Log errors (errors.md)"}
	var rec plan.ErrorRecord
	add := &cobra.Command{
		Use:   "add --tool TOOL MESSAGE",
		Short: "Log an error; the same tool and message (digits aside) counts up",
		Example: `  plangit error add --tool Bash "go test ./...: exit status 1"
  plangit error add --tool Edit --step 4 "old_string not found in service.go"`,
		Args: exactArgs(1, "the error MESSAGE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if rec.Tool == "" {
				return usagef("name the tool that failed: --tool Bash")
			}
			if rec.Step != "" {
				if err := checkStepRefs("step", rec.Step); err != nil {
					return err
				}
			}
			in := rec
			in.Message = args[0]
			return errorAddRun(f, in)
		},
	}
	add.Flags().StringVar(&rec.Tool, "tool", "", "the tool that failed (required)")
	add.Flags().StringVar(&rec.Step, "step", "", "the step it belongs to (default: the step in progress)")
	add.Flags().StringVar(&rec.Params, "params", "", "the tool's parameters, for the record")
	add.Flags().StringVar(&rec.Key, "key", "", "what the tool acted on (for Bash, the command); the same tool succeeding on it resolves the error")
	c.AddCommand(add, newCmdErrorResolve(f, "resolve"), newCmdErrorResolve(f, "clear"))
	return c
}

// errorAddRun logs an error, for the step in progress unless it names one.
func errorAddRun(f *Factory, rec plan.ErrorRecord) error {
	if err := plan.CheckErrorSizes(rec); err != nil {
		return err
	}
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		in := rec
		var err error
		if in.Step, err = stepOrCurrent(st.Plan, in.Step); err != nil {
			return plan.Change{}, err
		}
		r, err := st.RecordError(in, f.Now())
		if err != nil {
			return plan.Change{}, err
		}
		return plan.Change{Op: "error.add", Step: r.Step, Summary: fmt.Sprintf("error #%s: %s ×%d (%s)%s", r.ID, r.Tool, r.Count, clipText(firstLine(r.Message)), during(st.Plan, r.Step))}, nil
	}, nil)
}

// newCmdErrorResolve builds `plangit error resolve` and `plangit error
// clear`: the same change, but clear with no id resolves every open error.
func newCmdErrorResolve(f *Factory, name string) *cobra.Command {
	var note string
	c := &cobra.Command{
		Use:   name + " ID...",
		Short: "Mark errors resolved: they stay in errors.md and history, and are no longer brought up",
		Long: `Resolved errors stay in errors.md (marked resolved, with when and how) and in history,
but reminders no longer bring them up and the three-strike rule no longer counts them. An
error that comes back after it was resolved starts a new record.`,
		Example: `  plangit error resolve 3 --note "go.sum was stale"
  plangit error clear`,
		Args: func(cmd *cobra.Command, args []string) error {
			if name == "resolve" && len(args) == 0 {
				return usagef("say which errors: plangit error resolve ID... (plangit errors lists their ids; plangit error clear resolves them all)")
			}
			return noteRefs("an error", args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return errorResolveRun(f, args, note)
		},
	}
	if name == "clear" {
		c.Use, c.Short = "clear [ID...]", "Mark errors resolved, every open one when no ID is given"
	}
	c.Flags().StringVar(&note, "note", "", "how it was resolved")
	return c
}

// errorResolveRun marks errors resolved, every open one when ids is empty.
func errorResolveRun(f *Factory, ids []string, note string) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		return st.ResolveErrors(ids, note, f.Now())
	}, nil)
}

// noteRefs refuses malformed finding or error ids: a usage error.
func noteRefs(kind string, ids []string) error {
	if err := checkNoteRefs(kind, ids); err != nil {
		return asUsage(err)
	}
	return nil
}

// checkNoteRefs refuses malformed finding or error ids (kind says which)
// before a plan is read: INVALID_ARGUMENT.
func checkNoteRefs(kind string, ids []string) error {
	for _, id := range ids {
		if err := plan.CheckNoteRef(kind, id); err != nil {
			return err
		}
	}
	return nil
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

// NewCmdErrors builds `plangit errors`.
func NewCmdErrors(f *Factory) *cobra.Command {
	var tool string
	var open bool
	c := &cobra.Command{
		Use:   "errors",
		Short: "List logged errors, newest first, with ids, counts and whether they are resolved",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return errorsRun(f, tool, open)
		},
	}
	c.Flags().StringVar(&tool, "tool", "", "only this tool's errors")
	c.Flags().BoolVar(&open, "open", false, "only errors not resolved")
	return c
}

// errorsRun lists the logged errors, of one tool unless tool is empty,
// only the open ones with open.
func errorsRun(f *Factory, tool string, open bool) error {
	_, st, err := f.State()
	if err != nil {
		return err
	}
	l := st.Errors
	empty := "no errors logged"
	if tool != "" {
		l = l.ForTool(tool)
		empty += " for " + tool
	}
	if open {
		all := len(l)
		l = l.Open()
		empty = "no open errors"
		if tool != "" {
			empty += " for " + tool
		}
		if all > 0 {
			empty += fmt.Sprintf(" (%d resolved: plangit errors lists them)", all)
		}
	}
	if l == nil {
		l = plan.ErrorLog{}
	}
	return f.print(map[string]any{"errors": l}, func(w io.Writer) { render.Errors(w, l, empty) })
}
