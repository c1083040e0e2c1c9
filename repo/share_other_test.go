//go:build !unix

package repo_test

import "os/exec"

func startGroup(cmd *exec.Cmd) {}

func stopGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
