package hooks

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
)

// TestPluginActsOnce: with plangit's Claude Code plugin enabled and
// plangit's hooks in Claude Code's settings as well, Claude Code runs both
// on every event — the plugin's with CLAUDE_PLUGIN_ROOT set, the
// settings' without. The event changes the plan once and is said once,
// in either order: the settings' hook answers, the plugin's says nothing.
// The plugin alone, or beside settings that hook other events only,
// answers.
func TestPluginActsOnce(t *testing.T) {
	t.Parallel()
	plugin, err := filepath.Abs(filepath.Join("..", "plugin"))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	f.environ["HOME"] = t.TempDir()
	f.withPlan(sessionID, func(st *plan.State) { st.Errors = nil })
	msg := "Exit code 1\n--- FAIL: TestCacheExpiry (30.01s)\n    cache_test.go:41: entry still present after 30s"
	count := func() int {
		for _, e := range f.state(sessionID).Errors {
			if e.Message == msg {
				return e.Count
			}
		}
		return 0
	}
	fromPlugin := func() string {
		f.environ[hookwire.PluginRootVar], f.environ["CLAUDE_PROJECT_DIR"] = plugin, f.root
		defer delete(f.environ, hookwire.PluginRootVar)
		return f.runAs(nil, "PostToolUseFailure", "post_tool_use_failure_bash.json")
	}
	fromSettings := func() string { return f.runAs(nil, "PostToolUseFailure", "post_tool_use_failure_bash.json") }
	said := func(out string, n int) bool {
		return strings.Contains(out, "[plangit] Error #1: this failed "+strconv.Itoa(n)+" times")
	}

	// The plugin alone answers.
	fromPlugin()
	if fromPlugin(); count() != 2 {
		t.Fatalf("the plugin alone does not act: count %d after two failures", count())
	}

	// Settings that hook other events only: the plugin answers this one.
	settings := filepath.Join(f.root, ".claude", "settings.json")
	writeFile(t, settings, `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"plangit","args":["hook","SessionStart"]}]}]}}`)
	f.newTurn(sessionID)
	if out := fromPlugin(); !said(out, 3) || count() != 3 {
		t.Fatalf("the plugin beside settings without this event does not answer: %s (count %d)", out, count())
	}
	os.Remove(settings)

	// plangit's hooks in the project's settings, with a program of the
	// person's choosing: both deliveries, in either order, act once.
	s, err := LoadSettings(settings)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Install(Programs{Plangit: "/opt/plangit/bin/plangit", Hook: "/opt/plangit/bin/plangit-hook"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	revs := len(f.revisions(sessionID))
	f.newTurn(sessionID)
	p, st := fromPlugin(), fromSettings()
	if p != "" || !said(st, 4) {
		t.Errorf("plugin %q, settings %q: want the settings' answer alone", p, st)
	}
	f.newTurn(sessionID)
	st, p = fromSettings(), fromPlugin()
	if p != "" || !said(st, 5) {
		t.Errorf("settings %q, plugin %q: want the settings' answer alone", st, p)
	}
	if got := len(f.revisions(sessionID)); got != revs+2 || count() != 5 {
		t.Errorf("two events delivered twice each made %d revisions, count %d; want 2 and 5", got-revs, count())
	}

	// The user's settings, where CLAUDE_CONFIG_DIR puts them.
	os.Remove(settings)
	config := t.TempDir()
	f.environ["CLAUDE_CONFIG_DIR"] = config
	writeFile(t, filepath.Join(config, "settings.json"), string(s.Bytes()))
	f.newTurn(sessionID)
	if p, st := fromPlugin(), fromSettings(); p != "" || !said(st, 6) {
		t.Errorf("user settings in CLAUDE_CONFIG_DIR: plugin %q, settings %q", p, st)
	}
}
