package repo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/gofrs/flock"

	"github.com/plangit/plangit/plan"
)

// Paths inside a session's .git directory. plangit's own files live under
// .git/plangit/, where git never looks.
const (
	branchRef   = "refs/heads/main"
	privateDir  = "plangit"
	lockName    = "lock"
	indexName   = "index"
	defaultWait = 10 * time.Second
)

// Identity is the author and committer of every plangit commit; who acted
// is in the Plangit-Actor trailer.
var Identity = Signature{Name: "plangit", Email: "plangit@localhost"}

// Session is one agent session's repository.
type Session struct {
	Project Project
	ID      string
	Dir     string // .code-agent/plans/<id>
	gitDir  string
	objs    *objects
	locked  bool             // this process holds the session lock
	warn    func(msg string) // where non-fatal problems are reported
}

// OnWarning sets where non-fatal problems (a failed automatic pack) are
// reported.
func (s *Session) OnWarning(f func(msg string)) { s.warn = f }

func newSession(p Project, id string) (*Session, error) {
	dir, err := p.SessionDir(id)
	if err != nil {
		return nil, err
	}
	git := filepath.Join(dir, ".git")
	return &Session{Project: p, ID: id, Dir: dir, gitDir: git, objs: newObjects(filepath.Join(git, "objects"))}, nil
}

// Open opens an existing session. A missing one is SESSION_NOT_FOUND.
func (p Project) Open(id string) (*Session, error) {
	s, err := newSession(p, id)
	if err != nil {
		return nil, err
	}
	fi, err := os.Lstat(s.Dir)
	if err != nil || !fi.IsDir() {
		return nil, plan.Errorf(plan.CodeSessionNotFound, "no session %q in %s; plangit sessions lists them, plangit init starts one", id, p.PlansDir()).With("session", id)
	}
	if _, err := os.Stat(filepath.Join(s.gitDir, "HEAD")); err != nil {
		return nil, plan.Errorf(plan.CodeSessionNotFound, "session %q has no repository (%s/.git is missing or damaged)", id, s.Dir).With("session", id)
	}
	return s, nil
}

// GitDir is the session's .git directory.
func (s *Session) GitDir() string { return s.gitDir }

// Meta says who made a change and through what; it becomes commit trailers.
type Meta struct {
	Actor string // agent, user or hook
	Hook  string // the hook event, when a hook made the change
	Tool  string // the agent tool that triggered it, if any
}

// Options control one change.
type Options struct {
	Meta
	Now      time.Time     // the change's time; zero means time.Now()
	IfRev    string        // refuse with CONFLICT unless HEAD is this revision
	LockWait time.Duration // how long to wait for the session lock; zero means 10s
}

// Time is the change's time: Now, or the current time when Now is zero,
// stamped to the second.
func (o *Options) Time() time.Time {
	if o.Now.IsZero() {
		return plan.Stamp(time.Now())
	}
	return plan.Stamp(o.Now)
}

// Commit is a revision plangit wrote.
type Commit struct {
	Hash    string       `json:"rev"`
	Time    time.Time    `json:"time"`
	Actor   string       `json:"actor"`
	Change  plan.Change  `json:"change"`
	Touches []plan.Touch `json:"steps,omitempty"`   // the steps it changed
	Adopted bool         `json:"adopted,omitempty"` // a hand edit adopted before the change
}

// Result is what a change did.
type Result struct {
	State   *plan.State `json:"-"`
	Adopted *Commit     `json:"adopted,omitempty"` // the hand edit committed first, if any
	Commit  *Commit     `json:"commit,omitempty"`  // nil when the change changed nothing
}

