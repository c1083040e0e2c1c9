package repo

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
)

// A hand edit is a person's change of the working files, made on the copy
// they opened, which is not always the last: an editor that opened
// task_plan.md before the agent's last changes saves its old copy back.
// Every file plangit writes ends with its seal (plan.Seal), the hash of
// the copy written, which the person's editor saves back as it was; so
// the copy an edit was made on is read from the file, never guessed. For
// working files that differ from the branch's (head's):
//
//  1. A file's base is the copy of the newest revision up to head whose
//     copy of that file carries the file's seal. A file the person left
//     as head has it is its own base.
//  2. A file with no seal, or one that no revision's copy carries (written
//     by hand or by another tool, by a plangit from before seals, or its
//     seal line edited), is read against head's copy; so is
//     deliverable.md, which plangit keeps as written, unsealed.
//  3. The base state is the files so chosen; where they do not read
//     together, head's state, and every file is read against head.
//  4. The edit is plan.Merge(base, head, edit) with MergeOptions.Edit and
//     the history's floor: what the revisions since the base changed
//     stays, what the person changed is laid on it, a field both changed
//     takes the person's value, and a record the person added under an id
//     the branch uses or the history issued gets a fresh one.
//  5. Where the merge gives back head's files (but for the plan's time),
//     the save held nothing of the person's — an editor's old buffer, a
//     layout of their own: no revision records it (Result.Stale), and the
//     files go back to head's.
//  6. Otherwise the merge is adopted as a revision of its own, "edit: …
//     changed outside plangit", whose summary says, where a base is older
//     than head, which ("made on 1a2b3c4", or each file's), that the
//     revisions since were kept, and what the merge's report settled.
//  7. Where head's own files do not read (committed with git by hand), the
//     edit is their mending and stands as the person wrote it.

// editRev names the person's side of the merge; no abbreviated commit
// hash reads like it.
const editRev = "edit"

// adoption is what adopting a hand edit of the working files makes.
type adoption struct {
	state  *plan.State   // the files as adopted
	head   *plan.State   // head's state it was laid on; nil where it does not read (case 7)
	before *plan.Plan    // the plan the steps it touches are told from: head's, or the newest that reads
	from   plumbing.Hash // the oldest base: head when every file was read against it
	// composed is set where the edited files have bases of their own:
	// what came since the oldest is not all that each copy lacked.
	composed bool
	note     string // what the revision says of the merge, if anything
}

// adoptEdit reads the working files, files, parsed as edit, as a hand edit
// of the branch at head, whose blobs are headFiles, above the ids the
// history issued (floor). edit may be changed.
func (s *Session) adoptEdit(head plumbing.Hash, headFiles map[string]plumbing.Hash, files map[string][]byte, edit *plan.State, floor plan.Issued, now time.Time) (*adoption, error) {
	edit.Plan.Floor = floor
	hf, err := s.store.ReadFilesAt(head)
	if err != nil {
		return nil, damaged(s.ID, head, err)
	}
	headSt, err := plan.ParseState(hf)
	if err != nil { // case 7
		edit.Plan.Updated = now
		return &adoption{state: edit, before: readablePlan(s, head), from: head}, nil
	}
	b, err := s.editBases(head, headFiles, hf, files)
	if err != nil {
		return nil, err
	}
	base := headSt
	if b.from != head {
		if base, err = plan.ParseState(b.files); err != nil { // case 3
			base, b.from = headSt, head
		}
	}
	merged, rep, err := plan.Merge(base, plan.MergeSide{Rev: short(head), State: headSt}, plan.MergeSide{Rev: editRev, State: edit},
		floor.MergeFloor(plan.MergeOptions{Edit: true}))
	if err != nil {
		return nil, err
	}
	merged.Plan.Rules, merged.Plan.Floor = edit.Plan.Rules, floor
	a := &adoption{state: merged, head: headSt, before: headSt.Plan, from: b.from, composed: b.composed && b.from != head}
	// The plan's time moves only where the plan changed: an edit of
	// findings.md alone leaves task_plan.md as it was.
	merged.Plan.Updated = headSt.Plan.Updated
	if !sameBlob(plan.WritePlan(merged.Plan), headFiles[plan.PlanFile]) {
		merged.Plan.Updated = now
	}
	if b.from != head {
		a.note = editNote(b.madeOn, b.since, rep)
	}
	return a, nil
}

// editBase is where a hand edit's files were made (cases 1 and 2).
type editBase struct {
	files    map[string][]byte // the base state's files: head's, with each edited file's base copy
	from     plumbing.Hash     // the oldest base; head when every file is read against it
	since    int               // the revisions after from
	madeOn   string            // "made on 1a2b3c4", or "task_plan.md made on 1a2b3c4, findings.md on 5d6e7f8"
	composed bool              // the edited files have bases of their own
}

