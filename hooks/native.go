package hooks

import (
	"os"
	"path/filepath"
	"strings"

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

// maxHookFile bounds a hook file plangit reads to look for its entries.
const maxHookFile = 1 << 20

// nativeHooksInstalled reports whether a host's own hook files — the
// project's and the user's — hold a plangit hook command: Cursor's
// .cursor/hooks.json and ~/.cursor/hooks.json; Copilot CLI's
// .github/hooks/*.json and ~/.copilot/hooks/*.json. Unreadable and
// malformed files hold none.
func nativeHooksInstalled(host, projectRoot, home string) bool {
	var files []string
	switch host {
	case HostCursor:
		files = append(files, filepath.Join(projectRoot, ".cursor", "hooks.json"))
		if home != "" {
			files = append(files, filepath.Join(home, ".cursor", "hooks.json"))
		}
	case HostCopilot:
		dirs := []string{filepath.Join(projectRoot, ".github", "hooks")}
		if home != "" {
			dirs = append(dirs, filepath.Join(home, ".copilot", "hooks"))
		}
		for _, dir := range dirs {
			m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			files = append(files, m...)
		}
	default:
		return false
	}
	for _, f := range files {
		if hookFileHasPlangit(f) {
			return true
		}
	}
	return false
}

// hookFileHasPlangit reports whether a {"hooks":{event:[entry, …]}} file
// has an entry that runs plangit's hook.
func hookFileHasPlangit(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxHookFile {
		return false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	found := false
	members(stripBOM(b), func(key string, hooks []byte) error {
		if key != "hooks" {
			return nil
		}
		return members(hooks, func(_ string, list []byte) error {
			eachElement(list, func(entry []byte) {
				found = found || isPlangitEntry(entry)
			})
			return nil
		})
	})
	return found
}

// isPlangitEntry reports whether a hook entry runs plangit's hook: a
// command line (command, bash, powershell) or an exec with args whose
// program is named plangit… and whose first argument is "hook", or the
// hook binary plangit-hook.
func isPlangitEntry(entry []byte) bool {
	var argv []string
	var exec string
	var args []byte
	members(entry, func(key string, value []byte) error {
		switch key {
		case "command", "bash", "powershell":
			if s, ok := jsonString(value); ok && len(argv) == 0 {
				argv = shellWords(s)
			}
		case "exec":
			exec, _ = jsonString(value)
		case "args":
			args = value
		}
		return nil
	})
	if exec != "" {
		argv = []string{exec}
		eachElement(args, func(v []byte) {
			s, _ := jsonString(v)
			argv = append(argv, s)
		})
	}
	if len(argv) < 2 {
		return false
	}
	base := strings.TrimSuffix(filepath.Base(argv[0]), ".exe")
	return base == "plangit-hook" || strings.HasPrefix(base, "plangit") && argv[1] == "hook"
}

// eachElement calls fn with each element of a JSON array; anything else
// has none.
func eachElement(list []byte, fn func(value []byte)) {
	i := skipSpace(list, 0)
	if i >= len(list) || list[i] != '[' {
		return
	}
	for i = skipSpace(list, i+1); i < len(list) && list[i] != ']'; {
		end := skipValue(list, i)
		fn(list[i:end])
		if i = skipSpace(list, end); i < len(list) && list[i] == ',' {
			i = skipSpace(list, i+1)
		}
	}
}

// shellWords splits a simple command line into words: spaces separate,
// quotes group, a backslash escapes. Enough to find the program and its
// first argument.
func shellWords(s string) []string {
	var out []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out, in = append(out, w.String()), false
				w.Reset()
			}
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			in = true
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, w.String())
	}
	return out
}

// defers reports whether a hook that did not name its host (an entry in
// Claude Code's settings) leaves the event to the host's own hook: the
// payload is Cursor's or Copilot's, and plangit's hooks are installed in
// that host's own files, project or user.
func defers(h Host, in *Input, env Env) bool {
	var host string
	switch h.(type) {
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
	var home string
	if env.Getenv != nil {
		home = env.Getenv("HOME")
	}
	return nativeHooksInstalled(host, root, home) || dir != root && nativeHooksInstalled(host, dir, "")
}
