//go:build linux

package disk

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// On Linux a file is put in place by exchanging it with the one at its
// path (renameat2 RENAME_EXCHANGE) and removing the one displaced: on
// ext4, a rename over an existing file first writes the new file's data
// out (auto_da_alloc), a tenth of a millisecond, which an exchange does
// not. plangit's session files are written for a killed process, which
// the page cache outlives; files a person owns go through WriteAtomic's
// rename and fsync.

// Flags of Renameat2.
const (
	RenameNoReplace = 1 << 0
	RenameExchange  = 1 << 1
)

// Renameat2 is renameat2(2) on paths: with RenameExchange the two files
// trade places atomically; with RenameNoReplace newpath must not exist.
// ENOSYS where the system has no such call.
func Renameat2(oldpath, newpath string, flags int) error {
	nr := renameat2Number()
	if nr == 0 {
		return syscall.ENOSYS
	}
	o, err := syscall.BytePtrFromString(oldpath)
	if err != nil {
		return err
	}
	n, err := syscall.BytePtrFromString(newpath)
	if err != nil {
		return err
	}
	cwd := -0x64 // AT_FDCWD: the paths are relative to the working directory
	_, _, e := syscall.Syscall6(nr, uintptr(cwd), uintptr(unsafe.Pointer(o)), uintptr(cwd), uintptr(unsafe.Pointer(n)), uintptr(flags), 0)
	if e != 0 {
		return e
	}
	return nil
}

// renameat2Number is renameat2's system call number on this architecture
// (the syscall package names it for some only); 0 for unknown.
func renameat2Number() uintptr {
	switch runtime.GOARCH {
	case "amd64":
		return 316
	case "386":
		return 353
	case "arm":
		return 382
	case "arm64", "riscv64", "loong64":
		return 276
	case "ppc64", "ppc64le":
		return 357
	case "s390x":
		return 347
	case "mips64", "mips64le":
		return 5311
	case "mips", "mipsle":
		return 4351
	}
	return 0
}

// Swap puts the file at src in place of the one at path, as a rename
// does, by exchanging the two: displaced says src now holds what was at
// path, for the caller to keep or remove. A directory at path is put back
// and the swap fails as a rename would; with nothing at path, or on a file
// system without exchange, it is a rename.
func Swap(src, path string) (displaced bool, err error) {
	err = Renameat2(src, path, RenameExchange)
	switch {
	case err == nil:
		if fi, err := Lstat(src); err == nil && fi.Dir {
			if err := Renameat2(src, path, RenameExchange); err != nil {
				return false, err
			}
			return false, os.Rename(src, path)
		}
		return true, nil
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENOSYS):
		return false, os.Rename(src, path)
	}
	return false, err
}

// Replace puts the file at tmp in place of the one at path, as a rename
// does, by exchanging the two (Swap) and removing the one displaced.
func Replace(tmp, path string) error {
	displaced, err := Swap(tmp, path)
	if displaced {
		os.Remove(tmp) // gone already, if a sweep took it: the file is in place
	}
	return err
}

// SwapIn puts the file at tmp in place of the one at path atomically and
// leaves the file it displaced at tmp (none, if path did not exist), so
// the caller can look at what it replaced and put it back: a person's save
// landing between a check and a rename is never lost. swapped is false
// when path appeared (exists false) or vanished (exists true) meanwhile:
// nothing was done.
func SwapIn(tmp, path string, exists bool) (swapped bool, err error) {
	if !exists {
		err = Renameat2(tmp, path, RenameNoReplace)
		if errors.Is(err, syscall.EEXIST) {
			return false, nil // created meanwhile: not ours to replace
		}
		return err == nil, err
	}
	err = Renameat2(tmp, path, RenameExchange)
	if errors.Is(err, syscall.ENOENT) {
		return false, nil // removed meanwhile
	}
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS) {
		return true, os.Rename(tmp, path) // a file system without exchange
	}
	return err == nil, err
}

// SwapBack undoes SwapIn.
func SwapBack(tmp, path string) error {
	return Renameat2(tmp, path, RenameExchange)
}
