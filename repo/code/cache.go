package code

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/plangit/plangit/repo/disk"
)

// statCache is what the store's last snapshot knew of each file plangit
// read: its mode, its blob, and the stat data it was read with; and each
// directory's tree. Every blob and tree it names is in the store. (A file
// the index holds is not in it: the index has its stat data, and the
// store finds its blob in the pack it borrowed.) A file whose modification time is not before the snapshot began
// (start) is never taken from the cache: it may have changed after it was
// read, within the clock's grain.
type statCache struct {
	start int64 // when the snapshot that wrote it began, Unix nanoseconds
	files map[string]cached
	trees map[string]plumbing.Hash // by directory, "" the top
}

type cached struct {
	mode  filemode.FileMode
	hash  plumbing.Hash
	size  int64
	mtime int64 // Unix nanoseconds
	ino   uint64
}

// The cache file: a header line, then records, binary: 'T', the tree's
// hash, the directory's length (uvarint) and name; 'F', the mode
// (uvarint), the blob's hash, size and modification time (varints), inode
// (uvarint), the path's length and path.
const cacheHeader = "plangit code cache 2"

func (s *Store) loadCache() *statCache {
	c := &statCache{files: map[string]cached{}, trees: map[string]plumbing.Hash{}}
	b, err := os.ReadFile(filepath.Join(s.dir, cacheFile))
	if err != nil {
		return c
	}
	str := string(b) // one copy: paths are slices of it
	line, rest, ok := strings.Cut(str, "\n")
	head, start, _ := strings.Cut(line, "\t")
	n, err := strconv.ParseInt(start, 10, 64)
	if !ok || head != cacheHeader || err != nil {
		return c
	}
	c.start = n
	// The records are rest, read as bytes from off; bad once one is cut
	// short.
	data := b[len(b)-len(rest):]
	files := map[string]cached{}
	trees := map[string]plumbing.Hash{}
	off := 0
	bad := false
	uvarint := func() uint64 {
		v, k := binary.Uvarint(data[off:])
		if k <= 0 {
			bad = true
			return 0
		}
		off += k
		return v
	}
	varint := func() int64 {
		v, k := binary.Varint(data[off:])
		if k <= 0 {
			bad = true
			return 0
		}
		off += k
		return v
	}
	hash := func() (h plumbing.Hash) {
		if off+len(h) > len(data) {
			bad = true
			return h
		}
		copy(h[:], data[off:])
		off += len(h)
		return h
	}
	name := func() string {
		l := uvarint()
		if bad || l > uint64(len(data)-off) {
			bad = true
			return ""
		}
		base := len(str) - len(rest) + off
		off += int(l)
		return str[base : base+int(l)]
	}
	for off < len(data) && !bad {
		kind := data[off]
		off++
		switch kind {
		case 'T':
			h := hash()
			if dir := name(); !bad {
				trees[dir] = h
			}
		case 'F':
			var e cached
			e.mode = filemode.FileMode(uvarint())
			e.hash = hash()
			e.size, e.mtime, e.ino = varint(), varint(), uvarint()
			if path := name(); !bad {
				files[path] = e
			}
		default:
			bad = true
		}
	}
	if bad {
		return c
	}
	c.files, c.trees = files, trees
	return c
}

// fresh returns the cached blob of a file plangit read before, if its
// stat data is the same and it was not changed within the clock's grain
// of that read.
func (c *statCache) fresh(path string, mode filemode.FileMode, size, mt int64, ino uint64) (plumbing.Hash, bool) {
	e, ok := c.files[path]
	if !ok || e.mode != mode || e.size != size || e.mtime != mt || e.ino != ino || mt >= c.start {
		return plumbing.ZeroHash, false
	}
	return e.hash, true
}

// same says whether next knows what c knows, so that it need not be
// written: its files and trees are c's (the start of c still holds for
// them: each was read, and found fresh or not, against it).
func (c *statCache) same(next *statCache) bool {
	if len(c.files) != len(next.files) || len(c.trees) != len(next.trees) {
		return false
	}
	for p, e := range next.files {
		if c.files[p] != e {
			return false
		}
	}
	for d, h := range next.trees {
		if old, ok := c.trees[d]; !ok || old != h {
			return false
		}
	}
	return true
}

// saveCache writes next, unless it is what the loaded cache old was.
func (s *Store) saveCache(old, next *statCache) error {
	if old.same(next) {
		return nil
	}
	size := 64
	for p := range next.files {
		size += len(p) + 50
	}
	for d := range next.trees {
		size += len(d) + 25
	}
	b := make([]byte, 0, size)
	b = append(b, cacheHeader+"\t"...)
	b = strconv.AppendInt(b, next.start, 10)
	b = append(b, '\n')
	for d, h := range next.trees {
		b = append(b, 'T')
		b = append(b, h[:]...)
		b = binary.AppendUvarint(b, uint64(len(d)))
		b = append(b, d...)
	}
	for p, e := range next.files {
		b = append(b, 'F')
		b = binary.AppendUvarint(b, uint64(e.mode))
		b = append(b, e.hash[:]...)
		b = binary.AppendVarint(b, e.size)
		b = binary.AppendVarint(b, e.mtime)
		b = binary.AppendUvarint(b, e.ino)
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return disk.WriteAtomic(filepath.Join(s.dir, cacheFile), b, 0o644, false)
}
