package mcpserver_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/plangit/plangit/hooks/mcpconf"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
)

var server = mcpconf.Entry{Command: "plangit", Args: []string{"mcp"}}

// roundTrip installs the server into a file holding before (none: no
// file), checks the result and that installing again changes nothing,
// then uninstalls and checks the file is exactly as it was.
func roundTrip(t *testing.T, host, before string, exists bool) []byte {
	t.Helper()
	h, err := mcpconf.FindHost(host)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "settings")
	var mode os.FileMode // as the system keeps 0600: Windows keeps a writable file's as 0666
	if exists {
		os.WriteFile(path, []byte(before), 0o600)
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	e, err := h.Install(path, server)
	if err != nil {
		t.Fatalf("install into %q: %v", before, err)
	}
	if !e.Changed || e.Created == exists {
		t.Errorf("install: changed %v, created %v", e.Changed, e.Created)
	}
	if err := e.Save(); err != nil {
		t.Fatal(err)
	}
	installed, _ := os.ReadFile(path)
	checkEntry(t, h, installed)
	if fi, _ := os.Stat(path); exists && fi.Mode().Perm() != mode {
		t.Errorf("install changed the file's mode to %v", fi.Mode().Perm())
	}
	if again, err := h.Install(path, server); err != nil || again.Changed || string(again.Content()) != string(installed) {
		t.Errorf("installing twice changed the file (%v)", err)
	}
	u, err := h.Uninstall(path)
	if err != nil {
		t.Fatalf("uninstall from %q: %v", installed, err)
	}
	if err := u.Save(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	switch {
	case !exists && err == nil:
		t.Errorf("uninstall left the file install created:\n%s", after)
	case exists && string(after) != before:
		t.Errorf("uninstall did not give the file back byte for byte:\n--- before\n%q\n--- installed\n%q\n--- after\n%q", before, installed, after)
	}
	if again, err := h.Uninstall(path); err != nil || again.Changed {
		t.Errorf("uninstalling twice changed something (%v)", err)
	}
	return installed
}

// checkEntry decodes an installed file as its host does and finds the
// server in it.
func checkEntry(t *testing.T, h mcpconf.Host, data []byte) {
	t.Helper()
	var entry map[string]any
	if h.TOML {
		var doc struct {
			Servers map[string]map[string]any `toml:"mcp_servers"`
		}
		if err := toml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("installed file is not TOML: %v\n%s", err, data)
		}
		entry = doc.Servers["plangit"]
	} else {
		var doc struct {
			Servers map[string]map[string]any `json:"mcpServers"`
		}
		if err := json.Unmarshal(stripComments(data), &doc); err != nil {
			t.Fatalf("installed file is not JSON: %v\n%s", err, data)
		}
		entry = doc.Servers["plangit"]
	}
	args, _ := entry["args"].([]any)
	if entry["command"] != "plangit" || len(args) != 1 || args[0] != "mcp" {
		t.Errorf("installed entry %v in:\n%s", entry, data)
	}
	if h.StdioType && entry["type"] != "stdio" {
		t.Errorf("claude's entry has no type stdio: %v", entry)
	}
}

// stripComments removes /* */ and // comments outside strings, for the
// test's own decoding of Gemini's settings.
func stripComments(data []byte) []byte {
	s := regexp.MustCompile(`/\*.*?\*/`).ReplaceAllString(string(data), "")
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, "// "); i >= 0 && strings.Count(line[:i], `"`)%2 == 0 {
			line = line[:i]
		}
		out = append(out, line)
	}
	return []byte(strings.Join(out, "\n"))
}

// TestInstallJSON: Claude Code, Gemini CLI and Cursor settings, in the
// shapes people and the hosts write them, round-trip byte for byte.
func TestInstallJSON(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"other settings": `{
  "model": "opus",
  "permissions": {
    "allow": ["Bash(go test:*)"]
  }
}
`,
		"other servers, four spaces": `{
    "mcpServers": {
        "github": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"TOKEN": "x"}
        }
    }
}
`,
		"empty servers":         "{\n  \"numStartups\": 12,\n  \"mcpServers\": {},\n  \"projects\": {\"/p\": {\"mcpServers\": {}}}\n}\n",
		"one line":              `{"theme":"dark","mcpServers":{"a":{"command":"a"}}}`,
		"no trailing newline":   "{\n\t\"theme\": \"dark\"\n}",
		"tabs and servers last": "{\n\t\"theme\": \"dark\",\n\t\"mcpServers\": {\n\t\t\"a\": {\"command\": \"a\"}\n\t}\n}\n",
		"crlf":                  "{\r\n  \"theme\": \"dark\"\r\n}\r\n",
		"empty object":          "{}\n",
		"unicode and escapes":   "{\n  \"greeting\": \"h\\u00e9llo \\\"you\\\" ✓\",\n  \"mcpServers\": {\"x\": {\"command\": \"C:\\\\x.exe\"}}\n}\n",
	}
	for _, host := range []string{"claude", "gemini", "cursor"} {
		t.Run(host, func(t *testing.T) {
			created := roundTrip(t, host, "", false)
			if !strings.HasPrefix(string(created), "{\n  \"mcpServers\": {\n    \"plangit\": {") {
				t.Errorf("a new file:\n%s", created)
			}
			for name, before := range files {
				t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) { roundTrip(t, host, before, true) })
			}
		})
	}
	// Gemini reads its settings with comments.
	roundTrip(t, "gemini", "{\n  // the look\n  \"theme\": \"dark\", /* inline */\n  \"mcpServers\": {\n    \"a\": {\"command\": \"a\"} // last\n  }\n}\n", true)
}

