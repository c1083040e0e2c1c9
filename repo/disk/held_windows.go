//go:build windows

package disk

import (
	"errors"
	"syscall"
)

// Windows refuses to rename or remove a file another process holds open
// without sharing its deletion, as editors, indexers and antivirus
// scanners do for a moment.
const (
	errorAccessDenied     = syscall.Errno(5)
	errorSharingViolation = syscall.Errno(32)
)

// heldOpen reports whether err is the system refusing a rename or a
// removal because another process holds the file open.
func heldOpen(err error) bool {
	return errors.Is(err, errorSharingViolation) || errors.Is(err, errorAccessDenied) || errors.Is(err, errorLockViolation)
}
