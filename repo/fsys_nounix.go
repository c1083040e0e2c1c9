//go:build !unix

package repo

import (
	"os"
	"path/filepath"
)

// oNoFollow and oNonBlock are zero here: Windows opens do not follow
// symbolic links to files the way Unix opens do, and plangit's target is
// Unix.
const (
	oNoFollow = 0
	oNonBlock = 0
)

func isLinkErr(err error) bool { return false }

// openLockTarget opens what the session lock is taken on: here, a lock
// file in .git/plangit/.
func openLockTarget(privateDir string) (*os.File, string, error) {
	path := filepath.Join(privateDir, "lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	return f, path, err
}
