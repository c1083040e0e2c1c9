// Command plangit-mcp is plangit with its MCP server: `plangit mcp` runs
// it, so that plangit itself, which hooks start on every tool call, does
// not link the MCP SDK. plangit-mcp [flags] is plangit mcp [flags].
package main

import (
	"os"

	"github.com/plangit/plangit/cmd"
	"github.com/plangit/plangit/cmd/mcpserver"
)

func main() {
	f := cmd.NewFactory()
	f.MCP = mcpserver.NewCmdMCP
	os.Exit(cmd.Run(f, append([]string{"mcp"}, os.Args[1:]...)))
}
