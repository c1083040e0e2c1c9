package hooks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/plangit/plangit/hooks/hookwire"
)

// Copilot is GitHub Copilot CLI's hook protocol, from GitHub's hooks
// reference (docs.github.com/en/copilot/reference/hooks-reference; the
// github/docs source content/copilot/reference/hooks-reference.md):
// "Hook event input payloads", "preToolUse decision control", "agentStop /
// subagentStop decision control", "postToolUse output", "Exit codes for
// command hooks".
//
// Copilot sends one of two payload formats, chosen by how the config
// spells the event. camelCase events (sessionStart, preToolUse, agentStop,
// …: what `plangit hook EVENT --host copilot` is installed under) give
// camelCase fields — sessionId, timestamp in milliseconds, cwd, toolName,
// toolArgs (an object, or a JSON string: both are read), toolResult
// {resultType, textResultForLlm}, error — and no event name: the command
// line names it. PascalCase events (SessionStart, PreToolUse, Stop: what
// Claude Code's settings files hold, which Copilot also runs) give the
// "VS Code compatible" format: hook_event_name, session_id, an ISO 8601
// timestamp, tool_name under Claude Code's tool names, tool_input,
// tool_result {result_type, text_result_for_llm}.
//
// Answers, top-level in both formats: preToolUse's permissionDecision
// (allow, deny, ask) with permissionDecisionReason; additionalContext on
// sessionStart, postToolUse and postToolUseFailure; agentStop's and
// subagentStop's decision "block" with a reason, the next turn's prompt
// (Copilot ends the turn anyway after 8 blocks in a row, and says so in
// stop_hook_active). The exit code is always 0: a preToolUse hook that
// exits non-zero (a crash included) denies the tool.
//
// What Copilot does not allow: a command hook's userPromptSubmitted output
// is dropped (the prompt is recorded — a plan started, a pause resumed —
// but its line is not said); preToolUse takes no context, so no pre-tool
// reminder; no hook can stop the agent, so the iteration limit is said to
// the agent; agentStop carries no assistant message, so [Step] lines and
// transition words are read only from a subagent's response (the agent is
// taught `plangit step add` instead), except those its transcript
// (transcriptPath, events.jsonl: assistant.message) holds. The agent's
// shell has COPILOT_AGENT_SESSION_ID, the hooks' sessionId (1.0.102; not
// in the hooks' own environment), so suggested commands need no
// --session.
type Copilot struct{}

// Decode reads either of Copilot's formats. The PascalCase format's
// hook_event_name names the event; else the command line does.
func (Copilot) Decode(event string, payload []byte) (*Input, error) {
	p, err := hookwire.DecodeCopilot(payload)
	if err != nil {
		return nil, err
	}
	if p.HookEventName != "" {
		event = p.HookEventName
	}
	in := &Input{SessionID: p.SessionID, Cwd: p.Cwd, Source: p.Source, Prompt: p.Prompt, ToolName: p.ToolName, ToolInput: p.ToolInput,
		StopHookActive: p.StopHookActive, AgentID: p.AgentID, LastAssistantMessage: p.LastAssistantMessage, Trigger: p.Trigger,
		TranscriptPath: p.TranscriptPath}
	if in.Event = hostEvent(HostCopilot, event); in.Event == "" {
		return nil, fmt.Errorf("unknown hook event %q", event)
	}
	if in.ToolName == "update_todo" {
		if todos := copilotTodos(in.ToolInput); todos != nil {
			in.ToolName, in.ToolInput = "TodoWrite", todos
		}
	}
	in.ToolName, in.ToolInput = hookwire.CopilotTool(in.ToolName, in.ToolInput)
	in.Error = copilotError(p.Err)
	if in.Event == PostToolUse {
		text := copilotResultText(p.Result)
		in.ToolResponse = hookwire.ObjectOrString(p.Result)
		if in.ToolName == "Bash" {
			if msg := copilotShellFailure(text); msg != "" {
				in.Event, in.Error, in.ToolResponse = PostToolUseFailure, msg, nil
			}
		}
	}
	if in.Event != SubagentStop {
		in.AgentID, in.LastAssistantMessage = "", ""
	}
	return in, nil
}

