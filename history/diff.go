package history

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// Endpoint names one side of a diff.
type Endpoint struct {
	Rev string `json:"rev"`
	N   int    `json:"n"`
}

// Change is one difference between two states, in words and as data.
type Change struct {
	Kind   string `json:"kind"`             // plan, phase, step, finding, error
	ID     string `json:"id,omitempty"`     // the phase, step, finding or error id (an error's tool in files without ids)
	Action string `json:"action"`           // added, removed, changed, renamed, moved, status, counted, resolved, reopened, resolution
	From   string `json:"from,omitempty"`   // the old value, where one applies
	To     string `json:"to,omitempty"`     // the new value
	Detail string `json:"detail,omitempty"` // what a person reads
}

// Diff is the semantic difference between two revisions.
type Diff struct {
	From    Endpoint `json:"from"`
	To      Endpoint `json:"to"`
	Changes []Change `json:"changes"`
}

// SemanticDiff compares two states: the plan's title, goal, status and
// result; phases added, removed, renamed, their notes; steps added,
// removed, renamed, moved between phases, their status, needs, result and
// progress; findings added or changed; errors added, removed, counted up,
// changed, resolved, reopened or given another resolution; the
// deliverable set, changed or removed.
func SemanticDiff(a, b *plan.State) []Change {
	var out []Change
	add := func(c Change) { out = append(out, c) }
	pa, pb := a.Plan, b.Plan

	for _, f := range []struct{ name, from, to string }{
		{"title", pa.Title, pb.Title}, {"goal", pa.Goal, pb.Goal}, {"status", string(pa.Status), string(pb.Status)},
		{"result", pa.Result, pb.Result}, {"reason", pa.Reason, pb.Reason},
	} {
		if f.from != f.to {
			c := Change{Kind: "plan", Action: "changed", From: f.from, To: f.to, Detail: f.name + " " + arrow(f.from, f.to)}
			if f.name == "status" {
				c.Action = "status"
			}
			add(c)
		}
	}

	out = append(out, conflictChanges("plan", "", "", pa.Conflicts, pb.Conflicts)...)

	phasesA, phasesB := phaseMap(pa), phaseMap(pb)
	for _, ph := range pb.Phases {
		old, ok := phasesA[ph.ID]
		if !ok {
			add(Change{Kind: "phase", ID: ph.ID, Action: "added", To: ph.Title, Detail: fmt.Sprintf("phase %s added: %s", ph.ID, ph.Title)})
			continue
		}
		if old.Title != ph.Title {
			add(Change{Kind: "phase", ID: ph.ID, Action: "renamed", From: old.Title, To: ph.Title, Detail: fmt.Sprintf("phase %s renamed %s", ph.ID, arrow(old.Title, ph.Title))})
		}
		if old.Notes != ph.Notes {
			add(Change{Kind: "phase", ID: ph.ID, Action: "changed", From: old.Notes, To: ph.Notes, Detail: fmt.Sprintf("phase %s notes %s", ph.ID, setOrChanged(old.Notes, ph.Notes))})
		}
	}
	for _, ph := range pa.Phases {
		if _, ok := phasesB[ph.ID]; !ok {
			add(Change{Kind: "phase", ID: ph.ID, Action: "removed", From: ph.Title, Detail: fmt.Sprintf("phase %s removed: %s", ph.ID, ph.Title)})
		}
	}

	for _, d := range plan.DiffSteps(pa, pb) {
		out = append(out, stepChanges(d)...)
	}
	out = append(out, findingChanges(a.Findings, b.Findings)...)
	out = append(out, errorChanges(a.Errors, b.Errors)...)
	if c, ok := deliverableChange(a.Deliverable, b.Deliverable); ok {
		out = append(out, c)
	}
	return out
}

// deliverableChange says how deliverable.md changed: set, changed (with
// the lines added and removed) or removed.
func deliverableChange(a, b []byte) (Change, bool) {
	if bytes.Equal(a, b) {
		return Change{}, false
	}
	lines := func(d []byte) string {
		if n := strings.Count(strings.TrimRight(string(d), "\n"), "\n") + 1; n != 1 {
			return fmt.Sprintf("%d lines", n)
		}
		return "1 line"
	}
	summary := func(d []byte) string {
		first, _, _ := strings.Cut(strings.TrimSpace(string(d)), "\n")
		return strings.TrimSpace(strings.TrimLeft(first, "# "))
	}
	switch {
	case len(a) == 0:
		return Change{Kind: "deliverable", Action: "added", To: summary(b),
			Detail: fmt.Sprintf("deliverable set (%s): %s", lines(b), summary(b))}, true
	case len(b) == 0:
		return Change{Kind: "deliverable", Action: "removed", From: summary(a), Detail: "deliverable removed"}, true
	}
	added, removed := lineDelta(string(a), string(b))
	return Change{Kind: "deliverable", Action: "changed", From: summary(a), To: summary(b),
		Detail: fmt.Sprintf("deliverable changed (+%d −%d lines): %s", added, removed, summary(b))}, true
}

