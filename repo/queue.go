package repo

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
)

// The hook queue. A hook never waits long for a busy session: an event
// that cannot take the lock in time is appended to .git/plangit/queue as
// one record, and the next process that holds the lock applies the queued
// events in order, before its own change. The store keeps records opaque;
// the hooks package writes and replays them (through the same engine code
// as a live event).
//
//   - Appending is one write of "\nRECORD\n" to the file opened with
//     O_APPEND, under a shared flock: Unix makes each such write whole,
//     so appenders need not wait for each other. Windows does not promise
//     to (under Wine, two appends at once spoiled each other's line), so
//     there the writes themselves take turns (disk.LockAppend). A record
//     cut short by a killed appender spoils only its own line.
//   - Reading, under the session lock: an exclusive flock on the file for
//     the moment of reading it, so no append is half-done.
//   - Applying, in batches (batch.go): queue.progress records how far the
//     queue has been applied, and, while a batch is being committed, its
//     end and the branch's revision before it. A drainer killed midway leaves it;
//     the next one resumes there, and counts the batch as applied if the
//     branch has its commit (any commit but an adopted edit). Hook counters
//     an interrupted batch already counted may count twice; the plan never
//     changes twice.
//   - Once everything is applied, the queue is emptied: under its
//     exclusive flock, renamed to queue.old, the progress removed, and
//     queue.old removed (a process killed in between leaves queue.old,
//     which says the same). Every open of the queue lets it be renamed
//     and removed while open (disk.OpenShared), which Windows otherwise
//     refuses. An appender that locked the old file after the
//     rename sees it is no longer at the path and appends to the new one.
//
// So the queue's size alone, one stat, says whether events wait. A drainer
// may have a time budget (hooks have one, so as never to keep the agent
// waiting): what it leaves waits for the next.
const (
	queueName    = disk.QueueFile
	oldQueueName = "queue.old"
	progressName = "queue.progress"
	// MaxQueueRecord bounds one queued record.
	MaxQueueRecord = 1 << 20
)

// queueReplay is how this process applies queued hook events.
type queueReplay struct {
	apply    func(b *Batch, record []byte) error
	deadline time.Time // zero: no budget
	draining bool
	stopped  bool // the budget ran out
}

// OnQueued sets how this process applies queued hook events — apply makes
// one event's changes through b, never through Update — and how long it
// may spend on them in all (zero: as long as it takes).
func (s *Session) OnQueued(apply func(b *Batch, record []byte) error, budget time.Duration) {
	s.queue = queueReplay{apply: apply}
	if budget > 0 {
		s.queue.deadline = time.Now().Add(budget)
	}
}

// Enqueue appends one record to the session's queue. A record is one line
// of at most MaxQueueRecord bytes.
func (s *Session) Enqueue(record []byte) error {
	if len(record) > MaxQueueRecord || bytes.IndexByte(record, '\n') >= 0 {
		return plan.Errorf(plan.CodeInvalidArgument, "a queued event must be one line of at most %d bytes", MaxQueueRecord)
	}
	if err := s.EnsurePrivate(); err != nil {
		return err
	}
	line := make([]byte, 0, len(record)+2)
	line = append(append(append(line, '\n'), record...), '\n')
	path := s.PrivatePath(queueName)
	for {
		f, err := disk.OpenShared(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			if disk.IsLinkErr(err) {
				return plan.Errorf(plan.CodeIOError, "%s is a symbolic link; plangit never follows one", path)
			}
			return plan.WrapError(plan.CodeIOError, err, "cannot queue an event for session %s", s.ID)
		}
		if err := disk.LockWait(f, false); err != nil {
			f.Close()
			return plan.WrapError(plan.CodeIOError, err, "cannot queue an event for session %s", s.ID)
		}
		if !sameFile(f, path) {
			disk.Release(f) // emptied meanwhile: append to the new queue
			continue
		}
		if err := disk.LockAppend(f); err != nil {
			disk.Release(f)
			return plan.WrapError(plan.CodeIOError, err, "cannot queue an event for session %s", s.ID)
		}
		_, err = f.Write(line)
		if cerr := disk.Release(f); err == nil {
			err = cerr
		}
		if err != nil {
			return plan.WrapError(plan.CodeIOError, err, "cannot queue an event for session %s", s.ID)
		}
		return nil
	}
}

// Queued reports, with one stat, whether queued events wait.
func (s *Session) Queued() bool {
	fi, err := os.Lstat(s.PrivatePath(queueName))
	return err == nil && fi.Size() > 0
}

// CatchUp applies queued hook events, if any wait and no other process
// holds the session; the one holding it applies them otherwise. Readers
// call it so that what they show includes every event, and a change calls
// it after unlocking, which closes the gap between its last look at the
// queue and its unlocking: an event queued in between by a hook that found
// the lock taken is applied now, or by whoever holds the lock next.
func (s *Session) CatchUp() {
	q := &s.queue
	for i := 0; i < 3 && q.apply != nil && !q.stopped && !s.lk.held && s.Queued(); i++ {
		unlock, ok := s.lk.try()
		if !ok {
			return
		}
		if err := s.work.settle(); err == nil {
			drain(s)
		}
		unlock()
	}
}

