package repo

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
	"github.com/plangit/plangit/repo/store"
)

// revEntry is one revision as the revision log records it (store.Entry),
// its change, steps and progress read as a plan's.
type revEntry struct {
	N       int // 1-based: @N names it on this machine
	Hash    plumbing.Hash
	Parent  plumbing.Hash   // the first parent
	Parents []plumbing.Hash // every parent, first first; more than one for a merge
	Time    time.Time
	Author  Person // who made it: the commit's author
	Meta    Meta
	Change  plan.Change
	Touches []plan.Touch
	Counts  plan.Counts // only Done and Total are kept
}

// Person is a commit's author: a name and an email.
type Person = store.Person

// fromEntry reads a store's entry as a plan's: its Plangit-Step trailers
// as the steps it touched, those plangit cannot read left out.
func fromEntry(e store.Entry) revEntry {
	r := revEntry{N: e.N, Hash: e.Hash, Parent: e.Parent, Parents: e.Parents, Time: e.Time, Author: e.Author,
		Meta:   Meta{Actor: e.Actor, Hook: e.Hook, Tool: e.Tool, Host: e.Host, HostSession: e.HostSession, Agent: e.Agent, Code: e.Code},
		Change: plan.Change{Op: e.Op, Summary: e.Summary}, Counts: plan.Counts{Done: e.Done, Total: e.Total}}
	for _, step := range e.Steps {
		if t, ok := plan.ParseTouch(step); ok {
			r.Touches = append(r.Touches, t)
		}
	}
	return r
}

// fromEntries is fromEntry of each entry.
func fromEntries(entries []store.Entry) []revEntry {
	out := make([]revEntry, len(entries))
	for i, e := range entries {
		out[i] = fromEntry(e)
	}
	return out
}

// entry is the revision as the store records it.
func (e revEntry) entry() store.Entry {
	steps := make([]string, len(e.Touches))
	for i, t := range e.Touches {
		steps[i] = t.String()
	}
	return store.Entry{N: e.N, Hash: e.Hash, Parent: e.Parent, Parents: e.Parents, Time: e.Time, Author: e.Author,
		Actor: e.Meta.Actor, Hook: e.Meta.Hook, Tool: e.Meta.Tool, Host: e.Meta.Host, HostSession: e.Meta.HostSession, Agent: e.Meta.Agent, Code: e.Meta.Code,
		Op: e.Change.Op, Summary: e.Change.Summary, Steps: steps, Done: e.Counts.Done, Total: e.Counts.Total}
}

// appendRevlog records a new revision in the revision log (store.Append).
// It runs under the exclusive lock, right after the branch moved to
// e.Hash.
func appendRevlog(s *Session, e revEntry) (int, error) {
	n, err := store.Append(s.store, e.entry())
	return n, storeError(err, s.gitDir)
}

// revisions returns every revision of head's history, in the log's order
// (oldest first; the last is head), completing or rebuilding the log from
// the commits when it is behind (store.Revisions), and persisting the
// repair when it can take the lock without waiting.
func revisions(s *Session, head plumbing.Hash) ([]revEntry, error) {
	entries, err := s.RevisionLog(head)
	if err != nil {
		return nil, err
	}
	return fromEntries(entries), nil
}

// RevisionLog returns every revision of head's history as the revision
// log records them, in its order (oldest first; the last is head),
// completing or rebuilding the log from the commits when it is behind
// (store.Revisions), and persisting the repair when it can take the lock
// without waiting.
func (s *Session) RevisionLog(head plumbing.Hash) ([]store.Entry, error) {
	entries, repaired, err := store.Revisions(s.store, head)
	if err != nil {
		return nil, storeError(err, s.gitDir)
	}
	if repaired {
		persistRevlog(s, head, entries)
	}
	return entries, nil
}

// RevisionOf reads a revision log's entry as a Revision.
func RevisionOf(e store.Entry) Revision { return fromEntry(e).revision() }

// persistRevlog saves a repaired log: at once when this process holds the
// session lock, otherwise only if the lock is free right now and head has
// not moved (the next change repairs it anyway).
func persistRevlog(s *Session, head plumbing.Hash, entries []store.Entry) {
	if !s.lk.held {
		unlock, ok := s.lk.try()
		if !ok {
			return
		}
		defer unlock()
	}
	if cur, err := s.readRef(); err == nil && cur == head {
		s.store.WriteLog(entries)
	}
}

// entryFromCommit reads a revision's entry from its commit: the summary
// line and the trailers (store.EntryFromCommit).
func entryFromCommit(s *Session, h plumbing.Hash) (revEntry, error) {
	e, err := store.EntryFromCommit(s.store, h)
	if err != nil {
		return revEntry{}, storeError(err, s.gitDir)
	}
	return fromEntry(e), nil
}

