package repo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
)

// errObjectMissing is returned when an object is in neither a loose file
// nor a pack.
var errObjectMissing = errors.New("object not found")

// objects reads and writes a repository's object database: loose objects
// through go-git's objfile format, packs through its packfile format
// (pack.go). Objects are written loose and read loose first, then from
// packs.
type objects struct {
	dir   string // .git/objects
	tmp   string // where temporary files are made: .git/plangit
	packs packSet
}

func newObjects(dir, tmp string) *objects {
	return &objects{dir: dir, tmp: tmp, packs: packSet{dir: filepath.Join(dir, "pack")}}
}

func (o *objects) loosePath(h plumbing.Hash) string {
	hex := h.String()
	return filepath.Join(o.dir, hex[:2], hex[2:])
}

// write stores an object unless a loose copy already exists, and reports
// whether it wrote one. It does not look in packs: the commit path never
// opens a pack, and a loose duplicate of a packed object is harmless (the
// next pack absorbs it).
func (o *objects) write(t plumbing.ObjectType, data []byte) (plumbing.Hash, bool, error) {
	h := plumbing.ComputeHash(t, data)
	path := o.loosePath(h)
	if _, err := os.Lstat(path); err == nil {
		return h, false, nil
	}
	enc := encodeObject(t, data)
	for try := 0; ; try++ {
		err := o.place(path, enc)
		if err == nil {
			return h, true, nil
		}
		if try == 20 || !errors.Is(err, os.ErrNotExist) {
			return h, false, err
		}
		// .git/plangit, where the temporary file is made, was removed
		// (a person's rm -rf): make it again and write again.
		os.Mkdir(o.tmp, 0o755)
	}
}

// encodeObject is an object as a loose file holds it: its header
// ("blob 42\0") and content, zlib-compressed (deflateLoose).
func encodeObject(t plumbing.ObjectType, data []byte) []byte {
	header := append(t.Bytes(), ' ')
	header = strconv.AppendInt(header, int64(len(data)), 10)
	return deflateLoose(append(header, 0), data)
}

// place writes an encoded object to a temporary file and renames it to
// path, making path's directory when it is missing.
func (o *objects) place(path string, data []byte) error {
	tmp, err := disk.TempFile(o.tmp, tmpPrefix+"obj-*", data, 0o444, false)
	if err != nil {
		return err
	}
	if err = os.Rename(tmp, path); errors.Is(err, os.ErrNotExist) {
		if _, serr := os.Lstat(tmp); serr == nil {
			if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
				err = os.Rename(tmp, path)
			}
		}
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// read returns an object's type and content.
func (o *objects) read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	f, err := os.Open(o.loosePath(h))
	if err == nil {
		defer f.Close()
		return readLoose(f)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return 0, nil, err
	}
	return o.fromPacks(h)
}

func readLoose(r io.Reader) (plumbing.ObjectType, []byte, error) {
	or, err := objfile.NewReader(r)
	if err != nil {
		return 0, nil, err
	}
	defer or.Close()
	t, size, err := or.Header()
	if err != nil {
		return 0, nil, err
	}
	if size < 0 || size > maxObject {
		return 0, nil, tooLarge("object", size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(or, data); err != nil {
		return 0, nil, err
	}
	return t, data, nil
}

// stat returns an object's type and the size it declares, reading no
// more of it than its header (a pack's delta: the first bytes of the
// delta).
func (o *objects) stat(h plumbing.Hash) (plumbing.ObjectType, int64, error) {
	f, err := os.Open(o.loosePath(h))
	if err == nil {
		defer f.Close()
		or, err := objfile.NewReader(f)
		if err != nil {
			return 0, 0, err
		}
		defer or.Close()
		return or.Header()
	}
	if !errors.Is(err, os.ErrNotExist) {
		return 0, 0, err
	}
	for attempt := 0; attempt < 2; attempt++ {
		if !o.packs.listed || attempt == 1 {
			if err := o.packs.list(); err != nil {
				return 0, 0, err
			}
		}
		for _, p := range o.packs.packs {
			if ok, _ := p.idx.Contains(h); ok {
				return p.stat(h)
			}
		}
	}
	return 0, 0, fmt.Errorf("%w: %s", errObjectMissing, h)
}

// readAs reads an object and checks its type.
func (o *objects) readAs(want plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	t, data, err := o.read(h)
	if err != nil {
		return nil, err
	}
	if t != want {
		return nil, fmt.Errorf("object %s is a %s, not a %s", h, t, want)
	}
	return data, nil
}

// treeEntry is one file of a tree. Session trees are flat.
type treeEntry struct {
	Name string
	Hash plumbing.Hash
}

// encodeTree writes a tree object for regular files, sorted by name as git
// requires.
func encodeTree(entries []treeEntry) []byte {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b treeEntry) int { return strings.Compare(a.Name, b.Name) })
	var b bytes.Buffer
	for _, e := range sorted {
		b.WriteString("100644 ")
		b.WriteString(e.Name)
		b.WriteByte(0)
		b.Write(e.Hash[:])
	}
	return b.Bytes()
}

