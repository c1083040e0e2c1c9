package repo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
	"github.com/plangit/plangit/repo/store"
)

// Paths inside a session's .git directory. plangit's own files live under
// .git/plangit/, where git never looks.
const (
	branchRef   = store.BranchRef
	privateDir  = disk.PrivateDir
	indexName   = "index"
	defaultWait = 10 * time.Second
)

// noIdentity is the author of a commit when plangit finds no git identity
// and no login name (Project.Author), and of every commit plangit made
// before it recorded authors: such a commit's author reads as unknown.
var noIdentity = store.NoIdentity

// Signature is who made a commit, and when.
type Signature = store.Signature

// Session is one agent session's repository.
type Session struct {
	Project   Project
	ID        string
	Dir       string // .code-agent/plans/<id>
	gitDir    string
	store     store.Store      // the session's objects, branch and revision log
	diskStore *store.Disk      // the same store, for what only one on disk has: packs, loose files
	lk        sessionLock      // the session lock, as this process holds it
	warn      func(msg string) // where non-fatal problems are reported
	queue     queueReplay      // how queued hook events are applied
	work      *workTree        // the working files, the index and .git/plangit/
}

// Store is the session's object store: its objects, branch and revision
// log.
func (s *Session) Store() store.Store { return s.store }

// DiskStore is the same store on disk, for what only one on disk has:
// its object and pack directories, where a fetch installs what it brings.
func (s *Session) DiskStore() *store.Disk { return s.diskStore }

// OnWarning sets where non-fatal problems (a failed automatic pack, a
// change that landed but could not update every working file) are
// reported.
func (s *Session) OnWarning(f func(msg string)) { s.warn = f }

// Warnf reports a non-fatal problem where OnWarning says.
func (s *Session) Warnf(format string, args ...any) { s.warnf(format, args...) }

func (s *Session) warnf(format string, args ...any) {
	if s.warn != nil {
		s.warn("session " + s.ID + ": " + fmt.Sprintf(format, args...))
	}
}

func newSession(p Project, id string) (*Session, error) {
	dir, err := p.SessionDir(id)
	if err != nil {
		return nil, err
	}
	git := filepath.Join(dir, ".git")
	s := &Session{Project: p, ID: id, Dir: dir, gitDir: git, lk: sessionLock{dir: filepath.Join(git, privateDir), id: id}, warn: p.Warn}
	if p.memory != nil {
		s.store = p.memory.of(id) // the working files, lock and records stay on disk
	} else {
		d := store.NewDisk(git, filepath.Join(git, privateDir))
		s.store, s.diskStore = d, d
	}
	s.work = newWorkTree(id, dir, git, s.store, &s.lk, s.warnf)
	return s, nil
}

// Open opens an existing session. A missing one is SESSION_NOT_FOUND. A
// change a killed process left half-done is completed here, when no other
// process holds the session: every command, readers included, starts from
// working files that equal HEAD.
func (p Project) Open(id string) (*Session, error) {
	s, err := newSession(p, id)
	if err != nil {
		return nil, err
	}
	fi, err := os.Lstat(s.Dir)
	if err != nil || !fi.IsDir() {
		return nil, plan.Errorf(plan.CodeSessionNotFound, "no session %q in %s; plangit sessions lists them, plangit init starts one", id, p.PlansDir()).With("session", id)
	}
	if fi, err := os.Lstat(s.gitDir); err != nil || !fi.IsDir() {
		return nil, plan.Errorf(plan.CodeSessionNotFound, "session %q has no repository (%s/.git is missing or not a directory)", id, s.Dir).With("session", id)
	}
	if _, err := os.Lstat(filepath.Join(s.gitDir, "HEAD")); err != nil {
		return nil, plan.Errorf(plan.CodeSessionNotFound, "session %q has no repository (%s/.git is missing or damaged)", id, s.Dir).With("session", id)
	}
	if s.work.intentPending() {
		if unlock, ok := s.lk.try(); ok {
			if err := s.work.settle(); err != nil {
				s.warnf("%v", err)
			}
			unlock()
		}
	}
	return s, nil
}

