package plan

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A merge brings together two states that grew apart from a common
// ancestor — two machines' copies of a shared session — by their meaning,
// not their lines: steps, phases, findings, errors and the deliverable
// record by record, and each record field by field.
//
//   - What either side added is kept. Records both sides added under the
//     same id are kept both: one keeps the id, the other gets a fresh one
//     (renumbered, with the steps' needs and the references of findings
//     and errors following it), and the report lists it. The one that
//     keeps it is the published side's, when the caller names one
//     (MergeOptions.Keep: a remote's revision, whose ids other machines
//     may have acted on already); else the choice goes by content.
//   - A field one side changed takes that change. A field both sides
//     changed to the same value takes it.
//   - A field both sides changed, each its own way, is a conflict: the
//     record keeps its value from the ancestor and records both sides'
//     (Conflict), until State.Resolve settles it. Some fields merge by
//     their nature instead: counts add up, first-seen times take the
//     earliest and last-seen the latest, an error resolved on either side
//     is resolved, and when both sides gave a step the same status, the
//     later times are kept.
//   - A record one side removed and the other left alone is removed. A
//     step one side removed and the other changed, or still needs, is kept
//     with a conflict on "removed"; a phase, finding or error so changed is
//     kept (the report says so).
//
// The result depends on the two sides, never on their order: every
// choice the merge makes (which record keeps a contested id, unless Keep
// names the side; the order of steps both sides added; which side a
// conflict names first) goes by the records' content and the sides'
// revision names. Merging x into y and y into x give the same files, so
// machines that merge the same two revisions agree.

// MergeSide is one side of a merge.
type MergeSide struct {
	Rev   string // the side's revision, abbreviated as conflicts name it
	State *State
}

// MergeOptions tune a merge.
type MergeOptions struct {
	// NextStep is the least id a renumbered step may get: one more than
	// the largest step id either side's history ever issued, so that no
	// renumbered step takes an id a removed or rolled-back step had.
	NextStep int
	// NextFinding and NextError are, as NextStep is for steps, the least
	// ids a renumbered finding or error may get (0: past the sides' own).
	NextFinding, NextError int
	// Keep names the side whose records keep the ids both sides used:
	// KeepY for y when y is published (a remote's revision, whose ids
	// other machines may already have used, and then changed those
	// records by), so that only x's records move. KeepEither chooses by
	// the records' content, the same whichever side is x.
	Keep Keep
	// Edit says y is a person's edit of files, not a revision (a hand
	// edit laid on the branch, x): no history issued its ids. Its records
	// move where both sides used an id, as with Keep set to KeepX, and so
	// does every record it added under an id the history issued before
	// (below NextStep, NextFinding or NextError: a record removed or
	// rolled back since). A field both sides changed takes y's value
	// instead of a conflict, an error's fields too, and the report lists
	// it (MergeReport.Settled).
	Edit bool
}

// Keep is the side of a merge whose records keep contested ids.
type Keep int

const (
	KeepEither Keep = iota
	KeepX
	KeepY
)

// MergeReport says what a merge did: what each side brought, what it
// renumbered, what conflicts, and what it kept that one side removed.
type MergeReport struct {
	Sides      [2]SideChanges `json:"sides"`
	Renumbered []Renumbered   `json:"renumbered,omitempty"`
	Conflicts  []ConflictAt   `json:"conflicts,omitempty"`
	Kept       []string       `json:"kept,omitempty"`
	// Settled names, for an Edit merge, the fields both sides changed
	// that took the edit's value ("step 3 text", "error #2 message",
	// "step 4 kept (removed since)", "step 5 removed (changed since)").
	Settled []string `json:"settled,omitempty"`
	// KeptRemoved are the records one side removed and the other changed,
	// which the merge keeps (Kept says so in words): each record, as
	// "finding 3", and the revision of the side that removed it.
	KeptRemoved []KeptRecord `json:"kept_removed,omitempty"`
	// Voided are the claims the merge voided: both sides claimed one
	// step, and the other side's claim stands (mergeClaim).
	Voided []VoidedClaim `json:"voided,omitempty"`
}

// VoidedClaim is a claim a merge voided, and the claim that stands.
type VoidedClaim struct {
	Step   string `json:"step"`
	Agent  string `json:"agent"`
	Token  int    `json:"token"`
	Holder string `json:"holder"` // the agent whose claim stands
}

// KeptRecord is a record one side of a merge removed and the other
// changed: the merge kept it.
type KeptRecord struct {
	What      string `json:"what"`       // "finding 3", "error #2", "phase 1"
	RemovedBy string `json:"removed_by"` // the revision of the side that removed it
}

// SideChanges is what one side changed since the common ancestor.
type SideChanges struct {
	Rev     string   `json:"rev"`
	Changes []string `json:"changes"`
}

// Renumbered is a record both sides added under the same id that the
// merge gave a fresh id, on the side Rev names.
type Renumbered struct {
	Kind  string `json:"kind"` // step, phase, finding, error
	Rev   string `json:"rev"`
	From  string `json:"from"`
	To    string `json:"to"`
	Title string `json:"title"`
}

func (r Renumbered) String() string {
	mark := ""
	if r.Kind == "error" {
		mark = "#"
	}
	return fmt.Sprintf("%s %s%s → %s%s (%s's): %s", r.Kind, mark, r.From, mark, r.To, r.Rev, Clip(r.Title))
}

