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
	// Agents are the agents its revisions name or its plan's claims hold,
	// the most recently active first (Agents).
	Agents    []Agent   `json:"agents,omitempty"`
	Generated time.Time `json:"generated"`
	// Code is each step's code diff, by step id, when AddCode read them;
	// CodeMissing says the session's snapshots are not here.
	Code        map[string]*CodeDiff `json:"-"`
	CodeMissing bool                 `json:"-"`
}

// Revision is one revision in a report.
type Revision struct {
	repo.Revision
	Changes []Change   `json:"changes"`
	Files   []FileDiff `json:"files"`
}

// Collect gathers a report of the session at rev ("" for HEAD): every
// revision of rev's history, oldest first, each diffed against its first
// parent — a merge so shows what it brought into this line, and its
// message says what each side brought and who made it. Each revision is
// read once.
func Collect(s *repo.Session, rev string, now time.Time) (*Report, error) {
	if rev == "" {
		rev = "HEAD"
	}
	target, err := s.Resolve(rev)
	if err != nil {
		return nil, err
	}
	revs, err := s.RevisionsFrom(target)
	if err != nil {
		return nil, err
	}
	// A revision's state is kept until the last revision it is the first
	// parent of has been diffed against it.
	children := map[string]int{}
	for _, rv := range revs {
		children[rv.Parent]++
	}
	type read struct {
		files map[string][]byte
		st    *plan.State
	}
	kept := map[string]read{}
	r := &Report{Session: s.ID, Generated: now}
	for _, rv := range revs {
		files, err := s.FilesOf(rv.Hash)
		if err != nil {
			return nil, err
		}
		prev, ok := kept[rv.Parent]
		if !ok {
			prev = read{files: map[string][]byte{}, st: &plan.State{Plan: &plan.Plan{}}}
			if rv.Parent != "" {
				if pf, err := s.FilesOf(rv.Parent); err == nil {
					if pst, err := plan.ParseState(pf); err == nil {
						prev = read{pf, pst}
					}
				}
			}
		}
		st, err := plan.ParseState(files)
		if err != nil {
			// A revision written badly by another tool: show its text diff only.
			st = prev.st
		}
		if rv.IsMerge() {
			rv.Merge = s.MergeInfo(rv.Hash)
		}
		r.Revisions = append(r.Revisions, Revision{Revision: rv, Changes: SemanticDiff(prev.st, st), Files: TextDiff(prev.files, files)})
		if children[rv.Parent]--; children[rv.Parent] <= 0 {
			delete(kept, rv.Parent)
		}
		if children[rv.Hash] > 0 {
			kept[rv.Hash] = read{files, st}
		}
		if rv.Hash == target {
			r.Rev, r.State = rv, st
		}
	}
	if r.State == nil {
		return nil, plan.Errorf(plan.CodeRevisionNotFound, "revision %s is not in session %s's history", rev, s.ID)
	}
	r.Agents = lineageOf(s, revs).agents(r.State.Plan, now)
	return r, nil
}
