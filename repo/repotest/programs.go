package repotest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// programs are plangit's programs the tests run as processes, by the name
// each is built as.
var programs = map[string]string{
	"plangit":      "github.com/plangit/plangit",
	"plangit-hook": "github.com/plangit/plangit/cmd/plangit-hook",
	"plangit-mcp":  "github.com/plangit/plangit/cmd/plangit-mcp",
}

var (
	programsOnce sync.Once
	programsDir  string
	programsErr  error
)

// Programs builds plangit, plangit-hook and plangit-mcp into one
// directory of this checkout's, and returns that directory. Every test
// package that runs plangit as a process shares it: the go command relinks
// a program only when it is out of date, so go test ./... links each once,
// not once a package or a test (a link takes one to two seconds of a
// two-core machine, and the packages that run plangit linked it eleven
// times a run). The directory is kept between runs; tests never write in
// it.
//
// They are built as go test builds the test binaries, with the
// environment's CGO_ENABLED, so the two share every compiled package.
// Built without cgo where the tests had it, net and the twenty packages
// above it (net/http, go-git's transports, plangit's own) were compiled
// twice on a fresh build cache. The programs behave the same either way;
// the benchmarks and the real-host runs build them as shipped, without
// cgo.
//
// PLANGIT_TEST_BIN, when set, names a directory holding the programs built
// for the tests' system, used as they are: under Wine, where no go command
// runs (.ci/wine builds them).
func Programs() (string, error) {
	programsOnce.Do(func() {
		if dir := os.Getenv("PLANGIT_TEST_BIN"); dir != "" {
			programsDir = dir
			return
		}
		programsDir, programsErr = buildPrograms()
	})
	return programsDir, programsErr
}

// RequirePrograms is Programs for one test: it fails the test when the
// programs cannot be built.
func RequirePrograms(t testing.TB) string {
	t.Helper()
	dir, err := Programs()
	if err != nil {
		t.Fatalf("%v", err)
	}
	return dir
}

// Program is the path of one of Programs' programs ("plangit",
// "plangit-hook", "plangit-mcp") in dir.
func Program(dir, name string) string {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(dir, name)
}

func buildPrograms() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	// One directory a checkout: two checkouts' tests never run each
	// other's programs.
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(os.TempDir(), "plangit-test-programs-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// One build at a time: go test ./... runs several packages' tests at
	// once, and two go builds of the same programs both compile what
	// neither has cached yet. The second waits, then finds them built.
	if lock, err := os.OpenFile(filepath.Join(dir, ".build-lock"), os.O_RDWR|os.O_CREATE, 0o644); err == nil {
		defer lock.Close()
		lockBuild(lock) // where it cannot, the builds overlap
	}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, pkg := range programs {
		args = append(args, pkg)
	}
	build := exec.Command("go", args...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build of plangit's programs: %v\n%s", err, out)
	}
	return dir, nil
}

// moduleRoot is the directory of the go.mod above the working directory:
// a test runs in its package's directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = up
	}
}
