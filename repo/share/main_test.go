package share_test

import (
	"os"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestMain reports the tests skipped for want of git daemon or
// git-http-backend, which go test would otherwise hide behind "ok".
// A run of the binary that measures a command (runMeasured) runs only
// that.
func TestMain(m *testing.M) {
	if code, ok := measure(); ok {
		os.Exit(code)
	}
	os.Exit(repotest.Main(m))
}
