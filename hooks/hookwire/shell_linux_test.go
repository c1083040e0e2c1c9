package hookwire

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// treeVar set says that this test binary plays, under the name it was
// started by, its part in TestHostBehindWrapper's process tree.
const treeVar = "HOOKWIRE_TEST_TREE"

// runTest is the flag that has a copy of the test binary run
// TestHostBehindWrapper alone.
const runTest = "-test.run=^TestHostBehindWrapper$"

// TestHostBehindWrapper: with a real process tree — a host program, the
// shell it starts hooks in, a wrapper between the shell and plangit —
// the hook records its session under the host, which the agent's shell
// then finds, and not under the wrapper, which exits with the hook. The
// wrapper is a #! script named plangit that waits for the program it
// runs (a version manager's shim), one that execs it, or a launcher an
// interpreter runs (`node …/plangit.js`). The host, the real plangit and
// the interpreter are copies of this test binary under those names.
func TestHostBehindWrapper(t *testing.T) {
	if dir := os.Getenv(treeVar); dir != "" {
		switch filepath.Base(os.Args[0]) {
		case "gemini": // the host: a hook's command through its shell
			runChild(t, exec.Command("/bin/sh", "-c", os.Getenv("HOOKWIRE_TEST_CMD")))
		case "node": // the interpreter of a launcher: it runs plangit
			runChild(t, exec.Command(os.Getenv("REAL"), runTest))
		case "plangit": // the hook
			if !RecordShellSession(dir, "gemini", "sess-wrapped") {
				t.Fatal("not recorded")
			}
		}
		return
	}
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, name := range []string{"gemini", "plangit", "node"} {
		copyFile(t, self, filepath.Join(bin, name))
	}
	for _, c := range []struct {
		name, script, file string
		cmd                func(wrapper string) string // the hook's command
	}{
		{"a shim that waits", "#!/bin/sh\n\"$REAL\" \"$@\"\n", "plangit",
			func(w string) string { return w + " '" + runTest + "'" }},
		{"a wrapper that execs", "#!/bin/sh\nexec \"$REAL\" \"$@\"\n", "plangit",
			func(w string) string { return w + " '" + runTest + "'" }},
		{"a launcher an interpreter runs", "", "plangit.js",
			func(w string) string { return filepath.Join(bin, "node") + " '" + runTest + "' " + w }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			wrapper := filepath.Join(t.TempDir(), c.file)
			if c.script != "" {
				if err := os.WriteFile(wrapper, []byte(c.script), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			host := exec.Command(filepath.Join(bin, "gemini"), runTest)
			host.Env = append(os.Environ(), treeVar+"="+dir, "HOOKWIRE_TEST_CMD="+c.cmd(wrapper), "REAL="+filepath.Join(bin, "plangit"))
			if out, err := host.CombinedOutput(); err != nil {
				t.Fatalf("the host: %v\n%s", err, out)
			}
			records, _ := os.ReadDir(filepath.Join(dir, hostsDir, "gemini"))
			want := strconv.Itoa(host.Process.Pid)
			if len(records) != 1 || records[0].Name() != want {
				var names []string
				for _, r := range records {
					names = append(names, r.Name())
				}
				t.Fatalf("records %v, want the host's alone (%s)", names, want)
			}
			b, _ := os.ReadFile(filepath.Join(dir, hostsDir, "gemini", want))
			if _, session, _ := strings.Cut(strings.TrimSpace(string(b)), " "); session != "sess-wrapped" {
				t.Errorf("the record names %q", b)
			}
		})
	}
}

// runChild runs cmd with this process's output, failing t when it fails.
func runChild(t *testing.T, cmd *exec.Cmd) {
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
}

// copyFile copies the program at from to a new file to, executable.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
