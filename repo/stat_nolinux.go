//go:build !linux

package repo

import (
	"os"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// fillStat records only what every platform has; git rehashes the rest.
func fillStat(e *index.Entry, fi os.FileInfo) {}

// statID has no inode to give here; size and modification time decide.
func statID(fi os.FileInfo) string { return "" }
