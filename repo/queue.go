package repo

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
)

// The hook queue. A hook never waits long for a busy session: an event
// that cannot take the lock in time is appended to .git/plangit/queue as
// one record, and the next process that holds the lock applies the queued
// events in order, before its own change. The store keeps records opaque;
// the hooks package writes and replays them (through the same engine code
// as a live event).
//
//   - Appending is one write of "\nRECORD\n" to the file opened with
//     O_APPEND, under a shared flock that only a drainer taking the queue
//     excludes, for the moment of a rename. A record cut short by a killed
//     appender spoils only its own line.
//   - Taking the queue, under the session lock: an exclusive flock on the
//     file (so no append is half-done), a rename to queue.applying, and the
//     flock released. An appender that locked the old file after the rename
//     sees it is no longer at the path and appends to the new one.
//   - Applying, in batches (batch.go): before each, queue.progress records
//     the batch's first record, its size and the branch's revision. A
//     drainer killed midway leaves both; the next one resumes there, and
//     skips the batch if the branch has its commit (any commit but an
//     adopted edit). Hook counters an interrupted batch already counted may
//     count twice; the plan never changes twice.
//
// A drainer may have a time budget (hooks have one, so as never to keep
// the agent waiting): what it leaves stays in queue.applying for the next,
// and it appends an empty record to the queue, so that a glance at the
// queue's size still shows work is waiting.
const (
	queueName    = "queue"
	applyingName = "queue.applying"
	progressName = "queue.progress"
	// MaxQueueRecord bounds one queued record.
	MaxQueueRecord = 1 << 20
)

// queueReplay is how this process applies queued hook events.
type queueReplay struct {
	apply    func(record []byte) error
	deadline time.Time // zero: no budget
	draining bool
	stopped  bool   // the budget ran out
	batch    *batch // the batch being applied
}

// OnQueued sets how this process applies queued hook events, and how long
// it may spend on them in all (zero: as long as it takes).
func (s *Session) OnQueued(apply func(record []byte) error, budget time.Duration) {
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
	if err := s.ensurePrivate(); err != nil {
		return err
	}
	line := make([]byte, 0, len(record)+2)
	line = append(append(append(line, '\n'), record...), '\n')
	path := s.PrivatePath(queueName)
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|oNoFollow, 0o644)
		if err != nil {
			if isLinkErr(err) {
				return plan.Errorf(plan.CodeIOError, "%s is a symbolic link; plangit never follows one", path)
			}
			return plan.WrapError(plan.CodeIOError, err, "cannot queue an event for session %s", s.ID)
		}
		if err := lockFileWait(f, false); err != nil {
			f.Close()
			return plan.WrapError(plan.CodeIOError, err, "cannot queue an event for session %s", s.ID)
		}
		if !sameFile(f, path) {
			f.Close() // taken for applying meanwhile: append to the new queue
			continue
		}
		_, err = f.Write(line)
		if cerr := f.Close(); err == nil {
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
	for i := 0; i < 3 && q.apply != nil && !q.stopped && !s.locked && s.Queued(); i++ {
		unlock, ok := s.tryExclusive()
		if !ok {
			return
		}
		if err := s.settle(); err == nil {
			s.drain()
		}
		unlock()
	}
}

// drain applies every queued event, in order. It runs under the session
// lock.
func (s *Session) drain() {
	q := &s.queue
	if q.apply == nil || q.draining || q.stopped {
		return
	}
	q.draining = true
	defer func() { q.draining = false }()
	for {
		records, next, ok := s.applying()
		if !ok {
			if !s.takeQueue() {
				return
			}
			continue
		}
		for next < len(records) {
			if !q.deadline.IsZero() && time.Now().After(q.deadline) {
				q.stopped = true
				s.Enqueue(nil) // work is waiting
				return
			}
			end := min(len(records), next+maxBatch)
			if err := s.applyBatch(records[next:end], next); err != nil {
				s.warnf("queued hook events wait for the next change: %v", err)
				return
			}
			next = end
		}
		os.Remove(s.PrivatePath(applyingName))
		os.Remove(s.PrivatePath(progressName))
	}
}

// applyBatch applies records, the first of which is the first-th being
// applied, and commits them as one revision.
func (s *Session) applyBatch(records [][]byte, first int) error {
	for attempt := 1; ; attempt++ {
		head, err := s.readRef()
		if err != nil {
			return err
		}
		progress := strconv.Itoa(first) + " " + strconv.Itoa(len(records)) + " " + head.String() + "\n"
		if err := s.WritePrivate(progressName, []byte(progress)); err != nil {
			return err
		}
		b := &batch{}
		s.queue.batch = b
		for _, r := range records {
			if err := s.queue.apply(r); err != nil {
				s.warnf("a queued hook event could not be applied: %v", err)
			}
		}
		s.queue.batch = nil
		err = s.finishBatch(b)
		crashPoint("queue")
		if attempt < maxAttempts && (errors.Is(err, errRetry) || errors.Is(err, errMoved)) {
			continue // a person saved a file meanwhile: apply the batch on top
		}
		return err
	}
}

// takeQueue moves the queue aside for applying; false when it is empty.
func (s *Session) takeQueue() bool {
	path := s.PrivatePath(queueName)
	if fi, err := os.Lstat(path); err != nil || fi.Size() == 0 {
		return false
	}
	f, err := os.OpenFile(path, os.O_RDWR|oNoFollow, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := lockFileWait(f, true); err != nil {
		return false
	}
	os.Remove(s.PrivatePath(progressName))
	if err := os.Rename(path, s.PrivatePath(applyingName)); err != nil {
		s.warnf("cannot take the hook queue: %v", err)
		return false
	}
	return true
}

// applying returns the records being applied and the index of the first
// not yet applied; ok is false when none are being applied.
func (s *Session) applying() (records [][]byte, next int, ok bool) {
	b, err := os.ReadFile(s.PrivatePath(applyingName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false
	}
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		if len(line) > 0 {
			records = append(records, line)
		}
	}
	p, err := os.ReadFile(s.PrivatePath(progressName))
	if err != nil {
		return records, 0, true
	}
	f := strings.Fields(string(p))
	if len(f) != 3 {
		return records, 0, true
	}
	i, err1 := strconv.Atoi(f[0])
	n, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || i < 0 || n < 0 {
		return records, 0, true
	}
	if s.landedSince(plumbing.NewHash(f[2])) {
		i += n
	}
	return records, i, true
}

// landedSince reports whether the branch has moved past then by a commit
// other than an adopted hand edit: the queued event applied then landed.
func (s *Session) landedSince(then plumbing.Hash) bool {
	h, err := s.readRef()
	for steps := 0; err == nil && h != then && !h.IsZero(); steps++ {
		if steps == 8 {
			return true
		}
		e, err := s.entryFromCommit(h)
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
