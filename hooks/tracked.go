package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/interop"
	"github.com/plangit/plangit/render/brief"
	"github.com/plangit/plangit/repo"
)

// A session tracks the tasks file its plan was imported from — the
// spec-kit or OpenSpec tasks.md plangit import last read from a path
// (TrackTasks) — so that the agent's tick of a box there is the step
// done:
//
//  1. PostToolUse of an edit tool (Write, Edit, MultiEdit, and the
//     other hosts' edit tools, which read as these) that writes the
//     tracked file reads it again and applies it with interop.Update, in
//     the event's one revision, through the gates as any change: a box
//     newly ticked completes its step, one unticked reopens it;
//  2. Stop applies it again when its size or modification time differ
//     from the record's (a shell's sed -i, a person's editor), in a
//     revision of its own, before the stop gate reads the plan;
//  3. a file that reads as the same plan, or whose content is the one
//     last read, changes nothing;
//  4. a file that no longer reads as its format changes nothing: at
//     PostToolUse the agent hears why, once a turn;
//  5. a file that cannot be read (removed, not a regular file) changes
//     nothing, and the record stays as it was.
//
// The record (hookwire.TrackedFile) is plangit's own, in the session's
// .git/plangit/; the tracked file is only ever read.

// TrackTasks makes the file at path, which an import just read as src
// (format: spec-kit or openspec) after before was taken of it, the tasks
// file the session tracks, in place of any other. It returns the path
// recorded: absolute and clean; "" when the file cannot be tracked (a
// file that is not regular, a path with a line break).
func TrackTasks(s *repo.Session, path, format string, before os.FileInfo, src []byte) (string, error) {
	if format != interop.FormatSpecKit && format != interop.FormatOpenSpec || before == nil || !before.Mode().IsRegular() {
		return "", nil
	}
	abs, err := filepath.Abs(path)
	if err != nil || !hookwire.TrackablePath(abs) {
		return "", nil
	}
	t := hookwire.Tracked{Path: abs, Format: format, Size: before.Size(), MTime: before.ModTime().UnixNano(), Sum: sum(src)}
	if err := s.EnsurePrivate(); err != nil {
		return "", err
	}
	return abs, s.WritePrivate(hookwire.TrackedFile, t.Encode())
}

