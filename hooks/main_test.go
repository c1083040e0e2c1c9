package hooks

import (
	"os"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestMain makes the tests' commits anonymous, so that the revisions the
// golden answers name do not depend on the machine's git identity.
func TestMain(m *testing.M) {
	repotest.NoIdentity()
	os.Exit(m.Run())
}