// drain applies every queued event, in order. It runs under the session
// lock.
func drain(s *Session) {
	q := &s.queue
	if q.apply == nil || q.draining || q.stopped {
		return
	}
	q.draining = true
	defer func() { q.draining = false }()
	for {
		records, applied, ok := pending(s)
		if !ok {
			return
		}
		if len(records) == 0 {
			emptyQueue(s, applied) // nothing but empty lines: clear them, once
			return
		}
		for len(records) > 0 {
			if q.late() {
				q.stopped = true
				return
			}
			n, err := applyBatch(s, records[:min(len(records), maxBatch)], applied)
			if err != nil {
				s.warnf("queued hook events wait for the next change: %v", err)
				return
			}
			records, applied = records[n:], records[n-1].end
		}
		if emptyQueue(s, applied) {
			return
		}
	}
}

// record is one queued record and where it ends in the queue file.
type record struct {
	data []byte
	end  int64
}

// pending returns the records not yet applied and the offset they start
// from; ok is false when the queue is empty.
func pending(s *Session) (records []record, applied int64, ok bool) {
	if _, err := os.Lstat(s.PrivatePath(oldQueueName)); err == nil {
		// A drainer was killed emptying a fully applied queue.
		os.Remove(s.PrivatePath(progressName))
		os.Remove(s.PrivatePath(oldQueueName))
	}
	f, err := disk.OpenShared(s.PrivatePath(queueName), os.O_RDONLY, 0)
	if err != nil {
		return nil, 0, false
	}
	defer disk.Release(f)
	if err := disk.LockWait(f, true); err != nil {
		return nil, 0, false
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, false
	}
	applied = appliedOffset(s)
	if applied > fi.Size() {
		applied = 0 // not this file's progress
	}
	b := make([]byte, fi.Size()-applied)
	if _, err := f.ReadAt(b, applied); err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, false
	}
	pos := applied
	for len(b) > 0 {
		line, rest, _ := bytes.Cut(b, []byte{'\n'})
		pos += int64(len(b) - len(rest))
		if len(line) > 0 {
			records = append(records, record{data: line, end: pos})
		}
		b = rest
	}
	if len(records) == 0 {
		applied = fi.Size() // nothing but empty lines
	}
	return records, applied, fi.Size() > 0
}

// appliedOffset reads how far the queue has been applied: the end of the
// batch in flight if the branch has its commit, else its start.
func appliedOffset(s *Session) int64 {
	p, err := os.ReadFile(s.PrivatePath(progressName))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(p))
	if len(f) != 3 {
		return 0
	}
	from, err1 := strconv.ParseInt(f[0], 10, 64)
	to, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || from < 0 || to < from {
		return 0
	}
	if to != from && landedSince(s, plumbing.NewHash(f[2])) {
		return to
	}
	return from
}

// applyBatch applies records, which follow offset from, in order, until
// they run out or the time budget does, commits what it applied as one
// revision, and says how many records that was (at least one).
func applyBatch(s *Session, records []record, from int64) (int, error) {
	for attempt := 1; ; attempt++ {
		head, err := s.readRef()
		if err != nil {
			return 0, err
		}
		b := &Batch{s: s}
		n := 0
		for n < len(records) && (n == 0 || !s.queue.late()) {
			if err := s.queue.apply(b, records[n].data); err != nil {
				s.warnf("a queued hook event could not be applied: %v", err)
			}
			n++
		}
		to := records[n-1].end
		if err := writeProgress(s, from, to, head); err != nil {
			return 0, err
		}
		err = b.finish()
		crashPoint("queue")
		if attempt < maxAttempts && (errors.Is(err, errRetry) || errors.Is(err, errMoved)) {
			continue // a person saved a file meanwhile: apply the batch on top
		}
		if err != nil {
			return 0, err
		}
		head, _ = s.readRef()
		return n, writeProgress(s, to, to, head)
	}
}

// late reports whether the time budget has run out.
func (q *queueReplay) late() bool { return !q.deadline.IsZero() && time.Now().After(q.deadline) }

func writeProgress(s *Session, from, to int64, head plumbing.Hash) error {
	return s.WritePrivate(progressName, []byte(strconv.FormatInt(from, 10)+" "+strconv.FormatInt(to, 10)+" "+head.String()+"\n"))
}

// emptyQueue empties the queue if it holds nothing beyond applied, and
// reports whether it did.
func emptyQueue(s *Session, applied int64) bool {
	path := s.PrivatePath(queueName)
	f, err := disk.OpenShared(path, os.O_RDONLY, 0)
	if err != nil {
		return true
	}
	defer disk.Release(f)
	if err := disk.LockWait(f, true); err != nil {
		return false
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != applied || !sameFile(f, path) {
		return false
	}
	if err := os.Rename(path, s.PrivatePath(oldQueueName)); err != nil {
		return false
	}
	os.Remove(s.PrivatePath(progressName))
	os.Remove(s.PrivatePath(oldQueueName))
	return true
}

// landedSince reports whether the branch has moved past then by a commit
// other than an adopted hand edit: the queued events applied then landed.
func landedSince(s *Session, then plumbing.Hash) bool {
	h, err := s.readRef()
	for steps := 0; err == nil && h != then && !h.IsZero(); steps++ {
		if steps == 8 {
			return true
		}
		e, err := entryFromCommit(s, h)
		if err != nil {
			return true
		}
		if e.Change.Op != "edit" {
			return true
		}
		h = e.Parent
	}
	return false
}

// giveUpIf is what the lock of a change that yields (Options.Yield) gives
// up waiting on: queued hook events showing that others wait too
// (Queued). nil when it does not yield.
func giveUpIf(yield bool, s *Session) func() bool {
	if yield {
		return s.Queued
	}
	return nil
}
