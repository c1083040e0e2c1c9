//go:build !unix

package main

import (
	"os"
	"os/exec"
)

// fallback runs `plangit hook ARGS…` on the same payload: the plangit
// beside this binary, else the one on PATH. Without one it answers
// nothing: a hook never breaks the agent.
func fallback(args []string, payload []byte, stdout, stderr *os.File) int {
	prog, err := exec.LookPath(plangitBeside())
	if err != nil {
		return 0
	}
	return start(prog, append([]string{prog, "hook"}, args...), payload, stdout, stderr)
}
