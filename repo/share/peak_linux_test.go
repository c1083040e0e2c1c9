package share_test

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// peakEnv names the file a measuring run of the test binary writes the
// peak it measured to (runMeasured).
const peakEnv = "PLANGIT_TEST_PEAK"

// runMeasured runs cmd and returns the largest resident set, in bytes,
// of it and the processes it waited for. Linux counts a process's peak
// from the memory of the process it was started from (its starting
// image), so a command started by this test process, large from other
// tests, would be charged with it: cmd is started by a fresh run of the
// test binary instead (measure), whose image is small.
func runMeasured(t *testing.T, cmd *exec.Cmd) (int64, bool, error) {
	out := t.TempDir() + "/peak"
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Args = append([]string{self}, append([]string{cmd.Path}, cmd.Args[1:]...)...)
	cmd.Path = self
	cmd.Env = append(cmd.Environ(), peakEnv+"="+out)
	err = cmd.Run()
	data, rerr := os.ReadFile(out)
	if rerr != nil {
		t.Fatalf("the measuring run wrote no peak: %v (%v)", rerr, err)
	}
	peak, perr := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if perr != nil {
		t.Fatalf("the measuring run wrote %q", data)
	}
	return peak, true, err
}

// measure is the test binary run by runMeasured: it runs the command its
// arguments name, writes the command's peak to the file peakEnv names,
// and exits as the command did. It reports whether it was such a run.
func measure() (int, bool) {
	out := os.Getenv(peakEnv)
	if out == "" {
		return 0, false
	}
	os.Unsetenv(peakEnv)
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 2, true
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		return 2, true
	}
	if werr := os.WriteFile(out, []byte(strconv.FormatInt(ru.Maxrss<<10, 10)), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, werr)
		return 2, true
	}
	return cmd.ProcessState.ExitCode(), true
}
