package disk

import (
	"os"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestMain reports the tests skipped for want of an outside program (git,
// for the linked worktrees, which are git's own).
func TestMain(m *testing.M) { os.Exit(repotest.Main(m)) }
