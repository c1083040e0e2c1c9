package repo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/store"
)

// rejectedSuffix names the copies repair keeps of a file it restores:
// NAME.rejected.1, NAME.rejected.2, …, a new one each time, so a second
// repair never overwrites the first one's copy. The session's
// .git/info/exclude hides such copies from git status.
const rejectedSuffix = ".rejected"

// rejectedPath is where the next rejected copy of path goes: the first
// path.rejected.N that is free (never a link followed: Lstat).
func rejectedPath(path string) string {
	for n := 1; ; n++ {
		kept := path + rejectedSuffix + "." + strconv.Itoa(n)
		if _, err := os.Lstat(kept); errors.Is(err, fs.ErrNotExist) {
			return kept
		}
	}
}

// RepairReport says what Repair did, and what it could not recover.
type RepairReport struct {
	// RefProblem says what was wrong with the branch and where it points
	// now; RefRecovered is that revision, RefWas where it pointed before,
	// when that was a hash.
	RefProblem   string `json:"ref_problem,omitempty"`
	RefRecovered string `json:"ref_recovered,omitempty"`
	RefWas       string `json:"ref_was,omitempty"`
	// ObjectsRecovered are blobs written again from the working files.
	ObjectsRecovered []string `json:"objects_recovered,omitempty"`
	// Lost says, one line each, what could not be recovered.
	Lost     []string       `json:"lost,omitempty"`
	Restored []RestoredFile `json:"restored"`
	// Kept is the commit of working files a lost revision left behind.
	Kept *Commit `json:"kept,omitempty"`
	// ReadBack is the revision that restored the files of the newest
	// revision that reads, where the last one's could not be read.
	ReadBack *Commit `json:"read_back,omitempty"`
	Adopted  *Commit `json:"adopted,omitempty"` // valid hand edits, committed
	Stale    *Stale  `json:"stale,omitempty"`   // saved files holding nothing new, rewritten
}

// RestoredFile is a working file Repair put back as the last revision has it.
type RestoredFile struct {
	File    string `json:"file"`
	Problem string `json:"problem"`
	KeptAt  string `json:"kept_at,omitempty"` // where its rejected text is
}

