package code

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/plangit/plangit/repo/disk"
	"github.com/plangit/plangit/repo/store"
)

// Names inside a session's .git.
const (
	StoreDir  = "code"                 // the code store, a bare repository
	HeadRef   = "refs/heads/snapshots" // the newest snapshot, reaching all
	cacheFile = "plangit-cache"        // the stat cache (cache.go)
)

// TrailerLarge names a file a snapshot left out for its size: "SIZE PATH".
const TrailerLarge = "Plangit-Large"

// Store is a session's code store.
type Store struct {
	dir  string // .git/code
	st   *store.Disk
	proj *project // nil when the store is only read
	// packs are the project's pack indexes, read on first need.
	packs  []projectPack
	listed bool
	// own are the store's pack indexes, read on first need (has).
	own       []rawIdx
	ownListed bool
}

type projectPack struct {
	base string // path without .idx/.pack
	idx  rawIdx
}

// Open opens the code store of the session whose .git directory is
// gitDir, for the project in the git work tree holding root; ErrNotGit
// when there is none. It creates nothing until a snapshot is taken.
func Open(gitDir, root string) (*Store, error) {
	p, err := findProject(root)
	if err != nil {
		return nil, err
	}
	s := Read(gitDir)
	s.proj = p
	return s, nil
}

// Read opens the code store of a session to read it, with no project.
func Read(gitDir string) *Store {
	dir := filepath.Join(gitDir, StoreDir)
	return &Store{dir: dir, st: store.NewObjects(dir, filepath.Join(dir, "objects"), dir)}
}

// Dir is the store's directory, a bare git repository.
func (s *Store) Dir() string { return s.dir }

// ObjectsDir is the store's object directory.
func (s *Store) ObjectsDir() string { return filepath.Join(s.dir, "objects") }

// Top is the project's work tree top ("" for a store opened by Read).
func (s *Store) Top() string {
	if s.proj == nil {
		return ""
	}
	return s.proj.top
}

// Exists says whether the store has been made.
func (s *Store) Exists() bool {
	_, err := os.Stat(filepath.Join(s.dir, "HEAD"))
	return err == nil
}

// create makes the store's directory a bare repository.
func (s *Store) create() error {
	if s.Exists() {
		return nil
	}
	for _, d := range []string{"objects/pack", "objects/info", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(s.dir, filepath.FromSlash(d)), 0o755); err != nil {
			return err
		}
	}
	if err := disk.WriteAtomic(filepath.Join(s.dir, "config"), []byte("[core]\n\trepositoryformatversion = 0\n\tbare = true\n"), 0o644, false); err != nil {
		return err
	}
	return disk.WriteAtomic(filepath.Join(s.dir, "HEAD"), []byte("ref: "+HeadRef+"\n"), 0o644, false)
}

// Head is the store's newest snapshot; the zero hash before the first.
func (s *Store) Head() (plumbing.Hash, error) { return s.ref(HeadRef) }

// ref reads a ref of the store, written whole (setRef): a missing one is
// the zero hash.
func (s *Store) ref(name string) (plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(name)))
	if errors.Is(err, os.ErrNotExist) {
		return plumbing.ZeroHash, nil
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	line := strings.TrimSpace(string(b))
	if !plumbing.IsHash(line) {
		return plumbing.ZeroHash, fmt.Errorf("%s in %s is not a hash", name, s.dir)
	}
	return plumbing.NewHash(line), nil
}

// setRef writes a ref whole, by rename, so that a reader never sees it
// half written.
func (s *Store) setRef(name string, h plumbing.Hash) error {
	path := filepath.Join(s.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return disk.WriteAtomic(path, []byte(h.String()+"\n"), 0o644, false)
}

// Has says whether the store holds object h.
func (s *Store) Has(h plumbing.Hash) bool {
	_, _, err := s.st.Stat(h)
	return err == nil
}

// write stores an object unless the store has it.
func (s *Store) write(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	h := objectHash(t, data)
	if s.has(h) {
		return h, nil
	}
	_, _, err := s.st.Write(t, data)
	return h, err
}

// ErrTooLarge is in the chain of a blob over the size asked for.
var ErrTooLarge = errors.New("larger than asked for")

// Blob reads a blob of at most max bytes.
func (s *Store) Blob(h plumbing.Hash, max int64) ([]byte, error) {
	_, size, err := s.st.Stat(h)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", short(h), err)
	}
	if max > 0 && size > max {
		return nil, fmt.Errorf("blob %s of %d bytes is %w (%d)", short(h), size, ErrTooLarge, max)
	}
	return s.st.ReadAs(plumbing.BlobObject, h)
}

