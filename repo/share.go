package repo

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/store"
)

// shareFile, in .git/plangit/, records what this machine did with a
// session and the project's remotes: where it came from, what it pushed
// where, and how the last push went.
const shareFile = "share.json"

// shareState is the content of shareFile.
type shareState struct {
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

func (s *Session) readShare() shareState {
	var st shareState
	if b, err := os.ReadFile(s.PrivatePath(shareFile)); err == nil {
		json.Unmarshal(b, &st) // a damaged record is no record: nothing is lost but a status line
	}
	return st
}

// Origin is where the session was fetched from; nil for a session made
// on this machine (or whose record is gone).
func (s *Session) Origin() *Origin { return s.readShare().Origin }

// editShare changes the record under the session lock.
func (s *Session) editShare(wait time.Duration, fn func(*shareState)) error {
	edit := func() error {
		st := s.readShare()
		fn(&st)
		b, err := json.MarshalIndent(st, "", "  ")
		if err != nil {
			return plan.WrapError(plan.CodeInternal, err, "cannot encode %s", shareFile)
		}
		return WriteFileAtomic(s.PrivatePath(shareFile), append(b, '\n'), 0o644, false)
	}
	if s.locked {
		return edit()
	}
	return s.Locked(wait, edit)
}

// readNamedRef reads a ref of the session's repository, loose or packed;
// the zero hash when there is none.
func (s *Session) readNamedRef(name string) (plumbing.Hash, error) {
	b, err := os.ReadFile(filepath.Join(s.gitDir, filepath.FromSlash(name)))
	if err == nil {
		v := strings.TrimSpace(string(b))
		if !plumbing.IsHash(v) {
			return plumbing.ZeroHash, plan.Errorf(plan.CodeIOError, "%s in session %s is damaged", name, s.ID)
		}
		return plumbing.NewHash(v), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return plumbing.ZeroHash, plan.WrapError(plan.CodeIOError, err, "cannot read %s", name)
	}
	h, _ := s.packedRefs(name)[name]
	return h, nil
}

// packedRefs returns the refs of packed-refs that start with prefix.
func (s *Session) packedRefs(prefix string) map[string]plumbing.Hash {
	out := map[string]plumbing.Hash{}
	packed, err := os.ReadFile(filepath.Join(s.gitDir, "packed-refs"))
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

// writeNamedRef points a ref of plangit's own namespace at h, through a
// temporary file and a rename.
func (s *Session) writeNamedRef(name string, h plumbing.Hash) error {
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
func (s *Session) forgetRemoteTips() error {
	head, err := s.readRef()
	if err != nil {
		return err
	}
	gone := map[string]bool{}
	for remote, tip := range s.trackingTips() {
		if rel, _, err := s.relate(head, tip); err == nil && (rel == same || rel == ahead) {
			ref := trackingRef(remote)
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

// trackingTips returns every remote's tip of the session as last seen:
// remote name → tip.
func (s *Session) trackingTips() map[string]plumbing.Hash {
	tips := map[string]plumbing.Hash{}
	for name, h := range s.packedRefs(trackingPrefix) {
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
		if h, err := s.readNamedRef(trackingRef(remote)); err == nil && !h.IsZero() {
			tips[remote] = h
		}
		return nil
	})
	return tips
}

// resolveTracking resolves the name of a remote's tip — origin/main, or
// the ref's full name — when the session has that ref.
func (s *Session) resolveTracking(name string) (plumbing.Hash, bool, error) {
	ref := strings.TrimPrefix(name, trackingPrefix)
	remote, ok := strings.CutSuffix(ref, "/"+trackingBranch)
	if !ok || remote == "" {
		return plumbing.ZeroHash, false, nil
	}
	h, err := s.readNamedRef(trackingRef(remote))
	if err != nil || h.IsZero() {
		return plumbing.ZeroHash, false, err
	}
	return h, true, nil
}

// findTrackedCommit finds a commit by a hash prefix among the revisions
// the remotes' tips hold that the session's history does not (inLog). The
// history's own are looked up first, by the caller.
func (s *Session) findTrackedCommit(prefix string, inLog map[plumbing.Hash]*revEntry) (plumbing.Hash, error) {
	var found plumbing.Hash
	for _, tip := range s.trackingTips() {
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
	entries, err := s.ancestry(plumbing.NewHash(h))
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
func (s *Session) ancestry(h plumbing.Hash) ([]revEntry, error) {
	head, err := s.readRef()
	if err != nil {
		return nil, err
	}
	var entries []revEntry
	if !head.IsZero() {
		if entries, err = s.revisions(head); err != nil {
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

// relation is how a session's head and a remote's tip of it stand.
type relation int

const (
	same     relation = iota
	ahead             // the tip is an ancestor of the head: the head has more
	behind            // the head is an ancestor of the tip: the tip has more
	diverged          // neither: both have revisions the other lacks
)

// relate tells how head and tip stand, and how many revisions the one
// ahead has that the other lacks.
func (s *Session) relate(head, tip plumbing.Hash) (relation, int, error) {
	switch {
	case head == tip:
		return same, 0, nil
	case head.IsZero():
		return behind, 0, nil
	case tip.IsZero():
		return ahead, 0, nil
	}
	entries, err := s.revisions(head)
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
		return ahead, len(entries) - len(has), nil
	}
	missing, met, err := store.Collect(s.store, tip, inLog, head)
	if err != nil {
		return 0, 0, plan.WrapError(plan.CodeIOError, storeError(err, s.gitDir), "cannot read %s's history in session %s", short(tip), s.ID)
	}
	if met {
		return behind, len(missing), nil
	}
	return diverged, 0, nil
}

// checkAdoptable makes sure a revision from elsewhere is one plangit can
// make its own: a commit whose tree holds only a session's files, which
// parse.
func (s *Session) checkAdoptable(h plumbing.Hash, from string) (map[string][]byte, error) {
	hashes, err := s.store.ReadTreeFiles(h)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read %s's revision %s of session %s", from, short(h), s.ID).With("session", s.ID)
	}
	for name := range hashes {
		if !slices.Contains(plan.SessionFiles, name) {
			return nil, plan.Errorf(plan.CodeInvalidArgument, "%s's revision %s of session %s holds %q, which is not a plangit session file; it is kept as %s, not adopted", from, short(h), s.ID, name, TrackingName(from)).With("session", s.ID)
		}
	}
	files, err := s.store.ReadFilesAt(h)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read %s's revision %s of session %s", from, short(h), s.ID).With("session", s.ID)
	}
	if _, err := plan.ParseState(files); err != nil {
		return nil, plan.WrapError(plan.CodeOf(err), err, "%s's revision %s of session %s does not parse; it is kept as %s, not adopted", from, short(h), s.ID, TrackingName(from)).With("session", s.ID)
	}
	return files, nil
}

// moveHead makes next the session's revision — a fetched revision adopted
// as it is, or a merge — by the steps a commit takes: an intent record
// naming each working file's blob before and after, then the branch
// (compare-and-set from old), then the working files, the index and the
// revision log. A process killed after the branch moved leaves a state
// the next command completes to exactly next (see intent.go), never a
// hand edit. It runs under the session lock.
func (s *Session) moveHead(next, old plumbing.Hash, files map[string][]byte) error {
	cur, err := s.ReadFiles()
	if err != nil {
		return err
	}
	in := &intent{Commit: next, Files: fileChanges(cur, files)}
	if err := s.writeIntent(in); err != nil {
		return err
	}
	if err := s.setRefIf(next, old, nil); err != nil {
		s.clearIntent()
		return err
	}
	if _, err := s.land(in, files); err != nil {
		s.warnf("revision %s is in place, but its working files could not all be written; the next command finishes: %v", short(next), err)
	}
	_, err = s.revisions(next) // completes the revision log, which it saves: the lock is held
	return err
}

// tipInfo describes a revision for a message: its last change.
func (s *Session) tipInfo(h plumbing.Hash) *Revision {
	if h.IsZero() {
		return nil
	}
	e, err := s.entryFromCommit(h)
	if err != nil {
		return &Revision{Hash: h.String()}
	}
	r := e.revision()
	if head, err := s.readRef(); err == nil && !head.IsZero() {
		if entries, err := s.revisions(head); err == nil { // its number here, if it has one
			for _, x := range entries {
				if x.Hash == h {
					r.N = x.N
				}
			}
		}
	}
	return &r
}

// ShareStatus is what `plangit sessions` says of a session and the
// project's remotes.
type ShareStatus struct {
	Origin   *Origin        `json:"origin,omitempty"`  // where it was fetched from
	Remotes  []RemoteStatus `json:"remotes,omitempty"` // every remote it was pushed to or fetched from
	LastPush *PushAttempt   `json:"last_push,omitempty"`
}

// RemoteStatus is a session on one remote, as last seen.
type RemoteStatus struct {
	Remote   string `json:"remote"`
	Rev      string `json:"rev"`      // the remote's tip as last seen
	State    string `json:"state"`    // in-sync, ahead, differs
	Unpushed int    `json:"unpushed"` // with ahead: revisions the remote lacks
}

// ShareStatus reads how the session stands with the remotes, from what
// this machine last saw of them; nil when it was never shared.
func (s *Session) ShareStatus() (*ShareStatus, error) {
	st := s.readShare()
	tips := s.trackingTips()
	if st.Origin == nil && st.LastPush == nil && len(tips) == 0 {
		return nil, nil
	}
	out := &ShareStatus{Origin: st.Origin, LastPush: st.LastPush}
	head, err := s.readRef()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(tips))
	for n := range tips {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		tip := tips[name]
		rs := RemoteStatus{Remote: name, Rev: tip.String(), State: "differs"}
		if rel, n, err := s.relate(head, tip); err == nil {
			switch rel {
			case same:
				rs.State = "in-sync"
			case ahead:
				rs.State, rs.Unpushed = "ahead", n
			}
		}
		out.Remotes = append(out.Remotes, rs)
	}
	return out, nil
}

// Unpushed reports whether the session has revisions no remote is known to
// hold: its head is not a remote's tip as last seen, nor behind one.
func (s *Session) Unpushed() (bool, error) {
	head, err := s.readRef()
	if err != nil || head.IsZero() {
		return false, err
	}
	for _, tip := range s.trackingTips() {
		if rel, _, err := s.relate(head, tip); err == nil && (rel == same || rel == behind) {
			return false, nil
		}
	}
	return true, nil
}

// Published reports, cheaply, whether the session's head is what a remote
// holds as far as this machine knows: a remote's tip as last seen. A hook
// asks it before starting a push.
func (s *Session) Published() bool {
	head, err := s.readRef()
	if err != nil || head.IsZero() {
		return true // nothing to push
	}
	for _, tip := range s.trackingTips() {
		if tip == head {
			return true
		}
	}
	return false
}

// unpushed is Unpushed, a session whose state cannot be read counting as
// unpushed: cleanup keeps what it is not sure of.
func unpushed(s *Session) bool {
	u, err := s.Unpushed()
	return u || err != nil
}

// NotePushFailure records a push that failed before it reached the session
// (no git, no remote), for plangit sessions to show.
func (s *Session) NotePushFailure(remote string, err error, o SyncOptions) error {
	head, _ := s.readRef()
	return s.editShare(o.LockWait, func(st *shareState) {
		st.LastPush = &PushAttempt{Remote: remote, Time: o.Time(), Error: err.Error(), Code: plan.CodeOf(err)}
		if !head.IsZero() {
			st.LastPush.Rev = head.String()
		}
	})
}
