package hookwire

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRecognise: every hook fixture, written from its host's documented
// payloads, is recognised as the host it came from — Claude Code's at the
// top of testdata/hooks, each other host's in its own directory.
func TestRecognise(t *testing.T) {
	t.Parallel()
	// Codex's payloads are Claude Code's shape, and Codex runs no other
	// host's hooks: its entries name it (--host codex).
	hostOf := map[string]string{"hooks": HostClaude, "cursor": HostCursor, "copilot": HostCopilot, "codex": HostClaude, "gemini": HostGemini}
	fixtures, _ := filepath.Glob("../../testdata/hooks/*.json")
	more, _ := filepath.Glob("../../testdata/hooks/*/*.json")
	if len(fixtures) == 0 || len(more) == 0 {
		t.Fatal("no fixtures found")
	}
	for _, fx := range append(fixtures, more...) {
		dir := filepath.Base(filepath.Dir(fx))
		want, ok := hostOf[dir]
		if !ok {
			t.Fatalf("%s: no host expected for the directory %s", fx, dir)
		}
		payload, err := os.ReadFile(fx)
		if err != nil {
			t.Fatal(err)
		}
		if got := Recognise(payload); got != want {
			t.Errorf("%s: recognised as %s, want %s", fx, got, want)
		}
		if got := Recognise(append([]byte("\xef\xbb\xbf"), payload...)); got != want {
			t.Errorf("%s after a byte order mark: recognised as %s, want %s", fx, got, want)
		}
	}
	for _, bad := range []string{"", "{", "[1,2]", "null", `{"hook_event_name": 7}`} {
		if got := Recognise([]byte(bad)); got != HostClaude {
			t.Errorf("%q: %s, want the default host", bad, got)
		}
	}
}

func TestElements(t *testing.T) {
	t.Parallel()
	var got []string
	Elements([]byte(` [ "a", {"b": [1, 2]}, [3], "d\"]" ] `), func(v []byte) { got = append(got, string(v)) })
	want := []string{`"a"`, `{"b": [1, 2]}`, `[3]`, `"d\"]"`}
	if len(got) != len(want) {
		t.Fatalf("%q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("element %d: %s, want %s", i, got[i], want[i])
		}
	}
	for _, notArray := range []string{`{"a": 1}`, `"x"`, ``, `[]`} {
		Elements([]byte(notArray), func(v []byte) { t.Errorf("%s has an element %s", notArray, v) })
	}
}