// Repair brings a damaged session back to a working state without losing
// anything that can be kept:
//
//   - a change a killed process left unfinished is completed, and the
//     temporary files and half-installed packs it left are cleared;
//   - damaged loose objects are moved aside (into .git/plangit/), and
//     blobs that are gone are written again from the working files when
//     these hold them;
//   - a branch that is damaged, lost, or points at a commit that cannot be
//     read (or whose tree or files cannot) is pointed at the newest intact
//     revision: from the branch's own ancestors, else from the revision log,
//     else from every commit among the objects, loose and packed,
//     preferring the one the index says was last written;
//   - working files a lost revision left behind are committed (op repair);
//   - a working file that does not parse, is a symbolic link or not a
//     regular file is restored from HEAD, its rejected self kept beside it
//     as NAME.rejected.N, a new N each time (a link stays a link; a copy
//     keeps the file's mode);
//   - a last revision whose files do not parse is followed by one with
//     the files of the newest revision whose files do, unless a person
//     mended the working files so that they parse: those are adopted as
//     their edit;
//   - valid hand edits are adopted; the index and revision log rewritten.
//
// What cannot be recovered is listed in the report's Lost.
func (s *Session) Repair(opts Options) (*RepairReport, error) {
	rep := &RepairReport{Restored: []RestoredFile{}}
	unlock, err := s.lk.take(opts.LockWait, nil)
	if err != nil {
		return nil, err
	}
	locked := true
	defer func() {
		if locked {
			unlock()
		}
	}()
	if err := s.work.settle(); err != nil {
		return nil, err
	}
	s.work.sweepDebris(s.diskStore)
	if err := moveAsideOdd(s, rep); err != nil {
		return nil, err
	}
	files, err := s.work.readWorking()
	if err != nil {
		return nil, err
	}
	r := &repairer{Session: s, rep: rep, files: files, work: map[plumbing.Hash][]byte{}, good: map[plumbing.Hash]bool{}}
	for _, b := range files {
		r.work[plumbing.ComputeHash(plumbing.BlobObject, b)] = b
	}
	head, problem := r.findHead()
	rep.RefProblem = problem
	if head.IsZero() {
		if problem != "" {
			rep.Lost = append(rep.Lost, "every revision: "+problem)
		}
		return restart(s, rep, files, opts)
	}
	if rep.RefWas != "" && rep.RefWas != head.String() {
		rep.Lost = append(rep.Lost, "revision "+rep.RefWas[:7]+", where the branch pointed, cannot be read")
	}
	if rep.RefRecovered != "" {
		if err := s.work.writeFile(filepath.Join(s.gitDir, branchRef), []byte(head.String()+"\n"), 0o644); err != nil {
			return nil, err
		}
	}
	entries, lostAt := readableHistory(s, head)
	if !lostAt.IsZero() {
		rep.Lost = append(rep.Lost, fmt.Sprintf("revisions before %s cannot be read (commit %s is missing or damaged); history starts at %s", short(entries[0].Hash), short(lostAt), short(entries[0].Hash)))
	}
	rep.Lost = append(rep.Lost, r.lostFiles(entries)...)
	log := make([]store.Entry, len(entries))
	for i, e := range entries {
		log[i] = e.entry()
	}
	if err := s.store.WriteLog(log); err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot write %s", store.RevlogPath(s.gitDir))
	}
	for _, name := range []string{idsName, oldStepsName, oldNotesName} {
		os.Remove(s.PrivatePath(name)) // the ids issued: counted again from the history kept
	}

	committed, err := s.store.ReadFilesAt(head)
	if err != nil {
		return nil, damaged(s.ID, head, err)
	}
	if rep.RefRecovered != "" && !sameFiles(files, hashFiles(committed)) && fileProblems(files) == "" {
		// The working files are what the lost revisions left: keep them.
		c, err := keepFiles(s, head, committed, files, rep, opts)
		if err != nil {
			return nil, err
		}
		rep.Kept = c
		head, committed = plumbing.NewHash(c.Hash), files
		if len(rep.Lost) > 0 && rep.RefWas != "" {
			rep.Lost[0] += "; its working files are kept as revision " + c.Hash[:7]
		}
	}
	// The last revision's files read, or the person has mended them by
	// hand: the change below adopts theirs as their edit, as any change
	// would.
	bad := fileProblems(committed)
	mended := bad != "" && fileProblems(files) == "" && !sameFiles(files, hashFiles(committed))
	if problem := bad; problem != "" && !mended {
		// The last revision's files cannot be read (one written by a
		// version of plangit that let a file grow past the limit, or by
		// hand with git): a new revision restores those of the newest
		// revision that reads. History keeps the one that does not.
		c, err := readBack(s, head, committed, files, entries, problem, rep, opts)
		if err != nil {
			return rep, err
		}
		rep.ReadBack = c
		head = plumbing.NewHash(c.Hash)
		if committed, err = s.store.ReadFilesAt(head); err != nil {
			return nil, damaged(s.ID, head, err)
		}
		if files, err = s.work.readWorking(); err != nil {
			return nil, err
		}
	}
	if err := restoreBad(s, rep, files, committed); err != nil {
		return nil, err
	}
	unlock()
	locked = false

	res, err := s.Update(opts, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if err != nil {
		return rep, err
	}
	rep.Adopted, rep.Stale = res.Adopted, res.Stale
	return rep, nil
}

// repairer is one run of Repair.
type repairer struct {
	*Session
	rep   *RepairReport
	files map[string][]byte        // the working files
	work  map[plumbing.Hash][]byte // the same, by blob hash
	good  map[plumbing.Hash]bool   // blobs already read whole
}

// readable reads an object. A loose copy that cannot be read is moved
// aside, so that a packed copy is found; a blob that is gone is written
// again from the working file that holds it, if one does, and a tree from
// the working files, if they are what it held.
func (r *repairer) readable(h plumbing.Hash, t plumbing.ObjectType) ([]byte, error) {
	data, err := r.store.ReadAs(t, h)
	if err == nil {
		return data, nil
	}
	path := r.diskStore.LoosePath(h)
	if _, lerr := os.Lstat(path); lerr == nil && os.Rename(path, r.PrivatePath("damaged-"+h.String())) == nil {
		if data, err = r.store.ReadAs(t, h); err == nil {
			return data, nil
		}
	}
	b, ok := r.work[h]
	if !ok && t == plumbing.TreeObject {
		// A tree of the working files' blobs, if that is the one missing.
		var entries []store.TreeEntry
		for name, content := range r.files {
			entries = append(entries, store.TreeEntry{Name: name, Hash: plumbing.ComputeHash(plumbing.BlobObject, content)})
		}
		if tree := store.EncodeTree(entries); plumbing.ComputeHash(plumbing.TreeObject, tree) == h {
			b, ok = tree, true
		}
	}
	if ok && (t == plumbing.BlobObject || t == plumbing.TreeObject) {
		if _, _, werr := r.store.Write(t, b); werr == nil {
			r.rep.ObjectsRecovered = append(r.rep.ObjectsRecovered, h.String())
			return b, nil
		}
	}
	return nil, err
}

