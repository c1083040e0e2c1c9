package hooks

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/redact"
	"github.com/plangit/plangit/repo/disk"
	"github.com/plangit/plangit/repo/repotest"
)

// Credentials a failing command carries, in its command line and in its
// output, as the probe recorded them.
var leaks = []string{
	"ghp_0123456789abcdefghijABCDEFGHIJ012345",   // the bearer token of the first and second call
	"ghp_ZYXWVUTSRQPONMLKJIHGzyxwvutsrqponm9876", // the third call's
	"wJalrXUtnFEMIK7MDENGbPxRfiCY",
	"hunter2",
	"glpat-abcdefghij0123456789",
	"sk-abcdefghijklmnopqrstuvwxyz012345",
}

// leakyCall is a failing shell command that carries token: its command
// line (an Authorization header, an AWS secret, a mysql password, a token
// in a URL) and its output.
func leakyCall(token string) (command, output string) {
	command = `AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCY curl -fsS -H "Authorization: Bearer ` + token + `" https://oauth2:glpat-abcdefghij0123456789@gitlab.example.com/api/v4/projects && mysql --password=hunter2 -e 'select 1'`
	output = "curl: (22) The requested URL returned error: 401\nerror: token " + token + " rejected; OPENAI_API_KEY sk-abcdefghijklmnopqrstuvwxyz012345 unused"
	return command, output
}

// claudeFailure is Claude Code's PostToolUseFailure payload for it.
func claudeFailure(root, token string) string {
	command, output := leakyCall(token)
	b, _ := json.Marshal(map[string]any{"session_id": sessionID, "cwd": root, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
		"tool_input": map[string]string{"command": command, "description": "Call the API"}, "tool_use_id": "toolu_01Leak",
		"error": "Exit code 22\n" + output, "is_interrupt": false})
	return string(b)
}

// noLeak fails t for every credential found in what the session records:
// every object of its repository (errors.md, commit messages: all that
// push publishes), its working files, its private files (the hook queue
// among them) and the project's log.
func (f *fixture) noLeak(t *testing.T, also ...string) {
	t.Helper()
	s, err := f.proj().Open(sessionID)
	if err != nil {
		t.Fatal(err)
	}
	places := map[string]string{"plangit.log": f.log()}
	for i, a := range also {
		places[fmt.Sprintf("text %d given", i+1)] = a
	}
	if git, err := exec.LookPath("git"); err == nil {
		out, err := exec.Command(git, "-C", s.Dir, "cat-file", "--batch-all-objects", "--batch").Output()
		if err != nil {
			t.Fatal(err)
		}
		places["the repository's objects"] = string(out)
	} else {
		places["the log of revisions"] = repotest.Git(t, s.Dir, "log", "--format=%B")
	}
	for _, dir := range []string{s.Dir, filepath.Dir(s.PrivatePath(disk.QueueFile))} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
				places[filepath.Join(filepath.Base(dir), e.Name())] = string(b)
			}
		}
	}
	for where, text := range places {
		for _, secret := range leaks {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds %q", where, secret)
			}
		}
	}
}

