//go:build unix

package share_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// startGroup starts cmd in a process group of its own, so stopGroup ends
// it and every process it started.
func startGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func stopGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// TestPushAndFetchRaceNothingInTheWorkTree: a process that writes the
// session's directory while plangit pushes and fetches — rewriting, as
// fast as it can, a config with a receivepack and an uploadpack into
// every folder plangit makes in the session's .git/plangit/ — runs
// nothing: the git directory plangit's git reads is made outside the
// project. (When it was made in .git/plangit/, such a loop won within a
// few pushes and fetches.)
func TestPushAndFetchRaceNothingInTheWorkTree(t *testing.T) {
	t.Parallel()
	w := newWorld(t, fileRemote)
	s, agent, reviewer := w.shared("s1")
	marks := t.TempDir()
	poison := "[core]\n\tbare = true\n[remote \"origin\"]\n" +
		"\treceivepack = touch '" + marks + "/receivepack'; exec git-receive-pack\n" +
		"\tuploadpack = touch '" + marks + "/uploadpack'; exec git-upload-pack\n"
	rs := w.open(w.reviewer, "s1")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, dir := range []string{filepath.Join(s.GitDir(), "plangit"), filepath.Join(rs.GitDir(), "plangit")} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				entries, _ := os.ReadDir(dir)
				for _, e := range entries {
					if e.IsDir() {
						os.WriteFile(filepath.Join(dir, e.Name(), "config"), []byte(poison), 0o644)
					}
				}
			}
		}()
	}
	for i := range 12 {
		w.addStep(s, fmt.Sprintf("step %d", i))
		statuses(t, agent.Push([]string{"s1"}, w.opts()), "s1:pushed")
		statuses(t, reviewer.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	}
	close(stop)
	wg.Wait()
	for _, name := range []string{"receivepack", "uploadpack"} {
		if _, err := os.Stat(filepath.Join(marks, name)); err == nil {
			t.Errorf("a %s written into the session's .git/plangit/ ran", name)
		}
	}
}
