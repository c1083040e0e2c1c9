package store

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"
	gitsync "github.com/go-git/go-git/v5/utils/sync"

	"github.com/plangit/plangit/repo/disk"
)

// Packing. Loose objects are packed, under the session lock, with
// geometric repacking: the new objects go into a pack together with every
// existing pack smaller than twice what has been gathered so far. Pack
// sizes so grow geometrically: a repository keeps a handful of packs, each
// object is repacked O(log n) times, and a commit never waits on a full
// repack. A full pack puts everything into one.
//
// A pack is written to a temporary file, parsed back into its index (which
// recomputes every object's hash from the pack's bytes), and checked to
// hold every object it was meant to, before it is renamed into place and
// before any loose object or old pack is removed. A failure at any point
// leaves every object where it was.
const packWindow = 10 // delta search window, as git's default

// pack is one pack file and its index.
type pack struct {
	base  string // path without .pack/.idx
	idx   *idxfile.MemoryIndex
	count int
	file  billy.File
	pf    *packfile.Packfile
}

// packSet is a repository's packs, listed on first need.
type packSet struct {
	dir    string // objects/pack
	listed bool
	packs  []*pack
}

// list (re)reads the pack directory and the indexes of the packs in it.
func (ps *packSet) list() error {
	ps.close()
	ps.listed = true
	names, err := filepath.Glob(filepath.Join(ps.dir, "pack-*.idx"))
	if err != nil {
		return err
	}
	for _, name := range names {
		base := strings.TrimSuffix(name, ".idx")
		idx, err := readIdx(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed by a concurrent repack
			}
			return fmt.Errorf("%s: %w", filepath.Base(name), err)
		}
		n, _ := idx.Count()
		ps.packs = append(ps.packs, &pack{base: base, idx: idx, count: int(n)})
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

func (ps *packSet) close() {
	for _, p := range ps.packs {
		if p.file != nil {
			p.file.Close()
		}
	}
	ps.packs, ps.listed = nil, false
}

// find reads an object from the packs; ok is false when no pack has it.
func (ps *packSet) find(h plumbing.Hash) (plumbing.ObjectType, []byte, bool, error) {
	if !ps.listed {
		if err := ps.list(); err != nil {
			return 0, nil, false, err
		}
	}
	for _, p := range ps.packs {
		if ok, _ := p.idx.Contains(h); !ok {
			continue
		}
		// The sizes the entry and its delta bases declare are checked
		// before go-git inflates any of them whole.
		if _, size, err := p.stat(h); err != nil {
			return 0, nil, false, err
		} else if size > MaxObject {
			return 0, nil, false, tooLarge("object "+h.String(), size)
		}
		obj, err := p.pf.Get(h)
		if err != nil {
			return 0, nil, false, err
		}
		r, err := obj.Reader()
		if err != nil {
			return 0, nil, false, err
		}
		data, err := io.ReadAll(r)
		r.Close()
		return obj.Type(), data, true, err
	}
	return 0, nil, false, nil
}

// MaxObject is the largest object plangit reads, loose or packed: room
// beyond a session file's limit (MaxFile) for the objects around them, and
// far below what would exhaust memory. An object is checked against it by
// the size it declares, before it is inflated.
const MaxObject = MaxFile * 4

// maxDeltaChain bounds the deltas an object is built from; git makes
// chains of at most 50.
const maxDeltaChain = 1000

// ErrTooLarge is in the chain of a refusal to read an object over the
// size plangit reads (four times MaxFile), which is checked by the size
// the object declares, before it is inflated.
var ErrTooLarge = errors.New("larger than plangit reads")

func tooLarge(what string, size int64) error {
	return fmt.Errorf("%s of %d bytes is %w (%d bytes)", what, size, ErrTooLarge, MaxObject)
}

// open opens the pack's file and go-git's reader of it.
func (p *pack) open() error {
	if p.pf != nil {
		return nil
	}
	fsys := osfs.New(filepath.Dir(p.base))
	f, err := fsys.Open(filepath.Base(p.base) + ".pack")
	if err != nil {
		return err
	}
	p.file, p.pf = f, packfile.NewPackfile(p.idx, nil, f, 0)
	return nil
}

// stat returns the type and size of the pack's object h as its entry
// declares them: for a delta, the size of the object the delta makes and
// the type at the end of its chain. The deltas and bases the object is
// made of, which reading it inflates whole, are refused over MaxObject.
// It reads entries' headers and the first bytes of deltas.
func (p *pack) stat(h plumbing.Hash) (plumbing.ObjectType, int64, error) {
	if err := p.open(); err != nil {
		return 0, 0, err
	}
	off, err := p.idx.FindOffset(h)
	if err != nil {
		return 0, 0, err
	}
	size := int64(-1)
	for n := 0; ; n++ {
		e, err := readPackEntry(p.file, off)
		if err != nil {
			return 0, 0, fmt.Errorf("object %s: %w", h, err)
		}
		if size < 0 {
			size = e.size
			if e.delta() {
				size = e.result
			}
		} else if !e.delta() && e.size > MaxObject {
			return 0, 0, tooLarge("the base of object "+h.String(), e.size)
		} else if e.delta() && e.result > MaxObject {
			return 0, 0, tooLarge("a delta object "+h.String()+" is made from", e.result)
		}
		if !e.delta() {
			return e.typ, size, nil
		}
		if e.size > MaxObject {
			return 0, 0, tooLarge("a delta of object "+h.String(), e.size)
		}
		if n == maxDeltaChain {
			return 0, 0, fmt.Errorf("object %s is made of more than %d deltas", h, maxDeltaChain)
		}
		if e.typ == plumbing.OFSDeltaObject {
			off = e.base
			continue
		}
		if off, err = p.idx.FindOffset(e.ref); err != nil {
			return 0, 0, fmt.Errorf("object %s: its delta's base %s is not in the pack", h, e.ref)
		}
	}
}

// packEntry is the header of one entry of a pack.
type packEntry struct {
	typ    plumbing.ObjectType
	size   int64         // the entry's data, inflated: the object, or its delta
	result int64         // a delta's: the size of the object it makes
	base   int64         // an offset delta's: where its base is
	ref    plumbing.Hash // a reference delta's: its base
}

func (e packEntry) delta() bool {
	return e.typ == plumbing.OFSDeltaObject || e.typ == plumbing.REFDeltaObject
}

// readPackEntry reads the header of the pack entry at off and, for a
// delta, the sizes its delta data opens with (git's pack format: a type
// and a size in 7-bit groups; an offset delta's distance back to its base,
// or a reference delta's base hash; then zlib data, which for a delta
// starts with the base's size and the result's). It inflates no more than
// the first bytes of the entry's data.
func readPackEntry(f io.ReaderAt, off int64) (packEntry, error) {
	var e packEntry
	var buf [32]byte
	n, err := f.ReadAt(buf[:], off)
	if n == 0 {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return e, err
	}
	b := buf[:n]
	i := 0
	next := func() (byte, bool) {
		if i >= len(b) {
			return 0, false
		}
		i++
		return b[i-1], true
	}
	c, _ := next()
	e.typ = plumbing.ObjectType(c >> 4 & 7)
	e.size = int64(c & 15)
	for shift := 4; c&0x80 != 0; shift += 7 {
		var ok bool
		if c, ok = next(); !ok || shift > 56 {
			return e, errors.New("malformed pack entry header")
		}
		e.size |= int64(c&0x7f) << shift
	}
	switch e.typ {
	case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
		return e, nil
	case plumbing.OFSDeltaObject:
		c, ok := next()
		dist := int64(c & 0x7f)
		for ok && c&0x80 != 0 {
			if c, ok = next(); ok {
				dist = (dist+1)<<7 | int64(c&0x7f)
			}
		}
		if !ok || dist <= 0 || dist > off {
			return e, errors.New("malformed offset delta")
		}
		e.base = off - dist
	case plumbing.REFDeltaObject:
		if len(b) < i+20 {
			return e, errors.New("malformed reference delta")
		}
		copy(e.ref[:], b[i:i+20])
		i += 20
	default:
		return e, fmt.Errorf("pack entry of unknown type %d", e.typ)
	}
	// The delta's data opens with two sizes of at most 10 bytes each. An
	// object read follows a chain of deltas, so the inflater is go-git's
	// pooled one, not a new one (and its 32 KB window) each entry, and it
	// reads the pack through a small buffer: a few bytes are wanted.
	zr, err := gitsync.GetZlibReader(bufio.NewReaderSize(io.NewSectionReader(f, off+int64(i), 1<<62), 64))
	defer gitsync.PutZlibReader(zr)
	if err != nil {
		return e, fmt.Errorf("malformed delta: %w", err)
	}
	head := make([]byte, min(20, max(e.size, 0)))
	if _, err := io.ReadFull(zr.Reader, head); err != nil {
		return e, fmt.Errorf("malformed delta: %w", err)
	}
	_, rest, ok := deltaSize(head)
	if ok {
		e.result, _, ok = deltaSize(rest)
	}
	if !ok {
		return e, errors.New("malformed delta header")
	}
	return e, nil
}

// deltaSize reads one of a delta's sizes: 7-bit groups, least first.
func deltaSize(b []byte) (size int64, rest []byte, ok bool) {
	for i, shift := 0, 0; i < len(b) && shift <= 56; i, shift = i+1, shift+7 {
		size |= int64(b[i]&0x7f) << shift
		if b[i]&0x80 == 0 {
			return size, b[i+1:], true
		}
	}
	return 0, nil, false
}

// fromPacks reads an object from the packs, listing them again once when
// it is not found: a repack may have replaced the packs this process knew.
func (o *Disk) fromPacks(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	for attempt := 0; attempt < 2; attempt++ {
		if attempt == 1 {
			if err := o.packs.list(); err != nil {
				return 0, nil, err
			}
			// The object may also have been loose all along and is read
			// by the caller; a repack only moves loose objects into packs.
		}
		t, data, ok, err := o.packs.find(h)
		if err != nil {
			return 0, nil, err
		}
		if ok {
			return t, data, nil
		}
	}
	return 0, nil, fmt.Errorf("%w: %s", ErrObjectMissing, h)
}

// LooseObjects lists every loose object.
func (o *Disk) LooseObjects() ([]plumbing.Hash, error) {
	var out []plumbing.Hash
	dirs, err := os.ReadDir(o.dir)
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		files, err := os.ReadDir(filepath.Join(o.dir, d.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if hex := d.Name() + f.Name(); plumbing.IsHash(hex) {
				out = append(out, plumbing.NewHash(hex))
			}
		}
	}
	return out, nil
}

// objectStorer adapts a Disk to the storer go-git's pack encoder reads
// from.
type objectStorer struct{ o *Disk }

var _ storer.EncodedObjectStorer = objectStorer{}

func (s objectStorer) NewEncodedObject() plumbing.EncodedObject { return &plumbing.MemoryObject{} }

func (s objectStorer) SetEncodedObject(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	r, err := obj.Reader()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h, _, err := s.o.Write(obj.Type(), data)
	return h, err
}

func (s objectStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, data, err := s.o.Read(h)
	if errors.Is(err, ErrObjectMissing) {
		return nil, plumbing.ErrObjectNotFound
	}
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && t != typ {
		return nil, plumbing.ErrObjectNotFound
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(typ)
	obj.Write(data)
	return obj, nil
}

func (s objectStorer) IterEncodedObjects(plumbing.ObjectType) (storer.EncodedObjectIter, error) {
	return nil, errors.New("not supported")
}

func (s objectStorer) HasEncodedObject(h plumbing.Hash) error {
	_, err := s.EncodedObject(plumbing.AnyObject, h)
	return err
}

func (s objectStorer) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	obj, err := s.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, err
	}
	return obj.Size(), nil
}