// Merge merges the states x and y, which both come from base.
func Merge(base *State, x, y MergeSide, o MergeOptions) (*State, *MergeReport, error) {
	if base == nil || base.Plan == nil {
		base = &State{Plan: &Plan{Status: PlanRunning, Rules: DefaultRules()}}
	}
	rep := &MergeReport{Sides: [2]SideChanges{
		{Rev: x.Rev, Changes: DescribeChanges(base, x.State)},
		{Rev: y.Rev, Changes: DescribeChanges(base, y.State)},
	}}
	a, b := x, y
	swapped := sideLess(b, a)
	if swapped {
		a, b = b, a
	}
	m := &merger{base: base.Clone(), a: a.State.Clone(), b: b.State.Clone(), revs: [2]string{a.Rev, b.Rev}, rep: rep, moves: -1, edit: -1}
	if o.Edit {
		o.Keep = KeepX
		m.edit = 1
		if swapped {
			m.edit = 0
		}
	}
	if o.Keep != KeepEither {
		// The side that moves, as a (0) or b (1).
		m.moves = 0
		if (o.Keep == KeepX) != swapped {
			m.moves = 1
		}
	}
	m.renumber(o)
	out := &State{}
	out.Plan = m.mergePlan()
	out.Findings = m.mergeFindings()
	out.Errors = m.mergeErrors()
	out.Deliverable = m.mergeDeliverable()
	for _, c := range m.planConflicts {
		setConflict(&out.Plan.Conflicts, c)
	}
	sortConflicts(out.Plan.Conflicts)
	out.Plan.Rules = x.State.Plan.Rules
	rep.Conflicts = append(rep.Conflicts, m.conflicts...)
	slices.SortStableFunc(rep.Conflicts, func(p, q ConflictAt) int {
		return cmp.Or(cmp.Compare(boolInt(p.Step != ""), boolInt(q.Step != "")), compareIDs(p.Step, q.Step), strings.Compare(p.Field, q.Field))
	})
	if m.edit >= 0 {
		if err := m.settleForEdit(out, y.Rev); err != nil {
			return nil, nil, err
		}
	}
	if err := out.Plan.Validate(); err != nil {
		return nil, nil, WrapError(CodeOf(err), err, "the merge of %s and %s makes a plan that does not hold together", x.Rev, y.Rev)
	}
	return out, rep, nil
}

// settleForEdit settles every conflict of an Edit merge with the edit's
// value (rev), and lists them in the report's Settled.
func (m *merger) settleForEdit(out *State, rev string) error {
	for _, c := range m.rep.Conflicts {
		if _, err := out.settle(c, Choice{Rev: rev}); err != nil {
			return err
		}
		what := c.Target() + " " + c.Field
		if c.Field == "removed" {
			what = c.Target() + " kept (removed since)"
			if c.Sides[m.edit].Removed {
				what = c.Target() + " removed (changed since)"
			}
		}
		m.rep.Settled = append(m.rep.Settled, what)
	}
	m.rep.Conflicts = nil
	m.rep.Settled = append(m.rep.Settled, m.settledErrors...)
	return nil
}

// sideLess orders the sides of a merge: by revision name, then content.
func sideLess(p, q MergeSide) bool {
	if p.Rev != q.Rev {
		return p.Rev < q.Rev
	}
	return bytes.Compare(stateKey(p.State), stateKey(q.State)) < 0
}

func stateKey(s *State) []byte {
	var b bytes.Buffer
	for _, name := range SessionFiles {
		b.Write(s.Files()[name])
		b.WriteByte(0)
	}
	return b.Bytes()
}

// Clone returns a deep copy of the state.
func (s *State) Clone() *State {
	c := &State{Plan: s.Plan.Clone(), Deliverable: slices.Clone(s.Deliverable)}
	for _, f := range s.Findings {
		cf := *f
		c.Findings = append(c.Findings, &cf)
	}
	for _, e := range s.Errors {
		ce := *e
		c.Errors = append(c.Errors, &ce)
	}
	return c
}

// merger holds one merge's sides, in canonical order (a before b).
type merger struct {
	base, a, b    *State
	revs          [2]string
	moves         int // the side whose contested records move (MergeOptions.Keep); -1: by content
	rep           *MergeReport
	planConflicts []Conflict   // conflicts on the plan's own records found by this merge
	conflicts     []ConflictAt // every conflict found by this merge, for the report
	edit          int          // the side that is a person's edit (MergeOptions.Edit); -1: none
	settledErrors []string     // the errors' fields an Edit merge gave the edit's value
}

func (m *merger) side(i int) *State {
	if i == 0 {
		return m.a
	}
	return m.b
}

// merge3 merges one value: the side that changed it, or both when they
// agree; conflict when they changed it differently.
func merge3[T comparable](base, a, b T) (v T, conflict bool) {
	switch {
	case a == b:
		return a, false
	case a == base:
		return b, false
	case b == base:
		return a, false
	}
	return base, true
}

// conflict records a conflict this merge found on field of the plan's
// own records (step == "") or on a step.
func (m *merger) conflict(step, field string, a, b ConflictSide) Conflict {
	a.Rev, b.Rev = m.revs[0], m.revs[1]
	c := Conflict{Field: field, Sides: [2]ConflictSide{a, b}}
	m.conflicts = append(m.conflicts, ConflictAt{Step: step, Conflict: c})
	if step == "" {
		m.planConflicts = append(m.planConflicts, c)
	}
	return c
}

func (m *merger) kept(format string, args ...any) {
	m.rep.Kept = append(m.rep.Kept, fmt.Sprintf(format, args...))
}

// keptRemoved records that the merge kept what, a record the side
// removedBy (0 or 1) removed and the other changed.
func (m *merger) keptRemoved(what string, removedBy int) {
	m.rep.KeptRemoved = append(m.rep.KeptRemoved, KeptRecord{What: what, RemovedBy: m.revs[removedBy]})
}

// setConflict adds c to cs, in place of any conflict on the same field.
func setConflict(cs *[]Conflict, c Conflict) {
	if old := conflictOn(*cs, c.Field); old != nil {
		*old = c
		return
	}
	*cs = append(*cs, c)
}

// mergeConflicts merges lists of conflicts recorded before: one settled
// on either side is settled; one recorded on either side is kept.
func mergeConflicts(base, a, b []Conflict) []Conflict {
	if slices.Equal(a, b) || slices.Equal(a, base) {
		return slices.Clone(b)
	}
	if slices.Equal(b, base) {
		return slices.Clone(a)
	}
	var out []Conflict
	for _, c := range base {
		if slices.Contains(a, c) && slices.Contains(b, c) {
			out = append(out, c)
		}
	}
	for _, c := range append(slices.Clone(a), b...) {
		if !slices.Contains(base, c) && !slices.Contains(out, c) {
			setConflict(&out, c)
		}
	}
	sortConflicts(out)
	return out
}

