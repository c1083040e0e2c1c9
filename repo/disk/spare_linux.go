//go:build linux

package disk

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// The spare, .git/plangit/spare, stands in for temporary files under the
// session lock on Linux. A file is put in place by writing its new content
// over the spare's and exchanging the two (renameat2 RENAME_EXCHANGE): the
// file displaced becomes the spare, for the next one. A change then makes
// no file but its objects and removes none. On an ext4 file system without
// a journal, making a file right after others were removed costs a third
// of a millisecond (the allocator passes over every inode freed in the
// last half minute), and a change made and removed four: the spare took
// most of a commit's time off. It is used under the session lock only, by
// one process at a time.

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

// FillSpare writes data over the spare of privateDir, with mode perm, and
// returns its path. The spare is made when missing, and made anew when it
// is not a plain file of this directory alone: a working file a person
// had also linked elsewhere comes here when it is displaced, and is never
// written over.
func FillSpare(privateDir string, data []byte, perm os.FileMode) (string, error) {
	path := privateDir + string(os.PathSeparator) + SpareFile
	for try := 0; ; try++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
		if err == nil {
			if fi, serr := f.Stat(); serr != nil || !fi.Mode().IsRegular() || fi.Sys().(*syscall.Stat_t).Nlink != 1 {
				f.Close()
				err = errNotSpare
			}
		}
		if err != nil {
			if try == 0 && (errors.Is(err, syscall.ELOOP) || errors.Is(err, errNotSpare) || errors.Is(err, syscall.ENXIO)) {
				if rerr := os.Remove(path); rerr == nil || errors.Is(rerr, os.ErrNotExist) {
					continue
				}
			}
			return "", err
		}
		_, err = f.WriteAt(data, 0)
		if err == nil {
			err = f.Truncate(int64(len(data)))
		}
		if err == nil {
			err = f.Chmod(perm)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return path, err
	}
}

var errNotSpare = errors.New("not a spare")

// PutFile replaces path with data through privateDir's spare. What was
// at path becomes the spare; a directory is put back, and the
// replacement fails as a rename would.
func PutFile(privateDir, path string, data []byte, perm os.FileMode) error {
	spare, err := FillSpare(privateDir, data, perm)
	if err != nil {
		return err
	}
	_, err = Swap(spare, path)
	return err // nothing at path: the spare is made anew next time
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
// does, by exchanging the two (Swap) and removing the one displaced. On
// ext4 a rename over an existing file first writes the new file's data to
// disk (auto_da_alloc), which made each replacement a tenth of a
// millisecond: most of a commit's file work. plangit's session files are
// written for a killed process, which the page cache outlives (README,
// "Crash safety"); files a person owns go through WriteAtomic's rename and
// fsync.
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
