package share

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/code"
	"github.com/plangit/plangit/repo/disk"
)

// SyncOptions are a push's, fetch's or prune's.
type SyncOptions struct {
	repo.Options // the time, who acts, how long to wait for a session's lock
	// Ours and Theirs settle a fetch whose histories diverged without
	// merging the plans: a merge revision that keeps this machine's files
	// (Ours) or the remote's (Theirs) whole, with both histories behind it.
	Ours, Theirs bool
}

// SyncResult is what a push, fetch or prune did with one session.
type SyncResult struct {
	Session string `json:"session"`
	Remote  string `json:"remote"`
	// Status: push: created, pushed, up-to-date, merged (a divergence
	// merged, then pushed); fetch: new, fast-forward, up-to-date, ahead,
	// merged; prune: pruned, gone, kept; any: behind or diverged
	// (CONFLICT), failed. A merge that recorded conflicts has its status
	// and the CONFLICT error naming them.
	Status    string         `json:"status"`
	From      string         `json:"from,omitempty"` // the revision before: the remote's (push) or this machine's (fetch)
	To        string         `json:"to,omitempty"`
	Revisions int            `json:"revisions,omitempty"` // revisions the push or fetch moved, when known
	Local     *repo.Revision `json:"local,omitempty"`     // this machine's tip, on a conflict
	RemoteTip *repo.Revision `json:"remote_tip,omitempty"`
	KeptAs    string         `json:"kept_as,omitempty"`   // the revision name of the remote's tip, on a conflict
	Merge     *repo.Merged   `json:"merge,omitempty"`     // the merge revision of a divergence, and what it did
	Published bool           `json:"published,omitempty"` // push: the merge is on the remote
	Message   string         `json:"message,omitempty"`
	Code      plan.Code      `json:"code,omitempty"` // the error's code when Status is failed, behind or diverged
	// Snapshots is the head of the session's code snapshots (package
	// repo/code) the remote now holds (push) or this machine (fetch);
	// empty when the session has none.
	Snapshots string `json:"snapshots,omitempty"`
	err       error
}

// Err is the result's error; nil when it went well.
func (r *SyncResult) Err() error { return r.err }

func (r *SyncResult) fail(err error) {
	r.Status, r.err, r.Message, r.Code = "failed", err, err.Error(), plan.CodeOf(err)
}

// SyncError is the error of a push, fetch or prune whose results hold
// failures, nil when none failed: the first failure's code and message,
// with every result in the details (and, for a conflict, both tips).
func SyncError(results []SyncResult) error {
	var first *SyncResult
	failed := 0
	for i := range results {
		if results[i].err != nil {
			failed++
			if first == nil {
				first = &results[i]
			}
		}
	}
	if first == nil {
		return nil
	}
	msg := first.err.Error()
	if failed > 1 {
		msg = fmt.Sprintf("%d of %d sessions failed; the first: %s", failed, len(results), msg)
	}
	e := &plan.Error{Code: plan.CodeOf(first.err), Message: msg, Err: first.err}
	if pe, ok := first.err.(*plan.Error); ok {
		for k, v := range pe.Details { // a merge's conflicts, among others
			e.With(k, v)
		}
	}
	e.With("session", first.Session).With("remote", first.Remote).With("results", results)
	if first.Local != nil {
		e.With("local", first.Local)
	}
	if first.RemoteTip != nil {
		e.With("remote_tip", first.RemoteTip).With("kept_as", first.KeptAs)
	}
	return e
}

// pushBatch is how many sessions one git push carries: their object
// directories go to git in one environment variable.
const pushBatch = 64

