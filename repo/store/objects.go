package store

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

	"github.com/plangit/plangit/repo/disk"
)

// Disk is a repository's store on disk: its object database — loose
// objects through go-git's objfile format, packs through its packfile
// format (pack.go); objects are written loose and read loose first, then
// from packs — its branch (ref.go) and its revision log (revlog.go).
type Disk struct {
	reads
	gitDir string // .git
	dir    string // .git/objects
	tmp    string // where temporary files are made: .git/plangit
	packs  packSet
}

// NewDisk opens the store of the repository whose .git directory is
// gitDir, making its temporary files in tmp (.git/plangit). It reads
// nothing yet.
func NewDisk(gitDir, tmp string) *Disk {
	return NewObjects(gitDir, filepath.Join(gitDir, "objects"), tmp)
}

// NewObjects is NewDisk with the object directory given apart: a
// quarantine's, whose objects are not under gitDir.
func NewObjects(gitDir, objects, tmp string) *Disk {
	d := &Disk{gitDir: gitDir, dir: objects, tmp: tmp, packs: packSet{dir: filepath.Join(objects, "pack")}}
	d.reads = reads{d}
	return d
}

// ObjectsDir is the object directory, .git/objects.
func (o *Disk) ObjectsDir() string { return o.dir }

// PackDir is the directory of the packs, .git/objects/pack.
func (o *Disk) PackDir() string { return o.packs.dir }

// ClosePacks closes the packs this process has open; they are listed
// again on the next read (a fetch moved new ones into place).
func (o *Disk) ClosePacks() { o.packs.close() }

// LoosePath is where the loose copy of object h is, or would be.
func (o *Disk) LoosePath(h plumbing.Hash) string {
	hex := h.String()
	return filepath.Join(o.dir, hex[:2], hex[2:])
}

// Write stores an object unless a loose copy already exists, and reports
// whether it wrote one. It does not look in packs: the commit path never
// opens a pack, and a loose duplicate of a packed object is harmless (the
// next pack absorbs it).
func (o *Disk) Write(t plumbing.ObjectType, data []byte) (plumbing.Hash, bool, error) {
	h := plumbing.ComputeHash(t, data)
	path := o.LoosePath(h)
	if _, err := os.Lstat(path); err == nil {
		return h, false, nil
	}
	enc := EncodeObject(t, data)
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

// EncodeObject is an object as a loose file holds it: its header
// ("blob 42\0") and content, zlib-compressed (deflateLoose).
func EncodeObject(t plumbing.ObjectType, data []byte) []byte {
	header := append(t.Bytes(), ' ')
	header = strconv.AppendInt(header, int64(len(data)), 10)
	return deflateLoose(append(header, 0), data)
}

// place writes an encoded object to a temporary file and renames it to
// path, making path's directory when it is missing.
func (o *Disk) place(path string, data []byte) error {
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

// Read returns an object's type and content.
func (o *Disk) Read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	f, err := os.Open(o.LoosePath(h))
	if err == nil {
		defer f.Close()
		return ReadLoose(f)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return 0, nil, err
	}
	return o.fromPacks(h)
}

// ReadLoose reads a loose object's file: its type and content.
func ReadLoose(r io.Reader) (plumbing.ObjectType, []byte, error) {
	or, err := objfile.NewReader(r)
	if err != nil {
		return 0, nil, err
	}
	defer or.Close()
	t, size, err := or.Header()
	if err != nil {
		return 0, nil, err
	}
	if size < 0 || size > MaxObject {
		return 0, nil, tooLarge("object", size)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(or, data); err != nil {
		return 0, nil, err
	}
	return t, data, nil
}

// Stat returns an object's type and the size it declares, reading no
// more of it than its header (a pack's delta: the first bytes of the
// delta).
func (o *Disk) Stat(h plumbing.Hash) (plumbing.ObjectType, int64, error) {
	f, err := os.Open(o.LoosePath(h))
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
	return 0, 0, fmt.Errorf("%w: %s", ErrObjectMissing, h)
}

// TreeEntry is one file of a tree. Session trees are flat.
type TreeEntry struct {
	Name string
	Hash plumbing.Hash
}

// EncodeTree writes a tree object for regular files, sorted by name as git
// requires.
func EncodeTree(entries []TreeEntry) []byte {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b TreeEntry) int { return strings.Compare(a.Name, b.Name) })
	var b bytes.Buffer
	for _, e := range sorted {
		b.WriteString("100644 ")
		b.WriteString(e.Name)
		b.WriteByte(0)
		b.Write(e.Hash[:])
	}
	return b.Bytes()
}

// DecodeTree reads a tree object. Entries that are not regular files
// (directories, symlinks, submodules) are ignored: a session holds none.
func DecodeTree(data []byte) ([]TreeEntry, error) {
	var out []TreeEntry
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
			out = append(out, TreeEntry{Name: name, Hash: h})
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

// Encode writes the signature as a commit's author and committer lines
// hold it: "Name <email> seconds +hhmm".
func (s Signature) Encode() string {
	_, offset := s.When.Zone()
	sign := '+'
	if offset < 0 {
		sign, offset = '-', -offset
	}
	return fmt.Sprintf("%s <%s> %d %c%02d%02d", s.Name, s.Email, s.When.Unix(), sign, offset/3600, offset%3600/60)
}

// DecodeSignature reads a signature as Encode writes it; what it cannot
// read is left zero.
func DecodeSignature(s string) Signature {
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

// CommitObject is a commit as git stores it.
type CommitObject struct {
	Tree      plumbing.Hash
	Parents   []plumbing.Hash
	Author    Signature
	Committer Signature
	Message   string
}

// Encode writes the commit object's content.
func (c *CommitObject) Encode() []byte {
	var b strings.Builder
	b.WriteString("tree " + c.Tree.String() + "\n")
	for _, p := range c.Parents {
		b.WriteString("parent " + p.String() + "\n")
	}
	b.WriteString("author " + c.Author.Encode() + "\n")
	b.WriteString("committer " + c.Committer.Encode() + "\n\n")
	b.WriteString(c.Message)
	return []byte(b.String())
}

// DecodeCommit reads a commit object's content.
func DecodeCommit(data []byte) (*CommitObject, error) {
	c := &CommitObject{}
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
			c.Author = DecodeSignature(value)
		case "committer":
			c.Committer = DecodeSignature(value)
		}
	}
	if c.Tree.IsZero() {
		return nil, errors.New("malformed commit object: no tree")
	}
	return c, nil
}
