package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Claude is Claude Code's hook protocol: the event's JSON on stdin; the
// answer as JSON on stdout with exit code 0.
//
// hookSpecificOutput (additionalContext, permissionDecision) is valid only
// for the events below; Claude Code rejects it elsewhere (a Stop hook's
// output is validated against decision, reason and systemMessage), so
// context for other events is sent as systemMessage, which the person sees.
type Claude struct{}

var claudeContextEvents = []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure}

// claudeInput is the payload Claude Code sends.
type claudeInput struct {
	SessionID            string          `json:"session_id"`
	Cwd                  string          `json:"cwd"`
	HookEventName        string          `json:"hook_event_name"`
	Source               string          `json:"source"`
	Prompt               string          `json:"prompt"`
	ToolName             string          `json:"tool_name"`
	ToolInput            json.RawMessage `json:"tool_input"`
	ToolResponse         json.RawMessage `json:"tool_response"`
	Error                string          `json:"error"`
	IsInterrupt          bool            `json:"is_interrupt"`
	StopHookActive       bool            `json:"stop_hook_active"`
	LastAssistantMessage string          `json:"last_assistant_message"`
	Trigger              string          `json:"trigger"`
}

// Decode reads Claude Code's JSON. The payload's hook_event_name, when
// present, names the event.
func (Claude) Decode(event string, payload []byte) (*Input, error) {
	var c claudeInput
	if err := json.Unmarshal(payload, &c); err != nil {
		return nil, fmt.Errorf("malformed hook payload: %w", err)
	}
	if c.HookEventName != "" {
		event = EventName(c.HookEventName)
	}
	if !slices.Contains([]string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop, SubagentStop, PreCompact, SessionEnd}, event) {
		return nil, fmt.Errorf("unknown hook event %q", event)
	}
	return &Input{
		Event: event, SessionID: c.SessionID, Cwd: c.Cwd, Source: c.Source, Prompt: c.Prompt,
		ToolName: c.ToolName, ToolInput: c.ToolInput, ToolResponse: c.ToolResponse,
		Error: c.Error, IsInterrupt: c.IsInterrupt, StopHookActive: c.StopHookActive,
		LastAssistantMessage: c.LastAssistantMessage, Trigger: c.Trigger,
	}, nil
}

type claudeOutput struct {
	Continue           *bool                 `json:"continue,omitempty"`
	StopReason         string                `json:"stopReason,omitempty"`
	SystemMessage      string                `json:"systemMessage,omitempty"`
	Decision           string                `json:"decision,omitempty"`
	Reason             string                `json:"reason,omitempty"`
	HookSpecificOutput *claudeSpecificOutput `json:"hookSpecificOutput,omitempty"`
}

type claudeSpecificOutput struct {
	HookEventName            string `json:"hookEventName"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

// Encode writes Claude Code's answer; nothing at all when there is nothing
// to say. The exit code is always 0: blocking is done in the JSON.
func (Claude) Encode(in *Input, out *Output) ([]byte, int) {
	if out.empty() || in.Event == SessionEnd {
		return nil, 0
	}
	var c claudeOutput
	if out.Context != "" {
		if slices.Contains(claudeContextEvents, in.Event) {
			c.HookSpecificOutput = &claudeSpecificOutput{HookEventName: in.Event, AdditionalContext: out.Context}
		} else {
			c.SystemMessage = out.Context
		}
	}
	if out.Permission != "" && in.Event == PreToolUse {
		if c.HookSpecificOutput == nil {
			c.HookSpecificOutput = &claudeSpecificOutput{HookEventName: in.Event}
		}
		c.HookSpecificOutput.PermissionDecision = out.Permission
		c.HookSpecificOutput.PermissionDecisionReason = out.PermissionReason
	}
	if out.Block {
		c.Decision, c.Reason = "block", out.Reason
	}
	if out.Stop {
		no := false
		c.Continue, c.StopReason = &no, out.StopReason
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, 0
	}
	return b.Bytes(), 0
}