// lock takes the session's exclusive lock, waiting at most wait, and
// returns the function that releases it. Only changes lock: readers need no
// lock, because every file plangit writes, the branch ref included, is
// replaced whole by a rename.
func (s *Session) lock(wait time.Duration) (func(), error) {
	dir := filepath.Join(s.gitDir, privateDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot create %s", dir)
	}
	if wait <= 0 {
		wait = defaultWait
	}
	fl := flock.New(filepath.Join(dir, lockName))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ok, err := fl.TryLockContext(ctx, 2*time.Millisecond)
	if !ok {
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return nil, plan.WrapError(plan.CodeIOError, err, "cannot lock session %s", s.ID)
		}
		return nil, plan.Errorf(plan.CodeLockTimeout, "session %s is busy: another plangit process held its lock for %s; try again", s.ID, wait).With("session", s.ID)
	}
	s.locked = true
	return func() { s.locked = false; fl.Unlock() }, nil
}

// tryExclusive takes the lock if it is free right now. It is for optional
// work done by a reader, such as saving a repaired cache.
func (s *Session) tryExclusive() (func(), bool) {
	fl := flock.New(filepath.Join(s.gitDir, privateDir, lockName))
	if ok, err := fl.TryLock(); err != nil || !ok {
		return nil, false
	}
	return func() { fl.Unlock() }, true
}

// ReadFiles reads the session's working files. Missing files are absent
// from the map.
func (s *Session) ReadFiles() (map[string][]byte, error) {
	files := make(map[string][]byte, len(plan.SessionFiles))
	for _, name := range plan.SessionFiles {
		b, err := os.ReadFile(filepath.Join(s.Dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, plan.WrapError(plan.CodeIOError, err, "cannot read %s", name)
		}
		files[name] = b
	}
	return files, nil
}

// State reads and parses the session's working files without taking the
// lock: files are replaced by rename, so a reader sees whole files. A hand
// edit not yet adopted is read as it stands.
func (s *Session) State() (*plan.State, error) {
	files, err := s.ReadFiles()
	if err != nil {
		return nil, err
	}
	return parseFiles(files)
}

func parseFiles(files map[string][]byte) (*plan.State, error) {
	st, err := plan.ParseState(files)
	if err != nil && plan.HasCode(err, plan.CodePlanParseError) {
		var e *plan.Error
		if errors.As(err, &e) && !strings.Contains(e.Message, "plangit repair") {
			e.Message += " (fix the file by hand, or run plangit repair to restore the last good revision)"
		}
	}
	return st, err
}

// readRef returns the commit the branch points at, or the zero hash when
// the branch has no commit yet. It reads the loose ref and falls back to
// packed-refs, where a real `git gc` may have moved it.
func (s *Session) readRef() (plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(s.gitDir, branchRef))
	if err == nil {
		v := strings.TrimSpace(string(b))
		if !plumbing.IsHash(v) {
			return plumbing.ZeroHash, plan.Errorf(plan.CodeIOError, "%s/%s is damaged; plangit repair can restore it", s.gitDir, branchRef)
		}
		return plumbing.NewHash(v), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return plumbing.ZeroHash, plan.WrapError(plan.CodeIOError, err, "cannot read %s", branchRef)
	}
	packed, err := os.ReadFile(filepath.Join(s.gitDir, "packed-refs"))
	if err != nil {
		return plumbing.ZeroHash, nil
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if h, name, ok := strings.Cut(line, " "); ok && name == branchRef && plumbing.IsHash(h) {
			return plumbing.NewHash(h), nil
		}
	}
	return plumbing.ZeroHash, nil
}

// checkAndSetRef moves the branch to next if it still points at old: a
// compare-and-set. It runs under the session's exclusive lock; the new value
// is written to a temporary file and renamed over the ref, so a reader never
// sees an empty or partial ref file.
func (s *Session) checkAndSetRef(next, old plumbing.Hash) error {
	cur, err := s.readRef()
	if err != nil {
		return err
	}
	if cur != old {
		return plan.Errorf(plan.CodeConflict, "the branch moved from %s to %s during the change", short(old), short(cur))
	}
	path := filepath.Join(s.gitDir, branchRef)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot write %s", branchRef)
	}
	return WriteFileAtomic(path, []byte(next.String()+"\n"), 0o644, false)
}

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "(none)"
	}
	return h.String()[:7]
}

