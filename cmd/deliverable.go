package cmd

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/plan"
)

// NewCmdDeliverable builds `plangit deliverable`.
func NewCmdDeliverable(f *Factory) *cobra.Command {
	var clear bool
	c := &cobra.Command{
		Use:   "deliverable [TEXT|-]",
		Short: "Record the work's final result in deliverable.md, or show it",
		Long: `deliverable records the session's deliverable — the final result of the work, as a
markdown document — in deliverable.md, committed like every change: from TEXT, or from
standard input with -. With no argument it prints the deliverable; --clear removes it.

show, status, --json and the reports show it; diff says when it changed.`,
		Example: `  plangit deliverable "GetUser is cached; p99 down from 40ms to 3ms"
  plangit deliverable - < report.md
  plangit deliverable`,
		Args: rangeArgs(0, 1, "at most the TEXT, or - for standard input"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if clear && len(args) > 0 {
				return usagef("--clear removes the deliverable; give no TEXT with it")
			}
			if !clear && len(args) == 0 {
				return deliverableShow(f)
			}
			var text []byte
			if len(args) == 1 {
				text = []byte(args[0])
				if args[0] == "-" {
					var err error
					if text, err = f.readInput("-"); err != nil {
						return err
					}
				}
				if len(bytes.TrimSpace(text)) == 0 {
					return usagef("the deliverable is empty; give its text, or --clear to remove it")
				}
			}
			return deliverableSetRun(f, text)
		},
	}
	c.Flags().BoolVar(&clear, "clear", false, "remove deliverable.md")
	return c
}

func deliverableShow(f *Factory) error {
	s, st, err := f.State()
	if err != nil {
		return err
	}
	d := string(st.Deliverable)
	return f.print(map[string]any{"session": s.ID, "deliverable": d, "bytes": len(d)}, func(w io.Writer) {
		if d == "" {
			fmt.Fprintln(w, "no deliverable yet: plangit deliverable \"...\" (or - to read standard input) records it")
			return
		}
		io.WriteString(w, d)
	})
}

// deliverableSetRun records the deliverable, or removes it when text is nil.
func deliverableSetRun(f *Factory, text []byte) error {
	return f.applyChange(func(st *plan.State) (plan.Change, error) {
		return st.SetDeliverable(text)
	}, nil)
}
