package code

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
)

// borrow brings object h from the project's object database into the
// store (doc case 3): a hard link to its loose file, or to the pack that
// holds it and the pack's index. It reports false when the project has
// no such object.
func (s *Store) borrow(h plumbing.Hash) (bool, error) {
	hex := h.String()
	for _, dir := range s.proj.objects {
		src := filepath.Join(dir, hex[:2], hex[2:])
		if _, err := os.Stat(src); err == nil {
			dst := filepath.Join(s.ObjectsDir(), hex[:2], hex[2:])
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return false, err
			}
			return true, linkOrCopy(src, dst)
		}
	}
	if err := s.listPacks(); err != nil {
		return false, err
	}
	for i, p := range s.packs {
		if ok, _ := p.idx.Contains(h); !ok {
			continue
		}
		for _, ext := range []string{".pack", ".idx"} { // the index last: a pack is seen by its index
			dst := filepath.Join(s.ObjectsDir(), "pack", filepath.Base(p.base)+ext)
			if err := linkOrCopy(p.base+ext, dst); err != nil {
				return false, err
			}
		}
		s.st.ClosePacks()
		s.packs = append(s.packs[:i], s.packs[i+1:]...) // linked: what it holds is the store's now
		return true, nil
	}
	return false, nil
}

// listPacks reads the indexes of the project's packs the store has not
// linked yet.
func (s *Store) listPacks() error {
	if s.listed {
		return nil
	}
	s.listed = true
	for _, dir := range s.proj.objects {
		names, _ := filepath.Glob(filepath.Join(dir, "pack", "pack-*.idx"))
		for _, name := range names {
			base := strings.TrimSuffix(name, ".idx")
			if _, err := os.Stat(filepath.Join(s.ObjectsDir(), "pack", filepath.Base(name))); err == nil {
				continue // linked already
			}
			idx, err := readIdx(name)
			if err != nil {
				continue // a pack being written or removed: its objects are found elsewhere or hashed
			}
			s.packs = append(s.packs, projectPack{base: base, idx: idx})
		}
	}
	return nil
}

func readIdx(path string) (*idxfile.MemoryIndex, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(f).Decode(idx); err != nil {
		return nil, err
	}
	return idx, nil
}

// linkOrCopy makes dst the file src is, by a hard link where the file
// system allows it, else by a copy (written aside and renamed); a dst
// already there is kept.
func linkOrCopy(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	if err := os.Link(src, dst); err == nil || errors.Is(err, os.ErrExist) {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".borrow-*")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		os.Chmod(tmp.Name(), 0o444)
		err = os.Rename(tmp.Name(), dst)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
