//go:build !unix

package cmd

import "os/exec"

// detach leaves c as it is where sessions and process groups are not
// Unix's; its standard streams are still the null device.
func detach(c *exec.Cmd) {}
