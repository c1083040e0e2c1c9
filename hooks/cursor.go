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

// cursorTools maps Cursor's tool names onto the engine's. Hook matchers
// and cursor-agent's --allowed-tools name Shell, Read, Write, Edit,
// StrReplace, MultiEdit, ApplyPatch, Delete, Grep, Glob, Ls, SemSearch,
// WebSearch, WebFetch, Task and MCP:<name>. Delete changes files, so it
// counts as an edit; SemSearch is a look-up, as Grep is. Cursor's todo
// tool is left alone: neither its name in hook payloads nor its input's
// shape is documented.
var cursorTools = map[string]string{
	"Shell": "Bash", "Edit": "Edit", "StrReplace": "Edit", "MultiEdit": "Edit", "ApplyPatch": "Edit", "Delete": "Edit",
	"Ls": "LS", "SemSearch": "Grep",
}

// Decode reads Cursor's JSON. The payload's hook_event_name names the
// event; the command line's event (Cursor's name, or Claude Code's when
// the hook comes from Claude Code's settings) is read when it has none.
func (Cursor) Decode(event string, payload []byte) (*Input, error) {
	in := &Input{}
	var name, conv, cwd, failure, status, subagent string
	var roots, output, loops json.RawMessage
	err := decodeFields(payload, []field{{"conversation_id", &conv}, {"session_id", &in.SessionID}, {"hook_event_name", &name}, {"workspace_roots", &roots},
		{"cwd", &cwd}, {"prompt", &in.Prompt}, {"tool_name", &in.ToolName}, {"tool_input", &in.ToolInput},
		{"tool_output", &output}, {"error_message", &in.Error}, {"failure_type", &failure}, {"is_interrupt", &in.IsInterrupt},
		{"status", &status}, {"loop_count", &loops}, {"summary", &in.LastAssistantMessage}, {"subagent_type", &subagent},
		{"trigger", &in.Trigger}})
	if err != nil {
		return nil, err
	}
	if name != "" {
		event = name
	}
	if in.Event = hostEvent(HostCursor, event); in.Event == "" {
		return nil, fmt.Errorf("unknown hook event %q", event)
	}
	if conv != "" {
		in.SessionID = conv // sessionStart's session_id is the same id
	}
	if in.Cwd = firstString(roots); in.Cwd == "" {
		in.Cwd = cwd
	}
	in.ToolName = renameTool(cursorTools, in.ToolName)
	in.ToolInput = hookwire.ObjectOrString(in.ToolInput) // MCP tools' input is a JSON string
	if hookwire.FileTool(in.ToolName) {
		in.ToolInput = hookwire.WithFilePath(in.ToolInput)
	}
	switch in.Event {
	case PostToolUse:
		// tool_output is "JSON-stringified result payload from the tool";
		// a Shell command's holds its exitCode.
		in.ToolResponse = hookwire.ObjectOrString(output)
		if in.ToolName == "Bash" {
			if msg := cursorShellFailure(in.ToolResponse); msg != "" {
				in.Event, in.Error, in.ToolResponse = PostToolUseFailure, msg, nil
			}
		}
	case PostToolUseFailure:
		// A call the person or a hook denied did not fail: no error to log.
		in.IsInterrupt = in.IsInterrupt || failure == "permission_denied"
	case Stop, SubagentStop:
		// loop_count is how many follow-ups this hook already sent: the
		// agent is continuing because of one. A stop that was aborted or
		// errored is not held either (Cursor consumes a subagent's
		// follow-up only when it completed).
		n, _ := strconv.Atoi(string(loops))
		in.StopHookActive = n > 0 || status != "" && status != "completed"
	}
	if in.Event == SubagentStop {
		// Cursor's tool events do not say which subagent made them, so no
		// step is known as a subagent's own: its stop is never held.
		in.AgentID = "cursor-" + strings.Join(strings.Fields(subagent), "-")
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

// firstString is the first element of a JSON array of strings, or "".
func firstString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '[' || !json.Valid(raw) {
		return ""
	}
	first, seen := "", false
	hookwire.Elements(raw, func(v []byte) {
		if !seen {
			first, _ = hookwire.String(v)
			seen = true
		}
	})
	return first
}

// Encode writes Cursor's answer; nothing at all when there is nothing to
// say. The exit code is always 0: Cursor reads exit 2 as a denial.
func (Cursor) Encode(in *Input, out *Output) ([]byte, int) {
	if out.Empty() {
		return nil, 0
	}
	context := hookwire.HostText(in.SessionID, out.Context, "")
	if out.Stop {
		// No hook stops Cursor's agent: the agent is told to stop.
		context = strings.TrimSpace(context + "\n[plangit] Stop now: " + out.StopReason)
	}
	switch in.Event {
	case SessionStart, UserPromptSubmit, PostToolUse, PostToolUseFailure:
		return hookwire.ContextOutput("additional_context", context), 0
	case PreToolUse:
		var o hookwire.Object
		if out.Permission != "" {
			// "ask" is accepted by Cursor's preToolUse but not enforced:
			// the tool would run unasked. plangit denies, and says why.
			o = o.Str("permission", cursorPermission(out.Permission))
			if out.Permission != "allow" {
				reason := out.PermissionReason
				if out.Permission == "ask" {
					reason += " Cursor cannot ask here, so the call is denied: the person confirms by running it, or what the reason names, themselves."
				}
				o = o.Str("user_message", reason).Str("agent_message", strings.TrimSpace(reason+"\n"+context))
				context = "" // said in agent_message
			}
		}
		o = o.Str("additional_context", context)
		if len(o) == 0 {
			return nil, 0
		}
		return append(o.Close(), '\n'), 0
	case Stop, SubagentStop:
		if out.Block {
			return hookwire.ContextOutput("followup_message", out.Reason), 0
		}
	}
	return nil, 0 // preCompact, sessionEnd, and a stop plangit does not hold
}

func cursorPermission(p string) string {
	if p == "allow" {
		return p
	}
	return "deny"
}
