package repo

import (
	"errors"
	"fmt"
	"os"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/code"
)

// noCodeFile records that the session said once its project has no code
// snapshots (not a git repository).
const noCodeFile = "no-code"

// Code is the session's code store, for the project its session is in;
// code.ErrNotGit when the project is not in a git work tree.
func (s *Session) Code() (*code.Store, error) { return code.Open(s.gitDir, s.Project.Root) }

// snapshot takes the code snapshot of a change at a step boundary
// (code.Boundary), under the session's lock, and returns its commit for
// the Plangit-Code trailer: "" when there is none. It never fails the
// change: a snapshot that cannot be taken is a warning, and a project
// that is not a git repository says so once.
func (s *Session) snapshot(before, after *plan.Plan, ch plan.Change, o Options) string {
	if s.Project.memory != nil || !code.Boundary(before, after, ch, o.WroteCode) {
		return ""
	}
	cfg, err := s.Project.Config()
	if err != nil || cfg.CodeSnapshots == "off" {
		return ""
	}
	cs, err := s.Code()
	if errors.Is(err, code.ErrNotGit) {
		if _, err := os.Lstat(s.PrivatePath(noCodeFile)); err != nil {
			s.warnf("the project is not a git repository: steps record no code snapshots (said once; code_snapshots: off turns them off)")
			s.WritePrivate(noCodeFile, nil)
		}
		return ""
	}
	var snap *code.Snapshot
	if err == nil {
		snap, err = cs.Capture(code.Options{MaxFile: int64(cfg.CodeSnapshotMaxFile), Now: o.Time(), Message: ch.Summary})
	}
	if err != nil {
		s.warnf("no code snapshot with this change: %v", err)
		return ""
	}
	return snap.Commit.String()
}

// CodeWrites says what a change writes to the project's files
// (Options.Code), given the code store, the snapshot of the work tree as
// it stands, taken just before, and the store's head before that
// snapshot: the writes, and a note the change's summary ends with.
type CodeWrites func(cs *code.Store, now *code.Snapshot, head plumbing.Hash) ([]code.Write, string, error)

// wrote is what writeCode wrote: the snapshots before and after.
type wrote struct {
	cs        *code.Store
	head      plumbing.Hash // the store's head before the change
	pre, post plumbing.Hash
	writes    []code.Write
	note      string
}

// writeCode writes the project's files for a change with Options.Code,
// once, under the session lock, after the change's checks (fence, gates)
// passed and just before its commit:
//
//  1. the work tree is snapshotted (pre), so that nothing in it is lost;
//  2. o.Code says what to write, from pre; when it refuses (a conflict,
//     changes no snapshot held) or has nothing to write, the store's head
//     goes back to where it was and the change fails or goes on without
//     writing;
//  3. the writes are made (code.Store.Apply: all or none);
//  4. the work tree is snapshotted again (post) and must hold every write:
//     a file the project's ignore rules now hide, say, would leave undo
//     nothing to go by, so the writes are undone and the change refused.
//
// The revision names post (Plangit-Code) and pre (Plangit-Code-Before):
// undo merges post back to pre. nil when nothing was written.
func (s *Session) writeCode(ch plan.Change, o Options) (*wrote, error) {
	if s.Project.memory != nil {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "this project has no work tree to write")
	}
	cfg, err := s.Project.Config()
	if err != nil {
		return nil, err
	}
	if cfg.CodeSnapshots == "off" {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "code snapshots are off (code_snapshots: off), so plangit has no record of the project's files to write from")
	}
	cs, err := s.Code()
	if errors.Is(err, code.ErrNotGit) {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "the project is not a git repository, so plangit has no code snapshots to write from")
	}
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot open the code store")
	}
	head, err := cs.Head()
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read the code store")
	}
	opt := code.Options{MaxFile: int64(cfg.CodeSnapshotMaxFile), Now: o.Time(), Message: "before: " + ch.Summary}
	pre, err := cs.Capture(opt)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot snapshot the project's files before writing them")
	}
	w := &wrote{cs: cs, head: head, pre: pre.Commit}
	w.writes, w.note, err = o.Code(cs, pre, head)
	if err != nil || len(w.writes) == 0 {
		if uerr := cs.Unwind(pre.Commit, head); uerr != nil && err == nil {
			err = plan.WrapError(plan.CodeIOError, uerr, "cannot write the code store")
		}
		return nil, err
	}
	if err := cs.Apply(w.writes); err != nil {
		cs.Unwind(pre.Commit, head)
		return nil, codeWriteError(err)
	}
	opt.Message = ch.Summary
	post, err := cs.Capture(opt)
	if err == nil {
		err = shows(cs, post.Commit, w.writes)
	}
	if err != nil {
		w.undo()
		return nil, codeWriteError(err)
	}
	w.post = post.Commit
	return w, nil
}

// shows says whether snapshot h holds every write.
func shows(cs *code.Store, h plumbing.Hash, ws []code.Write) error {
	files, err := cs.Files(h)
	if err != nil {
		return err
	}
	for _, w := range ws {
		f, ok := files[w.Path]
		if w.To == nil && ok || w.To != nil && (!ok || f != *w.To) {
			return fmt.Errorf("%s as written is not what a snapshot records (the project's ignore rules, or core.fileMode): %w", w.Path, code.ErrUnsafe)
		}
	}
	return nil
}

// undo puts back what w wrote, for a change that did not land.
func (w *wrote) undo() error {
	if err := w.cs.Apply(code.Reverse(w.writes)); err != nil {
		return err
	}
	if !w.post.IsZero() {
		return w.cs.Unwind(w.post, w.head)
	}
	return w.cs.Unwind(w.pre, w.head)
}

func codeWriteError(err error) error {
	e := &plan.Error{Code: plan.CodeIOError, Message: "cannot write the project's files: " + err.Error(), Err: err}
	switch {
	case errors.Is(err, code.ErrChanged):
		e.Code, e.Message, e.Hint = plan.CodeConflict, err.Error()+"; nothing was changed", "try again"
	case errors.Is(err, code.ErrUnsafe):
		e.Code, e.Message, e.Hint = plan.CodeInvalidArgument, err.Error()+"; nothing was changed", "change that file by hand"
	}
	return e
}
