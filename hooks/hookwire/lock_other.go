//go:build !unix

package hookwire

import "os"

// TryLockSession is for Unix systems alone: elsewhere the hook binary
// hands every change to plangit, which locks as the system allows.
func TryLockSession(privateDir string) *os.File { return nil }