// Push publishes sessions to the remote, fast-forward only: each session's
// branch goes to refs/plangit/sessions/<id>, and its code snapshots' head
// to refs/plangit/code/<id> in the same git push (code.go). One git push
// carries many sessions (their object directories lent to it as
// alternates), so a person is asked for credentials once. A session whose
// remote tip has revisions it lacks is not pushed: the remote's tip is
// fetched beside it (origin/main) and the result is a CONFLICT naming
// both; one whose history diverged is merged with it and the merge
// pushed. Snapshots another machine pushed are fetched and joined, never
// forced away. The returned results say what happened to each;
// SyncError(results) is the command's error.
func (r *Remote) Push(ids []string, o SyncOptions) []SyncResult {
	results := make([]SyncResult, len(ids))
	sessions := make([]*repo.Session, len(ids))
	for i, id := range ids {
		results[i] = SyncResult{Session: id, Remote: r.Name}
		s, err := r.Project.Open(id)
		if err == nil {
			if rerr := checkRefName(RemoteRef(id)); rerr != nil {
				err = sessionRefError(id, rerr)
			}
		}
		if err != nil {
			results[i].fail(err)
			continue
		}
		sessions[i] = s
	}
	// Pushes of one session take turns on this machine; the head is read
	// once this one's turn has come.
	defer r.lockPushes(sessions, results)()
	var items []*pushItem
	for i, s := range sessions {
		if s == nil || results[i].err != nil {
			continue
		}
		// A hand edit waiting in the files is recorded first, as any
		// change records it: what is pushed is the plan as it stands.
		if _, err := s.Update(o.Options, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil }); err != nil {
			results[i].fail(err)
			continue
		}
		head, err := s.Branch()
		if err == nil && head.IsZero() {
			err = plan.Errorf(plan.CodePlanNotFound, "session %s has no revision to push", s.ID).With("session", s.ID)
		}
		var snaps plumbing.Hash
		if err == nil {
			snaps, err = codeHead(s)
		}
		if err != nil {
			results[i].fail(err)
			continue
		}
		items = append(items, &pushItem{s: s, head: head, res: &results[i], code: snaps, sendPlan: true, sendCode: !snaps.IsZero()})
	}
	r.pushAll(items)
	// A session that diverged from the remote's copy is merged with it
	// here, and the merge pushed; snapshots another machine pushed are
	// fetched and joined, and the join pushed. Another machine's push may
	// land between the merge or join and its push: then it is done again,
	// a few times, as a person would fetch and push again.
	for round := 0; round < pushMergeRounds; round++ {
		var batch []*pushItem
		for _, it := range items {
			diverged := it.res.Status == "diverged"
			if !diverged && (!it.codeBehind || it.res.err != nil) {
				continue
			}
			if it.codeBehind {
				h, err := r.joinCode(it.s, o)
				if err != nil {
					it.res.fail(err)
					continue
				}
				it.code, it.codeBehind, it.sendCode = h, false, true
			}
			if diverged {
				m, err := r.mergeDiverged(it.s, o)
				if err != nil {
					it.res.fail(err)
					continue
				}
				*it.res = SyncResult{Session: it.s.ID, Remote: r.Name, Merge: m}
				it.head, it.sendPlan, it.merged = plumbing.NewHash(m.Commit.Hash), true, true
				if h, err := codeHead(it.s); err == nil && h != it.code { // the merge took a snapshot
					it.code, it.sendCode = h, true
				}
			}
			batch = append(batch, it)
		}
		if len(batch) == 0 {
			break
		}
		r.pushAll(batch)
		for _, it := range batch {
			if it.merged && it.res.Status == "pushed" {
				it.res.Status, it.res.Published, it.merged = "merged", true, false
				r.conflicted(it.s, it.res)
			}
		}
	}
	for _, it := range items {
		if it.codeBehind && it.res.err == nil {
			it.res.fail(plan.Errorf(plan.CodeConflict, "session %s is on %s, but its code snapshots are not: another machine pushed snapshots of it while this one joined them, %d times; push again", it.s.ID, r.Name, pushMergeRounds).With("session", it.s.ID))
		}
		if !it.pushedCode.IsZero() {
			it.res.Snapshots = it.pushedCode.String()
		}
		r.recordPush(it.s, it.head, it.res, o)
	}
	return results
}

// pushMergeRounds is how many times a push merges with the remote's copy
// (or joins its snapshots) and pushes again before it leaves the race to
// the person.
const pushMergeRounds = 3

// pushItem is one session a push carries.
type pushItem struct {
	s    *repo.Session
	head plumbing.Hash
	res  *SyncResult
	// code is the head of the session's code snapshots, zero when it has
	// none; pushedCode the one the remote was found to hold.
	code, pushedCode plumbing.Hash
	// sendPlan and sendCode say which of its refs the next git push
	// carries.
	sendPlan, sendCode bool
	codeBehind         bool // the remote's snapshots have some this machine lacks
	merged             bool // its head is a merge with the remote's tip
}

