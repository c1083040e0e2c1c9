package hooks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/repo"
)

// Claude is Claude Code's hook protocol: the event's JSON on stdin; the
// answer as JSON on stdout with exit code 0 (hooks reference,
// code.claude.com/docs/en/hooks).
//
// Context reaches the agent as hookSpecificOutput.additionalContext on the
// events below. Stop and SubagentStop take additionalContext too (since
// 2.1.163), but there it means "keep going", as a block does: plangit says
// what it means, with decision "block" and a reason, and never sends
// additionalContext on a Stop. Context for Stop that is no block (advise
// mode) goes to the person, as systemMessage. PreCompact and SessionEnd
// answers are discarded by Claude Code (systemMessage included), so
// nothing is sent for them.
type Claude struct{}

var claudeContextEvents = []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure}

// Decode reads Claude Code's JSON: session_id, cwd, hook_event_name,
// source, prompt, tool_name, tool_input, tool_response, error,
// is_interrupt, stop_hook_active, last_assistant_message and trigger, as
// encoding/json would read them into a struct (names in any case, the
// last of a repeated name, a wrong type an error). The payload's
// hook_event_name, when present, names the event.
func (Claude) Decode(event string, payload []byte) (*Input, error) {
	in := &Input{}
	var name string
	fields := [...]struct {
		key string
		dst any // see decodeInto
	}{{"session_id", &in.SessionID}, {"cwd", &in.Cwd}, {"hook_event_name", &name}, {"source", &in.Source},
		{"prompt", &in.Prompt}, {"tool_name", &in.ToolName}, {"tool_input", &in.ToolInput},
		{"tool_response", &in.ToolResponse}, {"error", &in.Error}, {"is_interrupt", &in.IsInterrupt},
		{"stop_hook_active", &in.StopHookActive}, {"last_assistant_message", &in.LastAssistantMessage},
		{"trigger", &in.Trigger}, {"agent_id", &in.AgentID}}
	err := hookwire.Members(payload, func(key string, value []byte) error {
		for _, f := range fields {
			if strings.EqualFold(key, f.key) {
				if !hookwire.DecodeInto(f.dst, value) {
					return fmt.Errorf("%s holds a value of the wrong type", f.key)
				}
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("malformed hook payload: %w", err)
	}
	if name != "" {
		event = EventName(name)
	}
	if !slices.Contains(repo.HookEvents, event) {
		return nil, fmt.Errorf("unknown hook event %q", event)
	}
	in.Event = event
	return in, nil
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
	if out.empty() || in.Event == SessionEnd || in.Event == PreCompact {
		return nil, 0
	}
	var context, system string
	if slices.Contains(claudeContextEvents, in.Event) {
		context = out.Context
	} else {
		system = out.Context
	}
	var o hookwire.Object
	if out.Stop {
		o = o.Raw("continue", "false").Str("stopReason", out.StopReason)
	}
	o = o.Str("systemMessage", system)
	if out.Block {
		o = o.Str("decision", "block").Str("reason", out.Reason)
	}
	permission := out.Permission != "" && in.Event == PreToolUse
	if context != "" || permission {
		var specific hookwire.Object
		specific = specific.Str("hookEventName", in.Event).Str("additionalContext", context)
		if permission {
			specific = specific.Str("permissionDecision", out.Permission).Str("permissionDecisionReason", out.PermissionReason)
		}
		o = o.Raw("hookSpecificOutput", string(specific.Close()))
	}
	return append(o.Close(), '\n'), 0
}