// TestInstallTOML: Codex's config.toml round-trips byte for byte, with
// its comments and layout, and only a [mcp_servers.plangit] table of
// plangit's is ever cut.
func TestInstallTOML(t *testing.T) {
	t.Parallel()
	created := roundTrip(t, "codex", "", false)
	if string(created) != "[mcp_servers.plangit]\ncommand = \"plangit\"\nargs = [\"mcp\"]\n" {
		t.Errorf("a new file:\n%s", created)
	}
	files := map[string]string{
		"settings and comments": `# Codex settings
model = "o4-mini"   # the default
approval_policy = "on-request"

[sandbox_workspace_write]
network_access = false
`,
		"other servers": `[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]

[mcp_servers.github.env]
TOKEN = "x"
`,
		"no trailing newline": `model = "o3"`,
		"a string that looks like the table": `notes = """
[mcp_servers.plangit]
command = "not a table"
"""
`,
		"trailing blank lines": "model = \"o3\"\n\n\n",
		"empty servers table":  "[mcp_servers]\n",
	}
	for name, before := range files {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) { roundTrip(t, "codex", before, true) })
	}

	h, _ := mcpconf.FindHost("codex")
	// A table written by hand, with a subtable, between other tables:
	// uninstall cuts the table and its subtable, and keeps the comment
	// that belongs to the next table.
	path := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(path, []byte(`model = "o3"

[mcp_servers.plangit]
command = "/opt/bin/plangit"   # mine
args = ["mcp", "--root", "/work"]

[mcp_servers.plangit.env]
PLANGIT_ACTOR = "agent"

# the next table's comment
[mcp_servers.other]
command = "other"
`), 0o644)
	if _, err := h.Install(path, server); !plan.HasCode(err, plan.CodeConflict) {
		t.Errorf("install over a different plangit server: %v, want CONFLICT", err)
	}
	e, err := h.Uninstall(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `model = "o3"

# the next table's comment
[mcp_servers.other]
command = "other"
`
	if string(e.Content()) != want {
		t.Errorf("uninstall of a hand-written table:\n%s\nwant:\n%s", e.Content(), want)
	}
	// An inline table is plangit's server too, but not plangit's to cut.
	os.WriteFile(path, []byte("[mcp_servers]\nplangit = { command = \"plangit\", args = [\"mcp\"] }\n"), 0o644)
	if e, err := h.Install(path, server); err != nil || e.Changed {
		t.Errorf("install over the same server, inline: %v, changed %v", err, e != nil && e.Changed)
	}
	if _, err := h.Uninstall(path); !plan.HasCode(err, plan.CodeInvalidArgument) || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("uninstall of an inline table: %v", err)
	}
}