// RevisionForms names the revisions plangit understands, for messages.
const RevisionForms = "HEAD, HEAD~N (N revisions back along first parents), HEAD^N (the N-th parent of a merge), @N, a hash (4 to 40 hex digits) or a remote's tip (origin/main), each followed by any ~N and ^N"

// revStep is one step back from a revision: ~N (N first parents back) or
// ^N (the N-th parent; ^0 is the revision itself).
type revStep struct {
	nth bool
	n   int
}

// CheckRevName checks that rev is a revision name plangit understands —
// not that the revision exists: an INVALID_ARGUMENT naming the forms when
// it is not.
func CheckRevName(rev string) error {
	_, _, err := parseRevName(rev)
	return err
}

// parseRevName splits a revision name into its base — HEAD, @, @N, a
// hash or a remote's tip — and the steps back that follow it.
func parseRevName(rev string) (string, []revStep, error) {
	r := strings.TrimSpace(rev)
	bad := func(why string) (string, []revStep, error) {
		return "", nil, plan.Errorf(plan.CodeInvalidArgument, "%q is not a revision%s; name one as %s", clipID(rev), why, RevisionForms).With("rev", clipID(rev))
	}
	cut := strings.IndexAny(r, "~^")
	if cut < 0 {
		cut = len(r)
	}
	base, suffix := r[:cut], r[cut:]
	switch {
	case base == "":
		return bad("")
	case base == "HEAD" || base == "@":
	case base[0] == '@':
		if n, err := strconv.Atoi(base[1:]); err != nil || n < 1 || strings.ContainsAny(base[1:], "+-") {
			return bad(": @N numbers revisions from @1")
		}
	case strings.Contains(base, "/"):
		if strings.ContainsAny(base, "@{}: \t") {
			return bad("")
		}
	default:
		if strings.Trim(strings.ToLower(base), "0123456789abcdef") != "" {
			return bad("")
		}
		if len(base) < 4 || len(base) > 40 {
			if _, err := strconv.Atoi(base); err == nil && len(base) < 4 {
				return bad(fmt.Sprintf(" (a revision's number is written @%s)", base))
			}
			return bad(": a hash has 4 to 40 hex digits")
		}
	}
	var steps []revStep
	for len(suffix) > 0 {
		st := revStep{nth: suffix[0] == '^', n: 1}
		i := 1
		for i < len(suffix) && suffix[i] >= '0' && suffix[i] <= '9' {
			i++
		}
		if i > 1 {
			n, err := strconv.Atoi(suffix[1:i])
			if err != nil || n > 1<<20 {
				return bad("")
			}
			st.n = n
		}
		if i < len(suffix) && suffix[i] != '~' && suffix[i] != '^' {
			return bad("")
		}
		steps = append(steps, st)
		suffix = suffix[i:]
	}
	return base, steps, nil
}

