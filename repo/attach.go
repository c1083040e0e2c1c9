package repo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
)

// Attach makes host session host an agent of session planID's plan
// (plangit attach): its hooks and its shell's commands work on that plan,
// and no plan of its own is made for it. The record is a file naming the
// plan in .code-agent/attached/ (disk.Attached). A host session that has
// a plan of its own is refused: attaching would hide it.
func (p Project) Attach(host, planID string) error {
	if err := ValidateSessionID(host); err != nil {
		return err
	}
	if err := ValidateSessionID(planID); err != nil {
		return err
	}
	if host == planID {
		return plan.Errorf(plan.CodeInvalidArgument, "session %s is this host session's own plan", planID).Hinted("name another session's plan: plangit sessions lists them")
	}
	if _, err := p.Open(planID); err != nil {
		return err
	}
	if _, err := os.Lstat(filepath.Join(p.PlansDir(), host)); err == nil {
		return plan.Errorf(plan.CodeInvalidArgument, "host session %s has a plan of its own; attaching it to %s would hide it", host, planID).
			With("session", host).Hinted("finish or remove that plan first, or work on it: plangit --session %s show", host)
	}
	path := disk.AttachedPath(p.Root, host)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot create %s", filepath.Dir(path))
	}
	return WriteFileAtomic(path, []byte(planID+"\n"), 0o644, false)
}

// Detach ends what Attach recorded for host session host; it reports
// whether there was such a record.
func (p Project) Detach(host string) (bool, error) {
	if err := ValidateSessionID(host); err != nil {
		return false, err
	}
	err := os.Remove(disk.AttachedPath(p.Root, host))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, plan.WrapError(plan.CodeIOError, err, "cannot remove the attach record of %s", host)
	}
	return true, nil
}

// Attached is the session whose plan host session host works on
// (Attach); "" for none.
func (p Project) Attached(host string) string { return disk.Attached(p.Root, host) }