// intact checks that a commit, its tree and its files can be read, and
// says what cannot.
func (r *repairer) intact(h plumbing.Hash) (c *store.CommitObject, problem string) {
	data, err := r.readable(h, plumbing.CommitObject)
	if err == nil {
		c, err = store.DecodeCommit(data)
	}
	if err != nil {
		return nil, "commit " + short(h) + " is missing or damaged"
	}
	tree, err := r.readable(c.Tree, plumbing.TreeObject)
	var entries []store.TreeEntry
	if err == nil {
		entries, err = store.DecodeTree(tree)
	}
	if err != nil {
		return c, "the tree of revision " + short(h) + " is missing or damaged"
	}
	var gone []string
	for _, e := range entries {
		if r.good[e.Hash] {
			continue
		}
		if _, err := r.readable(e.Hash, plumbing.BlobObject); err != nil {
			gone = append(gone, e.Name)
			continue
		}
		r.good[e.Hash] = true
	}
	if len(gone) > 0 {
		return c, "revision " + short(h) + " lacks the content of " + strings.Join(gone, ", ")
	}
	return c, ""
}

// findHead returns the revision the branch should point at, setting
// rep.RefRecovered when that is not where it points, and says what was
// wrong with where it pointed.
func (r *repairer) findHead() (plumbing.Hash, string) {
	rep := r.rep
	ref, err := r.readRef()
	if err == nil && !ref.IsZero() {
		c, problem := r.intact(ref)
		if problem == "" {
			return ref, ""
		}
		rep.RefWas = ref.String()
		// The branch's own ancestors first.
		for c != nil && len(c.Parents) > 0 {
			p := c.Parents[0]
			var pp string
			if c, pp = r.intact(p); pp == "" {
				rep.RefRecovered = p.String()
				return p, problem + "; the branch now points at its parent " + short(p)
			}
		}
		if h := r.fromRevlog(ref); !h.IsZero() {
			rep.RefRecovered = h.String()
			return h, problem + "; the branch now points at " + short(h) + ", the newest intact revision the revision log names"
		}
		if h := r.fromObjects(); !h.IsZero() {
			rep.RefRecovered = h.String()
			return h, problem + "; the branch now points at " + short(h) + ", the newest intact plangit commit among the objects"
		}
		return plumbing.ZeroHash, problem + "; no intact revision was found"
	}
	why := "the branch was lost"
	if err != nil {
		why = "the branch ref was damaged"
	}
	if h := r.fromRevlog(plumbing.ZeroHash); !h.IsZero() {
		rep.RefRecovered = h.String()
		return h, why + "; it now points at " + short(h) + ", the newest intact revision the revision log names"
	}
	if h := r.fromObjects(); !h.IsZero() {
		rep.RefRecovered = h.String()
		return h, why + " with the revision log; it now points at " + short(h) + ", the newest intact plangit commit among the objects"
	}
	if err == nil && !hasObjects(r.Session) {
		return plumbing.ZeroHash, ""
	}
	return plumbing.ZeroHash, why + " and no intact revision was found"
}

// fromRevlog returns the newest revision the revision log names that is
// intact, other than skip.
func (r *repairer) fromRevlog(skip plumbing.Hash) plumbing.Hash {
	b, _ := os.ReadFile(store.RevlogPath(r.gitDir))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if e, ok := store.ParseLine(lines[i]); ok && e.Hash != skip {
			if _, problem := r.intact(e.Hash); problem == "" {
				return e.Hash
			}
		}
	}
	return plumbing.ZeroHash
}

