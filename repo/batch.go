package repo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
)

// Queued hook events are applied in batches: each event's change is made,
// in order, to one state in memory, through the hooks' own Update calls,
// and the batch is committed once. A storm of hooks so costs one commit per
// batch, not one per event, while each event keeps the rules and the order
// it would have had live.

// maxBatch bounds the events one commit applies.
const maxBatch = 100

// batch is queued events being applied.
type batch struct {
	st       *plan.State
	start    *plan.Plan // the plan before the batch
	head     plumbing.Hash
	base     map[string]plumbing.Hash
	files    map[string][]byte // the working files the batch started from
	fileNext int               // the plan file's own next step id
	reserved int               // the next step id after the history's largest
	issued   int
	notes    *issuedIDs   // the largest finding and error ids issued, when known
	held     notesReserve // the ids reserved past them
	changes  []plan.Change
	metas    []Meta
	now      time.Time
	marker   bool
}

// batched is Update while a batch is open: fn changes the batch's state.
func (s *Session) batched(opts Options, fn changeFn) (*Result, error) {
	b := s.queue.batch
	if b.st == nil {
		if err := s.beginBatch(b, opts); err != nil {
			return nil, err
		}
	}
	snap := cloneState(b.st)
	next, files, change, err := fn(b.st)
	if err == nil && (files != nil || next != b.st) {
		err = errors.New("a queued hook event cannot restore files")
	}
	if err != nil {
		b.st = snap // the event's half-done changes go
		return nil, err
	}
	if change.Op != "" {
		b.changes = append(b.changes, change)
		b.metas = append(b.metas, opts.Meta)
		b.now = opts.Time()
		b.marker = b.marker || change.Marker
	}
	return &Result{State: b.st}, nil
}

// beginBatch reads the state the batch starts from, adopting a hand edit
// of the working files first, as any change does.
func (s *Session) beginBatch(b *batch, opts Options) error {
	head, err := s.readRef()
	if err != nil {
		return err
	}
	if head.IsZero() {
		return s.noBranch()
	}
	err = s.attempt(opts, func(st *plan.State) (*plan.State, map[string][]byte, plan.Change, error) {
		return st, nil, plan.Change{}, nil
	}, &Result{}, &head)
	if err != nil {
		return err
	}
	base, err := s.objs.readTreeFiles(head)
	if err != nil {
		return s.damaged(head, err)
	}
	files, err := s.readWorking()
	if err != nil {
		return err
	}
	if !sameFiles(files, base) {
		return errRetry
	}
	st, err := parseFiles(files)
	if err != nil {
		return err
	}
	issued, err := s.issuedSteps(head)
	if err != nil {
		return err
	}
	b.fileNext = st.Plan.NextStep
	st.Plan.ReserveSteps(issued + 1)
	b.st, b.start, b.reserved, b.issued = st, st.Plan.Clone(), st.Plan.NextStep, issued
	b.notes = nil
	if n, err := s.issuedNotes(head); err == nil {
		b.notes, b.held = &n, reserveNotes(st, n)
	}
	b.head, b.base, b.files = head, base, files
	return nil
}

// finishBatch commits what the batch's events changed, as one revision.
func (s *Session) finishBatch(b *batch) error {
	if b.st == nil || len(b.changes) == 0 {
		return nil
	}
	if b.st.Plan.NextStep == b.reserved {
		b.st.Plan.NextStep = b.fileNext
	}
	if b.notes != nil {
		b.held.settle(b.st)
	}
	next := b.st.Files()
	if sameFiles(next, b.base) && !b.marker {
		return nil
	}
	change, meta := combine(b.changes, b.metas)
	ci := commitInfo{now: b.now, change: change, meta: meta, counts: b.st.Plan.Counts(),
		touches: plan.Touches(plan.DiffSteps(b.start, b.st.Plan)), issued: b.issued, notes: b.notes, redact: b.st.Plan.Rules.Redact}
	_, _, err := s.commit(b.head, b.base, b.files, next, ci)
	return err
}

// combine makes one change of a batch's: the change itself when there is
// one; otherwise op "queued" (or the op all share), and a summary counting
// each distinct summary.
func combine(changes []plan.Change, metas []Meta) (plan.Change, Meta) {
	if len(changes) == 1 {
		return changes[0], metas[0]
	}
	c := plan.Change{Op: changes[0].Op, Step: changes[0].Step}
	m := metas[0]
	var order []string
	count := map[string]int{}
	for i, ch := range changes {
		if ch.Op != c.Op {
			c.Op = "queued"
		}
		if ch.Step != c.Step {
			c.Step = ""
		}
		c.Marker = c.Marker || ch.Marker
		if metas[i].Actor != m.Actor {
			m.Actor = "hook"
		}
		if metas[i].Hook != m.Hook {
			m.Hook = ""
		}
		if metas[i].Tool != m.Tool {
			m.Tool = ""
		}
		if count[ch.Summary] == 0 {
			order = append(order, ch.Summary)
		}
		count[ch.Summary]++
	}
	parts := make([]string, 0, 4)
	for i, sum := range order {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(order)-3))
			break
		}
		if n := count[sum]; n > 1 {
			sum += fmt.Sprintf(" ×%d", n)
		}
		parts = append(parts, sum)
	}
	c.Summary = fmt.Sprintf("%d queued hook events: %s", len(changes), strings.Join(parts, "; "))
	return c, m
}

// cloneState copies a state deeply enough that changing the copy leaves
// the original as it was.
func cloneState(st *plan.State) *plan.State {
	c := &plan.State{Plan: st.Plan.Clone(), Deliverable: slices.Clone(st.Deliverable)}
	for _, f := range st.Findings {
		cf := *f
		c.Findings = append(c.Findings, &cf)
	}
	for _, e := range st.Errors {
		ce := *e
		c.Errors = append(c.Errors, &ce)
	}
	return c
}
