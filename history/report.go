package history

import (
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// Report is everything a report shows: the plan at a revision, and the
// history that led there, each revision with its semantic and text diff.
type Report struct {
	Session   string        `json:"session"`
	Rev       repo.Revision `json:"rev"`
	State     *plan.State   `json:"-"`
	Revisions []Revision    `json:"revisions"` // oldest first, up to Rev
	Generated time.Time     `json:"generated"`
}

// Revision is one revision in a report.
type Revision struct {
	repo.Revision
	Changes []Change   `json:"changes"`
	Files   []FileDiff `json:"files"`
}

// Collect gathers a report of the session at rev ("" for HEAD). It reads
// every revision once, oldest first, diffing each against the one before.
func Collect(s *repo.Session, rev string, now time.Time) (*Report, error) {
	if rev == "" {
		rev = "HEAD"
	}
	target, err := s.Resolve(rev)
	if err != nil {
		return nil, err
	}
	revs, err := s.Revisions()
	if err != nil {
		return nil, err
	}
	r := &Report{Session: s.ID, Generated: now}
	prevFiles := map[string][]byte{}
	prev := &plan.State{Plan: &plan.Plan{}}
	for _, rv := range revs {
		files, err := s.FilesOf(rv.Hash)
		if err != nil {
			return nil, err
		}
		st, err := plan.ParseState(files)
		if err != nil {
			// A revision written badly by another tool: show its text diff only.
			st = prev
		}
		r.Revisions = append(r.Revisions, Revision{Revision: rv, Changes: SemanticDiff(prev, st), Files: TextDiff(prevFiles, files)})
		prev, prevFiles = st, files
		if rv.Hash == target {
			r.Rev, r.State = rv, st
			break
		}
	}
	if r.State == nil {
		return nil, plan.Errorf(plan.CodeRevisionNotFound, "revision %s is not on session %s's branch", rev, s.ID)
	}
	return r, nil
}
