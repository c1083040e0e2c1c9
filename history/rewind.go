package history

import (
	"fmt"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// Rollback makes a new revision whose files equal rev's, byte for byte.
// History is kept, so a rollback can itself be undone.
func Rollback(s *repo.Session, rev string, opts repo.Options) (*repo.Result, error) {
	return s.Restore(opts, func(*plan.State, repo.Base) (map[string][]byte, plan.Change, error) {
		files, hash, err := s.FilesAt(rev)
		if err != nil {
			return nil, plan.Change{}, err
		}
		label := revLabel(s, hash)
		return files, plan.Change{Op: "rollback", Summary: "rollback to " + label}, nil
	})
}

// Undo rolls back the most recent revision: the new revision's files equal
// its parent's. A hand edit of the files not yet recorded is the most
// recent: it is adopted first, as every change adopts it, and then it is
// what is undone (history keeps it), never the revision under it with the
// edit lost. A revision that wrote the project's files (a code revert,
// rollback or undo) has them put back as well (UndoCode).
func Undo(s *repo.Session, opts repo.Options) (*repo.Result, error) {
	res, _, err := UndoCode(s, opts)
	return res, err
}

// UndoCode is Undo, and what it did to the project's files: a revision
// that wrote them has its write merged back (rewind_code.go).
func UndoCode(s *repo.Session, opts repo.Options) (*repo.Result, *CodeWrite, error) {
	out := &CodeWrite{Files: []CodeWritten{}}
	var target repo.Revision
	var before string
	if last, err := s.Last(); err == nil && last.Code != "" {
		if b, err := codeBefore(s, last.Hash); err == nil && b != "" {
			opts.Code = undoCode(&target, &before, out)
		}
	}
	res, err := s.Restore(opts, func(_ *plan.State, on repo.Base) (map[string][]byte, plan.Change, error) {
		target, before = repo.Revision{}, ""
		last, err := on.Last()
		if err != nil {
			return nil, plan.Change{}, err
		}
		if on.Edit {
			// cur is the edit, adopted in this change as @last+1.
			lastFiles, _, err := s.FilesAt(last.Hash)
			if err != nil {
				return nil, plan.Change{}, err
			}
			return lastFiles, plan.Change{Op: "undo", Summary: fmt.Sprintf("undo @%d (the hand edit adopted just before)", last.N+1)}, nil
		}
		if last.Parent == "" {
			return nil, plan.Change{}, plan.Errorf(plan.CodeRevisionNotFound, "nothing to undo: the session has only its first revision")
		}
		if last.Code != "" {
			b, err := codeBefore(s, last.Hash)
			if err != nil {
				return nil, plan.Change{}, err
			}
			if b != "" && opts.Code == nil {
				return nil, plan.Change{}, plan.Errorf(plan.CodeConflict, "the plan changed while undo began; nothing was changed, try again")
			}
			target, before = last, b
		}
		files, _, err := s.FilesAt(last.Parent)
		if err != nil {
			return nil, plan.Change{}, err
		}
		return files, plan.Change{Op: "undo", Summary: fmt.Sprintf("undo @%d (%s)", last.N, last.Summary)}, nil
	})
	return res, out, err
}

// RevertStep undoes the latest status change of one step — a mistaken
// completion — and leaves every later change to other steps, findings and
// errors as it is. The step gets back its status and the fields that go
// with it as they were just before that change.
func RevertStep(s *repo.Session, id string, opts repo.Options) (*repo.Result, error) {
	return s.Update(opts, func(st *plan.State) (plan.Change, error) {
		cur, _, err := st.Plan.Step(id)
		if err != nil {
			return plan.Change{}, err
		}
		l, err := newLineage(s)
		if err != nil {
			return plan.Change{}, err
		}
		isStatus := func(t plan.Touch) bool { return t.From != "" && t.To != "" && t.From != t.To }
		i, ok := l.lastChange([]*plan.Step{cur}, isStatus)[cur.ID]
		if !ok {
			return plan.Change{}, plan.Errorf(plan.CodeInvalidStatus, "step %s has no status change to revert: it is %s as it was added (plangit show %s gives its history)", cur.ID, cur.Status, cur.ID).With("step", cur.ID)
		}
		r := l.revs[i]
		local := l.local(i, cur.ID)
		t, _ := statusChange(r, local)
		before, err := s.StateOf(r.Parent)
		if err != nil {
			return plan.Change{}, err
		}
		old, _, err := before.Plan.Step(local)
		if err != nil {
			return plan.Change{}, err
		}
		if cur.Status != t.To {
			return plan.Change{}, plan.Errorf(plan.CodeInvalidStatus,
				"step %s's latest status change, @%d (%s → %s), no longer matches its status %s; change it directly instead",
				cur.ID, r.N, t.From, t.To, cur.Status).With("step", cur.ID).With("rev", r.Hash)
		}
		return st.Plan.RevertStatus(cur.ID, old, fmt.Sprintf("@%d %s", r.N, r.Hash[:7]), opts.Time())
	})
}

// statusChange returns a revision's status change of one step, if it had
// one (an added or removed step is not a status change).
func statusChange(r repo.Revision, id string) (plan.Touch, bool) {
	for _, t := range r.Touches {
		if t.Step == id && t.From != "" && t.To != "" && t.From != t.To {
			return t, true
		}
	}
	return plan.Touch{}, false
}

func revLabel(s *repo.Session, hash string) string {
	revs, err := s.Revisions()
	if err == nil {
		if r, ok := revisionAt(revs, hash); ok {
			return fmt.Sprintf("@%d (%s)", r.N, hash[:7])
		}
	}
	return hash[:7]
}
