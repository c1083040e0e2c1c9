package repo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/plangit/plangit/plan"
)

// Packing. Loose objects are packed automatically, under the session lock,
// every packEvery revisions, with geometric repacking: the new objects go
// into a pack together with every existing pack smaller than twice what has
// been gathered so far. Pack sizes so grow geometrically: a repository keeps
// a handful of packs, each object is repacked O(log n) times, and a commit
// never waits on a full repack. `plangit gc` packs everything into one.
//
// A pack is written to a temporary file, parsed back into its index (which
// recomputes every object's hash from the pack's bytes), and checked to
// hold every object it was meant to, before it is renamed into place and
// before any loose object or old pack is removed. A failure at any point
// leaves every object where it was.
const (
	packEvery  = 64 // revisions between automatic packs
	packWindow = 10 // delta search window, as git's default
	packedName = "packed"
)

// pack is one pack file and its index.
type pack struct {
	base  string // path without .pack/.idx
	idx   *idxfile.MemoryIndex
	count int
	file  io.Closer
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
		if p.pf == nil {
			fsys := osfs.New(filepath.Dir(p.base))
			f, err := fsys.Open(filepath.Base(p.base) + ".pack")
			if err != nil {
				return 0, nil, false, err
			}
			p.file, p.pf = f, packfile.NewPackfile(p.idx, nil, f, 0)
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

// fromPacks reads an object from the packs, listing them again once when
// it is not found: a repack may have replaced the packs this process knew.
func (o *objects) fromPacks(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
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
	return 0, nil, fmt.Errorf("%w: %s", errObjectMissing, h)
}

// looseObjects lists every loose object.
func (o *objects) looseObjects() ([]plumbing.Hash, error) {
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

// storerFor adapts objects to the storer go-git's pack encoder reads from.
type objectStorer struct{ o *objects }

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
	h, _, err := s.o.write(obj.Type(), data)
	return h, err
}

func (s objectStorer) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, data, err := s.o.read(h)
	if errors.Is(err, errObjectMissing) {
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

// pack packs loose objects, merging packs geometrically, or everything into
// one pack when full. Objects named in keep stay loose (the branch's commit
// and tree, which the next change reads, so that it need not open a pack).
// It runs under the exclusive lock.
func (s *Session) pack(full bool, keep ...plumbing.Hash) (*PackReport, error) {
	o := s.objs
	rep := &PackReport{BytesBefore: dirSize(s.gitDir)}
	all, err := o.looseObjects()
	if err != nil {
		return nil, err
	}
	loose := slices.DeleteFunc(slices.Clone(all), func(h plumbing.Hash) bool { return slices.Contains(keep, h) })
	s.fixHalfPacks()
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
		return nil, plan.WrapError(plan.CodeIOError, err, "packing session %s", s.ID)
	}
	crashPoint("pack")
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
		os.Remove(o.loosePath(h))
	}
	rep.Packed = n
	rep.PacksAfter = len(packs) - len(merge) + 1
	rep.BytesAfter = dirSize(s.gitDir)
	return rep, nil
}

// maybePack packs when packEvery revisions have passed since the last pack.
// n is the revision just committed, commit and tree its objects, which
// stay loose.
func (s *Session) maybePack(n int, commit, tree plumbing.Hash) error {
	path := filepath.Join(s.gitDir, privateDir, packedName)
	last := 0
	if b, err := os.ReadFile(path); err == nil {
		last, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if n-last < packEvery && n >= last {
		return nil
	}
	if _, err := s.pack(false, commit, tree); err != nil {
		return err
	}
	return s.WritePrivate(packedName, []byte(strconv.Itoa(n)+"\n"))
}

// GC packs every object of the session into one pack and removes what
// killed processes left behind: temporary files, and a pack whose index
// was never written.
func (s *Session) GC(opts Options) (*PackReport, error) {
	unlock, err := s.lock(opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := s.settle(); err != nil {
		return nil, err
	}
	s.sweepDebris()
	rep, err := s.pack(true)
	if err != nil {
		return nil, err
	}
	if e, err := s.lastRevlogEntry(); err == nil && e.N > 0 {
		s.WritePrivate(packedName, []byte(strconv.Itoa(e.N)+"\n"))
	}
	return rep, nil
}

// dirSize is the total size of the regular files under dir.
func dirSize(dir string) int64 {
	var total int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	return total
}

// forEach calls fn with every object that can be read, loose and packed,
// once each.
func (o *objects) forEach(fn func(h plumbing.Hash, t plumbing.ObjectType, data []byte)) {
	seen := map[plumbing.Hash]bool{}
	if loose, err := o.looseObjects(); err == nil {
		for _, h := range loose {
			if t, data, err := o.read(h); err == nil {
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
