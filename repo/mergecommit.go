package repo

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/store"
)

// Merged is what a merge did.
type Merged struct {
	Commit     *Commit            `json:"commit"`
	Base       string             `json:"base"`
	Sides      []MergedSide       `json:"sides"`                // this machine's, then the remote's
	Renumbered []plan.Renumbered  `json:"renumbered,omitempty"` // records both sides added under one id
	Conflicts  []plan.ConflictAt  `json:"conflicts,omitempty"`
	Kept       []string           `json:"kept,omitempty"`    // what one side removed and the merge kept
	Voided     []plan.VoidedClaim `json:"voided,omitempty"`  // claims both sides made of one step: the remote's stands
	Dropped    []string           `json:"dropped,omitempty"` // --ours, --theirs: the changes of the side not taken
	DroppedRev string             `json:"dropped_rev,omitempty"`
}

// MergedSide is one side of a merge: its tip, who made its revisions since
// the common ancestor, and what they changed.
type MergedSide struct {
	Rev     string   `json:"rev"`
	Label   string   `json:"label"` // "this session", "origin/main"
	Who     []string `json:"who,omitempty"`
	Changes []string `json:"changes"`
}

// MergeCommit is a merge revision for LandMerge to make the session's:
// the merge of a divergence between this machine's head and a remote's
// tip (package share decides what it holds).
type MergeCommit struct {
	Head, Tip plumbing.Hash     // its parents: this machine's head, then the remote's tip
	Base      plumbing.Hash     // their common ancestor, named in a trailer
	Files     map[string][]byte // its files
	Plan      *plan.Plan        // the merged plan, for the progress and steps its message records
	Change    plan.Change       // its summary
	Merged    *Merged           // what it did, for its message; LandMerge sets Merged.Commit
}

// LandMerge writes a merge revision — its files, tree, and a commit whose
// message says what each side brought (mergeMessage) — and makes it the
// session's by the steps a commit takes (MoveTo). It runs under the
// session lock. The id cache is left at the head, an ancestor: the next
// change completes it from the revisions the merge brought, findings and
// errors too.
func (s *Session) LandMerge(mc MergeCommit, opts Options) error {
	now := opts.Time()
	if opts.Meta.Actor == "" {
		opts.Meta.Actor = "user"
	}
	old, _ := s.store.ReadFilesAt(mc.Head) // nil when it cannot be read: every step counts as new
	before, _ := plan.ParsePlan(old[plan.PlanFile])
	touches := plan.Touches(plan.DiffSteps(before, mc.Plan))
	ci := commitInfo{now: now, change: mc.Change, meta: opts.Meta, counts: mc.Plan.Counts(), touches: touches, redact: mc.Plan.Rules.Redact}
	msg := mergeMessage(ci, mc.Merged, mc.Base, mc.Tip)
	hash, err := writeMerge(s, mc.Head, mc.Tip, mc.Files, msg, now)
	if err != nil {
		return err
	}
	if err := s.MoveTo(hash, mc.Head, mc.Files); err != nil {
		return err
	}
	mc.Merged.Commit = &Commit{Hash: hash.String(), Time: now, Actor: opts.Meta.Actor, Change: mc.Change, Touches: touches}
	return nil
}

// MoveTo makes next the session's revision — a fetched revision adopted
// as it is, or a merge (LandMerge) — by the steps a commit takes: an
// intent record naming each working file's blob before and after, then
// the branch (compare-and-set from old), then the working files, the
// index and the revision log. A process killed after the branch moved
// leaves a state the next command completes to exactly next (see
// intent.go), never a hand edit. It runs under the session lock.
func (s *Session) MoveTo(next, old plumbing.Hash, files map[string][]byte) error {
	cur, err := s.ReadFiles()
	if err != nil {
		return err
	}
	in := &intent{Commit: next, Files: fileChanges(cur, files)}
	if err := s.work.writeIntent(in); err != nil {
		return err
	}
	if err := setRefIf(s, next, old, nil); err != nil {
		s.work.clearIntent()
		return err
	}
	if _, err := s.work.land(in, files); err != nil {
		s.warnf("revision %s is in place, but its working files could not all be written; the next command finishes: %v", short(next), err)
	}
	_, err = revisions(s, next) // completes the revision log, which it saves: the lock is held
	return err
}

// Issued returns the ids the history of head has issued (plan.Issued),
// the step ids the revisions of more touched counted too: the floor of a
// merge of head with a remote's revisions (more). It runs under the
// session lock.
func (s *Session) Issued(head plumbing.Hash, more []store.Entry) (plan.Issued, error) {
	issued, err := s.issued(head)
	if err != nil {
		return plan.Issued{}, err
	}
	for _, e := range more {
		issued.Steps = max(issued.Steps, maxTouched(fromEntry(e).Touches))
	}
	return issued, nil
}

// count is n nouns for a message: 1 change, 3 changes.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// writeMerge writes a merge revision's objects: its files, its tree and
// its commit, with head and tip as parents.
func writeMerge(s *Session, head, tip plumbing.Hash, files map[string][]byte, msg string, now time.Time) (plumbing.Hash, error) {
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
		head := store.MergeFrom
		if len(m.Dropped) > 0 || m.DroppedRev != "" {
			if side.Rev != m.DroppedRev {
				continue
			}
			head = store.MergeDropped
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
		b.WriteString(store.MergeRenumbered + "\n")
		for _, r := range m.Renumbered {
			item(r.String())
		}
	}
	if len(m.Kept) > 0 {
		b.WriteString(store.MergeKept + "\n")
		for _, k := range m.Kept {
			item(k)
		}
	}
	if len(m.Conflicts) > 0 {
		b.WriteString(store.MergeConflicts + "\n")
		for _, c := range m.Conflicts {
			item(ConflictLine(c))
		}
	}
	b.WriteString("\n")
	trailers := message(ci)
	_, trailers, _ = strings.Cut(trailers, "\n\n")
	b.WriteString(trailers)
	fmt.Fprintf(&b, "%s: %s\n", store.TrailerMergeBase, base)
	for _, r := range m.Renumbered {
		side := m.Sides[0].Rev
		if !strings.HasPrefix(side, r.Rev) {
			side = tip.String()
		}
		fmt.Fprintf(&b, "%s: %s %s %s %s\n", store.TrailerRenumber, r.Kind, r.From, r.To, side)
	}
	for _, c := range m.Conflicts {
		fmt.Fprintf(&b, "%s: %s %s\n", store.TrailerConflict, c.Target(), c.Field)
	}
	return b.String()
}

// ConflictLine names a conflict and how to settle it.
func ConflictLine(c plan.ConflictAt) string {
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

// MergeInfo is what a merge revision's message says (store.ParseMergeInfo).
type MergeInfo = store.MergeInfo

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
	return store.ParseMergeInfo(c.Message)
}
