//go:build linux

package repo

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The spare, .git/plangit/spare, stands in for the temporary files of a
// change on Linux. A file is put in place by writing its new content over
// the spare's and exchanging the two (renameat2 RENAME_EXCHANGE): the file
// displaced becomes the spare, for the next one. A change then creates no
// file but its objects and removes none. On an ext4 file system without a
// journal, making a file right after others were removed costs a third of
// a millisecond (the allocator passes over every inode freed in the last
// half minute), and a change made and removed four: the spare took most
// of a commit's time off. It is used under the session lock only, by one
// process at a time.
const spareName = "spare"

// fillSpare writes data over the spare, with mode perm, and returns its
// path. The spare is made when missing, and made anew when it is not a
// plain file of this directory alone — a working file a person had also
// linked elsewhere comes here when it is displaced, and is never written
// over.
func (s *Session) fillSpare(data []byte, perm os.FileMode) (string, error) {
	path := s.PrivatePath(spareName)
	for try := 0; ; try++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|oNoFollow|oNonBlock, perm)
		if err == nil {
			if fi, serr := f.Stat(); serr != nil || !fi.Mode().IsRegular() || fi.Sys().(*syscall.Stat_t).Nlink != 1 {
				f.Close()
				err = errNotSpare
			}
		}
		if err != nil {
			if try == 0 && (isLinkErr(err) || errors.Is(err, errNotSpare) || errors.Is(err, syscall.ENXIO)) {
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

// putFile replaces path with data through the spare. What was at path
// becomes the spare; a directory with something in it is put back, and
// the replacement fails as a rename would.
func (s *Session) putFile(path string, data []byte, perm os.FileMode) error {
	spare, err := s.fillSpare(data, perm)
	if err != nil {
		return err
	}
	err = unix.Renameat2(unix.AT_FDCWD, spare, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		if fi, err := os.Lstat(spare); err == nil && fi.IsDir() {
			if err := unix.Renameat2(unix.AT_FDCWD, spare, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE); err != nil {
				return err
			}
			return renameOver(spare, path)
		}
		return nil
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return renameOver(spare, path) // nothing at path (the spare is made anew next time), or no exchange here
	}
	return err
}

// lockRef takes git's lock on the branch, main.lock, holding data: a link
// to the spare, made exclusively as git makes its lock files, so that git
// itself stays out while it is held. held is false when main.lock exists
// already (err nil) or cannot be made; true with an error when it was
// made but is not right (the caller removes it).
func (s *Session) lockRef(lock string, data []byte) (held bool, err error) {
	spare, err := s.fillSpare(data, 0o644)
	if err != nil {
		return false, err
	}
	if err := os.Link(spare, lock); err != nil {
		if errors.Is(err, os.ErrExist) {
			return false, nil
		}
		return false, err
	}
	return true, os.Remove(spare) // the lock file alone holds the new value
}

// setRef puts the branch lock in the ref's place; the ref's old file
// becomes the spare.
func (s *Session) setRef(lock, path string) error {
	err := unix.Renameat2(unix.AT_FDCWD, lock, unix.AT_FDCWD, path, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		// The old value becomes the spare; nothing is at the spare's name
		// (lockRef took it), so the rename is cheap.
		if os.Rename(lock, s.PrivatePath(spareName)) != nil {
			os.Remove(lock)
		}
		return nil
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return renameOver(lock, path)
	}
	return err
}

// spared says whether this system puts files in place through the spare.
const spared = true
