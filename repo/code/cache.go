package code

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/plangit/plangit/repo/disk"
)

// statCache is what the store's last snapshot knew of each file: its
// mode and blob, and, for a file plangit read, the stat data it was read
// with; and each directory's tree. Every blob and tree it names is in the
// store. A file whose modification time is not before the snapshot began
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
	mtime int64 // Unix nanoseconds; 0 when the blob was the index's
	ino   uint64
}

const cacheHeader = "plangit code cache 1"

func (s *Store) loadCache() *statCache {
	c := &statCache{files: map[string]cached{}, trees: map[string]plumbing.Hash{}}
	b, err := os.ReadFile(filepath.Join(s.dir, cacheFile))
	if err != nil {
		return c
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		return c
	}
	head, start, ok := strings.Cut(sc.Text(), "\t")
	if n, err := strconv.ParseInt(start, 10, 64); !ok || head != cacheHeader || err != nil {
		return c
	} else {
		c.start = n
	}
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		switch {
		case len(f) == 3 && f[0] == "T" && plumbing.IsHash(f[1]):
			c.trees[f[2]] = plumbing.NewHash(f[1])
		case len(f) == 7 && f[0] == "F" && plumbing.IsHash(f[2]):
			mode, err1 := strconv.ParseUint(f[1], 8, 32)
			size, err2 := strconv.ParseInt(f[3], 10, 64)
			mtime, err3 := strconv.ParseInt(f[4], 10, 64)
			ino, err4 := strconv.ParseUint(f[5], 10, 64)
			if err1 == nil && err2 == nil && err3 == nil && err4 == nil {
				c.files[f[6]] = cached{mode: filemode.FileMode(mode), hash: plumbing.NewHash(f[2]), size: size, mtime: mtime, ino: ino}
			}
		}
	}
	return c
}

// fresh returns the cached blob of a file plangit read before, if its
// stat data is the same and it was not changed within the clock's grain
// of that read.
func (c *statCache) fresh(path string, mode filemode.FileMode, fi os.FileInfo) (plumbing.Hash, bool) {
	e, ok := c.files[path]
	mt := fi.ModTime().UnixNano()
	if !ok || e.mtime == 0 || e.mode != mode || e.size != fi.Size() || e.mtime != mt || e.ino != inode(fi) || mt >= c.start {
		return plumbing.ZeroHash, false
	}
	return e.hash, true
}

// holds says whether the cache names blob h at path: the store has it.
func (c *statCache) holds(path string, h plumbing.Hash) bool {
	e, ok := c.files[path]
	return ok && e.hash == h
}

func (s *Store) saveCache(c *statCache) error {
	var b bytes.Buffer
	b.WriteString(cacheHeader + "\t" + strconv.FormatInt(c.start, 10) + "\n")
	for dir, h := range c.trees {
		if plainPath(dir) {
			b.WriteString("T\t" + h.String() + "\t" + dir + "\n")
		}
	}
	for path, e := range c.files {
		if plainPath(path) {
			b.WriteString("F\t" + strconv.FormatUint(uint64(e.mode), 8) + "\t" + e.hash.String() + "\t" + strconv.FormatInt(e.size, 10) + "\t" +
				strconv.FormatInt(e.mtime, 10) + "\t" + strconv.FormatUint(e.ino, 10) + "\t" + path + "\n")
		}
	}
	return disk.WriteAtomic(filepath.Join(s.dir, cacheFile), b.Bytes(), 0o644, false)
}

// plainPath says whether a path can be a line of the cache.
func plainPath(p string) bool { return !strings.ContainsAny(p, "\t\n\r") }
