package cmd

import (
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// The readers of the work beside the plan: diff --code, log --code,
// blame --code FILE and the code part of show STEP.

// codeDiffRun prints what a step did to the project (one argument, a
// step id) or what changed between two revisions' snapshots (a revision
// and HEAD, or two revisions): the diff, or with stat its summary.
func codeDiffRun(f *Factory, args []string, stat bool) error {
	s, err := f.Session()
	if err != nil {
		return err
	}
	var d *history.CodeDiff
	if len(args) == 1 && isStepArg(args[0]) {
		d, err = history.StepCode(s, args[0], !stat)
	} else {
		a, b := history.DefaultRange(args)
		d, err = history.RevisionCode(s, a, b, !stat)
	}
	if err != nil {
		return err
	}
	data := map[string]any{"session": s.ID, "diff": d}
	if stat {
		return f.print(data, func(w io.Writer) { render.CodeStat(w, d, f.Style()) })
	}
	return f.print(data, func(w io.Writer) { render.CodeDiff(w, d, f.Style()) })
}

// isStepArg: arg names a step (3, 2.1), not a revision (@3, HEAD~2, a
// hash).
func isStepArg(arg string) bool {
	return !strings.HasPrefix(arg, "@") && !strings.HasPrefix(strings.ToUpper(arg), "HEAD") && plan.CheckStepRef(arg) == nil
}

// logCode is a log revision with its diffstat, for log --code --json.
type logCode struct {
	repo.Revision
	Diffstat *history.CodeStat `json:"diffstat,omitempty"`
}

// codeLogRun is logRun with each revision's diffstat.
func codeLogRun(f *Factory, s *repo.Session, revs []repo.Revision, graph bool) error {
	stats, err := history.CodeStats(s, revs)
	if err != nil {
		return err
	}
	rows := make([]logCode, len(revs))
	for i, r := range revs {
		rows[i] = logCode{Revision: r, Diffstat: stats[r.Hash]}
	}
	return f.print(map[string]any{"session": s.ID, "revisions": rows}, func(w io.Writer) {
		render.LogCode(w, revs, stats, graph, f.Style())
	})
}

// codeBlameRun prints, for each line of file, the revision and step that
// last changed it.
func codeBlameRun(f *Factory, file string) error {
	s, err := f.Session()
	if err != nil {
		return err
	}
	path, err := projectPath(f, s, file)
	if err != nil {
		return err
	}
	b, err := history.BlameCode(s, path)
	if err != nil {
		return err
	}
	return f.print(map[string]any{"session": s.ID, "blame": b}, func(w io.Writer) { render.CodeBlame(w, b, f.Style()) })
}

// projectPath is file as the code snapshots name it: a slash path from
// the top of the project's git work tree. A file given from a directory
// inside the work tree is taken from there; otherwise from the top.
func projectPath(f *Factory, s *repo.Session, file string) (string, error) {
	if strings.TrimSpace(file) == "" {
		return "", usagef("blame --code needs a FILE of the project")
	}
	top := s.Project.Root
	if cs, err := s.Code(); err == nil {
		top = cs.Top()
	}
	abs := file
	if !filepath.IsAbs(file) {
		wd, err := f.Getwd()
		if err != nil {
			return "", err
		}
		abs = filepath.Join(wd, file)
	}
	if rel, err := filepath.Rel(top, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel), nil
	}
	if filepath.IsAbs(file) {
		return "", usagef("%s is outside the project's work tree (%s)", file, top)
	}
	return filepath.ToSlash(filepath.Clean(file)), nil
}

// stepCode is what show STEP says of the step's work: its code diff's
// summary, or why there is none to show. nil, "" when the step has not
// run or the session records no snapshots.
func stepCode(s *repo.Session, id string) (*history.CodeDiff, string) {
	d, err := history.StepCode(s, id, false)
	switch {
	case err == nil:
		return d, ""
	case errors.Is(err, history.ErrCodeMissing):
		msg, hint := plan.Parts(err)
		return nil, msg + "; " + hint
	}
	return nil, ""
}
