//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// fallback runs `plangit hook ARGS…` on the same payload: the plangit
// beside this binary, else the one on PATH. Where the payload fits in a
// pipe, it is written into one and this process becomes plangit (exec):
// no second process starts, and none waits for it. Without a plangit it
// answers nothing: a hook never breaks the agent.
func fallback(args []string, payload []byte, stdout, stderr *os.File) int {
	prog, ok := lookPath(plangitBeside())
	if !ok {
		return 0
	}
	argv := append([]string{prog, "hook"}, args...)
	if stdout == os.Stdout && stderr == os.Stderr && len(payload) <= pipeCapacity {
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

// isExecutable reports whether path is a file that may be run.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// lookPath finds prog as a shell would: a path as it is, a name on PATH.
func lookPath(prog string) (string, bool) {
	if strings.ContainsRune(prog, '/') {
		return prog, isExecutable(prog)
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		if path := filepath.Join(dir, prog); isExecutable(path) {
			return path, true
		}
	}
	return "", false
}
