//go:build linux

package repo

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/plangit/plangit/repo/disk"
)

// On Linux a change puts its files in place through the spare
// (disk.SpareFile), under the session lock: it makes no file but its
// objects and removes none.

func (s *Session) fillSpare(data []byte, perm os.FileMode) (string, error) {
	return disk.FillSpare(filepath.Join(s.gitDir, privateDir), data, perm)
}

func (s *Session) putFile(path string, data []byte, perm os.FileMode) error {
	return disk.PutFile(filepath.Join(s.gitDir, privateDir), path, data, perm)
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
// becomes the spare (nothing is at the spare's name: lockRef took it, so
// the rename is cheap).
func (s *Session) setRef(lock, path string) error {
	displaced, err := disk.Swap(lock, path)
	if displaced && os.Rename(lock, s.PrivatePath(disk.SpareFile)) != nil {
		os.Remove(lock)
	}
	return err
}

// spared says whether this system puts files in place through the spare.
const spared = true
