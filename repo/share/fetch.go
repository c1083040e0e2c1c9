package share

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/disk"
	"github.com/plangit/plangit/repo/store"
)

// FetchAll fetches every session on the remote, for fetch --all. A ref
// under the sessions' namespace whose name is no session id is refused,
// a failed result naming it; the others still come.
func (r *Remote) FetchAll(o SyncOptions) ([]SyncResult, error) {
	tips, skipped, err := r.lsRemote()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(tips)+len(skipped))
	for id := range tips {
		ids = append(ids, id)
	}
	ids = append(ids, skipped...)
	sort.Strings(ids)
	return r.Fetch(ids, o), nil
}

// Fetch brings sessions from the remote. A session this project lacks
// becomes a normal session, its revisions adopted as they are (the same
// hashes as on the machine that made them), and says where it came from. A
// session here moves forward to the remote's tip; one whose history
// diverged from the remote's is merged with it (merge: plan.Merge,
// or o.Ours / o.Theirs to keep one side's plan whole), the remote's tip
// kept as origin/main. A merge that recorded conflicts is a CONFLICT
// naming them. The returned results say what happened to each;
// SyncError(results) is the command's error.
func (r *Remote) Fetch(ids []string, o SyncOptions) []SyncResult {
	results := make([]SyncResult, len(ids))
	for i, id := range ids {
		results[i] = SyncResult{Session: id, Remote: r.Name}
		r.fetchOne(id, o, &results[i])
	}
	return results
}

func (r *Remote) fetchOne(id string, o SyncOptions, res *SyncResult) {
	if err := repo.ValidateSessionID(id); err != nil {
		res.fail(err)
		return
	}
	if err := checkRefName(RemoteRef(id)); err != nil {
		if _, open := r.Project.Open(id); open != nil {
			// Not a session here: no remote can hold it either.
			res.fail(plan.Errorf(plan.CodeInvalidSessionID, "session %s cannot be shared: %v", id, err).Hinted("no remote holds a session of that id").With("session", id))
			return
		}
		res.fail(sessionRefError(id, err))
		return
	}
	s, err := r.Project.Open(id)
	created := false
	if plan.HasCode(err, plan.CodeSessionNotFound) {
		s, err = r.Project.NewEmpty(id)
		created = err == nil
	}
	if err != nil {
		res.fail(err)
		return
	}
	tip, err := r.fetchTracking(s)
	if err != nil {
		if created {
			disk.RemoveAll(s.Dir)
		}
		res.fail(err)
		return
	}
	if head, err := s.Branch(); err == nil && !head.IsZero() {
		// A hand edit of the working files is adopted first, as before any
		// change, so that nothing of it is lost.
		if _, err := s.Update(o.Options, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil }); err != nil {
			res.fail(err)
			return
		}
	}
	err = s.Locked(o.LockWait, func() error { return r.integrate(s, tip, o, res) })
	if err != nil && res.err == nil {
		res.fail(err)
	}
	if res.err == nil || res.Status == "merged" {
		r.fetchSnapshots(s, o, res)
	}
	if res.err != nil && created {
		disk.RemoveAll(s.Dir) // nothing was adopted; the remote still has it all
	}
}

// integrate brings the fetched tip into the session, under its lock.
func (r *Remote) integrate(s *repo.Session, tip plumbing.Hash, o SyncOptions, res *SyncResult) error {
	head, err := s.Branch()
	if err != nil {
		return err
	}
	rel, n, err := s.Relate(head, tip)
	if err != nil {
		return err
	}
	res.From, res.To = head.String(), tip.String()
	if head.IsZero() {
		res.From = ""
	}
	switch rel {
	case repo.Same:
		res.Status = "up-to-date"
		return nil
	case repo.Ahead:
		res.Status, res.Revisions, res.To = "ahead", n, head.String()
		res.Message = "this machine has " + plural(n, "revision") + " " + r.Name + " lacks; plangit push publishes them"
		return nil
	case repo.Diverged:
		if _, err := checkAdoptable(s, tip, r.Name); err != nil {
			return err
		}
		mode := MergeBoth
		switch {
		case o.Ours:
			mode = MergeOurs
		case o.Theirs:
			mode = MergeTheirs
		}
		m, err := merge(s, head, tip, r.Name, mode, o.Options)
		if err != nil {
			return err
		}
		res.Status, res.Merge, res.To = "merged", m, m.Commit.Hash
		r.conflicted(s, res)
		return nil
	}
	files, err := checkAdoptable(s, tip, r.Name)
	if err != nil {
		return err
	}
	if err := s.MoveTo(tip, head, files); err != nil {
		return err
	}
	res.Status, res.Revisions = "fast-forward", n
	if head.IsZero() {
		res.Status = "new"
		if last, err := s.Last(); err == nil {
			res.Revisions = last.N
		}
		return s.EditShareRecord(o.LockWait, func(st *repo.ShareRecord) {
			st.Origin = &repo.Origin{Remote: r.Name, URL: r.URL, Time: o.Time()}
		})
	}
	return nil
}

