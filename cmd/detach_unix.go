//go:build unix

package cmd

import (
	"os/exec"
	"syscall"
)

// detach makes c a session leader of its own: no controlling terminal (so
// ssh or git cannot prompt on the host's), out of the hook's process group.
func detach(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}
