// Command rsswrap runs a command and prints its peak resident memory, for
// the whole-process benchmark (bench_test.go). A child started by a large
// process inherits that process's peak in its own count, so the benchmark
// measures plangit through this small one: the figure it prints is
// plangit's peak, or this program's own few megabytes if that is more.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		fmt.Fprintf(os.Stderr, "\nrsswrap maxrss %d\n", ru.Maxrss)
	}
	if err != nil {
		os.Exit(1)
	}
}
