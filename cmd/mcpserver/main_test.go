package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
)

// The tests drive the real binaries as a host does: plangit mcp (which
// runs plangit-mcp beside it) over its standard streams, with the SDK's
// client on a CommandTransport, and plangit itself for the CLI's --json.

var bin string // the directory holding plangit and plangit-mcp

func TestMain(m *testing.M) {
	dir, err := repotest.Programs()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	os.Exit(repotest.Main(m)) // which says which tests skipped for want of git (under Wine)
}

// now is the clock of every test process, so the MCP server and the CLI
// write the same commits for the same changes.
const now = "2026-11-20T10:00:00Z"

// testEnv is the environment of the processes a test starts: the
// project's root, a fixed clock, a home of the test's own, and extra.
func testEnv(t *testing.T, root string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PLANGIT_") && !strings.HasPrefix(kv, "CLAUDE") && !strings.HasPrefix(kv, "CODEX_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, append([]string{"PLANGIT_ROOT=" + root, "PLANGIT_NOW=" + now, "HOME=" + filepath.Join(root, ".home"),
		"GIT_CONFIG_NOSYSTEM=1", "PLANGIT_LOCK_WAIT=30s", "PLANGIT_MCP_STRUCTURED=1"}, extra...)...)
}

// connect starts plangit mcp for a project and connects a client to it.
func connect(t *testing.T, root string, extra ...string) *mcp.ClientSession {
	t.Helper()
	c := exec.Command(filepath.Join(bin, "plangit"), "mcp")
	c.Dir, c.Env = root, testEnv(t, root, extra...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "plangit-test", Version: "v1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.Bytes())
	}
	t.Cleanup(func() {
		cs.Close()
		if s := stderr.String(); s != "" {
			t.Logf("server's standard error:\n%s", s)
		}
	})
	return cs
}

// call calls a tool, failing the test on a protocol error.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

// ok calls a tool that must succeed and returns its structured content
// and text.
func ok(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (map[string]any, string) {
	t.Helper()
	res := call(t, cs, tool, args)
	text := textOf(res)
	if res.IsError {
		t.Fatalf("%s %v failed: %s", tool, args, text)
	}
	data, okm := res.StructuredContent.(map[string]any)
	if !okm {
		t.Fatalf("%s %v: structured content is %T, not an object", tool, args, res.StructuredContent)
	}
	return data, text
}

// fails calls a tool that must fail with code, and returns the error's
// structured content and text.
func fails(t *testing.T, cs *mcp.ClientSession, code, tool string, args map[string]any) (map[string]any, string) {
	t.Helper()
	res := call(t, cs, tool, args)
	text := textOf(res)
	if !res.IsError {
		t.Fatalf("%s %v succeeded, want %s: %s", tool, args, code, text)
	}
	if !strings.HasPrefix(text, code+": ") {
		t.Fatalf("%s %v: error text %q does not start with %s: ", tool, args, text, code)
	}
	body, _ := res.StructuredContent.(map[string]any)
	if body["code"] != code {
		t.Fatalf("%s %v: structured error %v, want code %s", tool, args, res.StructuredContent, code)
	}
	return body, text
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// cli runs plangit with --json in a project and returns the envelope's
// data, or its error.
func cli(t *testing.T, root string, args ...string) (data any, errBody map[string]any) {
	t.Helper()
	c := exec.Command(filepath.Join(bin, "plangit"), append(args, "--json")...)
	c.Dir, c.Env = root, testEnv(t, root)
	out, _ := c.Output()
	var env struct {
		Success bool           `json:"success"`
		Data    any            `json:"data"`
		Error   map[string]any `json:"error"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("plangit %v: %v\n%s", args, err, out)
	}
	return env.Data, env.Error
}

// mustCLI runs plangit and fails the test unless it succeeds.
func mustCLI(t *testing.T, root string, args ...string) any {
	t.Helper()
	data, e := cli(t, root, args...)
	if e != nil {
		t.Fatalf("plangit %v: %v", args, e)
	}
	return data
}

// rawServer starts plangit mcp with pipes of the test's own, for tests of
// the wire itself.
type rawServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     *bufio.Writer
	stdin  interface{ Close() error }
	out    *bufio.Reader
	stderr bytes.Buffer
}

func startRaw(t *testing.T, root string, extra ...string) *rawServer {
	t.Helper()
	r := &rawServer{t: t, cmd: exec.Command(filepath.Join(bin, "plangit"), "mcp")}
	r.cmd.Dir, r.cmd.Env, r.cmd.Stderr = root, testEnv(t, root, extra...), &r.stderr
	stdin, err := r.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.stdin, r.in, r.out = stdin, bufio.NewWriter(stdin), bufio.NewReaderSize(stdout, 1<<20)
	// On Windows plangit mcp runs plangit-mcp as a child, which a kill of
	// plangit leaves running, holding the standard error Wait reads to
	// its end: closing the input ends it; WaitDelay bounds the wait.
	r.cmd.WaitDelay = 10 * time.Second
	t.Cleanup(func() { stdin.Close(); r.cmd.Process.Kill(); r.cmd.Wait() })
	return r
}

// send writes one JSON-RPC message.
func (r *rawServer) send(msg string) {
	r.t.Helper()
	r.in.WriteString(msg + "\n")
	if err := r.in.Flush(); err != nil {
		r.t.Fatal(err)
	}
}

// recv reads one line of the server's standard output, which must be a
// JSON-RPC 2.0 message.
func (r *rawServer) recv() []byte {
	r.t.Helper()
	line, err := r.out.ReadBytes('\n')
	if err != nil {
		r.t.Fatalf("reading the server's output: %v (stderr: %s)", err, r.stderr.Bytes())
	}
	var msg struct {
		JSONRPC string `json:"jsonrpc"`
	}
	if err := json.Unmarshal(line, &msg); err != nil || msg.JSONRPC != "2.0" {
		r.t.Fatalf("the server wrote something that is not a JSON-RPC message: %q", line)
	}
	return bytes.TrimRight(line, "\n")
}

// initialize runs the handshake.
func (r *rawServer) initialize() []byte {
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	answer := r.recv()
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return answer
}

// newProject makes a project directory with an empty .code-agent.
func newProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".code-agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// checkSessions runs git fsck --strict and git status on every session.
func checkSessions(t *testing.T, root string) {
	t.Helper()
	repotest.CheckAll(t, root)
}

// holdLock takes session s1's lock under root as another plangit process
// would, through repo's own lock, and returns what releases it.
func holdLock(t *testing.T, root string) (release func()) {
	t.Helper()
	s, err := repo.Project{Root: root}.Open("s1")
	if err != nil {
		t.Fatalf("cannot open the session: %v", err)
	}
	locked, done := make(chan error), make(chan struct{})
	go func() {
		err := s.Locked(time.Second, func() error {
			locked <- nil
			<-done
			return nil
		})
		if err != nil {
			locked <- err
		}
		close(done)
	}()
	if err := <-locked; err != nil {
		t.Fatalf("cannot take the session lock: %v", err)
	}
	return func() { done <- struct{}{}; <-done }
}
