package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plangit/plangit/hooks"
	"github.com/plangit/plangit/hooks/mcpconf"
	"github.com/plangit/plangit/hooks/skill"
	"github.com/plangit/plangit/repo/repotest"
)

// The plugins and the extension (plugin/, and the marketplaces at the
// root) repeat what plangit already knows: the hook entries `plangit hooks
// install` writes, the server entry `plangit mcp install` writes, the
// skill, the version. Their files are generated from it here, and the test
// fails when a committed file differs from what plangit makes now;
// `go test -run TestPluginFiles -update .` rewrites them, and git diff
// reviews the change.

// pluginPrograms are what the plugins' hooks run: plangit and its hook
// binary on PATH, as `hooks install` names them when it finds both there.
var pluginPrograms = hooks.Programs{Plangit: "plangit", Hook: hooks.HookProgram, OS: "linux"}

// extensionBin is where the Gemini CLI extension keeps the binaries, as
// the extension's files spell it: Gemini CLI puts the extension's
// directory for ${extensionPath} and the system's separator for ${/}.
const extensionBin = "${extensionPath}${/}bin${/}"

// Descriptions the manifests and marketplaces carry.
const (
	pluginDescription = "A persistent, versioned plan for your coding agent: every change to the plan is a git revision. Hooks keep the plan in front of the agent; the MCP server and the skill drive it."
	repoURL           = "https://github.com/plangit/plangit"
)

// pluginFiles are the generated files, by path from the repository root.
func pluginFiles(t *testing.T) map[string][]byte {
	t.Helper()
	version := strings.TrimSpace(readRepoFile(t, "VERSION"))
	author := map[string]string{"name": "The plangit authors"}
	keywords := []string{"plan", "planning", "git", "hooks", "mcp", "agent"}
	files := map[string][]byte{
		// Claude Code: the plugin's hooks, its MCP server and the skill;
		// Claude Code loads hooks/hooks.json, .mcp.json and skills/ by
		// themselves.
		"plugin/hooks/hooks.json":        installedHooks(t, hooks.HostClaude),
		"plugin/.mcp.json":               installedServer(t, "claude", mcpconf.Entry{Command: "plangit", Args: []string{"mcp"}}),
		"plugin/skills/plangit/SKILL.md": skill.File,
		"plugin/.claude-plugin/plugin.json": manifest(t, ordered{
			{"name", "plangit"}, {"version", version}, {"description", pluginDescription},
			{"author", author}, {"homepage", repoURL}, {"repository", repoURL}, {"license", "MIT"}, {"keywords", keywords},
		}),
		".claude-plugin/marketplace.json": manifest(t, ordered{
			{"name", "plangit"}, {"owner", author},
			{"metadata", ordered{{"description", "plangit's plugin for Claude Code and Copilot CLI"}, {"version", version}}},
			{"plugins", []ordered{{
				{"name", "plangit"}, {"source", "./plugin"}, {"description", pluginDescription}, {"version", version},
				{"author", author}, {"homepage", repoURL}, {"repository", repoURL}, {"license", "MIT"}, {"keywords", keywords}, {"category", "productivity"},
			}}},
		}),
		// Codex CLI: the manifest names its hooks file, so that Codex reads
		// hooks in its own form and not Claude Code's hooks/hooks.json.
		"plugin/hooks/codex.json": installedHooks(t, hooks.HostCodex),
		"plugin/.codex-plugin/plugin.json": manifest(t, ordered{
			{"name", "plangit"}, {"version", version}, {"description", pluginDescription},
			{"author", author}, {"homepage", repoURL}, {"repository", repoURL}, {"license", "MIT"}, {"keywords", keywords},
			{"skills", "./skills/"}, {"hooks", "./hooks/codex.json"}, {"mcpServers", "./.mcp.json"},
			{"interface", ordered{
				{"displayName", "plangit"}, {"shortDescription", "A persistent, versioned plan for the agent"},
				{"longDescription", pluginDescription}, {"developerName", "The plangit authors"}, {"category", "Productivity"},
				{"capabilities", []string{"Interactive", "Write"}}, {"websiteURL", repoURL},
			}},
		}),
		".agents/plugins/marketplace.json": manifest(t, ordered{
			{"name", "plangit"}, {"interface", ordered{{"displayName", "plangit"}}},
			{"plugins", []ordered{{
				{"name", "plangit"}, {"source", ordered{{"source", "local"}, {"path", "./plugin"}}},
				{"policy", ordered{{"installation", "AVAILABLE"}, {"authentication", "ON_INSTALL"}}}, {"category", "Productivity"},
			}}},
		}),
		// Copilot CLI: .github/plugin/plugin.json comes before
		// .claude-plugin/plugin.json in the places it looks for a manifest.
		"plugin/hooks/copilot.json": installedHooks(t, hooks.HostCopilot),
		"plugin/.github/plugin/plugin.json": manifest(t, ordered{
			{"name", "plangit"}, {"version", version}, {"description", pluginDescription},
			{"author", author}, {"homepage", repoURL}, {"repository", repoURL}, {"license", "MIT"}, {"keywords", keywords},
			{"skills", "skills/"}, {"hooks", "hooks/copilot.json"}, {"mcpServers", ".mcp.json"},
		}),
		// Gemini CLI: the extension's binaries are in its bin/.
		"plugin/gemini/hooks/hooks.json": extensionHooks(t),
		"plugin/gemini/gemini-extension.json": manifest(t, ordered{
			{"name", "plangit"}, {"version", version}, {"description", pluginDescription},
			{"mcpServers", serverEntries(t, "gemini", mcpconf.Entry{Command: extensionBin + "plangit-mcp", Args: []string{}})},
		}),
	}
	return files
}