// Head returns the session's current revision.
func (s *Session) Head() (string, error) {
	h, err := s.readRef()
	if err != nil {
		return "", err
	}
	if h.IsZero() {
		return "", plan.Errorf(plan.CodePlanNotFound, "session %s has no revision yet", s.ID)
	}
	return h.String(), nil
}

// Update runs one change under the session lock: it adopts a valid hand
// edit of the working files as its own commit, hands the state to fn, and
// commits what fn changed. If fn fails, nothing is written. A change that
// leaves the files as they were makes no commit.
func (s *Session) Update(opts Options, fn func(*plan.State) (plan.Change, error)) (*Result, error) {
	return s.update(opts, func(st *plan.State) (*plan.State, map[string][]byte, plan.Change, error) {
		c, err := fn(st)
		return st, nil, c, err
	})
}

// Restore commits exactly the files fn returns — a rollback's target
// revision, byte for byte — as one change. The files must parse.
func (s *Session) Restore(opts Options, fn func(cur *plan.State) (map[string][]byte, plan.Change, error)) (*Result, error) {
	return s.update(opts, func(st *plan.State) (*plan.State, map[string][]byte, plan.Change, error) {
		files, c, err := fn(st)
		if err != nil {
			return nil, nil, c, err
		}
		next, err := plan.ParseState(files)
		if err != nil {
			return nil, nil, c, err
		}
		return next, files, c, nil
	})
}

