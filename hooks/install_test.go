package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/plangit/plangit/hooks/hookwire"
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
	t.Parallel()
	for _, name := range []string{"team.json", "local.json", "empty.json", "compact.json", "oneline.json", "tabs.json"} {
		t.Run(name, func(t *testing.T) {
			path, original := settingsFixture(t, name)
			s := load(t, path)
			if err := s.Install(Programs{Plangit: "plangit"}); err != nil {
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
			s2.Install(Programs{Plangit: "plangit"})
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
	t.Parallel()
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	s := load(t, path)
	s.Install(Programs{Plangit: "plangit"})
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
	s.Install(Programs{Plangit: "plangit"})
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

// TestUninstallRemovesTheDirectoriesInstallMade: after install and
// uninstall in a project that had none of the host's directories, none is
// left (an empty .cursor would still mark the project as Cursor's to the
// next install); a directory holding anything else stays, and so does a
// directory of another name, such as CODEX_HOME.
func TestUninstallRemovesTheDirectoriesInstallMade(t *testing.T) {
	t.Parallel()
	roundTrip := func(t *testing.T, host, path string) {
		t.Helper()
		for _, uninstall := range []bool{false, true} {
			f, err := LoadHookFile(host, path)
			if err != nil {
				t.Fatal(err)
			}
			if uninstall {
				f.Uninstall()
			} else if err := f.Install(Programs{Plangit: "plangit"}); err != nil {
				t.Fatal(err)
			}
			if err := f.Save(); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, host := range []string{HostClaude, HostCodex, HostCursor, HostGemini, HostCopilot} {
		t.Run(host, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			path, err := HookFilePath(host, ScopeProject, root, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			roundTrip(t, host, path)
			if left, _ := os.ReadDir(root); len(left) != 0 {
				t.Errorf("left in the project: %v", left)
			}

			// Something else in the host's directory: it stays.
			other := filepath.Join(filepath.Dir(path), "other.md")
			os.MkdirAll(filepath.Dir(other), 0o755)
			os.WriteFile(other, []byte("mine\n"), 0o644)
			roundTrip(t, host, path)
			if _, err := os.Stat(other); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("CODEX_HOME", func(t *testing.T) {
		t.Parallel()
		home := filepath.Join(t.TempDir(), "codexhome")
		os.Mkdir(home, 0o755)
		path, err := HookFilePath(HostCodex, ScopeUser, "", func(k string) string {
			if k == "CODEX_HOME" {
				return home
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, HostCodex, path)
		if _, err := os.Stat(home); err != nil {
			t.Errorf("CODEX_HOME is the person's: %v", err)
		}
	})
}

func TestUninstallKeepsSharedGroups(t *testing.T) {
	t.Parallel()
	path, _ := settingsFixture(t, "shared_group.json")
	s := load(t, path)
	if s.Installed()[SessionStart] == "" {
		t.Fatal("an existing plangit hook is recognised")
	}
	if st, differ := s.State(Programs{Plangit: "plangit"}); st != StateOutdated || len(differ) != len(repo.HookEvents) {
		t.Errorf("one shell-form hook of nine: %s %v", st, differ)
	}
	s.Install(Programs{Plangit: "plangit"})
	s.Save()
	// The shell-form entry an earlier plangit wrote is upgraded in place,
	// beside the other tool's hook.
	want := `{"type": "command", "command": "echo hello"},
          {"type": "command", "command": "plangit", "args": ["hook", "SessionStart"], "timeout": 30}`
	if !strings.Contains(string(s.Bytes()), want) || strings.Count(string(s.Bytes()), `"SessionStart"`) != 2 {
		t.Errorf("SessionStart hook not upgraded in place:\n%s", s.Bytes())
	}
	if st, _ := load(t, path).State(Programs{Plangit: "plangit"}); st != StateInstalled {
		t.Errorf("after install: %s", st)
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
	t.Parallel()
	path := filepath.Join(t.TempDir(), "settings.json")
	for _, bad := range []string{`{"hooks": [}`, `["not", "an", "object"]`, `{"hooks": []}`, `{"hooks": {"Stop": {"x": 1}}}`} {
		os.WriteFile(path, []byte(bad), 0o644)
		s, err := LoadSettings(path)
		if err == nil {
			err = s.Install(Programs{Plangit: "plangit"})
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
	t.Parallel()
	for scope, want := range map[string]string{"project": "/p/.claude/settings.json", "local": "/p/.claude/settings.local.json", "user": "/h/.claude/settings.json"} {
		if got, _ := SettingsPath(scope, "/p", "/h"); got != filepath.FromSlash(want) {
			t.Errorf("%s: %s", scope, got)
		}
	}
	if _, err := SettingsPath("galaxy", "/p", "/h"); err == nil {
		t.Error("an unknown scope is refused")
	}
}

// TestInstallExecForm: Claude Code's entries run plangit without a shell —
// "command" with "args" (hooks reference, "Command hook fields", since
// 2.1.139) — and the hook binary answers PreToolUse, UserPromptSubmit,
// PostToolUse and Stop when it is installed beside plangit. A change of programs makes the file
// outdated, and installing again upgrades it in place.
func TestInstallExecForm(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	s := load(t, path)
	full := Programs{Plangit: "/opt/my tools/plangit"}
	s.Install(full)
	s.Save()
	var doc struct {
		Hooks map[string][]struct {
			Matcher string
			Hooks   []map[string]any
		}
	}
	b, _ := os.ReadFile(path)
	json.Unmarshal(b, &doc)
	pre := doc.Hooks[PreToolUse][0]
	if pre.Matcher != "*" || pre.Hooks[0]["command"] != "/opt/my tools/plangit" || !reflect.DeepEqual(pre.Hooks[0]["args"], []any{"hook", "PreToolUse"}) || pre.Hooks[0]["timeout"] != 30.0 {
		t.Errorf("PreToolUse entry: %+v", pre)
	}
	if got := load(t, path).Installed()[PreToolUse]; got != "'/opt/my tools/plangit' hook PreToolUse" {
		t.Errorf("Installed: %q", got)
	}

	withHook := Programs{Plangit: "plangit", Hook: "plangit-hook"}
	s = load(t, path)
	if st, differ := s.State(withHook); st != StateOutdated || len(differ) != len(repo.HookEvents) {
		t.Errorf("another program: %s %v", st, differ)
	}
	s.Install(withHook)
	s.Save()
	b, _ = os.ReadFile(path)
	json.Unmarshal(b, &doc)
	for event, want := range map[string][]any{PreToolUse: {"plangit-hook", "PreToolUse"}, UserPromptSubmit: {"plangit-hook", "UserPromptSubmit"}, PostToolUse: {"plangit-hook", "PostToolUse"}, Stop: {"plangit-hook", "Stop"}, PostToolUseFailure: {"plangit", "hook", "PostToolUseFailure"}, SubagentStop: {"plangit", "hook", "SubagentStop"}} {
		h := doc.Hooks[event][0].Hooks
		if len(h) != 1 || !reflect.DeepEqual(append([]any{h[0]["command"]}, h[0]["args"].([]any)...), want) {
			t.Errorf("%s: %v", event, h)
		}
	}
	if st, _ := load(t, path).State(withHook); st != StateInstalled {
		t.Errorf("after upgrade: %s", st)
	}
	s = load(t, path)
	s.Uninstall()
	s.Save()
	if _, err := os.Stat(path); err == nil {
		t.Error("uninstall after an upgrade left the file install created")
	}
}

// TestInstallRemovesDoubles: two plangit entries for one event, or one for
// an event plangit does not hook, are taken out by install.
func TestInstallRemovesDoubles(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "plangit hook Stop"}]}, {"hooks": [{"type": "command", "command": "/usr/bin/plangit hook Stop"}]}], "Notification": [{"hooks": [{"type": "command", "command": "plangit hook Notification"}, {"type": "command", "command": "say hi"}]}]}}`), 0o644)
	s := load(t, path)
	if st, differ := s.State(Programs{Plangit: "plangit"}); st != StateOutdated || !slices.Contains(differ, "Notification") || !slices.Contains(differ, Stop) {
		t.Errorf("%s %v", st, differ)
	}
	s.Install(Programs{Plangit: "plangit"})
	got := string(s.Bytes())
	if strings.Count(got, `"hook", "Stop"`) != 1 || strings.Contains(got, "/usr/bin/plangit") || strings.Contains(got, "plangit hook Notification") || !strings.Contains(got, "say hi") {
		t.Errorf("%s", got)
	}
}

func TestShellFields(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"plangit hook PreToolUse":                        {"plangit", "hook", "PreToolUse"},
		`'/opt/my tools/plangit' hook Stop --host codex`: {"/opt/my tools/plangit", "hook", "Stop", "--host", "codex"},
		`"C:\x" hook Stop`:                               {`C:\x`, "hook", "Stop"},
		`a\ b c`:                                         {"a b", "c"},
	} {
		if got := hookwire.ShellWords(in); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q", in, got)
		}
		if in == "plangit hook PreToolUse" && ShellJoin(want) != in {
			t.Errorf("shellJoin: %q", ShellJoin(want))
		}
	}
	if got := hookwire.ShellWords(ShellJoin([]string{"it's", "a b", ""})); !reflect.DeepEqual(got, []string{"it's", "a b", ""}) {
		t.Errorf("round trip: %q", got)
	}
}
