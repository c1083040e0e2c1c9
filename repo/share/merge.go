package share

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/store"
)

// A session that diverged from a remote's copy is merged by plan.Merge:
// one merge revision whose parents are this machine's head (first) and
// the remote's tip (second), whose files are the two sides merged from
// their common ancestor, and whose message lists what each side brought,
// what was renumbered and what conflicts. The machine that merges pushes
// the merge; the other fetches it as a fast-forward: both end on the
// same commits. The merged plan itself depends only on the two sides —
// never on which machine merges, nor on the order — so two machines that
// merged the same two revisions would write the same files.

// MergeMode says how a divergence is settled.
type MergeMode int

// Merge modes.
const (
	MergeBoth   MergeMode = iota // merge the two plans (plan.Merge)
	MergeOurs                    // keep this machine's plan; the remote's history is recorded beside it
	MergeTheirs                  // take the remote's plan; this machine's history is recorded beside it
)

// mergeBase returns the common ancestor of head and tip to merge from: of
// their common ancestors, one that no other is a descendant of — the
// newest by time when there are several (a criss-cross), then the least
// hash, so that every machine picks the same one.
func mergeBase(s *repo.Session, head, tip plumbing.Hash) (plumbing.Hash, error) {
	entries, err := s.RevisionLog(head)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	inLog := make(map[plumbing.Hash]int, len(entries))
	for i, e := range entries {
		inLog[e.Hash] = i
	}
	// The head's revisions the tip's history reaches first: candidates.
	var cands []int
	seen := map[plumbing.Hash]bool{}
	for queue := []plumbing.Hash{tip}; len(queue) > 0; {
		h := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[h] || h.IsZero() {
			continue
		}
		seen[h] = true
		if i, ok := inLog[h]; ok {
			cands = append(cands, i)
			continue
		}
		c, err := s.Store().ReadCommit(h)
		if err != nil {
			return plumbing.ZeroHash, plan.WrapError(plan.CodeIOError, err, "cannot read revision %s of session %s", short(h), s.ID)
		}
		queue = append(queue, c.Parents...)
	}
	if len(cands) == 0 {
		return plumbing.ZeroHash, nil
	}
	// Drop candidates that are ancestors of other candidates.
	ancestor := map[int]bool{}
	for _, c := range cands {
		for queue := slices.Clone(entries[c].Parents); len(queue) > 0; {
			h := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			i, ok := inLog[h]
			if !ok || ancestor[i] {
				continue
			}
			ancestor[i] = true
			queue = append(queue, entries[i].Parents...)
		}
	}
	best := -1
	for _, c := range cands {
		if ancestor[c] {
			continue
		}
		if best < 0 || entries[c].Time.After(entries[best].Time) ||
			entries[c].Time.Equal(entries[best].Time) && entries[c].Hash.String() < entries[best].Hash.String() {
			best = c
		}
	}
	return entries[best].Hash, nil
}

// stateAt reads and parses a revision's files.
func stateAt(s *repo.Session, h plumbing.Hash) (*plan.State, error) {
	files, err := s.Store().ReadFilesAt(h)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "the history of session %s is damaged: revision %s cannot be read; plangit repair recovers it", s.ID, short(h)).With("session", s.ID)
	}
	return plan.ParseState(files)
}

// sideSince returns the revisions of tip's history that base's lacks, in
// order. The session's history (entries) is read from the revision log;
// only what tip has beyond it is read from the commits.
func sideSince(s *repo.Session, tip, base plumbing.Hash, entries []store.Entry) ([]store.Entry, error) {
	index := make(map[plumbing.Hash]int, len(entries))
	for i, e := range entries {
		index[e.Hash] = i
	}
	ofBase := map[plumbing.Hash]int{}
	for queue := []plumbing.Hash{base}; len(queue) > 0; {
		h := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		i, ok := index[h]
		if _, seen := ofBase[h]; !ok || seen {
			continue
		}
		ofBase[h] = i
		queue = append(queue, entries[i].Parents...)
	}
	side, _, err := store.Collect(s.Store(), tip, ofBase, plumbing.ZeroHash)
	if err != nil {
		return nil, repo.StoreError(err, s.GitDir())
	}
	return store.TopoOrder(tip, side), nil
}

