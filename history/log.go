// Package history reads and rewinds a session's revisions: log, semantic
// and text diff, blame, rollback, undo, step revert and the timeline. It
// never rewrites history: every rewind is a new commit.
package history

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// LogOptions filter the log.
type LogOptions struct {
	N     int       // at most N revisions; 0 means all
	Since time.Time // only revisions at or after this time
	Step  string    // only revisions that touched this step
	Rev   string    // the revisions leading to this one; "" is HEAD
}

// Log returns the session's revisions, newest first: every revision of its
// history, merged-in ones too, by their number here; a merge with what its
// message says each side brought. Filtering by step uses the steps each
// commit records having touched; no revision is diffed.
func Log(s *repo.Session, o LogOptions) ([]repo.Revision, error) {
	var revs []repo.Revision
	var err error
	if o.Rev != "" {
		revs, err = s.RevisionsFrom(o.Rev)
	} else {
		revs, err = s.Revisions()
	}
	if err != nil {
		return nil, err
	}
	step := plan.NormalizeID(o.Step)
	// Filter in place, newest first: a log of 10,000 revisions is not
	// copied.
	slices.Reverse(revs)
	out := revs[:0]
	for _, r := range revs {
		if !o.Since.IsZero() && r.Time.Before(o.Since) {
			continue // merged-in revisions may be older than those before them
		}
		if step != "" && !r.Touched(step) {
			continue
		}
		if r.IsMerge() {
			r.Merge = s.MergeInfo(r.Hash)
		}
		out = append(out, r)
		if o.N > 0 && len(out) == o.N {
			break
		}
	}
	return out, nil
}

// StepEvent is one revision that changed a step: when, who, what, and
// the step's status change if it had one.
type StepEvent struct {
	N       int             `json:"n"`
	Rev     string          `json:"rev"`
	Time    time.Time       `json:"time"`
	Author  repo.Person     `json:"author,omitzero"`
	Actor   string          `json:"actor"`
	Agent   string          `json:"agent,omitempty"` // the agent named, if one was
	Who     string          `json:"who"`
	Op      string          `json:"op"`
	From    plan.StepStatus `json:"from,omitempty"` // "" when the step was added
	To      plan.StepStatus `json:"to,omitempty"`   // "" when it was removed
	Status  bool            `json:"status_changed"` // false: only other fields changed
	Summary string          `json:"summary"`
}

// StepHistory returns the revisions that changed step id (its id in the
// current plan), in the order they were made, up to and including
// revision rev (a full hash; "" for all): rev's own history. It reads the
// steps each commit records having touched; no revision is diffed.
// Merges are left out: they only bring together what their sides did,
// and those revisions are listed.
func StepHistory(s *repo.Session, id, rev string) ([]StepEvent, error) {
	l, err := newLineage(s)
	if err != nil {
		return nil, err
	}
	var within map[string]bool
	if rev != "" {
		if _, ok := l.index[rev]; ok {
			within = l.ancestors(rev)
		}
	}
	id = plan.NormalizeID(id)
	var out []StepEvent
	for _, x := range l.touches() {
		r := l.revs[x.rev]
		if x.step != id || within != nil && !within[r.Hash] {
			continue
		}
		out = append(out, StepEvent{N: r.N, Rev: r.Hash, Time: r.Time, Author: r.Author, Actor: r.Actor, Agent: r.Agent, Who: r.Who(), Op: r.Op,
			From: x.t.From, To: x.t.To, Status: x.t.From != "" || x.t.To != "", Summary: r.Summary})
	}
	return out, nil
}

// ancestors is the set of revisions of rev's history, rev included.
func (l *lineage) ancestors(rev string) map[string]bool {
	out := map[string]bool{}
	for queue := []string{rev}; len(queue) > 0; {
		h := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		i, ok := l.index[h]
		if !ok || out[h] {
			continue
		}
		out[h] = true
		queue = append(queue, parentsOf(l.revs[i])...)
	}
	return out
}

// ParseSince reads a --since value: an age ("2h", "3d", "1w") before now,
// a date ("2026-11-20") or an RFC 3339 time.
func ParseSince(v string, now time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	if d, err := ParseAge(v); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, plan.Errorf(plan.CodeInvalidArgument, "--since %q is neither an age (90m, 36h, 7d, 2w) nor a date (2026-11-20)", v)
}

// ParseAge reads an age: a number and a unit, s, m, h, d (days) or w
// (weeks): "90m", "36h", "7d".
func ParseAge(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	bad := plan.Errorf(plan.CodeInvalidArgument, "%q is not an age like 90m, 36h, 7d or 2w", v)
	if len(v) < 2 {
		return 0, bad
	}
	n, err := strconv.ParseFloat(v[:len(v)-1], 64)
	if err != nil || n < 0 || n > 1e6 {
		return 0, bad
	}
	unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[v[len(v)-1]]
	if unit == 0 {
		return 0, bad
	}
	return time.Duration(n * float64(unit)), nil
}

// revisionAt finds a revision by full hash in revs.
func revisionAt(revs []repo.Revision, hash string) (repo.Revision, bool) {
	i := slices.IndexFunc(revs, func(r repo.Revision) bool { return r.Hash == hash })
	if i < 0 {
		return repo.Revision{}, false
	}
	return revs[i], true
}
