package repo

import (
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/redact"
	"github.com/plangit/plangit/repo/code"
	"github.com/plangit/plangit/repo/store"
)

// commitInfo is what a commit records besides its files.
type commitInfo struct {
	now     time.Time
	change  plan.Change
	meta    Meta
	counts  plan.Counts
	touches []plan.Touch
	// issued, when known, is the ids the history has issued with this
	// commit: the change's floor raised to the ids its state holds
	// (plan.Issued.Holding); nil leaves the cache to be completed later.
	issued *plan.Issued
	// redact is the project's redaction (plan.Rules.Redact), applied to
	// the summary; nil applies the table alone.
	redact *redact.Redactor
}

// commit writes one revision of the session s. The branch is the commit
// point:
//
//  1. the objects (blobs, tree, commit);
//  2. a check that no working file changed since it was read (errRetry)
//     and that the .git this process locked is still the one in place;
//  3. the intent record: the commit and each file's old and new blob;
//  4. the branch, by compare-and-set, if the record is still in place
//     (errRecordLost: a person removed .git/plangit);
//  5. the working files, each only if it still holds its old blob, then
//     the index, and the record is removed (land);
//  6. the revision log, the step-id cache, and packing when due.
//
// A process killed before 4 changed nothing a later command will see; one
// killed after leaves a state the next command completes (see intent.go).
// Once the branch has moved the change stands: a failure after that is a
// warning, not an error, so that no command reports as failed a change
// that is in the history.
//
// base holds the blob hashes at parent; old is what the working files hold
// now; files is the new revision's content.
func commit(s *Session, parent plumbing.Hash, base map[string]plumbing.Hash, old, files map[string][]byte, ci commitInfo) (c *Commit, l *landing, err error) {
	// Objects this attempt wrote go again if it does not land: no other
	// commit refers to them (a loose copy of a packed object aside, which
	// can go too), and git fsck would call them dangling. Never one the
	// branch names, though, whatever the error said.
	var written []plumbing.Hash
	write := func(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
		h, wrote, err := s.store.Write(t, data)
		if wrote {
			written = append(written, h)
		}
		if err != nil {
			err = plan.WrapError(plan.CodeIOError, err, "cannot write an object")
		}
		return h, err
	}
	defer func() {
		if c == nil && len(written) > 0 {
			dropObjects(s, written)
		}
	}()
	if err := plan.CheckFileSizes(files); err != nil {
		return nil, nil, err
	}
	if err := s.work.checkWritable(old, files); err != nil {
		return nil, nil, err
	}
	// A summary may quote a tool's text (a failed command, a todo): it is
	// redacted before the commit, its revision log entry and the caller's
	// result are made of it.
	ci.change.Summary = ci.redact.String(ci.change.Summary)
	if !s.lk.intact() {
		// .git was replaced since the attempt began: its objects would
		// go into a repository this change does not hold, and stay there
		// dangling when the change starts over.
		return nil, nil, errLockLost
	}
	entries := make([]store.TreeEntry, 0, len(files))
	for _, name := range plan.SessionFiles {
		b, ok := files[name]
		if !ok {
			continue
		}
		h := plumbing.ComputeHash(plumbing.BlobObject, b)
		if base[name] != h {
			if _, err := write(plumbing.BlobObject, b); err != nil {
				return nil, nil, err
			}
		}
		entries = append(entries, store.TreeEntry{Name: name, Hash: h})
	}
	tree, err := write(plumbing.TreeObject, store.EncodeTree(entries))
	if err != nil {
		return nil, nil, err
	}
	if ci.meta.Actor == "" {
		ci.meta.Actor = "agent"
	}
	sig := s.Project.Author()
	sig.When = ci.now
	co := &store.CommitObject{Tree: tree, Author: sig, Committer: sig, Message: message(ci)}
	if !parent.IsZero() {
		co.Parents = []plumbing.Hash{parent}
	}
	hash, err := write(plumbing.CommitObject, co.Encode())
	if err != nil {
		return nil, nil, err
	}
	crashPoint("objects")

	if s.work.changedSince(old) {
		return nil, nil, errRetry
	}
	if !s.lk.intact() {
		return nil, nil, errLockLost
	}
	in := &intent{Commit: hash, Files: fileChanges(old, files)}
	recorded, err := s.work.recordIntent(in)
	if err != nil {
		return nil, nil, err // a record cut short is discarded by the next change
	}
	crashPoint("intent")
	if err := setRefIf(s, hash, parent, func() bool { return s.work.intact(recorded) }); err != nil {
		if cur, rerr := s.readRef(); rerr != nil || cur != hash {
			s.work.clearIntent()
			return nil, nil, err
		}
		// The branch is at the commit after all: the change stands.
	}
	crashPoint("ref")

	// The change stands from here on.
	c = &Commit{Hash: hash.String(), Time: ci.now, Actor: ci.meta.Actor, Change: ci.change, Touches: ci.touches}
	if !s.work.intact(recorded) {
		// .git/plangit was removed just as the branch moved: record the
		// change again before any working file is touched, so that one
		// cut short is still told from a person's edit.
		if err := s.work.writeIntent(in); err != nil {
			s.warnf("revision %s is committed, but its intent record could not be written again: %v", short(hash), err)
		}
	}
	l, err = s.work.land(in, files)
	if err != nil {
		s.warnf("revision %s is committed, but its working files could not all be written; the next command finishes: %v", short(hash), err)
	}
	e := revEntry{Hash: hash, Parent: parent, Time: ci.now, Meta: ci.meta, Change: ci.change, Counts: ci.counts, Touches: ci.touches}
	if !parent.IsZero() {
		e.Parents = []plumbing.Hash{parent}
	}
	if store.Known(sig) {
		e.Author = Person{Name: sig.Name, Email: sig.Email}
	}
	n, err := appendRevlog(s, e)
	if err != nil {
		s.warnf("revision %s is committed; its revision log is rebuilt later: %v", short(hash), err)
		return c, l, nil
	}
	crashPoint("revlog")
	if ci.issued != nil {
		s.noteIssued(hash, *ci.issued)
	}
	if err := maybePack(s, n, hash, tree); err != nil {
		// The commit stands; its objects stay loose until the next pack.
		s.warnf("packing failed, objects stay loose: %v", err)
	}
	return c, l, nil
}