// RemoteSession is a session on the remote, as `plangit sessions --remote`
// shows it: read from its tip alone, none of its history fetched.
type RemoteSession struct {
	ID         string          `json:"id"`
	Rev        string          `json:"rev"`
	Title      string          `json:"title,omitempty"`
	Status     plan.PlanStatus `json:"status,omitempty"`
	Done       int             `json:"done"`
	Total      int             `json:"total"`
	LastChange time.Time       `json:"last_change,omitzero"`
	Actor      string          `json:"actor,omitempty"`
	Summary    string          `json:"summary,omitempty"` // the last change
	// Here is how this project's copy stands: not-fetched, in-sync,
	// ahead (push publishes it), behind (fetch brings it), differs (fetch
	// tells; the two may have diverged).
	Here    string `json:"here"`
	Problem string `json:"problem,omitempty"`
}

// List lists the sessions on the remote with their title, status,
// progress and last change, read from each session's tip: git fetches the
// tips alone (--depth=1: a commit and its three files each) into a
// temporary repository, removed afterwards. Nothing of the project or its
// sessions changes. skipped counts refs under the namespace that name no
// valid session.
func (r *Remote) List() (list []RemoteSession, skipped int, err error) {
	if ids, skipped, err := r.lsRemote(); err != nil || len(ids) == 0 {
		return []RemoteSession{}, len(skipped), err // nothing to fetch, even a tip
	}
	tmp, err := newScratch(repo.UnlockedPrefix + strconv.Itoa(os.Getpid()) + "-remote-")
	if err != nil {
		return nil, 0, plan.WrapError(plan.CodeIOError, err, "cannot make a temporary repository")
	}
	defer disk.RemoveAll(tmp)
	if err := layoutObjects(filepath.Join(tmp, "objects"), nil); err != nil {
		return nil, 0, plan.WrapError(plan.CodeIOError, err, "cannot make a temporary repository")
	}
	spec := "+" + SessionRefPrefix + "*:" + SessionRefPrefix + "*"
	args := r.scratchArgs(tmp, "fetch", "--quiet", "--depth=1", "--no-tags", "--no-prune", "--refmap=", r.arg, spec)
	if _, err := r.git.run(tmp, nil, args...); err != nil {
		return nil, 0, r.netError(err, "cannot read the sessions on %s", r.Name)
	}
	peek := store.NewDisk(tmp, tmp) // it only reads
	tips := map[string]plumbing.Hash{}
	for name, h := range repo.PackedRefs(tmp, SessionRefPrefix) {
		tips[strings.TrimPrefix(name, SessionRefPrefix)] = h
	}
	root := filepath.Join(tmp, filepath.FromSlash(SessionRefPrefix))
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		id := filepath.ToSlash(rel)
		if h, err := repo.ReadNamedRef(tmp, "", SessionRefPrefix+id); err == nil && !h.IsZero() {
			tips[id] = h
		}
		return nil
	})
	ids := make([]string, 0, len(tips))
	for id := range tips {
		if repo.ValidateSessionID(id) != nil {
			skipped++
			continue
		}
		ids = append(ids, id)
	}
	sort.Strings(ids)
	list = []RemoteSession{}
	for _, id := range ids {
		list = append(list, r.describeTip(peek, id, tips[id]))
	}
	return list, skipped, nil
}

// describeTip reads a remote session's tip and compares it with this
// project's copy.
func (r *Remote) describeTip(peek store.Store, id string, tip plumbing.Hash) RemoteSession {
	rs := RemoteSession{ID: id, Rev: tip.String(), Here: "not-fetched"}
	if e, err := store.EntryFromCommit(peek, tip); err != nil {
		rs.Problem = "its tip cannot be read: " + repo.StoreError(err, "").Error()
	} else {
		rs.LastChange, rs.Actor, rs.Summary, rs.Done, rs.Total = e.Time, e.Actor, e.Summary, e.Done, e.Total
		if files, err := peek.ReadFilesAt(tip); err != nil {
			rs.Problem = "its files cannot be read: " + err.Error()
		} else if p, err := plan.ParsePlan(files[plan.PlanFile]); err != nil {
			rs.Problem = "its plan does not parse: " + strings.SplitN(err.Error(), ";", 2)[0]
		} else {
			rs.Title, rs.Status = p.Title, p.Status
		}
	}
	s, err := r.Project.Open(id)
	if err != nil {
		return rs
	}
	head, err := s.Branch()
	if err != nil {
		rs.Here = "differs"
		return rs
	}
	rs.Here = "differs"
	switch {
	case head == tip:
		rs.Here = "in-sync"
	case onBranch(s, head, tip):
		rs.Here = "ahead"
	case s.TrackingTips()[r.Name] == head:
		rs.Here = "behind"
	}
	return rs
}

// onBranch reports whether h is one of the branch's revisions (along
// first parents), from the revision log.
func onBranch(s *repo.Session, head, h plumbing.Hash) bool {
	entries, err := s.RevisionLog(head)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Hash == h {
			return true
		}
	}
	return false
}
