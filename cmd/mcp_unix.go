//go:build unix

package cmd

import (
	"os"
	"syscall"

	"github.com/plangit/plangit/plan"
)

// runProgram replaces this process with path, given args: the host's
// standard streams and signals reach plangit-mcp itself.
func runProgram(path string, args []string) error {
	err := syscall.Exec(path, append([]string{path}, args...), os.Environ())
	return plan.WrapError(plan.CodeIOError, err, "cannot run %s", path)
}
