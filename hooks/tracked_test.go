package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/interop"
	"github.com/plangit/plangit/repo"
)

// speckitTasks is a spec-kit tasks.md, as the fixtures' edits find it:
// T001 done, T002 to T004 not.
const speckitTasks = `# Tasks: Photo Albums

## Phase 1: Setup

- [X] T001 Create project structure per implementation plan
- [ ] T002 [P] Configure linting and formatting tools

## Phase 2: User Story 1 - Group photos into albums (Priority: P1)

- [ ] T003 [P] [US1] Create the Album model in src/models/album.js
- [ ] T004 [US1] Implement AlbumService in src/services/albums.js
`

// tasksPath is where the fixtures' edits write the tasks file.
func (f *fixture) tasksPath() string {
	return filepath.Join(f.root, "specs", "001-photo-albums", "tasks.md")
}

// withTasks starts the session's plan from speckitTasks, as plangit
// import does, and tracks the file (TrackTasks).
func (f *fixture) withTasks() *repo.Session {
	f.t.Helper()
	path := f.tasksPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		f.t.Fatal(err)
	}
	f.writeTasks(speckitTasks)
	before, err := os.Stat(path)
	if err != nil {
		f.t.Fatal(err)
	}
	in, err := interop.Import("tasks.md", []byte(speckitTasks), "", t0)
	if err != nil {
		f.t.Fatal(err)
	}
	in.State.Plan.ID = sessionID
	s, _, err := f.proj().Create(sessionID, in.State, plan.Change{Op: "init", Summary: "init: from spec-kit"}, repo.Options{Now: t0})
	if err != nil {
		f.t.Fatal(err)
	}
	got, err := TrackTasks(s, path, in.Format, before, []byte(speckitTasks))
	if err != nil || got != path {
		f.t.Fatalf("TrackTasks: %q, %v", got, err)
	}
	return s
}

// writeTasks writes the tasks file as an editor would, its time moved on:
// a file system's clock may not tick between two writes.
func (f *fixture) writeTasks(text string) {
	f.t.Helper()
	path := f.tasksPath()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.now = f.now.Add(time.Second)
	if err := os.Chtimes(path, f.now, f.now); err != nil {
		f.t.Fatal(err)
	}
}

// statuses lists the plan's steps as "ID status".
func statuses(p *plan.Plan) string {
	var out []string
	for _, st := range p.Steps() {
		out = append(out, st.ID+" "+string(st.Status))
	}
	return strings.Join(out, ", ")
}

// TestTickInTrackedTasks: each host's edit tool ticks T003 in the tracked
// tasks.md; the PostToolUse reads the file again and completes step 3 in
// one revision, and tells the agent; the same payload again, the file
// unchanged, makes no revision.
func TestTickInTrackedTasks(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		send func(f *fixture) string
	}{
		{"claude", func(f *fixture) string { return f.run("post_tool_use_edit_tasks.json") }},
		{"codex", func(f *fixture) string { return codexSaid(f.codex("post_tool_use_apply_patch_tasks")) }},
		{"gemini", func(f *fixture) string { return geminiSaid(f.gemini("after_tool_replace_tasks")) }},
		{"copilot", func(f *fixture) string {
			s, _ := f.copilot("post_tool_use_edit_tasks")["additionalContext"].(string)
			return s
		}},
		{"cursor", func(f *fixture) string {
			s, _ := f.cursor("post_tool_use_edit_tasks")["additional_context"].(string)
			return s
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newHostFixture(t)
			f.withTasks()
			f.writeTasks(strings.Replace(speckitTasks, "- [ ] T003", "- [X] T003", 1))
			out := c.send(f)
			p := f.state(sessionID).Plan
			if got := statuses(p); got != "1 completed, 2 pending, 3 completed, 4 pending" {
				t.Fatalf("steps: %s\nanswer: %s\nlog: %s", got, out, f.log())
			}
			revs := f.revisions(sessionID)
			last := revs[len(revs)-1]
			if len(revs) != 2 || !strings.Contains(last.Summary, "1 step changed (3) from spec-kit (tasks.md, the agent's ") || last.Hook != PostToolUse {
				t.Errorf("revisions: %d, the last %q by %q", len(revs), last.Summary, last.Hook)
			}
			if !strings.Contains(out, "Your edit of tasks.md is in the plan (revision ") || !strings.Contains(out, "1 step changed (3)") {
				t.Errorf("answer: %s", out)
			}
			c.send(f)
			if n := len(f.revisions(sessionID)); n != 2 {
				t.Errorf("the same edit again: %d revisions, want 2", n)
			}
		})
	}
}