// pushAll pushes the items' heads, many sessions to one git push.
func (r *Remote) pushAll(items []*pushItem) {
	for start := 0; start < len(items); start += pushBatch {
		r.pushBatch(items[start:min(start+pushBatch, len(items))])
	}
}

// refRetries is how often a push whose ref the remote could not update
// (another push held its lock, or moved it meanwhile) is tried again,
// refRetry apart at first, twice as long each time.
const (
	refRetries = 5
	refRetry   = 50 * time.Millisecond
)

// pushBatch pushes the items' heads in one git push, run in a repository
// of plangit's own (newScratch) lent the sessions' objects. A ref the
// remote could not update ([remote rejected] (failed to update ref):
// another receive-pack held its lock, or moved it meanwhile) is success
// when the remote's ref is now what was pushed, and is otherwise pushed
// again; a lock that stays is named.
func (r *Remote) pushBatch(batch []*pushItem) {
	if len(batch) == 0 {
		return
	}
	// git pushes from a repository of plangit's own, lent every session's
	// objects, never from a session's: nothing the session's .git/config
	// names is read. Snapshots borrow the code stores' objects, and the
	// project's, so that what the remote's branches hold is not sent.
	stores := make([]string, 0, 2*len(batch)+1)
	for _, it := range batch {
		stores = append(stores, it.s.DiskStore().ObjectsDir())
	}
	for _, it := range batch {
		if it.sendCode {
			stores = append(stores, filepath.Join(it.s.GitDir(), code.StoreDir, "objects"))
		}
	}
	if len(stores) > len(batch) {
		stores = append(stores, r.projectObjects())
	}
	env, err := objectsEnv(stores)
	var dir string
	if err == nil {
		dir, err = newScratch(pushPrefix())
	}
	if err != nil {
		for _, it := range batch {
			it.res.fail(plan.WrapError(plan.CodeIOError, err, "cannot make a place to push session %s from", it.s.ID).With("session", it.s.ID))
		}
		return
	}
	defer disk.RemoveAll(dir)
	if len(stores) > len(batch) { // snapshots: what the remote's branches hold stays (code.go)
		if err := os.WriteFile(filepath.Join(dir, "shallow"), []byte(notShallow), 0o644); err != nil {
			for _, it := range batch {
				it.res.fail(plan.WrapError(plan.CodeIOError, err, "cannot make a place to push session %s from", it.s.ID).With("session", it.s.ID))
			}
			return
		}
	}
	for attempt := 0; len(batch) > 0; attempt++ {
		var specs []string
		for _, it := range batch {
			if it.sendPlan {
				specs = append(specs, it.head.String()+":"+RemoteRef(it.s.ID))
			}
			if it.sendCode {
				specs = append(specs, it.code.String()+":"+CodeRef(it.s.ID))
			}
		}
		args := r.scratchArgs(dir, append([]string{"push", "--porcelain", "--no-verify", r.arg}, specs...)...)
		out, err := r.git.run(dir, env, args...)
		p := pushReply{status: parsePorcelain(out), err: err, attempt: attempt}
		if ge, ok := err.(*gitError); ok {
			p.locks = refLocks(ge.stderr)
		}
		var again []*pushItem
		for _, it := range batch {
			retryPlan := it.sendPlan && r.pushedPlan(it, p)
			retryCode := it.sendCode && r.pushedCode(it, p)
			it.sendPlan, it.sendCode = retryPlan, retryCode
			if retryPlan || retryCode {
				again = append(again, it)
			}
		}
		if len(again) > 0 {
			time.Sleep(refRetry << attempt)
		}
		batch = again
	}
}

// pushReply is what one git push said.
type pushReply struct {
	status  map[string]refStatus
	err     error
	locks   map[string]string
	attempt int
}

