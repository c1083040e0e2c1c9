package share

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/code"
	"github.com/plangit/plangit/repo/store"
)

// A session's code snapshots (package repo/code: a bare repository in
// its .git/code, refs/heads/snapshots reaching every snapshot) travel
// with it under a ref of their own on the remote:
//
//	refs/plangit/code/<id>   on the remote: the code store's head
//
// A push carries it in the same git push as the session's branch, lent
// the code store's objects and the project's own as alternates: git
// sends only what the remote lacks, and a snapshot's files that the
// remote's branches hold already (the project's history, which the
// project's objects know) are never sent. The ref only moves forward:
// when the remote's holds snapshots this machine lacks (another machine
// pushed), they are fetched, joined into the code store (code.Join) and
// the push goes again. A fetch brings the ref when the session names a
// snapshot its code store lacks, into a quarantine as a session's
// revisions come (git's object checks on), with the code store's and
// the project's objects as its alternates, so that git sends only what
// this machine lacks; what it left out because the project holds it is
// then borrowed from the project by hard links (code.Store.Adopt), and
// only then does the pack move in and the head join it.

// CodeRefPrefix names the sessions' code snapshots on a remote.
const CodeRefPrefix = "refs/plangit/code/"

// CodeRef is the ref of a session's code snapshots on a remote.
func CodeRef(id string) string { return CodeRefPrefix + id }

// projectObjects is the project's object directory.
func (r *Remote) projectObjects() string { return filepath.Join(filepath.Dir(r.config), "objects") }

// A snapshot's history is not the project's: no snapshot commit has a
// project commit for a parent. So git, told what the other side holds
// (the remote's refs, on a push; this machine's, on a fetch), would mark
// as held only what those commits' own histories reach, and send again
// every file of a snapshot that the project's branches hold. git marks
// the whole tree of every commit the other side holds as held when the
// repository that sends is shallow, or the one that asks is (git's
// --objects-edge-aggressive). So plangit's repository says it is shallow:
// on a push, at a commit that exists nowhere (notShallow: the remote,
// which holds no such commit, drops it); on a fetch, at a commit of the
// project that the remote holds (projectTip), which git needs the remote
// to hold. Neither changes what is sent but for what is left out; the
// shallow file is in plangit's own repository, removed with it.

// notShallow is the commit a push's repository is shallow at: no object's.
const notShallow = "0000000000000000000000000000000000000001\n"

// projectTip is a commit of the project's that the remote holds as far
// as the project knows (a remote-tracking branch's), zero when none.
func (r *Remote) projectTip() plumbing.Hash {
	common := filepath.Dir(r.config)
	prefix := "refs/remotes/" + r.Name + "/"
	var tips []plumbing.Hash
	filepath.WalkDir(filepath.Join(common, filepath.FromSlash(prefix)), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(path); err == nil && plumbing.IsHash(strings.TrimSpace(string(b))) {
				tips = append(tips, plumbing.NewHash(strings.TrimSpace(string(b))))
			}
		}
		return nil
	})
	for _, h := range repo.PackedRefs(common, prefix) {
		tips = append(tips, h)
	}
	objs := store.NewObjects(common, r.projectObjects(), common)
	defer objs.ClosePacks()
	for _, h := range tips {
		if t, _, err := objs.Stat(h); err == nil && t == plumbing.CommitObject {
			return h
		}
	}
	return plumbing.ZeroHash
}

// codeHead is the head of the session's code store: the zero hash when
// it took no snapshot, or the project is not a git work tree.
func codeHead(s *repo.Session) (plumbing.Hash, error) {
	cs, err := s.Code()
	if errors.Is(err, code.ErrNotGit) {
		return plumbing.ZeroHash, nil
	}
	var h plumbing.Hash
	if err == nil {
		h, err = cs.Head()
	}
	if err != nil {
		return plumbing.ZeroHash, plan.WrapError(plan.CodeIOError, err, "cannot read the code snapshots of session %s", s.ID).With("session", s.ID)
	}
	return h, nil
}

