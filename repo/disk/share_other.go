//go:build !windows

package disk

import "os"

// OpenShared opens the file at path for reading (os.O_RDONLY) or for
// appending (os.O_WRONLY|os.O_APPEND, with os.O_CREATE to create it with
// mode perm), never through a symbolic link where the system can refuse
// one; other processes may rename and delete it while it is open, as on
// every system but Windows they always may.
func OpenShared(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|NoFollow, perm)
}

// OpenFile is os.OpenFile never through a symbolic link at path, where
// the system can refuse one (O_NOFOLLOW): the open fails, and IsLinkErr
// says why.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|NoFollow, perm)
}
