package history

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/code"
)

// The work beside the plan. Each revision at a step boundary names the
// code snapshot taken with it (repo.Revision.Code); the snapshot of any
// revision is its own, else its nearest earlier revision's. What a step
// did to the project is the difference between the snapshot of its
// latest start and that of its end:
//
//  1. a step started and then completed, failed or skipped: the start
//     revision's snapshot to the end revision's;
//  2. a step still in progress: the start's snapshot to the newest one
//     (it says so: Open);
//  3. a step that ended without being started (pending → completed): the
//     snapshot before the revision that ended it to that revision's;
//  4. a step that never ran has no work: CodeNone.
//
// Other steps in progress for part of that time share the diff (Shared):
// the snapshots cannot tell whose hand changed a file.

// maxDiffBlob is the largest blob a code diff reads to show its lines.
const maxDiffBlob = 1 << 20

// CodeEndpoint is one side of a code diff: a revision and its snapshot.
type CodeEndpoint struct {
	N        int    `json:"n"`
	Rev      string `json:"rev"`
	Snapshot string `json:"snapshot"`
}

// CodeFile is one file a code diff changed.
type CodeFile struct {
	Path    string `json:"path"`
	OldPath string `json:"old_path,omitempty"` // a rename's former path
	// Status is added, deleted, modified, renamed or mode (the mode alone).
	Status  string `json:"status"`
	OldMode string `json:"old_mode,omitempty"`
	NewMode string `json:"new_mode,omitempty"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Binary  bool   `json:"binary,omitempty"` // no lines shown: binary, or over 1 MB
	Unified string `json:"unified,omitempty"`
}

// SharedStep is another step in progress while a step's work was done.
type SharedStep struct {
	Step  string `json:"step"`
	Agent string `json:"agent,omitempty"` // who started it
}

// CodeDiff is what changed in the project between two snapshots.
type CodeDiff struct {
	Step    string       `json:"step,omitempty"`
	From    CodeEndpoint `json:"from"`
	To      CodeEndpoint `json:"to"`
	Open    bool         `json:"open,omitempty"` // the step is still in progress: up to the newest snapshot
	Agent   string       `json:"agent,omitempty"`
	Shared  []SharedStep `json:"shared,omitempty"`
	Files   []CodeFile   `json:"files"`
	Added   int          `json:"added"`
	Deleted int          `json:"deleted"`
	// Large are files either snapshot left out for their size
	// (code_snapshot_max_file), by name and size only.
	Large []code.Large `json:"large,omitempty"`
}

// CodeNone says a step or revision has no code snapshot to diff.
var CodeNone = errors.New("no code snapshot")

// snapshotAt is the snapshot of revision i: its own, else its nearest
// earlier revision's; -1 and "" when none has one.
func snapshotAt(revs []repo.Revision, i int) (int, string) {
	for ; i >= 0; i-- {
		if revs[i].Code != "" {
			return i, revs[i].Code
		}
	}
	return -1, ""
}

func endpoint(revs []repo.Revision, i int) (CodeEndpoint, bool) {
	j, snap := snapshotAt(revs, i)
	if j < 0 {
		return CodeEndpoint{}, false
	}
	return CodeEndpoint{N: revs[i].N, Rev: revs[i].Hash, Snapshot: snap}, true
}

// StepRange finds the revisions bounding step id's latest run (the cases
// above): the diff's endpoints, whether it is still open, who started it
// and the steps it shares its time with. The diff's files are not read.
func StepRange(s *repo.Session, id string) (*CodeDiff, error) {
	st, err := s.State()
	if err != nil {
		return nil, err
	}
	cur, _, err := st.Plan.Step(id)
	if err != nil {
		return nil, err
	}
	c, err := newCodeRuns(s)
	if err != nil {
		return nil, err
	}
	return c.rangeOf(cur)
}

// codeRuns are the latest run of every step, from one reading of the
// history: the revisions that started and ended it (end -1: open), and
// who started it.
type codeRuns struct {
	l      *lineage
	runs   map[string]codeRun
	agents map[string]string
}

type codeRun struct{ start, end int }

func newCodeRuns(s *repo.Session) (*codeRuns, error) {
	l, err := newLineage(s)
	if err != nil {
		return nil, err
	}
	c := &codeRuns{l: l, runs: map[string]codeRun{}, agents: map[string]string{}}
	for _, x := range l.touches() {
		t := x.t
		if t.From == t.To || t.From == "" && t.To == "" {
			continue
		}
		r, seen := c.runs[x.step]
		switch t.To {
		case plan.StepInProgress:
			c.runs[x.step] = codeRun{start: x.rev, end: -1}
			c.agents[x.step] = l.revs[x.rev].Who()
		case plan.StepCompleted, plan.StepFailed, plan.StepSkipped:
			if !seen || r.end >= 0 {
				r = codeRun{start: x.rev - 1, end: x.rev} // case 3: from the revision before
				if p, ok := l.index[l.revs[x.rev].Parent]; ok {
					r.start = p
				}
				c.agents[x.step] = l.revs[x.rev].Who()
			} else {
				r.end = x.rev
			}
			c.runs[x.step] = r
		case plan.StepPending, plan.StepBlocked:
			delete(c.runs, x.step)
		}
	}
	return c, nil
}

// rangeOf is StepRange of the plan's step cur.
func (c *codeRuns) rangeOf(cur *plan.Step) (*CodeDiff, error) {
	l := c.l
	r, ok := c.runs[cur.ID]
	if !ok || r.start < 0 {
		return nil, plan.Errorf(plan.CodeInvalidStatus, "step %s has not run, so it has no code to show (it is %s)", cur.ID, cur.Status).With("step", cur.ID)
	}
	d := &CodeDiff{Step: cur.ID, Agent: c.agents[cur.ID]}
	end := r.end
	if end < 0 {
		d.Open, end = true, len(l.revs)-1
	}
	from, ok1 := endpoint(l.revs, r.start)
	to, ok2 := endpoint(l.revs, end)
	if !ok1 || !ok2 {
		e := plan.Errorf(plan.CodeInvalidStatus, "step %s ran before this session recorded code snapshots", cur.ID).With("step", cur.ID)
		e.Err = CodeNone
		return nil, e
	}
	d.From, d.To = from, to
	for other, o := range c.runs {
		if other == cur.ID {
			continue
		}
		oend := o.end
		if oend < 0 {
			oend = len(l.revs)
		}
		if o.start < end && oend > r.start {
			d.Shared = append(d.Shared, SharedStep{Step: other, Agent: c.agents[other]})
		}
	}
	slices.SortFunc(d.Shared, func(a, b SharedStep) int {
		return cmp.Or(cmp.Compare(len(a.Step), len(b.Step)), strings.Compare(a.Step, b.Step))
	})
	return d, nil
}

// RevisionRange is the code diff's endpoints between two revisions.
func RevisionRange(s *repo.Session, revA, revB string) (*CodeDiff, error) {
	revs, err := s.Revisions()
	if err != nil {
		return nil, err
	}
	at := func(rev string) (CodeEndpoint, error) {
		h, err := s.Resolve(rev)
		if err != nil {
			return CodeEndpoint{}, err
		}
		for i, r := range revs {
			if r.Hash == h {
				if e, ok := endpoint(revs, i); ok {
					return e, nil
				}
				e := plan.Errorf(plan.CodeRevisionNotFound, "revision %s is older than the session's first code snapshot", rev).With("rev", rev)
				e.Err = CodeNone
				return CodeEndpoint{}, e
			}
		}
		return CodeEndpoint{}, plan.Errorf(plan.CodeRevisionNotFound, "no revision %q in session %s", rev, s.ID).With("rev", rev)
	}
	from, err := at(revA)
	if err != nil {
		return nil, err
	}
	to, err := at(revB)
	if err != nil {
		return nil, err
	}
	return &CodeDiff{From: from, To: to}, nil
}

// Fill reads the files of d's two snapshots from the store and sets what
// changed; with patch the unified diff of each text file too.
func (d *CodeDiff) Fill(cs *code.Store, patch bool) error {
	a, b := plumbing.NewHash(d.From.Snapshot), plumbing.NewHash(d.To.Snapshot)
	fa, err := cs.Files(a)
	if err != nil {
		return codeMissing(err)
	}
	fb, err := cs.Files(b)
	if err != nil {
		return codeMissing(err)
	}
	files, err := diffFiles(cs, fa, fb, patch)
	if err != nil {
		return err
	}
	d.Files = files
	d.Added, d.Deleted = 0, 0
	for _, f := range files {
		d.Added += f.Added
		d.Deleted += f.Deleted
	}
	sa, _ := cs.Snapshot(a)
	sb, _ := cs.Snapshot(b)
	d.Large = nil
	seen := map[string]bool{}
	for _, snap := range []*code.Snapshot{sa, sb} {
		if snap == nil {
			continue
		}
		for _, l := range snap.Large {
			if !seen[l.Path] {
				seen[l.Path] = true
				d.Large = append(d.Large, l)
			}
		}
	}
	return nil
}

// ErrCodeMissing is in the chain of an error for a snapshot a revision
// names and the code store lacks: a session fetched without them.
var ErrCodeMissing = errors.New("code snapshot not here")

func codeMissing(err error) error {
	e := plan.Errorf(plan.CodeRevisionNotFound, "the session's code snapshots are not here").Hinted("plangit fetch brings a pushed session's snapshots with it")
	e.Err = fmt.Errorf("%w: %w", ErrCodeMissing, err)
	return e
}

// diffFiles compares two snapshots' listings: every path that differs,
// with exact renames (a deleted file's blob added under another path)
// paired up.
func diffFiles(cs *code.Store, a, b map[string]code.File, patch bool) ([]CodeFile, error) {
	var out []CodeFile
	added := map[plumbing.Hash][]string{}
	for p, f := range b {
		if _, ok := a[p]; !ok {
			added[f.Hash] = append(added[f.Hash], p)
		}
	}
	for h := range added {
		slices.Sort(added[h])
	}
	renamedTo := map[string]bool{}
	for p, fa := range a {
		fb, ok := b[p]
		switch {
		case ok && fa == fb:
			continue
		case ok:
			f, err := fileDiff(cs, p, p, fa, fb, true, true, patch)
			if err != nil {
				return nil, err
			}
			if fa.Hash == fb.Hash {
				f.Status = "mode"
			}
			out = append(out, f)
		case len(added[fa.Hash]) > 0:
			to := added[fa.Hash][0]
			added[fa.Hash] = added[fa.Hash][1:]
			renamedTo[to] = true
			f := CodeFile{Path: to, OldPath: p, Status: "renamed"}
			if fa.Mode != b[to].Mode {
				f.OldMode, f.NewMode = modeString(fa.Mode), modeString(b[to].Mode)
			}
			out = append(out, f)
		default:
			f, err := fileDiff(cs, p, p, fa, code.File{}, true, false, patch)
			if err != nil {
				return nil, err
			}
			out = append(out, f)
		}
	}
	for p, fb := range b {
		if _, ok := a[p]; ok || renamedTo[p] {
			continue
		}
		f, err := fileDiff(cs, p, p, code.File{}, fb, false, true, patch)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(x, y CodeFile) int { return strings.Compare(x.Path, y.Path) })
	if out == nil {
		out = []CodeFile{}
	}
	return out, nil
}

func fileDiff(cs *code.Store, oldPath, path string, fa, fb code.File, inA, inB, patch bool) (CodeFile, error) {
	f := CodeFile{Path: path, Status: "modified"}
	switch {
	case !inA:
		f.Status, f.NewMode = "added", modeString(fb.Mode)
	case !inB:
		f.Status, f.OldMode = "deleted", modeString(fa.Mode)
	case fa.Mode != fb.Mode:
		f.OldMode, f.NewMode = modeString(fa.Mode), modeString(fb.Mode)
	}
	read := func(in bool, x code.File) ([]byte, bool, error) {
		if !in || x.Mode == filemode.Submodule {
			return nil, false, nil
		}
		b, err := cs.Blob(x.Hash, maxDiffBlob)
		if errors.Is(err, code.ErrTooLarge) {
			return nil, true, nil
		}
		if err != nil {
			return nil, false, codeMissing(err)
		}
		return b, bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0, nil
	}
	x, binA, err := read(inA, fa)
	if err != nil {
		return f, err
	}
	y, binB, err := read(inB, fb)
	if err != nil {
		return f, err
	}
	if binA || binB {
		f.Binary = true
		return f, nil
	}
	td := diffFile(path, string(x), string(y), inA, inB)
	f.Added, f.Deleted = td.Added, td.Deleted
	if patch {
		f.Unified = td.Unified
	}
	return f, nil
}

func modeString(m filemode.FileMode) string { return fmt.Sprintf("%06o", uint32(m)) }
