package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/interop"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// NewCmdExport builds `plangit export`.
func NewCmdExport(f *Factory) *cobra.Command {
	var format, out, rev string
	c := &cobra.Command{
		Use:   "export --format FORMAT [--out DIR]",
		Short: "Write the plan in another tool's own file shape (maxclaw, plan tool, PlanManager, Plan-and-Execute, Manus, spec-kit, OpenSpec)",
		Long: `export writes the session's plan as the system a seed format comes from writes it, so a
front end or a reader written for that system reads it, and plangit import reads it back:

  maxclaw       plan.json {id, goal, status, steps, current_step_index, iteration_count}
  plan-tool     plan.json {task_description, steps:[{step, action, status, result}], total_steps, ...}
  plan-manager  plan.json {meta, state, tasks:[{id, name, status, dependencies, reasoning, result}]},
                state.progress the fraction of the tasks done (planmanager is the same)
  plan-execute  plan.json, the Plan-and-Execute plan {state, tasks:[{id, description, state, result}]}
  manus         task_plan.md in the Manus layout, with findings.md and errors.md when the
                session has findings or errors
  spec-kit      tasks.md: ## Phase N: Title, - [X] T001 [P] [US1] text, as /speckit.implement reads it
  openspec      tasks.md: ## N. Group, - [x] 1.1 text, nested by the task id's depth

Without --out the plan's file goes to stdout (for manus, task_plan.md alone). --out DIR writes
every file of the format into DIR, made if missing; DIR cannot be in .code-agent/, plangit's own.
What a format has no field for is not written; import → export → import changes nothing.`,
		Example: `  plangit export --format plan-tool > plan.json
  plangit export --format manus --out exported/
  plangit export --format planmanager --rev @3 --json`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return exportRun(f, format, out, rev)
		},
	}
	c.Flags().StringVar(&format, "format", "", "the file shape: "+strings.Join(interop.ExportFormats, ", "))
	c.Flags().StringVar(&out, "out", "", "write the format's files into `DIR` instead of stdout")
	c.Flags().StringVar(&rev, "rev", "", "the session as it was at this revision (a hash, HEAD~N or @N)")
	return c
}

func exportRun(f *Factory, format, out, rev string) error {
	if format == "" {
		return plan.Errorf(plan.CodeInvalidArgument, "say which shape to write: --format %s", strings.Join(interop.ExportFormats, "|"))
	}
	format, err := interop.ExportFormat(format)
	if err != nil {
		return err
	}
	s, err := f.Session()
	if err != nil {
		return err
	}
	var st *plan.State
	if rev == "" {
		_, st, err = f.State()
	} else if st, _, err = s.StateAt(rev); err == nil {
		err = f.applyRules(s, st)
	}
	if err != nil {
		return err
	}
	files, err := interop.Export(st, format)
	if err != nil {
		return err
	}
	if out == "" || out == "-" {
		if f.JSON {
			list := make([]map[string]any, len(files))
			for i, file := range files {
				list[i] = map[string]any{"name": file.Name, "content": string(file.Data)}
			}
			return f.print(map[string]any{"session": s.ID, "format": format, "files": list}, nil)
		}
		if len(files) > 1 {
			fmt.Fprintf(f.IO.ErrOut, "plangit: %s alone to stdout; --out DIR writes %s too\n", files[0].Name, strings.Join(fileNames(files[1:]), " and "))
		}
		_, err := f.IO.Out.Write(files[0].Data)
		return err
	}
	dir := out
	if !filepath.IsAbs(dir) {
		wd, err := f.Getwd()
		if err != nil {
			return err
		}
		dir = filepath.Join(wd, dir)
	}
	if inside(dir, s.Project.Dir()) {
		return plan.Errorf(plan.CodeInvalidArgument, "--out %s is inside %s, whose files plangit keeps", out, repo.DirName).Hinted("write the export somewhere else: --out DIR")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot make %s", dir)
	}
	list := make([]map[string]any, len(files))
	for i, file := range files {
		path := filepath.Join(dir, file.Name)
		if err := repo.WriteDocument(path, file.Data); err != nil {
			return err
		}
		list[i] = map[string]any{"name": file.Name, "path": path, "bytes": len(file.Data)}
	}
	return f.print(map[string]any{"session": s.ID, "format": format, "dir": dir, "files": list}, func(w io.Writer) {
		for _, file := range files {
			fmt.Fprintf(w, "wrote %s (%s, %s)\n", filepath.Join(f.shownPath(dir), file.Name), format, render.Bytes(int64(len(file.Data))))
		}
	})
}

// fileNames lists the files' names.
func fileNames(files []interop.File) []string {
	out := make([]string, len(files))
	for i, file := range files {
		out[i] = file.Name
	}
	return out
}

// inside reports whether path is dir or below it.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