// copilotError reads error: a string on postToolUseFailure, an object
// {message, name, stack} on errorOccurred.
func copilotError(raw json.RawMessage) string {
	if s, ok := hookwire.String(raw); ok {
		return s
	}
	var msg string
	hookwire.Members(raw, func(key string, value []byte) error {
		if key == "message" {
			msg, _ = hookwire.String(value)
		}
		return nil
	})
	return msg
}

// copilotResultText is the text a tool result gave the model:
// textResultForLlm (text_result_for_llm in the PascalCase format).
func copilotResultText(result json.RawMessage) string {
	var text string
	hookwire.Members(result, func(key string, value []byte) error {
		if key == "textResultForLlm" || key == "text_result_for_llm" {
			text, _ = hookwire.String(value)
		}
		return nil
	})
	return text
}

// copilotExit matches the trailer Copilot puts after a shell command's
// output: "<shellId: 4 completed with exit code 2>" (1.0.102, seen on the
// real host), or "<exited with exit code 1>" (as ACP clients of Copilot
// read it).
var copilotExit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`<(?:shellId: \S+ completed with|exited with) exit code (-?[0-9]+)>$`)
})

// copilotShellFailure is the error of a bash call whose result says its
// command exited non-zero, which Copilot reports as a successful tool use
// (resultType "success").
func copilotShellFailure(text string) string {
	t := strings.TrimSpace(text)
	m := copilotExit().FindStringSubmatchIndex(t)
	if m == nil {
		return ""
	}
	return exitFailure(t[m[2]:m[3]], t[:m[0]])
}

// copilotTodos reads update_todo's arguments as TodoWrite's
// {"todos":[{content,status}]}; nil when they are neither that shape nor
// a Markdown checklist ("- [ ] a", "- [x] b") in "todos". The reference
// names update_todo's Claude counterpart (TodoWrite) but not its input.
func copilotTodos(args json.RawMessage) json.RawMessage {
	var todos json.RawMessage
	hookwire.Members(args, func(key string, value []byte) error {
		if key == "todos" {
			todos = value
		}
		return nil
	})
	if len(todos) == 0 {
		return nil
	}
	if todos[0] == '[' {
		var list []struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		}
		if json.Unmarshal(todos, &list) != nil || len(list) == 0 || list[0].Content == "" {
			return nil
		}
		return args
	}
	text, ok := hookwire.String(todos)
	if !ok {
		return nil
	}
	var items []string
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(hookwire.StripMarkers(strings.TrimSpace(line)))
		status := ""
		switch {
		case strings.HasPrefix(l, "[ ]"):
			status = unchecked
		case strings.HasPrefix(l, "[x]"), strings.HasPrefix(l, "[X]"):
			status = "completed"
		default:
			continue
		}
		if content := strings.TrimSpace(l[3:]); content != "" {
			items = append(items, string(hookwire.Object(nil).Str("content", content).Str("status", status).Close()))
		}
	}
	if len(items) == 0 {
		return nil
	}
	return json.RawMessage(`{"todos":[` + strings.Join(items, ",") + `]}`)
}

// Encode writes Copilot's answer (hookwire.EncodeCopilot). The exit code
// is always 0: a preToolUse hook that exits non-zero denies the tool.
func (Copilot) Encode(in *Input, out *Output) ([]byte, int) {
	return hookwire.EncodeCopilot(in.Event, in.SessionID, out), 0
}

// Asks: Copilot CLI asks the person on a preToolUse "ask".
func (Copilot) Asks() bool { return true }

// ReadEnv: Copilot CLI sets COPILOT_AGENT_SESSION_ID, the hooks'
// sessionId, in the agent's shell, and not in its hooks' environment: the
// CLI run there reaches the hooks' session (SessionVars).
func (Copilot) ReadEnv(in *Input, _ func(string) string) {
	in.ShellSession = true
}