func (s objectStorer) AddAlternate(string) error { return errors.New("not supported") }

// PackReport says what a pack run did.
type PackReport struct {
	Packed      int   `json:"packed"`       // objects written to the new pack
	LooseBefore int   `json:"loose_before"` // loose objects before
	PacksBefore int   `json:"packs_before"`
	PacksAfter  int   `json:"packs_after"`
	BytesBefore int64 `json:"bytes_before"` // of .git
	BytesAfter  int64 `json:"bytes_after"`
}

// Pack packs loose objects, merging packs geometrically, or everything
// into one pack when full. Objects named in keep stay loose (the branch's
// commit and tree, which the next change reads, so that it need not open
// a pack). installed, if set, runs once the new pack is in place, before
// any loose object or old pack is removed. It runs under the exclusive
// lock: go-git takes no lock files of its own, and the loose objects go
// before the packs this process had open are read again.
func (o *Disk) Pack(full bool, keep []plumbing.Hash, installed func()) (*PackReport, error) {
	rep := &PackReport{BytesBefore: disk.DirSize(o.gitDir)}
	all, err := o.LooseObjects()
	if err != nil {
		return nil, err
	}
	loose := slices.DeleteFunc(slices.Clone(all), func(h plumbing.Hash) bool { return slices.Contains(keep, h) })
	o.FixHalfPacks()
	if err := o.packs.list(); err != nil {
		return nil, err
	}
	packs := slices.Clone(o.packs.packs)
	rep.LooseBefore, rep.PacksBefore = len(all), len(packs)
	slices.SortFunc(packs, func(a, b *pack) int { return a.count - b.count })
	var merge []*pack
	gathered := len(loose)
	for _, p := range packs {
		if !full && p.count > 2*gathered {
			break
		}
		merge = append(merge, p)
		gathered += p.count
	}
	if len(loose) == 0 && len(merge) <= 1 {
		rep.PacksAfter, rep.BytesAfter = len(packs), rep.BytesBefore
		return rep, nil // nothing to gain
	}
	newBase, n, err := o.repack(loose, merge)
	if err != nil {
		return nil, err
	}
	if installed != nil {
		installed()
	}
	// Only now that the new pack holds every object can the old copies go.
	o.packs.close()
	for _, p := range merge {
		if p.base == newBase {
			continue
		}
		os.Remove(p.base + ".idx")
		os.Remove(p.base + ".pack")
		// What git writes beside a pack it fetched goes with it.
		os.Remove(p.base + ".rev")
		os.Remove(p.base + ".bitmap")
	}
	for _, h := range loose {
		os.Remove(o.LoosePath(h))
	}
	rep.Packed = n
	rep.PacksAfter = len(packs) - len(merge) + 1
	rep.BytesAfter = disk.DirSize(o.gitDir)
	return rep, nil
}

