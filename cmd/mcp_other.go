//go:build !unix

package cmd

import (
	"errors"
	"os"
	"os/exec"

	"github.com/plangit/plangit/plan"
)

// runProgram runs path with args on this process's standard streams and
// exits with its exit code.
func runProgram(path string, args []string) error {
	c := exec.Command(path, args...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &hookExit{ee.ExitCode()}
	}
	if err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot run %s", path)
	}
	return nil
}