// whoMade lists who made revisions, each once, in order.
func whoMade(entries []store.Entry) []string {
	var out []string
	for _, e := range entries {
		if w := whoFull(repo.RevisionOf(e)); !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// whoFull is Who with the person's address.
func whoFull(r repo.Revision) string {
	if r.Author.Name == "" {
		return r.Actor
	}
	return fmt.Sprintf("%s <%s>, %s", r.Author.Name, r.Author.Email, r.Actor)
}

// merge settles a divergence between head and tip, a remote's revision,
// with a merge revision (mode says how). It runs under the session lock.
func merge(s *repo.Session, head, tip plumbing.Hash, remote string, mode MergeMode, opts repo.Options) (*repo.Merged, error) {
	base, err := mergeBase(s, head, tip)
	if err != nil {
		return nil, err
	}
	if base.IsZero() {
		return nil, plan.Errorf(plan.CodeConflict, "session %s here and on %s share no revision: they are two sessions of the same id; plangit adopt %s --session NEW moves this one to another id, then fetch again", s.ID, remote, s.ID).With("session", s.ID)
	}
	baseSt, err := stateAt(s, base)
	if err != nil {
		return nil, plan.WrapError(plan.CodeOf(err), err, "the common ancestor %s of session %s does not parse", short(base), s.ID)
	}
	ours, err := stateAt(s, head)
	if err != nil {
		return nil, err
	}
	theirs, err := stateAt(s, tip)
	if err != nil {
		return nil, err
	}
	entries, err := s.RevisionLog(head)
	if err != nil {
		return nil, err
	}
	oursSince, err := sideSince(s, head, base, entries)
	if err != nil {
		return nil, err
	}
	theirsSince, err := sideSince(s, tip, base, entries)
	if err != nil {
		return nil, err
	}
	issued, err := s.Issued(head, theirsSince)
	if err != nil {
		return nil, err
	}
	issued = issued.Holding(theirs)
	label := repo.TrackingName(remote)
	m := &repo.Merged{Base: base.String(), Sides: []repo.MergedSide{
		{Rev: head.String(), Label: "this session", Who: whoMade(oursSince)},
		{Rev: tip.String(), Label: label, Who: whoMade(theirsSince)},
	}}
	var merged *plan.State
	change := plan.Change{Op: "merge"}
	switch mode {
	case MergeBoth:
		var rep *plan.MergeReport
		merged, rep, err = plan.Merge(baseSt, plan.MergeSide{Rev: short(head), State: ours}, plan.MergeSide{Rev: short(tip), State: theirs},
			issued.MergeFloor(plan.MergeOptions{Keep: plan.KeepY})) // the remote's records are published: theirs keep their ids
		if err != nil {
			return nil, err
		}
		m.Sides[0].Changes, m.Sides[1].Changes = rep.Sides[0].Changes, rep.Sides[1].Changes
		m.Renumbered, m.Conflicts, m.Kept, m.Voided = rep.Renumbered, rep.Conflicts, rep.Kept, rep.Voided
		change.Summary = fmt.Sprintf("merge: %s (%s) into %s: %s + %s", label, short(tip), short(head),
			count(len(m.Sides[0].Changes), "change"), count(len(m.Sides[1].Changes), "change"))
		if n := len(m.Conflicts); n > 0 {
			change.Summary += ", " + count(n, "conflict")
		}
		for _, v := range m.Voided {
			change.Summary += fmt.Sprintf("; step %s: claim of %s voided, %s's claim, received first, stands", v.Step, v.Agent, v.Holder)
		}
	default:
		keep, drop := ours, theirs
		dropped := 1
		change.Summary = fmt.Sprintf("merge: kept this session's plan (%s); dropped %s's (%s)", short(head), label, short(tip))
		if mode == MergeTheirs {
			keep, drop, dropped = theirs, ours, 0
			change.Summary = fmt.Sprintf("merge: took %s's plan (%s); dropped this session's (%s)", label, short(tip), short(head))
		}
		merged = keep.Clone()
		m.Sides[0].Changes = plan.DescribeChanges(baseSt, ours)
		m.Sides[1].Changes = plan.DescribeChanges(baseSt, theirs)
		m.Dropped, m.DroppedRev = m.Sides[dropped].Changes, m.Sides[dropped].Rev
		change.Summary += ": " + count(len(m.Dropped), "change") + " dropped"
		// No id the dropped side issued is given again.
		merged.Plan.NextStep = max(merged.Plan.NextStep, issued.Steps+1, drop.Plan.NextStep)
		if n := max(drop.Plan.NextFinding, maxIDOf(drop.Findings, findingID)+1); n > max(merged.Plan.NextFinding, maxIDOf(merged.Findings, findingID)+1) {
			merged.Plan.NextFinding = n
		}
		if n := max(drop.Plan.NextError, maxIDOf(drop.Errors, errorID)+1); n > max(merged.Plan.NextError, maxIDOf(merged.Errors, errorID)+1) {
			merged.Plan.NextError = n
		}
	}
	files := merged.Files()
	if mode != MergeBoth {
		if kept, err := s.Store().ReadFilesAt(keepRev(mode, head, tip)); err == nil && sameFiles(files, kept) {
			files = kept // byte for byte the side kept
		}
	}
	if err := s.LandMerge(repo.MergeCommit{Head: head, Tip: tip, Base: base, Files: files, Plan: merged.Plan, Change: change, Merged: m}, opts); err != nil {
		return nil, err
	}
	if err := noteVoided(s, m.Voided); err != nil {
		s.Warnf("the merge %s voided claims, and their agents will not be told: %v", short(plumbing.NewHash(m.Commit.Hash)), err)
	}
	return m, nil
}

func keepRev(mode MergeMode, head, tip plumbing.Hash) plumbing.Hash {
	if mode == MergeTheirs {
		return tip
	}
	return head
}

// maxIDOf is the largest numeric id among records, 0 for none.
func maxIDOf[R any](records []R, id func(R) string) int {
	n := 0
	for _, r := range records {
		var v int
		fmt.Sscan(id(r), &v)
		n = max(n, v)
	}
	return n
}

func findingID(f *plan.Finding) string   { return f.ID }
func errorID(e *plan.ErrorRecord) string { return e.ID }

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// sameFiles reports whether a and b hold the same files, byte for byte.
func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for name, x := range a {
		if y, ok := b[name]; !ok || !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "(none)"
	}
	return h.String()[:7]
}

// Sides tells, of the two revisions a conflict names (abbreviated), which
// is this machine's own side: the one it had first, numbered lower here —
// the head it merged the other into, or, where the other machine merged
// and this one fetched the merge, its own head then. It returns the two
// as full hashes, this machine's first.
func Sides(s *repo.Session, a, b string) (ours, theirs string, err error) {
	head, err := s.Branch()
	if err != nil {
		return "", "", err
	}
	entries, err := s.RevisionLog(head)
	if err != nil {
		return "", "", err
	}
	find := func(rev string) (store.Entry, error) {
		var found *store.Entry
		for i := range entries {
			if strings.HasPrefix(entries[i].Hash.String(), strings.ToLower(rev)) {
				if found != nil {
					return store.Entry{}, plan.Errorf(plan.CodeRevisionNotFound, "revision %q is ambiguous", rev).Hinted("give more of the hash")
				}
				found = &entries[i]
			}
		}
		if found == nil {
			return store.Entry{}, plan.Errorf(plan.CodeRevisionNotFound, "revision %s, a side of the conflict, is not in session %s's history", rev, s.ID).Hinted("settle it with --take REV or --text")
		}
		return *found, nil
	}
	x, err := find(a)
	if err != nil {
		return "", "", err
	}
	y, err := find(b)
	if err != nil {
		return "", "", err
	}
	if y.N < x.N {
		x, y = y, x
	}
	return x.Hash.String(), y.Hash.String(), nil
}
