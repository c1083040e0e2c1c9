package hooks

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/plangit/plangit/hooks/hookwire"
)

// Codex is Codex CLI's hook protocol, from its hooks documentation
// (developers.openai.com/codex/hooks: events, input fields, output
// fields, "Unsupported fields fail the hook run") and its output schemas
// (openai/codex, codex-rs/hooks/schema/generated/*.command.output.schema.json,
// every one with additionalProperties: false).
//
// The payload is Claude Code's shape — session_id, cwd, hook_event_name,
// tool_name, tool_input, tool_response, stop_hook_active,
// last_assistant_message — plus model, turn_id and tool_use_id. plangit
// hooks SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop,
// SubagentStop and PreCompact; not SessionEnd, which older releases did
// not know (0.169.0 fires it, its timeout clamped to 3 s, and ignores
// event names it does not know).
//
// Mapped onto the engine: the shell tool is reported as Bash already, and
// a command that only reads or searches (cat, sed -n, rg, ls, …) is the
// look-up it is, since the agent has no other way to read; a Bash
// PostToolUse whose command exited non-zero is a PostToolUseFailure, since
// Codex has no failure event: its tool_response is the command's raw
// output with no exit code (0.169.0: "" for both false and mkdir -p), so
// the exit code is read from the session's transcript (transcript_path:
// the item_completed event of the CommandExecution whose id is the call's
// tool_use_id, written before the hook runs), or, failing that, from a
// "Process exited with code N" in the response's header (older releases); a
// command that outlives Codex's yield time gets no PostToolUse at all,
// and nothing is logged for it; apply_patch (the patch text in
// tool_input.command) is an Edit of the first file the patch names, or a
// Write when it adds that file; update_plan's {plan:[{step,status}]} is a
// TodoWrite. The agent's shell has CODEX_THREAD_ID, the session id (the
// hooks' environment does not), so suggested commands need no --session.
//
// Answers carry only the fields each event's schema allows and Codex's
// runtime accepts: hookSpecificOutput.additionalContext on SessionStart,
// UserPromptSubmit, PreToolUse and PostToolUse; a PreToolUse denial as
// permissionDecision "deny" with its reason; Stop's and SubagentStop's
// decision "block" with a non-empty reason, which Codex sends as the next
// prompt (Codex has no loop cap: stop_hook_active and plangit's own cap
// bound it). Nothing on PreCompact.
//
// What Codex does not allow: PreToolUse's "ask" (and "allow" without a
// new input) fail the hook run, so plan and step confirmation deny the
// call and say what the person must run; PostToolUse's decision "block"
// would replace the tool's result, so what plangit says after a tool is
// context; no hook stops the agent ("continue": false is not supported on
// tool events), so at max_iterations the plan pauses and the agent is told
// to stop.
type Codex struct{}

// Decode reads Codex's JSON. The payload's hook_event_name names the
// event.
func (Codex) Decode(event string, payload []byte) (*Input, error) {
	p, err := hookwire.DecodeClaude(hookwire.StripBOM(payload))
	if err != nil {
		return nil, err
	}
	if p.HookEventName != "" {
		event = p.HookEventName
	}
	in := &Input{Event: hostEvent(HostCodex, event), SessionID: p.SessionID, Cwd: p.Cwd, Source: p.Source, Prompt: p.Prompt,
		ToolName: p.ToolName, ToolInput: p.ToolInput, ToolResponse: p.ToolResponse, StopHookActive: p.StopHookActive,
		LastAssistantMessage: p.LastAssistantMessage, Trigger: p.Trigger, AgentID: p.AgentID, AgentType: p.AgentType, TranscriptPath: p.TranscriptPath}
	if in.Event == "" {
		return nil, fmt.Errorf("unknown hook event %q", event)
	}
	shell := in.ToolName == "Bash"
	if in.ToolName == "update_plan" {
		if todos := codexPlan(in.ToolInput); todos != nil {
			in.ToolName, in.ToolInput = "TodoWrite", todos
		}
	} else {
		in.ToolName, in.ToolInput = hookwire.CodexTool(in.ToolName, in.ToolInput)
	}
	if in.Event == PostToolUse && shell {
		msg := codexShellFailure(in.ToolResponse)
		if code, output, ok := hookwire.CommandExit(p.TranscriptPath, p.ToolUseID); ok {
			msg = exitFailure(strconv.Itoa(code), output)
		}
		if msg != "" {
			in.Event, in.Error, in.ToolResponse = PostToolUseFailure, msg, nil
		}
	}
	return in, nil
}

// ReadEnv: Codex sets CODEX_THREAD_ID, the thread id its hooks get as
// session_id, in the agent's shell (openai/codex pull request 10096; seen
// in 0.169.0), so the CLI run there reaches the hooks' session
// (SessionVars). The hook's own environment does not have it: the shell
// is taken to reach the session whatever the hook's environment says.
func (Codex) ReadEnv(in *Input, _ func(string) string) {
	in.ShellSession = true
}

// codexExit is how Codex's shell result reports the process's end.
const codexExit = "Process exited with code "

// codexShellFailure is the error of a Bash call whose result says the
// process exited non-zero; "" when it exited 0 or does not say. The
// result's words are not a stable interface: this is best effort.
func codexShellFailure(response json.RawMessage) string {
	text, ok := hookwire.String(response)
	if !ok {
		var out string
		hookwire.Members(response, func(key string, value []byte) error {
			if key == "output" || key == "stdout" || key == "formatted_output" {
				out, _ = hookwire.String(value)
			}
			return nil
		})
		text = out
	}
	// The result is a header — "Chunk ID: …", "Wall time: …", "Process
	// exited with code N", "Original token count: …" — then "Output:" and
	// the command's output. Only the header says how the process ended: an
	// output that prints such a line of its own says nothing of it.
	header, output, found := strings.Cut(text, "Output:\n")
	if !found {
		return ""
	}
	for line := range strings.SplitSeq(header, "\n") {
		if code, ok := strings.CutPrefix(strings.TrimSpace(line), codexExit); ok {
			return exitFailure(code, output)
		}
	}
	return ""
}

// codexPlan reads update_plan's {"plan":[{"step","status"}]} as
// TodoWrite's {"todos":[{"content","status","activeForm"}]}; nil when it
// is not that shape.
func codexPlan(input json.RawMessage) json.RawMessage {
	var args struct {
		Plan []struct {
			Step   string `json:"step"`
			Status string `json:"status"`
		} `json:"plan"`
	}
	if json.Unmarshal(input, &args) != nil || len(args.Plan) == 0 {
		return nil
	}
	items := make([]string, 0, len(args.Plan))
	for _, p := range args.Plan {
		if strings.TrimSpace(p.Step) == "" {
			return nil
		}
		items = append(items, string(hookwire.Object(nil).Str("content", p.Step).Str("status", p.Status).Str("activeForm", p.Step).Close()))
	}
	return json.RawMessage(`{"todos":[` + strings.Join(items, ",") + `]}`)
}

// Encode writes Codex's answer (hookwire.EncodeCodex); the exit code is
// always 0.
func (Codex) Encode(in *Input, out *Output) ([]byte, int) {
	return hookwire.EncodeCodex(in.Event, out), 0
}