// fetchCode fetches the remote's code snapshots of the session into a
// quarantine, readies the code store for them (Adopt) and moves them in;
// it returns the remote's head, the zero hash when the remote has none.
// The store's head is left alone: the caller joins it, under the
// session lock.
func (r *Remote) fetchCode(s *repo.Session, cs *code.Store) (plumbing.Hash, error) {
	fail := func(err error) error {
		return plan.WrapError(plan.CodeIOError, err, "cannot fetch the code snapshots of session %s from %s", s.ID, r.Name).With("session", s.ID)
	}
	if err := cs.Create(); err != nil {
		return plumbing.ZeroHash, fail(err)
	}
	q, err := newQuarantineOf(s, []string{cs.ObjectsDir(), r.projectObjects()})
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer q.remove()
	if tip := r.projectTip(); !tip.IsZero() {
		if err := os.WriteFile(filepath.Join(q.dir, "shallow"), []byte(tip.String()+"\n"), 0o644); err != nil {
			return plumbing.ZeroHash, fail(err)
		}
	}
	// One pack, never loose objects: it moves in whole, its index last,
	// so no snapshot is ever in the store without its trees.
	spec := "+" + CodeRef(s.ID) + ":" + incomingRef
	args := r.scratchArgs(q.dir, "-c", "fetch.fsckObjects=true", "-c", "transfer.fsckObjects=true", "-c", "fetch.unpackLimit=1",
		"fetch", "--quiet", "--no-tags", "--no-prune", "--no-recurse-submodules", "--refmap=", r.arg, spec)
	if _, err := r.git.run(q.dir, q.env(), args...); err != nil {
		if ge, ok := err.(*gitError); ok {
			if strings.Contains(ge.stderr, "couldn't find remote ref") {
				return plumbing.ZeroHash, nil // the remote holds none of its snapshots
			}
			if m := fsckLine().FindStringSubmatch(ge.stderr); m != nil {
				return plumbing.ZeroHash, r.codeRefused(s, "object "+short(plumbing.NewHash(m[1]))+" fails git's checks ("+strings.TrimSpace(m[2])+")")
			}
		}
		return plumbing.ZeroHash, r.netError(err, "cannot fetch the code snapshots of session %s from %s", s.ID, r.Name).With("session", s.ID)
	}
	tip, err := repo.ReadNamedRef(q.dir, s.ID, incomingRef)
	if err == nil && tip.IsZero() {
		err = errors.New("git fetch left no tip")
	}
	if err != nil {
		return plumbing.ZeroHash, fail(err)
	}
	if err := cs.Adopt(tip, q.objs); err != nil {
		return plumbing.ZeroHash, r.codeRefused(s, err.Error())
	}
	if err := q.installInto(store.NewObjects(cs.Dir(), cs.ObjectsDir(), cs.Dir())); err != nil {
		return plumbing.ZeroHash, fail(err)
	}
	return tip, nil
}

// codeRefused says the remote's code snapshots of a session are refused.
func (r *Remote) codeRefused(s *repo.Session, why string) error {
	return plan.Errorf(plan.CodeInvalidArgument, "the code snapshots of session %s on %s are refused: %s; nothing of them is kept here", s.ID, r.Name, why).
		With("session", s.ID).With("remote", r.Name)
}

// joinCode fetches the remote's code snapshots of the session and joins
// them into its code store, under the session lock; it returns the
// store's head.
func (r *Remote) joinCode(s *repo.Session, o SyncOptions) (plumbing.Hash, error) {
	cs, err := s.Code()
	if err != nil {
		return plumbing.ZeroHash, plan.WrapError(plan.CodeIOError, err, "cannot open the code snapshots of session %s", s.ID).With("session", s.ID)
	}
	tip, err := r.fetchCode(s, cs)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var head plumbing.Hash
	err = s.Locked(o.LockWait, func() error {
		cs, err := s.Code() // anew: it lists the pack that moved in
		if err == nil && !tip.IsZero() {
			err = cs.Join(tip, o.Time())
		}
		if err == nil {
			head, err = cs.Head()
		}
		return err
	})
	if err != nil {
		return plumbing.ZeroHash, plan.WrapError(plan.CodeOf(err), err, "cannot join the code snapshots of session %s from %s", s.ID, r.Name).With("session", s.ID)
	}
	return head, nil
}

// fetchSnapshots brings the remote's code snapshots of a session a fetch
// landed, when it names one the code store lacks.
func (r *Remote) fetchSnapshots(s *repo.Session, o SyncOptions, res *SyncResult) {
	cs, err := s.Code()
	if errors.Is(err, code.ErrNotGit) {
		return
	}
	if err == nil && !lacksSnapshots(s, cs) {
		if h, err := cs.Head(); err == nil && !h.IsZero() {
			res.Snapshots = h.String()
		}
		return
	}
	var head plumbing.Hash
	if err == nil {
		head, err = r.joinCode(s, o)
	}
	if err != nil {
		if res.err == nil {
			res.fail(err)
		} else { // a merge's conflicts stay the error
			res.Message += "; and " + err.Error()
		}
		return
	}
	if !head.IsZero() {
		res.Snapshots = head.String()
	}
}

// lacksSnapshots reports whether a revision of the session names a code
// snapshot its code store lacks, newest first.
func lacksSnapshots(s *repo.Session, cs *code.Store) bool {
	head, err := s.Branch()
	if err != nil || head.IsZero() {
		return false
	}
	entries, err := s.RevisionLog(head)
	if err != nil {
		return true
	}
	seen := map[string]bool{}
	for i := len(entries) - 1; i >= 0; i-- {
		c := entries[i].Code
		if c == "" || seen[c] || !plumbing.IsHash(c) {
			continue
		}
		seen[c] = true
		if !cs.Has(plumbing.NewHash(c)) {
			return true
		}
	}
	return false
}
