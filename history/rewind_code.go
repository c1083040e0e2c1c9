package history

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/code"
)

// The project's files, put back. A code revert, rollback or undo writes
// the project's work tree from its code snapshots, in the change that
// records it (repo.Options.Code: the work tree is snapshotted just before
// the write and just after, and the revision names both). Each path is
// decided by three versions of it — base B, ours O (the work tree as it
// stands, from the snapshot just before) and theirs T (what the path goes
// back to) — each a file (content and mode) or no file:
//
//  1. O is T: nothing to write, it is so already.
//  2. O is B: T is written — its content and mode, a new file where B had
//     none, a removal where T has none.
//  3. all three are text files (no NUL in their first 8,000 bytes; not
//     symbolic links): the line merge of O and T from B (merge.go); the
//     mode is the one side changed, and a mode both changed differently
//     conflicts; a line conflict conflicts.
//  4. anything else conflicts: a file one side removed and the other
//     changed, a file both made with other content, a binary file or a
//     symbolic link both changed.
//  5. a path any of the three recorded by size only
//     (code_snapshot_max_file), or a submodule, is never written: the
//     result names it (Kept).
//
// One conflict anywhere and nothing is written, the plan is not changed:
// the CONFLICT error names every file and hunk. What B and T are:
//
//   - step revert N --code: B is the snapshot at the end of step N's
//     latest run, T the one at its start (StepRange), over the paths the
//     step changed: later work in other lines stays;
//   - undo of a revision that wrote the project's files (its
//     Plangit-Code-Before trailer): B is the revision's snapshot, T the
//     one taken just before its write, over the paths that write changed;
//   - rollback @N --code: B is O, so case 2 for every path either O or
//     @N's snapshot holds: the work tree becomes @N's. A work tree with
//     changes no snapshot held is refused unless --force, which keeps them
//     in the snapshot before the write.

// CodeWrite is what a code revert, rollback or undo did to the project's
// files.
type CodeWrite struct {
	// Before is the snapshot of the work tree just before the write, which
	// undo goes back to; "" when nothing was written.
	Before string        `json:"before,omitempty"`
	Files  []CodeWritten `json:"files"`
	Kept   []CodeKept    `json:"kept,omitempty"`
}

// CodeWritten is one file written: restored (to T's content), created,
// removed, or merged (case 3).
type CodeWritten struct {
	Path   string `json:"path"`
	Action string `json:"action"`
}

// CodeKept is a file left as it is (case 5), and why.
type CodeKept struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// CodeConflict is a file a code write could not decide (case 3, 4).
type CodeConflict struct {
	Path  string      `json:"path"`
	Why   string      `json:"why"`
	Hunks []MergeHunk `json:"hunks,omitempty"`
}

// String is the conflict as a message lists it.
func (c CodeConflict) String() string {
	if len(c.Hunks) == 0 {
		return c.Path + " (" + c.Why + ")"
	}
	hs := make([]string, len(c.Hunks))
	for i, h := range c.Hunks {
		hs[i] = h.String()
	}
	return c.Path + " " + strings.Join(hs, ", ") + " (" + c.Why + ")"
}

// codeMerge is one code write being decided.
type codeMerge struct {
	cs                 *code.Store
	base, ours, theirs map[string]code.File
	// the sizes of the files each recorded by size only
	largeBase, largeOurs, largeTheirs map[string]int64
	out                               CodeWrite
	writes                            []code.Write
	conflicts                         []CodeConflict
}

// newCodeMerge reads the three snapshots' listings; base "" is ours.
func newCodeMerge(cs *code.Store, base string, ours *code.Snapshot, theirs string) (*codeMerge, error) {
	m := &codeMerge{cs: cs, out: CodeWrite{Files: []CodeWritten{}}}
	var err error
	if m.ours, err = cs.Files(ours.Commit); err != nil {
		return nil, codeMissing(err)
	}
	m.largeOurs = sizes(ours.Large)
	m.base, m.largeBase = m.ours, m.largeOurs
	read := func(h string) (map[string]code.File, map[string]int64, error) {
		snap, err := cs.Snapshot(plumbing.NewHash(h))
		if err != nil {
			return nil, nil, codeMissing(err)
		}
		files, err := cs.Files(snap.Commit)
		if err != nil {
			return nil, nil, codeMissing(err)
		}
		return files, sizes(snap.Large), nil
	}
	if base != "" {
		if m.base, m.largeBase, err = read(base); err != nil {
			return nil, err
		}
	}
	if m.theirs, m.largeTheirs, err = read(theirs); err != nil {
		return nil, err
	}
	return m, nil
}

func sizes(large []code.Large) map[string]int64 {
	out := map[string]int64{}
	for _, l := range large {
		out[l.Path] = l.Size
	}
	return out
}