// ---- renumbering ----

// renumber gives fresh ids to the records both sides added under the
// same id (two records are one when their content is the same). Of each
// kind, one side moves all its contested records, in the order of their
// ids, to ids past every id either side has issued: the side whose first
// contested record's content sorts later. References follow on that side:
// the needs of its steps, the step of its findings and errors.
func (m *merger) renumber(o MergeOptions) {
	nextPhase := max(m.base.Plan.NextPhase, m.a.Plan.NextPhase, m.b.Plan.NextPhase, maxID(phaseIDs(m.a.Plan))+1, maxID(phaseIDs(m.b.Plan))+1)
	pa, pb := phaseMap(m.a.Plan), phaseMap(m.b.Plan)
	ids, side := m.contestedSide(contested(pa, pb, phaseMap(m.base.Plan), func(x, y *Phase) bool { return phaseKey(x) == phaseKey(y) }, phaseKey))
	for _, id := range ids {
		ph := [2]map[string]*Phase{pa, pb}[side][id]
		ph.ID = strconv.Itoa(nextPhase)
		nextPhase++
		m.rep.Renumbered = append(m.rep.Renumbered, Renumbered{Kind: "phase", Rev: m.revs[side], From: id, To: ph.ID, Title: ph.Title})
	}
	if len(ids) > 0 {
		m.a.Plan.NextPhase = max(m.a.Plan.NextPhase, nextPhase)
		m.b.Plan.NextPhase = max(m.b.Plan.NextPhase, nextPhase)
	}

	nextStep := max(o.NextStep, m.base.Plan.NextStep, m.a.Plan.NextStep, m.b.Plan.NextStep,
		m.base.Plan.MaxStepID()+1, m.a.Plan.MaxStepID()+1, m.b.Plan.MaxStepID()+1)
	sa, sb := stepLocs(m.a.Plan), stepLocs(m.b.Plan)
	same := func(x, y *stepLoc) bool { return stepKey(x) == stepKey(y) }
	baseSteps := stepLocs(m.base.Plan)
	ids, side = m.contestedSide(contested(sa, sb, baseSteps, same, func(l *stepLoc) string { return stepKey(l) }))
	ids, side = issuedBefore(m, ids, side, o.NextStep, [2]map[string]*stepLoc{sa, sb}, baseSteps)
	if len(ids) > 0 {
		ren := map[string]string{}
		for _, id := range ids {
			ren[id] = strconv.Itoa(nextStep)
			nextStep++
			m.rep.Renumbered = append(m.rep.Renumbered, Renumbered{Kind: "step", Rev: m.revs[side], From: id, To: ren[id], Title: [2]map[string]*stepLoc{sa, sb}[side][id].s.Text})
		}
		renameSteps(m.side(side), ren)
		m.a.Plan.NextStep = max(m.a.Plan.NextStep, nextStep)
		m.b.Plan.NextStep = max(m.b.Plan.NextStep, nextStep)
	}

	nextFinding := max(o.NextFinding, m.a.Plan.NextFinding, m.b.Plan.NextFinding, maxID(findingIDs(m.a.Findings))+1, maxID(findingIDs(m.b.Findings))+1, maxID(findingIDs(m.base.Findings))+1)
	fa, fb, fo := findingMap(m.a.Findings), findingMap(m.b.Findings), findingMap(m.base.Findings)
	ids, side = m.contestedSide(contested(fa, fb, fo, func(x, y *Finding) bool { return findingKey(x) == findingKey(y) }, findingKey))
	ids, side = issuedBefore(m, ids, side, o.NextFinding, [2]map[string]*Finding{fa, fb}, fo)
	for _, id := range ids {
		f := [2]map[string]*Finding{fa, fb}[side][id]
		f.ID = strconv.Itoa(nextFinding)
		nextFinding++
		m.rep.Renumbered = append(m.rep.Renumbered, Renumbered{Kind: "finding", Rev: m.revs[side], From: id, To: f.ID, Title: f.Title})
	}

	nextError := max(o.NextError, m.a.Plan.NextError, m.b.Plan.NextError, m.a.Errors.nextID(), m.b.Errors.nextID(), m.base.Errors.nextID())
	ea, eb, eo := errorMap(m.a.Errors), errorMap(m.b.Errors), errorMap(m.base.Errors)
	ids, side = m.contestedSide(contested(ea, eb, eo, sameError, errorKey))
	ids, side = issuedBefore(m, ids, side, o.NextError, [2]map[string]*ErrorRecord{ea, eb}, eo)
	for _, id := range ids {
		e := [2]map[string]*ErrorRecord{ea, eb}[side][id]
		e.ID = strconv.Itoa(nextError)
		nextError++
		m.rep.Renumbered = append(m.rep.Renumbered, Renumbered{Kind: "error", Rev: m.revs[side], From: id, To: e.ID, Title: e.Tool + ": " + firstLineOf(e.Message)})
	}
}