// TestFailureRecordsNoSecret: a failing Bash call carrying a bearer token
// (and an AWS secret, a mysql password, a token in a URL, an API key in
// its output), through Claude Code's PostToolUseFailure hook, leaves none
// of them in errors.md, the commit messages, the queue or the log: not
// when it is recorded at once, nor when it waits in the queue for a busy
// session. The same call failing again — with the same token, then
// another — counts up one error, and the third failure is the third
// strike.
func TestFailureRecordsNoSecret(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := f.withPlan(sessionID, func(st *plan.State) { st.Errors = nil })
	env := Env{Now: func() time.Time { return t0.Add(time.Hour) }, Getenv: func(name string) string { return f.environ[name] }}

	out, code := Run(Claude{}, "PostToolUseFailure", strings.NewReader(claudeFailure(f.root, leaks[0])), env)
	if code != 0 || len(out) != 0 {
		t.Fatalf("first failure: code %d, %s", code, out)
	}

	// The second waits in the queue while another process holds the lock.
	held, done, released := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() { s.Locked(time.Second, func() error { close(held); <-done; return nil }); close(released) }()
	<-held
	queued := env
	queued.LockWait = 50 * time.Millisecond
	if out, code := Run(Claude{}, "PostToolUseFailure", strings.NewReader(claudeFailure(f.root, leaks[0])), queued); code != 0 || len(out) != 0 {
		t.Fatalf("queued failure: code %d, %s", code, out)
	}
	queue, err := os.ReadFile(s.PrivatePath(disk.QueueFile))
	close(done)
	<-released
	if err != nil || !strings.Contains(string(queue), "PostToolUseFailure") {
		t.Fatalf("the event was not queued (%v): %q", err, queue)
	}
	f.noLeak(t, string(queue))

	// The third, with another token, drains the queue first: the third
	// strike.
	out, code = Run(Claude{}, "PostToolUseFailure", strings.NewReader(claudeFailure(f.root, leaks[1])), env)
	if code != 0 || !strings.Contains(string(out), "3 times") {
		t.Fatalf("the third failure is no third strike: code %d, %s", code, out)
	}
	if strings.Contains(string(out), leaks[1]) || !strings.Contains(string(out), "[redacted]") {
		t.Errorf("the warning repeats the token: %s", out)
	}
	errs := f.state(sessionID).Errors
	if len(errs) != 1 || errs[0].Count != 3 {
		t.Fatalf("one error three times: %+v", errs)
	}
	for _, kept := range []string{"Authorization: Bearer [redacted]", "AWS_SECRET_ACCESS_KEY=[redacted]", "--password=[redacted]", "https://oauth2:[redacted]@gitlab.example.com"} {
		if !strings.Contains(errs[0].Key, kept) {
			t.Errorf("the key lost %q: %s", kept, errs[0].Key)
		}
	}
	f.noLeak(t, string(out))

	// Before the same command, with its token, what happened last time.
	command, _ := leakyCall(leaks[1])
	pre, _ := json.Marshal(map[string]any{"session_id": sessionID, "cwd": f.root, "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]string{"command": command}, "tool_use_id": "toolu_01Pre"})
	f.newTurn(sessionID)
	if out, code := Run(Claude{}, "PreToolUse", strings.NewReader(string(pre)), env); code != 0 || !strings.Contains(string(out), "failed before (error #") {
		t.Errorf("before the same command: %s", out)
	}
	// The same command succeeding, with its token, resolves the error.
	ok, _ := json.Marshal(map[string]any{"session_id": sessionID, "cwd": f.root, "hook_event_name": "PostToolUse", "tool_name": "Bash",
		"tool_input": map[string]string{"command": command}, "tool_response": map[string]any{"stdout": "[]", "stderr": "", "interrupted": false}, "tool_use_id": "toolu_01Ok"})
	if out, code := Run(Claude{}, "PostToolUse", strings.NewReader(string(ok)), env); code != 0 || !strings.Contains(string(out), "is resolved") {
		t.Errorf("the same command succeeding resolves nothing: %s", out)
	}
	f.noLeak(t)
}

// TestCodexFailureRecordsNoSecret: the same through Codex CLI's hook, a
// PostToolUse of the shell with the output alone and the exit code in
// the transcript.
func TestCodexFailureRecordsNoSecret(t *testing.T) {
	t.Parallel()
	f := newHostFixture(t)
	f.withPlan(sessionID, func(st *plan.State) { st.Errors = nil })
	rollout := filepath.Join(f.root, "rollout.jsonl")
	var a map[string]any
	for i, token := range []string{leaks[0], leaks[0], leaks[1]} {
		command, output := leakyCall(token)
		id := "call_leak_" + string(rune('1'+i))
		appendCodexItem(t, rollout, id, command, output, 22)
		b, _ := json.Marshal(map[string]any{"session_id": sessionID, "turn_id": "turn-1", "transcript_path": rollout, "cwd": f.root,
			"hook_event_name": "PostToolUse", "model": "gpt-5.5", "permission_mode": "bypassPermissions", "tool_name": "Bash",
			"tool_input": map[string]string{"command": command}, "tool_response": output, "tool_use_id": id})
		a = checkCodex(t, "PostToolUse", f.sendTo(Codex{}, "", b))
	}
	f.noLeak(t)
	said := codexSaid(a)
	if !strings.Contains(said, "3 times") || strings.Contains(said, leaks[1]) {
		t.Fatalf("the third failure is the third strike, and says no token: %s", said)
	}
	errs := f.state(sessionID).Errors
	if len(errs) != 1 || errs[0].Count != 3 || !strings.HasPrefix(errs[0].Message, "Exit code 22\n") {
		t.Fatalf("one error three times: %+v", errs)
	}
	f.noLeak(t, said)
}

// TestRedactedMark: the hook binary's package reads recorded keys with the
// mark the table writes.
func TestRedactedMark(t *testing.T) {
	if hookwire.Redacted != redact.Mark {
		t.Fatalf("hookwire.Redacted is %q, redact.Mark %q", hookwire.Redacted, redact.Mark)
	}
}
