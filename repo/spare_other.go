//go:build !linux

package repo

import (
	"errors"
	"io/fs"
	"os"

	"github.com/plangit/plangit/repo/disk"
)

// Without an atomic exchange, a change puts files in place through
// temporary files and renames (see spare_linux.go).

func (s *Session) putFile(path string, data []byte, perm os.FileMode) error {
	return s.tempFile(path, data, perm)
}

func (s *Session) fillSpare(data []byte, perm os.FileMode) (string, error) {
	return s.prepareFile(data, perm)
}

// lockRef makes main.lock exclusively, holding data. held is false when
// it exists already (err nil) or cannot be made; true with an error when
// it was made but not written (the caller removes it).
func (s *Session) lockRef(lock string, data []byte) (held bool, err error) {
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL|disk.NoFollow, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return true, err
}

func (s *Session) setRef(lock, path string) error { return os.Rename(lock, path) }

const spared = false
