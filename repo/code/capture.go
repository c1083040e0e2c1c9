package code

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// DefaultMaxFile is the size over which a file plangit would have to read
// is left out of a snapshot (doc case 4).
const DefaultMaxFile = 5 << 20

// Options shape one snapshot.
type Options struct {
	MaxFile int64     // 0: DefaultMaxFile
	Now     time.Time // the commit's time; zero: now
	Message string    // the commit's first line
}

// capture is one snapshot under way.
type capture struct {
	s       *Store
	o       Options
	cache   *statCache
	next    *statCache
	files   []snapFile
	large   []Large
	execOK  bool
	tracked map[string]bool // index paths
	dirs    map[string]bool // directories holding an index path
}

// snapFile is one file of the snapshot being taken.
type snapFile struct {
	path string
	File
}

// Capture takes a snapshot of the project's work tree (see the package
// doc) and makes it the store's head; when the work tree is as the head
// recorded it, the head is the snapshot. Under the session lock.
func (s *Store) Capture(o Options) (*Snapshot, error) {
	if s.proj == nil {
		return nil, errors.New("the code store was opened without its project")
	}
	if o.MaxFile <= 0 {
		o.MaxFile = DefaultMaxFile
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if err := s.create(); err != nil {
		return nil, fmt.Errorf("cannot make the code store: %w", err)
	}
	conf := readConf(s.proj.top)
	c := &capture{s: s, o: o, cache: s.loadCache(),
		next:   &statCache{start: time.Now().UnixNano(), trees: map[string]plumbing.Hash{}},
		execOK: execBits && !strings.EqualFold(conf["core.filemode"], "false")}
	if err := c.index(); err != nil {
		return nil, err
	}
	// A repository that shows no untracked files (status.showUntrackedFiles
	// no: a home directory's, say) gets none in its snapshots either.
	if !strings.EqualFold(conf["status.showuntrackedfiles"], "no") {
		if err := c.walk(s.proj.top, nil, baseIgnores(s.proj, conf).in(s.proj.top, nil)); err != nil {
			return nil, err
		}
	}
	tree, err := c.tree()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(c.large, func(a, b Large) int { return strings.Compare(a.Path, b.Path) })
	head, err := s.Head()
	if err != nil {
		return nil, err
	}
	if !head.IsZero() {
		if h, err := s.Snapshot(head); err == nil && h.Tree == tree && slices.Equal(h.Large, c.large) {
			return h, s.saveCache(c.cache, c.next)
		}
	}
	var msg strings.Builder
	msg.WriteString(strings.Join(strings.Fields(o.Message), " ") + "\n")
	if len(c.large) > 0 {
		msg.WriteString("\n")
		for _, l := range c.large {
			msg.WriteString(TrailerLarge + ": " + strconv.FormatInt(l.Size, 10) + " " + l.Path + "\n")
		}
	}
	var parents []plumbing.Hash
	if !head.IsZero() {
		parents = []plumbing.Hash{head}
	}
	commit, err := s.commit(tree, parents, msg.String(), o.Now)
	if err != nil {
		return nil, err
	}
	if err := s.setRef(HeadRef, commit); err != nil {
		return nil, err
	}
	if err := s.saveCache(c.cache, c.next); err != nil {
		return nil, err
	}
	return &Snapshot{Commit: commit, Tree: tree, Time: o.Now, Large: c.large}, nil
}

// index is doc case 1 for every index entry, and case 2 for those that
// differ from the work tree.
func (c *capture) index() error {
	idxPath := filepath.Join(c.s.proj.gitDir, "index")
	fi, err := os.Stat(idxPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.alloc(0)
		return nil // nothing tracked yet
	case err != nil:
		return fmt.Errorf("cannot read the project's index: %w", err)
	}
	b, err := os.ReadFile(idxPath)
	if err != nil {
		return fmt.Errorf("cannot read the project's index: %w", err)
	}
	entries, err := readIndex(b)
	if err != nil {
		return fmt.Errorf("cannot read the project's index (%s): %w", idxPath, err)
	}
	c.alloc(len(entries))
	idxTime := fi.ModTime()
	stats := make([]os.FileInfo, len(entries))
	errs := make([]error, len(entries))
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), 8, len(entries)/256+1)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(entries); i += workers {
				e := &entries[i]
				if e.skipWorktree || e.mode == filemode.Submodule || e.mode == filemode.Dir {
					continue
				}
				stats[i], errs[i] = os.Lstat(filepath.Join(c.s.proj.top, filepath.FromSlash(e.name)))
			}
		}()
	}
	wg.Wait()
	lastDir := ""
	for i := range entries {
		e := &entries[i]
		if c.tracked[e.name] {
			continue // a path in conflict: its stages after the first
		}
		c.tracked[e.name] = true
		if slash := strings.LastIndexByte(e.name, '/'); slash > 0 && e.name[:slash] != lastDir {
			lastDir = e.name[:slash]
			for d := lastDir; d != "." && !c.dirs[d]; d = path.Dir(d) {
				c.dirs[d] = true
			}
		}
		switch {
		case e.skipWorktree || e.mode == filemode.Submodule || e.mode == filemode.Dir:
			if err := c.borrowed(strings.TrimSuffix(e.name, "/"), e.mode, e.hash, nil); err != nil {
				return err
			}
			continue
		case errs[i] != nil && errors.Is(errs[i], fs.ErrNotExist):
			continue // deleted
		case errs[i] != nil:
			return fmt.Errorf("cannot read %s: %w", e.name, errs[i])
		}
		fi := stats[i]
		if fi.IsDir() {
			delete(c.tracked, e.name) // a file made a directory: its files are untracked
			continue
		}
		mode, ok := c.mode(fi, e.mode)
		if !ok {
			continue
		}
		if c.clean(e, fi, mode, idxTime) {
			if err := c.borrowed(e.name, mode, e.hash, fi); err != nil {
				return err
			}
			continue
		}
		if err := c.read(e.name, mode, fi); err != nil {
			return err
		}
	}
	return nil
}

