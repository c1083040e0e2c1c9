// Command plangit-hook answers the read-only hook events of Claude Code —
// PreToolUse, on every tool call, and UserPromptSubmit, on every prompt —
// from the session's glance, which every change of the plan writes. It
// links the standard library and package hookwire alone, so it starts in
// the time of an empty Go program. Every other case — another event or
// host, a stale or missing glance, a paused plan, a change waiting to
// land, anything that changes the plan — it hands to `plangit hook` with
// the same standard input, so its answers are always plangit's.
//
//	plangit-hook EVENT
//
// plangit hooks install runs it for those events when it is installed
// beside plangit (go install ./... from a clone installs both).
package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/plangit/plangit/hooks/hookwire"
)

// maxPayload bounds what is read of the host's payload, as plangit does.
const maxPayload = 16 << 20

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	payload, err := io.ReadAll(io.LimitReader(stdin, maxPayload+1))
	if err == nil && len(args) == 1 && len(payload) <= maxPayload {
		if out, ok := answer(args[0], payload, getenv); ok {
			stdout.Write(out)
			return 0
		}
	}
	return fallback(args, payload, stdout, stderr)
}

// answer answers the event from the glance; ok is false when plangit must.
func answer(event string, payload []byte, getenv func(string) string) (out []byte, ok bool) {
	for _, v := range []string{"PLANGIT_ROOT", "PLANGIT_NOW", "PLANGIT_LOCK_WAIT"} {
		if getenv(v) != "" {
			return nil, false // plangit reads these, and checks them
		}
	}
	if hookwire.Recognise(payload) != hookwire.HostClaude {
		// Another host running the hooks of Claude Code's settings
		// (Cursor, Copilot CLI): plangit answers as that host, or not
		// at all where that host runs plangit's own hooks too.
		return nil, false
	}
	p, err := hookwire.DecodeClaude(payload)
	if err != nil {
		return nil, false
	}
	if p.HookEventName != "" {
		event = p.HookEventName
	}
	if event != "PreToolUse" && event != "UserPromptSubmit" || !filepath.IsAbs(p.Cwd) || !hookwire.PlainSessionID(p.SessionID) {
		return nil, false
	}
	if fi, err := os.Stat(p.Cwd); err != nil || !fi.IsDir() {
		return nil, false
	}
	dir := hookwire.SessionDir(hookwire.FindRoot(p.Cwd), p.SessionID)
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) && event == "PreToolUse" {
		return nil, true // no plan: nothing to say before a tool
	}
	if hookwire.IntentPending(hookwire.PrivatePath(dir, hookwire.IntentFile)) {
		return nil, false // a change may not have landed: plangit finishes it
	}
	if fi, err := os.Lstat(hookwire.PrivatePath(dir, hookwire.QueueFile)); err == nil && fi.Size() > 0 {
		return nil, false // queued events: plangit applies them first
	}
	b, err := os.ReadFile(hookwire.PrivatePath(dir, hookwire.GlanceFile))
	if err != nil {
		return nil, false
	}
	g, good := hookwire.DecodeGlance(b)
	configPath := filepath.Join(filepath.Dir(filepath.Dir(dir)), "config.json")
	if !good || g.Key != hookwire.GlanceKey(configPath, dir, g.Files) {
		return nil, false
	}
	if slices.Contains(g.Rules.Off, event) {
		return nil, true
	}
	turnPath := hookwire.PrivatePath(dir, hookwire.TurnFile)
	if fi, err := os.Lstat(turnPath); err == nil && !fi.Mode().IsRegular() {
		return nil, false
	}
	t := hookwire.ReadTurn(turnPath)
	shell := getenv("CLAUDE_CODE_SESSION_ID") == p.SessionID
	var a hookwire.Answer
	switch event {
	case "PreToolUse":
		c, gated := g.Rules.Tool(p.ToolName, p.ToolInput)
		if !gated {
			return nil, true
		}
		a = g.PreToolUse(c, t, hookwire.CLI(p.SessionID, shell || t.Shell))
	case "UserPromptSubmit":
		if g.Status == "paused" || len(t.Advanced) > 0 || t.Size >= hookwire.TurnMaxSize {
			return nil, false // a resume, an advance taken back, or a memory to start over: plangit's
		}
		shell = shell || t.Shell
		a = g.Prompt(shell, hookwire.CLI(p.SessionID, shell))
	}
	if a.Remember != "" {
		f, err := os.OpenFile(turnPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			f.Write([]byte(a.Remember)) // one write: hooks side by side never tear a line
			f.Close()
		}
	}
	return hookwire.EncodeClaude(event, &hookwire.Output{Context: a.Context, Permission: a.Permission, PermissionReason: a.PermissionReason}), true
}

// fallback runs `plangit hook ARGS…` on the same payload: the plangit
// beside this binary, else the one on PATH. Without one it answers
// nothing: a hook never breaks the agent.
func fallback(args []string, payload []byte, stdout, stderr io.Writer) int {
	prog := "plangit"
	if exe, err := os.Executable(); err == nil {
		if beside := filepath.Join(filepath.Dir(exe), "plangit"); isFile(beside) {
			prog = beside
		}
	}
	cmd := exec.Command(prog, append([]string{"hook"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(payload), stdout, stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	return 0
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
