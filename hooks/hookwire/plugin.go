package hookwire

import (
	"os"
	"path/filepath"
)

// Acting once when plangit's Claude Code plugin is enabled and plangit's
// hooks are in Claude Code's settings as well. Claude Code runs both: it
// folds identical hooks only within one source (a plugin, one settings
// file), so the plugin's `plangit hook PreToolUse` and the settings' run
// side by side on every event. The plugin's hook then answers nothing and
// leaves the event to the settings' hook — the one the person installed
// for this project or user, perhaps with a program of their choosing.
//
// A hook runs from a plugin when Claude Code gives it CLAUDE_PLUGIN_ROOT,
// the plugin's directory (it sets it for a plugin's hooks alone); the
// plugin is plangit's when its hooks/hooks.json holds plangit's hook for
// the event. The settings are the ones Claude Code reads for the project
// it runs in (CLAUDE_PROJECT_DIR, which it gives every hook, else the
// payload's cwd) — .claude/settings.json and .claude/settings.local.json
// — and the user's: settings.json in CLAUDE_CONFIG_DIR, else in
// ~/.claude. Where none holds plangit's hook for the event, the plugin's
// answers it.

// PluginRootVar is the variable Claude Code sets for a plugin's hooks.
const PluginRootVar = "CLAUDE_PLUGIN_ROOT"

// maxHookFile bounds a hook file read to look for plangit's entries.
const maxHookFile = 1 << 20

// ClaudePluginDefers reports whether a Claude Code hook for event, run
// from plangit's plugin, leaves the event to plangit's hook in Claude
// Code's settings (see above). cwd is the payload's.
func ClaudePluginDefers(event, cwd string, getenv func(string) string) bool {
	root := getenv(PluginRootVar)
	if root == "" || event == "" || !HookFileRuns(filepath.Join(root, "hooks", "hooks.json"), event) {
		return false
	}
	project := getenv("CLAUDE_PROJECT_DIR")
	if project == "" {
		project = cwd
	}
	var files []string
	if project != "" {
		files = append(files, filepath.Join(project, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.local.json"))
	}
	if dir := getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		files = append(files, filepath.Join(dir, "settings.json"))
	} else if home := getenv("HOME"); home != "" {
		files = append(files, filepath.Join(home, ".claude", "settings.json"))
	}
	for _, f := range files {
		if HookFileRuns(f, event) {
			return true
		}
	}
	return false
}

// HookFileRuns reports whether the hook file at path — {"hooks": {event:
// [matcher group or entry, …]}} — runs plangit's hook for event (for any
// event when event is ""), in a matcher group's "hooks" or as an entry of
// its own. A missing, irregular, oversized or malformed file runs none.
func HookFileRuns(path, event string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxHookFile {
		return false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	found := false
	Members(StripBOM(b), func(key string, hooks []byte) error {
		if key != "hooks" {
			return nil
		}
		return Members(hooks, func(name string, list []byte) error {
			if event != "" && name != event {
				return nil
			}
			Elements(list, func(item []byte) {
				inner := false
				Members(item, func(k string, v []byte) error {
					if k == "hooks" {
						inner = true
						Elements(v, func(e []byte) { found = found || IsPlangitHook(e) })
					}
					return nil
				})
				found = found || !inner && IsPlangitHook(item)
			})
			return nil
		})
	})
	return found
}
