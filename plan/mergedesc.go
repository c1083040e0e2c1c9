package plan

import (
	"bytes"
	"fmt"
	"strings"
)

// maxDescribed bounds how many changes DescribeChanges lists.
const maxDescribed = 40

// DescribeChanges lists, one line each, what changed from base to st: what
// a merge says each side brought.
func DescribeChanges(base, st *State) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	pb, p := base.Plan, st.Plan
	for _, f := range [][3]string{{"title", pb.Title, p.Title}, {"goal", pb.Goal, p.Goal}, {"result", pb.Result, p.Result}} {
		if f[1] != f[2] {
			add("%s changed", f[0])
		}
	}
	if pb.Status != p.Status {
		add("plan: %s → %s", pb.Status, p.Status)
	}
	phases := phaseMap(pb)
	for _, ph := range p.Phases {
		switch old := phases[ph.ID]; {
		case old == nil:
			add("phase %s added: %s", ph.ID, Clip(ph.Title))
		case old.Title != ph.Title:
			add("phase %s renamed: %s", ph.ID, Clip(ph.Title))
		case old.Notes != ph.Notes:
			add("phase %s notes changed", ph.ID)
		}
		delete(phases, ph.ID)
	}
	for _, id := range sortedIDs(phases) {
		add("phase %s removed", id)
	}
	for _, d := range DiffSteps(pb, p) {
		switch {
		case d.Kind == StepAdded:
			add("step %s added: %s", d.ID, Clip(d.New.Text))
		case d.Kind == StepRemoved:
			add("step %s removed: %s", d.ID, Clip(d.Old.Text))
		default:
			var fields []string
			for _, f := range d.Fields {
				if f != "started" && f != "completed" && f != "retries" {
					fields = append(fields, f)
				}
			}
			changed := ""
			if len(fields) > 0 {
				changed = strings.Join(fields, ", ") + " changed"
			}
			switch {
			case d.StatusChanged() && changed != "":
				add("step %s: %s → %s; %s", d.ID, d.From, d.To, changed)
			case d.StatusChanged():
				add("step %s: %s → %s", d.ID, d.From, d.To)
			case changed != "":
				add("step %s: %s", d.ID, changed)
			}
		}
	}
	old := findingMap(base.Findings)
	for _, f := range st.Findings {
		switch o := old[f.ID]; {
		case o == nil:
			add("finding %s added (%s): %s", f.ID, f.Category, Clip(f.Title))
		case findingKey(o) != findingKey(f):
			add("finding %s changed: %s", f.ID, Clip(f.Title))
		}
		delete(old, f.ID)
	}
	for _, id := range sortedIDs(old) {
		add("finding %s removed", id)
	}
	errs := errorMap(base.Errors)
	for i := len(st.Errors) - 1; i >= 0; i-- { // oldest first
		e := st.Errors[i]
		switch o := errs[e.ID]; {
		case o == nil:
			add("error #%s added: %s: %s", e.ID, e.Tool, firstLineOf(e.Message))
		case !o.Resolved && e.Resolved:
			add("error #%s resolved", e.ID)
		case o.Count != e.Count:
			add("error #%s seen again: ×%d → ×%d", e.ID, o.Count, e.Count)
		case errorKey(o) != errorKey(e):
			add("error #%s changed", e.ID)
		}
		delete(errs, e.ID)
	}
	for _, id := range sortedIDs(errs) {
		add("error #%s removed", id)
	}
	switch {
	case bytes.Equal(base.Deliverable, st.Deliverable):
	case len(base.Deliverable) == 0:
		add("deliverable set")
	case len(st.Deliverable) == 0:
		add("deliverable removed")
	default:
		add("deliverable changed")
	}
	if len(out) > maxDescribed {
		out = append(out[:maxDescribed-1], fmt.Sprintf("… and %d more", len(out)-maxDescribed+1))
	}
	return out
}