// fromObjects looks at every commit among the objects, loose and packed,
// and returns the intact plangit commit most likely to be the branch's
// last: one whose files the index records (the index is written after
// every change that landed; a change killed before its branch moved left
// a commit the index never saw), else one whose files are the working
// files, else the newest; among equals, the one with the longest history.
func (r *repairer) fromObjects() plumbing.Hash {
	commits := map[plumbing.Hash]*store.CommitObject{}
	r.diskStore.ForEach(func(h plumbing.Hash, t plumbing.ObjectType, data []byte) {
		if t != plumbing.CommitObject {
			return
		}
		if c, err := store.DecodeCommit(data); err == nil && (c.Author.Name == noIdentity.Name || strings.Contains(c.Message, "\n"+TrailerOp+": ")) {
			commits[h] = c
		}
	})
	depth := map[plumbing.Hash]int{}
	var depthOf func(h plumbing.Hash, n int) int
	depthOf = func(h plumbing.Hash, n int) int {
		c, ok := commits[h]
		if !ok || n > len(commits) {
			return 0
		}
		if d, ok := depth[h]; ok {
			return d
		}
		d := 1
		if len(c.Parents) > 0 {
			d += depthOf(c.Parents[0], n+1)
		}
		depth[h] = d
		return d
	}
	idx, _ := r.Session.work.readIndex()
	files, _ := r.Session.work.readWorking()
	work := hashFiles(files)
	score := func(h plumbing.Hash) [4]int64 {
		var sc [4]int64
		if hashes, err := r.store.ReadTreeFiles(h); err == nil {
			if idx != nil && sameHashes(hashes, idx) {
				sc[0] = 1
			}
			if sameHashes(hashes, work) {
				sc[1] = 1
			}
		}
		sc[2] = commits[h].Committer.When.Unix()
		sc[3] = int64(depthOf(h, 0))
		return sc
	}
	var best plumbing.Hash
	var bestScore [4]int64
	for h := range commits {
		if _, problem := r.intact(h); problem != "" {
			continue
		}
		if sc := score(h); best.IsZero() || slices.Compare(sc[:], bestScore[:]) > 0 || slices.Compare(sc[:], bestScore[:]) == 0 && h.String() > best.String() {
			best, bestScore = h, sc
		}
	}
	return best
}

// hasObjects reports whether the repository holds any object.
func hasObjects(s *Session) bool {
	found := false
	s.diskStore.ForEach(func(plumbing.Hash, plumbing.ObjectType, []byte) { found = true })
	return found
}

// readableHistory returns the entries of head's history — every parent's
// — in the revision log's order, as far as the commits can be read:
// lostAt is the first that cannot be (the history behind it is left out).
func readableHistory(s *Session, head plumbing.Hash) (entries []revEntry, lostAt plumbing.Hash) {
	found := map[plumbing.Hash]store.Entry{}
	for queue := []plumbing.Hash{head}; len(queue) > 0; {
		h := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if _, ok := found[h]; ok || h.IsZero() {
			continue
		}
		e, err := store.EntryFromCommit(s.store, h)
		if err != nil {
			if lostAt.IsZero() {
				lostAt = h
			}
			continue
		}
		found[h] = e
		queue = append(queue, e.Parents...)
	}
	entries = fromEntries(store.TopoOrder(head, found))
	for i := range entries {
		entries[i].N = i + 1
	}
	return entries, lostAt
}

// lostFiles lists the revisions whose tree or files cannot be read.
func (r *repairer) lostFiles(entries []revEntry) []string {
	var out []string
	for _, e := range entries {
		if _, problem := r.intact(e.Hash); problem != "" {
			out = append(out, fmt.Sprintf("@%d: %s", e.N, problem))
		}
	}
	return out
}

// keepFiles commits the working files on top of head, as the repair: they
// are what revisions lost since head left behind.
func keepFiles(s *Session, head plumbing.Hash, committed, files map[string][]byte, rep *RepairReport, opts Options) (*Commit, error) {
	st, err := parseFiles(files)
	if err != nil {
		return nil, err
	}
	before, err := planAt(s, head)
	if err != nil {
		return nil, err
	}
	was := "a lost revision"
	if rep.RefWas != "" {
		was = "lost revision " + rep.RefWas[:7]
	}
	ci := commitInfo{now: opts.Time(), change: plan.Change{Op: "repair", Summary: "repair: keep the working files " + was + " left"},
		meta: opts.Meta, counts: st.Plan.Counts(), touches: plan.Touches(plan.DiffSteps(before, st.Plan))}
	c, _, err := commit(s, head, hashFiles(committed), files, files, ci)
	return c, err
}

