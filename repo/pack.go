package repo

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/store"
)

// Packing. Loose objects are packed automatically, under the session lock,
// every packEvery revisions, with the store's geometric repacking
// (store.Disk.Pack); `plangit gc` packs everything into one.
const (
	packEvery  = 64 // revisions between automatic packs
	packedName = "packed"
)

// PackReport says what a pack run did.
type PackReport = store.PackReport

// pack packs loose objects, merging packs geometrically, or everything into
// one pack when full. Objects named in keep stay loose (the branch's commit
// and tree, which the next change reads, so that it need not open a pack).
// It runs under the exclusive lock: go-git takes no lock files of its own.
func pack(s *Session, full bool, keep ...plumbing.Hash) (*PackReport, error) {
	rep, err := s.diskStore.Pack(full, keep, func() { crashPoint("pack") })
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "packing session %s", s.ID)
	}
	return rep, nil
}

// maybePack packs when packEvery revisions have passed since the last pack.
// n is the revision just committed, commit and tree its objects, which
// stay loose. A store that is not on disk has nothing to pack.
func maybePack(s *Session, n int, commit, tree plumbing.Hash) error {
	if s.diskStore == nil {
		return nil
	}
	path := filepath.Join(s.gitDir, privateDir, packedName)
	last := 0
	if b, err := os.ReadFile(path); err == nil {
		last, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if n-last < packEvery && n >= last {
		return nil
	}
	if _, err := pack(s, false, commit, tree); err != nil {
		return err
	}
	return s.WritePrivate(packedName, []byte(strconv.Itoa(n)+"\n"))
}

// GC packs every object of the session into one pack and removes what
// killed processes left behind: temporary files, and a pack whose index
// was never written.
func (s *Session) GC(opts Options) (*PackReport, error) {
	unlock, err := s.lk.take(opts.LockWait, nil)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := s.work.settle(); err != nil {
		return nil, err
	}
	s.work.sweepDebris(s.diskStore)
	rep, err := pack(s, true)
	if err != nil {
		return nil, err
	}
	if e, err := s.store.LastEntry(); err == nil && e.N > 0 {
		s.WritePrivate(packedName, []byte(strconv.Itoa(e.N)+"\n"))
	}
	return rep, nil
}
