//go:build !unix

package share_test

import (
	"os/exec"
)

func startGroup(cmd *exec.Cmd) {}

func stopGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
