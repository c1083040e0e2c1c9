package hooks

import (
	"os"
	"strings"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestMain makes the tests' commits anonymous, so that the revisions the
// golden answers name do not depend on the machine's git identity, and
// reports the tests skipped for want of an outside program.
//
// Run with PLANGIT_TEST_ARGV naming a file, the binary is a program a
// shell test runs (quote_windows_test.go): it writes its arguments there,
// one a line, and exits.
func TestMain(m *testing.M) {
	if out := os.Getenv("PLANGIT_TEST_ARGV"); out != "" {
		if err := os.WriteFile(out, []byte(strings.Join(os.Args[1:], "\n")), 0o644); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(repotest.Main(m))
}
