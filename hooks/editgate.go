package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// The gates hold for the agent's edits of the session's files as for its
// commands: under plan or step confirmation, an Edit, MultiEdit or Write
// of task_plan.md that approves the plan or starts a step is put to the
// person before the tool runs (askEdit), as plangit approve and plangit
// step start are; and the edit is adopted afterwards only with their yes
// (repo's Options.EditBy), else the files go back to the plan's.

// editGated reports whether the tool call writes a file of this session
// while a gate is on: only then is the edit read before it runs.
func (e *engine) editGated() bool {
	return (e.cfg.PlanConfirmation || e.cfg.StepConfirmation) && e.ownFile()
}

// askEdit makes a the question for the edit the tool call makes, where
// what it writes in task_plan.md approves the plan or starts a step
// (plan.Gated against the branch's plan). An edit that cannot be read
// here — one the tool will refuse, a plan that does not parse — gets no
// question: it is not adopted as it stands either way.
func (e *engine) askEdit(s *repo.Session, a *hookwire.Answer) {
	cur, err := s.State()
	if err != nil {
		return
	}
	after := e.editedPlan(s)
	if after == nil {
		return
	}
	what, step := plan.Gated(cur.Plan, after, plan.Gates{Plan: e.cfg.PlanConfirmation, Step: e.cfg.StepConfirmation})
	person := hookwire.CLI(e.in.SessionID, false)
	switch what {
	case "approve":
		a.PermissionReason = "plangit: this edit of " + plan.PlanFile + " approves the plan, which awaits the person's approval (plan_confirmation). Review it (" + person + " show) and allow the edit, or approve it yourself (" + person + " approve)."
	case "start":
		a.PermissionReason = "plangit: this edit of " + plan.PlanFile + " starts step " + step + ", and step confirmation is on: allow it, or start the step yourself (" + person + " step start " + step + ")."
	default:
		return
	}
	a.Permission, a.Asked = "ask", what
}

// editedPlan is the plan task_plan.md holds once the tool call's edit is
// made to the working file; nil when the call does not write that file,
// or what it writes cannot be told or read.
func (e *engine) editedPlan(s *repo.Session) *plan.Plan {
	var in struct {
		FilePath string  `json:"file_path"`
		Content  *string `json:"content"`
		textEdit
		Edits []textEdit `json:"edits"`
	}
	if json.Unmarshal(e.in.ToolInput, &in) != nil || in.FilePath == "" {
		return nil
	}
	path := in.FilePath
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.in.Cwd, path)
	}
	if filepath.Base(path) != plan.PlanFile {
		return nil
	}
	var text string
	switch {
	case in.Content != nil:
		text = *in.Content
	default:
		b, err := os.ReadFile(filepath.Join(s.Dir, plan.PlanFile))
		if err != nil {
			return nil
		}
		text = string(b)
		edits := in.Edits
		if len(edits) == 0 {
			edits = []textEdit{in.textEdit}
		}
		for _, ed := range edits {
			var ok bool
			if text, ok = ed.apply(text); !ok {
				return nil
			}
		}
	}
	p, err := plan.ParsePlan([]byte(text))
	if err != nil {
		return nil
	}
	return p
}

// textEdit is one replacement of an Edit or MultiEdit call.
type textEdit struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// apply makes the replacement as the tool does: old_string must be in the
// text, once unless replace_all; ok is false where the tool would fail.
func (t textEdit) apply(text string) (string, bool) {
	n := strings.Count(text, t.OldString)
	switch {
	case t.OldString == "" || n == 0 || n > 1 && !t.ReplaceAll:
		return "", false
	case t.ReplaceAll:
		return strings.ReplaceAll(text, t.OldString, t.NewString), true
	}
	return strings.Replace(text, t.OldString, t.NewString, 1), true
}