// changed is the paths where base and theirs differ, the large ones too.
func (m *codeMerge) changed() []string {
	set := map[string]bool{}
	for p, f := range m.base {
		if g, ok := m.theirs[p]; !ok || g != f {
			set[p] = true
		}
	}
	for p := range m.theirs {
		if _, ok := m.base[p]; !ok {
			set[p] = true
		}
	}
	for _, l := range []map[string]int64{m.largeBase, m.largeTheirs} {
		for p := range l {
			if m.largeBase[p] != m.largeTheirs[p] {
				set[p] = true
			}
		}
	}
	paths := make([]string, 0, len(set))
	for p := range set {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths
}

func lookup(files map[string]code.File, p string) *code.File {
	if f, ok := files[p]; ok {
		return &f
	}
	return nil
}

func sameFile(a, b *code.File) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// decide runs the cases over paths.
func (m *codeMerge) decide(paths []string) error {
	for _, p := range paths {
		b, o, t := lookup(m.base, p), lookup(m.ours, p), lookup(m.theirs, p)
		if m.largeBase[p] > 0 || m.largeOurs[p] > 0 || m.largeTheirs[p] > 0 {
			m.out.Kept = append(m.out.Kept, CodeKept{Path: p, Why: "recorded by size only (code_snapshot_max_file)"})
			continue
		}
		if b != nil && b.Mode == filemode.Submodule || o != nil && o.Mode == filemode.Submodule || t != nil && t.Mode == filemode.Submodule {
			if !sameFile(o, t) {
				m.out.Kept = append(m.out.Kept, CodeKept{Path: p, Why: "a submodule"})
			}
			continue
		}
		switch {
		case sameFile(o, t): // case 1
		case sameFile(o, b): // case 2
			action := "restored"
			switch {
			case t == nil:
				action = "removed"
			case o == nil:
				action = "created"
			}
			m.put(p, o, t, action)
		default:
			if err := m.merge(p, b, o, t); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *codeMerge) put(p string, from, to *code.File, action string) {
	m.writes = append(m.writes, code.Write{Path: p, From: from, To: to})
	m.out.Files = append(m.out.Files, CodeWritten{Path: p, Action: action})
}

func (m *codeMerge) conflict(p, why string, hunks []MergeHunk) {
	m.conflicts = append(m.conflicts, CodeConflict{Path: p, Why: why, Hunks: hunks})
}

// merge is cases 3 and 4.
func (m *codeMerge) merge(p string, b, o, t *code.File) error {
	switch {
	case o == nil:
		m.conflict(p, "removed since", nil)
		return nil
	case t == nil:
		m.conflict(p, "changed since, and would be removed", nil)
		return nil
	case b == nil:
		m.conflict(p, "made since, with other content", nil)
		return nil
	}
	text := func(f *code.File) ([]byte, bool, error) {
		if f.Mode != filemode.Regular && f.Mode != filemode.Executable {
			return nil, false, nil
		}
		data, err := m.cs.Blob(f.Hash, 0)
		if err != nil {
			return nil, false, codeMissing(err)
		}
		return data, bytes.IndexByte(data[:min(len(data), 8000)], 0) < 0, nil
	}
	var data [3][]byte
	for i, f := range []*code.File{b, o, t} {
		d, ok, err := text(f)
		if err != nil {
			return err
		}
		if !ok {
			m.conflict(p, "changed since, and not a text file", nil)
			return nil
		}
		data[i] = d
	}
	mode := t.Mode
	switch {
	case o.Mode == b.Mode:
	case t.Mode == b.Mode:
		mode = o.Mode
	case o.Mode != t.Mode:
		m.conflict(p, "its mode changed since", nil)
		return nil
	}
	merged, hunks := merge3(string(data[0]), string(data[1]), string(data[2]))
	if hunks != nil {
		m.conflict(p, "the same lines changed since", hunks)
		return nil
	}
	h, err := m.cs.WriteBlob([]byte(merged))
	if err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot write a merged file to the code store")
	}
	to := &code.File{Mode: mode, Hash: h}
	if !sameFile(o, to) {
		m.put(p, o, to, "merged")
	}
	return nil
}

// result is the writes, or CONFLICT naming every conflict (what says
// what was being done: "step 1's work cannot be taken out").
func (m *codeMerge) result(now *code.Snapshot, what string) ([]code.Write, error) {
	if len(m.conflicts) > 0 {
		list := make([]string, len(m.conflicts))
		for i, c := range m.conflicts {
			list[i] = c.String()
		}
		return nil, plan.Errorf(plan.CodeConflict, "%s: later changes in the work tree touch the same places: %s; nothing was changed", what, strings.Join(list, "; ")).
			Hinted("change those files by hand, or commit or stash the later work first").With("conflicts", m.conflicts)
	}
	if len(m.writes) > 0 {
		m.out.Before = now.Commit.String()
	}
	return m.writes, nil
}

// filesNote is a summary's note of n files written.
func filesNote(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("; %s 1 file", what)
	}
	return fmt.Sprintf("; %s %d files", what, n)
}

// RevertStepCode is RevertStep, and step id's work taken out of the
// project's files as well (the cases above), in the one revision.
func RevertStepCode(s *repo.Session, id string, opts repo.Options) (*repo.Result, *CodeWrite, error) {
	out := &CodeWrite{Files: []CodeWritten{}}
	opts.Code = func(cs *code.Store, now *code.Snapshot, _ plumbing.Hash) ([]code.Write, string, error) {
		d, err := StepRange(s, id)
		if err != nil {
			return nil, "", err
		}
		m, err := newCodeMerge(cs, d.To.Snapshot, now, d.From.Snapshot)
		if err != nil {
			return nil, "", err
		}
		if err := m.decide(m.changed()); err != nil {
			return nil, "", err
		}
		ws, err := m.result(now, fmt.Sprintf("step %s's work cannot be taken out", d.Step))
		*out = m.out
		return ws, filesNote(len(ws), "its work taken out of"), err
	}
	res, err := RevertStep(s, id, opts)
	return res, out, err
}

// RollbackCode is Rollback, and the project's files brought back to rev's
// code snapshot (its own or its nearest earlier revision's) as well.
// Changes in the work tree that no snapshot holds are refused unless
// force; either way they are in the snapshot taken just before.
func RollbackCode(s *repo.Session, rev string, force bool, opts repo.Options) (*repo.Result, *CodeWrite, error) {
	d, err := RevisionRange(s, rev, rev)
	if err != nil {
		return nil, nil, err
	}
	out := &CodeWrite{Files: []CodeWritten{}}
	opts.Code = func(cs *code.Store, now *code.Snapshot, head plumbing.Hash) ([]code.Write, string, error) {
		if now.Commit != head && !force {
			var files []string
			if !head.IsZero() {
				if old, err := cs.Files(head); err == nil {
					cur, _ := cs.Files(now.Commit)
					cd, _ := diffFiles(cs, old, cur, false)
					for _, f := range cd {
						files = append(files, f.Path)
					}
				}
			}
			return nil, "", plan.Errorf(plan.CodeConflict, "the work tree has changes no code snapshot holds%s; nothing was changed", listed(files)).
				Hinted("add --force to snapshot them first and roll back all the same (plangit undo puts them back)").With("files", files)
		}
		m, err := newCodeMerge(cs, "", now, d.From.Snapshot)
		if err != nil {
			return nil, "", err
		}
		if err := m.decide(m.changed()); err != nil {
			return nil, "", err
		}
		ws, err := m.result(now, "the work tree cannot be rolled back")
		*out = m.out
		return ws, filesNote(len(ws), fmt.Sprintf("the project's files as at @%d:", d.From.N)), err
	}
	res, err := Rollback(s, rev, opts)
	return res, out, err
}

func listed(files []string) string {
	switch {
	case len(files) == 0:
		return ""
	case len(files) > 5:
		return " (" + strings.Join(files[:5], ", ") + fmt.Sprintf(" and %d more)", len(files)-5)
	}
	return " (" + strings.Join(files, ", ") + ")"
}

// codeBefore is a revision's Plangit-Code-Before trailer: the snapshot
// taken just before the project's files it wrote; "" when it wrote none.
func codeBefore(s *repo.Session, hash string) (string, error) {
	c, err := s.Store().ReadCommit(plumbing.NewHash(hash))
	if err != nil {
		return "", plan.WrapError(plan.CodeIOError, err, "cannot read revision %s", hash[:7])
	}
	for _, line := range strings.Split(c.Message, "\n") {
		if v, ok := strings.CutPrefix(line, code.TrailerBefore+": "); ok && plumbing.IsHash(v) {
			return v, nil
		}
	}
	return "", nil
}

// undoCode is the Options.Code of an undo: the revision it undoes, set by
// the undo's function (target), had its write merged back (the cases
// above); nothing when it wrote nothing.
func undoCode(target *repo.Revision, before *string, out *CodeWrite) repo.CodeWrites {
	return func(cs *code.Store, now *code.Snapshot, _ plumbing.Hash) ([]code.Write, string, error) {
		if target.Hash == "" || *before == "" {
			return nil, "", nil
		}
		m, err := newCodeMerge(cs, target.Code, now, *before)
		if err != nil {
			return nil, "", err
		}
		if err := m.decide(m.changed()); err != nil {
			return nil, "", err
		}
		ws, err := m.result(now, fmt.Sprintf("the project's files @%d wrote cannot be put back", target.N))
		*out = m.out
		return ws, filesNote(len(ws), "the project's files put back:"), err
	}
}
