package hooks

import (
	"slices"
	"strings"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
)

// failedSig is the failed steps of p, by id: what the person was last
// told of ("" for none).
func failedSig(p *plan.Plan) string {
	var ids []string
	for _, f := range render.Failures(p) {
		ids = append(ids, f.Step.ID)
	}
	return strings.Join(ids, ",")
}

// noticeFailed is the notice for the person that a step failed — the
// failed steps, those waiting on them, and for a stuck plan the ways out —
// once for each step that failed since they were last told: "" when they
// were told of every one.
func (st *state) noticeFailed(p *plan.Plan, session string) string {
	sig := failedSig(p)
	told := strings.Split(st.Noticed["failed"], ",")
	news := false
	for _, id := range strings.Split(sig, ",") {
		if id != "" && !slices.Contains(told, id) {
			news = true
		}
	}
	if sig != st.Noticed["failed"] {
		if st.Noticed == nil {
			st.Noticed = map[string]string{}
		}
		if sig == "" {
			delete(st.Noticed, "failed")
		} else {
			st.Noticed["failed"] = sig
		}
	}
	if !news {
		return ""
	}
	notice := "plangit: plan " + quoteTitle(p) + ": " + strings.ToLower(render.FailedLine(p)[:1]) + render.FailedLine(p)[1:]
	if render.Stuck(p) {
		notice += "; the plan is stuck — " + render.WaysOut(p, hookwire.CLI(session, false))
	}
	return notice
}

func quoteTitle(p *plan.Plan) string {
	return "\"" + plan.TruncateText(p.Title, 80) + "\""
}

// joinNotices puts notices for the person one to a line.
func joinNotices(notices ...string) string {
	var out []string
	for _, n := range notices {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "\n")
}