// pushedPlan reads what git push did with a session's branch, and reports
// whether to push it again.
func (r *Remote) pushedPlan(it *pushItem, p pushReply) bool {
	ref := RemoteRef(it.s.ID)
	st, ok := p.status[ref]
	switch {
	case !ok && p.err != nil:
		it.res.fail(r.netError(p.err, "cannot push session %s to %s", it.s.ID, r.Name).With("session", it.s.ID))
	case !ok:
		it.res.fail(plan.Errorf(plan.CodeIOError, "git push said nothing of session %s", it.s.ID))
	case st.flag == '!' && refNotUpdated(st.summary):
		if tip, err := r.remoteTip(ref); err == nil && tip == it.head {
			// Another push put this very revision there first.
			it.res.Status, it.res.From, it.res.To = "up-to-date", it.head.String(), it.head.String()
			return false
		}
		if p.attempt < refRetries {
			return true
		}
		if lock := p.locks[ref]; lock != "" {
			it.res.fail(plan.Errorf(plan.CodeIOError, "%s could not update session %s: its ref is locked by %s, which stayed through %d tries — most likely left by a push that was cut off; once no push to %s runs, remove that file on the remote's side (rm '%s') and push again",
				r.Name, it.s.ID, lock, refRetries+1, r.Name, lock).With("session", it.s.ID).With("lock", lock))
			return false
		}
		r.pushed(it.s, it.head, st, it.res)
	default:
		r.pushed(it.s, it.head, st, it.res)
	}
	return false
}

// pushedCode reads what git push did with a session's code snapshots, and
// reports whether to push them again. Snapshots the remote holds and
// this machine lacks (non-fast-forward) are for Push to join.
func (r *Remote) pushedCode(it *pushItem, p pushReply) bool {
	ref := CodeRef(it.s.ID)
	st, ok := p.status[ref]
	fail := func(err error) {
		if it.res.err == nil { // a failure of the branch says it first
			it.res.fail(err)
		}
	}
	switch {
	case !ok && p.err != nil:
		fail(r.netError(p.err, "cannot push the code snapshots of session %s to %s", it.s.ID, r.Name).With("session", it.s.ID))
	case !ok:
		fail(plan.Errorf(plan.CodeIOError, "git push said nothing of the code snapshots of session %s", it.s.ID))
	case st.flag == '!' && refNotUpdated(st.summary):
		if tip, err := r.remoteTip(ref); err == nil && tip == it.code {
			it.pushedCode = it.code
			return false
		}
		if p.attempt < refRetries {
			return true
		}
		fail(plan.Errorf(plan.CodeIOError, "%s could not update the code snapshots of session %s (%s), %d tries over", r.Name, it.s.ID, strings.Trim(st.summary, " "), refRetries+1).With("session", it.s.ID))
	case st.flag == '!' && (strings.Contains(st.summary, "non-fast-forward") || strings.Contains(st.summary, "fetch first")):
		it.codeBehind = true
	case st.flag == '!':
		fail(plan.Errorf(plan.CodeIOError, "%s refused the code snapshots of session %s: %s", r.Name, it.s.ID, strings.Trim(st.summary, " ")).With("session", it.s.ID))
	default:
		it.pushedCode = it.code
	}
	return false
}

// refNotUpdated reports whether a rejection says the remote could not
// update or lock the ref, rather than refusing the push.
func refNotUpdated(summary string) bool {
	return strings.Contains(summary, "failed to update ref") || strings.Contains(summary, "failed to lock") ||
		strings.Contains(summary, "cannot lock ref")
}

// refLock finds the lock files a remote's receive-pack names: "error:
// cannot lock ref 'refs/plangit/sessions/s1': Unable to create
// '/srv/git/p.git/refs/plangit/sessions/s1.lock': File exists."
var refLock = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`cannot lock ref '([^']+)': Unable to create '([^']+\.lock)': File exists`)
})

// refLocks returns ref → the lock file the remote found in its way.
func refLocks(stderr string) map[string]string {
	out := map[string]string{}
	for _, m := range refLock().FindAllStringSubmatch(stderr, -1) {
		out[m[1]] = filepath.Clean(m[2])
	}
	return out
}

// remoteTip reads a ref of the remote: the zero hash when it has none.
func (r *Remote) remoteTip(ref string) (plumbing.Hash, error) {
	out, err := r.git.run(r.top, nil, "-c", "core.hooksPath="+os.DevNull, "ls-remote", r.arg, ref)
	if err != nil {
		return plumbing.ZeroHash, r.netError(err, "cannot read %s on %s", ref, r.Name)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if hash, name, ok := strings.Cut(strings.TrimSpace(line), "\t"); ok && name == ref && plumbing.IsHash(hash) {
			return plumbing.NewHash(hash), nil
		}
	}
	return plumbing.ZeroHash, nil
}