// readBack commits, on top of head, the files of the newest revision in
// entries (oldest first) whose files read; head's (bad) do not (problem).
// A working file a person changed (work, unlike bad) is kept beside as
// NAME.rejected.N before the revision's file replaces it.
func readBack(s *Session, head plumbing.Hash, bad, work map[string][]byte, entries []revEntry, problem string, rep *RepairReport, opts Options) (*Commit, error) {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Hash == head {
			continue
		}
		files, err := s.store.ReadFilesAt(e.Hash)
		if err != nil || fileProblems(files) != "" {
			continue
		}
		for _, name := range plan.SessionFiles {
			w, have := work[name]
			if b, had := bad[name]; !have || (had && bytes.Equal(w, b)) || bytes.Equal(w, files[name]) {
				continue
			}
			path := filepath.Join(s.Dir, name)
			r := RestoredFile{File: name, Problem: "changed by hand on revision " + short(head) + ", whose files cannot be read", KeptAt: rejectedPath(path)}
			if err := s.work.writeFile(r.KeptAt, w, 0o644); err != nil {
				return nil, err
			}
			rep.Restored = append(rep.Restored, r)
		}
		st, _ := parseFiles(files)
		// What the file holds wrong, without the advice for a working
		// file, which the revision does not need.
		what, _, _ := strings.Cut(problem, "; ")
		ci := commitInfo{now: opts.Time(), meta: opts.Meta, counts: st.Plan.Counts(),
			change: plan.Change{Op: "repair", Summary: fmt.Sprintf("repair: the files of revision %s cannot be read (%s); they are as at @%d (%s) again", short(head), what, e.N, short(e.Hash))}}
		// The steps it touches, told apart from the newest plan that
		// reads: most often the one it restores, and none.
		if before, err := planAt(s, head); err == nil {
			if before == nil {
				before = readablePlan(s, head)
			}
			ci.touches = plan.Touches(plan.DiffSteps(before, st.Plan))
		}
		c, _, err := commit(s, head, hashFiles(bad), work, files, ci)
		return c, err
	}
	rep.Lost = append(rep.Lost, "revision "+short(head)+": "+problem+", and no earlier revision's files can be read")
	return nil, plan.Errorf(plan.CodeIOError, "session %s: the files of revision %s cannot be read (%s), nor those of any earlier revision", s.ID, short(head), problem)
}

// restart starts a new history for a session none of whose revisions can
// be read: its working files, if they parse, become the first revision.
func restart(s *Session, rep *RepairReport, files map[string][]byte, opts Options) (*RepairReport, error) {
	if len(files) == 0 {
		if len(rep.Lost) == 0 {
			return nil, plan.Errorf(plan.CodePlanNotFound, "session %s has no plan yet; plangit init \"Title\" starts one", s.ID)
		}
		return rep, plan.Errorf(plan.CodeIOError, "session %s: no revision and no working file could be recovered", s.ID)
	}
	if problem := fileProblems(files); problem != "" {
		return rep, plan.Errorf(plan.CodeIOError, "session %s: no revision could be recovered, and its working files do not parse (%s); fix them and run plangit repair again", s.ID, problem)
	}
	st, _ := parseFiles(files)
	ci := commitInfo{now: opts.Time(), change: plan.Change{Op: "repair", Summary: "repair: no revision could be recovered; the working files start a new history"},
		meta: opts.Meta, counts: st.Plan.Counts(), touches: plan.Touches(plan.DiffSteps(nil, st.Plan))}
	os.Remove(store.RevlogPath(s.gitDir))
	c, _, err := commit(s, plumbing.ZeroHash, nil, files, files, ci)
	if err != nil {
		return rep, err
	}
	rep.Kept, rep.RefRecovered = c, c.Hash
	return rep, nil
}

// fileProblems says why the working files cannot be committed, or "".
func fileProblems(files map[string][]byte) string {
	for _, name := range plan.SessionFiles {
		b, have := files[name]
		if p := fileProblem(name, b, have); p != "" {
			return p
		}
	}
	return ""
}

// moveAsideOdd renames working files that are symbolic links or not
// regular files to NAME.rejected.N, as they are: a link stays a link,
// nothing is read through it.
func moveAsideOdd(s *Session, rep *RepairReport) error {
	for _, name := range plan.SessionFiles {
		path := filepath.Join(s.Dir, name)
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode().IsRegular() {
			continue
		}
		kept := rejectedPath(path)
		if err := os.Rename(path, kept); err != nil {
			return plan.WrapError(plan.CodeIOError, err, "cannot move %s aside", name)
		}
		what := "a symbolic link"
		if fi.Mode()&fs.ModeSymlink == 0 {
			what = "not a regular file"
		}
		rep.Restored = append(rep.Restored, RestoredFile{File: name, Problem: name + " was " + what, KeptAt: kept})
	}
	return nil
}

