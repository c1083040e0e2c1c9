package cmd

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// NewCmdReport builds `plangit report`.
func NewCmdReport(f *Factory) *cobra.Command {
	var htmlFile, out, rev string
	var markdown bool
	c := &cobra.Command{
		Use:   "report",
		Short: "Write the plan and its whole history as one HTML page (--html) or as markdown (--md)",
		Long: `report writes everything about a session in one document: the plan as it stands, its
dependency graph, progress over time, every revision with its semantic diff (and its text
diff, folded), the findings by category and the error log. In a git project, each step
that ran carries its code diff (what diff --code STEP prints), folded under the step; a
report of an older revision (--rev) leaves them out.

--html FILE writes one self-contained page: inline CSS and SVG, no script, nothing fetched
from the network, so it opens offline and can be attached anywhere. Revisions past the
newest 50 are folded.
--md writes GitHub-flavoured markdown for a pull request, to stdout or --out FILE: the graph
and the chart are Mermaid blocks, the newest 50 revisions carry their text diffs folded.`,
		Example: `  plangit report --html plan.html
  plangit report --md > plan.md
  plangit report --md --rev @12 --session build-cache --out review.md`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if htmlFile == "" && !markdown {
				return usagef("say which report: --html FILE or --md")
			}
			if htmlFile != "" && markdown {
				return usagef("--html and --md are alternatives; give one")
			}
			if out != "" && !markdown {
				return usagef("--out goes with --md; --html takes its file itself")
			}
			s, err := f.Session()
			if err != nil {
				return err
			}
			r, err := history.Collect(s, rev, f.Now())
			if err == nil {
				err = f.applyRules(s, r.State)
			}
			if err == nil {
				err = r.AddCode(s)
			}
			if err != nil {
				return err
			}
			var b bytes.Buffer
			format, file := "html", htmlFile
			if markdown {
				render.MarkdownReport(&b, r)
				format, file = "markdown", out
			} else {
				render.HTMLReport(&b, r)
			}
			data := map[string]any{"session": s.ID, "rev": r.Rev, "format": format, "revisions": len(r.Revisions), "bytes": b.Len()}
			if file == "" || file == "-" {
				if f.JSON {
					data["report"] = b.String()
					return f.print(data, nil)
				}
				// Printed: shown, not sent, as every view is (the HTML
				// escapes its text so already).
				_, err := io.WriteString(f.IO.Out, render.Clean(b.String()))
				return err
			}
			if !filepath.IsAbs(file) {
				wd, err := f.Getwd()
				if err != nil {
					return err
				}
				file = filepath.Join(wd, file)
			}
			if err := repo.WriteDocument(file, b.Bytes()); err != nil {
				return err
			}
			data["file"] = file
			return f.print(data, func(w io.Writer) {
				fmt.Fprintf(w, "wrote %s (%s, %s, revisions @1..@%d)\n", file, format, render.Bytes(int64(b.Len())), r.Rev.N)
			})
		},
	}
	c.Flags().StringVar(&htmlFile, "html", "", "write the HTML report to `FILE` (- for stdout)")
	c.Flags().BoolVar(&markdown, "md", false, "write the report as markdown")
	c.Flags().StringVar(&out, "out", "", "with --md, write to `FILE` instead of stdout")
	c.Flags().StringVar(&rev, "rev", "", "the session as it was at this revision")
	return c
}