// pushPrefix names the repository a push runs in, in the first session's
// .git/plangit/: written without the session lock, it names its writer,
// as a fetch's quarantine does.
func pushPrefix() string { return repo.UnlockedPrefix + strconv.Itoa(os.Getpid()) + "-push-" }

// pushLockFile is the session's push lock, in .git/plangit/.
const pushLockFile = "push-lock"

// pushLockWait bounds how long a push waits for another push of the same
// session on this machine: longer than a background push may run.
const pushLockWait = backgroundTimeout + time.Minute

// lockPushes takes the push lock of each session, in id order so that
// pushes of several sessions never wait on each other in a circle, and
// returns what releases them. A session whose lock cannot be had fails.
// A push holds it from reading the session's head until it has recorded
// what the remote did, so pushes of one session on this machine take
// turns, and each finds the remote where the one before left it.
func (r *Remote) lockPushes(sessions []*repo.Session, results []SyncResult) func() {
	order := make([]int, 0, len(sessions))
	for i, s := range sessions {
		if s != nil {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return sessions[order[a]].ID < sessions[order[b]].ID })
	var held []*os.File
	locked := map[string]error{}
	for _, i := range order {
		s := sessions[i]
		err, seen := locked[s.ID]
		if !seen {
			var f *os.File
			f, err = lockPush(s, pushLockWait)
			locked[s.ID] = err
			if f != nil {
				held = append(held, f)
			}
		}
		if err != nil {
			results[i].fail(err)
		}
	}
	return func() {
		for _, f := range held {
			disk.Release(f)
		}
	}
}

// lockPush takes the session's push lock, an flock on
// .git/plangit/push-lock, waiting at most wait. Like the session lock it
// never opens a symbolic link, and a holder whose file was replaced while
// it waited locks the one at the path.
func lockPush(s *repo.Session, wait time.Duration) (*os.File, error) {
	if err := s.EnsurePrivate(); err != nil {
		return nil, err
	}
	path := s.PrivatePath(pushLockFile)
	deadline := time.Now().Add(wait)
	delay := time.Millisecond
	for {
		f, err := disk.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			if disk.IsLinkErr(err) {
				return nil, plan.Errorf(plan.CodeIOError, "%s is a symbolic link", path).Hinted("plangit never follows one (remove it)").With("session", s.ID)
			}
			return nil, plan.WrapError(plan.CodeIOError, err, "cannot lock session %s for a push", s.ID).With("session", s.ID)
		}
		for {
			ok, err := disk.TryLock(f, true)
			if err != nil {
				f.Close()
				return nil, plan.WrapError(plan.CodeIOError, err, "cannot lock session %s for a push", s.ID).With("session", s.ID)
			}
			if ok {
				break
			}
			if !time.Now().Before(deadline) {
				f.Close()
				return nil, plan.Errorf(plan.CodeLockTimeout, "session %s was not pushed: another push of it on this machine has run for %s", s.ID, wait).Hinted("try again once it ends").With("session", s.ID)
			}
			time.Sleep(min(delay, time.Until(deadline)))
			delay = min(2*delay, 20*time.Millisecond)
		}
		if disk.SameFile(f, path) {
			return f, nil
		}
		disk.Release(f)
	}
}

// mergeDiverged merges a session with the remote's tip a push found it
// diverged from (kept as origin/main), after adopting a hand edit waiting
// in its working files, as before any change.
func (r *Remote) mergeDiverged(s *repo.Session, o SyncOptions) (*repo.Merged, error) {
	if _, err := s.Update(o.Options, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil }); err != nil {
		return nil, err
	}
	var m *repo.Merged
	err := s.Locked(o.LockWait, func() error {
		head, err := s.Branch()
		if err != nil {
			return err
		}
		tip, err := s.TrackingTip(r.Name)
		if err != nil {
			return err
		}
		if _, err := checkAdoptable(s, tip, r.Name); err != nil {
			return err
		}
		m, err = merge(s, head, tip, r.Name, MergeBoth, o.Options)
		return err
	})
	return m, err
}