// TestTrackedTasksCases: an unticked box reopens its step; a file that no
// longer reads changes nothing and the agent hears why; an edit of
// another file does not read the tasks file; a change on disk (a shell's
// sed -i) is applied at the stop, once.
func TestTrackedTasksCases(t *testing.T) {
	t.Parallel()
	t.Run("unticked", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.withTasks()
		f.writeTasks(strings.Replace(speckitTasks, "- [X] T001", "- [ ] T001", 1))
		f.run("post_tool_use_edit_tasks.json")
		if got := statuses(f.state(sessionID).Plan); got != "1 pending, 2 pending, 3 pending, 4 pending" {
			t.Errorf("steps: %s", got)
		}
	})
	t.Run("unreadable", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.withTasks()
		f.writeTasks("# Tasks: Photo Albums\n\nNo tasks any more.\n")
		out := f.run("post_tool_use_edit_tasks.json")
		if !strings.Contains(out, "tasks.md no longer reads as a spec-kit tasks file, so the plan did not take your edit; nothing changed") {
			t.Errorf("answer: %s", out)
		}
		if n := len(f.revisions(sessionID)); n != 1 {
			t.Errorf("%d revisions, want 1", n)
		}
		if got := statuses(f.state(sessionID).Plan); got != "1 completed, 2 pending, 3 pending, 4 pending" {
			t.Errorf("steps: %s", got)
		}
	})
	t.Run("another file", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.withTasks()
		f.writeTasks(strings.Replace(speckitTasks, "- [ ] T003", "- [X] T003", 1))
		f.run("post_tool_use_edit.json")
		if got := statuses(f.state(sessionID).Plan); got != "1 completed, 2 pending, 3 pending, 4 pending" {
			t.Errorf("an edit of another file applied the tasks file: %s", got)
		}
		// The stop finds it moved, and applies it, once.
		f.run("stop.json")
		if got := statuses(f.state(sessionID).Plan); got != "1 completed, 2 pending, 3 completed, 4 pending" {
			t.Fatalf("after the stop: %s\n%s", got, f.log())
		}
		revs := f.revisions(sessionID)
		if sum := revs[len(revs)-1].Summary; !strings.Contains(sum, "from spec-kit (tasks.md, changed on disk)") {
			t.Errorf("revision %q", sum)
		}
		n := len(revs)
		f.run("stop.json")
		if len(f.revisions(sessionID)) != n {
			t.Errorf("a second stop made a revision")
		}
	})
	t.Run("stop, same content", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := f.withTasks()
		f.writeTasks(speckitTasks) // touched, not changed
		f.run("stop.json")
		if n := len(f.revisions(sessionID)); n != 1 {
			t.Errorf("%d revisions, want 1", n)
		}
		tr, ok := TrackedTasks(s)
		if fi, err := os.Stat(f.tasksPath()); !ok || err != nil || tr.MTime != fi.ModTime().UnixNano() || tr.Moved() {
			t.Errorf("the record does not hold the file as read: %+v", tr)
		}
	})
}

// TestTrackTasks: only a spec-kit or OpenSpec tasks file read from a
// regular file is tracked, by its absolute path; the record reads back.
func TestTrackTasks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.withTasks()
	fi, _ := os.Stat(f.tasksPath())
	for _, c := range []struct {
		path, format string
		before       os.FileInfo
	}{
		{f.tasksPath(), interop.FormatTodos, fi},
		{"-", interop.FormatSpecKit, nil},
		{"bad\nname.md", interop.FormatSpecKit, fi},
	} {
		if got, err := TrackTasks(s, c.path, c.format, c.before, nil); got != "" || err != nil {
			t.Errorf("%q as %s: tracked %q, %v", c.path, c.format, got, err)
		}
	}
	tr, ok := hookwire.ReadTracked(s.PrivatePath(hookwire.TrackedFile))
	if !ok || tr.Path != f.tasksPath() || tr.Format != interop.FormatSpecKit {
		t.Errorf("record %+v, %v", tr, ok)
	}
}