// TestInstallRefuses: a file that does not parse, or holds a server named
// plangit that runs something else, is refused and left as it was.
func TestInstallRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		host, content, code string
		unreadable          bool // uninstall refuses it too
	}{
		{"claude", "{\n  \"theme\": \"dark\",\n}\n", "INVALID_ARGUMENT", true},
		{"claude", "[1, 2]\n", "INVALID_ARGUMENT", true},
		{"claude", "{\"a\": 1} {\"b\": 2}", "INVALID_ARGUMENT", true},
		{"cursor", "{\n  // a comment Cursor does not read\n  \"mcpServers\": {}\n}\n", "INVALID_ARGUMENT", true},
		{"gemini", "{\"mcpServers\": [\"plangit\"]}\n", "INVALID_ARGUMENT", false},
		{"claude", "{\"mcpServers\": {\"plangit\": {\"command\": \"/old/plangit\", \"args\": [\"mcp\"]}}}\n", "CONFLICT", false},
		{"codex", "model = \n", "INVALID_ARGUMENT", true},
		{"codex", "mcp_servers = 3\n", "INVALID_ARGUMENT", false},
		{"codex", "[mcp_servers.plangit]\ncommand = \"other\"\n", "CONFLICT", false},
	}
	for _, c := range cases {
		h, _ := mcpconf.FindHost(c.host)
		path := filepath.Join(t.TempDir(), "settings")
		os.WriteFile(path, []byte(c.content), 0o644)
		if _, err := h.Install(path, server); plan.CodeOf(err) != plan.Code(c.code) {
			t.Errorf("%s, install into %q: %v, want %s", c.host, c.content, err, c.code)
		}
		if e, err := h.Uninstall(path); c.unreadable && plan.CodeOf(err) != plan.CodeInvalidArgument {
			t.Errorf("%s, uninstall from %q: %v, want INVALID_ARGUMENT", c.host, c.content, err)
		} else if !c.unreadable && c.code != "CONFLICT" && (err != nil || e.Changed) {
			t.Errorf("%s, uninstall from %q, which has no server of plangit's: %v", c.host, c.content, err)
		}
		if got, _ := os.ReadFile(path); string(got) != c.content {
			t.Errorf("%s: the refused file changed: %q", c.host, got)
		}
	}
}

// TestInstallCommand drives plangit mcp install and uninstall for every
// host and scope, as a person runs them.
func TestInstallCommand(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	home := filepath.Join(root, ".home")
	run := func(args ...string) (string, int) {
		c := exec.Command(filepath.Join(bin, "plangit"), append([]string{"mcp"}, args...)...)
		c.Dir, c.Env = root, testEnv(t, root, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := c.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		}
		return string(out), 0
	}
	paths := map[string][2]string{
		"claude": {filepath.Join(root, ".mcp.json"), filepath.Join(home, ".claude.json")},
		"codex":  {filepath.Join(root, ".codex", "config.toml"), filepath.Join(home, ".codex", "config.toml")},
		"gemini": {filepath.Join(root, ".gemini", "settings.json"), filepath.Join(home, ".gemini", "settings.json")},
		"cursor": {filepath.Join(root, ".cursor", "mcp.json"), filepath.Join(home, ".cursor", "mcp.json")},
	}
	for host, p := range paths {
		for i, scope := range []string{"project", "user"} {
			// go test ./... runs a JSON host in the project and the TOML
			// one in the user's home (TestInstallJSON and TestInstallTOML
			// edit every host's file in process); PLANGIT_LONG=1 every
			// host in both.
			if !repotest.Long() && host+" "+scope != "claude project" && host+" "+scope != "codex user" {
				continue
			}
			path := p[i]
			out, code := run("install", "--host", host, "--scope", scope, "--print")
			if code != 0 || !strings.Contains(out, "plangit") {
				t.Errorf("%s %s --print: exit %d: %s", host, scope, code, out)
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("%s %s: --print wrote %s", host, scope, path)
			}
			if out, code := run("install", "--host", host, "--scope", scope); code != 0 || !strings.Contains(out, path) {
				t.Errorf("%s %s install: exit %d: %s", host, scope, code, out)
			}
			h, _ := mcpconf.FindHost(host)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%s %s: %v", host, scope, err)
			}
			checkEntry(t, h, data)
			if out, code := run("install", "--host", host, "--scope", scope, "--json"); code != 0 || !strings.Contains(out, `"changed": false`) {
				t.Errorf("%s %s install again: exit %d: %s", host, scope, code, out)
			}
			if out, code := run("uninstall", "--host", host, "--scope", scope); code != 0 || !strings.Contains(out, "removed") {
				t.Errorf("%s %s uninstall: exit %d: %s", host, scope, code, out)
			}
			if _, err := os.Stat(path); err == nil {
				t.Errorf("%s %s: uninstall left %s, which install created", host, scope, path)
			}
			if dir := filepath.Dir(path); dir != root && dir != home {
				if _, err := os.Stat(dir); err == nil {
					t.Errorf("%s %s: uninstall left %s, which install created, empty", host, scope, dir)
				}
			}
		}
	}
	if out, code := run("install"); code != 2 || !strings.Contains(out, "host") {
		t.Errorf("install without --host: exit %d: %s", code, out)
	}
	if out, code := run("install", "--host", "vim"); code == 0 || !strings.Contains(out, "claude, codex, gemini, cursor") {
		t.Errorf("install --host vim: exit %d: %s", code, out)
	}
	if out, code := run("install", "--host", "claude", "--scope", "galaxy"); code == 0 || !strings.Contains(out, "project, user") {
		t.Errorf("install --scope galaxy: exit %d: %s", code, out)
	}
}