// update is Update and Restore: fn returns the new state, and its files
// when they must be written exactly (nil: the state's own rendering).
func (s *Session) update(opts Options, fn func(*plan.State) (*plan.State, map[string][]byte, plan.Change, error)) (*Result, error) {
	unlock, err := s.lock(opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer unlock()

	head, err := s.readRef()
	if err != nil {
		return nil, err
	}
	if head.IsZero() {
		return nil, plan.Errorf(plan.CodePlanNotFound, "session %s has no plan yet; plangit init \"Title\" starts one", s.ID)
	}
	if opts.IfRev != "" {
		want, err := s.resolveAt(opts.IfRev, head)
		if err != nil {
			return nil, err
		}
		if want != head {
			return nil, plan.Errorf(plan.CodeConflict, "the plan changed since %s: HEAD is now %s; read it again (plangit show) and retry", short(want), short(head)).
				With("expected", want.String()).With("head", head.String())
		}
	}
	now := opts.Time()

	files, err := s.ReadFiles()
	if err != nil {
		return nil, err
	}
	base, indexOK, err := s.committedHashes(head, files)
	if err != nil {
		return nil, err
	}
	edited := !sameFiles(files, base)
	st, err := parseFiles(files)
	if err != nil {
		return nil, err
	}
	var (
		adopted      map[string][]byte
		adoptedPlan  *plan.Plan
		adoptTouches []plan.Touch
	)
	if edited {
		st.Plan.Updated = now
		adopted = st.Files()
		before, err := s.planAt(head)
		if err != nil {
			return nil, err
		}
		adoptTouches = plan.Touches(plan.DiffSteps(before, st.Plan))
		adoptedPlan = st.Plan.Clone()
	}
	before := st.Plan.Clone()

	next, nextFiles, change, err := fn(st)
	if err != nil {
		return nil, err
	}
	if nextFiles == nil {
		nextFiles = next.Files()
	}
	res := &Result{State: next}

	if edited {
		edit := plan.Change{Op: "edit", Summary: "edit: " + editedNames(files, base) + " changed outside plangit"}
		c, err := s.commit(head, base, files, adopted, commitInfo{now: now, change: edit, meta: Meta{Actor: "user", Hook: opts.Hook, Tool: opts.Tool}, counts: adoptedPlan.Counts(), touches: adoptTouches})
		if err != nil {
			return nil, err
		}
		c.Adopted = true
		res.Adopted = c
		head, base, files, indexOK = plumbing.NewHash(c.Hash), hashFiles(adopted), adopted, true
	}
	if change.Op == "" || (sameFiles(nextFiles, base) && !change.Marker) {
		if !indexOK {
			// The files match HEAD but the index lagged (a process killed
			// after moving the branch); bring it back in step.
			if err := s.writeIndex(files); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
	touches := plan.Touches(plan.DiffSteps(before, next.Plan))
	c, err := s.commit(head, base, files, nextFiles, commitInfo{now: now, change: change, meta: opts.Meta, counts: next.Plan.Counts(), touches: touches})
	if err != nil {
		return nil, err
	}
	res.Commit = c
	return res, nil
}

// planAt reads the plan of a revision.
func (s *Session) planAt(rev plumbing.Hash) (*plan.Plan, error) {
	hashes, err := s.objs.readTreeFiles(rev)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read revision %s", short(rev))
	}
	h, ok := hashes[plan.PlanFile]
	if !ok {
		return nil, nil
	}
	src, err := s.objs.readAs(plumbing.BlobObject, h)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read revision %s", short(rev))
	}
	p, err := plan.ParsePlan(src)
	if err != nil {
		return nil, nil // a revision another tool wrote badly: every step counts as new
	}
	return p, nil
}

// committedHashes returns the blob hashes of the files at head. It answers
// from the index when the index agrees with the working files (the usual
// case: no object is read), and from head's tree otherwise; indexOK says
// which.
func (s *Session) committedHashes(head plumbing.Hash, files map[string][]byte) (hashes map[string]plumbing.Hash, indexOK bool, err error) {
	if idx, err := s.readIndex(); err == nil && sameFiles(files, idx) {
		return idx, true, nil
	}
	hashes, err = s.objs.readTreeFiles(head)
	if err != nil {
		return nil, false, plan.WrapError(plan.CodeIOError, err, "cannot read revision %s of session %s", short(head), s.ID)
	}
	return hashes, false, nil
}

func hashFiles(files map[string][]byte) map[string]plumbing.Hash {
	out := make(map[string]plumbing.Hash, len(files))
	for name, b := range files {
		out[name] = plumbing.ComputeHash(plumbing.BlobObject, b)
	}
	return out
}

// sameFiles reports whether files hold exactly the given blobs.
func sameFiles(files map[string][]byte, hashes map[string]plumbing.Hash) bool {
	if len(files) != len(hashes) {
		return false
	}
	for name, b := range files {
		h, ok := hashes[name]
		if !ok || plumbing.ComputeHash(plumbing.BlobObject, b) != h {
			return false
		}
	}
	return true
}

func editedNames(files map[string][]byte, base map[string]plumbing.Hash) string {
	var names []string
	for _, name := range plan.SessionFiles {
		b, inFiles := files[name]
		h, inBase := base[name]
		if inFiles != inBase || (inFiles && plumbing.ComputeHash(plumbing.BlobObject, b) != h) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "files"
	}
	return strings.Join(names, ", ")
}

// commitInfo is what a commit records besides its files.
type commitInfo struct {
	now     time.Time
	change  plan.Change
	meta    Meta
	counts  plan.Counts
	touches []plan.Touch
}

// commit writes one revision: objects first, then the working files, then
// the branch (compare-and-set), then the index and the revision log. A
// process killed at any point leaves the last committed revision intact:
// before the branch moves, the new files read as a hand edit, which the
// next command adopts.
//
// base holds the blob hashes at parent; old is what the working files hold
// now; files is the new revision's content.
func (s *Session) commit(parent plumbing.Hash, base map[string]plumbing.Hash, old, files map[string][]byte, ci commitInfo) (*Commit, error) {
	entries := make([]treeEntry, 0, len(files))
	for _, name := range plan.SessionFiles {
		b, ok := files[name]
		if !ok {
			continue
		}
		h := plumbing.ComputeHash(plumbing.BlobObject, b)
		if base[name] != h {
			if _, _, err := s.objs.write(plumbing.BlobObject, b); err != nil {
				return nil, plan.WrapError(plan.CodeIOError, err, "cannot write an object")
			}
		}
		entries = append(entries, treeEntry{Name: name, Hash: h})
	}
	tree, _, err := s.objs.write(plumbing.TreeObject, encodeTree(entries))
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot write an object")
	}
	if ci.meta.Actor == "" {
		ci.meta.Actor = "agent"
	}
	sig := Identity
	sig.When = ci.now
	co := &commitObject{Tree: tree, Author: sig, Committer: sig, Message: message(ci)}
	if !parent.IsZero() {
		co.Parents = []plumbing.Hash{parent}
	}
	hash, _, err := s.objs.write(plumbing.CommitObject, co.encode())
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot write an object")
	}

	if err := s.writeWorking(files, old); err != nil {
		return nil, err
	}
	if err := s.checkAndSetRef(hash, parent); err != nil {
		return nil, err
	}
	if err := s.writeIndex(files); err != nil {
		return nil, err
	}
	c := &Commit{Hash: hash.String(), Time: ci.now, Actor: ci.meta.Actor, Change: ci.change, Touches: ci.touches}
	n, err := s.appendRevlog(revEntry{Hash: hash, Parent: parent, Time: ci.now, Meta: ci.meta, Change: ci.change, Counts: ci.counts, Touches: ci.touches})
	if err != nil {
		return nil, err
	}
	if err := s.maybePack(n); err != nil && s.warn != nil {
		// The commit stands; its objects stay loose until the next pack.
		s.warn(fmt.Sprintf("session %s: packing failed, objects stay loose: %v", s.ID, err))
	}
	return c, nil
}

