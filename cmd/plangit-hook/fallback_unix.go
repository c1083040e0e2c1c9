//go:build unix

package main

import (
	"io"
	"os"
	"os/exec"
	"syscall"
)

// fallback runs `plangit hook ARGS…` on the same payload: the plangit
// beside this binary, else the one on PATH. Where the payload fits in a
// pipe, it is written into one and this process becomes plangit (exec):
// no second process starts, and none waits for it. Without a plangit it
// answers nothing: a hook never breaks the agent.
func fallback(args []string, payload []byte, stdout, stderr io.Writer) int {
	prog, err := exec.LookPath(plangitBeside())
	if err != nil {
		return 0
	}
	argv := append([]string{prog, "hook"}, args...)
	if stdout == io.Writer(os.Stdout) && stderr == io.Writer(os.Stderr) && len(payload) <= pipeCapacity {
		var p [2]int
		if err := syscall.Pipe(p[:]); err == nil {
			n, err := syscall.Write(p[1], payload)
			syscall.Close(p[1])
			if err == nil && n == len(payload) && dup2(p[0], 0) == nil {
				syscall.Exec(prog, argv, os.Environ()) // returns only when it fails
			}
			syscall.Close(p[0])
		}
	}
	return start(prog, argv, payload, stdout, stderr)
}
