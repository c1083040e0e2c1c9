package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plangit/plangit/repo"
)

// settingsFixture copies testdata/settings/NAME into a temporary settings
// file.
func settingsFixture(t *testing.T, name string) (path string, original []byte) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "testdata", "settings", name))
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, src, 0o644)
	return path, src
}

func load(t *testing.T, path string) *Settings {
	t.Helper()
	s, err := LoadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return v
}

func TestInstallMergesIdempotently(t *testing.T) {
	for _, name := range []string{"team.json", "local.json", "empty.json", "compact.json", "oneline.json", "tabs.json"} {
		t.Run(name, func(t *testing.T) {
			path, original := settingsFixture(t, name)
			s := load(t, path)
			if err := s.Install("plangit"); err != nil {
				t.Fatal(err)
			}
			if err := s.Save(); err != nil {
				t.Fatal(err)
			}
			once, _ := os.ReadFile(path)

			// Everything that was there is still there.
			before, after := decode(t, original).(map[string]any), decode(t, once).(map[string]any)
			for k, v := range before {
				if k == "hooks" {
					continue
				}
				if !reflect.DeepEqual(after[k], v) {
					t.Errorf("key %s changed", k)
				}
			}
			// Every event has one plangit hook.
			installed := load(t, path).Installed()
			for _, ev := range repo.HookEvents {
				if installed[ev] != "plangit hook "+ev {
					t.Errorf("%s: %q", ev, installed[ev])
				}
			}
			// Key order is kept.
			if name == "team.json" {
				order := []string{`"$schema"`, `"permissions"`, `"env"`, `"hooks"`, `"model"`, `"includeCoAuthoredBy"`, `"futureSetting"`}
				last := -1
				for _, k := range order {
					i := strings.Index(string(once), k)
					if i < last {
						t.Errorf("key order changed at %s", k)
					}
					last = i
				}
				if !strings.Contains(string(once), "\n    \"permissions\"") {
					t.Error("the file's 4-space indent is kept")
				}
				hooksObj := after["hooks"].(map[string]any)
				if post := hooksObj["PostToolUse"].([]any); len(post) != 2 || post[0].(map[string]any)["matcher"] != "Edit|MultiEdit|Write" {
					t.Errorf("the existing PostToolUse group stays first: %v", post)
				}
			}

			// Installing again changes nothing.
			s2 := load(t, path)
			s2.Install("plangit")
			if s2.Changed() {
				t.Error("a second install changed something")
			}
			s2.Save()
			if twice, _ := os.ReadFile(path); string(twice) != string(once) {
				t.Error("install twice != install once")
			}

			// Uninstalling restores the original byte for byte — except that
			// a file left holding nothing is removed.
			s3 := load(t, path)
			s3.Uninstall()
			if err := s3.Save(); err != nil {
				t.Fatal(err)
			}
			restored, err := os.ReadFile(path)
			if name == "empty.json" {
				if err == nil {
					t.Errorf("a file left empty stays:\n%s", restored)
				}
				return
			}
			if string(restored) != string(original) {
				t.Errorf("uninstall did not restore the file byte for byte:\n%s\n---\n%s", restored, original)
			}
		})
	}
}

// TestInstallCreatesUninstallRemoves: a settings file install created is
// gone after uninstall; one written in between stays, with only plangit's
// entries taken out.
func TestInstallCreatesUninstallRemoves(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	s := load(t, path)
	s.Install("plangit")
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	created, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(created), "{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"hooks\": [\n") {
		t.Errorf("a new file is written one item per line:\n%s", created)
	}
	s = load(t, path)
	s.Uninstall()
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("uninstall left the file install created")
	}

	// A key added by hand after install stays, and so does the file.
	s = load(t, path)
	s.Install("plangit")
	s.Save()
	b, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(b), "{\n", "{\n  \"model\": \"opus\",\n", 1)), 0o644)
	s = load(t, path)
	s.Uninstall()
	s.Save()
	if got, _ := os.ReadFile(path); string(got) != "{\n  \"model\": \"opus\"\n}\n" {
		t.Errorf("after uninstall:\n%s", got)
	}
}

func TestUninstallKeepsSharedGroups(t *testing.T) {
	path, _ := settingsFixture(t, "shared_group.json")
	s := load(t, path)
	if s.Installed()[SessionStart] == "" {
		t.Fatal("an existing plangit hook is recognised")
	}
	s.Install("plangit")
	s.Save()
	if n := strings.Count(string(s.Bytes()), "plangit hook SessionStart"); n != 1 {
		t.Errorf("SessionStart hook %d times", n)
	}
	s = load(t, path)
	s.Uninstall()
	s.Save()
	got := decode(t, s.Bytes()).(map[string]any)
	groups := got["hooks"].(map[string]any)["SessionStart"].([]any)
	hooks := groups[0].(map[string]any)["hooks"].([]any)
	if len(hooks) != 1 || hooks[0].(map[string]any)["command"] != "echo hello" {
		t.Errorf("another tool's hook in the same group must stay: %v", hooks)
	}
}

func TestInstallRefusesBrokenSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	for _, bad := range []string{`{"hooks": [}`, `["not", "an", "object"]`, `{"hooks": []}`, `{"hooks": {"Stop": {"x": 1}}}`} {
		os.WriteFile(path, []byte(bad), 0o644)
		s, err := LoadSettings(path)
		if err == nil {
			err = s.Install("plangit")
		}
		if err == nil {
			t.Errorf("%s: accepted", bad)
		}
		if b, _ := os.ReadFile(path); string(b) != bad {
			t.Errorf("%s was overwritten", bad)
		}
	}
}

func TestSettingsPath(t *testing.T) {
	for scope, want := range map[string]string{"project": "/p/.claude/settings.json", "local": "/p/.claude/settings.local.json", "user": "/h/.claude/settings.json"} {
		if got, _ := SettingsPath(scope, "/p", "/h"); got != want {
			t.Errorf("%s: %s", scope, got)
		}
	}
	if _, err := SettingsPath("galaxy", "/p", "/h"); err == nil {
		t.Error("an unknown scope is refused")
	}
}