// conflicted gives a merge's result the CONFLICT its recorded conflicts
// make: each named, with the command that settles it.
func (r *Remote) conflicted(s *repo.Session, res *SyncResult) {
	m := res.Merge
	if m == nil || len(m.Conflicts) == 0 {
		return
	}
	ours, theirs := short(plumbing.NewHash(m.Sides[0].Rev)), short(plumbing.NewHash(m.Sides[1].Rev))
	var each []string
	for _, c := range m.Conflicts {
		target := c.Target()
		target = strings.TrimPrefix(target, "step ")
		each = append(each, repo.ConflictLine(c)+" → plangit resolve "+target+" --ours|--theirs --session "+s.ID)
	}
	res.err = plan.Errorf(plan.CodeConflict, "session %s merged with %s (%s), %s changed both ways; each keeps its value from before until settled (--ours: %s, this machine's; --theirs: %s, %s's): %s",
		s.ID, repo.TrackingName(r.Name), theirs, count(len(m.Conflicts), "field"), ours, theirs, r.Name, strings.Join(each, "; ")).
		With("session", s.ID).With("conflicts", m.Conflicts)
	res.Message, res.Code = res.err.Error(), plan.CodeConflict
}

// refStatus is one line of git push --porcelain.
type refStatus struct {
	flag    byte   // ' ' fast-forward, '*' new, '=' up to date, '-' deleted, '!' rejected
	summary string // a..b, [new reference], [rejected] (non-fast-forward), …
}

// parsePorcelain reads git push --porcelain: ref → its status.
func parsePorcelain(out []byte) map[string]refStatus {
	status := map[string]refStatus{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) != 3 || len(f[0]) != 1 {
			continue
		}
		_, dst, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		status[dst] = refStatus{flag: f[0][0], summary: f[2]}
	}
	return status
}

// pushed reads one session's line of git push.
func (r *Remote) pushed(s *repo.Session, head plumbing.Hash, st refStatus, res *SyncResult) {
	res.To = head.String()
	switch st.flag {
	case '*':
		res.Status = "created"
		if last, err := s.Last(); err == nil {
			res.Revisions = last.N
		}
	case '=':
		res.Status, res.From = "up-to-date", head.String()
	case ' ', '+':
		res.Status = "pushed"
		if from, _, ok := strings.Cut(st.summary, ".."); ok {
			if rev, err := s.Resolve(from); err == nil {
				h := plumbing.NewHash(rev)
				res.From = h.String()
				if rel, n, err := s.Relate(head, h); err == nil && rel == repo.Ahead {
					res.Revisions = n
				}
			}
		}
	case '!':
		if strings.Contains(st.summary, "non-fast-forward") || strings.Contains(st.summary, "fetch first") {
			r.conflict(s, head, res, "push")
			return
		}
		res.fail(plan.Errorf(plan.CodeIOError, "%s refused session %s: %s", r.Name, s.ID, strings.Trim(st.summary, " ")).With("session", s.ID))
	default:
		res.fail(plan.Errorf(plan.CodeIOError, "git push: session %s: %s", s.ID, st.summary))
	}
}

// conflict handles a remote tip this machine's push or fetch cannot move
// past: the remote's tip is fetched beside the branch (when a push found
// it) and the result says how the two stand, with both tips.
func (r *Remote) conflict(s *repo.Session, head plumbing.Hash, res *SyncResult, op string) {
	tip, err := s.TrackingTip(r.Name)
	if op == "push" {
		tip, err = r.fetchTracking(s)
	}
	if err != nil {
		res.fail(err)
		return
	}
	rel, n, err := s.Relate(head, tip)
	if err != nil {
		res.fail(err)
		return
	}
	res.Local, res.RemoteTip, res.KeptAs = tipInfo(s, head), tipInfo(s, tip), repo.TrackingName(r.Name)
	res.From, res.To = tip.String(), head.String()
	kept := repo.TrackingName(r.Name)
	switch rel {
	case repo.Behind:
		res.Status = "behind"
		res.err = plan.Errorf(plan.CodeConflict, "%s has %s of session %s that this machine lacks (its tip %s: %s); plangit fetch --session %s brings them, then push",
			r.Name, plural(n, "revision"), s.ID, short(tip), describe(res.RemoteTip), s.ID)
	case repo.Diverged:
		res.Status = "diverged"
		res.err = plan.Errorf(plan.CodeConflict, "session %s has diverged from %s: here %s (%s), on %s %s (%s); both are kept, %s's as %s: compare with plangit diff HEAD %s --session %s, then plangit fetch --session %s --ours (keep this plan) or --theirs (take %s's), and push again",
			s.ID, r.Name, short(head), describe(res.Local), r.Name, short(tip), describe(res.RemoteTip), r.Name, kept, kept, s.ID, s.ID, r.Name)
	default:
		res.fail(plan.Errorf(plan.CodeIOError, "%s refused session %s, yet its tip %s is behind this machine's %s; try again", r.Name, s.ID, short(tip), short(head)))
		return
	}
	res.Message, res.Code = res.err.Error(), plan.CodeConflict
}

