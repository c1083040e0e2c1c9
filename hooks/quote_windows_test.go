package hooks

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// TestShellJoinRunsInCmd: the cmd.exe form run for real by cmd.exe /d /s
// /c, the command line a program hands %ComSpec% (Node's spawn with a
// shell; Codex's fallback when no PowerShell is found): a program whose
// directory has spaces, an apostrophe, & ^ ( ) ; , = and non-ASCII
// letters gets exactly its arguments. The program is this test binary,
// which writes what it got when PLANGIT_TEST_ARGV names a file (TestMain).
// PowerShell's form is checked by TestShellJoin only: no PowerShell runs
// here (Wine's powershell.exe is a stub).
func TestShellJoinRunsInCmd(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "it's a & b ^ (1); x=y, ü 日本")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	spy := filepath.Join(dir, "plangit.exe")
	copyFile(t, self, spy)
	out := filepath.Join(t.TempDir(), "argv")
	argv := []string{spy, "hook", "SessionStart", "--host", "codex"}
	line, err := ShellCmd.Join(argv)
	if err != nil {
		t.Fatal(err)
	}
	comspec := os.Getenv("ComSpec")
	if comspec == "" {
		comspec = `C:\Windows\System32\cmd.exe`
	}
	cmd := exec.Command(comspec)
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `cmd.exe /d /s /c "` + line + `"`}
	cmd.Env = append(os.Environ(), "PLANGIT_TEST_ARGV="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cmd.exe /d /s /c %s: %v\n%s", line, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("cmd.exe /d /s /c %s ran nothing: %v", line, err)
	}
	if got := strings.Split(string(b), "\n"); !reflect.DeepEqual(got, argv[1:]) {
		t.Errorf("cmd.exe /d /s /c %s gave %q", line, got)
	}
}

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
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
