package mcpserver_test

import (
	"strings"
	"testing"
)

// TestTextOnly: without PLANGIT_MCP_STRUCTURED=1 a result is its text
// alone, with no structured content — Claude Code (2.1.328) shows the
// model a result's structured content instead of its text when it has
// any, and plangit's text is what it writes for the model — and an error
// is its "CODE: message" text, refused input included.
func TestTextOnly(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	cs := connect(t, root, "PLANGIT_MCP_STRUCTURED=")
	res := call(t, cs, "plan", map[string]any{"action": "init", "title": "Add caching", "phases": []string{"Build"}, "session": "s1"})
	if res.IsError || res.StructuredContent != nil || !strings.Contains(textOf(res), "Add caching") {
		t.Fatalf("init: structured %v, text %q", res.StructuredContent, textOf(res))
	}
	call(t, cs, "step", map[string]any{"action": "add", "text": "Write the cache"})
	res = call(t, cs, "show", map[string]any{})
	if text := textOf(res); res.StructuredContent != nil || !strings.Contains(text, "Write the cache") || strings.HasPrefix(text, "{") {
		t.Errorf("show: structured %v, text %q", res.StructuredContent, text)
	}
	for _, c := range []struct {
		code string
		args map[string]any
	}{
		{"STEP_NOT_FOUND", map[string]any{"action": "done", "id": "9"}},
		{"INVALID_ARGUMENT", map[string]any{"action": "done", "id": 1}},
		{"INVALID_ARGUMENT", map[string]any{"action": "done", "id": "1", "bogus": true}},
	} {
		res := call(t, cs, "step", c.args)
		if !res.IsError || res.StructuredContent != nil || !strings.HasPrefix(textOf(res), c.code+": ") {
			t.Errorf("%v: error %v, structured %v, text %q", c.args, res.IsError, res.StructuredContent, textOf(res))
		}
	}
}