// issuedBefore adds to ids, the contested ids of side's records, those
// an Edit merge's edit added under an id below floor that the other side
// does not have either: the history issued it, to a record removed or
// rolled back since, and an id is never given twice. In id order.
func issuedBefore[T any](m *merger, ids []string, side, floor int, recs [2]map[string]T, base map[string]T) ([]string, int) {
	if m.edit < 0 || floor <= 0 {
		return ids, side
	}
	side = m.edit
	for id := range recs[side] {
		n, err := strconv.Atoi(id)
		if err != nil || n >= floor || slices.Contains(ids, id) {
			continue
		}
		_, inBase := base[id]
		_, inOther := recs[1-side][id]
		if !inBase && !inOther {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, compareIDs)
	return ids, side
}

// contestedSide is contested's answer with the side that moves the
// merge's options name, where they name one.
func (m *merger) contestedSide(ids []string, side int) ([]string, int) {
	if m.moves >= 0 {
		side = m.moves
	}
	return ids, side
}

// contested returns the ids that a and b both added (base lacks them) for
// records that are not the same, in order, and which side moves: 0 for a,
// 1 for b.
func contested[T any](a, b, base map[string]T, same func(x, y T) bool, key func(T) string) ([]string, int) {
	var ids []string
	for _, id := range sortedIDs(a) {
		y, inB := b[id]
		if _, inBase := base[id]; !inBase && inB && !same(a[id], y) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 || key(a[ids[0]]) < key(b[ids[0]]) {
		return ids, 1
	}
	return ids, 0
}

// renameSteps gives steps new ids and moves every reference to them
// within the state.
func renameSteps(st *State, ren map[string]string) {
	for _, s := range st.Plan.Steps() {
		if to, ok := ren[s.ID]; ok {
			s.ID = to
		}
		for i, n := range s.Needs {
			if to, ok := ren[n]; ok {
				s.Needs[i] = to
			}
		}
	}
	for _, f := range st.Findings {
		if to, ok := ren[f.Step]; ok {
			f.Step = to
		}
	}
	for _, e := range st.Errors {
		if to, ok := ren[e.Step]; ok {
			e.Step = to
		}
	}
}

// ---- the plan ----

// stepLoc is a step and the phase it is in.
type stepLoc struct {
	s     *Step
	phase string
}

func stepLocs(p *Plan) map[string]*stepLoc {
	m := map[string]*stepLoc{}
	for _, ph := range p.Phases {
		for _, s := range ph.Steps {
			m[s.ID] = &stepLoc{s, ph.ID}
		}
	}
	return m
}

// stepKey is a step as a file writes it, with its phase: two steps are the
// same when their keys are.
func stepKey(l *stepLoc) string {
	var b strings.Builder
	b.WriteString(l.phase + "\n")
	writeStep(&b, l.s)
	return b.String()
}

func phaseMap(p *Plan) map[string]*Phase {
	m := make(map[string]*Phase, len(p.Phases))
	for _, ph := range p.Phases {
		m[ph.ID] = ph
	}
	return m
}

func phaseKey(ph *Phase) string { return ph.Title + "\x00" + ph.Notes }

func phaseIDs(p *Plan) []string {
	var ids []string
	for _, ph := range p.Phases {
		ids = append(ids, ph.ID)
	}
	return ids
}

// compareIDs orders ids numerically, then as text.
func compareIDs(a, b string) int {
	x, errx := strconv.Atoi(a)
	y, erry := strconv.Atoi(b)
	if errx == nil && erry == nil {
		return cmp.Compare(x, y)
	}
	return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
}

func sortedIDs[V any](m map[string]V) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, compareIDs)
	return ids
}

func maxID(ids []string) int {
	n := 0
	for _, id := range ids {
		if v, err := strconv.Atoi(id); err == nil {
			n = max(n, v)
		}
	}
	return n
}

// stepFields are a step's fields as a merge sees them: each read and
// written as text. The status carries its times and retries.
var stepFields = []struct {
	name string
	get  func(*Step) string
	set  func(*Step, string)
}{
	{"text", func(s *Step) string { return s.Text }, func(s *Step, v string) { s.Text = v }},
	{"status", statusValue, func(s *Step, v string) { setStatusValue(s, v) }},
	{"needs", func(s *Step) string { return strings.Join(s.Needs, ",") }, func(s *Step, v string) { s.Needs = ParseNeeds(v) }},
	{"active", func(s *Step) string { return s.Active }, func(s *Step, v string) { s.Active = v }},
	{"why", func(s *Step) string { return s.Why }, func(s *Step, v string) { s.Why = v }},
	{"result", func(s *Step) string { return s.Result }, func(s *Step, v string) { s.Result = v }},
	{"reason", func(s *Step) string { return s.Reason }, func(s *Step, v string) { s.Reason = v }},
	{"progress", func(s *Step) string {
		if s.Progress.Total == 0 {
			return ""
		}
		return s.Progress.String()
	}, func(s *Step, v string) { s.Progress, _ = ParseProgress(v) }},
}

// mergePlan merges the plans: the plan's fields, its phases, its steps.
func (m *merger) mergePlan() *Plan {
	pb, pa, py := m.base.Plan, m.a.Plan, m.b.Plan
	if bytes.Equal(WritePlan(pa), WritePlan(pb)) {
		return py.Clone()
	}
	if bytes.Equal(WritePlan(py), WritePlan(pb)) || bytes.Equal(WritePlan(pa), WritePlan(py)) {
		return pa.Clone()
	}
	out := &Plan{ID: pb.ID, Created: pb.Created, Rules: pa.Rules}
	if out.ID == "" {
		out.ID = cmp.Or(pa.ID, py.ID)
	}
	if out.Created.IsZero() {
		out.Created = minTime(pa.Created, py.Created)
	}
	for _, f := range []struct {
		name   string
		field  func(*Plan) *string
		status bool
	}{
		{"title", func(p *Plan) *string { return &p.Title }, false},
		{"goal", func(p *Plan) *string { return &p.Goal }, false},
		{"result", func(p *Plan) *string { return &p.Result }, false},
		{"reason", func(p *Plan) *string { return &p.Reason }, false},
	} {
		v, c := merge3(*f.field(pb), *f.field(pa), *f.field(py))
		if c {
			m.conflict("", f.name, ConflictSide{Value: *f.field(pa)}, ConflictSide{Value: *f.field(py)})
		}
		*f.field(out) = v
	}
	status, c := merge3(pb.Status, pa.Status, py.Status)
	if c {
		m.conflict("", "status", ConflictSide{Value: string(pa.Status)}, ConflictSide{Value: string(py.Status)})
	}
	out.Status = status
	out.Updated = maxTime(pa.Updated, py.Updated)
	out.Iterations = max(pa.Iterations, py.Iterations, pa.Iterations+py.Iterations-pb.Iterations)
	out.NextStep = max(pa.NextStep, py.NextStep)
	out.NextPhase = max(pa.NextPhase, py.NextPhase)
	out.NextFinding = max(pa.NextFinding, py.NextFinding)
	out.NextError = max(pa.NextError, py.NextError)
	out.Claims = max(pa.Claims, py.Claims)
	out.Conflicts = mergeConflicts(pb.Conflicts, pa.Conflicts, py.Conflicts)

	steps := m.mergeSteps()
	phases := m.mergePhases(steps)
	m.place(out, phases, steps)
	m.breakCycles(out)
	return out
}

