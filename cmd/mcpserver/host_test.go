package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/plangit/plangit/repo/repotest"
)

// TestConcurrentClients: two hosts' servers on one session, each making
// changes from many calls at once — as a host does when a model calls
// tools in parallel. Every change is committed once, none is lost, and the
// repository stays sound.
func TestConcurrentClients(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	mustCLI(t, root, "init", "Shared", "--session", "s1", "--phase", "Work")
	dir := filepath.Join(root, ".code-agent", "plans", "s1")
	start := repotest.RevCount(t, dir)
	clients := []*mcp.ClientSession{connect(t, root), connect(t, root)}
	const perClient = 12
	var wg sync.WaitGroup
	errs := make(chan string, 2*perClient)
	for c, cs := range clients {
		for i := range perClient {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				text := fmt.Sprintf("client %d step %d", c, i)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "step", Arguments: map[string]any{"action": "add", "text": text, "session": "s1"}})
				switch {
				case err != nil:
					errs <- fmt.Sprintf("%s: %v", text, err)
				case res.IsError:
					errs <- fmt.Sprintf("%s: %s", text, textOf(res))
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if got, want := repotest.RevCount(t, dir), start+2*perClient; got != want {
		t.Errorf("%d revisions, want %d: a change was lost or doubled", got, want)
	}
	data, _ := ok(t, clients[0], "show", map[string]any{"include_completed": true})
	plan := data["plan"].(map[string]any)
	var texts []string
	for _, ph := range plan["phases"].([]any) {
		for _, s := range ph.(map[string]any)["steps"].([]any) {
			texts = append(texts, s.(map[string]any)["text"].(string))
		}
	}
	for c := range clients {
		for i := range perClient {
			if want := fmt.Sprintf("client %d step %d", c, i); !slices.Contains(texts, want) {
				t.Errorf("step %q is missing", want)
			}
		}
	}
	checkSessions(t, root)
}

// TestSessionChoice: a call that names no session uses PLANGIT_SESSION,
// else the only unfinished session, else the active one — and says which.
func TestSessionChoice(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	mustCLI(t, root, "init", "Done already", "--session", "old")
	mustCLI(t, root, "finish", "--session", "old", "--result", "r")
	mustCLI(t, root, "init", "Current", "--session", "cur")
	mustCLI(t, root, "use", "old")

	cs := connect(t, root)
	data, text := ok(t, cs, "status", map[string]any{})
	if data["session"] != "cur" || !strings.HasPrefix(text, "[session cur: the only unfinished session]\n") {
		t.Errorf("the only unfinished session: got %v, %q", data["session"], text)
	}
	// Naming it: no note.
	if _, text := ok(t, cs, "status", map[string]any{"session": "old"}); strings.HasPrefix(text, "[session") {
		t.Errorf("a named session got a note: %q", text)
	}
	// Two unfinished: the active one.
	mustCLI(t, root, "init", "Another", "--session", "new")
	mustCLI(t, root, "use", "cur")
	if data, text := ok(t, cs, "status", map[string]any{}); data["session"] != "cur" || !strings.HasPrefix(text, "[session cur: the active session]\n") {
		t.Errorf("the active session: got %v, %q", data["session"], text)
	}
	// PLANGIT_SESSION first.
	env := connect(t, root, "PLANGIT_SESSION=new")
	if data, text := ok(t, env, "status", map[string]any{}); data["session"] != "new" || !strings.HasPrefix(text, "[session new: PLANGIT_SESSION]\n") {
		t.Errorf("PLANGIT_SESSION: got %v, %q", data["session"], text)
	}
	// plan init makes the new session active, so the calls after it use it.
	ok(t, cs, "plan", map[string]any{"action": "init", "title": "Fourth", "session": "fourth"})
	if data, _ := ok(t, cs, "status", map[string]any{}); data["session"] != "fourth" {
		t.Errorf("after plan init: session %v, want fourth", data["session"])
	}
}

// TestWire: the server writes nothing but JSON-RPC messages on standard
// output, answers while a change waits for a busy session, survives a
// cancelled call, and when its client goes away it finishes the change in
// hand before it exits.
func TestWire(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	mustCLI(t, root, "init", "Wire", "--session", "s1", "--phase", "Work")
	r := startRaw(t, root)
	init := r.initialize()
	if !strings.Contains(string(init), `"name":"plangit"`) || !strings.Contains(string(init), `"instructions"`) {
		t.Errorf("initialize answer: %s", init)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"step","arguments":{"action":"add","text":"first"}}}`)
	if answer := r.recv(); !strings.Contains(string(answer), `"id":2`) || strings.Contains(string(answer), `"isError":true`) {
		t.Fatalf("step add: %s", answer)
	}

	// A change waits for the session another process holds; a read is
	// answered meanwhile; the waiting call is cancelled.
	release := holdLock(t, root)
	r.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"step","arguments":{"action":"add","text":"second"}}}`)
	r.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"status","arguments":{}}}`)
	if answer := r.recv(); !strings.Contains(string(answer), `"id":4`) {
		t.Fatalf("a read waited for a change: got %s", answer)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"the user pressed escape"}}`)
	r.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if answer := r.recv(); !strings.Contains(string(answer), `"id":5`) {
		t.Fatalf("ping after a cancellation: %s", answer)
	}

	// The client goes away while the change still waits: the server
	// finishes it, once the lock is free, and exits.
	r.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"step","arguments":{"action":"add","text":"third"}}}`)
	time.Sleep(100 * time.Millisecond)
	r.stdin.Close()
	time.Sleep(200 * time.Millisecond)
	release()
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the server exited with %v: %s", err, r.stderr.Bytes())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not exit when its client went away")
	}
	for {
		line, err := r.out.ReadBytes('\n')
		if len(line) > 0 && !strings.HasPrefix(string(line), `{"jsonrpc":"2.0"`) {
			t.Errorf("the server wrote something that is not a JSON-RPC message: %q", line)
		}
		if err != nil {
			break
		}
	}
	out := mustCLI(t, root, "show", "--all").(map[string]any)
	var texts []string
	for _, ph := range out["plan"].(map[string]any)["phases"].([]any) {
		for _, s := range ph.(map[string]any)["steps"].([]any) {
			texts = append(texts, s.(map[string]any)["text"].(string))
		}
	}
	// "second" was cancelled while it waited: whether it was made depends
	// on when the cancellation arrived; "third" was in hand at exit.
	if !slices.Contains(texts, "first") || !slices.Contains(texts, "third") {
		t.Errorf("steps %v: a change the client sent was lost", texts)
	}
	checkSessions(t, root)
}

// TestResourcesAndPrompt: the session's files as resources, and the
// planning loop as a prompt.
func TestResourcesAndPrompt(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	mustCLI(t, root, "init", "Files", "--session", "s1", "--phase", "Work")
	mustCLI(t, root, "finding", "add", "--title", "A finding", "its content")
	cs := connect(t, root)
	ctx := context.Background()
	for _, name := range []string{"task_plan.md", "findings.md", "errors.md"} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "plangit://s1/" + name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, _ := os.ReadFile(filepath.Join(root, ".code-agent", "plans", "s1", name))
		if len(res.Contents) != 1 || res.Contents[0].Text != string(want) || res.Contents[0].MIMEType != "text/markdown" {
			t.Errorf("%s: got %+v, want the file", name, res.Contents)
		}
	}
	for _, uri := range []string{"plangit://s1/deliverable.md", "plangit://s1/.git/config", "plangit://nope/task_plan.md", "plangit://../task_plan.md"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s: read, want an error", uri)
		}
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "plan-loop", Arguments: map[string]string{"task": "add caching"}})
	if err != nil {
		t.Fatal(err)
	}
	text := p.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, "The task: add caching") || !strings.Contains(text, "step {action:done, id, result}") {
		t.Errorf("prompt: %s", text)
	}
}