// GitDir is the session's .git directory.
func (s *Session) GitDir() string { return s.gitDir }

// Meta says who made a change and through what; it becomes commit trailers.
// The person is the commit's author (Project.Author).
type Meta struct {
	Actor string // agent, user or hook
	Hook  string // the hook event, when a hook made the change
	Tool  string // the agent tool that triggered it, if any
	// Host is the agent host the change came through (claude, codex,
	// cursor, gemini, copilot), and HostSession that host's id of its
	// session; empty when unknown.
	Host        string
	HostSession string
	// Agent names the agent that made the change (--agent, PLANGIT_AGENT,
	// or its host's name for it: plan.ValidAgent); "" when unknown. The
	// claims go by it (plan.Fenced), and the commit names it in a
	// Plangit-Agent trailer.
	Agent string
	// Code is the commit of the code snapshot the change took at a step
	// boundary (code.Boundary), its Plangit-Code trailer; set by the
	// change, not its caller.
	Code string
	// CodeBefore is, for a change that wrote the project's files
	// (Options.Code), the snapshot taken just before the write, its
	// Plangit-Code-Before trailer; set by the change.
	CodeBefore string
}

// Options control one change.
type Options struct {
	Meta
	Now      time.Time     // the change's time; zero means time.Now()
	IfRev    string        // refuse with CONFLICT unless HEAD is this revision
	LockWait time.Duration // how long to wait for the session lock; zero means 10s
	// Yield stops the wait for the lock early, with LOCK_TIMEOUT, once
	// hook events are queued: a hook then queues its own behind them.
	Yield bool
	// Asked says the change comes from the agent's shell or its hooks,
	// where the person may have been asked by the agent's host (disk's
	// asked record): a change the gates keep for the person (plan.Gated)
	// may then take that answer. Never set for MCP: nothing asks there.
	Asked bool
	// Token is the fencing token the change carries (plan.Fence): a change
	// to a step claimed since with a newer one is refused. Force changes a
	// step another agent holds.
	Token int
	Force bool
	// EditBy is the agent's tool the hooks saw write the working files
	// (Edit, Write): a hand edit adopted then is the agent's, recorded as
	// its and held to the gates (gate.go).
	EditBy string
	// WroteCode says the change wrote the project's files (a code revert or
	// rollback): a step boundary whatever its plan change (code.Boundary).
	WroteCode bool
	// Code, when set, says what the change writes to the project's files
	// (a code revert, rollback or undo): it is asked once, under the lock,
	// after the change's function and checks passed, and the writes are
	// made before the commit, with snapshots before and after
	// (Session.writeCode). An error from it fails the change.
	Code CodeWrites
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
	Stale   *Stale      `json:"stale,omitempty"`   // working files that held nothing new, rewritten
	// Since is, for an adopted edit made on an older copy, that copy's
	// revision, the files edited, and what the revisions after it
	// brought, which the plan kept.
	Since *Stale `json:"since,omitempty"`
	// Refused is why the agent's edit (Options.EditBy) was not adopted:
	// the gates keep what it does for the person. The change went on
	// from the branch, whose files the working files are again.
	Refused error `json:"-"`
}

// Stale says the working files were saved with nothing the plan does not
// already hold — an editor's old buffer saved back, the plan in a layout of
// the person's (CRLF, "*" markers), notes already imported — and hold the
// branch's files again: no revision records an edit that changed nothing.
type Stale struct {
	Files string `json:"files"`          // the files, as "task_plan.md, findings.md"
	Base  string `json:"base,omitempty"` // the older revision they were read as an edit of; "" for the last
	// Kept are the summaries of the revisions since Base, oldest first:
	// what the files lacked, and the plan keeps (a record a person meant
	// to delete among them, where the files were the current copy).
	Kept []string `json:"kept,omitempty"`
}

