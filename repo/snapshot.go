package repo

import (
	"errors"
	"os"

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
