package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// Queued events. A hook that cannot take its session's lock within its
// wait appends the event, as decoded from the host, to the session's queue
// (repo.Session.Enqueue) and answers nothing. The process that holds the
// lock next replays it: the same engine, the same rules, at the event's
// own time, its answer discarded.

// errQueued says the event was queued for the lock's holder.
var errQueued = errors.New("the session is busy: the event was queued")

// queued is one queued event.
type queued struct {
	Time time.Time `json:"time"`
	In   *Input    `json:"event"`
}

// enqueue appends the event to s's queue. A tool response is kept only
// where a rule reads it (TaskCreate's task id), so a record stays small.
// What the tool call carries — its input, its response, its error — is
// redacted first, as a record made of it would be: the queue is on disk
// too, and the replay records what it reads.
func (e *engine) enqueue(s *repo.Session) error {
	in := *e.in
	if in.ToolName == "TaskCreate" {
		if id := taskID(in.ToolResponse); id != "" {
			in.ToolResponse, _ = json.Marshal(map[string]string{"id": id})
		}
	} else {
		in.ToolResponse = nil
	}
	r := e.cfg.Redactor()
	in.ToolInput, in.ToolResponse, in.Error = r.JSON(in.ToolInput), r.JSON(in.ToolResponse), r.String(in.Error)
	rec, err := json.Marshal(queued{Time: e.env.Now(), In: &in})
	if err != nil {
		return err
	}
	if len(rec) > repo.MaxQueueRecord {
		return fmt.Errorf("the %s event is too large to queue (%d bytes)", in.Event, len(rec))
	}
	if err := s.Enqueue(rec); err != nil {
		return err
	}
	s.CatchUp() // the holder may have let go meanwhile
	return errQueued
}

// AttachQueue makes s apply the hook events queued for it through the
// engine's rules, spending at most budget on them in all (zero: as long as
// it takes), and makes it report its warnings to the project's log.
func AttachQueue(s *repo.Session, env Env, budget time.Duration) {
	if env.Now == nil {
		env.Now = time.Now
	}
	s.OnQueued(func(b *repo.Batch, record []byte) error { return replay(env, s, b, record) }, budget)
}

// replay applies one queued event to s, whose lock this process holds: its
// changes go to b, the batch being applied.
func replay(env Env, s *repo.Session, b *repo.Batch, record []byte) error {
	var q queued
	if err := json.Unmarshal(record, &q); err != nil || q.In == nil {
		return fmt.Errorf("a queued hook event cannot be read: %v", err)
	}
	env.Now = func() time.Time { return q.Time }
	e := &engine{env: env, in: q.In, proj: s.Project, sess: s, batch: b}
	cfg, err := e.proj.Config()
	if err != nil {
		return err
	}
	e.cfg = cfg
	if _, err := e.dispatch(); err != nil {
		return fmt.Errorf("hook %s (queued at %s): %w", q.In.Event, q.Time.UTC().Format(time.RFC3339), err)
	}
	return nil
}

// update runs fn as one change of s, under the project's rules. A change
// that commits also brings the plan's iterations up to the hooks' count of
// tool uses. When the session stays busy beyond the hook's wait, the event
// is queued instead (errQueued).
func (e *engine) update(s *repo.Session, fn func(*plan.State) (plan.Change, error)) (*repo.Result, error) {
	change := func(st *plan.State) (plan.Change, error) {
		st.Plan.Rules = e.cfg.Rules()
		c, err := fn(st)
		if err == nil && c.Op != "" {
			st.Plan.Iterations = max(st.Plan.Iterations, ToolUses(s))
		}
		return c, err
	}
	if e.batch != nil {
		return e.batch.Apply(e.options(), change)
	}
	res, err := s.Update(e.options(), change)
	if plan.HasCode(err, plan.CodeLockTimeout) && e.sess == nil {
		return nil, e.enqueue(s)
	}
	return res, err
}
