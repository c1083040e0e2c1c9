package code

import (
	"encoding/binary"
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// entry is one entry of the project's index, as a snapshot needs it.
type entry struct {
	name         string
	mode         filemode.FileMode
	hash         plumbing.Hash
	size         uint32 // the file's size, truncated to 32 bits as git keeps it
	mtimeSec     uint32
	mtimeNsec    uint32
	ino          uint32
	stage        int
	skipWorktree bool
	intentToAdd  bool
}

var errIndex = errors.New("not a git index of version 2, 3 or 4")

// readIndex reads the entries of a git index file (versions 2 to 4, git's
// index-format.txt), in the index's order: by path, then stage. Its
// extensions (the cache tree, the untracked cache, …) are not read, nor
// its checksum: git writes the index whole, by rename. The names of a
// version 2 or 3 index are slices of one copy of the file.
func readIndex(b []byte) ([]entry, error) {
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, errIndex
	}
	version := binary.BigEndian.Uint32(b[4:])
	if version < 2 || version > 4 {
		return nil, errIndex
	}
	n := int(binary.BigEndian.Uint32(b[8:]))
	if n > len(b)/62 {
		return nil, errIndex
	}
	s := string(b) // one copy: names are slices of it
	entries := make([]entry, n)
	off := 12
	prev := ""
	for i := range entries {
		if off+62 > len(s) {
			return nil, errIndex
		}
		e := &entries[i]
		e.mtimeSec = binary.BigEndian.Uint32(b[off+8:])
		e.mtimeNsec = binary.BigEndian.Uint32(b[off+12:])
		e.ino = binary.BigEndian.Uint32(b[off+20:])
		e.mode = filemode.FileMode(binary.BigEndian.Uint32(b[off+24:]))
		e.size = binary.BigEndian.Uint32(b[off+36:])
		copy(e.hash[:], b[off+40:off+60])
		flags := binary.BigEndian.Uint16(b[off+60:])
		e.stage = int(flags>>12) & 3
		p := off + 62
		if flags&0x4000 != 0 { // extended flags
			if version < 3 || p+2 > len(s) {
				return nil, errIndex
			}
			ext := binary.BigEndian.Uint16(b[p:])
			e.skipWorktree = ext&0x4000 != 0
			e.intentToAdd = ext&0x2000 != 0
			p += 2
		}
		if version == 4 {
			// The length of the previous name to drop, as an offset
			// varint, then the rest of this one, NUL-terminated.
			drop, k := 0, 0
			for {
				if p+k >= len(s) {
					return nil, errIndex
				}
				c := b[p+k]
				drop = drop<<7 | int(c&0x7f)
				k++
				if c&0x80 == 0 {
					break
				}
				drop++
				if k > 4 {
					return nil, errIndex
				}
			}
			p += k
			end := indexNUL(s, p)
			if end < 0 || drop > len(prev) {
				return nil, errIndex
			}
			e.name = prev[:len(prev)-drop] + s[p:end]
			off = end + 1
		} else {
			end := indexNUL(s, p)
			if end < 0 {
				return nil, errIndex
			}
			e.name = s[p:end]
			// Entries are padded with NULs to a multiple of 8 bytes.
			off += (end - off + 8) &^ 7
		}
		prev = e.name
	}
	return entries, nil
}

func indexNUL(s string, from int) int {
	for i := from; i < len(s); i++ {
		if s[i] == 0 {
			return i
		}
	}
	return -1
}
