package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
)

var updateScripts = flag.Bool("update-scripts", false, "rewrite the expected output in test scripts")

func TestMain(m *testing.M) {
	testscript.Main(noted{m}, map[string]func(){
		"plangit": func() { os.Exit(Main()) },
	})
}

// noted runs the tests through repotest.Main, which says which tests the
// run skipped for the long suites.
type noted struct{ m *testing.M }

func (n noted) Run() int { return repotest.Main(n.m) }

// TestScripts runs the end-to-end scripts in testdata/script: the real
// plangit binary, driven as an agent or a person would.
func TestScripts(t *testing.T) {
	t.Parallel()
	shipped := shippedPlangit(t)
	// $SKILL_MD is the skill plangit embeds, as setup writes it.
	skillFile, err := filepath.Abs(filepath.Join("..", "hooks", "skill", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The scripts' work directories go in the test's own temporary
	// directory, which the testing package removes however the run ends:
	// the one testscript makes is left behind, empty, when -run picks some
	// of the scripts. With -testwork they stay where testscript puts them.
	var workRoot string
	if f := flag.Lookup("testwork"); f == nil || f.Value.String() != "true" {
		workRoot = t.TempDir()
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		WorkdirRoot:         workRoot,
		RequireExplicitExec: true,
		UpdateScripts:       *updateScripts,
		// [long]: the long suites run (PLANGIT_LONG=1, as .ci/run sets):
		// campaigns at full size.
		Condition: func(cond string) (bool, error) {
			if cond == "long" {
				return repotest.Long(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			if shipped != "" {
				env.Setenv("PATH", shipped+string(filepath.ListSeparator)+env.Getenv("PATH"))
				// $PLANGIT_PROGRAMS holds plangit, plangit-hook and
				// plangit-mcp side by side, as a release installs them.
				env.Setenv("PLANGIT_PROGRAMS", repotest.RequirePrograms(t))
			}
			env.Setenv("SKILL_MD", skillFile)
			env.Setenv("PLANGIT_NOW", "2026-11-20T10:00:00Z")
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			env.Setenv("GIT_OPTIONAL_LOCKS", "0")
			env.Values[heldLocks{}] = map[string]chan struct{}{}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"gitcheck": gitcheck,
			"revs":     revs,
			"exitcode": exitcode,
			"bigfile":  bigfile,
			"holdlock": holdlock,
			"payload":  payload,
			"cmpjson":  cmpjson,
			"waitfile": waitfile,
			"maxwidth": maxwidth,
			"longonly": longonly,
			"unescape": unescape,
			"gitstate": gitstate,
		},
	})
}

// shippedPlangit is a directory holding plangit alone, built as it is
// shipped (repotest.Programs), which the scripts run before the test
// binary that testscript offers as plangit: that one links cgo and the
// tests' packages, and each of the scripts' eight hundred processes took a
// third more time. Where there is no go command to build it (a test binary
// run under Wine), it is "" and the scripts run the test binary.
func shippedPlangit(t *testing.T) string {
	if _, err := exec.LookPath("go"); err != nil {
		t.Logf("no go command: the scripts run the test binary as plangit")
		return ""
	}
	programs := repotest.RequirePrograms(t)
	// Alone in its directory: plangit-hook beside it would change what
	// hooks install writes.
	dir := t.TempDir()
	name := filepath.Base(repotest.Program(programs, "plangit"))
	if err := os.Link(filepath.Join(programs, name), filepath.Join(dir, name)); err != nil {
		b, err := os.ReadFile(filepath.Join(programs, name))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), b, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// gitstate save|check [DIR]: what the project's git holds in DIR (the
// current directory): git status --porcelain, git stash list, the refs,
// HEAD and the bytes of .git/index. save records them; check fails,
// naming each, when one differs from what save recorded: plangit never
// changes the project's index, HEAD, branches or stash.
func gitstate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 || args[0] != "save" && args[0] != "check" {
		ts.Fatalf("usage: gitstate save|check [DIR]")
	}
	dir := ts.MkAbs(".")
	if len(args) == 2 {
		dir = ts.MkAbs(args[1])
	}
	env := append(os.Environ(), "HOME="+ts.Getenv("HOME"), "GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0")
	var b strings.Builder
	for _, c := range [][]string{{"status", "--porcelain", "--untracked-files=all"}, {"stash", "list"}, {"for-each-ref"}, {"symbolic-ref", "-q", "HEAD"}, {"rev-parse", "-q", "--verify", "HEAD"}} {
		cmd := exec.Command("git", c...)
		cmd.Dir, cmd.Env = dir, env
		out, _ := cmd.Output()
		fmt.Fprintf(&b, "$ git %s\n%s", strings.Join(c, " "), out)
	}
	index, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil && !os.IsNotExist(err) {
		ts.Fatalf("%v", err)
	}
	fmt.Fprintf(&b, "$ .git/index\n%x\n", index)
	file := filepath.Join(ts.Getenv("WORK"), ".gitstate")
	if args[0] == "save" {
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			ts.Fatalf("%v", err)
		}
		return
	}
	saved, err := os.ReadFile(file)
	if err != nil {
		ts.Fatalf("gitstate check with nothing saved: %v", err)
	}
	if string(saved) != b.String() {
		ts.Fatalf("the project's git changed:\nsaved:\n%s\nnow:\n%s", saved, b.String())
	}
}

// longonly: the script runs only in the long suites (PLANGIT_LONG=1, as
// .ci/run sets). It notes the script for the line repotest.Main prints
// after the package's result; the script's "[!long] skip" that follows
// skips it.
func longonly(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: longonly")
	}
	if !repotest.Long() {
		repotest.NoteShort("TestScripts/" + ts.Name())
	}
}

// gitcheck [DIR]: every session under DIR (default $WORK) passes
// `git fsck --strict` and has an empty `git status --porcelain`, and
// plangit counts every commit of its history, merged-in ones too, as git
// does.
func gitcheck(ts *testscript.TestScript, neg bool, args []string) {
	root := ts.Getenv("WORK")
	if len(args) > 0 {
		root = ts.MkAbs(args[0])
	}
	dirs, _ := filepath.Glob(filepath.Join(root, ".code-agent", "plans", "*", ".git"))
	if len(dirs) == 0 {
		ts.Fatalf("no session under %s", root)
	}
	// What plangit counts, to compare with git.
	if err := ts.Exec("plangit", "--root", root, "sessions", "--json"); err != nil {
		ts.Fatalf("plangit sessions: %v", err)
	}
	var listed struct {
		Data struct {
			Sessions []struct {
				ID        string `json:"id"`
				Revisions int    `json:"revisions"`
			} `json:"sessions"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &listed); err != nil {
		ts.Fatalf("plangit sessions --json: %v", err)
	}
	counts := map[string]int{}
	for _, s := range listed.Data.Sessions {
		counts[s.ID] = s.Revisions
	}
	if noGit() {
		ts.Logf("no git on this system (Windows without Git for Windows, as under Wine): fsck, status and git's count not checked")
		return
	}
	for _, d := range dirs {
		dir := filepath.Dir(d)
		if out := git(ts, dir, repotest.FsckArgs(dir)...); strings.TrimSpace(out) != "" {
			ts.Fatalf("git fsck --strict in %s:\n%s", dir, out)
		}
		if out := git(ts, dir, "status", "--porcelain"); out != "" {
			ts.Fatalf("git status --porcelain in %s is not empty:\n%s", dir, out)
		}
		n, _ := strconv.Atoi(strings.TrimSpace(git(ts, dir, "rev-list", "--count", "HEAD")))
		if id := filepath.Base(dir); counts[id] != n {
			ts.Fatalf("session %s: git log counts %d revisions, plangit %d", id, n, counts[id])
		}
	}
}

// revs SESSION N: the real git counts N commits on the session's branch
// (along first parents, as plangit numbers revisions: a merge of a
// remote's history is one revision).
func revs(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: revs SESSION N")
	}
	dir := filepath.Join(ts.Getenv("WORK"), ".code-agent", "plans", args[0])
	var got string
	if noGit() {
		// Counted by plangit's own log instead, saying so.
		ts.Logf("no git on this system (Windows without Git for Windows, as under Wine): revisions counted by plangit log")
		if err := ts.Exec("plangit", "--root", ts.Getenv("WORK"), "log", "--session", args[0], "--json"); err != nil {
			ts.Fatalf("plangit log: %v", err)
		}
		var log struct {
			Data struct {
				Revisions []struct {
					N int `json:"n"` // the newest first: its number is the count
				} `json:"revisions"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &log); err != nil || len(log.Data.Revisions) == 0 {
			ts.Fatalf("plangit log --json: %v", err)
		}
		got = strconv.Itoa(log.Data.Revisions[0].N)
	} else {
		got = strings.TrimSpace(git(ts, dir, "rev-list", "--count", "--first-parent", "HEAD"))
	}
	if (got == args[1]) == neg {
		ts.Fatalf("session %s has %s revisions, want %s%s", args[0], got, map[bool]string{true: "not ", false: ""}[neg], args[1])
	}
}

// noGit reports that no git runs here, which only Windows may lack (no
// git.exe runs under Wine): the scripts' git checks are then left out,
// saying so.
func noGit() bool {
	_, err := exec.LookPath("git")
	return err != nil && runtime.GOOS == "windows"
}

func git(ts *testscript.TestScript, dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0", "HOME="+ts.Getenv("WORK"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		ts.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// exitcode N COMMAND [ARGS...]: run COMMAND; it must exit with code N. Its
// output is kept for stdout and stderr checks.
func exitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
	}
}

