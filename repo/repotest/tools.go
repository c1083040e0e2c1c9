package repotest

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// NoIdentity makes plangit find no git identity in this process: no git
// configuration beyond the project's, no GIT_AUTHOR_* or EMAIL, no login
// name. Commits are then plangit's own "no one known"; a test that wants
// an author sets GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL, or the project's
// git config.
func NoIdentity() {
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "EMAIL", "USER", "LOGNAME", "USERNAME", "GIT_CONFIG_COUNT"} {
		os.Unsetenv(k)
	}
}

// Tests that need a program from outside the repository (Graphviz's dot,
// Chromium, mermaid.js) skip where it is missing — and say so. go test
// prints nothing but "ok" for a package whose tests pass, skips included,
// so Main, the TestMain of such a package, makes sure the skips are seen:
// it prints which tests were skipped for want of what.

// howToGet says how to install each outside program.
var howToGet = map[string]string{
	"dot":              "apt-get install graphviz",
	"chromium":         "apt-get install chromium",
	"mermaid.js":       "set PLANGIT_MERMAID_JS to mermaid.min.js from the npm package mermaid",
	"git daemon":       "apt-get install git (git daemon comes with it)",
	"git-http-backend": "apt-get install git (git-http-backend comes with it)",
	"git":              "on Windows, Git for Windows; none runs under Wine",
	"symbolic links":   "a system that makes them; Wine 8.0 reports success and makes none",
	"host CLIs":        "set PLANGIT_HOSTS to the directory .ci/hosts installs them in",
	"PLANGIT_LONG=1":   "the long suites: PLANGIT_LONG=1 go test",
}

// notProvided are what .ci/run cannot provide where it runs tests under
// Wine.
var notProvided = map[string]bool{"git": true, "symbolic links": true}

var (
	skipsMu sync.Mutex
	skips   = map[string][]string{} // program → the tests skipped for want of it
	inMain  bool                    // the package's TestMain is Main
)

// RequireTool returns the path of an external program a test needs
// (Graphviz's dot, Chromium). Where it is missing the test is skipped —
// except under CI (PLANGIT_CI set), whose .ci/run installs every such
// tool, so that a missing one fails.
func RequireTool(t testing.TB, names ...string) string {
	t.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Missing(t, names[0], names[0]+" is not installed")
	return ""
}

// Missing skips a test for want of tool, something outside the repository,
// saying msg and how to get it — or, under CI, whose .ci/run provides
// everything, fails it.
func Missing(t testing.TB, tool, msg string) {
	t.Helper()
	if how := howToGet[tool]; how != "" && notProvided[tool] {
		msg += " (" + how + ")"
	} else if how != "" {
		msg += " (" + how + "; .ci/run provides it)"
	}
	if os.Getenv("PLANGIT_CI") != "" {
		t.Fatal(msg)
	}
	if !inMain {
		t.Fatalf("%s; and this package's TestMain is not repotest.Main, which reports such skips", msg)
	}
	skipsMu.Lock()
	skips[tool] = append(skips[tool], t.Name())
	skipsMu.Unlock()
	uncached()
	t.Skip(msg)
}

// Symlink makes a symbolic link at link to target, and reports whether the
// system made one. Only on Windows may it not: there a test of what a
// link does checks the rest without it, or skips (RequireSymlink).
func Symlink(t testing.TB, target, link string) bool {
	t.Helper()
	err := os.Symlink(target, link)
	if err == nil {
		if fi, lerr := os.Lstat(link); lerr != nil || fi.Mode()&os.ModeSymlink == 0 {
			err = fmt.Errorf("no link at %s after os.Symlink", link)
		}
	}
	if err != nil && runtime.GOOS != "windows" {
		t.Fatal(err)
	}
	return err == nil
}

// RequireSymlink makes a symbolic link at link to target, or skips the
// test where the system makes none.
func RequireSymlink(t testing.TB, target, link string) {
	t.Helper()
	if !Symlink(t, target, link) {
		Missing(t, "symbolic links", "this system made no symbolic link")
	}
}

