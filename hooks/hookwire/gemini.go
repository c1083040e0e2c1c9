package hookwire

import (
	"strings"

	"github.com/plangit/plangit/render/brief"
)

// Gemini CLI's hook protocol, for what the engine and the hook binary
// share: its payload, its tools read as the engine's, and its answers
// (hooks.Gemini tells the whole protocol, and where each rule comes from).

// DecodeGemini reads Gemini CLI's JSON: session_id, cwd, hook_event_name,
// source, prompt, tool_name, tool_input, tool_response, stop_hook_active,
// prompt_response (the agent's last message), trigger and
// transcript_path, by their exact names.
func DecodeGemini(payload []byte) (*Payload, error) {
	p := &Payload{}
	err := DecodeFields(payload, []Field{{"session_id", &p.SessionID}, {"cwd", &p.Cwd}, {"hook_event_name", &p.HookEventName},
		{"source", &p.Source}, {"prompt", &p.Prompt}, {"tool_name", &p.ToolName}, {"tool_input", &p.ToolInput},
		{"tool_response", &p.ToolResponse}, {"stop_hook_active", &p.StopHookActive},
		{"prompt_response", &p.LastAssistantMessage}, {"trigger", &p.Trigger}, {"transcript_path", &p.TranscriptPath}})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// GeminiTool is the engine's tool a Gemini CLI tool call is, and the
// input the engine reads of it: run_shell_command is Bash, write_file
// Write, replace Edit, read_file and read_many_files Read, and so on, a
// file tool's input given file_path (from absolute_path, in earlier
// releases, or the first of paths); write_todos is TodoWrite with its
// input as it is, which package hooks reads.
func GeminiTool(tool string, input []byte) (string, []byte) {
	if t := geminiTool(tool); t != "" {
		tool = t
	}
	if FileTool(tool) {
		input = WithFilePath(geminiPath(input))
	}
	return tool, input
}

// geminiTool is the engine's name of a Gemini CLI tool; "" for one that
// keeps its own.
func geminiTool(tool string) string {
	switch tool {
	case "run_shell_command":
		return "Bash"
	case "write_file":
		return "Write"
	case "replace":
		return "Edit"
	case "read_file", "read_many_files":
		return "Read"
	case "glob":
		return "Glob"
	case "grep_search", "search_file_content", "grep":
		return "Grep"
	case "list_directory":
		return "LS"
	case "web_fetch":
		return "WebFetch"
	case "google_web_search":
		return "WebSearch"
	case "write_todos":
		return "TodoWrite"
	}
	return ""
}

// geminiPath gives a file tool's input a path member WithFilePath reads
// when Gemini names the file absolute_path (read_file in earlier
// releases) or lists it first in paths (read_many_files).
func geminiPath(input []byte) []byte {
	var path string
	Members(input, func(key string, value []byte) error {
		switch key {
		case "absolute_path":
			path, _ = String(value)
		case "paths":
			Elements(value, func(v []byte) {
				if path == "" {
					path, _ = String(v)
				}
			})
		}
		return nil
	})
	if path == "" {
		return input
	}
	return Object(nil).Str("path", path).Close()
}

// GeminiNothing is Gemini CLI's answer that says nothing: an empty
// object, since Gemini reads stderr when stdout is empty.
const GeminiNothing = "{}\n"

// EncodeGemini writes Gemini CLI's answer to the engine's event:
// hookSpecificOutput.additionalContext where Gemini reads it —
// SessionStart, BeforeAgent (UserPromptSubmit) and AfterTool
// (PostToolUse, PostToolUseFailure); BeforeTool's decision "deny" with a
// reason — Gemini has no documented "ask", and reads no context before a
// tool; AfterAgent's (Stop's) decision "deny" with a reason. Where Gemini
// cannot do what the answer asks — a block after a tool, which would
// replace the tool's result; stopping the agent — the answer says it in
// the context instead. TodoWrite is write_todos to Gemini's agent.
func EncodeGemini(event string, out *Output) []byte {
	if out.Empty() {
		return []byte(GeminiNothing)
	}
	context := strings.ReplaceAll(out.Context, "TodoWrite", "write_todos")
	context = toldToStop(context, out)
	if out.Block && (event == "PostToolUse" || event == "PostToolUseFailure") {
		context = brief.Join(context, out.Reason)
	}
	o := Object(nil).Str("systemMessage", out.Notice) // shown to the person
	switch event {
	case "SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure":
		name := "AfterTool"
		switch event {
		case "SessionStart":
			name = "SessionStart"
		case "UserPromptSubmit":
			name = "BeforeAgent"
		}
		if context != "" {
			o = o.Raw("hookSpecificOutput", string(Object(nil).Str("hookEventName", name).Str("additionalContext", context).Close()))
		}
	case "PreToolUse":
		if out.Permission == "ask" || out.Permission == "deny" {
			reason := strings.TrimSpace(out.PermissionReason)
			if out.Permission == "ask" {
				reason = strings.TrimSpace(reason + " Gemini CLI cannot ask here, so the call is denied: the person confirms by running it, or what the reason names, themselves.")
			}
			o = o.Str("decision", "deny").Str("reason", reason)
		}
	case "Stop":
		if out.Block && strings.TrimSpace(out.Reason) != "" {
			o = o.Str("decision", "deny").Str("reason", out.Reason)
		}
	}
	if len(o) == 0 {
		return []byte(GeminiNothing)
	}
	return append(o.Close(), '\n')
}
