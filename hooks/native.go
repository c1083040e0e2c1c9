package hooks

import (
	"path/filepath"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/repo"
)

// Acting once per event. Cursor (with third-party hooks on) runs the hooks
// of .claude/settings.local.json, .claude/settings.json and
// ~/.claude/settings.json beside its own (cursor.com/docs/reference/
// third-party-hooks), and Copilot CLI runs the repository's
// .claude/settings.json and .claude/settings.local.json beside its own
// (Copilot hooks reference, "Hooks locations"). plangit's entries in
// Claude Code's settings name no host — `plangit hook PreToolUse` — so
// when such a hook receives Cursor's or Copilot's payload, and plangit's
// hooks are also in that host's own hook files, the host's own entry
// answers the event and this one answers nothing. With no plangit entry
// there, it answers as that host.

// nativeHooksInstalled reports whether a host's own hook files — the
// project's and the user's, where hooks install writes them (HookFilePath)
// — hold an entry of plangit's (hookwire.HookFileRuns): Cursor's .cursor/hooks.json and
// ~/.cursor/hooks.json; any .json file in Copilot CLI's .github/hooks/ and
// ~/.copilot/hooks/ (or $COPILOT_HOME/hooks/), since Copilot reads them
// all. Unreadable and malformed files hold none.
func nativeHooksInstalled(host, projectRoot string, getenv func(string) string) bool {
	if host != HostCursor && host != HostCopilot {
		return false
	}
	for _, scope := range Scopes(host) {
		path, err := HookFilePath(host, scope, projectRoot, getenv)
		if err != nil {
			continue
		}
		files := []string{path}
		if host == HostCopilot {
			files, _ = filepath.Glob(filepath.Join(filepath.Dir(path), "*.json"))
		}
		for _, f := range files {
			if hookwire.HookFileRuns(f, "") {
				return true
			}
		}
	}
	return false
}

// defers reports whether a hook that did not name its host (an entry in
// Claude Code's settings, or in plangit's Claude Code plugin) leaves the
// event to another plangit hook: the payload is Cursor's or Copilot's, and
// plangit's hooks are installed in that host's own files, project or user;
// or the payload is Claude Code's, the hook runs from plangit's plugin,
// and Claude Code's settings hold plangit's hook for the event too.
func defers(h Host, event string, in *Input, env Env) bool {
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var host string
	switch h.(type) {
	case Claude:
		// plangit's plugin beside its hooks in Claude Code's settings
		// (hookwire.ClaudePluginDefers).
		return hookwire.ClaudePluginDefers(event, in.Cwd, getenv)
	case Cursor:
		host = HostCursor
	case Copilot:
		host = HostCopilot
	default:
		return false
	}
	dir := in.Cwd
	if dir == "" && env.Getwd != nil {
		dir, _ = env.Getwd()
	}
	root, err := repo.FindRoot(env.Root, dir)
	if err != nil {
		root = dir
	}
	noUser := func(string) string { return "" }
	return nativeHooksInstalled(host, root, getenv) || dir != root && nativeHooksInstalled(host, dir, noUser)
}
