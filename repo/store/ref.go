package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/repo/disk"
)

// ReadRef returns the commit the branch points at, or the zero hash when
// the branch has no commit yet. It reads the loose ref and falls back to
// packed-refs, where a real `git gc` may have moved it. A ref file that
// holds no hash is ErrDamagedRef.
func (o *Disk) ReadRef() (plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(o.gitDir, BranchRef))
	if err == nil {
		v := strings.TrimSpace(string(b))
		if !plumbing.IsHash(v) {
			return plumbing.ZeroHash, fmt.Errorf("%s/%s: %w", o.gitDir, BranchRef, ErrDamagedRef)
		}
		return plumbing.NewHash(v), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return plumbing.ZeroHash, &RefError{Op: "read", Err: err}
	}
	packed, err := os.ReadFile(filepath.Join(o.gitDir, "packed-refs"))
	if err != nil {
		return plumbing.ZeroHash, nil
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if h, name, ok := strings.Cut(line, " "); ok && name == BranchRef && plumbing.IsHash(h) {
			return plumbing.NewHash(h), nil
		}
	}
	return plumbing.ZeroHash, nil
}

// SetRefIf moves the branch to next if it still points at old: a
// compare-and-set, made atomic as git makes it, by making main.lock
// exclusively, checking the old value, and putting the lock in the ref's
// place. With still set it also checks, holding main.lock, that still
// holds. It runs under the session's exclusive lock. The ref file is
// never written in place: a reader sees the old ref or the new one,
// whole.
func (o *Disk) SetRefIf(next, old plumbing.Hash, still func() bool) error {
	path := filepath.Join(o.gitDir, BranchRef)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return &RefError{Op: "write", Err: err}
	}
	lock := path + ".lock"
	held, err := lockRef(lock, []byte(next.String()+"\n"))
	switch {
	case !held && err == nil:
		return ErrMoved // another writer is moving it right now
	case !held:
		return &RefError{Op: "write", Err: err}
	case err != nil:
		os.Remove(lock)
		return &RefError{Op: "write", Err: err}
	}
	cur, err := o.ReadRef()
	if err == nil && cur != old {
		err = ErrMoved
	}
	if err == nil && still != nil && !still() {
		err = ErrRecordLost
	}
	if err == nil {
		if err = disk.Replace(lock, path); err != nil {
			err = &RefError{Op: "write", Err: err}
		}
	}
	if err != nil {
		os.Remove(lock)
	}
	return err
}

// lockRef takes git's lock on the branch, main.lock, holding data: made
// exclusively, as git makes its lock files, so that git itself stays out
// while it is held. held is false when main.lock exists already (err nil)
// or cannot be made; true with an error when it was made but not written
// (the caller removes it).
func lockRef(lock string, data []byte) (held bool, err error) {
	f, err := disk.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
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
