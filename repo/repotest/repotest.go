// Package repotest holds test helpers shared by plangit's packages: checks
// of session repositories with the real git, and golden files.
package repotest

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Update is the -update flag: rewrite golden files instead of comparing.
var Update = flag.Bool("update", false, "rewrite golden files")

// Golden compares got with testdata/name, or rewrites the file with -update.
func Golden(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file (go test -update rewrites it; git diff reviews it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// Git runs the real git in dir and returns its standard output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil && runtime.GOOS == "windows" {
		Missing(t, "git", "git is not installed")
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(), "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s%s", strings.Join(args, " "), dir, err, out, stderr.Bytes())
	}
	return string(out)
}

// FsckArgs is the argument list of `git fsck --strict --no-progress`,
// followed by flags, for the repository in dir (a working tree or a bare
// repository). git fsck checks the commit-graph and the multi-pack-index
// with two git processes of its own, which it starts whether or not the
// repository has either file. Where the repository has neither (plangit
// writes neither) and borrows no objects (no alternates), both checks
// are switched off. That checks the same with one process instead of
// three, in a third of the time.
func FsckArgs(dir string, flags ...string) []string {
	args := append([]string{"fsck", "--strict", "--no-progress"}, flags...)
	objects := filepath.Join(dir, ".git", "objects")
	if _, err := os.Stat(objects); err != nil {
		objects = filepath.Join(dir, "objects")
		if _, err := os.Stat(objects); err != nil {
			return args // not a repository this knows the layout of: git checks all
		}
	}
	for _, f := range []string{"info/commit-graph", "info/commit-graphs", "info/alternates", "pack/multi-pack-index"} {
		if _, err := os.Lstat(filepath.Join(objects, f)); !errors.Is(err, fs.ErrNotExist) {
			return args
		}
	}
	return append([]string{"-c", "core.commitGraph=false", "-c", "core.multiPackIndex=false"}, args...)
}

// Check runs the checks every written session must pass: git fsck --strict
// finds nothing, and git status --porcelain is empty.
func Check(t testing.TB, sessionDir string) {
	t.Helper()
	if out := Git(t, sessionDir, FsckArgs(sessionDir)...); strings.TrimSpace(out) != "" {
		t.Errorf("git fsck --strict in %s reports:\n%s", sessionDir, out)
	}
	if out := Git(t, sessionDir, "status", "--porcelain"); out != "" {
		t.Errorf("git status --porcelain in %s is not empty:\n%s", sessionDir, out)
	}
	// The session's code store (package repo/code), when it has one.
	if code := filepath.Join(sessionDir, ".git", "code"); exists(filepath.Join(code, "HEAD")) {
		if out := Git(t, code, FsckArgs(code, "--no-dangling")...); strings.TrimSpace(out) != "" {
			t.Errorf("git fsck --strict in %s reports:\n%s", code, out)
		}
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// CheckAll runs Check on every session under root/.code-agent/plans.
func CheckAll(t testing.TB, root string) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(root, ".code-agent", "plans", "*", ".git"))
	for _, d := range dirs {
		Check(t, filepath.Dir(d))
	}
}

// RevCount is how many commits the real git counts on HEAD.
func RevCount(t testing.TB, sessionDir string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(Git(t, sessionDir, "rev-list", "--count", "HEAD")))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
