package mcpserver_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestClaimTools: the step tool claims and releases for the agent it
// names, and its changes are fenced as the command line's are: another
// agent's change to a live claim, or an older token, is refused with
// CLAIMED and changes nothing.
func TestClaimTools(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	cs := connect(t, root, "PLANGIT_LOCK_WAIT=300ms")
	ok(t, cs, "plan", map[string]any{"action": "init", "title": "T", "phases": []string{"A"}, "session": "s1"})
	ok(t, cs, "step", map[string]any{"action": "add", "text": "one"})
	ok(t, cs, "step", map[string]any{"action": "add", "text": "two"})
	dir := filepath.Join(root, ".code-agent", "plans", "s1")

	_, text := ok(t, cs, "step", map[string]any{"action": "claim", "agent": "alpha", "lease": "10m"})
	if !strings.Contains(text, "step 1: pending → in_progress, claimed by alpha (lease 10m, token 1)") || !strings.Contains(text, "token: 1") {
		t.Fatalf("claim said %q", text)
	}
	ok(t, cs, "step", map[string]any{"action": "claim", "id": "2", "agent": "beta"})
	before := repotest.RevCount(t, dir)
	body, _ := fails(t, cs, "CLAIMED", "step", map[string]any{"action": "done", "id": "1", "agent": "beta"})
	if !strings.Contains(body["message"].(string), "claimed by alpha") {
		t.Errorf("refusal: %v", body)
	}
	fails(t, cs, "CLAIMED", "step", map[string]any{"action": "done", "id": "1"})
	fails(t, cs, "CLAIMED", "step", map[string]any{"action": "release", "id": "2", "agent": "alpha"})
	fails(t, cs, "INVALID_AGENT", "step", map[string]any{"action": "claim", "agent": "no spaces"})
	fails(t, cs, "INVALID_ARGUMENT", "step", map[string]any{"action": "claim", "agent": "alpha", "lease": "0"})
	fails(t, cs, "INVALID_ARGUMENT", "step", map[string]any{"action": "done", "id": "1", "agent": "alpha", "lease": "5m"})
	if n := repotest.RevCount(t, dir); n != before {
		t.Fatalf("%d revisions after refused calls, want %d", n, before)
	}
	ok(t, cs, "step", map[string]any{"action": "done", "id": "1", "agent": "alpha", "token": 1, "result": "r"})
	ok(t, cs, "step", map[string]any{"action": "release", "id": "2", "agent": "beta"})
	repotest.Check(t, dir)
}
