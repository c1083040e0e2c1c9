package repo

import (
	"errors"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
)

// A change is one value, taken through these steps under the session
// lock:
//
//  1. begin: take the lock; finish what a process killed mid-change left
//     (settle); apply the hook events queued for the session, as batches
//     under this same lock (Batch); read the branch, and refuse with
//     CONFLICT where Options.IfRev names another revision.
//  2. read: the branch's files, and the working files; their difference
//     is a hand edit, laid on the branch (handedit.go) and committed
//     first, as a revision of its own.
//  3. apply: the command's function gets the state and what it is made
//     on (Base), and changes the state.
//  4. commit: objects, intent record, branch, working files, revision
//     log, id cache (commit). Then the session's Landed runs, still under
//     the lock.
//
// A person saving a file while the change is written sends it back to
// step 2 (errRetry), so no save is lost; steps 3 and 4 run again on their
// edit. After the lock is let go, events queued meanwhile are applied
// (CatchUp).

// Update runs one change under the session lock: it adopts a valid hand
// edit of the working files as its own commit, hands the state to fn, and
// commits what fn changed. If fn fails, nothing is written. A change that
// leaves the files as they were makes no commit.
//
// fn may run more than once: when a person saves a working file while the
// change is being written, the change starts over on top of their edit,
// which is adopted first, so no edit is lost. fn must derive its change
// from the state it is given.
func (s *Session) Update(opts Options, fn func(*plan.State) (plan.Change, error)) (*Result, error) {
	return s.run(opts, func(st *plan.State, _ Base) (*plan.State, map[string][]byte, plan.Change, error) {
		c, err := fn(st)
		return st, nil, c, err
	})
}

// Base is what a change is made on: the last revision (Last), and whether
// a hand edit of the working files is adopted first, as the revision after
// it — the state the change's function gets is then that edit.
type Base struct {
	Edit bool
	s    *Session
	rev  plumbing.Hash // the last revision
}

// Last is the last revision before the change (before the hand edit it
// adopts, if any).
func (b Base) Last() (Revision, error) {
	entries, err := revisions(b.s, b.rev)
	if err != nil {
		return Revision{}, err
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Hash == b.rev {
			return entries[i].revision(), nil
		}
	}
	return Revision{}, damaged(b.s.ID, b.rev, errors.New("not in the revision log"))
}

