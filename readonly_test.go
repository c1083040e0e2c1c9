//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestUnwritableWorkingFile runs the real plangit as a user the system
// holds to file modes: as another user (nobody) when the test runs as
// root, who may write anything, else as the user running it. A working
// file made read-only, one this user may not write, and a session
// directory it may not write in each make a change fail with an IO_ERROR
// naming the file and the fix, leave the session as it was (repair finds
// nothing to mend), and once fixed the next change works.
func TestUnwritableWorkingFile(t *testing.T) {
	t.Parallel()
	bin := buildPlangit(t)
	// A directory of the user's own, reachable by it: t.TempDir's parents
	// are root's alone.
	dir, err := os.MkdirTemp("", "plangit-unwritable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var cred *syscall.Credential
	const nobody = 65534
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: nobody, Gid: nobody}
		copyFile(t, bin, filepath.Join(dir, "plangit"), 0o755)
		bin = filepath.Join(dir, "plangit")
		chownAll(t, dir, nobody, nobody)
	}
	root := filepath.Join(dir, "project")
	mkdir := exec.Command("mkdir", "-p", root)
	mkdir.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := mkdir.CombinedOutput(); err != nil {
		t.Fatalf("mkdir as the test's user: %v\n%s", err, out)
	}
	run := func(args ...string) (code int, out string) {
		t.Helper()
		c := exec.Command(bin, args...)
		c.Dir = root
		c.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "PLANGIT_NOW=2026-11-20T10:00:00Z"}
		c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		var b bytes.Buffer
		c.Stdout, c.Stderr = &b, &b
		err := c.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), b.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, b.String()
	}
	must := func(args ...string) string {
		t.Helper()
		code, out := run(args...)
		if code != 0 {
			t.Fatalf("plangit %s: exit %d\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}
	must("init", "Unwritable", "--phase", "Work", "--session", "s1")
	must("step", "add", "first")
	session := filepath.Join(root, ".code-agent", "plans", "s1")
	plan := filepath.Join(session, "task_plan.md")
	head := func() string {
		b, _ := os.ReadFile(filepath.Join(session, ".git", "refs", "heads", "main"))
		return string(b)
	}

	fixed := 0
	refused := func(why, want string, fix func()) {
		t.Helper()
		was, text := head(), readText(t, plan)
		for range 2 { // and again: nothing was left that stops the next one
			code, out := run("step", "add", "second")
			if code != 1 || !strings.Contains(out, "IO_ERROR") || !strings.Contains(out, want) {
				t.Fatalf("%s: exit %d, want 1 and %q:\n%s", why, code, want, out)
			}
		}
		if head() != was || readText(t, plan) != text {
			t.Fatalf("%s: the refused change changed the session", why)
		}
		if out := must("repair"); strings.Contains(out, "lost") {
			t.Fatalf("%s: repair found something to mend:\n%s", why, out)
		}
		fix()
		must("step", "add", "after "+why)
		fixed++
	}

	// A read-only file.
	if err := os.Chmod(plan, 0o444); err != nil {
		t.Fatal(err)
	}
	refused("a read-only task_plan.md", "task_plan.md is read-only (mode 0444), so plangit leaves it as it is and made no change; make it writable (chmod u+w "+plan+")", func() {
		os.Chmod(plan, 0o644)
	})
	if cred != nil {
		// A file of another user's, which this one may not write.
		os.Chown(plan, 0, 0)
		refused("task_plan.md owned by root", "cannot write task_plan.md (permission denied), so plangit made no change; give this user write access to it (chmod u+w "+plan+", or chown)", func() {
			os.Chown(plan, nobody, nobody)
		})
	}
	// A session directory this user may not write in.
	if err := os.Chmod(session, 0o555); err != nil {
		t.Fatal(err)
	}
	refused("a read-only session directory", "cannot write in "+session+" (permission denied), where task_plan.md is replaced, so plangit made no change; give this user write access to the directory (chmod u+w "+session+")", func() {
		os.Chmod(session, 0o755)
	})

	if cred != nil {
		chownAll(t, dir, 0, 0) // git refuses to look into another user's repository
	}
	repotest.Check(t, session)
	if n := repotest.RevCount(t, session); n != 2+fixed {
		t.Errorf("%d revisions, want init, a step, and one step after each fix (%d)", n, fixed)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func chownAll(t *testing.T, dir string, uid, gid int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, uid, gid)
	})
	if err != nil {
		t.Fatal(err)
	}
}