// summariesSince returns the summaries of head's revisions after from,
// oldest first (none when the history cannot be read).
func summariesSince(s *Session, head, from plumbing.Hash) []string {
	entries, err := revisions(s, head)
	if err != nil {
		return nil
	}
	var out []string
	for i := len(entries) - 1; i >= 0 && entries[i].Hash != from; i-- {
		out = append(out, entries[i].Change.Summary)
	}
	slices.Reverse(out)
	return out
}

// ReadFiles reads the session's working files, never through a symbolic
// link. Missing files are absent from the map. While a change is being
// written (or was cut off) after its branch moved, files it has not
// replaced yet read as their new version. The files are those of one
// revision: a read that a change's landing overlapped is made again.
func (s *Session) ReadFiles() (map[string][]byte, error) {
	for try := 0; ; try++ {
		before := s.work.landingMark(false)
		files, err := s.work.readWorking()
		if err != nil {
			return nil, err
		}
		after := s.work.landingMark(true)
		if before == after || try == maxReads {
			if after.intent != "" {
				s.work.asCommitted(files, after)
			}
			return files, nil
		}
	}
}

// maxReads bounds how often ReadFiles reads the files again.
const maxReads = 20

// State reads and parses the session's working files without taking the
// lock: files are replaced by rename, so a reader sees whole files. A hand
// edit not yet adopted is read as the next change will adopt it: an older
// copy laid on the branch's plan, so that the revisions since it are not
// shown undone, and steps it adds under the ids they will get.
func (s *Session) State() (*plan.State, error) {
	files, err := s.ReadFiles()
	if err != nil {
		return nil, err
	}
	st, err := parseFiles(files)
	if err != nil {
		return nil, err
	}
	if pending := s.pendingEdit(files); pending != nil {
		st = pending
	}
	s.applyLeases(st)
	return st, nil
}

// pendingEdit is the state adopting the working files would make, when
// they differ from the branch's; nil when they do not, or when the
// history cannot say (they are read as they stand then).
func (s *Session) pendingEdit(files map[string][]byte) *plan.State {
	if idx, err := s.work.readIndex(); err == nil && sameFiles(files, idx) {
		return nil // as the last change left them
	}
	head, err := s.readRef()
	if err != nil || head.IsZero() {
		return nil
	}
	base, err := s.store.ReadTreeFiles(head)
	if err != nil || sameFiles(files, base) {
		return nil
	}
	floor, err := s.issued(head)
	if err != nil {
		return nil
	}
	st, err := parseFiles(files)
	if err != nil {
		return nil
	}
	a, err := s.adoptEdit(head, base, files, st, floor, st.Plan.Updated)
	if err != nil {
		return nil
	}
	return a.state
}

func parseFiles(files map[string][]byte) (*plan.State, error) {
	// Every error parsing gives is about what the files hold — a line
	// that is not plangit's format, a need of a step that does not exist,
	// two steps with one id — and each is mended the same ways.
	st, err := plan.ParseState(files)
	if err != nil {
		var e *plan.Error
		if errors.As(err, &e) {
			if e.Hint == "" && !strings.Contains(e.Message, "plangit repair") {
				e.Hint = "fix the file by hand, or run plangit repair to restore the last good revision"
			}
			if e.Err == nil {
				e.Err = ErrUnreadable
			}
		}
	}
	return st, err
}

// editFits refuses a hand edit whose files, written in plangit's form,
// pass the size plangit reads: no change can be made on top of it, and
// repair puts back the last revision's copy (fileProblem says why).
func editFits(files map[string][]byte) error {
	var full *plan.Error
	if err := plan.CheckFileSizes(files); !errors.As(err, &full) {
		return err
	}
	name := full.Details["file"]
	e := plan.Errorf(plan.CodePlanParseError, "%s, as changed outside plangit, is %d bytes in plangit's form, and plangit reads a session's files up to %d bytes; nothing was changed: shorten it by hand, or run plangit repair to put back the last revision's copy (yours is kept beside it)", name, full.Details["bytes"], plan.MaxFile).
		With("file", name).With("bytes", full.Details["bytes"]).With("limit", plan.MaxFile)
	e.Err = ErrUnreadable
	return e
}

