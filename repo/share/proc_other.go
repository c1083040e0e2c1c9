//go:build !unix

package share

import (
	"os/exec"
)

// ownGroup leaves cmd as it is where process groups are not Unix's:
// cancelling it ends git alone.
func ownGroup(cmd *exec.Cmd) {}
