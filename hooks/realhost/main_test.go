// Package realhost runs plangit inside the real host programs — Claude
// Code, Codex CLI, Gemini CLI and Copilot CLI, installed from npm at pinned
// versions by .ci/hosts — each headless against a scripted fake model on
// 127.0.0.1 that the test serves and whose request log tells exactly what
// reached the model. Each host plays one whole scripted session, and the
// test checks the plan, the repositories, the host's own output and the
// requests.
//
// The sessions run only in the long suites (PLANGIT_LONG=1) with
// PLANGIT_HOSTS naming the directory .ci/hosts fills; under CI
// (PLANGIT_CI=1) a missing host fails. PLANGIT_RECORD=DIR writes every hook
// payload a host sent, ids and paths normalised, under DIR/<host>/.
package realhost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// binDir holds plangit, plangit-hook and plangit-mcp, built once by
// TestMain when the sessions run.
var binDir string

func TestMain(m *testing.M) {
	code := func() int {
		if repotest.Long() && os.Getenv("PLANGIT_HOSTS") != "" {
			dir, err := os.MkdirTemp("", "plangit-realhost-bin-")
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			defer os.RemoveAll(dir)
			if err := build(dir); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			binDir = dir
		}
		return repotest.Main(m)
	}()
	os.Exit(code)
}

// build compiles plangit's programs into dir.
func build(dir string) error {
	root, err := filepath.Abs("../..")
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), ".", "./cmd/plangit-hook", "./cmd/plangit-mcp")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build plangit: %v\n%s", err, out)
	}
	return nil
}

// hostDir returns the npm prefix .ci/hosts installed host into, or skips
// the test: outside the long suites, or (failing under CI) where the host
// is not installed.
func hostDir(t *testing.T, host, program string) string {
	t.Helper()
	if !repotest.Long() {
		repotest.Short(t, "the real hosts run only in the long suites")
	}
	root := os.Getenv("PLANGIT_HOSTS")
	if root == "" {
		repotest.Missing(t, "host CLIs", "PLANGIT_HOSTS is not set")
	}
	dir := filepath.Join(root, host)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", program)); err != nil {
		repotest.Missing(t, "host CLIs", fmt.Sprintf("%s is not installed in %s", program, dir))
	}
	if binDir == "" {
		t.Fatal("plangit was not built")
	}
	return dir
}
