package history

import (
	"cmp"
	"reflect"
	"slices"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// lineage is a session's history as a graph: every revision (merged-in
// ones too, in the order this machine numbered them, parents first) and,
// for each, how the current plan's step ids read there — a merge that
// renumbered a step both sides added under one id gives it another id on
// the side it came from.
type lineage struct {
	s     *repo.Session
	revs  []repo.Revision
	index map[string]int             // hash → position in revs
	ids   []map[string]string        // per revision: current id → id there, where they differ
	back  []map[string]string        // per revision: id there → current id, where they differ
	info  map[string]*repo.MergeInfo // merges' messages, read once
	state map[string]*plan.State     // revisions' states, read once
}

func newLineage(s *repo.Session) (*lineage, error) {
	revs, err := s.Revisions()
	if err != nil {
		return nil, err
	}
	return lineageOf(s, revs), nil
}

// lineageOf is the lineage of revs, a revision's whole history in the
// log's order: the revision itself last.
func lineageOf(s *repo.Session, revs []repo.Revision) *lineage {
	l := &lineage{s: s, revs: revs, index: make(map[string]int, len(revs)), ids: make([]map[string]string, len(revs)),
		back: make([]map[string]string, len(revs)), info: map[string]*repo.MergeInfo{}, state: map[string]*plan.State{}}
	for i, r := range revs {
		l.index[r.Hash] = i
	}
	// From the newest down, each revision's ids pass to its parents,
	// through a merge's renumbering.
	reached := make([]bool, len(revs))
	if len(revs) > 0 {
		reached[len(revs)-1] = true
	}
	for i := len(revs) - 1; i >= 0; i-- {
		if !reached[i] {
			continue
		}
		r := revs[i]
		for _, p := range parentsOf(r) {
			pi, ok := l.index[p]
			if !ok {
				continue
			}
			next := l.ids[i]
			if r.IsMerge() {
				if info := l.mergeInfo(r.Hash); info != nil && info.StepIDs[p] != nil {
					next = compose(l.ids[i], info.StepIDs[p])
				}
			}
			if !reached[pi] {
				reached[pi], l.ids[pi] = true, next
			} else {
				for h, x := range next {
					if l.ids[pi] == nil {
						l.ids[pi] = map[string]string{}
					}
					if _, ok := l.ids[pi][h]; !ok {
						l.ids[pi][h] = x
					}
				}
			}
		}
	}
	for i, m := range l.ids {
		if len(m) > 0 {
			l.back[i] = map[string]string{}
			for h, x := range m {
				l.back[i][x] = h
			}
		}
	}
	return l
}

func parentsOf(r repo.Revision) []string {
	if len(r.Parents) > 0 {
		return r.Parents
	}
	if r.Parent != "" {
		return []string{r.Parent}
	}
	return nil
}

// compose follows ids through one more renaming: current id → id before
// (ids) → id on the parent (ren).
func compose(ids, ren map[string]string) map[string]string {
	out := map[string]string{}
	for h, x := range ids {
		if y, ok := ren[x]; ok {
			x = y
		}
		out[h] = x
	}
	for x, y := range ren {
		if _, ok := ids[x]; !ok {
			out[x] = y
		}
	}
	for h, x := range out {
		if h == x {
			delete(out, h)
		}
	}
	return out
}

// current returns the current id of the step that revision i knows as
// id, or "" when the current plan knows no such step under any id.
func (l *lineage) current(i int, id string) string {
	if h, ok := l.back[i][id]; ok {
		return h
	}
	if _, renamed := l.ids[i][id]; renamed {
		return ""
	}
	return id
}

// local returns the id step id of the current plan has at revision i.
func (l *lineage) local(i int, id string) string {
	if x, ok := l.ids[i][id]; ok {
		return x
	}
	return id
}

func (l *lineage) mergeInfo(hash string) *repo.MergeInfo {
	if info, ok := l.info[hash]; ok {
		return info
	}
	info := l.s.MergeInfo(hash)
	l.info[hash] = info
	return info
}

func (l *lineage) stateOf(hash string) *plan.State {
	if st, ok := l.state[hash]; ok {
		return st
	}
	st, err := l.s.StateOf(hash)
	if err != nil {
		st = nil
	}
	l.state[hash] = st
	return st
}

// touch is one revision's change to a step, by the step's current id.
type touch struct {
	rev  int
	step string // current id
	t    plan.Touch
}

// touches lists the changes revisions other than merges made to steps of
// the current plan, in the order they were made: by time, then by number.
// A merge only brings its sides' changes together; what it decides
// itself (a conflict, a renumbering) shows in the touches of the
// revision that settles it.
func (l *lineage) touches() []touch {
	var out []touch
	for i, r := range l.revs {
		if r.IsMerge() {
			continue
		}
		for _, t := range r.Touches {
			if id := l.current(i, t.Step); id != "" {
				out = append(out, touch{rev: i, step: id, t: t})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b touch) int {
		return cmp.Or(l.revs[a.rev].Time.Compare(l.revs[b.rev].Time), cmp.Compare(a.rev, b.rev))
	})
	return out
}

// lastChange finds, for each step of the current plan, the revision whose
// change of it stands in the current plan, following both parents of a
// merge: into the parent whose version of the step the merge kept, or,
// when the merge combined both sides' changes, into each — the newer
// change then stands. A merge that left the step in conflict is itself
// the last change. match, when set, narrows what counts as a change.
func (l *lineage) lastChange(steps []*plan.Step, match func(plan.Touch) bool) map[string]int {
	found := map[string]int{}
	if len(l.revs) == 0 {
		return found
	}
	consider := func(h string, i int) {
		if j, ok := found[h]; !ok || l.revs[i].Time.After(l.revs[j].Time) || l.revs[i].Time.Equal(l.revs[j].Time) && i > j {
			found[h] = i
		}
	}
	pending := make([]map[string]string, len(l.revs)) // current id → id there
	last := len(l.revs) - 1
	pending[last] = map[string]string{}
	for _, s := range steps {
		pending[last][s.ID] = s.ID
	}
	pass := func(hash, h, id string) {
		if pi, ok := l.index[hash]; ok {
			if pending[pi] == nil {
				pending[pi] = map[string]string{}
			}
			pending[pi][h] = id
		}
	}
	for i := last; i >= 0; i-- {
		r := l.revs[i]
		if len(pending[i]) == 0 {
			continue
		}
		if !r.IsMerge() {
			for h, id := range pending[i] {
				hit := false
				for _, t := range r.Touches {
					if t.Step == id && (match == nil || match(t)) {
						hit = true
					}
				}
				if hit {
					consider(h, i)
				} else if r.Parent != "" {
					pass(r.Parent, h, id)
				}
			}
			pending[i] = nil
			continue
		}
		info := l.mergeInfo(r.Hash)
		st := l.stateOf(r.Hash)
		for h, id := range pending[i] {
			if info != nil && slices.Contains(info.ConflictOn, "step "+id) && match == nil {
				consider(h, i)
				continue
			}
			var mine *plan.Step
			if st != nil {
				mine, _, _ = st.Plan.Step(id)
			}
			kept := -1
			ids := make([]string, len(r.Parents))
			for k, p := range r.Parents {
				ids[k] = id
				if info != nil && info.StepIDs[p] != nil {
					if x, ok := info.StepIDs[p][id]; ok {
						ids[k] = x
					}
				}
				if ps := l.stateOf(p); ps != nil && mine != nil && kept < 0 {
					if theirs, _, err := ps.Plan.Step(ids[k]); err == nil && sameStep(mine, theirs) {
						kept = k
					}
				}
			}
			if kept >= 0 {
				pass(r.Parents[kept], h, ids[kept])
				continue
			}
			for k, p := range r.Parents {
				pass(p, h, ids[k])
			}
		}
		pending[i] = nil
	}
	return found
}

// sameStep reports whether two versions of a step are the same but for
// their id.
func sameStep(a, b *plan.Step) bool {
	x, y := *a, *b
	x.ID, y.ID = "", ""
	return reflect.DeepEqual(x, y)
}