// bigfile NAME BYTES: write a file of BYTES 'x' characters.
func bigfile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: bigfile NAME BYTES")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("bigfile: %v", err)
	}
	if err := os.WriteFile(ts.MkAbs(args[0]), bytes.Repeat([]byte("x"), n), 0o644); err != nil {
		ts.Fatalf("bigfile: %v", err)
	}
}

// holdlock SESSION | holdlock -release SESSION: take (or release) the
// session's lock from the test process, as another plangit process would.
func holdlock(ts *testscript.TestScript, neg bool, args []string) {
	release := len(args) == 2 && args[0] == "-release"
	if release {
		args = args[1:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: holdlock [-release] SESSION")
	}
	held := ts.Value(heldLocks{}).(map[string]chan struct{})
	if release {
		if done := held[args[0]]; done != nil {
			done <- struct{}{}
			<-done
			delete(held, args[0])
		}
		return
	}
	s, err := repo.Project{Root: ts.Getenv("WORK")}.Open(args[0])
	if err != nil {
		ts.Fatalf("holdlock: %v", err)
	}
	done, locked := make(chan struct{}), make(chan error)
	go func() {
		locked <- s.Locked(time.Second, func() error {
			locked <- nil
			<-done
			return nil
		})
		close(done)
	}()
	if err := <-locked; err != nil {
		ts.Fatalf("holdlock: %v", err)
	}
	go func() { <-locked }() // Locked's own result, once released
	held[args[0]] = done
}

// heldLocks keys the locks holdlock holds in a script's values.
type heldLocks struct{}

// payload FILE...: make hook payloads as a host sends them, with the
// project's absolute path where they say {{CWD}}.
func payload(ts *testscript.TestScript, neg bool, args []string) {
	for _, name := range args {
		b := strings.ReplaceAll(ts.ReadFile(name), "{{CWD}}", ts.Getenv("WORK"))
		if err := os.WriteFile(ts.MkAbs(name), []byte(b), 0o644); err != nil {
			ts.Fatalf("payload: %v", err)
		}
	}
}

// cmpjson A B: the files hold the same JSON value (layout aside).
func cmpjson(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: cmpjson A B")
	}
	var a, b any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &a); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
	if err := json.Unmarshal([]byte(ts.ReadFile(args[1])), &b); err != nil {
		ts.Fatalf("%s: %v", args[1], err)
	}
	if reflect.DeepEqual(a, b) == neg {
		ts.Fatalf("%s and %s hold different JSON:\n%s\n---\n%s", args[0], args[1], ts.ReadFile(args[0]), ts.ReadFile(args[1]))
	}
}

