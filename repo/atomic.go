package repo

import (
	"os"
	"path/filepath"

	"github.com/plangit/plangit/plan"
)

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so a reader sees the old file or the new one,
// never a part of either, and a killed process leaves no half-written file.
// With durable set it also fsyncs the file before the rename; plangit does
// that for files a person owns (their hook settings), not for session files,
// whose crash model is a killed process (see the README, "Crash safety").
func WriteFileAtomic(path string, data []byte, perm os.FileMode, durable bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot write %s", path)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return plan.WrapError(plan.CodeIOError, err, "cannot write %s", path)
	}
	return nil
}