// TestPluginFiles compares the committed plugin files with what plangit
// makes of them now.
func TestPluginFiles(t *testing.T) {
	for path, want := range pluginFiles(t) {
		full := filepath.FromSlash(path)
		if *repotest.Update {
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(full)
		if err != nil {
			t.Errorf("%s: %v (go test -run TestPluginFiles -update . writes it)", path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what plangit makes of it now (go test -run TestPluginFiles -update . rewrites it):\n--- committed\n%s\n--- made\n%s", path, got, want)
		}
	}
	// A plugin.json at the plugin's root makes Codex take the folder for
	// an Agent Plugins package and drop every hook; and Copilot CLI would
	// read it before .github/plugin/plugin.json.
	for _, stray := range []string{"plugin/plugin.json", "plugin/.plugin/plugin.json", "plugin/hooks.json"} {
		if _, err := os.Lstat(filepath.FromSlash(stray)); err == nil {
			t.Errorf("%s must not exist: Codex and Copilot CLI would read it before the plugin's own manifest", stray)
		}
	}
}

// TestOneVersion: VERSION is the version every plugin manifest, every
// marketplace entry and the Gemini CLI extension carry.
func TestOneVersion(t *testing.T) {
	version := strings.TrimSpace(readRepoFile(t, "VERSION"))
	if version == "" || strings.ContainsAny(version, " \t\n") {
		t.Fatalf("VERSION holds %q, not one version", version)
	}
	for _, c := range []struct {
		path  string
		where func(map[string]any) []any
	}{
		{"plugin/.claude-plugin/plugin.json", top},
		{"plugin/.codex-plugin/plugin.json", top},
		{"plugin/.github/plugin/plugin.json", top},
		{"plugin/gemini/gemini-extension.json", top},
		{".claude-plugin/marketplace.json", func(m map[string]any) []any {
			meta, _ := m["metadata"].(map[string]any)
			return append([]any{meta["version"]}, entries(m, "version")...)
		}},
	} {
		var m map[string]any
		if err := json.Unmarshal([]byte(readRepoFile(t, c.path)), &m); err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		vs := c.where(m)
		if len(vs) == 0 {
			t.Errorf("%s carries no version", c.path)
		}
		for _, v := range vs {
			if v != version {
				t.Errorf("%s carries version %v, VERSION says %s", c.path, v, version)
			}
		}
	}
	// Codex's marketplace entries carry no version (its schema has none):
	// the plugin's manifest, checked above, is the version Codex installs.
	var m map[string]any
	if err := json.Unmarshal([]byte(readRepoFile(t, ".agents/plugins/marketplace.json")), &m); err != nil {
		t.Fatal(err)
	}
	for _, e := range m["plugins"].([]any) {
		e := e.(map[string]any)
		src, _ := e["source"].(map[string]any)
		if e["name"] != "plangit" || src["path"] != "./plugin" {
			t.Errorf(".agents/plugins/marketplace.json: entry %v is not plangit's plugin in ./plugin", e)
		}
	}
}

func top(m map[string]any) []any { return []any{m["version"]} }

// entries lists the key of each of a marketplace's plugins.
func entries(m map[string]any, key string) []any {
	var out []any
	ps, _ := m["plugins"].([]any)
	for _, p := range ps {
		if e, ok := p.(map[string]any); ok {
			out = append(out, e[key])
		}
	}
	return out
}

func readRepoFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// installedHooks is the hook file `plangit hooks install --host HOST`
// writes into a project that had none.
func installedHooks(t *testing.T, host string) []byte {
	t.Helper()
	f, err := hooks.LoadHookFile(host, filepath.Join(t.TempDir(), "none.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Install(pluginPrograms); err != nil {
		t.Fatal(err)
	}
	return f.Bytes()
}

// extensionHooks is the extension's hooks/hooks.json: the entries `plangit
// hooks install --host gemini` writes, each command running the program
// from the extension's bin/. The programs are bare names, so each command
// line starts with one, unquoted.
func extensionHooks(t *testing.T) []byte {
	t.Helper()
	b := installedHooks(t, hooks.HostGemini)
	for _, prog := range []string{hooks.HookProgram + " ", "plangit hook "} {
		b = bytes.ReplaceAll(b, []byte(`"command": "`+prog), []byte(`"command": "`+extensionBin+prog))
	}
	if bytes.Contains(b, []byte(`"command": "plangit`)) {
		t.Fatalf("a command of the extension's hooks does not run the extension's binary:\n%s", b)
	}
	return b
}

// installedServer is the settings file `plangit mcp install --host HOST`
// writes into a project that had none.
func installedServer(t *testing.T, host string, e mcpconf.Entry) []byte {
	t.Helper()
	h, err := mcpconf.FindHost(host)
	if err != nil {
		t.Fatal(err)
	}
	ed, err := h.Install(filepath.Join(t.TempDir(), "none.json"), e)
	if err != nil {
		t.Fatal(err)
	}
	return ed.Content()
}

// serverEntries is the mcpServers object of installedServer.
func serverEntries(t *testing.T, host string, e mcpconf.Entry) json.RawMessage {
	t.Helper()
	var m struct {
		MCPServers json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(installedServer(t, host, e), &m); err != nil || m.MCPServers == nil {
		t.Fatalf("no mcpServers in what mcp install writes: %v", err)
	}
	return m.MCPServers
}

// ordered is a JSON object whose members keep their order.
type ordered [][2]any

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m[0])
		v, err := marshal(m[1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// manifest writes a JSON file as the hosts' own examples are: two-space
// indents, a newline at the end.
func manifest(t *testing.T, o ordered) []byte {
	t.Helper()
	raw, err := marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		t.Fatal(err)
	}
	b.WriteByte('\n')
	return b.Bytes()
}