// escapeCode is a byte or a rune written as Go writes it: \xHH, \uHHHH.
var escapeCode = regexp.MustCompile(`\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}`)

// unescape FILE...: replace each \xHH in the files with the byte HH and
// each \uHHHH with the rune, so that a script can hold the control
// characters a hostile file or commit carries (\x1b, \u009b, \u202e)
// readably.
func unescape(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: unescape FILE...")
	}
	for _, name := range args {
		b := escapeCode.ReplaceAllStringFunc(ts.ReadFile(name), func(code string) string {
			n, _ := strconv.ParseUint(code[2:], 16, 32)
			if code[1] == 'x' {
				return string([]byte{byte(n)})
			}
			return string(rune(n))
		})
		if err := os.WriteFile(ts.MkAbs(name), []byte(b), 0o644); err != nil {
			ts.Fatalf("unescape: %v", err)
		}
	}
}

var ansiCodes = regexp.MustCompile("\x1b\\[[0-9;]*m")

// maxwidth N: no line of the last command's stdout takes more than N
// terminal columns (colour codes aside), and some line takes more than N/2,
// so a view that printed little cannot pass for one that fits.
func maxwidth(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: maxwidth N")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("maxwidth: %v", err)
	}
	widest := 0
	for _, line := range strings.Split(ts.ReadFile("stdout"), "\n") {
		w := render.Columns(ansiCodes.ReplaceAllString(line, ""))
		if w > n {
			ts.Fatalf("a line of %d columns, wider than %d: %q", w, n, line)
		}
		widest = max(widest, w)
	}
	if widest <= n/2 {
		ts.Fatalf("the widest line has %d columns: too little output to tell whether it fits %d", widest, n)
	}
}
