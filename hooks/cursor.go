package hooks

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/plangit/plangit/hooks/hookwire"
)

// Cursor is Cursor's hook protocol (the Cursor agent in the editor and
// cursor-agent on the command line), from Cursor's hooks reference,
// cursor.com/docs/hooks ("Reference": common schema and each event's input
// and output), and its third-party hooks page (Cursor running the hooks of
// Claude Code's settings files).
//
// plangit hooks the generic events — sessionStart, beforeSubmitPrompt,
// preToolUse, postToolUse, postToolUseFailure, stop, subagentStop,
// preCompact, sessionEnd — and not beforeShellExecution, afterFileEdit and
// the like, which see the same tool calls a second time (preToolUse "fires
// for all tool types (Shell, Read, Write, MCP, Task, etc.)").
//
// Every payload carries conversation_id (stable across the conversation's
// turns: the session), hook_event_name in camelCase, cursor_version and
// workspace_roots; the project is workspace_roots[0], since cwd comes only
// with tool events. Tools are Cursor's (Shell, Write, StrReplace, Read,
// Grep, …), mapped onto the engine's (Bash, Write, Edit, Read, Grep, …).
//
// Answers, all top-level: additional_context on sessionStart, postToolUse,
// and — by Cursor's client (its list of events whose context it takes),
// not yet by its reference — on beforeSubmitPrompt, preToolUse and
// postToolUseFailure; preToolUse's permission with user_message and
// agent_message; stop's and subagentStop's followup_message, which Cursor
// sends as the next user message, at most loop_limit times (default 5).
//
// What Cursor does not allow: its preToolUse takes "ask" but does not
// enforce it, so plangit's asks (plan and step confirmation) are denials
// that tell the agent and the person what to do; no hook can stop the
// agent, so the iteration limit is said to the agent instead; the stop
// payload has no assistant message, so [Step] lines and transition words
// are not read at a stop (subagentStop's summary is), and the agent is
// taught `plangit step add` instead; its todo tool is not read (neither its
// name in hook payloads nor its input is documented); no variable reaches
// the agent's shell, so suggested commands name --session.
type Cursor struct{}

// Decode reads Cursor's JSON. The payload's hook_event_name names the
// event; the command line's event (Cursor's name, or Claude Code's when
// the hook comes from Claude Code's settings) is read when it has none.
func (Cursor) Decode(event string, payload []byte) (*Input, error) {
	p, err := hookwire.DecodeCursor(payload)
	if err != nil {
		return nil, err
	}
	if p.HookEventName != "" {
		event = p.HookEventName
	}
	in := &Input{SessionID: p.SessionID, Cwd: p.Cwd, Prompt: p.Prompt, Error: p.Error, IsInterrupt: p.IsInterrupt,
		LastAssistantMessage: p.LastAssistantMessage, Trigger: p.Trigger}
	if in.Event = hostEvent(HostCursor, event); in.Event == "" {
		return nil, fmt.Errorf("unknown hook event %q", event)
	}
	in.ToolName, in.ToolInput = hookwire.CursorTool(p.ToolName, p.ToolInput)
	switch in.Event {
	case PostToolUse:
		// tool_output is "JSON-stringified result payload from the tool";
		// a Shell command's holds its exitCode.
		in.ToolResponse = hookwire.ObjectOrString(p.Output)
		if in.ToolName == "Bash" {
			if msg := cursorShellFailure(in.ToolResponse); msg != "" {
				in.Event, in.Error, in.ToolResponse = PostToolUseFailure, msg, nil
			}
		}
	case PostToolUseFailure:
		// A call the person or a hook denied did not fail: no error to log.
		in.IsInterrupt = in.IsInterrupt || p.Failure == "permission_denied"
	case Stop, SubagentStop:
		// loop_count is how many follow-ups this hook already sent: the
		// agent is continuing because of one. A stop that was aborted or
		// errored is not held either (Cursor consumes a subagent's
		// follow-up only when it completed).
		n, _ := strconv.Atoi(string(p.Loops))
		in.StopHookActive = n > 0 || p.Status != "" && p.Status != "completed"
	}
	if in.Event == SubagentStop {
		// Cursor's tool events do not say which subagent made them, so no
		// step is known as a subagent's own: its stop is never held.
		in.AgentID = "cursor-" + strings.Join(strings.Fields(p.Subagent), "-")
	} else {
		in.LastAssistantMessage = ""
	}
	return in, nil
}

// cursorShellFailure is the error of a Shell call whose result says its
// command exited non-zero ({"exitCode":1,"stdout":…,"stderr":…}), which
// Cursor may report as a successful tool use.
func cursorShellFailure(result json.RawMessage) string {
	var code, stdout, stderr string
	hookwire.Members(result, func(key string, value []byte) error {
		switch key {
		case "exitCode", "exit_code":
			code = string(value)
		case "stdout", "output":
			stdout, _ = hookwire.String(value)
		case "stderr":
			stderr, _ = hookwire.String(value)
		}
		return nil
	})
	return exitFailure(code, strings.TrimSpace(stderr+"\n"+stdout))
}

// Encode writes Cursor's answer (hookwire.EncodeCursor). The exit code is
// always 0: Cursor reads exit 2 as a denial.
func (Cursor) Encode(in *Input, out *Output) ([]byte, int) {
	return hookwire.EncodeCursor(in.Event, in.SessionID, out), 0
}
