package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// hostFiles are hook files as people keep them, one per host plangit
// installs for: other keys, another tool's hook, each with its own
// formatting. Every host in the hosts table must have one.
var hostFiles = map[string]string{
	HostClaude:  "{\n\t\"model\": \"opus\",\n\t\"hooks\": {\n\t\t\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"./notify.sh\"}]}]\n\t},\n\t\"env\": {\"A\": \"1\"}\n}\n",
	HostCodex:   `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./notify.sh", "timeout": 5}]}]}}`,
	HostCursor:  "{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [ { \"command\": \"./format.sh\" } ]\n  }\n}\n",
	HostGemini:  "{\n  \"theme\": \"GitHub\",\n  \"general\": { \"vimMode\": true },\n  \"hooks\": {\n    \"AfterTool\": [\n      { \"matcher\": \"write_file\", \"hooks\": [ { \"name\": \"fmt\", \"type\": \"command\", \"command\": \"./fmt.sh\", \"timeout\": 5000 } ] }\n    ]\n  },\n  \"ui\": { \"hideBanner\": true }\n}\n",
	HostCopilot: "{\n    \"version\": 1,\n    \"hooks\": {\n        \"sessionEnd\": [\n            {\"type\": \"command\", \"bash\": \"./cleanup.sh\", \"timeoutSec\": 10}\n        ]\n    }\n}\n",
}

// TestInstallEveryHostAndScope: for every host plangit answers and every
// scope of its hook file, install writes one plangit entry per event the
// host is hooked on, in the host's shape and timeout unit, keeps every
// other key and hook, is idempotent, and uninstall restores the file byte
// for byte, or removes the file install created; a file that is not as the
// host reads it is refused and left alone.
func TestInstallEveryHostAndScope(t *testing.T) {
	t.Parallel()
	for _, host := range HostNames() {
		existing, ok := hostFiles[host]
		if !ok {
			t.Fatalf("no hook file of %s in hostFiles", host)
		}
		events, err := HostEvents(host)
		if err != nil || len(events) == 0 {
			t.Fatalf("%s: events %v, %v", host, events, err)
		}
		for _, scope := range Scopes(host) {
			t.Run(host+"/"+scope, func(t *testing.T) {
				root, home := t.TempDir(), t.TempDir()
				getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
				path, err := HookFilePath(host, scope, root, getenv)
				if err != nil {
					t.Fatal(err)
				}
				if under := map[bool]string{true: home, false: root}[scope == ScopeUser]; !strings.HasPrefix(path, under+string(filepath.Separator)) {
					t.Fatalf("%s is not under %s", path, under)
				}

				// No file: install creates it, uninstall removes it.
				f := loadHost(t, host, path)
				if err := f.Install(Programs{Plangit: "plangit"}); err != nil {
					t.Fatal(err)
				}
				saveHost(t, f)
				created, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				checkEntries(t, host, events, created)
				if st, differ := loadHost(t, host, path).State(Programs{Plangit: "plangit"}); st != StateInstalled {
					t.Errorf("after install: %s %v", st, differ)
				}
				f = loadHost(t, host, path)
				f.Uninstall()
				saveHost(t, f)
				if _, err := os.Stat(path); err == nil {
					t.Errorf("uninstall left the file install created")
				}

				// A file of the person's: kept, key for key and byte for byte.
				os.MkdirAll(filepath.Dir(path), 0o755)
				os.WriteFile(path, []byte(existing), 0o644)
				f = loadHost(t, host, path)
				if st, _ := f.State(Programs{Plangit: "plangit"}); st != StateAbsent {
					t.Errorf("before install: %s", st)
				}
				f.Install(Programs{Plangit: "plangit"})
				saveHost(t, f)
				once, _ := os.ReadFile(path)
				checkEntries(t, host, events, once)
				before, after := decode(t, []byte(existing)).(map[string]any), decode(t, once).(map[string]any)
				for k, v := range before {
					if k != "hooks" && !reflect.DeepEqual(after[k], v) {
						t.Errorf("key %s changed: %v", k, after[k])
					}
				}
				for event, v := range before["hooks"].(map[string]any) {
					theirs, _ := json0(v)
					if got, _ := json0(after["hooks"].(map[string]any)[event]); !strings.Contains(got, strings.TrimSuffix(strings.TrimPrefix(theirs, "["), "]")) {
						t.Errorf("%s: the other tool's hook is gone: %s", event, got)
					}
				}
				f = loadHost(t, host, path)
				f.Install(Programs{Plangit: "plangit"})
				if f.Changed() {
					t.Error("a second install changed something")
				}
				f = loadHost(t, host, path)
				f.Uninstall()
				saveHost(t, f)
				if restored, _ := os.ReadFile(path); string(restored) != existing {
					t.Errorf("uninstall did not restore the file byte for byte:\n%s\n---\n%s", restored, existing)
				}

				// Not as the host reads it: refused, never overwritten.
				for _, bad := range []string{`{"hooks": [}`, `["hooks"]`, `{"hooks": {"x": {"y": 1}}}`} {
					os.WriteFile(path, []byte(bad), 0o644)
					f, err := LoadHookFile(host, path)
					if err == nil {
						err = f.Install(Programs{Plangit: "plangit"})
					}
					if err == nil {
						t.Errorf("%s: accepted", bad)
					}
					if b, _ := os.ReadFile(path); string(b) != bad {
						t.Errorf("%s was overwritten", bad)
					}
				}
			})
		}
	}
}