// Restore commits exactly the files fn returns — a rollback's target
// revision, byte for byte — as one change. The files must parse.
func (s *Session) Restore(opts Options, fn func(cur *plan.State, on Base) (map[string][]byte, plan.Change, error)) (*Result, error) {
	return s.run(opts, func(st *plan.State, on Base) (*plan.State, map[string][]byte, plan.Change, error) {
		files, c, err := fn(st, on)
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

// changeFn is a change's function: the new state, and its files when they
// must be written exactly (nil: the state's own rendering).
type changeFn func(*plan.State, Base) (*plan.State, map[string][]byte, plan.Change, error)

// errRetry says a person changed a working file while a change was being
// written, before its branch moved: the change starts over on their edit.
var errRetry = errors.New("a working file changed during the change")

// maxAttempts bounds how often a change starts over.
const maxAttempts = 8

// change is one change under way.
type change struct {
	s    *Session
	opts Options
	fn   changeFn
	head plumbing.Hash // where the branch is, moved along by the commits the change makes
	res  Result
	// stale says the working files were saved with nothing of their own:
	// they go back to the branch's, by the commit or by restoreWorking.
	stale bool
	// code is what Options.Code wrote to the project, once: a retry
	// commits it, a change that fails in the end puts it back.
	code      *wrote
	codeAsked bool
}

// run makes one change: begin, then attempts until one lands.
func (s *Session) run(opts Options, fn changeFn) (*Result, error) {
	if opts.LockWait <= 0 {
		opts.LockWait = defaultWait
	}
	c := &change{s: s, opts: opts, fn: fn}
	unlock, err := c.begin(opts.Yield)
	if err != nil {
		return nil, err
	}
	defer func() {
		unlock()
		s.CatchUp()
	}()
	if err := c.attempts(&unlock); err != nil {
		if c.code != nil {
			if uerr := c.code.Undo(); uerr != nil {
				s.warnf("the change did not land, and the project's files it wrote could not all be put back (%v): code snapshot %s holds them as they were", uerr, short(c.code.Pre))
			}
		}
		return nil, err
	}
	return &c.res, nil
}

// attempts makes attempts until one lands (c.res) or one fails for good.
func (c *change) attempts(unlock *func()) error {
	s, opts := c.s, c.opts
	var err error
	for attempt := 1; ; attempt++ {
		err = c.attempt()
		if err == nil {
			if c.res.State != nil && (c.res.Commit != nil || c.res.Adopted != nil) && s.Project.Landed != nil {
				s.Project.Landed(s, c.res.State)
			}
			return nil
		}
		if attempt == maxAttempts {
			break
		}
		switch {
		case errors.Is(err, errRetry) || errors.Is(err, errRecordLost):
			continue
		case errors.Is(err, errMoved) && opts.IfRev == "":
			if c.head, err = s.readRef(); err != nil {
				return err
			}
			continue
		case errors.Is(err, errLockLost):
			(*unlock)()
			if *unlock, err = c.begin(false); err != nil {
				*unlock = func() {}
				return err
			}
			continue
		}
		return err
	}
	switch {
	case errors.Is(err, errRetry):
		return plan.Errorf(plan.CodeConflict, "the session's files kept changing while plangit wrote them (%d tries); nothing more was changed, try again", maxAttempts)
	case errors.Is(err, errMoved):
		cur, _ := s.readRef()
		return plan.Errorf(plan.CodeConflict, "the branch moved from %s to %s during the change; read the plan again (plangit show) and retry", short(c.head), short(cur)).
			With("head", cur.String())
	case errors.Is(err, errLockLost):
		return plan.Errorf(plan.CodeLockTimeout, "the .git directory of session %s kept being replaced; nothing more was changed, try again", s.ID)
	case errors.Is(err, errRecordLost):
		return plan.Errorf(plan.CodeIOError, "%s kept being removed while plangit wrote the change (%d tries); nothing more was changed: leave it in place and try again", filepath.Join(s.gitDir, privateDir), maxAttempts)
	}
	return err
}

// begin is step 1: it returns the lock's release.
func (c *change) begin(yield bool) (func(), error) {
	s := c.s
	unlock, err := s.lk.take(c.opts.LockWait, giveUpIf(yield, s))
	if err != nil {
		return nil, err
	}
	fail := func(err error) (func(), error) {
		unlock()
		return func() {}, err
	}
	if err := s.work.settle(); err != nil {
		return fail(err)
	}
	drain(s)
	if c.head, err = s.readRef(); err != nil {
		return fail(err)
	}
	if c.head.IsZero() {
		return fail(noBranch(s))
	}
	if c.opts.IfRev != "" {
		want, err := resolveAt(s, c.opts.IfRev, c.head)
		if err != nil {
			return fail(err)
		}
		if want != c.head {
			return fail(plan.Errorf(plan.CodeConflict, "the plan changed since %s: HEAD is now %s; read it again (plangit show) and retry", short(want), short(c.head)).
				With("expected", want.String()).With("head", c.head.String()))
		}
	}
	return unlock, nil
}

// read is what step 2 reads: the branch's blobs, the working files, their
// state, and the ids the history issued.
type read struct {
	base  map[string]plumbing.Hash
	files map[string][]byte
	st    *plan.State
	floor plan.Issued
}

func (c *change) read() (*read, error) {
	s := c.s
	if !s.lk.intact() {
		return nil, errLockLost
	}
	if s.work.intentPending() {
		// Only a writer that got in around a replaced lock leaves one
		// here: finish its change before reading the files.
		if err := s.work.settle(); err != nil {
			return nil, err
		}
	}
	if cur, err := s.readRef(); err != nil {
		return nil, err
	} else if cur != c.head {
		return nil, errMoved
	}
	// The branch's commit and tree must be readable before anything is
	// committed on top of them: a cheap check, two small objects.
	base, err := s.store.ReadTreeFiles(c.head)
	if err != nil {
		return nil, damaged(s.ID, c.head, err)
	}
	files, err := s.work.readWorking()
	if err != nil {
		return nil, err
	}
	st, err := parseFiles(files)
	if err != nil {
		return nil, err
	}
	floor, err := s.issued(c.head)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "the history of session %s is damaged; plangit repair recovers it", s.ID).With("session", s.ID)
	}
	st.Plan.Floor = floor
	s.applyLeases(st)
	return &read{base: base, files: files, st: st, floor: floor}, nil
}

// edit is a hand edit of the working files, laid on the branch: the
// revision it becomes just before the change's.
type edit struct {
	files   map[string][]byte // the files it commits
	counts  plan.Counts
	touches []plan.Touch
	summary string
	issued  plan.Issued
}

// adopt is the rest of step 2: a hand edit of the working files is laid
// on the branch (r.st becomes the state it makes), to be committed once
// the change's function has succeeded; nil when the files are the
// branch's, or hold nothing of the person's (c.stale).
func (c *change) adopt(r *read) (*edit, error) {
	s, now := c.s, c.opts.Time()
	if sameFiles(r.files, r.base) {
		return nil, nil
	}
	a, err := s.adoptEdit(c.head, r.base, r.files, r.st, r.floor, now)
	if err != nil {
		return nil, err
	}
	r.st = a.state
	if a.unchanged(r.base) {
		// Nothing of the person's own: the files go back to the branch's,
		// and no revision says a person changed them.
		c.res.Stale = &Stale{Files: editedNames(r.files, r.base)}
		if a.from != c.head && !a.composed {
			c.res.Stale.Base, c.res.Stale.Kept = short(a.from), summariesSince(s, c.head, a.from)
		}
		c.stale = true
		return nil, nil
	}
	if c.opts.EditBy != "" && a.head != nil {
		if err := gate(s, a.before, a.state.Plan, c.opts, now); plan.HasCode(err, plan.CodeConfirmationRequired) {
			r.st, c.stale, c.res.Refused = a.head, true, err // the change goes on from the branch
			r.st.Plan.Floor = r.floor
			s.applyLeases(r.st)
			return nil, nil
		} else if err != nil {
			return nil, err
		}
	}
	if a.from != c.head && !a.composed {
		c.res.Since = &Stale{Files: editedNames(r.files, r.base), Base: short(a.from), Kept: summariesSince(s, c.head, a.from)}
	}
	e := &edit{files: a.state.Files(), counts: a.state.Plan.Counts(), touches: plan.Touches(plan.DiffSteps(a.before, a.state.Plan)),
		summary: "edit: " + editedNames(r.files, r.base) + " changed outside plangit", issued: r.floor.Holding(a.state)}
	if err := editFits(e.files); err != nil {
		return nil, err
	}
	if a.note != "" {
		e.summary += " (" + a.note + ")"
	}
	r.floor = e.issued
	r.st.Plan.Floor = e.issued
	return e, nil
}

// commitEdit commits the hand edit e as its own revision: the person's,
// or the agent's where the hooks saw its tool make it (Options.EditBy).
func (c *change) commitEdit(r *read, e *edit) error {
	o := c.opts
	meta := Meta{Actor: "user", Hook: o.Hook, Tool: o.Tool, Host: o.Host, HostSession: o.HostSession}
	if o.EditBy != "" {
		meta.Actor, meta.Tool, meta.Agent = "agent", o.EditBy, o.Agent // the hooks saw the agent's tool make it
	}
	cm, l, err := commit(c.s, c.head, r.base, r.files, e.files, commitInfo{now: o.Time(), change: plan.Change{Op: "edit", Summary: e.summary},
		meta: meta, counts: e.counts, touches: e.touches, issued: &e.issued})
	if err != nil {
		return err
	}
	cm.Adopted = true
	c.res.Adopted = cm
	c.head, r.base, r.files = plumbing.NewHash(cm.Hash), hashFiles(e.files), l.files
	if l.touched {
		return errRetry // edited again while the edit was written: adopt that too
	}
	return nil
}

// catchIndex brings the index back in step with working files that match
// the branch (a process killed after moving the branch leaves it behind).
func (c *change) catchIndex(r *read) error {
	if idx, err := c.s.work.readIndex(); err == nil && sameHashes(idx, r.base) {
		return nil
	}
	in := &intent{Commit: c.head, Files: fileChanges(r.files, r.files)}
	return c.s.work.writeIndex(in, allVerified(in))
}

// attempt makes one try at steps 2 to 4. The commits it makes stand even
// when a later step asks for a retry.
func (c *change) attempt() error {
	s, now := c.s, c.opts.Time()
	r, err := c.read()
	if err != nil {
		return err
	}
	// What an earlier attempt said of the working files is not what
	// this one reads (a person saved again): only its commits stand.
	c.stale, c.res.Stale, c.res.Since = false, nil, nil
	e, err := c.adopt(r)
	if err != nil {
		return err
	}
	st := r.st
	before := st.Plan.Clone()
	next, nextFiles, ch, err := c.fn(st, Base{Edit: e != nil, s: s, rev: c.head})
	if err != nil {
		return err
	}
	fenced := next.Plan
	if nextFiles != nil {
		fenced = fenced.Clone() // exact files: checked, never changed
	}
	if err := plan.Fenced(before, fenced, plan.Fence{Agent: c.opts.Agent, Token: c.opts.Token, Force: c.opts.Force}, now); err != nil {
		return err
	}
	if err := gate(s, before, next.Plan, c.opts, now); err != nil {
		return err
	}
	if e != nil {
		if err := c.commitEdit(r, e); err != nil {
			return err
		}
	}
	if nextFiles == nil {
		nextFiles = next.Files()
	}
	c.res.State = next
	if ch.Op != "" && c.opts.Code != nil && c.code == nil && !c.codeAsked {
		c.codeAsked = true
		if c.code, err = s.writeCode(ch, c.opts); err != nil {
			return err
		}
	}
	if ch.Op == "" || (sameFiles(nextFiles, r.base) && !ch.Marker && c.code == nil) {
		if c.stale {
			return s.work.restoreWorking(c.head, r.files, r.base)
		}
		if e == nil {
			return c.catchIndex(r)
		}
		return nil
	}
	touches := plan.Touches(plan.DiffSteps(before, next.Plan))
	issued := r.floor.Raise(plan.Issued{Steps: maxTouched(touches)}).Holding(next)
	meta := c.opts.Meta
	if c.code != nil {
		meta.Code, meta.CodeBefore = c.code.Post.String(), c.code.Pre.String()
		ch.Summary += c.code.note
	} else {
		meta.Code = s.snapshot(before, next.Plan, ch, c.opts)
	}
	cm, _, err := commit(s, c.head, r.base, r.files, nextFiles, commitInfo{now: now, change: ch, meta: meta, counts: next.Plan.Counts(), touches: touches, issued: &issued, redact: next.Plan.Rules.Redact})
	if err != nil {
		return heldTooBig(err, r.files)
	}
	c.head = plumbing.NewHash(cm.Hash)
	c.res.Commit = cm
	s.clearLeases()
	return nil
}
