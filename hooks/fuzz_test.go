package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzClaudeHook: whatever bytes a host sends, a hook answers valid JSON or
// nothing, with exit code 0, and never panics.
func FuzzClaudeHook(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "hooks", "*.json"))
	for _, name := range files {
		b, _ := os.ReadFile(name)
		f.Add(strings.SplitN(filepath.Base(name), ".", 2)[0], b)
	}
	f.Add("Stop", []byte(`{"session_id":"s","hook_event_name":"Stop","last_assistant_message":"[Step] x\n[Step] y"}`))
	root := f.TempDir()
	fx := &fixture{t: f, root: root, now: t0}
	fx.withPlan("fuzz-session")
	f.Fuzz(func(t *testing.T, event string, payload []byte) {
		payload = bytes.ReplaceAll(payload, []byte("{{CWD}}"), inJSON(root))
		payload = bytes.ReplaceAll(payload, []byte("{{SESSION}}"), []byte("fuzz-session"))
		if _, err := (Claude{}).Decode(event, payload); err != nil {
			return
		}
		out, code := Run(Claude{}, event, bytes.NewReader(payload), Env{Root: root, Now: func() time.Time { return t0 }, LockWait: time.Second})
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		if len(out) > 0 && !json.Valid(out) {
			t.Fatalf("invalid JSON: %s", out)
		}
	})
}
