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
	// untracked are the files the walk found, to be read.
	untracked []found
}

// found is an untracked file the walk found.
type found struct {
	path string
	mode filemode.FileMode
	fi   os.FileInfo
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
	// A repository that shows no untracked files (status.showUntrackedFiles
	// no: a home directory's, say) gets none in its snapshots either.
	untracked := !strings.EqualFold(conf["status.showuntrackedfiles"], "no")
	if err := c.index(untracked, conf); err != nil {
		return nil, err
	}
	for _, u := range c.untracked {
		if err := c.read(u.path, u.mode, u.fi); err != nil {
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
// differ from the work tree; and, when untracked, the walk for the
// untracked files, in parallel with the stat of the index's files.
func (c *capture) index(untracked bool, conf map[string]string) error {
	idxPath := filepath.Join(c.s.proj.gitDir, "index")
	fi, err := os.Stat(idxPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.alloc(0)
		if untracked {
			return c.walk(c.s.proj.top, nil, baseIgnores(c.s.proj, conf).in(c.s.proj.top, nil))
		}
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
	// The index's paths and their directories, for the walk.
	lastDir := ""
	for i := range entries {
		name := entries[i].name
		c.tracked[name] = true
		if slash := strings.LastIndexByte(name, '/'); slash > 0 && name[:slash] != lastDir {
			lastDir = name[:slash]
			for d := lastDir; d != "." && !c.dirs[d]; d = path.Dir(d) {
				c.dirs[d] = true
			}
		}
	}
	var walkErr error
	var wg sync.WaitGroup
	if untracked {
		wg.Add(1)
		go func() {
			defer wg.Done()
			walkErr = c.walk(c.s.proj.top, nil, baseIgnores(c.s.proj, conf).in(c.s.proj.top, nil))
		}()
	}
	// Each entry's file, stated in parallel: what the loop below needs of
	// it (a clean file's stat data is not kept).
	type stated struct {
		err   error
		fi    os.FileInfo // nil when clean
		mode  filemode.FileMode
		ok    bool // a file git tracks (not a socket, a device)
		dir   bool
		clean bool
	}
	stats := make([]stated, len(entries))
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
				st := &stats[i]
				fi, err := os.Lstat(filepath.Join(c.s.proj.top, filepath.FromSlash(e.name)))
				if err != nil {
					st.err = err
					continue
				}
				st.dir = fi.IsDir()
				st.mode, st.ok = c.mode(fi, e.mode)
				st.clean = !st.dir && st.ok && c.clean(e, fi, st.mode, idxTime)
				if !st.clean {
					st.fi = fi
				}
			}
		}()
	}
	wg.Wait()
	if walkErr != nil {
		return walkErr
	}
	for i := range entries {
		e := &entries[i]
		if i > 0 && entries[i-1].name == e.name {
			continue // a path in conflict: its stages after the first
		}
		st := &stats[i]
		switch {
		case e.skipWorktree || e.mode == filemode.Submodule || e.mode == filemode.Dir:
			if err := c.borrowed(strings.TrimSuffix(e.name, "/"), e.mode, e.hash, ""); err != nil {
				return err
			}
			continue
		case st.err != nil && errors.Is(st.err, fs.ErrNotExist):
			continue // deleted
		case st.err != nil:
			return fmt.Errorf("cannot read %s: %w", e.name, st.err)
		case st.dir:
			continue // a file made a directory: its files are untracked (walk)
		case !st.ok:
			continue
		case st.clean:
			if err := c.borrowed(e.name, st.mode, e.hash, e.name); err != nil {
				return err
			}
			continue
		}
		if err := c.read(e.name, st.mode, st.fi); err != nil {
			return err
		}
	}
	return nil
}

// alloc makes the capture's maps for an index of n entries.
func (c *capture) alloc(n int) {
	c.files = make([]snapFile, 0, n+16)
	c.next.files = make(map[string]cached, len(c.cache.files)+16)
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
// is read from the work tree instead, when there is one (work, the file's
// path; "" for none).
func (c *capture) borrowed(name string, mode filemode.FileMode, h plumbing.Hash, work string) error {
	if mode == filemode.Submodule || c.s.has(h) {
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
	var fi os.FileInfo
	if work != "" {
		fi, err = os.Lstat(filepath.Join(c.s.proj.top, filepath.FromSlash(work)))
	}
	if work == "" || err != nil {
		return fmt.Errorf("the project's index names %s (%s), which its object database lacks", name, short(h))
	}
	return c.read(name, mode, fi)
}

// keep puts a file in the snapshot and, for a file plangit read (fi its
// stat data), in the next cache.
func (c *capture) keep(name string, mode filemode.FileMode, h plumbing.Hash, fi os.FileInfo) {
	c.files = append(c.files, snapFile{name, File{Mode: mode, Hash: h}})
	if fi != nil {
		c.next.files[name] = cached{mode: mode, hash: h, size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: inode(fi)}
	}
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

// walk finds the untracked files git's ignore rules do not exclude (doc
// case 2), for Capture to read. It reads c.tracked and c.dirs, and
// writes only c.untracked.
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
		if mode, ok := c.mode(fi, filemode.Regular); ok {
			c.untracked = append(c.untracked, found{rel, mode, fi})
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
