//go:build unix

package repo_test

import (
	"os/exec"
	"syscall"
)

// startGroup starts cmd in a process group of its own, so stopGroup ends
// it and every process it started.
func startGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func stopGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
