package repotest

import (
	"os"
	"os/exec"
	"testing"
)

// RequireTool returns the path of an external program a test needs
// (Graphviz's dot, Chromium). Where it is missing the test is skipped with
// a message saying how to get it — except under CI (PLANGIT_CI set), whose
// .ci/run installs every such tool, so that a missing one fails.
func RequireTool(t testing.TB, names ...string) string {
	t.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Missing(t, names[0]+" is not installed (Debian: apt-get install graphviz chromium; .ci/run installs them)")
	return ""
}

// Missing skips a test for want of something outside the repository, with
// msg — or, under CI, whose .ci/run provides everything, fails it.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("PLANGIT_CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
