package interop

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
)

// Update brings an imported plan into s in place: what a tool that
// re-writes its whole plan (the plan tool's create_plan called again with
// the updated plan, a TodoWrite list, a plan.json saved again) means by
// writing it again. Steps are matched in two passes:
//
//  1. when the source's ids are its own (in.IDs: the plan tool's step
//     numbers, maxclaw's step_N, PlanManager's and Plan-and-Execute's task
//     ids), an imported step matches the step of s with its id, and its
//     text becomes the file's: the tool renamed its step;
//  2. when the source's step texts open with its task ids (in.Labels:
//     spec-kit's T001, OpenSpec's 1.2), an imported step matches the one
//     step of s whose text opens with its id, and takes the file's text;
//  3. any other imported step matches the first unmatched step of s with
//     the same text (case and spacing aside; with task ids, the text after
//     them: a step without one keeps its text).
//
// When the source has checkboxes only (in.Boxes), a box that agrees with
// the step — ticked for a step completed or skipped, unticked for one not
// done — leaves its status as it is; when its steps carry no status but a
// ticked box (in.Plain), a step it does not tick keeps its status.
//
// A matched step takes the imported status, result, progress and active
// form; an imported step that matches none is added in the phase of the
// same title (its needs follow); a step of s the file no longer holds
// stays, and is listed. A partial import (in.Partial: Plan-and-Execute's
// per-task response) applies to the steps it names and adds none; its
// text stays the plan's. Findings and errors s already holds are not
// added again: an error the log holds takes the larger count. Nothing is
// duplicated, and one change says what moved. The plan keeps its title,
// goal and status (listed when the file's differ). At most one step stays
// in progress: an imported one beside the step already in progress is
// left pending, and listed.
func Update(s *plan.State, imp *Imported, now time.Time) (plan.Change, []Dropped, error) {
	in := imp.State
	p, ip := s.Plan, in.Plan
	if err := p.Editable(); err != nil {
		return plan.Change{}, nil, err
	}
	var dropped []Dropped
	drop := func(field, value, why string) {
		if value != "" {
			dropped = append(dropped, Dropped{Field: field, Value: clipLine(value), Why: why})
		}
	}
	if ip.Title != "" && ip.Title != p.Title && !imp.Partial {
		drop("title", ip.Title, "the plan keeps its own title")
	}
	if ip.Goal != "" && ip.Goal != p.Goal {
		drop("goal", ip.Goal, "the plan keeps its own goal")
	}
	key := func(text string) string { return strings.ToLower(strings.Join(strings.Fields(text), " ")) }
	if imp.Labels { // a step's text is the same with or without its task id
		key = func(text string) string { return strings.ToLower(strings.Join(strings.Fields(stripLabel(text)), " ")) }
	}
	byText := map[string]*plan.Step{}
	for _, st := range p.Steps() {
		if _, dup := byText[key(st.Text)]; !dup {
			byText[key(st.Text)] = st
		}
	}
	ids := map[string]string{} // imported id → the plan's
	matched := map[*plan.Step]bool{}
	byOwnID := map[*plan.Step]*plan.Step{} // imported step → the step of s with its id (case 1)
	if imp.IDs {
		own := map[string]*plan.Step{}
		for _, st := range p.Steps() {
			own[st.ID] = st
		}
		for _, ist := range ip.Steps() {
			if st := own[ist.ID]; st != nil {
				byOwnID[ist], matched[st] = st, true
			}
		}
	}
	byLabel := map[string]*plan.Step{} // case 2: a task id names one step of s
	if imp.Labels {
		seen := map[string]int{}
		for _, st := range p.Steps() {
			if l := TaskLabel(st.Text); l != "" {
				seen[l]++
				byLabel[l] = st
			}
		}
		for l, n := range seen {
			if n > 1 {
				delete(byLabel, l)
			}
		}
	}
	var added, changed, started []string
	for _, iph := range ip.Phases {
		var ph *plan.Phase
		for _, x := range p.Phases {
			if strings.EqualFold(strings.TrimSpace(x.Title), strings.TrimSpace(iph.Title)) {
				ph = x
				break
			}
		}
		for _, ist := range iph.Steps {
			st := byOwnID[ist]
			if l := TaskLabel(ist.Text); st == nil && l != "" {
				if st = byLabel[l]; st != nil && !matched[st] {
					matched[st] = true
				} else {
					st = nil
				}
			}
			if st == nil {
				if st = byText[key(ist.Text)]; st != nil && !matched[st] {
					matched[st] = true
				} else {
					st = nil
				}
			}
			if st != nil {
				ids[ist.ID] = st.ID
				renamed := false
				if key(st.Text) != key(ist.Text) || imp.Labels && TaskLabel(st.Text) != "" && st.Text != ist.Text {
					if imp.Partial {
						drop("step "+st.ID, ist.Text, "the step's text stays the plan's")
					} else {
						st.Text, renamed = ist.Text, true
					}
				}
				if imp.Boxes && boxAgrees(st.Status, ist.Status) || imp.Plain && ist.Status == plan.StepPending {
					c := *ist
					c.Status = st.Status
					ist = &c
				}
				moved, err := takeImported(p, st, ist, now)
				moved = moved || renamed
				if err != nil {
					drop("step "+st.ID, string(ist.Status), err.Error())
				}
				if moved {
					changed = append(changed, st.ID)
					if st.Status == plan.StepInProgress {
						started = append(started, st.ID)
					}
				}
				continue
			}
			if imp.Partial {
				drop("step "+ist.ID, ist.Text, "names no step of the plan; a response on one task adds none")
				continue
			}
			if ph == nil {
				var err error
				if ph, err = p.AddPhase(iph.Title, iph.Notes, now); err != nil {
					return plan.Change{}, nil, err
				}
			}
			c := *ist
			c.Needs, c.Auto = nil, false
			c.ID = p.IssueStep()
			ids[ist.ID] = c.ID
			ph.Steps = append(ph.Steps, &c)
			added = append(added, c.ID)
			if c.Status == plan.StepInProgress {
				started = append(started, c.ID)
			}
		}
	}
	// Looked up by id below, once for each step: a plan of thousands of
	// steps is no slower to bring in step by step.
	isAdded := make(map[string]bool, len(added))
	for _, id := range added {
		isAdded[id] = true
	}
	byID := map[string]*plan.Step{}
	for _, st := range p.Steps() {
		byID[st.ID] = st
	}
	for _, iph := range ip.Phases { // needs, once every imported step has its id
		for _, ist := range iph.Steps {
			st := byID[ids[ist.ID]]
			if st == nil || !isAdded[st.ID] {
				continue
			}
			for _, need := range ist.Needs {
				if id, ok := ids[need]; ok {
					st.Needs = append(st.Needs, id)
				}
			}
		}
	}
	// One step in progress: the one already under way stays.
	if cur := p.Current(); cur != nil && !slices.Contains(started, cur.ID) {
		for _, id := range started {
			if st := byID[id]; st != nil && st != cur && st.Status == plan.StepInProgress {
				st.Status, st.Started = plan.StepPending, time.Time{}
				drop("step "+id, "in_progress", fmt.Sprintf("step %s is in progress already, so this one is pending", cur.ID))
			}
		}
	}
	var kept []string
	for _, st := range p.Steps() {
		if !matched[st] && !isAdded[st.ID] {
			kept = append(kept, st.ID)
		}
	}
	if len(kept) > 0 && len(ip.Phases) > 0 && !imp.Partial {
		dropped = append(dropped, Dropped{Field: "steps " + strings.Join(kept, ", "), Why: "not in the file; kept in the plan as they are"})
	}
	findings := 0
	for _, f := range in.Findings {
		if !slices.ContainsFunc(s.Findings, func(g *plan.Finding) bool {
			return g.Category == f.Category && g.Title == f.Title && g.Content == f.Content
		}) {
			c := *f
			s.Findings.Insert(&c)
			findings++
		}
	}
	errs := 0
	for i := len(in.Errors) - 1; i >= 0; i-- { // oldest first
		e := in.Errors[i]
		if old := slices.IndexFunc(s.Errors, func(x *plan.ErrorRecord) bool { return x.Identity() == e.Identity() && x.Open() == e.Open() }); old >= 0 {
			if x := s.Errors[old]; e.Count > x.Count || e.Last.After(x.Last) {
				x.Count, errs = max(x.Count, e.Count), errs+1
				if e.Last.After(x.Last) {
					x.Last = e.Last
				}
			}
			continue
		}
		s.Errors.Merge(e)
		errs++
	}
	var parts []string
	if len(added) > 0 {
		parts = append(parts, fmt.Sprintf("%s added (%s)", count(len(added), "step"), strings.Join(added, ", ")))
	}
	if len(changed) > 0 {
		parts = append(parts, fmt.Sprintf("%s changed (%s)", count(len(changed), "step"), strings.Join(changed, ", ")))
	}
	if findings > 0 {
		parts = append(parts, count(findings, "finding")+" added")
	}
	if errs > 0 {
		parts = append(parts, count(errs, "error")+" added or counted up")
	}
	if len(parts) == 0 {
		return plan.Change{}, dropped, nil // the plan holds the file already
	}
	p.Touch(now)
	return plan.Change{Op: "plan.import", Summary: "import: updated in place — " + strings.Join(parts, ", ")}, dropped, p.Validate()
}

