package store

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// Writing packs. Loose objects — at most the few hundred written since the
// last pack — are encoded by go-git's pack encoder, which finds deltas
// among them, and the result is parsed back into its index, which
// recomputes every object's hash from the pack's bytes. Existing packs are
// merged by copying their entries as they are: compressed data and deltas
// untouched, only the offsets of deltas against a base in the same pack
// rewritten for the new layout. Nothing is inflated or deltified again, so
// merging streams in memory bounded by the number of objects, and each
// entry copied is checked against the CRC its pack's index records and
// each pack read against its own checksum.

// packInput is a pack to merge: its file and index.
type packInput struct {
	path string
	idx  *idxfile.MemoryIndex
}

// repack writes one pack holding the loose objects and every object of
// the packs in merge, and returns its path without extension and how many
// objects it holds. The pack is complete and indexed before it becomes
// visible.
func (o *Disk) repack(loose []plumbing.Hash, merge []*pack) (string, int, error) {
	if err := os.MkdirAll(o.packs.dir, 0o755); err != nil {
		return "", 0, err
	}
	var inputs []packInput
	var temps []string
	defer func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}()
	if len(loose) > 0 {
		in, err := o.encodeLoose(loose)
		if in.path != "" {
			temps = append(temps, in.path)
		}
		if err != nil {
			return "", 0, err
		}
		inputs = append(inputs, in)
	}
	for _, p := range merge {
		inputs = append(inputs, packInput{path: p.base + ".pack", idx: p.idx})
	}
	path, idx, sum := inputs[0].path, inputs[0].idx, plumbing.ZeroHash
	if len(inputs) > 1 || len(loose) == 0 {
		var err error
		if path, idx, sum, err = o.mergePacks(inputs); path != "" {
			temps = append(temps, path)
		}
		if err != nil {
			return "", 0, err
		}
	} else {
		sum = idx.PackfileChecksum
	}
	n, _ := idx.Count()
	base, err := o.install(path, idx, sum)
	return base, int(n), err
}

