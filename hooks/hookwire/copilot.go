package hookwire

// GitHub Copilot CLI's hook protocol, for what the engine and the hook
// binary share: its payload in either format, its tools read as the
// engine's, and its answers (hooks.Copilot tells the whole protocol, and
// where each rule comes from).

// CopilotPayload is what plangit reads of Copilot CLI's payload, in its
// camelCase format or its PascalCase ("VS Code compatible") one.
type CopilotPayload struct {
	Payload
	Result []byte // toolResult, tool_result
	Err    []byte // error: a string, or an object with a message
}

// DecodeCopilot reads Copilot CLI's JSON, either format, by exact member
// names: sessionId/session_id, hook_event_name, cwd, source, prompt,
// toolName/tool_name, toolArgs/tool_input, toolResult/tool_result, error,
// stop_hook_active, agentId/agent_id, response/last_assistant_message,
// trigger and transcriptPath/transcript_path. The tool's input is an object (toolArgs may be a string
// holding one).
func DecodeCopilot(payload []byte) (*CopilotPayload, error) {
	p := &CopilotPayload{}
	err := DecodeFields(payload, []Field{{"sessionId", &p.SessionID}, {"session_id", &p.SessionID}, {"hook_event_name", &p.HookEventName}, {"cwd", &p.Cwd},
		{"source", &p.Source}, {"prompt", &p.Prompt}, {"toolName", &p.ToolName}, {"tool_name", &p.ToolName},
		{"toolArgs", &p.ToolInput}, {"tool_input", &p.ToolInput}, {"toolResult", &p.Result}, {"tool_result", &p.Result}, {"error", &p.Err},
		{"stop_hook_active", &p.StopHookActive}, {"agentId", &p.AgentID}, {"agent_id", &p.AgentID},
		{"response", &p.LastAssistantMessage}, {"last_assistant_message", &p.LastAssistantMessage}, {"trigger", &p.Trigger},
		{"transcriptPath", &p.TranscriptPath}, {"transcript_path", &p.TranscriptPath}})
	if err != nil {
		return nil, err
	}
	p.ToolInput = ObjectOrString(p.ToolInput)
	return p, nil
}

// CopilotTool is the engine's tool a Copilot CLI tool call is, by the
// hooks reference's table of "Claude tool name"s (bash and powershell are
// Bash, create Write, edit, str_replace_editor and apply_patch Edit, view
// Read, …), and the input the engine reads of it: a file tool's input
// given file_path. update_todo, which is TodoWrite only when its
// arguments read as a todo list, is package hooks'.
func CopilotTool(tool string, input []byte) (string, []byte) {
	if t := copilotTool(tool); t != "" {
		tool = t
	}
	if FileTool(tool) {
		input = WithFilePath(input)
	}
	return tool, input
}

// copilotTool is the engine's name of a Copilot CLI tool; "" for one that
// keeps its own.
func copilotTool(tool string) string {
	switch tool {
	case "bash", "powershell":
		return "Bash"
	case "create":
		return "Write"
	case "edit", "str_replace_editor", "apply_patch":
		return "Edit"
	case "view":
		return "Read"
	case "glob":
		return "Glob"
	case "grep", "rg":
		return "Grep"
	case "web_fetch":
		return "WebFetch"
	case "web_search":
		return "WebSearch"
	case "task":
		return "Task"
	case "ask_user":
		return "AskUserQuestion"
	}
	return ""
}

// EncodeCopilot writes Copilot CLI's answer to the engine's event, for
// the session; nothing at all when there is nothing to say. Answers are
// top-level: preToolUse's permissionDecision (allow, deny, ask) with
// permissionDecisionReason — it takes no context; additionalContext on
// sessionStart, postToolUse and postToolUseFailure; agentStop's and
// subagentStop's decision "block" with a reason. A command hook's
// userPromptSubmitted output is dropped by Copilot, so none is written.
// No hook stops Copilot's agent: it is told to stop. The agent is taught
// `plangit step add` and update_todo (HostText).
func EncodeCopilot(event, sessionID string, out *Output) []byte {
	if out.Empty() {
		return nil
	}
	context := HostText(sessionID, out.Context, "update_todo")
	context = toldToStop(context, out)
	switch event {
	case "SessionStart", "PostToolUse", "PostToolUseFailure":
		return ContextOutput("additionalContext", context)
	case "PreToolUse":
		if out.Permission == "" {
			return nil
		}
		reason := out.PermissionReason
		if reason == "" && out.Permission != "allow" {
			reason = "plangit " + out.Permission // required on deny
		}
		return append(Object(nil).Str("permissionDecision", out.Permission).Str("permissionDecisionReason", reason).Close(), '\n')
	case "Stop", "SubagentStop":
		if out.Block {
			return append(Object(nil).Str("decision", "block").Str("reason", out.Reason).Close(), '\n')
		}
	}
	return nil // userPromptSubmitted (dropped by Copilot), preCompact, sessionEnd
}