// mergeSteps merges the steps by id: each merged step with its phase.
func (m *merger) mergeSteps() map[string]*stepLoc {
	base, sa, sb := stepLocs(m.base.Plan), stepLocs(m.a.Plan), stepLocs(m.b.Plan)
	ids := map[string]bool{}
	for _, mp := range []map[string]*stepLoc{base, sa, sb} {
		for id := range mp {
			ids[id] = true
		}
	}
	out := map[string]*stepLoc{}
	removed := map[string]*stepLoc{} // removed by one side, the other left it alone
	for _, id := range sortedIDs(ids) {
		o, x, y := base[id], sa[id], sb[id]
		switch {
		case o == nil && x != nil:
			out[id] = cloneLoc(x) // added (by both alike, or by one)
		case o == nil:
			out[id] = cloneLoc(y)
		case x == nil && y == nil:
		case x == nil || y == nil:
			other, gone := y, ConflictSide{Removed: true}
			if y == nil {
				other = x
			}
			if stepKey(other) == stepKey(o) {
				removed[id] = o
				continue
			}
			l := cloneLoc(other)
			sides := [2]ConflictSide{gone, {Value: "changed"}}
			if x != nil {
				sides[0], sides[1] = sides[1], sides[0]
			}
			setConflict(&l.s.Conflicts, m.conflict(id, "removed", sides[0], sides[1]))
			sortConflicts(l.s.Conflicts)
			m.kept("step %s: removed on one side and changed on the other; kept, with a conflict", id)
			out[id] = l
		default:
			out[id] = m.mergeStep(o, x, y)
		}
	}
	// A removed step that a merged step still needs is kept.
	for again := true; again; {
		again = false
		for _, id := range sortedIDs(out) {
			for _, n := range out[id].s.Needs {
				if _, ok := out[n]; ok {
					continue
				}
				r, ok := removed[n]
				if !ok {
					continue
				}
				l := cloneLoc(r)
				sides := [2]ConflictSide{{Removed: true}, {Value: "needed by step " + id}}
				if sa[n] != nil {
					sides[0], sides[1] = sides[1], sides[0]
				}
				setConflict(&l.s.Conflicts, m.conflict(n, "removed", sides[0], sides[1]))
				sortConflicts(l.s.Conflicts)
				m.kept("step %s: removed on one side, but step %s needs it; kept, with a conflict", n, id)
				out[n] = l
				delete(removed, n)
				again = true
			}
		}
	}
	return out
}

func cloneLoc(l *stepLoc) *stepLoc {
	c := *l.s
	c.Needs = slices.Clone(l.s.Needs)
	c.Conflicts = slices.Clone(l.s.Conflicts)
	if l.s.Claim != nil {
		cl := *l.s.Claim
		c.Claim = &cl
	}
	return &stepLoc{&c, l.phase}
}

// mergeStep merges one step both sides have, field by field.
func (m *merger) mergeStep(o, x, y *stepLoc) *stepLoc {
	out := cloneLoc(o)
	s := out.s
	s.Conflicts = mergeConflicts(o.s.Conflicts, x.s.Conflicts, y.s.Conflicts)
	for _, f := range stepFields {
		v, c := merge3(f.get(o.s), f.get(x.s), f.get(y.s))
		if c && f.name == "status" && x.s.Status == y.s.Status {
			// The same status on both sides: the later times stand.
			v, c = f.get(laterStatus(x.s, y.s)), false
		}
		if c {
			setConflict(&s.Conflicts, m.conflict(s.ID, f.name, ConflictSide{Value: f.get(x.s)}, ConflictSide{Value: f.get(y.s)}))
		}
		f.set(s, v)
	}
	s.Claim = m.mergeClaim(s.ID, o.s.Claim, x.s.Claim, y.s.Claim)
	phase, c := merge3(o.phase, x.phase, y.phase)
	if c {
		setConflict(&s.Conflicts, m.conflict(s.ID, "phase", ConflictSide{Value: x.phase}, ConflictSide{Value: y.phase}))
	}
	out.phase = phase
	sortConflicts(s.Conflicts)
	return out
}

// mergeClaim merges a step's claim:
//
//  1. A claim neither side changed (the same agent and token: renewals
//     aside) stays, running until the later of the sides' lease ends.
//  2. A claim one side changed — made, taken over, released, ended —
//     takes that side's.
//  3. Both sides made the same change: it stands, as in 1.
//  4. Both sides claimed the step anew, each for its own agent: the claim
//     of the published side stands (MergeOptions.Keep: the remote's,
//     which the remote received first); without one, the earlier claim
//     (its time, then its token, then its agent's name). The other is
//     voided, and the report names it (MergeReport.Voided).
func (m *merger) mergeClaim(id string, o, x, y *Claim) *Claim {
	later := func(a, b *Claim) *Claim {
		if a == nil || b == nil {
			return nil
		}
		c := *a
		c.Until = maxTime(a.Until, b.Until)
		return &c
	}
	switch {
	case x.same(y):
		return later(x, y)
	case o.same(x):
		return cloneClaim(y)
	case o.same(y):
		return cloneClaim(x)
	case x == nil || y == nil:
		// One side ended the claim, the other took it over: the step's
		// status merge says whether it is still in progress.
		return cloneClaim(cmp.Or(x, y))
	}
	win, lose := x, y
	switch {
	case m.moves == 0:
		win, lose = y, x
	case m.moves == 1:
	case y.Since.Before(x.Since) || y.Since.Equal(x.Since) && (y.Token < x.Token || y.Token == x.Token && y.Agent < x.Agent):
		win, lose = y, x
	}
	m.rep.Voided = append(m.rep.Voided, VoidedClaim{Step: id, Agent: lose.Agent, Token: lose.Token, Holder: win.Agent})
	m.kept("step %s: %s's claim voided; %s's claim, received first, stands", id, lose.Agent, win.Agent)
	return cloneClaim(win)
}