// heldTooBig is err, a change refused for a file past the size limit,
// said of the file as the session holds it (files) where that is past the
// limit in plangit's form already — committed that way with git by hand:
// no change can be made on top of it, whatever it touches, until repair
// puts back the newest revision whose files fit.
func heldTooBig(err error, files map[string][]byte) error {
	var e *plan.Error
	if !errors.Is(err, plan.ErrFileFull) || !errors.As(err, &e) {
		return err
	}
	name, _ := e.Details["file"].(string)
	b, have := files[name]
	problem := fileProblem(name, b, have)
	if problem == "" {
		return err // the change itself makes it too big
	}
	held := plan.Errorf(plan.CodePlanParseError, "the session's %s; no change can be made on top of it: run plangit repair to put back the newest revision whose files fit", problem).
		With("file", name)
	held.Err = ErrUnreadable
	return held
}

// ErrUnreadable is in the chain of an error reading a session's files:
// what they hold is not a plan plangit can stand on, whatever the code
// says of why (PLAN_PARSE_ERROR, INVALID_DEPENDENCY, …). plangit repair
// restores them.
var ErrUnreadable = errors.New("the session's files cannot be read")

// readRef returns the commit the branch points at, or the zero hash when
// the branch has no commit yet (store.Store's ReadRef, its errors said as
// plangit's).
func (s *Session) readRef() (plumbing.Hash, error) {
	h, err := s.store.ReadRef()
	return h, storeError(err, s.gitDir)
}

// Branch returns the commit the branch points at; the zero hash when the
// branch has no commit yet.
func (s *Session) Branch() (plumbing.Hash, error) { return s.readRef() }

// errMoved says the branch was not where a change expected it: another
// writer (another git) moved it.
var errMoved = store.ErrMoved

// errRecordLost says the intent record vanished before the branch moved —
// a person removed .git/plangit while the change ran — so the change, were
// it to land, could not be told from a person's edit if cut short: it
// starts over.
var errRecordLost = store.ErrRecordLost

// setRefIf moves the branch to next if it still points at old, and still
// (if set) holds (store.Store's SetRefIf, its errors said as plangit's).
// It runs under the session's exclusive lock.
func setRefIf(s *Session, next, old plumbing.Hash, still func() bool) error {
	return storeError(s.store.SetRefIf(next, old, still), s.gitDir)
}

func storeError(err error, gitDir string) error { return StoreError(err, gitDir) }

// StoreError says an error of the store of the repository at gitDir as
// plangit's: a damaged or unwritable branch, or a revision that cannot be
// read, is an IO_ERROR.
func StoreError(err error, gitDir string) error {
	var ref *store.RefError
	var rev *store.RevisionError
	var log *store.LogError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrDamagedRef):
		return plan.Errorf(plan.CodeIOError, "%s/%s is damaged; plangit repair can restore it", gitDir, branchRef)
	case errors.As(err, &ref):
		return plan.WrapError(plan.CodeIOError, ref.Err, "cannot %s %s", ref.Op, branchRef)
	case errors.As(err, &rev):
		return plan.WrapError(plan.CodeIOError, rev.Err, "cannot read revision %s", short(rev.Hash))
	case errors.As(err, &log):
		return plan.WrapError(plan.CodeIOError, log.Err, "cannot write the revision log")
	}
	return err
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
		return "", noBranch(s)
	}
	return h.String(), nil
}

