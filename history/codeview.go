package history

import (
	"errors"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/code"
)

// The readers of the work beside the plan: a step's code diff (show,
// diff --code), two revisions' (diff --code @A @B), each revision's
// diffstat (log --code) and every step's for the report. They read the
// code store only; nothing of the project is opened.

// CodeStore is session s's code store, opened to read: the snapshots its
// revisions name, taken here or fetched with it.
func CodeStore(s *repo.Session) *code.Store { return code.Read(s.GitDir()) }

// StepCode is what step id did to the project (StepRange), its files
// read; with patch, each text file's unified diff too.
func StepCode(s *repo.Session, id string, patch bool) (*CodeDiff, error) {
	d, err := StepRange(s, id)
	if err != nil {
		return nil, noSnapshots(s, err)
	}
	if err := d.Fill(CodeStore(s), patch); err != nil {
		return nil, err
	}
	return d, nil
}

// RevisionCode is what changed in the project from revision revA's
// snapshot to revB's (RevisionRange), its files read; with patch, each
// text file's unified diff too.
func RevisionCode(s *repo.Session, revA, revB string, patch bool) (*CodeDiff, error) {
	d, err := RevisionRange(s, revA, revB)
	if err != nil {
		return nil, noSnapshots(s, err)
	}
	if err := d.Fill(CodeStore(s), patch); err != nil {
		return nil, err
	}
	return d, nil
}

// noSnapshots says why a session has no code snapshot at all, where err
// says a step or revision has none (CodeNone): its project is not a git
// repository, or code_snapshots is off. Any other err, or a session that
// has snapshots, is err as it is.
func noSnapshots(s *repo.Session, err error) error {
	if !errors.Is(err, CodeNone) {
		return err
	}
	revs, rerr := s.Revisions()
	if rerr != nil {
		return err
	}
	for _, r := range revs {
		if r.Code != "" {
			return err
		}
	}
	if _, oerr := s.Code(); errors.Is(oerr, code.ErrNotGit) {
		e := plan.Errorf(plan.CodeInvalidArgument, "the project is not a git repository, so its steps record no code snapshots").
			Hinted("git init in the project: the steps that start or end from then on record their work")
		e.Err = CodeNone
		return e
	}
	if cfg, cerr := s.Project.Config(); cerr == nil && cfg.CodeSnapshots == "off" {
		e := plan.Errorf(plan.CodeInvalidArgument, "code_snapshots is off, so the steps record no code snapshots").
			Hinted("plangit config set code_snapshots on: the steps that start or end from then on record their work")
		e.Err = CodeNone
		return e
	}
	return err
}

// CodeStat is what one revision's code snapshot changed in the project
// since the snapshot before it: the files and their lines, no diff.
type CodeStat struct {
	Snapshot string `json:"snapshot"`
	// First: the session's first snapshot, with nothing before it to
	// compare; Files is empty.
	First bool `json:"first,omitempty"`
	// Missing: the snapshot is not here (a session fetched without it).
	Missing bool         `json:"missing,omitempty"`
	Files   []CodeFile   `json:"files"`
	Added   int          `json:"added"`
	Deleted int          `json:"deleted"`
	Large   []code.Large `json:"large,omitempty"`
}

// CodeStats is, for each of revs that took a code snapshot of its own (a
// Plangit-Code trailer naming another snapshot than the one before it),
// what it changed since that one, keyed by the revision's hash. The
// snapshot before a revision is its first parent's, or that parent's
// nearest ancestor's along first parents. A snapshot the store lacks is
// Missing, and the others are read all the same.
func CodeStats(s *repo.Session, revs []repo.Revision) (map[string]*CodeStat, error) {
	out := map[string]*CodeStat{}
	byHash := map[string]repo.Revision{}
	all, err := s.Revisions()
	if err != nil {
		return nil, err
	}
	for _, r := range all {
		byHash[r.Hash] = r
	}
	for _, r := range revs {
		byHash[r.Hash] = r
	}
	// before is the snapshot of the revision before r: "" when none has one.
	before := func(r repo.Revision) string {
		for seen := 0; r.Parent != "" && seen < len(byHash)+1; seen++ {
			p, ok := byHash[r.Parent]
			if !ok {
				return ""
			}
			if p.Code != "" {
				return p.Code
			}
			r = p
		}
		return ""
	}
	cs := CodeStore(s)
	listings := map[string]map[string]code.File{}
	files := func(snap string) (map[string]code.File, error) {
		if f, ok := listings[snap]; ok {
			return f, nil
		}
		f, err := cs.Files(plumbing.NewHash(snap))
		if err != nil {
			return nil, err
		}
		listings[snap] = f
		return f, nil
	}
	for _, r := range revs {
		if r.Code == "" {
			continue
		}
		prev := before(r)
		if prev == r.Code {
			continue
		}
		st := &CodeStat{Snapshot: r.Code, Files: []CodeFile{}}
		out[r.Hash] = st
		b, err := files(r.Code)
		if err != nil {
			st.Missing = true
			continue
		}
		if snap, err := cs.Snapshot(plumbing.NewHash(r.Code)); err == nil {
			st.Large = snap.Large
		}
		if prev == "" {
			st.First = true
			continue
		}
		a, err := files(prev)
		if err != nil {
			st.Missing = true
			continue
		}
		fs, err := diffFiles(cs, a, b, false)
		if errors.Is(err, ErrCodeMissing) {
			st.Missing = true
			continue
		}
		if err != nil {
			return nil, err
		}
		st.Files = fs
		for _, f := range fs {
			st.Added += f.Added
			st.Deleted += f.Deleted
		}
	}
	return out, nil
}

// StepsCode is the code diff of every step of st's plan that ran, with
// its unified diffs, by step id, for the report. Steps that never ran,
// or ran before the first snapshot, have none. When the session's
// snapshots are not here, it is empty and missing says so.
func StepsCode(s *repo.Session, st *plan.State) (diffs map[string]*CodeDiff, missing bool, err error) {
	diffs = map[string]*CodeDiff{}
	cs := CodeStore(s)
	runs, err := newCodeRuns(s)
	if err != nil {
		return nil, false, err
	}
	for _, step := range st.Plan.Steps() {
		d, err := runs.rangeOf(step)
		if plan.HasCode(err, plan.CodeInvalidStatus) {
			continue // never ran, or before the first snapshot
		}
		if err != nil {
			return nil, false, err
		}
		if err := d.Fill(cs, true); errors.Is(err, ErrCodeMissing) {
			return map[string]*CodeDiff{}, true, nil
		} else if err != nil {
			return nil, false, err
		}
		diffs[step.ID] = d
	}
	return diffs, false, nil
}

// AddCode reads each step's code diff into a report of the session's
// newest revision (StepsCode). A report of an older revision shows none:
// a step's latest run may have ended after it.
func (r *Report) AddCode(s *repo.Session) error {
	head, err := s.Head()
	if err != nil || head != r.Rev.Hash {
		return err
	}
	r.Code, r.CodeMissing, err = StepsCode(s, r.State)
	return err
}
