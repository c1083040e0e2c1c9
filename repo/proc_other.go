//go:build !unix

package repo

import "os/exec"

// ownGroup leaves cmd as it is where process groups are not Unix's:
// cancelling it ends git alone.
func ownGroup(cmd *exec.Cmd) {}

// running cannot tell here: a temporary file is debris once it is stale.
func running(pid int) bool { return pid > 0 }
