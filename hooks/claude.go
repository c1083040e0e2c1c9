package hooks

import (
	"fmt"
	"slices"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/repo"
)

// Claude is Claude Code's hook protocol (hookwire.DecodeClaude and
// hookwire.EncodeClaude, which the hook binary shares).
type Claude struct{}

// Decode reads Claude Code's JSON (hookwire.DecodeClaude). The payload's
// hook_event_name, when present, names the event.
func (Claude) Decode(event string, payload []byte) (*Input, error) {
	p, err := hookwire.DecodeClaude(payload)
	if err != nil {
		return nil, err
	}
	if p.HookEventName != "" {
		event = EventName(p.HookEventName)
	}
	if !slices.Contains(repo.HookEvents, event) {
		return nil, fmt.Errorf("unknown hook event %q", event)
	}
	return &Input{Event: event, SessionID: p.SessionID, Cwd: p.Cwd, Source: p.Source, Prompt: p.Prompt,
		ToolName: p.ToolName, ToolInput: p.ToolInput, ToolResponse: p.ToolResponse, Error: p.Error,
		IsInterrupt: p.IsInterrupt, StopHookActive: p.StopHookActive, LastAssistantMessage: p.LastAssistantMessage,
		Trigger: p.Trigger, AgentID: p.AgentID, AgentType: p.AgentType, TranscriptPath: p.TranscriptPath, PermissionMode: p.PermissionMode}, nil
}

// ReadEnv reads what Claude Code tells a hook through its environment:
// CLAUDE_ENV_FILE on SessionStart, and CLAUDE_CODE_SESSION_ID, which
// Claude Code (2.1.132 and later) sets to the session id in hooks and in
// the agent's Bash commands alike (env-vars reference), so that the CLI,
// reading it, reaches the hooks' session.
func (Claude) ReadEnv(in *Input, getenv func(string) string) {
	if in.Event == SessionStart {
		in.EnvFile = getenv("CLAUDE_ENV_FILE")
	}
	if id := getenv("CLAUDE_CODE_SESSION_ID"); id != "" && id == in.SessionID {
		in.ShellSession = true
	}
}

// Encode writes Claude Code's answer; nothing at all when there is nothing
// to say. The exit code is always 0: blocking is done in the JSON.
func (Claude) Encode(in *Input, out *Output) ([]byte, int) {
	return hookwire.EncodeClaude(in.Event, out), 0
}

// Asks: Claude Code shows a PreToolUse "ask" to the person, with its
// reason, and runs the call only when they allow it.
func (Claude) Asks() bool { return true }