// TrackedTasks is the tasks file the session tracks; ok is false for
// none.
func TrackedTasks(s *repo.Session) (hookwire.Tracked, bool) {
	return hookwire.ReadTracked(s.PrivatePath(hookwire.TrackedFile))
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// tasksRead is the tracked tasks file as the hook read it again.
type tasksRead struct {
	t   hookwire.Tracked // the record, with the file's stamp as read now
	src []byte
	bad error // why the file does not read as its format; nil when it does
}

// readTasks reads the tracked file again: its stamp taken before its
// content, so that a write after the read moves it again. nil when it
// cannot be read (case 5).
func readTasks(t hookwire.Tracked, now time.Time) *tasksRead {
	fi, err := os.Stat(t.Path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > plan.MaxFile {
		return nil
	}
	f, err := os.Open(t.Path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if now, err := f.Stat(); err != nil || !now.Mode().IsRegular() {
		return nil
	}
	src, err := io.ReadAll(io.LimitReader(f, plan.MaxFile+1))
	if err != nil || len(src) > plan.MaxFile {
		return nil
	}
	r := &tasksRead{src: src, t: t}
	r.t.Size, r.t.MTime, r.t.Sum = fi.Size(), fi.ModTime().UnixNano(), sum(src)
	if _, err := interop.Import(r.name(), src, t.Format, now); err != nil {
		r.bad = err
	}
	return r
}

// name is how the hooks name the tracked file: its base name.
func (r *tasksRead) name() string { return filepath.Base(r.t.Path) }

// apply brings the file into st in place (interop.Update); the change is
// empty when the plan holds it already. via says how the file changed,
// for the revision's summary.
func (r *tasksRead) apply(st *plan.State, via string, e *engine) (plan.Change, error) {
	imp, err := interop.Import(r.name(), r.src, r.t.Format, e.env.Now())
	if err != nil {
		return plan.Change{}, err
	}
	c, _, err := interop.Update(st, imp, e.env.Now())
	if err != nil || c.Op == "" {
		return plan.Change{}, err
	}
	c.Summary += " from " + r.t.Format + " (" + r.name() + ", " + via + ")"
	return c, nil
}

// record saves the stamp of what was read: a stop after it applies the
// file again only if it moves again.
func (r *tasksRead) record(e *engine, s *repo.Session) {
	if err := s.WritePrivate(hookwire.TrackedFile, r.t.Encode()); err != nil {
		e.proj.AppendLog(e.env.Now(), "hook "+e.in.Event+" session="+s.ID+": the tracked tasks file's record: "+err.Error())
	}
}

// tasksEdited is the tracked tasks file as the event's edit tool left
// it (case 1); nil when the tool wrote another file, or none.
func (e *engine) tasksEdited(s *repo.Session) *tasksRead {
	if !hookwire.EditTool(e.in.ToolName) {
		return nil
	}
	t, ok := TrackedTasks(s)
	if !ok || !t.Writes(e.in.ToolName, e.in.ToolInput, e.in.Cwd) {
		return nil
	}
	return readTasks(t, e.env.Now())
}

// tasksNotes is what the agent hears of its edit of the tracked file:
// that the plan took it, or why not (case 4).
func tasksNotes(r *tasksRead, applied *plan.Change, rev string, refused error) []hookwire.Part {
	switch {
	case r == nil:
		return nil
	case r.bad != nil:
		msg := plan.TruncateText(r.bad.Error(), 300)
		return []hookwire.Part{{Key: "tasks " + msg, Text: "[plangit] " + r.name() + " no longer reads as a " + r.t.Format + " tasks file, so the plan did not take your edit; nothing changed:\n" + brief.Data(msg)}}
	case refused != nil:
		msg := plan.TruncateText(refused.Error(), 300)
		return []hookwire.Part{{Key: "tasks " + msg, Text: "[plangit] The plan did not take your edit of " + r.name() + ":\n" + brief.Data(msg)}}
	case applied != nil && rev != "":
		_, moved, _ := strings.Cut(applied.Summary, " — ")
		moved, _, _ = strings.Cut(moved, " from "+r.t.Format)
		return []hookwire.Part{{Text: "[plangit] Your edit of " + r.name() + " is in the plan (revision " + rev + "): " + moved + "."}}
	}
	return nil
}

// tasksAtStop applies the tracked file again when it moved since it was
// last read (case 2), in a revision of its own.
func (e *engine) tasksAtStop(s *repo.Session) error {
	t, ok := TrackedTasks(s)
	if !ok || !t.Moved() {
		return nil
	}
	r := readTasks(t, e.env.Now())
	if r == nil {
		return nil
	}
	if r.bad != nil || r.t.Sum == t.Sum {
		r.record(e, s) // case 3 and 4: nothing to apply until it moves again
		return nil
	}
	_, err := e.update(s, func(st *plan.State) (plan.Change, error) {
		if st.Plan.Editable() != nil {
			return plan.Change{}, nil
		}
		c, err := r.apply(st, "changed on disk", e)
		if err != nil {
			// The file reads, but the plan cannot take it (a cycle of
			// needs, say): nothing changes, and the log says why.
			e.proj.AppendLog(e.env.Now(), "hook "+e.in.Event+" session="+s.ID+": "+r.name()+" is not applied: "+err.Error())
			return plan.Change{}, nil
		}
		return c, nil
	})
	if errors.Is(err, errQueued) {
		return err // the stop waits for the lock's holder, which applies the file then
	}
	if err != nil {
		// Refused (another agent's claim, a gate): the stop goes on, the
		// log says why, and the file is applied again once it moves.
		e.proj.AppendLog(e.env.Now(), "hook "+e.in.Event+" session="+s.ID+": "+r.name()+" is not applied: "+err.Error())
	}
	r.record(e, s)
	return nil
}