// takeImported gives st what the imported step ist says of it: its status
// (through the transitions that lead there), result, progress and active
// form. It reports whether anything moved.
func takeImported(p *plan.Plan, st, ist *plan.Step, now time.Time) (bool, error) {
	moved := false
	if ist.Result != "" && ist.Result != st.Result {
		st.Result, moved = ist.Result, true
	}
	if ist.Progress.Total > 0 && ist.Progress != st.Progress {
		st.Progress, moved = ist.Progress, true
	}
	if ist.Active != "" && ist.Active != st.Active {
		st.Active, moved = ist.Active, true
	}
	if ist.Status == st.Status {
		return moved, nil
	}
	do := func(a plan.Action, o plan.TransitionOpts) error {
		o.Force = o.Force || a == plan.ActStart || a == plan.ActDone
		_, err := p.Transition(st.ID, a, o, now)
		return err
	}
	var err error
	if st.Status == plan.StepCompleted || st.Status == plan.StepSkipped || st.Status == plan.StepFailed ||
		st.Status == plan.StepBlocked && ist.Status != plan.StepPending {
		err = do(plan.ActReopen, plan.TransitionOpts{}) // back to pending first: the file says otherwise
	}
	if err == nil && st.Status != ist.Status {
		switch ist.Status {
		case plan.StepPending:
			err = do(plan.ActReopen, plan.TransitionOpts{})
		case plan.StepInProgress:
			err = do(plan.ActStart, plan.TransitionOpts{})
		case plan.StepCompleted:
			err = do(plan.ActDone, plan.TransitionOpts{Result: ist.Result})
		case plan.StepSkipped:
			err = do(plan.ActSkip, plan.TransitionOpts{Reason: ist.Reason})
		case plan.StepFailed:
			err = do(plan.ActFail, plan.TransitionOpts{Reason: ist.Reason, NoRetry: true})
		case plan.StepBlocked:
			err = do(plan.ActBlock, plan.TransitionOpts{Reason: ist.Reason})
		}
	}
	return err == nil || moved, err
}

// boxAgrees reports whether a checkbox's status (completed: ticked,
// pending: not) says what the step's status says: done or not done.
func boxAgrees(have, box plan.StepStatus) bool {
	done := have == plan.StepCompleted || have == plan.StepSkipped
	return done == (box == plan.StepCompleted)
}