// writeWorking brings the working files to files: changed ones are replaced
// atomically, ones no longer recorded are removed, unchanged ones are left
// alone.
func (s *Session) writeWorking(files, old map[string][]byte) error {
	for _, name := range plan.SessionFiles {
		b, keep := files[name]
		ob, had := old[name]
		path := filepath.Join(s.Dir, name)
		switch {
		case keep && (!had || !bytes.Equal(b, ob)):
			if err := WriteFileAtomic(path, b, 0o644, false); err != nil {
				return err
			}
		case !keep && had:
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return plan.WrapError(plan.CodeIOError, err, "cannot remove %s", name)
			}
		}
	}
	return nil
}

// Trailer keys.
const (
	TrailerOp       = "Plangit-Op"
	TrailerStep     = "Plangit-Step"
	TrailerActor    = "Plangit-Actor"
	TrailerHook     = "Plangit-Hook"
	TrailerTool     = "Plangit-Tool"
	TrailerProgress = "Plangit-Progress"
)

// message is the commit message: the change's summary, then trailers that
// make history queryable without diffing. Every step the change touched
// gets a Plangit-Step trailer, with its status change if it had one.
func message(ci commitInfo) string {
	var b strings.Builder
	summary := strings.Join(strings.Fields(ci.change.Summary), " ")
	if summary == "" {
		summary = ci.change.Op
	}
	b.WriteString(summary + "\n\n")
	trailer := func(k, v string) {
		if v = strings.Join(strings.Fields(v), " "); v != "" {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	trailer(TrailerOp, ci.change.Op)
	for _, t := range ci.touches {
		trailer(TrailerStep, t.String())
	}
	trailer(TrailerActor, ci.meta.Actor)
	trailer(TrailerHook, ci.meta.Hook)
	trailer(TrailerTool, ci.meta.Tool)
	trailer(TrailerProgress, fmt.Sprintf("%d/%d", ci.counts.Done, ci.counts.Total))
	return b.String()
}

// FilesKey identifies the working files as they stand — each one's size,
// modification and change times and inode — so a cache of what was read
// from them can tell it is still good without reading them. plangit
// replaces files by rename, so every change it makes gives a new inode; an
// editor's change moves the times.
func (s *Session) FilesKey() string {
	var b strings.Builder
	for _, name := range plan.SessionFiles {
		fi, err := os.Stat(filepath.Join(s.Dir, name))
		if err != nil {
			b.WriteString(name + ":-;")
			continue
		}
		// strconv, not fmt: hooks compute this on every call.
		b.WriteString(name + ":" + strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + ":" + statID(fi) + ";")
	}
	return b.String()
}
