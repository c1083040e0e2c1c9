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

// writePack packs the given objects into a new pack and returns its path
// without extension. The pack is complete, indexed and verified before it
// becomes visible.
func (o *objects) writePack(hashes []plumbing.Hash) (string, error) {
	dir := o.packs.dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, "tmp_pack_")
	if err != nil {
		return "", err
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	checksum, err := packfile.NewEncoder(tmp, objectStorer{o}, false).Encode(hashes, packWindow)
	if err != nil {
		return "", fmt.Errorf("encoding the pack: %w", err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	w := new(idxfile.Writer)
	parser, err := packfile.NewParser(packfile.NewScanner(tmp), w)
	if err != nil {
		return "", err
	}
	if _, err := parser.Parse(); err != nil {
		return "", fmt.Errorf("reading the new pack back: %w", err)
	}
	idx, err := w.Index()
	if err != nil {
		return "", err
	}
	for _, h := range hashes {
		if ok, err := idx.Contains(h); err != nil || !ok {
			return "", fmt.Errorf("the new pack lacks object %s; nothing was removed", h)
		}
	}
	base := filepath.Join(dir, "pack-"+checksum.String())
	idxTmp, err := os.CreateTemp(dir, "tmp_idx_")
	if err != nil {
		return "", err
	}
	_, err = idxfile.NewEncoder(idxTmp).Encode(idx)
	if cerr := idxTmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = tmp.Close()
	}
	for _, f := range []string{tmp.Name(), idxTmp.Name()} {
		if err == nil {
			err = os.Chmod(f, 0o444)
		}
	}
	// The pack first, then its index: git and plangit see a pack only once
	// its index exists.
	if err == nil {
		err = os.Rename(tmp.Name(), base+".pack")
	}
	if err == nil {
		err = os.Rename(idxTmp.Name(), base+".idx")
	}
	if err != nil {
		os.Remove(idxTmp.Name())
		return "", err
	}
	return base, nil
}

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
// one pack when full. It runs under the exclusive lock.
func (s *Session) pack(full bool) (*PackReport, error) {
	o := s.objs
	rep := &PackReport{BytesBefore: dirSize(s.gitDir)}
	loose, err := o.looseObjects()
	if err != nil {
		return nil, err
	}
	if err := o.packs.list(); err != nil {
		return nil, err
	}
	packs := slices.Clone(o.packs.packs)
	rep.LooseBefore, rep.PacksBefore = len(loose), len(packs)
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
	seen := make(map[plumbing.Hash]bool, gathered)
	hashes := make([]plumbing.Hash, 0, gathered)
	for _, h := range loose {
		if !seen[h] {
			seen[h] = true
			hashes = append(hashes, h)
		}
	}
	for _, p := range merge {
		iter, err := p.idx.Entries()
		if err != nil {
			return nil, err
		}
		for {
			e, err := iter.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			if !seen[e.Hash] {
				seen[e.Hash] = true
				hashes = append(hashes, e.Hash)
			}
		}
		iter.Close()
	}
	newBase, err := o.writePack(hashes)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "packing session %s", s.ID)
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
		os.Remove(o.loosePath(h))
	}
	rep.Packed = len(hashes)
	rep.PacksAfter = len(packs) - len(merge) + 1
	rep.BytesAfter = dirSize(s.gitDir)
	return rep, nil
}

// maybePack packs when packEvery revisions have passed since the last pack.
// n is the revision just committed.
func (s *Session) maybePack(n int) error {
	path := filepath.Join(s.gitDir, privateDir, packedName)
	last := 0
	if b, err := os.ReadFile(path); err == nil {
		last, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if n-last < packEvery && n >= last {
		return nil
	}
	if _, err := s.pack(false); err != nil {
		return err
	}
	return WriteFileAtomic(path, []byte(strconv.Itoa(n)+"\n"), 0o644, false)
}

// GC packs every object of the session into one pack.
func (s *Session) GC(opts Options) (*PackReport, error) {
	unlock, err := s.lock(opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer unlock()
	rep, err := s.pack(true)
	if err != nil {
		return nil, err
	}
	if e, err := s.lastRevlogEntry(); err == nil && e.N > 0 {
		WriteFileAtomic(filepath.Join(s.gitDir, privateDir, packedName), []byte(strconv.Itoa(e.N)+"\n"), 0o644, false)
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