// encodeLoose packs loose objects into a temporary pack with deltas among
// them, and indexes it from its own bytes.
func (o *Disk) encodeLoose(hashes []plumbing.Hash) (packInput, error) {
	tmp, err := os.CreateTemp(o.tmp, tmpPrefix+"pack-")
	if err != nil {
		return packInput{}, err
	}
	in := packInput{path: tmp.Name()}
	defer tmp.Close()
	bw := bufio.NewWriterSize(tmp, 64<<10)
	if _, err := packfile.NewEncoder(bw, objectStorer{o}, false).Encode(hashes, packWindow); err != nil {
		return in, fmt.Errorf("encoding the pack: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return in, err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return in, err
	}
	w := new(idxfile.Writer)
	parser, err := packfile.NewParser(packfile.NewScanner(tmp), w)
	if err != nil {
		return in, err
	}
	if _, err := parser.Parse(); err != nil {
		return in, fmt.Errorf("reading the new pack back: %w", err)
	}
	if in.idx, err = w.Index(); err != nil {
		return in, err
	}
	for _, h := range hashes {
		if ok, err := in.idx.Contains(h); err != nil || !ok {
			return in, fmt.Errorf("the new pack lacks object %s; nothing was removed", h)
		}
	}
	return in, nil
}

// install moves a finished pack and its index into objects/pack: the pack
// first, then the index, since git and plangit see a pack only once its
// index exists.
func (o *Disk) install(packPath string, idx *idxfile.MemoryIndex, sum plumbing.Hash) (string, error) {
	idxTmp, err := os.CreateTemp(o.tmp, tmpPrefix+"idx-")
	if err != nil {
		return "", err
	}
	_, err = idxfile.NewEncoder(idxTmp).Encode(idx)
	if cerr := idxTmp.Close(); err == nil {
		err = cerr
	}
	for _, f := range []string{packPath, idxTmp.Name()} {
		if err == nil {
			err = os.Chmod(f, 0o444)
		}
	}
	base := filepath.Join(o.packs.dir, "pack-"+sum.String())
	if err == nil {
		err = os.Rename(packPath, base+".pack")
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

// Pack entry types (git's pack format).
const (
	objOfsDelta = 6
	objRefDelta = 7
)

// errDamagedPack is wrapped by every error about a pack's bytes.
var errDamagedPack = errors.New("damaged pack")

// merger writes a merged pack.
type merger struct {
	w      io.Writer
	pos    int64                   // offset of the next entry
	newOff map[plumbing.Hash]int64 // where each object went
	index  *idxfile.Writer
	refs   []plumbing.Hash // bases of REF_DELTA entries, which must be in the pack
	entry  []byte
}

// mergePacks writes every object of the inputs, once, into a new temporary
// pack, and returns it with its index and checksum.
func (o *Disk) mergePacks(inputs []packInput) (string, *idxfile.MemoryIndex, plumbing.Hash, error) {
	unique := map[plumbing.Hash]struct{}{}
	for _, in := range inputs {
		iter, err := in.idx.Entries()
		if err != nil {
			return "", nil, plumbing.ZeroHash, err
		}
		for {
			e, err := iter.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return "", nil, plumbing.ZeroHash, err
			}
			unique[e.Hash] = struct{}{}
		}
		iter.Close()
	}
	out, err := os.CreateTemp(o.tmp, tmpPrefix+"pack-")
	if err != nil {
		return "", nil, plumbing.ZeroHash, err
	}
	defer out.Close()
	bw := bufio.NewWriterSize(out, 256<<10)
	sum := sha1.New()
	m := &merger{w: io.MultiWriter(bw, sum), pos: 12, newOff: make(map[plumbing.Hash]int64, len(unique)), index: new(idxfile.Writer)}
	header := []byte{'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(header[8:], uint32(len(unique)))
	if _, err := m.w.Write(header); err != nil {
		return out.Name(), nil, plumbing.ZeroHash, err
	}
	m.index.OnHeader(uint32(len(unique)))
	for _, in := range inputs {
		if err := m.copyPack(in); err != nil {
			return out.Name(), nil, plumbing.ZeroHash, fmt.Errorf("%s: %w", filepath.Base(in.path), err)
		}
	}
	if len(m.newOff) != len(unique) {
		return out.Name(), nil, plumbing.ZeroHash, fmt.Errorf("%w: the merged pack holds %d objects, not %d", errDamagedPack, len(m.newOff), len(unique))
	}
	for _, h := range m.refs {
		if _, ok := m.newOff[h]; !ok {
			return out.Name(), nil, plumbing.ZeroHash, fmt.Errorf("%w: a delta's base %s is in no pack", errDamagedPack, h)
		}
	}
	var checksum plumbing.Hash
	copy(checksum[:], sum.Sum(nil))
	if _, err := bw.Write(checksum[:]); err != nil {
		return out.Name(), nil, plumbing.ZeroHash, err
	}
	if err := bw.Flush(); err != nil {
		return out.Name(), nil, plumbing.ZeroHash, err
	}
	if err := m.index.OnFooter(checksum); err != nil {
		return out.Name(), nil, plumbing.ZeroHash, err
	}
	idx, err := m.index.Index()
	return out.Name(), idx, checksum, err
}

// copyPack copies one pack's entries, in the order they are stored (a
// delta's base before it), skipping objects already copied.
func (m *merger) copyPack(in packInput) error {
	f, err := os.Open(in.path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	iter, err := in.idx.EntriesByOffset()
	if err != nil {
		return err
	}
	var entries []*idxfile.Entry
	for {
		e, err := iter.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		entries = append(entries, e)
	}
	iter.Close()
	byOffset := make(map[int64]plumbing.Hash, len(entries))
	for _, e := range entries {
		byOffset[int64(e.Offset)] = e.Hash
	}

	sum := sha1.New()
	r := bufio.NewReaderSize(f, 256<<10)
	tr := io.TeeReader(r, sum)
	header := make([]byte, 12)
	if _, err := io.ReadFull(tr, header); err != nil {
		return err
	}
	if !bytes.Equal(header[:4], []byte("PACK")) || int(binary.BigEndian.Uint32(header[8:])) != len(entries) {
		return fmt.Errorf("%w: its header does not match its index", errDamagedPack)
	}
	var buf []byte
	cur := int64(12)
	for i, e := range entries {
		end := fi.Size() - 20
		if i+1 < len(entries) {
			end = int64(entries[i+1].Offset)
		}
		if int64(e.Offset) != cur || end <= cur {
			return fmt.Errorf("%w: its entries are not where its index says", errDamagedPack)
		}
		n := int(end - cur)
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(tr, buf); err != nil {
			return fmt.Errorf("%w: %v", errDamagedPack, err)
		}
		if crc32.ChecksumIEEE(buf) != e.CRC32 {
			return fmt.Errorf("%w: object %s fails its CRC", errDamagedPack, e.Hash)
		}
		if err := m.copyEntry(e, buf, byOffset); err != nil {
			return err
		}
		cur = end
	}
	trailer := make([]byte, 20)
	if _, err := io.ReadFull(r, trailer); err != nil {
		return fmt.Errorf("%w: %v", errDamagedPack, err)
	}
	if !bytes.Equal(trailer, sum.Sum(nil)) {
		return fmt.Errorf("%w: its checksum does not match its content", errDamagedPack)
	}
	return nil
}

// copyEntry writes one entry, raw, at the merged pack's current offset.
func (m *merger) copyEntry(e *idxfile.Entry, raw []byte, byOffset map[int64]plumbing.Hash) error {
	if _, dup := m.newOff[e.Hash]; dup {
		return nil
	}
	typ := (raw[0] >> 4) & 7
	hdr := 1
	for raw[hdr-1]&0x80 != 0 {
		if hdr == len(raw) {
			return fmt.Errorf("%w: object %s has a bad header", errDamagedPack, e.Hash)
		}
		hdr++
	}
	entry := raw
	switch typ {
	case objOfsDelta:
		dist, n, ok := readOfs(raw[hdr:])
		if !ok || dist <= 0 || dist > int64(e.Offset) {
			return fmt.Errorf("%w: object %s has a bad delta offset", errDamagedPack, e.Hash)
		}
		base, ok := byOffset[int64(e.Offset)-dist]
		if !ok {
			return fmt.Errorf("%w: object %s's delta base is not an entry", errDamagedPack, e.Hash)
		}
		at, ok := m.newOff[base]
		if !ok {
			return fmt.Errorf("%w: object %s's delta base %s comes after it", errDamagedPack, e.Hash, base)
		}
		m.entry = append(append(append(m.entry[:0], raw[:hdr]...), writeOfs(m.pos-at)...), raw[hdr+n:]...)
		entry = m.entry
	case objRefDelta:
		if len(raw) < hdr+20 {
			return fmt.Errorf("%w: object %s has a bad delta base", errDamagedPack, e.Hash)
		}
		var base plumbing.Hash
		copy(base[:], raw[hdr:hdr+20])
		m.refs = append(m.refs, base)
	}
	if _, err := m.w.Write(entry); err != nil {
		return err
	}
	m.newOff[e.Hash] = m.pos
	m.index.Add(e.Hash, uint64(m.pos), crc32.ChecksumIEEE(entry))
	m.pos += int64(len(entry))
	return nil
}

// readOfs reads an OFS_DELTA's distance back to its base, as git writes it.
func readOfs(b []byte) (dist int64, n int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	c := b[0]
	dist = int64(c & 0x7f)
	n = 1
	for c&0x80 != 0 {
		if n == len(b) || n > 9 {
			return 0, 0, false
		}
		c = b[n]
		n++
		dist = ((dist + 1) << 7) | int64(c&0x7f)
	}
	return dist, n, true
}

// writeOfs encodes an OFS_DELTA's distance.
func writeOfs(dist int64) []byte {
	var buf [10]byte
	i := len(buf) - 1
	buf[i] = byte(dist & 0x7f)
	for dist >>= 7; dist > 0; dist >>= 7 {
		dist--
		i--
		buf[i] = 0x80 | byte(dist&0x7f)
	}
	return buf[i:]
}

// indexOrphan writes the missing index of a pack in place.
func (o *Disk) indexOrphan(packPath string) error {
	f, err := os.Open(packPath)
	if err != nil {
		return err
	}
	defer f.Close()
	w := new(idxfile.Writer)
	parser, err := packfile.NewParser(packfile.NewScanner(f), w)
	if err != nil {
		return err
	}
	if _, err := parser.Parse(); err != nil {
		return err
	}
	idx, err := w.Index()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(o.tmp, tmpPrefix+"idx-")
	if err != nil {
		return err
	}
	_, err = idxfile.NewEncoder(tmp).Encode(idx)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), packPath[:len(packPath)-len(".pack")]+".idx")
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