// TestHookFileHomes: Codex's user file follows CODEX_HOME and Copilot
// CLI's COPILOT_HOME, as each host reads them.
func TestHookFileHomes(t *testing.T) {
	t.Parallel()
	env := map[string]string{"HOME": "/h", "CODEX_HOME": "/c", "COPILOT_HOME": "/k"}
	getenv := func(k string) string { return env[k] }
	wants := map[string]string{
		HostClaude: "/h/.claude/settings.json", HostCodex: "/c/hooks.json", HostCursor: "/h/.cursor/hooks.json",
		HostGemini: "/h/.gemini/settings.json", HostCopilot: "/k/hooks/plangit.json",
	}
	for _, host := range HostNames() {
		want, ok := wants[host]
		if !ok {
			t.Fatalf("no user file of %s in the test", host)
		}
		if got, err := HookFilePath(host, ScopeUser, "/p", getenv); got != filepath.FromSlash(want) {
			t.Errorf("%s user: %s %v, want %s", host, got, err, want)
		}
	}
}

func loadHost(t *testing.T, host, path string) *HookFile {
	t.Helper()
	f, err := LoadHookFile(host, path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func saveHost(t *testing.T, f *HookFile) {
	t.Helper()
	if err := f.Save(); err != nil {
		t.Fatal(err)
	}
}

func json0(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// checkEntries checks a hook file install wrote: each of the host's events
// has exactly one plangit entry, naming the host (but Claude Code's, which
// Cursor and Copilot run too), with the host's timeout in its unit.
func checkEntries(t *testing.T, host string, events []HostEvent, data []byte) {
	t.Helper()
	doc := decode(t, data).(map[string]any)
	if flat := host == HostCursor || host == HostCopilot; flat && doc["version"] != float64(1) {
		t.Errorf("no \"version\": 1:\n%s", data)
	}
	hooks := doc["hooks"].(map[string]any)
	for _, ev := range events {
		var ours []map[string]any
		for _, item := range hooks[ev.Name].([]any) {
			entries := []any{item}
			if inner, ok := item.(map[string]any)["hooks"]; ok {
				entries = inner.([]any)
			}
			for _, e := range entries {
				e := e.(map[string]any)
				line, _ := json0(e)
				if strings.Contains(line, "plangit") {
					ours = append(ours, e)
				}
			}
		}
		if len(ours) != 1 {
			t.Errorf("%s: %d plangit entries", ev.Name, len(ours))
			continue
		}
		e := ours[0]
		line, _ := json0(e)
		if host != HostClaude && !strings.Contains(line, "--host") {
			t.Errorf("%s: the entry does not name its host: %s", ev.Name, line)
		}
		if !strings.Contains(line, ev.Name) {
			t.Errorf("%s: the entry does not name its event: %s", ev.Name, line)
		}
		switch host {
		case HostGemini:
			if e["timeout"] != float64(hookTimeout*1000) {
				t.Errorf("%s: timeout %v, want milliseconds", ev.Name, e["timeout"])
			}
		case HostCopilot:
			if e["timeoutSec"] != float64(hookTimeout) {
				t.Errorf("%s: timeoutSec %v", ev.Name, e["timeoutSec"])
			}
		default:
			if e["timeout"] != float64(hookTimeout) {
				t.Errorf("%s: timeout %v, want seconds", ev.Name, e["timeout"])
			}
		}
	}
}

// TestInstallGeminiComments: Gemini CLI reads its settings.json with
// comments (strip-json-comments), and so does install: the comments stay
// where they are, and uninstall gives the file back byte for byte. Claude
// Code's settings are strict JSON: a comment there is refused.
func TestInstallGeminiComments(t *testing.T) {
	t.Parallel()
	const text = "{\n  // chosen by the team\n  \"theme\": \"GitHub\", /* for now */\n  \"hooks\": {\n    // formatting after writes\n    \"AfterTool\": [\n      { \"matcher\": \"write_file\", \"hooks\": [ { \"name\": \"fmt\", \"type\": \"command\", \"command\": \"./fmt.sh\" } ] }\n    ]\n  }\n}\n"
	path := filepath.Join(t.TempDir(), ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(text), 0o644)
	f := loadHost(t, HostGemini, path)
	if err := f.Install(Programs{Plangit: "plangit"}); err != nil {
		t.Fatal(err)
	}
	saveHost(t, f)
	got, _ := os.ReadFile(path)
	for _, c := range []string{"// chosen by the team", "/* for now */", "// formatting after writes", `"command": "./fmt.sh"`, `"command": "plangit hook BeforeTool --host gemini"`} {
		if !strings.Contains(string(got), c) {
			t.Errorf("%s is missing:\n%s", c, got)
		}
	}
	if st, differ := loadHost(t, HostGemini, path).State(Programs{Plangit: "plangit"}); st != StateInstalled {
		t.Errorf("%s %v", st, differ)
	}
	f = loadHost(t, HostGemini, path)
	f.Uninstall()
	saveHost(t, f)
	if back, _ := os.ReadFile(path); string(back) != text {
		t.Errorf("uninstall:\n%s\nwant\n%s", back, text)
	}
	claude := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(claude, []byte("{\n  // no\n  \"model\": \"opus\"\n}\n"), 0o644)
	if _, err := LoadHookFile(HostClaude, claude); err == nil {
		t.Error("Claude Code's settings with a comment accepted")
	}
}

// TestInstallHookBinaryPerHost: with the hook binary beside plangit,
// install gives it the events it answers for each host — Codex CLI's
// PreToolUse and UserPromptSubmit, Gemini CLI's BeforeAgent and
// BeforeTool, Cursor's beforeSubmitPrompt and preToolUse, as shell
// command lines naming the host, Copilot CLI's userPromptSubmitted and
// preToolUse in exec form — and plangit every other event; an install from before the
// hook binary is outdated in exactly those events, and upgraded in place.
func TestInstallHookBinaryPerHost(t *testing.T) {
	t.Parallel()
	plain, withHook := Programs{Plangit: "plangit"}, Programs{Plangit: "plangit", Hook: "plangit-hook"}
	for _, host := range HostNames() {
		if host == HostClaude {
			continue // TestInstallUpgrades
		}
		t.Run(host, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "hooks.json")
			f := loadHost(t, host, path)
			f.Install(plain)
			saveHost(t, f)
			_, differ := loadHost(t, host, path).State(withHook)
			want := map[string][]string{HostCodex: {UserPromptSubmit, PreToolUse}, HostGemini: {"BeforeAgent", "BeforeTool"}, HostCopilot: {"userPromptSubmitted", "preToolUse"}, HostCursor: {"beforeSubmitPrompt", "preToolUse"}}[host] // in the host's order of events
			if !reflect.DeepEqual(differ, want) {
				t.Errorf("outdated events %v, want %v", differ, want)
			}
			f = loadHost(t, host, path)
			f.Install(withHook)
			saveHost(t, f)
			events, _ := HostEvents(host)
			installed := loadHost(t, host, path).Installed()
			for _, ev := range events {
				cmd := "plangit hook " + ev.Name + " --host " + host
				if slices.Contains(want, ev.Name) {
					cmd = "plangit-hook " + ev.Name + " --host " + host
				}
				if installed[ev.Name] != cmd {
					t.Errorf("%s: %q, want %q", ev.Name, installed[ev.Name], cmd)
				}
			}
			if host == HostCodex {
				b, _ := os.ReadFile(path)
				if !strings.Contains(string(b), `"command": "plangit-hook PreToolUse --host codex"`) {
					t.Errorf("not a shell command line:\n%s", b)
				}
			}
			if st, differ := loadHost(t, host, path).State(withHook); st != StateInstalled {
				t.Errorf("after the upgrade: %s %v", st, differ)
			}
			f = loadHost(t, host, path)
			f.Uninstall()
			saveHost(t, f)
			if _, err := os.Stat(path); err == nil {
				t.Error("uninstall left the file install created")
			}
		})
	}
}
