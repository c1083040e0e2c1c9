package repo

import (
	"errors"
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

// wrote is what writeCode wrote, and the note for the summary.
type wrote struct {
	*code.Rewrite
	note string
}

// writeCode writes the project's files for a change with Options.Code,
// once, under the session lock, after the change's checks (fence, gates)
// passed and just before its commit, between two snapshots
// (code.Store.Rewrite). The revision names the one after (Plangit-Code)
// and the one before (Plangit-Code-Before): undo merges the write back.
// nil when there was nothing to write.
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
	w := &wrote{}
	w.Rewrite, err = cs.Rewrite(code.Options{MaxFile: int64(cfg.CodeSnapshotMaxFile), Now: o.Time(), Message: ch.Summary},
		func(now *code.Snapshot, head plumbing.Hash) (ws []code.Write, err error) {
			ws, w.note, err = o.Code(cs, now, head)
			return ws, err
		})
	var pe *plan.Error
	switch {
	case errors.As(err, &pe):
		return nil, err
	case err != nil:
		return nil, codeWriteError(err)
	case w.Rewrite == nil:
		return nil, nil
	}
	return w, nil
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
