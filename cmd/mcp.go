package cmd

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/plan"
)

// The MCP server lives in a second binary, plangit-mcp. The MCP SDK links
// net/http, TLS, a JSON Schema validator and a JSON library of its own,
// and Go runs every linked package's initialisation at every start — so
// plangit, which hooks start on every tool call, does not link it: its
// `mcp` command runs plangit-mcp with the same arguments, and plangit-mcp
// is plangit with the real `mcp` command (Factory.MCP).

// MCPCommand builds the real `plangit mcp` command.
type MCPCommand func(*Factory) *cobra.Command

// MCPProgram is the name of the binary that serves MCP.
const MCPProgram = "plangit-mcp"

// NewCmdMCP builds `plangit mcp`: f.MCP's command where this binary has
// one, else a command that hands its arguments to plangit-mcp.
func NewCmdMCP(f *Factory) *cobra.Command {
	if f.MCP != nil {
		return f.MCP(f)
	}
	return &cobra.Command{
		Use:   "mcp [install|uninstall] [flags]",
		Short: "Serve the plan as MCP tools over stdio; mcp install adds the server to an agent host",
		Long: `mcp runs plangit's MCP server on standard input and output, for one agent session, serving
the project it starts in (--root, $PLANGIT_ROOT, else the nearest directory holding
.code-agent/). mcp install --host claude|codex|gemini|cursor [--scope project|user] adds it
to a host's settings; mcp uninstall removes it. plangit mcp --help says more.

The server is the program plangit-mcp, found beside plangit or on PATH:
  go install github.com/plangit/plangit/cmd/plangit-mcp@latest`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := mcpProgram()
			if err != nil {
				return err
			}
			return runProgram(path, args)
		},
	}
}

// mcpProgram finds plangit-mcp: beside this binary, else on PATH.
func mcpProgram() (string, error) {
	name := MCPProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	exe, err := os.Executable()
	if err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		beside := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(MCPProgram); err == nil {
		return p, nil
	}
	return "", plan.Errorf(plan.CodeIOError, "plangit mcp runs %s, which is neither beside %s nor on PATH", MCPProgram, exe).Hinted("install it: go install github.com/plangit/plangit/cmd/plangit-mcp@latest")
}

// Print writes a command's result as plangit does: the JSON envelope
// holding data with --json, otherwise the human text, unless --quiet.
func (f *Factory) Print(data any, human func(w io.Writer)) error { return f.print(data, human) }
