package store

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/repo/repotest"
)

// packEntryHeader is a pack entry's type and size, in 7-bit groups.
func packEntryHeader(typ plumbing.ObjectType, size int) []byte {
	b := []byte{byte(typ)<<4 | byte(size&15)}
	for size >>= 4; size > 0; size >>= 7 {
		b[len(b)-1] |= 0x80
		b = append(b, byte(size&0x7f))
	}
	return b
}

func zlibBytes(data []byte) []byte {
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// deltaPack writes a pack of two entries, as git's pack format has them:
// a blob of 4 KB and an offset delta that copies it n times over, and
// indexes it with git. It returns the repository and the hash of the
// object the delta makes.
func deltaPack(t *testing.T, n int) (string, plumbing.Hash) {
	t.Helper()
	repotest.RequireTool(t, "git")
	dir := t.TempDir()
	repotest.Git(t, dir, "init", "-q", "--bare")
	base := bytes.Repeat([]byte("0123456789abcde\n"), 4096/16)
	var delta []byte
	for _, size := range []int{len(base), n * len(base)} {
		delta = binary.AppendUvarint(delta, uint64(size))
	}
	for range n {
		delta = append(delta, 0x80|0x20, 0x10) // copy 0x1000 bytes from offset 0
	}
	var pack bytes.Buffer
	pack.WriteString("PACK")
	binary.Write(&pack, binary.BigEndian, [2]uint32{2, 2})
	baseOff := pack.Len()
	pack.Write(packEntryHeader(plumbing.BlobObject, len(base)))
	pack.Write(zlibBytes(base))
	dist := pack.Len() - baseOff
	ofs := []byte{byte(dist & 0x7f)}
	for dist >>= 7; dist > 0; dist >>= 7 {
		dist--
		ofs = append([]byte{0x80 | byte(dist&0x7f)}, ofs...)
	}
	pack.Write(packEntryHeader(plumbing.OFSDeltaObject, len(delta)))
	pack.Write(ofs)
	pack.Write(zlibBytes(delta))
	sum := sha1.Sum(pack.Bytes())
	pack.Write(sum[:])
	name := filepath.Join(dir, "objects", "pack", fmt.Sprintf("pack-%x.pack", sum))
	if err := os.WriteFile(name, pack.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	repotest.Git(t, dir, "index-pack", name)
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", n*len(base))
	for range n {
		h.Write(base)
	}
	var result plumbing.Hash
	copy(result[:], h.Sum(nil))
	if out := repotest.Git(t, dir, repotest.FsckArgs(dir, "--no-dangling")...); strings.TrimSpace(out) != "" {
		t.Fatalf("git fsck --strict: %s", out)
	}
	return dir, result
}

// TestPackedObjectSizeCheckedFirst: an object read from a pack is checked
// against the size its entry declares — for a delta, the size of the
// object the delta makes — before anything is inflated: a delta of 30 KB
// that makes a 40 MB object is refused having allocated a few kilobytes,
// and its size and type are read without making it. Under the limit it
// reads as before.
func TestPackedObjectSizeCheckedFirst(t *testing.T) {
	dir, big := deltaPack(t, 10<<10) // 40 MB, over MaxObject
	o := NewDisk(dir, dir)
	defer o.packs.close()
	typ, size, err := o.Stat(big)
	if err != nil || typ != plumbing.BlobObject || size != 40<<20 {
		t.Fatalf("stat: %v %d %v", typ, size, err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, data, err := o.Read(big)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) || data != nil {
		t.Fatalf("read of a 40 MB delta: %d bytes, %v", len(data), err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("refusing a 40 MB delta allocated %d bytes", n)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("object %s of %d bytes is larger than plangit reads (%d bytes)", big, 40<<20, MaxObject)) {
		t.Errorf("the refusal says %q", err)
	}

	dir, small := deltaPack(t, 4) // 16 KB
	o = NewDisk(dir, dir)
	defer o.packs.close()
	if typ, data, err := o.Read(small); err != nil || typ != plumbing.BlobObject || len(data) != 16<<10 {
		t.Fatalf("read of a 16 KB delta: %v %d %v", typ, len(data), err)
	}
}