// alloc makes the capture's maps for an index of n entries.
func (c *capture) alloc(n int) {
	c.files = make([]snapFile, 0, n+16)
	c.next.files = make(map[string]cached, n+16)
	c.tracked = make(map[string]bool, n)
	c.dirs = make(map[string]bool, n/8+1)
}

// mode is a work tree file's git mode; false for what git does not track
// (a socket, a device).
func (c *capture) mode(fi os.FileInfo, indexed filemode.FileMode) (filemode.FileMode, bool) {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return filemode.Symlink, true
	case !fi.Mode().IsRegular():
		return 0, false
	case !c.execOK:
		if indexed == filemode.Executable {
			return filemode.Executable, true
		}
		return filemode.Regular, true
	case fi.Mode()&0o111 != 0:
		return filemode.Executable, true
	}
	return filemode.Regular, true
}

// clean says whether a work tree file is its index entry's blob by the
// stat data git keeps, as git decides it: same mode, size, modification
// time and inode, and modified before the index was written (a file
// changed within the index's own clock grain is racily clean: read).
func (c *capture) clean(e *entry, fi os.FileInfo, mode filemode.FileMode, idxTime time.Time) bool {
	if e.intentToAdd || e.stage != 0 || mode != e.mode || int64(e.size) != fi.Size()&0xffffffff {
		return false
	}
	mt := fi.ModTime()
	if uint32(mt.Unix()) != e.mtimeSec || (e.mtimeNsec != 0 && uint32(mt.Nanosecond()) != e.mtimeNsec) {
		return false
	}
	if ino := inode(fi); e.ino != 0 && ino != 0 && uint32(ino) != e.ino {
		return false
	}
	return mt.Before(idxTime)
}

// borrowed records the index's blob for a file (doc cases 1 and 3): the
// store has it, or borrows it from the project; a blob the project lacks
// is read from the work tree instead, when there is one.
func (c *capture) borrowed(name string, mode filemode.FileMode, h plumbing.Hash, fi os.FileInfo) error {
	if mode == filemode.Submodule || c.cache.holds(name, h) || c.s.has(h) {
		c.keep(name, mode, h, nil)
		return nil
	}
	ok, err := c.s.borrow(h)
	if err != nil {
		return fmt.Errorf("cannot take %s's blob from the project: %w", name, err)
	}
	if ok {
		c.keep(name, mode, h, nil)
		return nil
	}
	if fi == nil {
		return fmt.Errorf("the project's index names %s (%s), which its object database lacks", name, short(h))
	}
	return c.read(name, mode, fi)
}

// keep puts a file in the snapshot and in the next cache; fi, for a file
// plangit read, its stat data.
func (c *capture) keep(name string, mode filemode.FileMode, h plumbing.Hash, fi os.FileInfo) {
	c.files = append(c.files, snapFile{name, File{Mode: mode, Hash: h}})
	e := cached{mode: mode, hash: h}
	if fi != nil {
		e.size, e.mtime, e.ino = fi.Size(), fi.ModTime().UnixNano(), inode(fi)
	}
	c.next.files[name] = e
}

