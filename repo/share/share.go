package share

import (
	"slices"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/store"
)

// checkAdoptable makes sure a revision from elsewhere is one plangit can
// make its own: a commit whose tree holds only a session's files, which
// parse.
func checkAdoptable(s *repo.Session, h plumbing.Hash, from string) (map[string][]byte, error) {
	hashes, err := s.Store().ReadTreeFiles(h)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read %s's revision %s of session %s", from, short(h), s.ID).With("session", s.ID)
	}
	for name := range hashes {
		if !slices.Contains(plan.SessionFiles, name) {
			return nil, plan.Errorf(plan.CodeInvalidArgument, "%s's revision %s of session %s holds %q, which is not a plangit session file; it is kept as %s, not adopted", from, short(h), s.ID, name, repo.TrackingName(from)).With("session", s.ID)
		}
	}
	files, err := s.Store().ReadFilesAt(h)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read %s's revision %s of session %s", from, short(h), s.ID).With("session", s.ID)
	}
	if _, err := plan.ParseState(files); err != nil {
		return nil, plan.WrapError(plan.CodeOf(err), err, "%s's revision %s of session %s does not parse; it is kept as %s, not adopted", from, short(h), s.ID, repo.TrackingName(from)).With("session", s.ID)
	}
	return files, nil
}

// tipInfo describes a revision for a message: its last change.
func tipInfo(s *repo.Session, h plumbing.Hash) *repo.Revision {
	if h.IsZero() {
		return nil
	}
	e, err := store.EntryFromCommit(s.Store(), h)
	if err != nil {
		return &repo.Revision{Hash: h.String()}
	}
	r := repo.RevisionOf(e)
	if head, err := s.Branch(); err == nil && !head.IsZero() {
		if entries, err := s.RevisionLog(head); err == nil { // its number here, if it has one
			for _, x := range entries {
				if x.Hash == h {
					r.N = x.N
				}
			}
		}
	}
	return &r
}

// Status is what `plangit sessions` says of a session and the project's
// remotes.
type Status struct {
	Origin   *repo.Origin      `json:"origin,omitempty"`  // where it was fetched from
	Remotes  []RemoteStatus    `json:"remotes,omitempty"` // every remote it was pushed to or fetched from
	LastPush *repo.PushAttempt `json:"last_push,omitempty"`
}

// RemoteStatus is a session on one remote, as last seen.
type RemoteStatus struct {
	Remote   string `json:"remote"`
	Rev      string `json:"rev"`      // the remote's tip as last seen
	State    string `json:"state"`    // in-sync, ahead, differs
	Unpushed int    `json:"unpushed"` // with ahead: revisions the remote lacks
}

// StatusOf reads how the session stands with the remotes, from what
// this machine last saw of them; nil when it was never shared.
func StatusOf(s *repo.Session) (*Status, error) {
	st := s.ShareRecord()
	tips := s.TrackingTips()
	if st.Origin == nil && st.LastPush == nil && len(tips) == 0 {
		return nil, nil
	}
	out := &Status{Origin: st.Origin, LastPush: st.LastPush}
	head, err := s.Branch()
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
		if rel, n, err := s.Relate(head, tip); err == nil {
			switch rel {
			case repo.Same:
				rs.State = "in-sync"
			case repo.Ahead:
				rs.State, rs.Unpushed = "ahead", n
			}
		}
		out.Remotes = append(out.Remotes, rs)
	}
	return out, nil
}

// NotePushFailure records a push that failed before it reached the session
// (no git, no remote), for plangit sessions to show.
func NotePushFailure(s *repo.Session, remote string, err error, o SyncOptions) error {
	head, _ := s.Branch()
	return s.EditShareRecord(o.LockWait, func(st *repo.ShareRecord) {
		st.LastPush = &repo.PushAttempt{Remote: remote, Time: o.Time(), Error: err.Error(), Code: plan.CodeOf(err)}
		if !head.IsZero() {
			st.LastPush.Rev = head.String()
		}
	})
}

// Published reports, cheaply, whether the session's head is what a remote
// holds as far as this machine knows: a remote's tip as last seen. A hook
// asks it before starting a push.
func Published(s *repo.Session) bool {
	head, err := s.Branch()
	if err != nil || head.IsZero() {
		return true // nothing to push
	}
	for _, tip := range s.TrackingTips() {
		if tip == head {
			return true
		}
	}
	return false
}
