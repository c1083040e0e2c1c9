//go:build !linux

package repo

import (
	"os"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// fillStat records only what every platform has; git rehashes the rest.
func fillStat(e *index.Entry, fi os.FileInfo) {}