// restoreBad puts back, from committed, every working file that cannot be
// adopted, keeping its text as NAME.rejected.N with the file's mode; then it
// rewrites the index.
func restoreBad(s *Session, rep *RepairReport, files, committed map[string][]byte) error {
	restore := map[string][]byte{}
	for name, b := range files {
		restore[name] = b
	}
	for _, name := range plan.SessionFiles {
		b, have := files[name]
		want, committedHas := committed[name]
		if have == committedHas && bytes.Equal(b, want) {
			continue
		}
		problem := fileProblem(name, b, have)
		if problem == "" {
			continue // a valid hand edit: adopted later
		}
		if i := slices.IndexFunc(rep.Restored, func(r RestoredFile) bool { return r.File == name }); i >= 0 {
			rep.Restored[i].Problem += "; restored"
		} else {
			r := RestoredFile{File: name, Problem: problem}
			if have {
				path := filepath.Join(s.Dir, name)
				mode := os.FileMode(0o644)
				if fi, err := os.Lstat(path); err == nil {
					mode = fi.Mode().Perm()
				}
				r.KeptAt = rejectedPath(path)
				if err := s.work.writeFile(r.KeptAt, b, mode); err != nil {
					return err
				}
			}
			rep.Restored = append(rep.Restored, r)
		}
		if committedHas {
			restore[name] = want
		} else {
			delete(restore, name)
		}
	}
	if err := excludeRejected(s); err != nil {
		return err
	}
	for _, name := range plan.SessionFiles {
		b, keep := restore[name]
		path := filepath.Join(s.Dir, name)
		cur, have := files[name]
		switch {
		case keep && (!have || !bytes.Equal(b, cur)):
			if err := s.work.writeFile(path, b, 0o644); err != nil {
				return err
			}
		case !keep && have:
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return plan.WrapError(plan.CodeIOError, err, "cannot remove %s", name)
			}
		}
	}
	in := &intent{Files: fileChanges(committed, committed)}
	verified := map[string]bool{}
	for name, b := range committed {
		verified[name] = bytes.Equal(restore[name], b)
	}
	return s.work.writeIndex(in, verified)
}

// fileProblem says why a working file cannot be adopted, or "" if it can.
func fileProblem(name string, b []byte, have bool) string {
	if !have {
		if name == plan.PlanFile {
			return name + " was missing"
		}
		return ""
	}
	var (
		err     error
		written []byte // the file in plangit's form, as a change writes it
	)
	switch name {
	case plan.PlanFile:
		var p *plan.Plan
		if p, err = plan.ParsePlan(b); err == nil {
			written = plan.WritePlan(p)
		}
	case plan.FindingsFile:
		var f plan.Findings
		if f, err = plan.ParseFindings(b); err == nil {
			written = plan.WriteFindings(f)
		}
	case plan.ErrorsFile:
		var l plan.ErrorLog
		if l, err = plan.ParseErrors(b); err == nil {
			written = plan.WriteErrors(l)
		}
	}
	if err != nil {
		return err.Error()
	}
	if len(written) > plan.MaxFile {
		// It reads, but no change could be made on top of it.
		return fmt.Sprintf("%s is %d bytes in plangit's form, and plangit reads a session's files up to %d bytes", name, len(written), plan.MaxFile)
	}
	return ""
}

// excludeRejected makes git ignore the copies repair keeps (and the
// unnumbered ones older versions kept).
func excludeRejected(s *Session) error {
	path := filepath.Join(s.gitDir, "info", "exclude")
	b, _ := os.ReadFile(path)
	var missing []string
	for _, pattern := range []string{"*" + rejectedSuffix, "*" + rejectedSuffix + ".*"} {
		if !slices.ContainsFunc(strings.Split(string(b), "\n"), func(line string) bool { return strings.TrimSpace(line) == pattern }) {
			missing = append(missing, pattern)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if len(b) > 0 && !bytes.HasSuffix(b, []byte("\n")) {
		b = append(b, '\n')
	}
	b = append(b, []byte("# copies of files plangit repair replaced\n"+strings.Join(missing, "\n")+"\n")...)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot write %s", path)
	}
	return s.work.writeFile(path, b, 0o644)
}

// readablePlan is the plan of the newest revision up to head whose plan
// reads, or nil: what a revision after one that does not read is told
// apart from (its steps are not all new).
func readablePlan(s *Session, head plumbing.Hash) *plan.Plan {
	entries, err := revisions(s, head)
	if err != nil {
		return nil
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if p, err := planAt(s, entries[i].Hash); err == nil && p != nil {
			return p
		}
	}
	return nil
}