// stepChanges describes one step's delta as one change per kind of
// difference.
func stepChanges(d plan.StepDelta) []Change {
	id := d.ID
	switch d.Kind {
	case plan.StepAdded:
		return []Change{{Kind: "step", ID: id, Action: "added", To: d.New.Text,
			Detail: fmt.Sprintf("step %s added to phase %s: %s (%s)", id, d.NewPhase, d.New.Text, d.New.Status)}}
	case plan.StepRemoved:
		return []Change{{Kind: "step", ID: id, Action: "removed", From: d.Old.Text,
			Detail: fmt.Sprintf("step %s removed: %s", id, d.Old.Text)}}
	}
	var out []Change
	if d.StatusChanged() {
		out = append(out, Change{Kind: "step", ID: id, Action: "status", From: string(d.From), To: string(d.To),
			Detail: fmt.Sprintf("step %s: %s", id, arrow(string(d.From), string(d.To)))})
	}
	for _, f := range d.Fields {
		c := Change{Kind: "step", ID: id, Action: "changed"}
		switch f {
		case "text":
			c.Action, c.From, c.To = "renamed", d.Old.Text, d.New.Text
			c.Detail = fmt.Sprintf("step %s renamed %s", id, arrow(d.Old.Text, d.New.Text))
		case "phase":
			c.Action, c.From, c.To = "moved", d.OldPhase, d.NewPhase
			c.Detail = fmt.Sprintf("step %s moved from phase %s to phase %s", id, d.OldPhase, d.NewPhase)
		case "needs":
			c.From, c.To = strings.Join(d.Old.Needs, ","), strings.Join(d.New.Needs, ",")
			c.Detail = fmt.Sprintf("step %s needs %s", id, arrow(orNone(c.From), orNone(c.To)))
		case "result":
			c.From, c.To = d.Old.Result, d.New.Result
			c.Detail = fmt.Sprintf("step %s result %s", id, setOrChanged(d.Old.Result, d.New.Result))
		case "progress":
			c.From, c.To = progress(d.Old.Progress), progress(d.New.Progress)
			c.Detail = fmt.Sprintf("step %s progress %s", id, arrow(orNone(c.From), orNone(c.To)))
		case "started", "completed", "retries":
			continue // they come with a status change, which says it
		case "conflicts":
			out = append(out, conflictChanges("step", id, "step "+id+" ", d.Old.Conflicts, d.New.Conflicts)...)
			continue
		case "claim":
			c.From, c.To = claimText(d.Old.Claim), claimText(d.New.Claim)
			c.Detail = "step " + id + " " + claimChange(d.Old.Claim, d.New.Claim)
		default:
			c.From, c.To = fieldValue(d.Old, f), fieldValue(d.New, f)
			c.Detail = fmt.Sprintf("step %s %s %s", id, f, setOrChanged(c.From, c.To))
		}
		c.Kind = "step"
		out = append(out, c)
	}
	if len(out) == 0 {
		// Only times or retries changed.
		out = append(out, Change{Kind: "step", ID: id, Action: "changed", Detail: fmt.Sprintf("step %s %s changed", id, strings.Join(d.Fields, ", "))})
	}
	return out
}

// conflictChanges says which merge conflicts a change recorded and which
// it settled.
func conflictChanges(kind, id, prefix string, a, b []plan.Conflict) []Change {
	var out []Change
	for _, c := range b {
		if !slices.Contains(a, c) {
			out = append(out, Change{Kind: kind, ID: id, Action: "conflict", To: c.String(), Detail: prefix + "conflict " + c.Display()})
		}
	}
	for _, c := range a {
		if !slices.ContainsFunc(b, func(x plan.Conflict) bool { return x.Field == c.Field }) {
			out = append(out, Change{Kind: kind, ID: id, Action: "settled", From: c.String(), Detail: prefix + "conflict on " + c.Field + " settled"})
		}
	}
	return out
}

// claimText is a claim as the plan writes it; "" for none.
func claimText(c *plan.Claim) string {
	if c == nil {
		return ""
	}
	return c.String()
}