// resolveAt turns a revision name into a commit hash, given the current
// head. The names are RevisionForms'. A malformed name is an
// INVALID_ARGUMENT; a well-formed one that names no revision of the
// session's history (or of a remote's tip of it) is REVISION_NOT_FOUND.
func resolveAt(s *Session, rev string, head plumbing.Hash) (plumbing.Hash, error) {
	base, steps, err := parseRevName(rev)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	notFound := func(why string) error {
		return plan.Errorf(plan.CodeRevisionNotFound, "no revision %q in session %s%s; plangit log lists them", clipID(rev), s.ID, why).With("rev", clipID(rev))
	}
	var revs []revEntry
	byHash := map[plumbing.Hash]*revEntry{}
	loadRevs := func() error {
		if revs != nil || head.IsZero() {
			return nil
		}
		var err error
		if revs, err = revisions(s, head); err == nil {
			for i := range revs {
				byHash[revs[i].Hash] = &revs[i]
			}
		}
		return err
	}
	var h plumbing.Hash
	switch {
	case base == "HEAD" || base == "@":
		if head.IsZero() {
			return plumbing.ZeroHash, notFound(" (it has no revision yet)")
		}
		h = head
	case base[0] == '@':
		if err := loadRevs(); err != nil {
			return plumbing.ZeroHash, err
		}
		n, _ := strconv.Atoi(base[1:])
		if n > len(revs) {
			return plumbing.ZeroHash, notFound(" (it has " + strconv.Itoa(len(revs)) + " revisions, @1 to @" + strconv.Itoa(len(revs)) + ")")
		}
		h = revs[n-1].Hash
	case strings.Contains(base, "/"):
		var ok bool
		if h, ok, err = resolveTracking(s, base); err != nil {
			return plumbing.ZeroHash, err
		} else if !ok {
			return plumbing.ZeroHash, notFound(" (no remote's tip of that name: plangit fetch keeps one as origin/main)")
		}
	default:
		if err := loadRevs(); err != nil {
			return plumbing.ZeroHash, err
		}
		prefix := strings.ToLower(base)
		for _, e := range revs {
			if strings.HasPrefix(e.Hash.String(), prefix) {
				if !h.IsZero() {
					return plumbing.ZeroHash, plan.Errorf(plan.CodeRevisionNotFound, "revision %q is ambiguous; give more of the hash", clipID(rev)).With("rev", clipID(rev))
				}
				h = e.Hash
			}
		}
		if h.IsZero() {
			if h, err = findTrackedCommit(s, prefix, byHash); err != nil || h.IsZero() {
				return plumbing.ZeroHash, cmp.Or(err, notFound(""))
			}
		}
	}
	parents := func(h plumbing.Hash) ([]plumbing.Hash, error) {
		if e, ok := byHash[h]; ok {
			return e.Parents, nil
		}
		c, err := s.store.ReadCommit(h)
		if err != nil {
			return nil, plan.WrapError(plan.CodeIOError, err, "cannot read revision %s", short(h))
		}
		return c.Parents, nil
	}
	if len(steps) > 0 && h == head {
		if err := loadRevs(); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	for _, st := range steps {
		for i := 0; i < st.n || st.nth && i == 0 && st.n > 0; i++ {
			ps, err := parents(h)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if st.nth {
				if st.n > len(ps) {
					has := "no parent: it is the first revision"
					if len(ps) > 0 {
						has = plural(len(ps), "parent")
					}
					return plumbing.ZeroHash, notFound(fmt.Sprintf(" (%s has %s)", short(h), has))
				}
				h = ps[st.n-1]
				break
			}
			if len(ps) == 0 {
				return plumbing.ZeroHash, notFound(" (it goes back further than the first revision)")
			}
			h = ps[0]
		}
	}
	return h, nil
}

// Resolve turns a revision name into a full commit hash.
func (s *Session) Resolve(rev string) (string, error) {
	head, err := s.readRef()
	if err != nil {
		return "", err
	}
	h, err := resolveAt(s, rev, head)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// Revision is one revision of a session, as its commit's message and
// trailers describe it.
type Revision struct {
	N       int       `json:"n"` // 1-based: @N names it on this machine; 0 for a remote's revision not here yet
	Hash    string    `json:"rev"`
	Parent  string    `json:"parent,omitempty"`  // the first parent
	Parents []string  `json:"parents,omitempty"` // every parent, when it is a merge
	Time    time.Time `json:"time"`
	Author  Person    `json:"author,omitzero"` // the person (their git identity); zero when plangit knew none
	Actor   string    `json:"actor"`           // agent, user, hook
	Host    string    `json:"host,omitempty"`  // the agent host the change came through
	// HostSession is the agent host's own id of its session.
	HostSession string `json:"host_session,omitempty"`
	// Agent names the agent that made the revision (its Plangit-Agent
	// trailer); "" when none was named.
	Agent string `json:"agent,omitempty"`
	// Code is the code snapshot taken with the revision (package
	// repo/code), when one was.
	Code    string       `json:"code,omitempty"`
	Hook    string       `json:"hook,omitempty"`
	Tool    string       `json:"tool,omitempty"`
	Op      string       `json:"op"`
	Summary string       `json:"summary"`
	Touches []plan.Touch `json:"steps,omitempty"` // the steps it changed
	Done    int          `json:"done"`
	Total   int          `json:"total"`
	// Merge is what a merge revision's message says of its sides, when
	// history.Log read it.
	Merge *MergeInfo `json:"merge,omitempty"`
}

// Touched reports whether the revision changed step id.
func (r Revision) Touched(id string) bool {
	for _, t := range r.Touches {
		if t.Step == id {
			return true
		}
	}
	return false
}

// IsMerge reports whether the revision is a merge: more than one parent.
func (r Revision) IsMerge() bool { return len(r.Parents) > 1 }

// Who names who made the revision: the person and, when it was not the
// person at the keyboard, the actor ("Ann Lee (agent)"); the actor alone
// when the person is not known. A named agent stands for the actor
// "agent" or "user" ("Ann Lee (alpha)", "alpha") and goes beside any
// other ("Ann Lee (alpha, hook)", "alpha (hook)").
func (r Revision) Who() string {
	if r.Agent != "" {
		other := r.Actor != "" && r.Actor != "agent" && r.Actor != "user"
		switch {
		case r.Author.Name == "" && other:
			return r.Agent + " (" + r.Actor + ")"
		case r.Author.Name == "":
			return r.Agent
		case other:
			return r.Author.Name + " (" + r.Agent + ", " + r.Actor + ")"
		}
		return r.Author.Name + " (" + r.Agent + ")"
	}
	switch {
	case r.Author.Name == "":
		return r.Actor
	case r.Actor == "user" || r.Actor == "":
		return r.Author.Name
	}
	return r.Author.Name + " (" + r.Actor + ")"
}

// Revisions returns every revision of the session, oldest first.
func (s *Session) Revisions() ([]Revision, error) {
	head, err := s.readRef()
	if err != nil {
		return nil, err
	}
	return revisionsTo(s, head)
}

// revisionsTo returns the revisions leading to head along first parents,
// oldest first.
func revisionsTo(s *Session, head plumbing.Hash) ([]Revision, error) {
	if head.IsZero() {
		return nil, nil
	}
	entries, err := revisions(s, head)
	if err != nil {
		return nil, err
	}
	out := make([]Revision, len(entries))
	for i, e := range entries {
		out[i] = e.revision()
	}
	return out, nil
}

func (e revEntry) revision() Revision {
	r := Revision{N: e.N, Hash: e.Hash.String(), Time: e.Time, Author: e.Author, Actor: e.Meta.Actor, Host: e.Meta.Host, HostSession: e.Meta.HostSession,
		Agent: e.Meta.Agent, Code: e.Meta.Code, Hook: e.Meta.Hook, Tool: e.Meta.Tool, Op: e.Change.Op, Summary: e.Change.Summary, Touches: e.Touches, Done: e.Counts.Done, Total: e.Counts.Total}
	if !e.Parent.IsZero() {
		r.Parent = e.Parent.String()
	}
	if len(e.Parents) > 1 {
		r.Parents = make([]string, len(e.Parents))
		for i, p := range e.Parents {
			r.Parents[i] = p.String()
		}
	}
	return r
}

// FilesAt returns the files of a revision and its full hash.
func (s *Session) FilesAt(rev string) (map[string][]byte, string, error) {
	h, err := s.Resolve(rev)
	if err != nil {
		return nil, "", err
	}
	files, err := s.store.ReadFilesAt(plumbing.NewHash(h))
	if err != nil {
		return nil, "", plan.WrapError(plan.CodeIOError, err, "cannot read revision %s", h[:7])
	}
	return files, h, nil
}

// FilesOf reads the files of a revision known to be on the branch — a Hash
// or Parent from Revisions — without the lookup FilesAt makes to resolve
// a name, which reads the revision log.
func (s *Session) FilesOf(hash string) (map[string][]byte, error) {
	if !plumbing.IsHash(hash) {
		return nil, plan.Errorf(plan.CodeRevisionNotFound, "%q is not a full revision hash", clipID(hash))
	}
	files, err := s.store.ReadFilesAt(plumbing.NewHash(hash))
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read revision %s", hash[:7])
	}
	return files, nil
}

// StateOf reads the state of a revision known to be on the branch.
func (s *Session) StateOf(hash string) (*plan.State, error) {
	files, err := s.FilesOf(hash)
	if err != nil {
		return nil, err
	}
	return plan.ParseState(files)
}

// StateAt reads the state of a revision.
func (s *Session) StateAt(rev string) (*plan.State, string, error) {
	files, h, err := s.FilesAt(rev)
	if err != nil {
		return nil, "", err
	}
	st, err := plan.ParseState(files)
	if err != nil {
		return nil, "", err
	}
	return st, h, nil
}

// Last returns the session's newest revision, read from the tail of the
// revision log when it agrees with the branch, else from the history.
func (s *Session) Last() (Revision, error) {
	head, err := s.readRef()
	if err != nil {
		return Revision{}, err
	}
	if head.IsZero() {
		return Revision{}, noBranch(s)
	}
	if e, err := s.store.LastEntry(); err == nil && e.Hash == head {
		return fromEntry(e).revision(), nil
	}
	revs, err := s.Revisions()
	if err != nil {
		return Revision{}, err
	}
	return revs[len(revs)-1], nil
}

// Size is the session's size on disk: its files and its repository.
func (s *Session) Size() int64 { return disk.DirSize(s.Dir) }

// plural is n nouns for a message: 1 revision, 3 revisions; "revisions"
// when the count is not known (0).
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if n == 0 {
		return "revisions"
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
