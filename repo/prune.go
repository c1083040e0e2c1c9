package repo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/gofrs/flock"

	"github.com/plangit/plangit/plan"
)

// The prune list, .code-agent/prune, holds the sessions cleanup removed
// here that this machine had pushed: one line each, remote, session, the
// tip the remote held as last seen, and when. plangit push --prune deletes
// those sessions on the remote — only while the remote still holds exactly
// that tip, so a session someone changed since, or never this machine's,
// is never deleted.
const pruneFile = "prune"

// PruneEntry is a line of the prune list.
type PruneEntry struct {
	Remote, Session, Tip string
	Time                 time.Time
}

func (p Project) prunePath() string { return filepath.Join(p.Dir(), pruneFile) }

// EditPruneList runs fn on the prune list under a lock of its own and
// writes back what fn returns: cleanup adds the sessions it removes, a
// push --prune (package share) takes those it deleted on the remote.
func (p Project) EditPruneList(fn func([]PruneEntry) ([]PruneEntry, error)) error {
	fl := flock.New(p.prunePath() + ".lock")
	if err := fl.Lock(); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot lock %s", p.prunePath())
	}
	defer fl.Unlock()
	var list []PruneEntry
	if b, err := os.ReadFile(p.prunePath()); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Split(line, "\t")
			if len(f) != 4 || ValidateSessionID(f[1]) != nil || !plumbing.IsHash(f[2]) {
				continue
			}
			t, _ := time.Parse(time.RFC3339, f[3])
			list = append(list, PruneEntry{Remote: f[0], Session: f[1], Tip: f[2], Time: t})
		}
	} else if !os.IsNotExist(err) {
		return plan.WrapError(plan.CodeIOError, err, "cannot read %s", p.prunePath())
	}
	next, err := fn(list)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, e := range next {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\n", e.Remote, e.Session, e.Tip, e.Time.UTC().Format(time.RFC3339))
	}
	return WriteFileAtomic(p.prunePath(), []byte(b.String()), 0o644, false)
}

// notePushed puts a session that is about to be removed on the prune list,
// for every remote this machine pushed it to. It runs under the session's
// lock.
func (p Project) notePushed(s *Session, now time.Time) error {
	st := s.ShareRecord()
	if len(st.Pushed) == 0 {
		return nil
	}
	tips := s.TrackingTips()
	return p.EditPruneList(func(list []PruneEntry) ([]PruneEntry, error) {
		for remote, pushed := range st.Pushed {
			tip := pushed
			if t, ok := tips[remote]; ok {
				tip = t.String()
			}
			list = append(list, PruneEntry{Remote: remote, Session: s.ID, Tip: tip, Time: now})
		}
		return list, nil
	})
}
