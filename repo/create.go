package repo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
)

// gitConfig is a new session repository's configuration.
const gitConfig = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"

// ErrExists is the cause of Create's error for a session that already has
// a plan.
var ErrExists = errors.New("the session already has a plan")

// Create makes a new session — a git repository on branch main — and
// commits st as its first revision. A session that already has a revision
// is refused, and so is one with files or history but no readable branch,
// which plangit repair recovers instead; one left half-created by a killed
// process is completed.
func (p Project) Create(id string, st *plan.State, change plan.Change, opts Options) (*Session, *Result, error) {
	if err := ValidateNewSessionID(id); err != nil {
		return nil, nil, err
	}
	s, err := newSession(p, id)
	if err != nil {
		return nil, nil, err
	}
	if err := p.ensureDir(); err != nil {
		return nil, nil, err
	}
	if fi, err := os.Lstat(s.Dir); err == nil && !fi.IsDir() {
		return nil, nil, plan.Errorf(plan.CodeIOError, "%s exists and is not a directory", s.Dir)
	}
	if err := initGitDir(s); err != nil {
		return nil, nil, err
	}
	unlock, err := s.lk.take(opts.LockWait, nil)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		unlock()
		s.CatchUp()
	}()
	if err := s.work.settle(); err != nil {
		return nil, nil, err
	}
	head, err := s.readRef()
	if err != nil {
		return nil, nil, err
	}
	if !head.IsZero() {
		e := plan.Errorf(plan.CodeInvalidArgument, "session %s already has a plan; choose another --session, or plangit show to see it", id).With("session", id)
		e.Err = ErrExists
		return nil, nil, e
	}
	old, err := s.work.readWorking()
	if err != nil {
		return nil, nil, err
	}
	if len(old) > 0 || s.hasHistory() {
		// A killed init leaves neither: it writes files and the revision
		// log only after its branch moved, and a few objects before.
		return nil, nil, plan.Errorf(plan.CodeIOError, "session %s has files or history but no readable branch; plangit repair recovers it (init would overwrite it)", id).With("session", id)
	}
	if opts.Meta.Actor == "" {
		opts.Meta.Actor = "agent"
	}
	opts.Meta.Code = s.snapshot(nil, st.Plan, change, opts)
	ci := commitInfo{now: opts.Time(), change: change, meta: opts.Meta, counts: st.Plan.Counts(), touches: plan.Touches(plan.DiffSteps(nil, st.Plan)), redact: st.Plan.Rules.Redact}
	c, _, err := commit(s, plumbing.ZeroHash, nil, old, st.Files(), ci)
	if err != nil {
		return nil, nil, err
	}
	if p.Landed != nil {
		p.Landed(s, st)
	}
	p.ForgetPrompt(id) // the session has its plan: no request waits for one
	drain(s)
	return s, &Result{State: st, Commit: c}, nil
}

// initGitDir lays out an empty repository, leaving what exists alone. A
// .git that is not a real directory is refused, never followed.
func initGitDir(s *Session) error {
	if fi, err := os.Lstat(s.gitDir); err == nil && !fi.IsDir() {
		return plan.Errorf(plan.CodeIOError, "%s is not a directory (a symbolic link?); plangit never follows one", s.gitDir)
	}
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(s.gitDir, d), 0o755); err != nil {
			return plan.WrapError(plan.CodeIOError, err, "cannot create the session repository")
		}
	}
	if err := s.EnsurePrivate(); err != nil {
		return err
	}
	for name, content := range map[string]string{"HEAD": "ref: " + branchRef + "\n", "config": gitConfig} {
		path := filepath.Join(s.gitDir, name)
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			if err := s.work.writeFile(path, []byte(content), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// NewEmpty lays out an empty repository for a session about to be
// fetched: no revision, no working file. An id init refuses, or a path
// that holds something else, is refused.
func (p Project) NewEmpty(id string) (*Session, error) {
	if err := ValidateNewSessionID(id); err != nil {
		// An id init refuses (-c, -rf: read as flags) is no session to
		// make here either.
		return nil, plan.Errorf(plan.CodeInvalidSessionID, "session %s is refused: %v; it stays on the remote", clipID(id), err).With("session", clipID(id))
	}
	s, err := newSession(p, id)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(s.Dir); err == nil {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s exists and is not a session; move it away to fetch session %s", s.Dir, id).With("session", id)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot check %s", s.Dir)
	}
	if err := p.ensureDir(); err != nil {
		return nil, err
	}
	if err := initGitDir(s); err != nil {
		disk.RemoveAll(s.Dir)
		return nil, err
	}
	return s, nil
}
