package store

import (
	"os"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestMain runs the tests through repotest.Main, which reports those
// skipped for want of git and makes the commits git writes anonymous.
func TestMain(m *testing.M) { os.Exit(repotest.Main(m)) }
