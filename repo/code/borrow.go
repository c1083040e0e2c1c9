package code

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
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
		if !p.idx.contains(h) {
			continue
		}
		for _, ext := range []string{".pack", ".idx"} { // the index last: a pack is seen by its index
			dst := filepath.Join(s.ObjectsDir(), "pack", filepath.Base(p.base)+ext)
			if err := linkOrCopy(p.base+ext, dst); err != nil {
				return false, err
			}
		}
		s.st.ClosePacks()
		if s.ownListed {
			s.own = append(s.own, p.idx)
		}
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
			idx, err := readRawIdx(name)
			if err != nil {
				continue // a pack being written or removed: its objects are found elsewhere or hashed
			}
			s.packs = append(s.packs, projectPack{base: base, idx: idx})
		}
	}
	return nil
}

// has says whether the store holds object h, as Has does, but reading
// its packs' indexes once and as they are on disk, and looking in them
// first: a snapshot asks it of every blob it borrows (most of them in a
// linked pack) and every object it writes.
func (s *Store) has(h plumbing.Hash) bool {
	if !s.ownListed {
		s.ownListed = true
		names, _ := filepath.Glob(filepath.Join(s.ObjectsDir(), "pack", "pack-*.idx"))
		for _, name := range names {
			if idx, err := readRawIdx(name); err == nil {
				s.own = append(s.own, idx)
			}
		}
	}
	for _, idx := range s.own {
		if idx.contains(h) {
			return true
		}
	}
	_, err := os.Lstat(s.st.LoosePath(h))
	return err == nil
}

// objectHash is the hash git gives an object of type t.
func objectHash(t plumbing.ObjectType, data []byte) plumbing.Hash {
	d := sha1.New()
	d.Write(t.Bytes())
	d.Write([]byte{' '})
	d.Write(strconv.AppendInt(nil, int64(len(data)), 10))
	d.Write([]byte{0})
	d.Write(data)
	var h plumbing.Hash
	d.Sum(h[:0])
	return h
}

// rawIdx is a pack index file as it is on disk (version 2, or 1), looked
// in without decoding it: 256 counts by first byte, then the sorted
// hashes.
type rawIdx struct {
	data   []byte
	fanout int // where the counts start
	v2     bool
	n      int
}

func readRawIdx(path string) (rawIdx, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return rawIdx{}, err
	}
	x := rawIdx{data: b}
	if len(b) >= 8 && string(b[:4]) == "\xfftOc" {
		if binary.BigEndian.Uint32(b[4:]) != 2 {
			return rawIdx{}, errors.New("a pack index of an unknown version")
		}
		x.fanout, x.v2 = 8, true
	}
	if len(b) < x.fanout+1024 {
		return rawIdx{}, errors.New("a pack index cut short")
	}
	x.n = int(binary.BigEndian.Uint32(b[x.fanout+1020:]))
	if x.v2 && len(b) < x.fanout+1024+x.n*20 || !x.v2 && len(b) < 1024+x.n*24 {
		return rawIdx{}, errors.New("a pack index cut short")
	}
	return x, nil
}

// contains says whether the pack holds object h.
func (x rawIdx) contains(h plumbing.Hash) bool {
	lo := 0
	if h[0] > 0 {
		lo = int(binary.BigEndian.Uint32(x.data[x.fanout+4*(int(h[0])-1):]))
	}
	hi := min(int(binary.BigEndian.Uint32(x.data[x.fanout+4*int(h[0]):])), x.n)
	name := func(i int) []byte {
		if x.v2 {
			return x.data[x.fanout+1024+i*20:][:20]
		}
		return x.data[1024+i*24+4:][:20]
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(name(mid), h[:]); {
		case c == 0:
			return true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return false
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