// Short skips a test that runs only in the long suites (PLANGIT_LONG=1,
// which .ci/run sets), saying so in Main's note, as Missing does for a
// program; unlike Missing it skips under CI too, whose short pass runs
// before the long one.
func Short(t testing.TB, msg string) {
	t.Helper()
	if !inMain {
		t.Fatalf("%s; and this package's TestMain is not repotest.Main, which reports such skips", msg)
	}
	NoteShort(t.Name())
	t.Skip(msg)
}

// NoteShort records, for Main's note, a test that the caller skips because
// it runs only in the long suites: a test script, which is no testing.TB.
func NoteShort(name string) {
	skipsMu.Lock()
	skips["PLANGIT_LONG=1"] = append(skips["PLANGIT_LONG=1"], name)
	skipsMu.Unlock()
}

// skipNote is a file in the package's directory (git ignores it) that
// says which tests the last run skipped.
const skipNote = ".skipped-for-tools"

// uncached keeps go test from caching a run that skipped tests for want of
// a program, so that the next go test runs them again — and reports the
// skips again — rather than replaying "ok". go test does not cache a run
// that opened a file of the module changed in its last two seconds; this
// writes one.
func uncached() {
	if f, err := os.OpenFile(skipNote, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644); err == nil {
		f.WriteString("tests skipped for want of outside programs: go test -v lists them\n")
		f.Close()
	}
}

// Main runs a package's tests — call it from TestMain as
// os.Exit(repotest.Main(m)) — and then prints, once, which tests were
// skipped for want of which programs. The note goes to standard error,
// which go test shows with -v or when a test fails; when it would hide it
// (a passing package without -v), also to the terminal or pipe the go
// command itself writes to, so `go test ./...` shows it under its "ok".
//
// Main also makes the package's commits anonymous (NoIdentity), so that
// what tests write does not depend on the git identity of the machine
// they run on.
func Main(m *testing.M) int {
	inMain = true
	NoIdentity()
	code := m.Run()
	note := skipSummary()
	if note == "" {
		return code
	}
	fmt.Fprint(os.Stderr, note)
	if v := flag.Lookup("test.v"); code == 0 && (v == nil || v.Value.String() == "false") {
		if w := goOutput(); w != nil {
			fmt.Fprint(w, note)
			w.Close()
		}
	}
	return code
}

// skipSummary is the note on the tests skipped, or "".
func skipSummary() string {
	skipsMu.Lock()
	defer skipsMu.Unlock()
	if len(skips) == 0 {
		return ""
	}
	tools := make([]string, 0, len(skips))
	for tool := range skips {
		tools = append(tools, tool)
	}
	sort.Strings(tools)
	var b strings.Builder
	pkg := filepath.Base(os.Args[0])
	pkg = strings.TrimSuffix(pkg, ".test")
	fmt.Fprintf(&b, "SKIP %s: tests skipped for want of outside programs, system features or the long suites:\n", pkg)
	for _, tool := range tools {
		fmt.Fprintf(&b, "  %-10s %s — %s\n", tool, grouped(skips[tool]), howToGet[tool])
	}
	return b.String()
}

// grouped lists test names, sorted and each once (go test -count=N runs
// a test N times), the subtests of one test together:
// "TestA, TestScripts/{lock, share}".
func grouped(names []string) string {
	names = slices.Clone(names)
	slices.Sort(names)
	names = slices.Compact(names)
	var out []string
	for i := 0; i < len(names); {
		parent, _, sub := strings.Cut(names[i], "/")
		j := i + 1
		for sub && j < len(names) && strings.HasPrefix(names[j], parent+"/") {
			j++
		}
		if j-i == 1 {
			out = append(out, names[i])
		} else {
			subs := make([]string, 0, j-i)
			for _, n := range names[i:j] {
				subs = append(subs, strings.TrimPrefix(n, parent+"/"))
			}
			out = append(out, parent+"/{"+strings.Join(subs, ", ")+"}")
		}
		i = j
	}
	return strings.Join(out, ", ")
}

// goOutput opens the standard output of the process that ran the test
// binary — the go command — when it is a terminal or a pipe (never a file,
// whose offset the go command keeps). Linux only; nil elsewhere.
func goOutput() io.WriteCloser {
	path := fmt.Sprintf("/proc/%d/fd/1", os.Getppid())
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeCharDevice) == 0 {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil
	}
	return f
}