// noBranch is the error for a session whose branch has no commit: a new
// session, or one whose branch was lost, which init must not overwrite.
func noBranch(s *Session) error {
	if files, _ := s.work.readWorking(); len(files) > 0 {
		return plan.Errorf(plan.CodeIOError, "session %s has files but no readable branch; plangit repair recovers its history", s.ID).With("session", s.ID)
	}
	if s.hasHistory() {
		return plan.Errorf(plan.CodeIOError, "session %s has history but no readable branch; plangit repair recovers it", s.ID).With("session", s.ID)
	}
	return plan.Errorf(plan.CodePlanNotFound, "session %s has no plan yet; plangit init \"Title\" starts one", s.ID).With("session", s.ID)
}

// hasHistory reports whether the repository holds more objects than a
// killed init can leave (its files, tree and commit, all loose): a pack,
// or more loose objects than that.
func (s *Session) hasHistory() bool {
	if s.diskStore == nil {
		entries, ok := s.store.ReadLog()
		return ok && len(entries) > 0
	}
	if _, err := os.Lstat(store.RevlogPath(s.gitDir)); err == nil {
		return true
	}
	if packs, _ := filepath.Glob(filepath.Join(s.diskStore.PackDir(), "pack-*.pack")); len(packs) > 0 {
		return true
	}
	loose, _ := s.diskStore.LooseObjects()
	return len(loose) > len(plan.SessionFiles)+2
}

// damaged is the error for history of the session id that cannot be
// read.
func damaged(id string, rev plumbing.Hash, err error) error {
	return plan.WrapError(plan.CodeIOError, err, "the history of session %s is damaged: revision %s cannot be read; plangit repair recovers it", id, short(rev)).With("session", id)
}

// planAt reads the plan of a revision.
func planAt(s *Session, rev plumbing.Hash) (*plan.Plan, error) {
	hashes, err := s.store.ReadTreeFiles(rev)
	if err != nil {
		return nil, damaged(s.ID, rev, err)
	}
	h, ok := hashes[plan.PlanFile]
	if !ok {
		return nil, nil
	}
	src, err := s.store.ReadAs(plumbing.BlobObject, h)
	if err != nil {
		return nil, damaged(s.ID, rev, err)
	}
	p, err := plan.ParsePlan(src)
	if err != nil {
		return nil, nil // a revision another tool wrote badly: every step counts as new
	}
	return p, nil
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

func sameHashes(a, b map[string]plumbing.Hash) bool {
	if len(a) != len(b) {
		return false
	}
	for name, h := range a {
		if b[name] != h {
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

// fileChanges lists each session file's blob in old and in files.
func fileChanges(old, files map[string][]byte) []intentFile {
	var out []intentFile
	for _, name := range plan.SessionFiles {
		f := intentFile{Name: name}
		if b, ok := old[name]; ok {
			f.Old = plumbing.ComputeHash(plumbing.BlobObject, b)
		}
		if b, ok := files[name]; ok {
			f.New = plumbing.ComputeHash(plumbing.BlobObject, b)
		}
		if !plumbing.Hash(f.Old).IsZero() || !plumbing.Hash(f.New).IsZero() {
			out = append(out, f)
		}
	}
	return out
}

func allVerified(in *intent) map[string]bool {
	v := map[string]bool{}
	for _, f := range in.Files {
		v[f.Name] = true
	}
	return v
}

// FilesKey identifies the working files as they stand — each one's
// disk.FileKey — so a cache of what was read from them can tell it is
// still good without reading them.
func (s *Session) FilesKey() string { return disk.FilesKey(s.Dir, plan.SessionFiles) }

// CommittedKey is FilesKey when the working files are the branch's, as a
// change leaves them, and "" when they are not (a hand edit not adopted
// yet, a change not finished) or cannot be told. It reads without the
// lock: the files are the same before and after it compares them.
func (s *Session) CommittedKey() string {
	key := s.FilesKey()
	if s.work.intentPending() {
		return ""
	}
	head, err := s.readRef()
	if err != nil || head.IsZero() {
		return ""
	}
	base, err := s.store.ReadTreeFiles(head)
	if err != nil {
		return ""
	}
	files, err := s.work.readWorking()
	if err != nil || !sameFiles(files, base) || s.FilesKey() != key {
		return ""
	}
	return key
}
