package history

import (
	"os"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestMain makes the tests' commits anonymous (repotest.Main).
func TestMain(m *testing.M) { os.Exit(repotest.Main(m)) }
