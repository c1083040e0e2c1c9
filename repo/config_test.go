package repo

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// TestSetConfigWritesOnlyTheKey: config set writes the one key it sets.
// The file's other keys and formatting stay byte for byte; a new file
// holds just that key, so later changes of the other defaults apply.
func TestSetConfigWritesOnlyTheKey(t *testing.T) {
	t.Parallel()
	p := Project{Root: t.TempDir()}
	if _, err := p.SetConfig("stop_mode", "advise"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p.ConfigPath()); string(b) != "{\n  \"stop_mode\": \"advise\"\n}\n" {
		t.Errorf("a new file:\n%s", b)
	}

	hand := "{\n    // not JSON\n}"
	os.WriteFile(p.ConfigPath(), []byte(hand), 0o644)
	if _, err := p.SetConfig("stop_mode", "off"); plan.CodeOf(err) != plan.CodeInvalidArgument {
		t.Errorf("a broken file: %v", err)
	}
	if b, _ := os.ReadFile(p.ConfigPath()); string(b) != hand {
		t.Error("a broken file was written")
	}

	hand = "{\n\t\"retention_days\": 14,   \"view_tools\": [\"Read\", \"Grep\"],\n\t\"hooks\": {\"Stop\": false}\n}"
	steps := []struct{ key, value, want string }{
		{"strike_limit", "5", "{\n\t\"retention_days\": 14,   \"view_tools\": [\"Read\", \"Grep\"],\n\t\"hooks\": {\"Stop\": false},\n\t\"strike_limit\": 5\n}"},
		{"retention_days", "30", "{\n\t\"retention_days\": 30,   \"view_tools\": [\"Read\", \"Grep\"],\n\t\"hooks\": {\"Stop\": false},\n\t\"strike_limit\": 5\n}"},
		{"view_tools", "Read, Glob", "{\n\t\"retention_days\": 30,   \"view_tools\": [\"Read\", \"Glob\"],\n\t\"hooks\": {\"Stop\": false},\n\t\"strike_limit\": 5\n}"},
		{"hooks.PreCompact", "false", "{\n\t\"retention_days\": 30,   \"view_tools\": [\"Read\", \"Glob\"],\n\t\"hooks\": {\"Stop\": false, \"PreCompact\": false},\n\t\"strike_limit\": 5\n}"},
		{"strike_limit", "5", "{\n\t\"retention_days\": 30,   \"view_tools\": [\"Read\", \"Glob\"],\n\t\"hooks\": {\"Stop\": false, \"PreCompact\": false},\n\t\"strike_limit\": 5\n}"},
	}
	os.WriteFile(p.ConfigPath(), []byte(hand), 0o644)
	for _, s := range steps {
		c, err := p.SetConfig(s.key, s.value)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p.ConfigPath()); string(b) != s.want {
			t.Errorf("set %s %s:\n%s\nwant\n%s", s.key, s.value, b, s.want)
		}
		back, err := p.Config()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := back.Get(s.key)
		if want, _ := c.Get(s.key); got != want {
			t.Errorf("%s reads back as %s, want %s", s.key, got, want)
		}
	}
	before, _ := os.ReadFile(p.ConfigPath())
	if _, err := p.SetConfig("context_budget", "50"); err == nil {
		t.Error("an invalid value is accepted")
	}
	if _, err := p.SetConfig("no_such_key", "1"); err == nil {
		t.Error("an unknown key is accepted")
	}
	if after, _ := os.ReadFile(p.ConfigPath()); string(after) != string(before) {
		t.Error("a refused value changed the file")
	}
}

// TestConfigRedactExtra: redact_extra is a list of Go regular
// expressions; one that does not compile is a config error naming the
// key and the pattern, from the file and from config set, and changes
// nothing; the patterns reach the plan's rules.
func TestConfigRedactExtra(t *testing.T) {
	t.Parallel()
	p := Project{Root: t.TempDir()}
	os.MkdirAll(p.Dir(), 0o755)
	os.WriteFile(p.ConfigPath(), []byte(`{"redact_extra": ["acme_[0-9a-f]{4,8}", "(?i)pin (?P<secret>\\d+)"]}`), 0o644)
	c, err := p.Config()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Rules().Redact.String("acme_12ab PIN 4711 GITHUB_TOKEN=x"); got != "[redacted] PIN [redacted] GITHUB_TOKEN=[redacted]" {
		t.Fatalf("the plan's rules redact %q", got)
	}
	os.WriteFile(p.ConfigPath(), []byte(`{"redact_extra": ["ok", "a(b"]}`), 0o644)
	_, err = p.Config()
	if plan.CodeOf(err) != plan.CodeInvalidArgument || !strings.HasPrefix(err.Error(), `config.json: redact_extra: pattern 2, "a(b", is not a Go regular expression`) {
		t.Fatalf("a bad pattern: %v", err)
	}
	os.WriteFile(p.ConfigPath(), []byte(`{"redact_extra": "acme"}`), 0o644)
	if _, err = p.Config(); !strings.HasPrefix(fmt.Sprint(err), "config.json: redact_extra: must be a list of strings") {
		t.Fatalf("not a list: %v", err)
	}

	os.Remove(p.ConfigPath())
	if _, err := p.SetConfig("redact_extra", `["x{2,3}", "y"]`); err != nil {
		t.Fatal(err)
	}
	if c, err := p.Config(); err != nil || !slices.Equal(c.RedactExtra, []string{"x{2,3}", "y"}) {
		t.Fatalf("a JSON list, written and read back: %v %v", c.RedactExtra, err)
	}
	if _, err := p.SetConfig("redact_extra", `z{1,2}`); err != nil {
		t.Fatal(err)
	}
	c, _ = p.Config()
	if v, _ := c.Get("redact_extra"); v != `["z{1,2}"]` {
		t.Fatalf("one pattern, its comma kept: %s", v)
	}
	before, _ := os.ReadFile(p.ConfigPath())
	for _, bad := range []string{`(`, `["ok", "("]`, `["unclosed`} {
		_, err := p.SetConfig("redact_extra", bad)
		if plan.CodeOf(err) != plan.CodeInvalidArgument || !strings.Contains(err.Error(), "redact_extra") {
			t.Errorf("set %s: %v", bad, err)
		}
	}
	if after, _ := os.ReadFile(p.ConfigPath()); string(after) != string(before) {
		t.Errorf("a refused set wrote the file: %s", after)
	}
	if _, err := p.SetConfig("redact_extra", ""); err != nil {
		t.Fatal(err)
	}
	if c, _ := p.Config(); len(c.RedactExtra) != 0 || c.Rules().Redact != nil {
		t.Fatalf("cleared: %+v", c.RedactExtra)
	}
	if v, _ := DefaultConfig().Get("redact_extra"); v != "[]" {
		t.Errorf("default: %s", v)
	}
}