// BlobSize is a blob's size.
func (s *Store) BlobSize(h plumbing.Hash) (int64, error) {
	_, size, err := s.st.Stat(h)
	return size, err
}

// File is one file of a snapshot.
type File struct {
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// Large is a file a snapshot left out for its size.
type Large struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// Snapshot is one snapshot: its commit, tree, time and the files it left
// out for their size.
type Snapshot struct {
	Commit plumbing.Hash
	Tree   plumbing.Hash
	Time   time.Time
	Large  []Large
}

// Snapshot reads the snapshot commit h.
func (s *Store) Snapshot(h plumbing.Hash) (*Snapshot, error) {
	c, err := s.st.ReadCommit(h)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", short(h), err)
	}
	return &Snapshot{Commit: h, Tree: c.Tree, Time: c.Committer.When, Large: parseLarge(c.Message)}, nil
}

// Files is the flat listing of a snapshot's tree, by slash path.
func (s *Store) Files(h plumbing.Hash) (map[string]File, error) {
	snap, err := s.Snapshot(h)
	if err != nil {
		return nil, err
	}
	files := map[string]File{}
	return files, s.flatten(snap.Tree, "", files)
}

func (s *Store) flatten(tree plumbing.Hash, prefix string, into map[string]File) error {
	data, err := s.st.ReadAs(plumbing.TreeObject, tree)
	if err != nil {
		return fmt.Errorf("tree %s: %w", short(tree), err)
	}
	for len(data) > 0 {
		sp, nul := bytes.IndexByte(data, ' '), bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			return fmt.Errorf("tree %s is malformed", short(tree))
		}
		m, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return fmt.Errorf("tree %s is malformed", short(tree))
		}
		e := struct {
			Name string
			Mode filemode.FileMode
			Hash plumbing.Hash
		}{Name: string(data[sp+1 : nul]), Mode: filemode.FileMode(m)}
		copy(e.Hash[:], data[nul+1:nul+21])
		data = data[nul+21:]
		p := prefix + e.Name
		if e.Mode == filemode.Dir {
			if err := s.flatten(e.Hash, p+"/", into); err != nil {
				return err
			}
			continue
		}
		into[p] = File{Mode: e.Mode, Hash: e.Hash}
	}
	return nil
}

// Ancestor says whether snapshot a is h or reachable from it.
func (s *Store) Ancestor(a, h plumbing.Hash) bool {
	seen := map[plumbing.Hash]bool{}
	todo := []plumbing.Hash{h}
	for len(todo) > 0 {
		c := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if c == a {
			return true
		}
		if seen[c] || c.IsZero() {
			continue
		}
		seen[c] = true
		co, err := s.st.ReadCommit(c)
		if err != nil {
			continue
		}
		todo = append(todo, co.Parents...)
	}
	return false
}

// Join makes the store's head reach snapshot h too (fetched from another
// machine): the head itself when it reaches h, h when h reaches the head,
// else a commit with both as parents and the head's tree. Under the
// session lock.
func (s *Store) Join(h plumbing.Hash, now time.Time) error {
	if err := s.create(); err != nil {
		return err
	}
	head, err := s.Head()
	if err != nil {
		return err
	}
	switch {
	case head == h || s.Ancestor(h, head):
		return nil
	case head.IsZero() || s.Ancestor(head, h):
		return s.setRef(HeadRef, h)
	}
	snap, err := s.Snapshot(head)
	if err != nil {
		return err
	}
	c, err := s.commit(snap.Tree, []plumbing.Hash{head, h}, "join of snapshots\n", now)
	if err != nil {
		return err
	}
	return s.setRef(HeadRef, c)
}

// commit writes a snapshot commit.
func (s *Store) commit(tree plumbing.Hash, parents []plumbing.Hash, msg string, now time.Time) (plumbing.Hash, error) {
	sig := "plangit <plangit@localhost> " + strconv.FormatInt(now.Unix(), 10) + " " + now.Format("-0700")
	var b bytes.Buffer
	b.WriteString("tree " + tree.String() + "\n")
	for _, p := range parents {
		b.WriteString("parent " + p.String() + "\n")
	}
	b.WriteString("author " + sig + "\ncommitter " + sig + "\n\n" + msg)
	return s.write(plumbing.CommitObject, b.Bytes())
}

func parseLarge(msg string) []Large {
	var out []Large
	for _, line := range strings.Split(msg, "\n") {
		v, ok := strings.CutPrefix(line, TrailerLarge+": ")
		if !ok {
			continue
		}
		size, path, ok := strings.Cut(v, " ")
		n, err := strconv.ParseInt(size, 10, 64)
		if ok && err == nil {
			out = append(out, Large{Path: path, Size: n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func short(h plumbing.Hash) string { return h.String()[:7] }
