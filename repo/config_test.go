package repo

import (
	"os"
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
