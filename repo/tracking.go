package repo

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/store"
)

// Sessions are shared through the project's own git remote, under refs of
// their own that are neither branches nor tags (package share moves
// them). In a session, plangit keeps what this machine last saw of each
// remote, and what it did with them:
//
//	refs/plangit/remote/<remote>/main     the remote's tip as last seen
//	.git/plangit/share.json               where it came from, what it pushed where
//
// Both are read here — a revision name (origin/main), cleanup keeping an
// unpushed session, a hook deciding whether to push — and written by
// package share.
const (
	trackingPrefix = "refs/plangit/remote/"
	trackingBranch = "main"
)

// TrackingName is how plangit names a remote's tip of a session in
// revisions: origin/main.
func TrackingName(remote string) string { return remote + "/" + trackingBranch }

// TrackingRef is the ref a session keeps a remote's tip in.
func TrackingRef(remote string) string { return trackingPrefix + remote + "/" + trackingBranch }

// shareFile, in .git/plangit/, records what this machine did with a
// session and the project's remotes: where it came from, what it pushed
// where, and how the last push went.
const shareFile = "share.json"

// ShareRecord is the content of shareFile.
type ShareRecord struct {
	Origin   *Origin           `json:"origin,omitempty"`
	Pushed   map[string]string `json:"pushed,omitempty"` // remote → the revision this machine last pushed there
	LastPush *PushAttempt      `json:"last_push,omitempty"`
}

// Origin says where a fetched session came from.
type Origin struct {
	Remote string    `json:"remote"`
	URL    string    `json:"url"`
	Time   time.Time `json:"time"`
}

// PushAttempt is how the last push of a session went.
type PushAttempt struct {
	Remote string    `json:"remote"`
	Rev    string    `json:"rev,omitempty"`
	Time   time.Time `json:"time"`
	Error  string    `json:"error,omitempty"` // empty: it worked
	Code   plan.Code `json:"code,omitempty"`
}

// ShareRecord reads what this machine did with the session and the
// project's remotes; a missing or damaged record is an empty one.
func (s *Session) ShareRecord() ShareRecord {
	var st ShareRecord
	if b, err := os.ReadFile(s.PrivatePath(shareFile)); err == nil {
		json.Unmarshal(b, &st) // a damaged record is no record: nothing is lost but a status line
	}
	return st
}

// EditShareRecord changes the record under the session lock, waiting at
// most wait for it (or under the lock this process holds already).
func (s *Session) EditShareRecord(wait time.Duration, fn func(*ShareRecord)) error {
	edit := func() error {
		st := s.ShareRecord()
		fn(&st)
		b, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return plan.WrapError(plan.CodeInternal, err, "cannot encode %s", shareFile)
		}
		return WriteFileAtomic(s.PrivatePath(shareFile), append(b, '\n'), 0o644, false)
	}
	if s.lk.held {
		return edit()
	}
	return s.Locked(wait, edit)
}

// ReadNamedRef reads a ref of the git directory gitDir — a session's, or
// one git fetched into for it — loose or packed; the zero hash when there
// is none. session names whose it is, for the error.
func ReadNamedRef(gitDir, session, name string) (plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(name)))
	if err == nil {
		v := strings.TrimSpace(string(b))
		if !plumbing.IsHash(v) {
			return plumbing.ZeroHash, plan.Errorf(plan.CodeIOError, "%s in session %s is damaged", name, session)
		}
		return plumbing.NewHash(v), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return plumbing.ZeroHash, plan.WrapError(plan.CodeIOError, err, "cannot read %s", name)
	}
	h, _ := PackedRefs(gitDir, name)[name]
	return h, nil
}

// PackedRefs returns the refs of gitDir's packed-refs that start with
// prefix.
func PackedRefs(gitDir, prefix string) map[string]plumbing.Hash {
	out := map[string]plumbing.Hash{}
	packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if h, name, ok := strings.Cut(line, " "); ok && strings.HasPrefix(name, prefix) && plumbing.IsHash(h) {
			out[name] = plumbing.NewHash(h)
		}
	}
	return out
}

// TrackingTip is remote's tip of the session as last seen; the zero hash
// when there is none.
func (s *Session) TrackingTip(remote string) (plumbing.Hash, error) {
	return ReadNamedRef(s.gitDir, s.ID, TrackingRef(remote))
}

