package repo_test

import (
	"os"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestMain runs the tests with no git identity of the user's
// (repotest.Main), and reports the tests skipped for want of a program.
func TestMain(m *testing.M) {
	os.Exit(repotest.Main(m))
}
