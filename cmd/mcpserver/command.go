package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/plangit/plangit/cmd"
	"github.com/plangit/plangit/hooks/mcpconf"
)

// NewCmdMCP builds `plangit mcp`: the server, and its installers.
func NewCmdMCP(f *cmd.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the plan as MCP tools over stdio; mcp install adds the server to an agent host",
		Long: `mcp runs plangit's MCP server on standard input and output: one process per agent session,
serving the project it starts in (--root, $PLANGIT_ROOT, else the nearest directory holding
.code-agent/, else the working directory). Its tools read and change the plan as the
command line does; a tool call without a session uses $PLANGIT_SESSION, else the project's
only unfinished session, else the active one, and says which.

It writes nothing but protocol messages to standard output, and logs to standard error.
mcp install adds the server to a host's settings, mcp uninstall removes it.`,
		Example: `  plangit mcp install --host claude
  plangit mcp install --host codex --scope user
  plangit mcp uninstall --host cursor`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return serve(c.Context(), f)
		},
	}
	c.AddCommand(newCmdInstall(f, true), newCmdInstall(f, false))
	return c
}

// serve runs the server until the client closes its end or a signal asks
// it to stop, then waits for the tool calls still running, so that no
// change is cut short. Its transport (wire) answers every line that is
// not a message and goes on, and at the end of the input answers every
// call it took before it lets the server stop.
func serve(ctx context.Context, f *cmd.Factory) error {
	if _, err := f.Project(); err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(f.IO.ErrOut, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s := New(cmd.NewTools(f), log)
	s.Structured = f.Getenv("PLANGIT_MCP_STRUCTURED") == "1"
	err := s.Run(ctx, &wire{in: io.NopCloser(f.IO.In), out: f.IO.Out, log: log})
	s.Wait()
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || ctx.Err() != nil {
		return nil
	}
	log.Error("mcp server stopped", "err", err)
	return err
}

type installOptions struct {
	host, scope, command string
	print                bool
}

func newCmdInstall(f *cmd.Factory, install bool) *cobra.Command {
	o := &installOptions{}
	c := &cobra.Command{
		Use:   "install --host HOST",
		Short: "Add plangit's MCP server to a host's settings (idempotent; keeps everything else)",
		Long: `install adds an MCP server named plangit, running plangit mcp, to the settings of a host:

  claude   .mcp.json (project), ~/.claude.json (user)
  codex    .codex/config.toml (project), ~/.codex/config.toml (user; $CODEX_HOME)
  gemini   .gemini/settings.json (project), ~/.gemini/settings.json (user)
  cursor   .cursor/mcp.json (project), ~/.cursor/mcp.json (user)

The file is edited in place: everything else in it stays byte for byte, installing twice is
installing once, and uninstall gives the file back as it was (removing a file install
created). A file that does not parse is refused and never overwritten. --print shows the
file as it would be, and writes nothing.`,
		Example: `  plangit mcp install --host claude
  plangit mcp install --host gemini --scope user --print`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			return installRun(f, o, install)
		},
	}
	if !install {
		c.Use, c.Short = "uninstall --host HOST", "Remove plangit's MCP server from a host's settings"
		c.Long = "uninstall removes the MCP server named plangit from a host's settings, and nothing else;\na file install created is removed."
		c.Example = "  plangit mcp uninstall --host claude"
	}
	c.Flags().StringVar(&o.host, "host", "", "the agent host: "+strings.Join(mcpconf.HostNames(), ", ")+" (required)")
	c.Flags().StringVar(&o.scope, "scope", mcpconf.ScopeProject, "project or user")
	c.Flags().BoolVar(&o.print, "print", false, "print the file as it would be instead of writing it")
	if install {
		c.Flags().StringVar(&o.command, "command", "", "the program the host runs (default: plangit mcp when plangit is on PATH, else this program)")
	}
	c.MarkFlagRequired("host")
	return c
}

func installRun(f *cmd.Factory, o *installOptions, install bool) error {
	h, err := mcpconf.FindHost(o.host)
	if err != nil {
		return err
	}
	proj, err := f.Project()
	if err != nil {
		return err
	}
	path, err := h.Path(o.scope, proj.Root, f.Getenv)
	if err != nil {
		return err
	}
	var e *mcpconf.Edit
	if install {
		e, err = h.Install(path, entryFor(o.command))
	} else {
		e, err = h.Uninstall(path)
	}
	if err != nil {
		return err
	}
	if o.print {
		return f.Print(map[string]any{"path": path, "content": string(e.Content()), "removed": e.Removed}, func(w io.Writer) {
			w.Write(e.Content())
		})
	}
	if err := e.Save(); err != nil {
		return err
	}
	return f.Print(e, func(w io.Writer) {
		switch {
		case install && !e.Changed:
			fmt.Fprintf(w, "plangit's MCP server is already in %s\n", path)
		case install:
			fmt.Fprintf(w, "added plangit's MCP server to %s: %s\n", path, strings.Join(append([]string{e.Server.Command}, e.Server.Args...), " "))
			fmt.Fprintf(w, "note: %s\n", h.Note)
		case !e.Changed:
			fmt.Fprintf(w, "no plangit MCP server in %s\n", path)
		case e.Removed:
			fmt.Fprintf(w, "removed plangit's MCP server, and %s, which held nothing else\n", path)
		default:
			fmt.Fprintf(w, "removed plangit's MCP server from %s\n", path)
		}
	})
}

// entryFor is the server entry install writes: command (or plangit when
// on PATH, else this program) running the server.
func entryFor(command string) mcpconf.Entry {
	if command == "" {
		if _, err := exec.LookPath("plangit"); err == nil {
			command = "plangit"
		} else if exe, err := os.Executable(); err == nil {
			command = exe
		} else {
			command = "plangit"
		}
	}
	if strings.HasPrefix(filepath.Base(command), cmd.MCPProgram) {
		return mcpconf.Entry{Command: command, Args: []string{}}
	}
	return mcpconf.Entry{Command: command, Args: []string{"mcp"}}
}