// decodeTree reads a tree object. Entries that are not regular files
// (directories, symlinks, submodules) are ignored: a session holds none.
func decodeTree(data []byte) ([]treeEntry, error) {
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+1+20 {
			return nil, errors.New("malformed tree object")
		}
		mode := string(data[:sp])
		name := string(data[sp+1 : nul])
		var h plumbing.Hash
		copy(h[:], data[nul+1:nul+21])
		data = data[nul+21:]
		if mode == "100644" || mode == "100755" {
			out = append(out, treeEntry{Name: name, Hash: h})
		}
	}
	return out, nil
}

// Signature is who made a commit, and when.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

func (s Signature) encode() string {
	_, offset := s.When.Zone()
	sign := '+'
	if offset < 0 {
		sign, offset = '-', -offset
	}
	return fmt.Sprintf("%s <%s> %d %c%02d%02d", s.Name, s.Email, s.When.Unix(), sign, offset/3600, offset%3600/60)
}

func decodeSignature(s string) Signature {
	var sig Signature
	open, close := strings.IndexByte(s, '<'), strings.IndexByte(s, '>')
	if open < 0 || close < open {
		return sig
	}
	sig.Name = strings.TrimSpace(s[:open])
	sig.Email = s[open+1 : close]
	fields := strings.Fields(s[close+1:])
	if len(fields) > 0 {
		if sec, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			sig.When = time.Unix(sec, 0).UTC()
		}
	}
	return sig
}

// commitObject is a commit as git stores it.
type commitObject struct {
	Tree      plumbing.Hash
	Parents   []plumbing.Hash
	Author    Signature
	Committer Signature
	Message   string
}

func (c *commitObject) encode() []byte {
	var b strings.Builder
	b.WriteString("tree " + c.Tree.String() + "\n")
	for _, p := range c.Parents {
		b.WriteString("parent " + p.String() + "\n")
	}
	b.WriteString("author " + c.Author.encode() + "\n")
	b.WriteString("committer " + c.Committer.encode() + "\n\n")
	b.WriteString(c.Message)
	return []byte(b.String())
}

func decodeCommit(data []byte) (*commitObject, error) {
	c := &commitObject{}
	header, msg, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		header, msg = data, nil
	}
	c.Message = string(msg)
	for _, line := range strings.Split(string(header), "\n") {
		key, value, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			c.Tree = plumbing.NewHash(value)
		case "parent":
			c.Parents = append(c.Parents, plumbing.NewHash(value))
		case "author":
			c.Author = decodeSignature(value)
		case "committer":
			c.Committer = decodeSignature(value)
		}
	}
	if c.Tree.IsZero() {
		return nil, errors.New("malformed commit object: no tree")
	}
	return c, nil
}

// readCommit reads and decodes a commit.
func (o *objects) readCommit(h plumbing.Hash) (*commitObject, error) {
	data, err := o.readAs(plumbing.CommitObject, h)
	if err != nil {
		return nil, err
	}
	return decodeCommit(data)
}

// readTreeFiles returns the blob hash of each file in a commit's tree.
func (o *objects) readTreeFiles(commit plumbing.Hash) (map[string]plumbing.Hash, error) {
	c, err := o.readCommit(commit)
	if err != nil {
		return nil, err
	}
	data, err := o.readAs(plumbing.TreeObject, c.Tree)
	if err != nil {
		return nil, err
	}
	entries, err := decodeTree(data)
	if err != nil {
		return nil, err
	}
	out := make(map[string]plumbing.Hash, len(entries))
	for _, e := range entries {
		out[e.Name] = e.Hash
	}
	return out, nil
}

// readFilesAt returns the content of every file in a commit's tree.
func (o *objects) readFilesAt(commit plumbing.Hash) (map[string][]byte, error) {
	hashes, err := o.readTreeFiles(commit)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(hashes))
	for name, h := range hashes {
		if _, size, err := o.stat(h); err != nil {
			return nil, err
		} else if size > plan.MaxFile {
			return nil, fmt.Errorf("%s is %d bytes, and plangit reads a session's files up to %d bytes", name, size, plan.MaxFile)
		}
		data, err := o.readAs(plumbing.BlobObject, h)
		if err != nil {
			return nil, err
		}
		out[name] = data
	}
	return out, nil
}