// read is doc cases 2 and 4: a file's blob from the cache, or read,
// hashed and written to the store.
func (c *capture) read(name string, mode filemode.FileMode, fi os.FileInfo) error {
	if h, ok := c.cache.fresh(name, mode, fi.Size(), fi.ModTime().UnixNano(), inode(fi)); ok {
		c.keep(name, mode, h, fi)
		return nil
	}
	abs := filepath.Join(c.s.proj.top, filepath.FromSlash(name))
	var data []byte
	var err error
	if mode == filemode.Symlink {
		var target string
		target, err = os.Readlink(abs)
		data = []byte(filepath.ToSlash(target))
	} else {
		if fi.Size() > c.o.MaxFile {
			c.large = append(c.large, Large{Path: name, Size: fi.Size()})
			return nil
		}
		data, err = readAtMost(abs, c.o.MaxFile)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // removed as the snapshot was taken
	case errors.Is(err, ErrTooLarge):
		c.large = append(c.large, Large{Path: name, Size: int64(len(data))})
		return nil
	case err != nil:
		return fmt.Errorf("cannot read %s: %w", name, err)
	}
	h, err := c.s.write(plumbing.BlobObject, data)
	if err != nil {
		return fmt.Errorf("cannot write %s's blob: %w", name, err)
	}
	c.keep(name, mode, h, fi)
	return nil
}

// readAtMost reads a file, refusing one that grew past max meanwhile.
func readAtMost(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		return b, ErrTooLarge
	}
	return b, err
}

// walk finds the untracked files git's ignore rules do not exclude.
func (c *capture) walk(abs string, parts []string, ig *ignores) error {
	ents, err := os.ReadDir(abs)
	if err != nil {
		if len(parts) > 0 && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)) {
			return nil // removed meanwhile, or not ours to read: git skips it too
		}
		return fmt.Errorf("cannot read the directory %s: %w", abs, err)
	}
	for _, de := range ents {
		name := de.Name()
		if name == ".git" {
			continue
		}
		sub := append(parts[:len(parts):len(parts)], name)
		rel := strings.Join(sub, "/")
		childAbs := filepath.Join(abs, name)
		if de.IsDir() {
			if name == ".code-agent" && len(parts) == 0 {
				continue // plangit's own
			}
			if !c.dirs[rel] {
				if ig.ignored(sub, true) {
					continue
				}
				if _, err := os.Lstat(filepath.Join(childAbs, ".git")); err == nil {
					continue // a repository of its own
				}
			} else if ig.ignored(sub, true) {
				continue // its tracked files are the index's; its others are ignored
			}
			if err := c.walk(childAbs, sub, ig.in(childAbs, sub)); err != nil {
				return err
			}
			continue
		}
		if c.tracked[rel] || ig.ignored(sub, false) {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		mode, ok := c.mode(fi, filemode.Regular)
		if !ok {
			continue
		}
		if err := c.read(rel, mode, fi); err != nil {
			return err
		}
	}
	return nil
}

// tree is doc case 5: the tree of c.files, written where the store lacks
// it. Sorted by path, the files are in the order of git's trees (a
// directory sorts as its name and a slash), each directory's files
// together.
func (c *capture) tree() (plumbing.Hash, error) {
	slices.SortFunc(c.files, func(a, b snapFile) int { return strings.Compare(a.key(), b.key()) })
	h, _, err := c.writeTree(0, "")
	return h, err
}

// key is a file's place in the tree's order: a directory (a sparse index
// entry) sorts with a slash after its name.
func (f *snapFile) key() string {
	if f.Mode == filemode.Dir {
		return f.path + "/"
	}
	return f.path
}

// writeTree makes the tree of the files from c.files[i] on that are under
// dir (its path and a slash; "" the top), and returns its hash and the
// index of the first file after them.
func (c *capture) writeTree(i int, dir string) (plumbing.Hash, int, error) {
	var b []byte
	for i < len(c.files) && strings.HasPrefix(c.files[i].path, dir) {
		f := &c.files[i]
		rest := f.path[len(dir):]
		if slash := strings.IndexByte(rest, '/'); slash >= 0 {
			name := rest[:slash]
			h, next, err := c.writeTree(i, dir+name+"/")
			if err != nil {
				return h, next, err
			}
			b = append(b, "40000 "...)
			b = append(b, name...)
			b = append(b, 0)
			b = append(b, h[:]...)
			i = next
			continue
		}
		b = strconv.AppendUint(b, uint64(f.Mode), 8)
		b = append(b, ' ')
		b = append(b, rest...)
		b = append(b, 0)
		b = append(b, f.Hash[:]...)
		i++
	}
	h := objectHash(plumbing.TreeObject, b)
	if c.cache.trees[dir] != h {
		if _, err := c.s.write(plumbing.TreeObject, b); err != nil {
			return h, i, fmt.Errorf("cannot write a tree: %w", err)
		}
	}
	c.next.trees[dir] = h
	return h, i, nil
}