func cloneClaim(c *Claim) *Claim {
	if c == nil {
		return nil
	}
	cl := *c
	return &cl
}

// laterStatus is, of two steps in the same status, the one that got there
// later.
func laterStatus(x, y *Step) *Step {
	switch {
	case !x.Completed.Equal(y.Completed):
		if x.Completed.After(y.Completed) {
			return x
		}
		return y
	case !x.Started.Equal(y.Started):
		if x.Started.After(y.Started) {
			return x
		}
		return y
	case x.Retries != y.Retries:
		if x.Retries > y.Retries {
			return x
		}
		return y
	}
	return x
}

// mergePhases merges the phases by id, keeping every phase a merged step
// is in; it returns them in order.
func (m *merger) mergePhases(steps map[string]*stepLoc) []*Phase {
	base, pa, pb := phaseMap(m.base.Plan), phaseMap(m.a.Plan), phaseMap(m.b.Plan)
	used := map[string]bool{}
	for _, l := range steps {
		used[l.phase] = true
	}
	ids := map[string]bool{}
	for _, mp := range []map[string]*Phase{base, pa, pb} {
		for id := range mp {
			ids[id] = true
		}
	}
	merged := map[string]*Phase{}
	for _, id := range sortedIDs(ids) {
		o, x, y := base[id], pa[id], pb[id]
		switch {
		case o == nil && x != nil:
			merged[id] = &Phase{ID: id, Title: x.Title, Notes: x.Notes}
		case o == nil:
			merged[id] = &Phase{ID: id, Title: y.Title, Notes: y.Notes}
		case x == nil || y == nil:
			other := x
			if x == nil {
				other = y
			}
			switch {
			case other != nil && phaseKey(other) != phaseKey(o):
				m.kept("phase %s: removed on one side and changed on the other; kept", id)
				m.keptRemoved("phase "+id, boolInt(x != nil))
				merged[id] = &Phase{ID: id, Title: other.Title, Notes: other.Notes}
			case used[id]:
				if other == nil {
					other = o
				}
				m.kept("phase %s: removed, but steps are in it; kept", id)
				merged[id] = &Phase{ID: id, Title: other.Title, Notes: other.Notes}
			}
		default:
			ph := &Phase{ID: id}
			var c bool
			if ph.Title, c = merge3(o.Title, x.Title, y.Title); c {
				m.conflict("", "phase "+id+" title", ConflictSide{Value: x.Title}, ConflictSide{Value: y.Title})
			}
			if ph.Notes, c = merge3(o.Notes, x.Notes, y.Notes); c {
				m.conflict("", "phase "+id+" notes", ConflictSide{Value: x.Notes}, ConflictSide{Value: y.Notes})
			}
			merged[id] = ph
		}
	}
	for id := range used {
		if merged[id] == nil { // a phase both sides removed, with a step one side moved into it
			merged[id] = &Phase{ID: id, Title: "Phase " + id}
		}
	}
	order := orderByBoth(merged, phaseIDs(m.a.Plan), phaseIDs(m.b.Plan))
	out := make([]*Phase, len(order))
	for i, id := range order {
		out[i] = merged[id]
	}
	return out
}

// place puts the merged steps into their phases, in an order both sides'
// orders agree with.
func (m *merger) place(p *Plan, phases []*Phase, steps map[string]*stepLoc) {
	members := map[string]map[string]*Step{}
	for id, l := range steps {
		if members[l.phase] == nil {
			members[l.phase] = map[string]*Step{}
		}
		members[l.phase][id] = l.s
	}
	order := func(st *State, phase string) []string {
		var ids []string
		for _, ph := range st.Plan.Phases {
			for _, s := range ph.Steps {
				if l := steps[s.ID]; l != nil && l.phase == phase {
					ids = append(ids, s.ID)
				}
			}
		}
		return ids
	}
	for _, ph := range phases {
		for _, id := range orderByBoth(members[ph.ID], order(m.a, ph.ID), order(m.b, ph.ID)) {
			ph.Steps = append(ph.Steps, members[ph.ID][id])
		}
	}
	p.Phases = phases
}

// orderByBoth orders the ids of set so that each of the two orders given
// is kept where it can be: each id after those it follows in either
// order; among ids free to go, the least id first. Where the two orders
// disagree, the least id waiting goes first.
func orderByBoth[V any](set map[string]V, x, y []string) []string {
	after := map[string]map[string]bool{} // id → ids that must come before it
	for _, seq := range [][]string{x, y} {
		var prev string
		for _, id := range seq {
			if _, ok := set[id]; !ok {
				continue
			}
			if prev != "" && prev != id {
				if after[id] == nil {
					after[id] = map[string]bool{}
				}
				after[id][prev] = true
			}
			prev = id
		}
	}
	left := sortedIDs(set)
	var out []string
	placed := map[string]bool{}
	for len(left) > 0 {
		pick := -1
		for i, id := range left {
			free := true
			for before := range after[id] {
				if !placed[before] {
					free = false
					break
				}
			}
			if free {
				pick = i
				break
			}
		}
		if pick < 0 {
			pick = 0 // the orders disagree: a cycle, broken at the least id
		}
		placed[left[pick]] = true
		out = append(out, left[pick])
		left = slices.Delete(left, pick, pick+1)
	}
	return out
}

// breakCycles undoes, while the merged needs form a cycle, the needs
// change of the cycle's step with the largest id, recording a conflict.
func (m *merger) breakCycles(p *Plan) {
	base := stepLocs(m.base.Plan)
	sa, sb := stepLocs(m.a.Plan), stepLocs(m.b.Plan)
	for range len(p.Steps()) + 1 {
		cycle := p.findCycle()
		if cycle == nil {
			return
		}
		ids := slices.Clone(cycle[:len(cycle)-1])
		slices.SortFunc(ids, compareIDs)
		id := ids[len(ids)-1]
		s, _, _ := p.Step(id)
		var was []string
		if o := base[id]; o != nil {
			was = slices.Clone(o.s.Needs)
		}
		side := func(mp map[string]*stepLoc) ConflictSide {
			if l := mp[id]; l != nil {
				return ConflictSide{Value: strings.Join(l.s.Needs, ",")}
			}
			return ConflictSide{Removed: true}
		}
		s.Needs = slices.DeleteFunc(was, func(n string) bool { _, _, err := p.Step(n); return err != nil })
		setConflict(&s.Conflicts, m.conflict(id, "needs", side(sa), side(sb)))
		sortConflicts(s.Conflicts)
	}
}

