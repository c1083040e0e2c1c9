package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPublish: push_on makes the Stop or SessionEnd hook start a push —
// only that event, only for a session with something to push — and a
// push that cannot start is logged, the hook answering as ever.
func TestPublish(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.withPlan(sessionID)
	var started []string
	f.publish = func(root, session string) error {
		started = append(started, root+" "+session)
		return nil
	}
	want := f.root + " " + sessionID
	for _, tc := range []struct {
		pushOn, payload string
		push            bool
	}{
		{"off", "stop.json", false},
		{"off", "session_end.json", false},
		{"stop", "session_end.json", false},
		{"stop", "subagent_stop.json", false},
		{"stop", "stop.json", true},
		{"session_end", "stop.json", false},
		{"session_end", "session_end.json", true},
	} {
		f.config(`{"push_on": "` + tc.pushOn + `", "stop_mode": "off"}`)
		started = nil
		if out := f.run(tc.payload); out != "" {
			t.Errorf("%s with push_on %s answered %s", tc.payload, tc.pushOn, out)
		}
		if got := len(started) == 1 && started[0] == want; got != tc.push || len(started) > 1 {
			t.Errorf("%s with push_on %s started %q", tc.payload, tc.pushOn, started)
		}
	}

	// A session whose head a remote holds, as last seen, starts nothing.
	h, _ := s.Head()
	ref := filepath.Join(s.GitDir(), "refs", "plangit", "remote", "origin", "main")
	os.MkdirAll(filepath.Dir(ref), 0o755)
	os.WriteFile(ref, []byte(h+"\n"), 0o644)
	f.config(`{"push_on": "stop", "stop_mode": "off"}`)
	started = nil
	f.run("stop.json")
	if len(started) != 0 {
		t.Errorf("a published session started %q", started)
	}
	os.Remove(ref)

	f.publish = func(root, session string) error { return errors.New("no such program") }
	if out := f.run("stop.json"); out != "" {
		t.Errorf("a failed start answered %s", out)
	}
	if log := f.log(); !strings.Contains(log, "push_on: cannot start the push: no such program") {
		t.Errorf("plangit.log: %q", log)
	}
}