// describe is a revision's last change for a message: @12, 2026-11-20
// 10:40, agent: step 3: pending → completed.
func describe(r *repo.Revision) string {
	if r == nil {
		return "no revision"
	}
	var b strings.Builder
	if r.N > 0 {
		fmt.Fprintf(&b, "@%d, ", r.N)
	}
	fmt.Fprintf(&b, "%s, %s: %s", r.Time.UTC().Format("2006-01-02 15:04"), r.Actor, r.Summary)
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if n == 0 {
		return "revisions"
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// recordPush keeps, under the session lock, what a push did: the remote's
// tip as now known, the revision pushed, and the attempt's outcome.
func (r *Remote) recordPush(s *repo.Session, head plumbing.Hash, res *SyncResult, o SyncOptions) {
	ok := res.err == nil
	err := s.EditShareRecord(o.LockWait, func(st *repo.ShareRecord) {
		if ok {
			// Another push may have moved the remote further meanwhile.
			if cur, err := s.TrackingTip(r.Name); err == nil {
				if rel, _, err := s.Relate(head, cur); err == nil && rel != repo.Behind {
					s.SetTrackingTip(r.Name, head)
				}
			}
			if st.Pushed == nil {
				st.Pushed = map[string]string{}
			}
			st.Pushed[r.Name] = head.String()
		}
		st.LastPush = &repo.PushAttempt{Remote: r.Name, Rev: head.String(), Time: o.Time()}
		if !ok {
			st.LastPush.Error, st.LastPush.Code = res.err.Error(), plan.CodeOf(res.err)
		}
	})
	if err != nil && ok {
		res.fail(plan.WrapError(plan.CodeOf(err), err, "session %s is on %s, but this machine could not record it", s.ID, r.Name))
	}
}

// fetchTracking fetches the session's tip on the remote into a quarantine,
// checks every revision it brings (incoming.go), and only then moves the
// objects into the session's repository and records the tip as
// refs/plangit/remote/<remote>/main. A tip that fails the checks is
// refused, and nothing of it is kept.
func (r *Remote) fetchTracking(s *repo.Session) (plumbing.Hash, error) {
	q, err := newQuarantine(s)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	defer q.remove()
	spec := "+" + RemoteRef(s.ID) + ":" + incomingRef
	args := r.scratchArgs(q.dir, "-c", "fetch.fsckObjects=true", "-c", "transfer.fsckObjects=true",
		"fetch", "--quiet", "--no-tags", "--no-prune", "--no-recurse-submodules", "--refmap=", r.arg, spec)
	if _, err := r.git.run(q.dir, q.env(), args...); err != nil {
		if ge, ok := err.(*gitError); ok {
			if strings.Contains(ge.stderr, "couldn't find remote ref") {
				return plumbing.ZeroHash, plan.Errorf(plan.CodeSessionNotFound, "%s has no session %s", r.Name, s.ID).Hinted("plangit sessions --remote lists the sessions there").With("session", s.ID).With("remote", r.Name)
			}
			if m := fsckLine().FindStringSubmatch(ge.stderr); m != nil {
				return plumbing.ZeroHash, r.fetchRefused(s, plumbing.ZeroHash, &refusal{plumbing.NewHash(m[1]), "object " + short(plumbing.NewHash(m[1])) + " fails git's checks (" + strings.TrimSpace(m[2]) + ")"})
			}
		}
		return plumbing.ZeroHash, r.netError(err, "cannot fetch session %s from %s", s.ID, r.Name).With("session", s.ID)
	}
	tip, err := repo.ReadNamedRef(q.dir, s.ID, incomingRef)
	if err == nil && tip.IsZero() {
		err = plan.Errorf(plan.CodeIOError, "git fetch of session %s left no tip", s.ID)
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	rf, err := q.check(s, tip)
	if err != nil {
		return plumbing.ZeroHash, plan.WrapError(plan.CodeIOError, err, "cannot read what git fetched of session %s from %s", s.ID, r.Name).With("session", s.ID)
	}
	if rf != nil {
		return plumbing.ZeroHash, r.fetchRefused(s, tip, rf)
	}
	if err := q.install(s); err != nil {
		return plumbing.ZeroHash, plan.WrapError(plan.CodeIOError, err, "cannot move what git fetched of session %s into it", s.ID).With("session", s.ID)
	}
	if err := s.SetTrackingTip(r.Name, tip); err != nil {
		return plumbing.ZeroHash, err
	}
	return tip, nil
}

// Prune deletes on the remote the sessions cleanup removed here that this
// machine had pushed there (the prune list), each only while the remote
// still holds the tip this machine last saw. A session changed on the
// remote since, or fetched back here, is kept and leaves the list.
func (r *Remote) Prune(o SyncOptions) ([]SyncResult, error) {
	var results []SyncResult
	err := r.Project.EditPruneList(func(list []repo.PruneEntry) ([]repo.PruneEntry, error) {
		var mine, rest []repo.PruneEntry
		for _, e := range list {
			if e.Remote == r.Name {
				mine = append(mine, e)
			} else {
				rest = append(rest, e)
			}
		}
		if len(mine) == 0 {
			return list, nil
		}
		tips, _, codes, err := r.lsSessions(true)
		if err != nil {
			return nil, err
		}
		var del []repo.PruneEntry
		for _, e := range mine {
			res := SyncResult{Session: e.Session, Remote: r.Name, From: e.Tip}
			_, local := r.Project.Open(e.Session)
			switch cur, ok := tips[e.Session]; {
			case local == nil:
				res.Status, res.Message = "kept", "the session is back in this project"
			case !ok:
				res.Status, res.Message = "gone", "no longer on "+r.Name
			case cur != e.Tip:
				res.Status, res.Message = "kept", "changed on "+r.Name+" since this machine last saw it ("+cur[:7]+", not "+e.Tip[:7]+")"
			default:
				del = append(del, e)
				continue
			}
			results = append(results, res)
		}
		if len(del) == 0 {
			return rest, nil
		}
		// A session's code snapshots go with it, each only while the
		// remote holds the head just listed.
		args := []string{"-c", "core.hooksPath=" + os.DevNull, "push", "--porcelain", "--no-verify"}
		for _, e := range del {
			args = append(args, "--force-with-lease="+RemoteRef(e.Session)+":"+e.Tip)
			if c := codes[e.Session]; c != "" {
				args = append(args, "--force-with-lease="+CodeRef(e.Session)+":"+c)
			}
		}
		args = append(args, r.arg)
		for _, e := range del {
			args = append(args, ":"+RemoteRef(e.Session))
			if codes[e.Session] != "" {
				args = append(args, ":"+CodeRef(e.Session))
			}
		}
		out, gerr := r.git.run(r.top, nil, args...)
		status := parsePorcelain(out)
		for _, e := range del {
			res := SyncResult{Session: e.Session, Remote: r.Name, From: e.Tip}
			st, ok := status[RemoteRef(e.Session)]
			switch {
			case ok && st.flag == '-':
				res.Status = "pruned"
				if cst, ok := status[CodeRef(e.Session)]; codes[e.Session] != "" && (!ok || cst.flag != '-') {
					res.Message = "its code snapshots, changed on " + r.Name + " since, are kept there"
				}
			case ok && strings.Contains(st.summary, "stale info"):
				res.Status, res.Message = "kept", "changed on "+r.Name+" since this machine last saw it"
			case gerr != nil:
				res.fail(r.netError(gerr, "cannot delete session %s on %s", e.Session, r.Name).With("session", e.Session))
				rest = append(rest, e) // try again next time
			default:
				res.fail(plan.Errorf(plan.CodeIOError, "%s did not delete session %s: %s", r.Name, e.Session, st.summary).With("session", e.Session))
				rest = append(rest, e)
			}
			results = append(results, res)
		}
		return rest, nil
	})
	return results, err
}
