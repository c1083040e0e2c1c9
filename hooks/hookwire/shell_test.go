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
	if !recordShell(dir, "gemini", "sess-a", hookA, "", running) {
		t.Fatal("not recorded")
	}
	if !recordShell(dir, "gemini", "sess-b", []proc{gemB, term}, "", running) {
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
	if recordShell(dir, "gemini", "sess-c", []proc{term}, "", running) {
		t.Error("recorded for a shell")
	}
	// A record whose process is gone is removed when a hook records.
	gone := filepath.Join(dir, hostsDir, "gemini", "5000")
	os.WriteFile(gone, []byte("1 sess-old\n"), 0o644)
	recordShell(dir, "gemini", "sess-a2", hookA, "", running)
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the record of a process that is gone: %v", err)
	}
	if got := shellSession(dir, "gemini", shellA); got != "sess-a2" {
		t.Errorf("A's new session (a /clear): %q", got)
	}
}

// TestHostProcess: a hook looks past shells and plangit itself for its
// host — a wrapper named plangit (a #! script's process bears its name),
// plangit-hook handing over to plangit, a launcher script an interpreter
// runs, plangit under another name — and records nothing for a host that
// has exited.
func TestHostProcess(t *testing.T) {
	t.Parallel()
	const self = "/opt/plangit/bin/plangit"
	gem := proc{pid: 4100, comm: "node", start: "777", exe: "/usr/bin/node", args: []string{"node", "--max-old-space-size=8192", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js"}}
	sh := proc{pid: 4101, comm: "bash", start: "790", exe: "/usr/bin/bash", args: []string{"bash", "-c", "plangit hook gemini BeforeTool"}}
	wrapper := proc{pid: 4102, comm: "plangit", start: "791", exe: "/usr/bin/bash", args: []string{"/bin/bash", "/home/u/bin/plangit", "hook", "gemini", "BeforeTool"}}
	hookBin := proc{pid: 4103, comm: "plangit-hook", start: "792", exe: "/opt/plangit/bin/plangit-hook", args: []string{"plangit-hook", "gemini", "BeforeTool"}}
	launcher := proc{pid: 4104, comm: "node", start: "793", exe: "/usr/bin/node", args: []string{"node", "--no-warnings", "/usr/lib/node_modules/plangit/bin/plangit.js", "hook"}}
	renamed := proc{pid: 4105, comm: "pg", start: "794", exe: self, args: []string{"pg", "hook"}}
	other := proc{pid: 4106, comm: "node", start: "795", exe: "/usr/bin/node", args: []string{"node", "/usr/lib/node_modules/other/cli.js"}}
	for _, c := range []struct {
		name  string
		chain []proc
		want  int // the host's pid; 0 for none
	}{
		{"the host's shell", []proc{sh, gem}, gem.pid},
		{"a wrapper named plangit", []proc{wrapper, sh, gem}, gem.pid},
		{"plangit-hook handing over", []proc{hookBin, wrapper, sh, gem}, gem.pid},
		{"a launcher script", []proc{launcher, sh, gem}, gem.pid},
		{"plangit under another name", []proc{renamed, sh, gem}, gem.pid},
		{"another program's script is a host", []proc{other, sh, gem}, other.pid},
		{"only plangit and shells", []proc{wrapper, sh}, 0},
	} {
		p, ok := hostProcess(c.chain, self)
		if got := map[bool]int{true: p.pid}[ok]; got != c.want {
			t.Errorf("%s: host %d, want %d", c.name, got, c.want)
		}
	}
	// A process that has exited, or whose PID another took, is never
	// recorded.
	dir := t.TempDir()
	gone := func(int) (proc, bool) { return proc{}, false }
	reused := func(pid int) (proc, bool) { return proc{pid: pid, comm: "node", start: "999"}, true }
	for name, running := range map[string]func(int) (proc, bool){"gone": gone, "its PID reused": reused} {
		if recordShell(dir, "gemini", "sess", []proc{wrapper, sh, gem}, self, running) {
			t.Errorf("the host %s: recorded", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, hostsDir)); !os.IsNotExist(err) {
		t.Errorf("records written for a host that is gone: %v", err)
	}
	alive := func(pid int) (proc, bool) { return gem, pid == gem.pid }
	if !recordShell(dir, "gemini", "sess", []proc{wrapper, sh, gem}, self, alive) {
		t.Fatal("not recorded for the host")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, hostsDir, "gemini"))
	if len(entries) != 1 || entries[0].Name() != "4100" {
		t.Errorf("records %v, want the host's alone (4100)", entries)
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
