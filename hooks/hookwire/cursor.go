package hookwire

import "strings"

// Cursor's hook protocol, for what the engine and the hook binary share:
// its payload, its tools read as the engine's, and its answers
// (hooks.Cursor tells the whole protocol, and where each rule comes
// from).

// CursorPayload is what plangit reads of Cursor's payload.
type CursorPayload struct {
	Payload
	Conversation string // conversation_id: the session
	Roots        []byte // workspace_roots: the project is the first
	Output       []byte // tool_output
	Loops        []byte // loop_count
	Failure      string // failure_type
	Status       string // status
	Subagent     string // subagent_type
}

// DecodeCursor reads Cursor's JSON by exact member names:
// conversation_id, session_id, hook_event_name, workspace_roots, cwd,
// prompt, tool_name, tool_input, tool_output, error_message, failure_type,
// is_interrupt, status, loop_count, summary, subagent_type and trigger.
// The session is conversation_id (sessionStart's session_id is the same
// id), the project the first of workspace_roots (cwd comes only with tool
// events), a tool's input an object (an MCP tool's is a JSON string).
func DecodeCursor(payload []byte) (*CursorPayload, error) {
	p := &CursorPayload{}
	err := DecodeFields(payload, []Field{{"conversation_id", &p.Conversation}, {"session_id", &p.SessionID}, {"hook_event_name", &p.HookEventName},
		{"workspace_roots", &p.Roots}, {"cwd", &p.Cwd}, {"prompt", &p.Prompt}, {"tool_name", &p.ToolName}, {"tool_input", &p.ToolInput},
		{"tool_output", &p.Output}, {"error_message", &p.Error}, {"failure_type", &p.Failure}, {"is_interrupt", &p.IsInterrupt},
		{"status", &p.Status}, {"loop_count", &p.Loops}, {"summary", &p.LastAssistantMessage}, {"subagent_type", &p.Subagent},
		{"trigger", &p.Trigger}})
	if err != nil {
		return nil, err
	}
	if p.Conversation != "" {
		p.SessionID = p.Conversation
	}
	if root := firstString(p.Roots); root != "" {
		p.Cwd = root
	}
	p.ToolInput = ObjectOrString(p.ToolInput)
	return p, nil
}

// firstString is the first element of a JSON array of strings, or "".
func firstString(raw []byte) string {
	if len(raw) == 0 || raw[0] != '[' || !Valid(raw) {
		return ""
	}
	first, seen := "", false
	Elements(raw, func(v []byte) {
		if !seen {
			first, _ = String(v)
			seen = true
		}
	})
	return first
}

// CursorTool is the engine's tool a Cursor tool call is — Shell is Bash;
// Edit, StrReplace, MultiEdit, ApplyPatch and Delete (which changes files)
// are Edit; Ls is LS; SemSearch is a look-up, as Grep is; the others
// (Write, Read, Grep, Glob, …) keep their names — and the input the engine
// reads of it: a file tool's input given file_path. Cursor's todo tool is
// left alone: neither its name in hook payloads nor its input's shape is
// documented.
func CursorTool(tool string, input []byte) (string, []byte) {
	switch tool {
	case "Shell":
		tool = "Bash"
	case "StrReplace", "MultiEdit", "ApplyPatch", "Delete":
		tool = "Edit"
	case "Ls":
		tool = "LS"
	case "SemSearch":
		tool = "Grep"
	}
	if FileTool(tool) {
		input = WithFilePath(input)
	}
	return tool, input
}

// EncodeCursor writes Cursor's answer to the engine's event, for the
// session; nothing at all when there is nothing to say. Answers are
// top-level: additional_context on sessionStart, beforeSubmitPrompt,
// preToolUse, postToolUse and postToolUseFailure; preToolUse's permission
// with user_message and agent_message — "ask" is accepted but not
// enforced, so plangit's asks are denials that say why; stop's and
// subagentStop's followup_message, which Cursor sends as the next user
// message. No hook stops Cursor's agent: it is told to stop. The agent is
// taught `plangit step add` (HostText).
func EncodeCursor(event, sessionID string, out *Output) []byte {
	if out.Empty() {
		return nil
	}
	context := HostText(sessionID, out.Context, "")
	context = toldToStop(context, out)
	switch event {
	case "SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure":
		return ContextOutput("additional_context", context)
	case "PreToolUse":
		var o Object
		if out.Permission != "" {
			permission := "deny"
			if out.Permission == "allow" {
				permission = "allow"
			}
			o = o.Str("permission", permission)
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
			return nil
		}
		return append(o.Close(), '\n')
	case "Stop", "SubagentStop":
		if out.Block {
			return ContextOutput("followup_message", out.Reason)
		}
	}
	return nil // preCompact, sessionEnd, and a stop plangit does not hold
}
