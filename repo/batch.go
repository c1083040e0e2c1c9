package repo

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
)

// Queued hook events are applied in batches: each event's change is made,
// in order, to one state in memory, through the hooks' own engine (which
// gets the Batch to make its changes through, in place of Update), and
// the batch is committed once, under the lock of the change that drains
// the queue. A storm of hooks so costs one commit per batch, not one per
// event, while each event keeps the rules and the order it would have had
// live.

// maxBatch bounds the events one commit applies.
const maxBatch = 100

// Batch is queued hook events being applied as one revision.
type Batch struct {
	s       *Session
	r       *read      // the branch and working files the batch started from
	start   *plan.Plan // the plan before the batch
	head    plumbing.Hash
	changes []plan.Change
	metas   []Meta
	now     time.Time
	marker  bool
}

// Apply makes one queued event's change to the batch's state, as Update
// would make it; the batch commits it with the others.
func (b *Batch) Apply(opts Options, fn func(*plan.State) (plan.Change, error)) (*Result, error) {
	if b.r == nil {
		if err := b.begin(opts); err != nil {
			return nil, err
		}
	}
	snap := cloneState(b.r.st)
	change, err := fn(b.r.st)
	if err != nil {
		b.r.st = snap // the event's half-done changes go
		return nil, err
	}
	if change.Op != "" {
		b.changes = append(b.changes, change)
		b.metas = append(b.metas, opts.Meta)
		b.now = opts.Time()
		b.marker = b.marker || change.Marker
	}
	return &Result{State: b.r.st}, nil
}

// begin reads the state the batch starts from, adopting a hand edit of
// the working files first, as any change does.
func (b *Batch) begin(opts Options) error {
	s := b.s
	head, err := s.readRef()
	if err != nil {
		return err
	}
	if head.IsZero() {
		return noBranch(s)
	}
	c := &change{s: s, opts: opts, head: head, fn: func(st *plan.State, _ Base) (*plan.State, map[string][]byte, plan.Change, error) {
		return st, nil, plan.Change{}, nil
	}}
	if err := c.attempt(); err != nil {
		return err
	}
	r, err := c.read()
	if err != nil {
		return err
	}
	if !sameFiles(r.files, r.base) {
		return errRetry
	}
	b.r, b.start, b.head = r, r.st.Plan.Clone(), c.head
	return nil
}

// finish commits what the batch's events changed, as one revision.
func (b *Batch) finish() error {
	if b.r == nil || len(b.changes) == 0 {
		return nil
	}
	st := b.r.st
	next := st.Files()
	if sameFiles(next, b.r.base) && !b.marker {
		return nil
	}
	change, meta := combine(b.changes, b.metas)
	touches := plan.Touches(plan.DiffSteps(b.start, st.Plan))
	issued := b.r.floor.Raise(plan.Issued{Steps: maxTouched(touches)}).Holding(st)
	ci := commitInfo{now: b.now, change: change, meta: meta, counts: st.Plan.Counts(),
		touches: touches, issued: &issued, redact: st.Plan.Rules.Redact}
	_, _, err := commit(b.s, b.head, b.r.base, b.r.files, next, ci)
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
