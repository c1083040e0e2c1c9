package repo

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
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

// Merged is what a merge did.
type Merged struct {
	Commit     *Commit           `json:"commit"`
	Base       string            `json:"base"`
	Sides      []MergedSide      `json:"sides"`                // this machine's, then the remote's
	Renumbered []plan.Renumbered `json:"renumbered,omitempty"` // records both sides added under one id
	Conflicts  []plan.ConflictAt `json:"conflicts,omitempty"`
	Kept       []string          `json:"kept,omitempty"`    // what one side removed and the merge kept
	Dropped    []string          `json:"dropped,omitempty"` // --ours, --theirs: the changes of the side not taken
	DroppedRev string            `json:"dropped_rev,omitempty"`
}

// MergedSide is one side of a merge: its tip, who made its revisions since
// the common ancestor, and what they changed.
type MergedSide struct {
	Rev     string   `json:"rev"`
	Label   string   `json:"label"` // "this session", "origin/main"
	Who     []string `json:"who,omitempty"`
	Changes []string `json:"changes"`
}

// mergeBase returns the common ancestor of head and tip to merge from: of
// their common ancestors, one that no other is a descendant of — the
// newest by time when there are several (a criss-cross), then the least
// hash, so that every machine picks the same one.
func (s *Session) mergeBase(head, tip plumbing.Hash) (plumbing.Hash, error) {
	entries, err := s.revisions(head)
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
		c, err := s.store.ReadCommit(h)
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
func (s *Session) stateAt(h plumbing.Hash) (*plan.State, error) {
	files, err := s.store.ReadFilesAt(h)
	if err != nil {
		return nil, s.damaged(h, err)
	}
	return plan.ParseState(files)
}

// sideSince returns the revisions of tip's history that base's lacks, in
// order. The session's history (entries) is read from the revision log;
// only what tip has beyond it is read from the commits.
func (s *Session) sideSince(tip, base plumbing.Hash, entries []revEntry) ([]revEntry, error) {
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
	side, _, err := store.Collect(s.store, tip, ofBase, plumbing.ZeroHash)
	if err != nil {
		return nil, storeError(err, s.gitDir)
	}
	return fromEntries(store.TopoOrder(tip, side)), nil
}

// whoMade lists who made revisions, each once, in order.
func whoMade(entries []revEntry) []string {
	var out []string
	for _, e := range entries {
		if w := e.revision().whoFull(); !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// whoFull is Who with the person's address.
func (r Revision) whoFull() string {
	if r.Author.Name == "" {
		return r.Actor
	}
	return fmt.Sprintf("%s <%s>, %s", r.Author.Name, r.Author.Email, r.Actor)
}

// merge settles a divergence between head and tip, a remote's revision,
// with a merge revision (mode says how). It runs under the session lock.
func (s *Session) merge(head, tip plumbing.Hash, remote string, mode MergeMode, opts Options) (*Merged, error) {
	base, err := s.mergeBase(head, tip)
	if err != nil {
		return nil, err
	}
	if base.IsZero() {
		return nil, plan.Errorf(plan.CodeConflict, "session %s here and on %s share no revision: they are two sessions of the same id; plangit adopt %s --session NEW moves this one to another id, then fetch again", s.ID, remote, s.ID).With("session", s.ID)
	}
	baseSt, err := s.stateAt(base)
	if err != nil {
		return nil, plan.WrapError(plan.CodeOf(err), err, "the common ancestor %s of session %s does not parse", short(base), s.ID)
	}
	ours, err := s.stateAt(head)
	if err != nil {
		return nil, err
	}
	theirs, err := s.stateAt(tip)
	if err != nil {
		return nil, err
	}
	entries, err := s.revisions(head)
	if err != nil {
		return nil, err
	}
	oursSince, err := s.sideSince(head, base, entries)
	if err != nil {
		return nil, err
	}
	theirsSince, err := s.sideSince(tip, base, entries)
	if err != nil {
		return nil, err
	}
	issued, err := s.issued(head)
	if err != nil {
		return nil, err
	}
	for _, e := range theirsSince {
		issued.Steps = max(issued.Steps, maxTouched(e.Touches))
	}
	issued = issued.Holding(theirs)
	label := TrackingName(remote)
	m := &Merged{Base: base.String(), Sides: []MergedSide{
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
		m.Renumbered, m.Conflicts, m.Kept = rep.Renumbered, rep.Conflicts, rep.Kept
		change.Summary = fmt.Sprintf("merge: %s (%s) into %s: %s + %s", label, short(tip), short(head),
			count(len(m.Sides[0].Changes), "change"), count(len(m.Sides[1].Changes), "change"))
		if n := len(m.Conflicts); n > 0 {
			change.Summary += ", " + count(n, "conflict")
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
	if mode != MergeBoth && sameFiles(files, hashFiles(s.filesOrNil(keepRev(mode, head, tip)))) {
		files, _ = s.store.ReadFilesAt(keepRev(mode, head, tip)) // byte for byte the side kept
	}
	now := opts.Time()
	if opts.Meta.Actor == "" {
		opts.Meta.Actor = "user"
	}
	before, _ := plan.ParsePlan(s.fileAt(head, plan.PlanFile))
	touches := plan.Touches(plan.DiffSteps(before, merged.Plan))
	ci := commitInfo{now: now, change: change, meta: opts.Meta, counts: merged.Plan.Counts(), touches: touches, redact: merged.Plan.Rules.Redact}
	msg := mergeMessage(ci, m, base, tip)
	hash, err := s.writeMerge(head, tip, files, msg, now)
	if err != nil {
		return nil, err
	}
	if err := s.moveHead(hash, head, files); err != nil {
		return nil, err
	}
	// The id cache is left at head, an ancestor: the next change completes
	// it from the revisions the merge brought, findings and errors too.
	m.Commit = &Commit{Hash: hash.String(), Time: now, Actor: opts.Meta.Actor, Change: change, Touches: touches}
	return m, nil
}

func keepRev(mode MergeMode, head, tip plumbing.Hash) plumbing.Hash {
	if mode == MergeTheirs {
		return tip
	}
	return head
}

// filesOrNil reads a revision's files; nil when it cannot.
func (s *Session) filesOrNil(h plumbing.Hash) map[string][]byte {
	files, _ := s.store.ReadFilesAt(h)
	return files
}

// fileAt reads one file of a revision; nil when it cannot.
func (s *Session) fileAt(h plumbing.Hash, name string) []byte {
	return s.filesOrNil(h)[name]
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

// writeMerge writes a merge revision's objects: its files, its tree and
// its commit, with head and tip as parents.
func (s *Session) writeMerge(head, tip plumbing.Hash, files map[string][]byte, msg string, now time.Time) (plumbing.Hash, error) {
	var entries []store.TreeEntry
	for _, name := range plan.SessionFiles {
		b, ok := files[name]
		if !ok {
			continue
		}
		h, _, err := s.store.Write(plumbing.BlobObject, b)
		if err != nil {
			return plumbing.ZeroHash, plan.WrapError(plan.CodeIOError, err, "cannot write an object")
		}
		entries = append(entries, store.TreeEntry{Name: name, Hash: h})
	}
	tree, _, err := s.store.Write(plumbing.TreeObject, store.EncodeTree(entries))
	if err != nil {
		return plumbing.ZeroHash, plan.WrapError(plan.CodeIOError, err, "cannot write an object")
	}
	sig := s.Project.Author()
	sig.When = now
	co := &store.CommitObject{Tree: tree, Parents: []plumbing.Hash{head, tip}, Author: sig, Committer: sig, Message: msg}
	hash, _, err := s.store.Write(plumbing.CommitObject, co.Encode())
	if err != nil {
		return plumbing.ZeroHash, plan.WrapError(plan.CodeIOError, err, "cannot write an object")
	}
	return hash, nil
}

// Merge message sections: a header line each, then "- " items.
const (
	mergeFrom       = "From "
	mergeDropped    = "Dropped, from "
	mergeRenumbered = "Renumbered:"
	mergeKept       = "Kept:"
	mergeConflicts  = "Conflicts (plangit resolve settles them):"
	// TrailerMergeBase names a merge's common ancestor.
	TrailerMergeBase = "Plangit-Merge-Base"
	// TrailerRenumber records a record a merge renumbered: "step 5 7
	// <the side's revision>".
	TrailerRenumber = "Plangit-Renumber"
	// TrailerConflict names a conflict a merge recorded: "step 6 status".
	TrailerConflict = "Plangit-Conflict"
)

// mergeMessage writes a merge's message: the summary; what each side
// brought (or what was dropped) and who made it; what was renumbered,
// kept and what conflicts; then the trailers.
func mergeMessage(ci commitInfo, m *Merged, base, tip plumbing.Hash) string {
	var b strings.Builder
	b.WriteString(strings.Join(strings.Fields(ci.redact.String(ci.change.Summary)), " ") + "\n\n")
	item := func(s string) { b.WriteString("- " + strings.Join(strings.Fields(ci.redact.String(s)), " ") + "\n") }
	for i, side := range m.Sides {
		who := ""
		if len(side.Who) > 0 {
			who = " (" + strings.Join(side.Who, "; ") + ")"
		}
		head := mergeFrom
		if len(m.Dropped) > 0 || m.DroppedRev != "" {
			if side.Rev != m.DroppedRev {
				continue
			}
			head = mergeDropped
			who += fmt.Sprintf(", still reachable as HEAD^%d", i+1)
		}
		fmt.Fprintf(&b, "%s%s %s%s:\n", head, side.Rev[:7], side.Label, who)
		if len(side.Changes) == 0 {
			item("nothing")
		}
		for _, c := range side.Changes {
			item(c)
		}
	}
	if len(m.Renumbered) > 0 {
		b.WriteString(mergeRenumbered + "\n")
		for _, r := range m.Renumbered {
			item(r.String())
		}
	}
	if len(m.Kept) > 0 {
		b.WriteString(mergeKept + "\n")
		for _, k := range m.Kept {
			item(k)
		}
	}
	if len(m.Conflicts) > 0 {
		b.WriteString(mergeConflicts + "\n")
		for _, c := range m.Conflicts {
			item(conflictLine(c))
		}
	}
	b.WriteString("\n")
	trailers := message(ci)
	_, trailers, _ = strings.Cut(trailers, "\n\n")
	b.WriteString(trailers)
	fmt.Fprintf(&b, "%s: %s\n", TrailerMergeBase, base)
	for _, r := range m.Renumbered {
		side := m.Sides[0].Rev
		if !strings.HasPrefix(side, r.Rev) {
			side = tip.String()
		}
		fmt.Fprintf(&b, "%s: %s %s %s %s\n", TrailerRenumber, r.Kind, r.From, r.To, side)
	}
	for _, c := range m.Conflicts {
		fmt.Fprintf(&b, "%s: %s %s\n", TrailerConflict, c.Target(), c.Field)
	}
	return b.String()
}

// conflictLine names a conflict and how to settle it.
func conflictLine(c plan.ConflictAt) string {
	field := c.Field
	if c.Step != "" {
		field = c.Target() + " " + c.Field
	}
	return fmt.Sprintf("%s: %s | %s", field, sideText(c.Sides[0]), sideText(c.Sides[1]))
}

func sideText(s plan.ConflictSide) string {
	v := s.Value
	if s.Removed {
		v = "removed"
	}
	first, _, _ := strings.Cut(v, "\n")
	if len(first) > 60 {
		first = first[:57] + "…"
	}
	return first + " (" + s.Rev + ")"
}

// MergeInfo is what a merge revision's message says.
type MergeInfo struct {
	Sides      []MergeInfoSide `json:"sides"`
	Renumbered []string        `json:"renumbered,omitempty"`
	Kept       []string        `json:"kept,omitempty"`
	Conflicts  []string        `json:"conflicts,omitempty"`
	// StepIDs maps, for each parent the merge renumbered steps of, a
	// step's id in the merge to its id on that parent.
	StepIDs map[string]map[string]string `json:"-"`
	// ConflictOn names the records the merge left in conflict: "step 6",
	// "goal".
	ConflictOn []string `json:"-"`
}

// MergeInfoSide is one side as a merge message lists it.
type MergeInfoSide struct {
	Heading string   `json:"heading"` // "From e4f5a6b origin/main (Rita <rita@example.com>, user)"
	Dropped bool     `json:"dropped,omitempty"`
	Changes []string `json:"changes"`
}

// MergeInfo reads what a merge revision's message says of its sides; nil
// for a revision that is no merge plangit made.
func (s *Session) MergeInfo(hash string) *MergeInfo {
	if !plumbing.IsHash(hash) {
		return nil
	}
	c, err := s.store.ReadCommit(plumbing.NewHash(hash))
	if err != nil || len(c.Parents) < 2 {
		return nil
	}
	_, body, _ := strings.Cut(c.Message, "\n\n")
	body, trailers, _ := strings.Cut(body, "\n\n")
	info := &MergeInfo{}
	for _, line := range strings.Split(trailers, "\n") {
		k, v, _ := strings.Cut(line, ": ")
		f := strings.Fields(v)
		switch {
		case k == TrailerRenumber && len(f) == 4 && f[0] == "step" && plumbing.IsHash(f[3]):
			if info.StepIDs == nil {
				info.StepIDs = map[string]map[string]string{}
			}
			if info.StepIDs[f[3]] == nil {
				info.StepIDs[f[3]] = map[string]string{}
			}
			info.StepIDs[f[3]][f[2]] = f[1]
		case k == TrailerConflict && len(f) >= 2:
			target := f[0]
			if target == "step" || target == "phase" || target == "finding" {
				target += " " + f[1]
			}
			info.ConflictOn = append(info.ConflictOn, target)
		}
	}
	var list *[]string
	for _, line := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(line, "- ") && list != nil:
			*list = append(*list, line[2:])
		case strings.HasPrefix(line, mergeFrom) || strings.HasPrefix(line, mergeDropped):
			info.Sides = append(info.Sides, MergeInfoSide{Heading: strings.TrimSuffix(line, ":"), Dropped: strings.HasPrefix(line, mergeDropped)})
			list = &info.Sides[len(info.Sides)-1].Changes
		case line == mergeRenumbered:
			list = &info.Renumbered
		case line == mergeKept:
			list = &info.Kept
		case line == mergeConflicts:
			list = &info.Conflicts
		default:
			list = nil
		}
	}
	if len(info.Sides) == 0 {
		return nil
	}
	return info
}

// Sides tells, of the two revisions a conflict names (abbreviated), which
// is this machine's own side: the one it had first, numbered lower here —
// the head it merged the other into, or, where the other machine merged
// and this one fetched the merge, its own head then. It returns the two
// as full hashes, this machine's first.
func (s *Session) Sides(a, b string) (ours, theirs string, err error) {
	head, err := s.readRef()
	if err != nil {
		return "", "", err
	}
	entries, err := s.revisions(head)
	if err != nil {
		return "", "", err
	}
	find := func(rev string) (revEntry, error) {
		var found *revEntry
		for i := range entries {
			if strings.HasPrefix(entries[i].Hash.String(), strings.ToLower(rev)) {
				if found != nil {
					return revEntry{}, plan.Errorf(plan.CodeRevisionNotFound, "revision %q is ambiguous; give more of the hash", rev)
				}
				found = &entries[i]
			}
		}
		if found == nil {
			return revEntry{}, plan.Errorf(plan.CodeRevisionNotFound, "revision %s, a side of the conflict, is not in session %s's history; settle it with --take REV or --text", rev, s.ID)
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