// FixHalfPacks indexes a pack a killed process installed without its
// index (it is complete once in place) and moves an index without its
// pack into the store's own directory (.git/plangit), where git does not
// count it as garbage. It runs under the session lock.
func (o *Disk) FixHalfPacks() {
	packs, _ := filepath.Glob(filepath.Join(o.packs.dir, "pack-*"))
	for _, p := range packs {
		base, ext := strings.TrimSuffix(p, filepath.Ext(p)), filepath.Ext(p)
		other := map[string]string{".pack": ".idx", ".idx": ".pack"}[ext]
		if other == "" {
			continue
		}
		if _, err := os.Lstat(base + other); err == nil {
			continue
		}
		if ext == ".idx" || o.indexOrphan(p) != nil {
			os.Rename(p, filepath.Join(o.tmp, "damaged-"+filepath.Base(p)))
		}
	}
}

// Has reports whether the store holds h, loose or packed.
func (o *Disk) Has(h plumbing.Hash) bool {
	if _, err := os.Lstat(o.LoosePath(h)); err == nil {
		return true
	}
	if !o.packs.listed {
		if err := o.packs.list(); err != nil {
			return false
		}
	}
	for _, p := range o.packs.packs {
		if ok, _ := p.idx.Contains(h); ok {
			return true
		}
	}
	return false
}

// Drop removes the loose copy of object h.
func (o *Disk) Drop(h plumbing.Hash) { os.Remove(o.LoosePath(h)) }

// ForEach calls fn with every object that can be read, loose and packed,
// once each.
func (o *Disk) ForEach(fn func(h plumbing.Hash, t plumbing.ObjectType, data []byte)) {
	seen := map[plumbing.Hash]bool{}
	if loose, err := o.LooseObjects(); err == nil {
		for _, h := range loose {
			if t, data, err := o.Read(h); err == nil {
				seen[h] = true
				fn(h, t, data)
			}
		}
	}
	if err := o.packs.list(); err != nil {
		return
	}
	for _, p := range o.packs.packs {
		iter, err := p.idx.Entries()
		if err != nil {
			continue
		}
		for {
			e, err := iter.Next()
			if err != nil {
				break
			}
			if seen[e.Hash] {
				continue
			}
			seen[e.Hash] = true
			if t, data, ok, err := o.packs.find(e.Hash); ok && err == nil {
				fn(e.Hash, t, data)
			}
		}
		iter.Close()
	}
}
