package hookwire

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestShellSession: a hook records the session for its host process, the
// first ancestor that is not a shell; the CLI finds the record of its
// nearest ancestor that has one, of the same start time. Two host
// processes of one project keep two records; a record of a process that
// is gone is removed when a hook records.
func TestShellSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gemA := proc{pid: 4100, comm: "node", start: "777"}
	gemB := proc{pid: 4200, comm: "node", start: "888"}
	term := proc{pid: 300, comm: "bash", start: "5"}
	hookA := []proc{{pid: 4101, comm: "bash", start: "790"}, gemA, term}
	running := func(pid int) (proc, bool) {
		for _, p := range []proc{gemA, gemB, term} {
			if p.pid == pid {
				return p, true
			}
		}
		return proc{}, false
	}
	if !recordShell(dir, "gemini", "sess-a", hookA, running) {
		t.Fatal("not recorded")
	}
	if !recordShell(dir, "gemini", "sess-b", []proc{gemB, term}, running) {
		t.Fatal("not recorded")
	}
	shellA := []proc{{pid: 4150, comm: "bash", start: "800"}, {pid: 4149, comm: "bash", start: "799"}, gemA, term}
	if got := shellSession(dir, "gemini", shellA); got != "sess-a" {
		t.Errorf("A's shell: %q", got)
	}
	if got := shellSession(dir, "gemini", []proc{{pid: 4250, comm: "bash", start: "900"}, gemB, term}); got != "sess-b" {
		t.Errorf("B's shell: %q", got)
	}
	// The same PID, another process: the record is stale.
	if got := shellSession(dir, "gemini", []proc{{pid: 4100, comm: "node", start: "999"}, term}); got != "" {
		t.Errorf("a stale record read: %q", got)
	}
	if got := shellSession(dir, "gemini", []proc{term}); got != "" {
		t.Errorf("the terminal has no session: %q", got)
	}
	if got := shellSession(dir, "codex", shellA); got != "" {
		t.Errorf("another host: %q", got)
	}
	// A hook with no host process in sight records nothing.
	if recordShell(dir, "gemini", "sess-c", []proc{term}, running) {
		t.Error("recorded for a shell")
	}
	// A record whose process is gone is removed when a hook records.
	gone := filepath.Join(dir, hostsDir, "gemini", "5000")
	os.WriteFile(gone, []byte("1 sess-old\n"), 0o644)
	recordShell(dir, "gemini", "sess-a2", hookA, running)
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the record of a process that is gone: %v", err)
	}
	if got := shellSession(dir, "gemini", shellA); got != "sess-a2" {
		t.Errorf("A's new session (a /clear): %q", got)
	}
}

// TestShellSessionProc: with the real process tree, what this process
// records it finds again; with no /proc, it records nothing.
func TestShellSessionProc(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := os.Stat("/proc/self/stat")
	if err == nil && runtime.GOOS == "windows" {
		err = errors.New("Linux's /proc, seen through Wine: not Windows' processes")
	}
	recorded := RecordShellSession(dir, "gemini", "sess-proc")
	if recorded != (err == nil) {
		t.Fatalf("recorded %v with /proc %v", recorded, err)
	}
	want := ""
	if recorded {
		want = "sess-proc"
	}
	if got := ShellSession(dir, "gemini"); got != want {
		t.Errorf("found %q", got)
	}
	ForgetShellSession(dir, "gemini", "sess-proc")
	if got := ShellSession(dir, "gemini"); got != "" {
		t.Errorf("forgotten, found %q", got)
	}
}