// editBases finds each edited file's base (cases 1 and 2).
func (s *Session) editBases(head plumbing.Hash, headFiles map[string]plumbing.Hash, hf, files map[string][]byte) (*editBase, error) {
	none := &editBase{files: hf, from: head}
	edited := editedFiles(headFiles, files)
	want := map[string]string{} // edited file → its seal, until its base is found
	for _, name := range edited {
		if sum := plan.Seal(files[name]); sum != "" && sum != plan.Seal(hf[name]) {
			want[name] = sum
		}
	}
	if len(want) == 0 {
		return none, nil
	}
	entries, err := revisions(s, head)
	if err != nil {
		return nil, err
	}
	bases := map[string]plumbing.Hash{} // edited file → its base revision
	blobs := map[string]plumbing.Hash{} // edited file → its base copy
	seals := map[plumbing.Hash]string{} // blob → its seal
	oldest := len(entries) - 1
	for i := len(entries) - 2; i >= 0 && len(want) > 0; i-- {
		tree, err := s.store.ReadTreeFiles(entries[i].Hash)
		if err != nil {
			break // an older revision that cannot be read is no base
		}
		for name, sum := range want {
			h, ok := tree[name]
			if !ok {
				continue
			}
			if _, read := seals[h]; !read {
				b, err := s.store.ReadAs(plumbing.BlobObject, h)
				if err != nil {
					return nil, damaged(s.ID, entries[i].Hash, err)
				}
				seals[h] = plan.Seal(b)
			}
			if seals[h] == sum {
				bases[name], blobs[name] = entries[i].Hash, h
				delete(want, name)
				oldest = min(oldest, i)
			}
		}
	}
	if len(bases) == 0 {
		return none, nil
	}
	b := &editBase{files: maps.Clone(hf), from: entries[oldest].Hash, since: len(entries) - 1 - oldest}
	for name, h := range blobs {
		if b.files[name], err = s.store.ReadAs(plumbing.BlobObject, h); err != nil {
			return nil, damaged(s.ID, bases[name], err)
		}
	}
	order := slices.Clone(edited) // the plan's base first
	if i := slices.Index(order, plan.PlanFile); i > 0 {
		order = append([]string{plan.PlanFile}, slices.Delete(order, i, i+1)...)
	}
	var on []string
	for _, name := range order {
		rev, ok := bases[name]
		if !ok {
			rev = head
		}
		b.composed = b.composed || rev != b.from
		if len(on) == 0 {
			on = append(on, name+" made on "+short(rev))
		} else {
			on = append(on, name+" on "+short(rev))
		}
	}
	b.madeOn = "made on " + short(b.from)
	if b.composed {
		b.madeOn = strings.Join(on, ", ")
	}
	return b, nil
}

// editNote is what the revision adopting an edit made on an older copy
// says of it: the copy, that the revisions since were kept, and where the
// merge's report says one side's value won.
func editNote(madeOn string, since int, rep *plan.MergeReport) string {
	theirs, sinceWon := rep.Settled, []string(nil)
	for _, k := range rep.KeptRemoved {
		if k.RemovedBy == editRev {
			sinceWon = append(sinceWon, k.What+" kept (changed since)")
		} else {
			theirs = append(theirs, k.What+" kept (removed since)")
		}
	}
	note := fmt.Sprintf("%s, the %s since kept", madeOn, count(since, "revision"))
	if len(theirs) > 0 {
		note += " but where the person's copy won: " + strings.Join(theirs, ", ")
	}
	if len(sinceWon) > 0 {
		note += "; where the revisions since won: " + strings.Join(sinceWon, ", ")
	}
	return note
}

// unchanged reports whether the adopted files are head's, base (case 5).
func (a *adoption) unchanged(base map[string]plumbing.Hash) bool {
	return a.head != nil && sameFiles(a.state.Files(), base)
}

// editedFiles names the working files (files) that differ from the
// branch's (headFiles), in a stable order.
func editedFiles(headFiles map[string]plumbing.Hash, files map[string][]byte) []string {
	var edited []string
	for _, name := range plan.SessionFiles {
		if b, ok := files[name]; ok && !sameBlob(b, headFiles[name]) {
			edited = append(edited, name)
		}
	}
	return edited
}

func sameBlob(b []byte, h plumbing.Hash) bool {
	return !h.IsZero() && plumbing.ComputeHash(plumbing.BlobObject, b) == h
}
