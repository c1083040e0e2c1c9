package hooks

import (
	"os"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestMain makes the tests' commits anonymous, so that the revisions the
// golden answers name do not depend on the machine's git identity, and
// reports the tests skipped for want of an outside program.
func TestMain(m *testing.M) {
	os.Exit(repotest.Main(m))
}