// ---- findings ----

func findingMap(fs Findings) map[string]*Finding {
	m := make(map[string]*Finding, len(fs))
	for _, f := range fs {
		m[f.ID] = f
	}
	return m
}

func findingIDs(fs Findings) []string {
	ids := make([]string, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	return ids
}

func findingKey(f *Finding) string {
	return strings.Join([]string{string(f.Category), f.Title, f.Content, f.Source, f.Step, formatTime(f.Time)}, "\x00")
}

// findingFields are a finding's fields as a merge sees them.
var findingFields = []struct {
	name string
	get  func(*Finding) string
	set  func(*Finding, string)
}{
	{"category", func(f *Finding) string { return string(f.Category) }, func(f *Finding, v string) { f.Category = Category(v) }},
	{"title", func(f *Finding) string { return f.Title }, func(f *Finding, v string) { f.Title = v }},
	{"content", func(f *Finding) string { return f.Content }, func(f *Finding, v string) { f.Content = v }},
	{"source", func(f *Finding) string { return f.Source }, func(f *Finding, v string) { f.Source = v }},
	{"step", func(f *Finding) string { return f.Step }, func(f *Finding, v string) { f.Step = v }},
}

func (m *merger) mergeFindings() Findings {
	fb, fa, fy := m.base.Findings, m.a.Findings, m.b.Findings
	if bytes.Equal(WriteFindings(fa), WriteFindings(fb)) {
		return fy
	}
	if bytes.Equal(WriteFindings(fy), WriteFindings(fb)) || bytes.Equal(WriteFindings(fa), WriteFindings(fy)) {
		return fa
	}
	base, xa, xb := findingMap(fb), findingMap(fa), findingMap(fy)
	var out Findings
	rank := map[*Finding]int{}
	for i, f := range fb {
		o, x, y := f, xa[f.ID], xb[f.ID]
		var g *Finding
		switch {
		case x == nil && y == nil:
		case x == nil || y == nil:
			other := x
			if x == nil {
				other = y
			}
			if findingKey(other) != findingKey(o) {
				m.kept("finding %s: removed on one side and changed on the other; kept", o.ID)
				m.keptRemoved("finding "+o.ID, boolInt(x != nil))
				c := *other
				g = &c
			}
		default:
			c := *o
			g = &c
			for _, fl := range findingFields {
				v, conflict := merge3(fl.get(o), fl.get(x), fl.get(y))
				if conflict {
					m.conflict("", "finding "+o.ID+" "+fl.name, ConflictSide{Value: fl.get(x)}, ConflictSide{Value: fl.get(y)})
				}
				fl.set(g, v)
			}
			g.Time = maxTime(x.Time, y.Time)
		}
		if g != nil {
			rank[g] = i
			out = append(out, g)
		}
	}
	var added Findings
	for _, side := range []Findings{fa, fy} {
		for _, f := range side {
			if _, inBase := base[f.ID]; inBase || slices.ContainsFunc(added, func(g *Finding) bool { return g.ID == f.ID }) {
				continue
			}
			c := *f
			added = append(added, &c)
		}
	}
	slices.SortFunc(added, func(p, q *Finding) int { return cmp.Or(p.Time.Compare(q.Time), compareIDs(p.ID, q.ID)) })
	for i, f := range added {
		rank[f] = len(fb) + i
	}
	out = append(out, added...)
	slices.SortStableFunc(out, func(p, q *Finding) int {
		return cmp.Or(cmp.Compare(slices.Index(Categories, p.Category), slices.Index(Categories, q.Category)), cmp.Compare(rank[p], rank[q]))
	})
	return out
}

// ---- errors ----

func errorMap(l ErrorLog) map[string]*ErrorRecord {
	m := make(map[string]*ErrorRecord, len(l))
	for _, e := range l {
		m[e.ID] = e
	}
	return m
}

func errorKey(e *ErrorRecord) string {
	return strings.Join([]string{e.Identity(), strconv.Itoa(e.Count), formatTime(e.First), formatTime(e.Last), e.Step, e.Params, strconv.FormatBool(e.Resolved), e.Resolution}, "\x00")
}

// sameError reports whether two records both sides added under one id are
// one error seen on both: the same tool, key and message, open or
// resolved alike.
func sameError(x, y *ErrorRecord) bool {
	return x.Identity() == y.Identity() && x.Resolved == y.Resolved
}

func (m *merger) mergeErrors() ErrorLog {
	lb, la, ly := m.base.Errors, m.a.Errors, m.b.Errors
	if bytes.Equal(WriteErrors(la), WriteErrors(lb)) {
		return ly
	}
	if bytes.Equal(WriteErrors(ly), WriteErrors(lb)) || bytes.Equal(WriteErrors(la), WriteErrors(ly)) {
		return la
	}
	base, xa, xb := errorMap(lb), errorMap(la), errorMap(ly)
	ids := map[string]bool{}
	for _, mp := range []map[string]*ErrorRecord{base, xa, xb} {
		for id := range mp {
			ids[id] = true
		}
	}
	var out ErrorLog
	for _, id := range sortedIDs(ids) {
		o, x, y := base[id], xa[id], xb[id]
		var e *ErrorRecord
		switch {
		case x == nil && y == nil:
		case o == nil && (x == nil || y == nil):
			e = cmp.Or(x, y)
			c := *e
			e = &c
		case x == nil || y == nil:
			other := cmp.Or(x, y)
			if errorKey(other) != errorKey(o) {
				m.kept("error #%s: removed on one side and seen again on the other; kept", id)
				m.keptRemoved("error #"+id, boolInt(x != nil))
				c := *other
				e = &c
			}
		default:
			e = combineErrors(o, x, y)
			if m.edit >= 0 && o != nil {
				m.settledErrors = append(m.settledErrors, editsWin(e, o, [2]*ErrorRecord{x, y}[m.edit])...)
			}
		}
		if e != nil {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(p, q *ErrorRecord) int {
		switch {
		case p.Last.IsZero() != q.Last.IsZero():
			return cmp.Compare(boolInt(p.Last.IsZero()), boolInt(q.Last.IsZero()))
		case !p.Last.Equal(q.Last):
			return q.Last.Compare(p.Last)
		}
		return compareIDs(q.ID, p.ID)
	})
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// combineErrors merges one error both sides have (o is nil when both
// added it): counts add up, the first sighting is the earliest, the last
// the latest, the message, step and parameters are the latest seen, and
// resolved on either side is resolved.
func combineErrors(o, x, y *ErrorRecord) *ErrorRecord {
	if o == nil {
		o = &ErrorRecord{}
	}
	later, earlier := y, x
	if x.Last.After(y.Last) || x.Last.Equal(y.Last) && errorKey(x) > errorKey(y) {
		later, earlier = x, y
	}
	e := *later
	e.Count = max(x.Count, y.Count, x.Count+y.Count-o.Count)
	e.First = minTime(x.First, y.First)
	e.Last = maxTime(x.Last, y.Last)
	pick := func(ov, xv, yv, lv string) string {
		if v, c := merge3(ov, xv, yv); !c {
			return v
		}
		return lv
	}
	e.Tool = pick(o.Tool, x.Tool, y.Tool, later.Tool)
	e.Message = pick(o.Message, x.Message, y.Message, later.Message)
	e.Step = pick(o.Step, x.Step, y.Step, later.Step)
	e.Params = pick(o.Params, x.Params, y.Params, later.Params)
	e.Key = pick(o.Key, x.Key, y.Key, later.Key)
	e.Resolved = x.Resolved || y.Resolved
	e.ResolvedAt = maxTime(x.ResolvedAt, y.ResolvedAt)
	if v, c := merge3(o.Resolution, x.Resolution, y.Resolution); c {
		e.Resolution = joinDistinct(earlier.Resolution, later.Resolution)
	} else {
		e.Resolution = v
	}
	if !e.Resolved {
		e.ResolvedAt, e.Resolution = time.Time{}, ""
	}
	return &e
}

// editsWin gives e, an error merged from its base o, each field that the
// person's edit p changed from o at p's value, as an Edit merge does a
// step's: combineErrors takes the later sighting's, which for an error
// seen again since is the agent's. It names the fields so settled.
func editsWin(e, o, p *ErrorRecord) []string {
	var settled []string
	for _, f := range []struct {
		name           string
		field          *string
		before, theirs string
	}{
		{"message", &e.Message, o.Message, p.Message},
		{"step", &e.Step, o.Step, p.Step},
		{"params", &e.Params, o.Params, p.Params},
		{"key", &e.Key, o.Key, p.Key},
		{"resolution", &e.Resolution, o.Resolution, p.Resolution},
	} {
		if f.theirs != f.before && *f.field != f.theirs {
			*f.field = f.theirs
			settled = append(settled, "error #"+e.ID+" "+f.name)
		}
	}
	if p.Resolved != o.Resolved && e.Resolved != p.Resolved {
		e.Resolved, e.ResolvedAt = p.Resolved, p.ResolvedAt
		settled = append(settled, "error #"+e.ID+" resolved")
	}
	if !e.Resolved {
		e.ResolvedAt, e.Resolution = time.Time{}, ""
	}
	return settled
}

// ---- the deliverable ----

// Conflict markers in deliverable.md, around each side's text.
const (
	markerOurs   = "<<<<<<< "
	markerSplit  = "======="
	markerTheirs = ">>>>>>> "
)

func (m *merger) mergeDeliverable() []byte {
	o, x, y := m.base.Deliverable, m.a.Deliverable, m.b.Deliverable
	v, c := merge3(string(o), string(x), string(y))
	if !c {
		return []byte(v)
	}
	side := func(d []byte) ConflictSide {
		if len(d) == 0 {
			return ConflictSide{Removed: true}
		}
		return ConflictSide{Value: fmt.Sprintf("%d lines", bytes.Count(d, []byte("\n")))}
	}
	m.conflict("", "deliverable", side(x), side(y))
	var b bytes.Buffer
	for i, text := range [][]byte{x, y} {
		b.WriteString([]string{markerOurs + m.revs[0], markerSplit}[i] + "\n")
		b.Write(text)
		if len(text) > 0 && text[len(text)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	b.WriteString(markerTheirs + m.revs[1] + "\n")
	return b.Bytes()
}

// deliverableSide reads one side's text out of a deliverable that holds
// both between conflict markers.
func deliverableSide(d []byte, rev string) ([]byte, bool) {
	s := string(d)
	start := strings.Index(s, markerOurs)
	split := strings.Index(s, "\n"+markerSplit+"\n")
	end := strings.LastIndex(s, "\n"+markerTheirs)
	if start < 0 || split < start || end < split {
		return nil, false
	}
	first, _, _ := strings.Cut(s[start+len(markerOurs):], "\n")
	last, _, _ := strings.Cut(s[end+1+len(markerTheirs):], "\n")
	body0 := s[start+len(markerOurs)+len(first)+1 : split+1]
	body1 := s[split+len(markerSplit)+2 : end+1]
	before, after := s[:start], s[end+1+len(markerTheirs)+len(last):]
	after = strings.TrimPrefix(after, "\n")
	switch {
	case strings.HasPrefix(first, rev) || strings.HasPrefix(rev, first):
		return []byte(before + body0 + after), true
	case strings.HasPrefix(last, rev) || strings.HasPrefix(rev, last):
		return []byte(before + body1 + after), true
	}
	return nil, false
}

func minTime(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func firstLineOf(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return Clip(first)
}