// dropObjects removes loose objects of s a change that did not land wrote,
// unless the branch names them — its commit, its tree, their files — or
// this process no longer holds the session lock, when it cannot know what
// another writer's commit names: a dangling object is harmless, a missing
// one is damage.
func dropObjects(s *Session, written []plumbing.Hash) {
	if !s.lk.intact() {
		return
	}
	head, err := s.readRef()
	if err != nil {
		return
	}
	named := map[plumbing.Hash]bool{head: true}
	if !head.IsZero() {
		c, err := s.store.ReadCommit(head)
		if err != nil {
			return
		}
		named[c.Tree] = true
		blobs, err := s.store.ReadTreeFiles(head)
		if err != nil {
			return
		}
		for _, h := range blobs {
			named[h] = true
		}
	}
	for _, h := range written {
		if !named[h] {
			s.store.Drop(h)
		}
	}
}

// Trailer keys (the store's: it reads them back into the revision log).
const (
	TrailerOp       = store.TrailerOp
	TrailerStep     = store.TrailerStep
	TrailerActor    = store.TrailerActor
	TrailerHook     = store.TrailerHook
	TrailerTool     = store.TrailerTool
	TrailerProgress = store.TrailerProgress
	// TrailerHost and TrailerHostSession name the agent host a change
	// came through and that host's id of its session.
	TrailerHost        = store.TrailerHost
	TrailerHostSession = store.TrailerHostSession
	// TrailerAgent names the agent that made a change (Meta.Agent).
	TrailerAgent = store.TrailerAgent
)

// message is the commit message: the change's summary, then trailers that
// make history queryable without diffing. Every step the change touched
// gets a Plangit-Step trailer, with its status change if it had one.
func message(ci commitInfo) string {
	var b strings.Builder
	summary := strings.Join(strings.Fields(ci.change.Summary), " ")
	if summary == "" {
		summary = ci.change.Op
	}
	b.WriteString(summary + "\n\n")
	trailer := func(k, v string) {
		if v = strings.Join(strings.Fields(v), " "); v != "" {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	trailer(TrailerOp, ci.change.Op)
	for _, t := range ci.touches {
		trailer(TrailerStep, t.String())
	}
	trailer(TrailerActor, ci.meta.Actor)
	trailer(TrailerHook, ci.meta.Hook)
	trailer(TrailerTool, ci.meta.Tool)
	trailer(TrailerHost, ci.meta.Host)
	trailer(TrailerHostSession, ci.meta.HostSession)
	trailer(TrailerAgent, ci.meta.Agent)
	trailer(store.TrailerCode, ci.meta.Code)
	trailer(code.TrailerBefore, ci.meta.CodeBefore)
	trailer(TrailerProgress, fmt.Sprintf("%d/%d", ci.counts.Done, ci.counts.Total))
	return b.String()
}
