package hookwire

import (
	"errors"
	"slices"
	"strings"
)

// Claude Code's hook protocol, for the events the engine and the hook
// binary share: the payload's JSON on stdin, the answer as JSON on stdout
// with exit code 0 (hooks reference, code.claude.com/docs/en/hooks).

// Payload is what plangit reads of Claude Code's hook payload.
type Payload struct {
	SessionID, Cwd, HookEventName, Source, Prompt, ToolName string
	ToolInput, ToolResponse                                 []byte
	Error                                                   string
	IsInterrupt, StopHookActive                             bool
	LastAssistantMessage, Trigger, AgentID                  string
	AgentType                                               string // the subagent's type (Claude Code, Codex: agent_type)
	TranscriptPath                                          string // the host's transcript (TurnMessages)
	ToolUseID                                               string // the tool call's id (Codex: the model's call_id)
	PermissionMode                                          string // Claude Code's permission mode: "plan" in plan mode
}

// DecodeClaude reads Claude Code's JSON: session_id, cwd, hook_event_name,
// source, prompt, tool_name, tool_input, tool_response, error,
// is_interrupt, stop_hook_active, last_assistant_message, trigger,
// agent_id, agent_type, transcript_path, tool_use_id and permission_mode, as encoding/json would read them into a struct (names in any
// case, the last of a repeated name, a wrong type an error).
func DecodeClaude(payload []byte) (*Payload, error) {
	p := &Payload{}
	fields := [...]struct {
		key string
		dst any // see DecodeInto
	}{{"session_id", &p.SessionID}, {"cwd", &p.Cwd}, {"hook_event_name", &p.HookEventName}, {"source", &p.Source},
		{"prompt", &p.Prompt}, {"tool_name", &p.ToolName}, {"tool_input", &p.ToolInput},
		{"tool_response", &p.ToolResponse}, {"error", &p.Error}, {"is_interrupt", &p.IsInterrupt},
		{"stop_hook_active", &p.StopHookActive}, {"last_assistant_message", &p.LastAssistantMessage},
		{"trigger", &p.Trigger}, {"agent_id", &p.AgentID}, {"agent_type", &p.AgentType}, {"transcript_path", &p.TranscriptPath},
		{"tool_use_id", &p.ToolUseID}, {"permission_mode", &p.PermissionMode}}
	err := members(payload, func(key, value []byte) error {
		name := string(memberName(key)) // no copy: name stays here
		for _, f := range fields {
			if strings.EqualFold(name, f.key) {
				if !DecodeInto(f.dst, value) {
					return errors.New(f.key + " holds a value of the wrong type")
				}
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return nil, &MalformedError{err}
	}
	return p, nil
}

// MalformedError is a payload that cannot be read.
type MalformedError struct{ Err error }

func (e *MalformedError) Error() string { return "malformed hook payload: " + e.Err.Error() }
func (e *MalformedError) Unwrap() error { return e.Err }

// Output is a hook's answer, whatever host receives it. The zero Output
// says nothing.
type Output struct {
	Context          string // text for the agent's context
	Block            bool   // block the event (Stop: keep working; PostToolUse: feed Reason back)
	Reason           string // why, for Block
	Permission       string // PreToolUse: allow, deny or ask
	PermissionReason string
	Stop             bool   // stop the agent altogether
	StopReason       string // why, shown to the person
	Notice           string // one line for the person, where the host shows one (systemMessage)
}

// Empty reports whether o says nothing.
func (o *Output) Empty() bool { return o == nil || *o == Output{} }

// claudeContextEvents are the events whose answer takes
// hookSpecificOutput.additionalContext.
var claudeContextEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"}

// EncodeClaude writes Claude Code's answer to event; nothing at all when
// there is nothing to say.
//
// Context reaches the agent as hookSpecificOutput.additionalContext on the
// events above. A Stop that plangit holds is answered the same way:
// Claude Code (2.1.163 and later) gives the model a Stop's
// additionalContext once and goes on with the turn, as a block does,
// while a decision "block" reaches the model twice (2.1.328: a "Stop hook
// feedback" user message and a "Stop hook blocking error" system message)
// and shows the person "stop hook reported a problem"; exit code 2 with
// the reason on stderr reaches it once but still shows that. A held
// SubagentStop keeps decision "block" with a reason. Context for Stop that
// is no block (advise mode) goes to the person, as systemMessage. PreCompact and SessionEnd
// answers are discarded by Claude Code (systemMessage included), so
// nothing is sent for them.
func EncodeClaude(event string, out *Output) []byte {
	if out.Empty() || event == "SessionEnd" || event == "PreCompact" {
		return nil
	}
	var context, system string
	if slices.Contains(claudeContextEvents, event) {
		context = out.Context
	} else {
		system = out.Context
	}
	if out.Notice != "" {
		system = strings.TrimSpace(out.Notice + "\n" + system)
	}
	var o Object
	if out.Stop {
		o = o.Raw("continue", "false").Str("stopReason", out.StopReason)
	}
	o = o.Str("systemMessage", system)
	if out.Block && event == "Stop" && strings.TrimSpace(out.Reason) != "" {
		context = out.Reason
	} else if out.Block {
		o = o.Str("decision", "block").Str("reason", out.Reason)
	}
	permission := out.Permission != "" && event == "PreToolUse"
	if context != "" || permission {
		var specific Object
		specific = specific.Str("hookEventName", event).Str("additionalContext", context)
		if permission {
			specific = specific.Str("permissionDecision", out.Permission).Str("permissionDecisionReason", out.PermissionReason)
		}
		o = o.Raw("hookSpecificOutput", string(specific.Close()))
	}
	return append(o.Close(), '\n')
}