// SetTrackingTip records h as remote's tip of the session, through a
// temporary file and a rename.
func (s *Session) SetTrackingTip(remote string, h plumbing.Hash) error {
	name := TrackingRef(remote)
	path := filepath.Join(s.gitDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot write %s", name)
	}
	return WriteFileAtomic(path, []byte(h.String()+"\n"), 0o644, false)
}

// forgetRemoteTips removes the remotes' tips of the session that its
// branch holds (at or behind it): the loose refs plangit writes, and those
// a git gc packed. A tip the branch does not hold stays, so that its
// commits do not become unreachable.
func forgetRemoteTips(s *Session) error {
	head, err := s.readRef()
	if err != nil {
		return err
	}
	gone := map[string]bool{}
	for remote, tip := range s.TrackingTips() {
		if rel, _, err := s.Relate(head, tip); err == nil && (rel == Same || rel == Ahead) {
			ref := TrackingRef(remote)
			gone[ref] = true
			if err := os.Remove(filepath.Join(s.gitDir, filepath.FromSlash(ref))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	path := filepath.Join(s.gitDir, "packed-refs")
	packed, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || len(gone) == 0 {
		return nil
	} else if err != nil {
		return err
	}
	var kept []string
	dropped := false
	for _, line := range strings.SplitAfter(string(packed), "\n") {
		_, name, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		switch {
		case strings.HasPrefix(line, "^") && dropped: // the peeled value of a dropped ref
		case gone[name]:
			dropped = true
		default:
			kept, dropped = append(kept, line), false
		}
	}
	if out := strings.Join(kept, ""); out != string(packed) {
		return WriteFileAtomic(path, []byte(out), 0o644, false)
	}
	return nil
}

// TrackingTips returns every remote's tip of the session as last seen:
// remote name → tip.
func (s *Session) TrackingTips() map[string]plumbing.Hash {
	tips := map[string]plumbing.Hash{}
	for name, h := range PackedRefs(s.gitDir, trackingPrefix) {
		if remote, ok := strings.CutSuffix(strings.TrimPrefix(name, trackingPrefix), "/"+trackingBranch); ok {
			tips[remote] = h
		}
	}
	root := filepath.Join(s.gitDir, filepath.FromSlash(trackingPrefix))
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != trackingBranch {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return nil
		}
		remote := filepath.ToSlash(rel)
		if h, err := ReadNamedRef(s.gitDir, s.ID, TrackingRef(remote)); err == nil && !h.IsZero() {
			tips[remote] = h
		}
		return nil
	})
	return tips
}

// resolveTracking resolves the name of a remote's tip — origin/main, or
// the ref's full name — when the session has that ref.
func resolveTracking(s *Session, name string) (plumbing.Hash, bool, error) {
	ref := strings.TrimPrefix(name, trackingPrefix)
	remote, ok := strings.CutSuffix(ref, "/"+trackingBranch)
	if !ok || remote == "" {
		return plumbing.ZeroHash, false, nil
	}
	h, err := ReadNamedRef(s.gitDir, s.ID, TrackingRef(remote))
	if err != nil || h.IsZero() {
		return plumbing.ZeroHash, false, err
	}
	return h, true, nil
}

// findTrackedCommit finds a commit by a hash prefix among the revisions
// the remotes' tips hold that the session's history does not (inLog). The
// history's own are looked up first, by the caller.
func findTrackedCommit(s *Session, prefix string, inLog map[plumbing.Hash]*revEntry) (plumbing.Hash, error) {
	var found plumbing.Hash
	for _, tip := range s.TrackingTips() {
		missing, _, err := store.Collect(s.store, tip, toKnown(inLog), plumbing.ZeroHash)
		if err != nil {
			continue // a tip whose history cannot be read names nothing
		}
		for h := range missing {
			if strings.HasPrefix(h.String(), prefix) && h != found {
				if !found.IsZero() {
					return plumbing.ZeroHash, plan.Errorf(plan.CodeRevisionNotFound, "revision %q is ambiguous; give more of the hash", prefix).With("rev", prefix)
				}
				found = h
			}
		}
	}
	return found, nil
}

func toKnown(m map[plumbing.Hash]*revEntry) map[plumbing.Hash]int {
	out := make(map[plumbing.Hash]int, len(m))
	for h, e := range m {
		out[h] = e.N
	}
	return out
}

// RevisionsFrom returns the revisions of rev's history, oldest first: a
// remote's tip's (plangit log origin/main) included. Those this machine
// has numbered come in their order, with their @N; a remote's revisions
// not here yet follow, parents first, with N 0.
func (s *Session) RevisionsFrom(rev string) ([]Revision, error) {
	h, err := s.Resolve(rev)
	if err != nil {
		return nil, err
	}
	entries, err := ancestry(s, plumbing.NewHash(h))
	if err != nil {
		return nil, err
	}
	out := make([]Revision, len(entries))
	for i, e := range entries {
		out[i] = e.revision()
	}
	return out, nil
}

// ancestry returns the entries of h's history: those of the session's
// history that are h's ancestors, in the log's order, then those it lacks.
func ancestry(s *Session, h plumbing.Hash) ([]revEntry, error) {
	head, err := s.readRef()
	if err != nil {
		return nil, err
	}
	var entries []revEntry
	if !head.IsZero() {
		if entries, err = revisions(s, head); err != nil {
			return nil, err
		}
	}
	byHash := make(map[plumbing.Hash]int, len(entries))
	for i, e := range entries {
		byHash[e.Hash] = i
	}
	missing, _, err := store.Collect(s.store, h, byHash, plumbing.ZeroHash)
	if err != nil {
		return nil, storeError(err, s.gitDir)
	}
	// The log's entries h reaches, directly or through the missing ones.
	reach := map[plumbing.Hash]bool{}
	var queue []plumbing.Hash
	if _, ok := byHash[h]; ok {
		queue = append(queue, h)
	}
	for _, e := range missing {
		for _, p := range e.Parents {
			if _, ok := byHash[p]; ok {
				queue = append(queue, p)
			}
		}
	}
	for len(queue) > 0 {
		x := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if reach[x] {
			continue
		}
		reach[x] = true
		queue = append(queue, entries[byHash[x]].Parents...)
	}
	var out []revEntry
	for _, e := range entries {
		if reach[e.Hash] {
			out = append(out, e)
		}
	}
	return append(out, fromEntries(store.TopoOrder(h, missing))...), nil
}

// Relation is how a session's head and a remote's tip of it stand.
type Relation int

// Relations.
const (
	Same     Relation = iota
	Ahead             // the tip is an ancestor of the head: the head has more
	Behind            // the head is an ancestor of the tip: the tip has more
	Diverged          // neither: both have revisions the other lacks
)

// Relate tells how head and tip stand, and how many revisions the one
// ahead has that the other lacks.
func (s *Session) Relate(head, tip plumbing.Hash) (Relation, int, error) {
	switch {
	case head == tip:
		return Same, 0, nil
	case head.IsZero():
		return Behind, 0, nil
	case tip.IsZero():
		return Ahead, 0, nil
	}
	entries, err := revisions(s, head)
	if err != nil {
		return 0, 0, err
	}
	inLog := make(map[plumbing.Hash]int, len(entries))
	for i, e := range entries {
		inLog[e.Hash] = i
	}
	if _, ok := inLog[tip]; ok {
		// Everything of the head's history the tip's lacks.
		has := map[plumbing.Hash]bool{}
		for queue := []plumbing.Hash{tip}; len(queue) > 0; {
			x := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			if i, ok := inLog[x]; ok && !has[x] {
				has[x] = true
				queue = append(queue, entries[i].Parents...)
			}
		}
		return Ahead, len(entries) - len(has), nil
	}
	missing, met, err := store.Collect(s.store, tip, inLog, head)
	if err != nil {
		return 0, 0, plan.WrapError(plan.CodeIOError, storeError(err, s.gitDir), "cannot read %s's history in session %s", short(tip), s.ID)
	}
	if met {
		return Behind, len(missing), nil
	}
	return Diverged, 0, nil
}

// Unpushed reports whether the session has revisions no remote is known to
// hold: its head is not a remote's tip as last seen, nor behind one.
func (s *Session) Unpushed() (bool, error) {
	head, err := s.readRef()
	if err != nil || head.IsZero() {
		return false, err
	}
	for _, tip := range s.TrackingTips() {
		if rel, _, err := s.Relate(head, tip); err == nil && (rel == Same || rel == Behind) {
			return false, nil
		}
	}
	return true, nil
}

// unpushed is Unpushed, a session whose state cannot be read counting as
// unpushed: cleanup keeps what it is not sure of.
func unpushed(s *Session) bool {
	u, err := s.Unpushed()
	return u || err != nil
}