// claimChange says how a step's claim changed: "claimed by alpha (token
// 3, lease until …)", "claim taken over by beta from alpha (token 4, …)",
// "claim of alpha ended". A renewal is no change of the step's (the
// claim's agent and token stay).
func claimChange(a, b *plan.Claim) string {
	switch {
	case b == nil:
		return "claim of " + a.Agent + " ended"
	case a == nil:
		return fmt.Sprintf("claimed by %s (token %d, lease until %s)", b.Agent, b.Token, b.Until.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("claim taken over by %s from %s (token %d, lease until %s)", b.Agent, a.Agent, b.Token, b.Until.UTC().Format(time.RFC3339))
}

func fieldValue(s *plan.Step, field string) string {
	switch field {
	case "active":
		return s.Active
	case "why":
		return s.Why
	case "reason":
		return s.Reason
	}
	return ""
}

func findingChanges(a, b plan.Findings) []Change {
	var out []Change
	old := map[string]*plan.Finding{}
	for _, f := range a {
		old[f.ID] = f
	}
	seen := map[string]bool{}
	for _, f := range b {
		seen[f.ID] = true
		o, ok := old[f.ID]
		switch {
		case !ok:
			out = append(out, Change{Kind: "finding", ID: f.ID, Action: "added", To: f.Title,
				Detail: fmt.Sprintf("finding %s added (%s): %s", f.ID, f.Category, f.Title)})
		case *o != *f:
			out = append(out, Change{Kind: "finding", ID: f.ID, Action: "changed", From: o.Title, To: f.Title,
				Detail: fmt.Sprintf("finding %s changed: %s", f.ID, f.Title)})
		}
	}
	for _, f := range a {
		if !seen[f.ID] {
			out = append(out, Change{Kind: "finding", ID: f.ID, Action: "removed", From: f.Title, Detail: fmt.Sprintf("finding %s removed: %s", f.ID, f.Title)})
		}
	}
	return out
}

// errorID is an error's id in a change, its tool in a file written before
// errors had ids.
func errorID(e *plan.ErrorRecord) string {
	if e.ID != "" {
		return e.ID
	}
	return e.Tool
}

// errorChanges compares error logs record by record, each record of one
// matched to at most one of the other: by id, tool and message; then by
// tool and message (files written before errors had ids, whose ids are
// given as they are read); then by id and tool, the message changed.
// What is left was added or removed.
func errorChanges(a, b plan.ErrorLog) []Change {
	var out []Change
	pair := make(map[*plan.ErrorRecord]*plan.ErrorRecord, len(b)) // b's record → a's
	used := make(map[*plan.ErrorRecord]bool, len(a))
	same := func(o, e *plan.ErrorRecord) bool {
		return o.Tool == e.Tool && plan.NormalizeMessage(o.Message) == plan.NormalizeMessage(e.Message)
	}
	for _, match := range []func(o, e *plan.ErrorRecord) bool{
		func(o, e *plan.ErrorRecord) bool { return o.ID == e.ID && same(o, e) },
		same,
		func(o, e *plan.ErrorRecord) bool { return o.ID == e.ID && o.ID != "" && o.Tool == e.Tool },
	} {
		for _, e := range b {
			if pair[e] != nil {
				continue
			}
			for _, o := range a {
				if !used[o] && match(o, e) {
					pair[e], used[o] = o, true
					break
				}
			}
		}
	}
	for _, e := range b {
		o := pair[e]
		msg := firstLine(e.Message)
		switch {
		case o == nil:
			out = append(out, Change{Kind: "error", ID: errorID(e), Action: "added", To: msg,
				Detail: fmt.Sprintf("error added: %s ×%d: %s", e.Tool, e.Count, msg)})
			continue
		case o.Count != e.Count:
			out = append(out, Change{Kind: "error", ID: errorID(e), Action: "counted", From: fmt.Sprint(o.Count), To: fmt.Sprint(e.Count),
				Detail: fmt.Sprintf("error counted up: %s ×%d → ×%d: %s", e.Tool, o.Count, e.Count, msg)})
		}
		if plan.NormalizeMessage(o.Message) != plan.NormalizeMessage(e.Message) {
			// Changed by hand: a repeat that counts up takes the newest
			// message, which differs in its numbers alone.
			out = append(out, Change{Kind: "error", ID: errorID(e), Action: "changed", From: firstLine(o.Message), To: msg,
				Detail: fmt.Sprintf("error #%s message changed: %s: %s → %s", errorID(e), e.Tool, firstLine(o.Message), msg)})
		}
		switch {
		case o.Open() && !e.Open():
			detail := fmt.Sprintf("error #%s resolved: %s: %s", e.ID, e.Tool, msg)
			if e.Resolution != "" {
				detail += " (" + firstLine(e.Resolution) + ")"
			}
			out = append(out, Change{Kind: "error", ID: errorID(e), Action: "resolved", To: e.Resolution, Detail: detail})
		case !o.Open() && e.Open():
			out = append(out, Change{Kind: "error", ID: errorID(e), Action: "reopened", Detail: fmt.Sprintf("error #%s reopened: %s: %s", e.ID, e.Tool, msg)})
		case o.Resolution != e.Resolution:
			out = append(out, Change{Kind: "error", ID: errorID(e), Action: "resolution", From: firstLine(o.Resolution), To: firstLine(e.Resolution),
				Detail: fmt.Sprintf("error #%s resolution changed: %s → %s", e.ID, quoteIfEmpty(firstLine(o.Resolution)), quoteIfEmpty(firstLine(e.Resolution)))})
		}
		for _, f := range [][3]string{{"key", o.Key, e.Key}, {"params", o.Params, e.Params}, {"step", o.Step, e.Step}} {
			if f[1] != f[2] && o.Count == e.Count { // a repeat takes the newest
				out = append(out, Change{Kind: "error", ID: errorID(e), Action: "changed", From: f[1], To: f[2],
					Detail: fmt.Sprintf("error #%s %s changed: %s → %s", errorID(e), f[0], quoteIfEmpty(f[1]), quoteIfEmpty(f[2]))})
			}
		}
	}
	for _, o := range a {
		if !used[o] {
			out = append(out, Change{Kind: "error", ID: errorID(o), Action: "removed", From: firstLine(o.Message),
				Detail: fmt.Sprintf("error #%s removed: %s: %s", errorID(o), o.Tool, firstLine(o.Message))})
		}
	}
	return out
}

// quoteIfEmpty is s, or "(none)" for an empty one.
func quoteIfEmpty(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Between diffs two revisions of a session.
func Between(s *repo.Session, revA, revB string) (*Diff, error) {
	a, ha, err := s.StateAt(revA)
	if err != nil {
		return nil, unreadableAt(err, revA, revA, revB)
	}
	b, hb, err := s.StateAt(revB)
	if err != nil {
		return nil, unreadableAt(err, revB, revA, revB)
	}
	d := &Diff{From: Endpoint{Rev: ha}, To: Endpoint{Rev: hb}, Changes: SemanticDiff(a, b)}
	numberEndpoints(s, &d.From, &d.To)
	if d.Changes == nil {
		d.Changes = []Change{}
	}
	return d, nil
}

// unreadableAt is the error for a semantic diff one of whose revisions
// (rev) does not read as a plan — one written with git by hand, which
// repair followed with a revision that does: its text can still be
// compared. Other errors are as they are.
func unreadableAt(err error, rev, revA, revB string) error {
	if plan.CodeOf(err) != plan.CodePlanParseError {
		return err
	}
	// What the file holds wrong, without the advice for a working file.
	what, _, _ := strings.Cut(err.Error(), "; ")
	e := plan.Errorf(plan.CodePlanParseError, "revision %s does not read as a plan (%s), so no change of steps can be told; plangit diff --text %s %s compares the files' text", rev, what, revA, revB).With("rev", rev)
	e.Err = err
	return e
}

// numberEndpoints fills in the revision numbers of diff endpoints.
func numberEndpoints(s *repo.Session, eps ...*Endpoint) {
	revs, err := s.Revisions()
	if err != nil {
		return
	}
	for _, ep := range eps {
		if r, ok := revisionAt(revs, ep.Rev); ok {
			ep.N = r.N
		}
	}
}

// DefaultRange is what diff compares given zero, one or two revisions:
// HEAD~1 and HEAD, REV and HEAD, or A and B.
func DefaultRange(args []string) (string, string) {
	switch len(args) {
	case 0:
		return "HEAD~1", "HEAD"
	case 1:
		return args[0], "HEAD"
	}
	return args[0], args[1]
}

func phaseMap(p *plan.Plan) map[string]*plan.Phase {
	m := make(map[string]*plan.Phase, len(p.Phases))
	for _, ph := range p.Phases {
		m[ph.ID] = ph
	}
	return m
}

func arrow(from, to string) string { return quoteIfSpaced(from) + " → " + quoteIfSpaced(to) }

func quoteIfSpaced(s string) string {
	s = firstLine(s)
	if strings.ContainsAny(s, " \t") {
		return `"` + s + `"`
	}
	if s == "" {
		return `""`
	}
	return s
}

func setOrChanged(from, to string) string {
	switch {
	case from == "":
		return "set: " + firstLine(to)
	case to == "":
		return "cleared"
	}
	return "changed: " + firstLine(to)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func progress(p plan.Progress) string {
	if p.Total == 0 {
		return ""
	}
	return p.String()
}

// firstLine is a value as a change names it: its first line, at most
// maxValue bytes (an error's message may be 4 KB, a result 64 KB), marked
// where it was cut.
func firstLine(s string) string {
	cut := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, cut = s[:i], true
	}
	if len(s) > maxValue {
		return plan.TruncateText(s, maxValue)
	}
	if cut {
		return s + " …"
	}
	return s
}

// maxValue is how much of a value a change names.
const maxValue = 200

// changesForStep keeps the changes about one step.
func changesForStep(cs []Change, id string) []Change {
	return slices.DeleteFunc(slices.Clone(cs), func(c Change) bool { return c.Kind != "step" || c.ID != id })
}
