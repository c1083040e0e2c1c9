package hooks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/render/brief"
)

// Gemini is Gemini CLI's hook protocol, from its hooks reference
// (google-gemini/gemini-cli, docs/hooks/reference.md: base input, each
// event's input and output, exit codes) and its source (hookRunner.ts,
// client.ts, coreToolHookTriggers.ts: where each answer is read).
//
// Payloads carry session_id, transcript_path, cwd, hook_event_name and an
// ISO 8601 timestamp. plangit hooks SessionStart, BeforeAgent (the
// prompt: UserPromptSubmit), BeforeTool and AfterTool (PreToolUse,
// PostToolUse), AfterAgent (the stop: prompt_response is the agent's last
// message), PreCompress (PreCompact) and SessionEnd. Tools are Gemini's
// (run_shell_command, write_file, replace, read_file, grep_search, …),
// mapped onto the engine's; write_todos' {todos:[{description,status}]} is
// a TodoWrite (a cancelled todo is dropped from the list, which skips its
// step). An AfterTool whose tool_response has an error, or a shell command
// whose result says it exited non-zero, is a PostToolUseFailure.
//
// Answers: hookSpecificOutput.additionalContext where Gemini reads it —
// SessionStart, BeforeAgent and AfterTool; BeforeTool's decision "deny"
// with a reason (sent to the agent as the tool's error); AfterAgent's
// decision "deny" with a reason, which Gemini sends to the agent as a new
// prompt (bounded only by its 100 turns: stop_hook_active and plangit's
// own cap bound it). Stdout holds only JSON, "{}" when there is nothing to
// say: Gemini parses stderr when stdout is empty.
//
// What Gemini does not allow: context before a tool (BeforeTool's
// additionalContext is not read), so there is no pre-tool reminder (the
// prompt line names the current step, and a failure's context comes with
// the failed tool's result); its "ask" is undocumented, so plan and step
// confirmation deny the call and say what the person must run; no hook
// stops the agent from a tool event, so at max_iterations the plan pauses
// and the agent is told to stop; no variable reaches the agent's shell, so
// suggested commands name --session; no subagent events.
type Gemini struct{}

// Decode reads Gemini's JSON. The payload's hook_event_name names the
// event.
func (Gemini) Decode(event string, payload []byte) (*Input, error) {
	p, err := hookwire.DecodeGemini(payload)
	if err != nil {
		return nil, err
	}
	if p.HookEventName != "" {
		event = p.HookEventName
	}
	in := &Input{Event: hostEvent(HostGemini, event), SessionID: p.SessionID, Cwd: p.Cwd, Source: p.Source, Prompt: p.Prompt,
		ToolResponse: p.ToolResponse, StopHookActive: p.StopHookActive, LastAssistantMessage: p.LastAssistantMessage, Trigger: p.Trigger,
		TranscriptPath: p.TranscriptPath}
	if in.Event == "" {
		return nil, fmt.Errorf("unknown hook event %q", event)
	}
	if in.Event != Stop {
		in.LastAssistantMessage = ""
	}
	in.ToolName, in.ToolInput = hookwire.GeminiTool(p.ToolName, p.ToolInput)
	if in.ToolName == "TodoWrite" {
		if todos := geminiTodos(in.ToolInput); todos != nil {
			in.ToolInput = todos
		} else {
			in.ToolName = "write_todos" // not a list the engine can read
		}
	}
	if in.Event == PreCompact && in.Trigger != "manual" {
		in.MaybeCompact = true // 0.61.0 fires it before every request
	}
	if in.Event == PostToolUse {
		in.Compacted = hookwire.PromptShrank(in.TranscriptPath)
		if msg, errored := geminiFailure(in.ToolName, in.ToolResponse); msg != "" {
			in.Event, in.Error, in.ToolResponse, in.ErrorOnly = PostToolUseFailure, msg, nil, errored
		}
	}
	return in, nil
}

// geminiExit is how run_shell_command's result reports a non-zero exit.
var geminiExit = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Exit Code: (-?[0-9]+)\s*$`) })

// geminiFailure is the error an AfterTool reports: tool_response.error
// (a string, or an object with a message: errored is true, and that
// message is all Gemini shows the model), or, for a shell command, its
// llmContent saying it exited non-zero; "" when the tool succeeded.
func geminiFailure(tool string, response json.RawMessage) (msg string, errored bool) {
	var llm, failure string
	hookwire.Members(response, func(key string, value []byte) error {
		switch key {
		case "llmContent":
			llm, _ = hookwire.String(value)
		case "error":
			if s, ok := hookwire.String(value); ok {
				failure = s
				return nil
			}
			hookwire.Members(value, func(k string, v []byte) error {
				if k == "message" {
					failure, _ = hookwire.String(v)
				}
				return nil
			})
		}
		return nil
	})
	if strings.TrimSpace(failure) != "" {
		return strings.TrimSpace(failure), true
	}
	if tool == "Bash" {
		if code := geminiExitCode(llm); code != "" {
			return exitFailure(code, geminiShellOutput(llm)), false
		}
	}
	return "", false
}

// geminiExitCode is the exit code in run_shell_command's llmContent, ""
// when it exited 0: read from Gemini's own lines after the output (the
// last lines, up to the first that is not one), never from the output,
// which may hold "Exit Code: 1" of its own.
func geminiExitCode(llm string) string {
	text := strings.TrimSpace(llm)
	text = strings.TrimSpace(strings.TrimSuffix(text, "</untrusted_context>"))
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimRight(lines[i], "\r")
		if !geminiTrailer().MatchString(line) {
			break
		}
		if m := geminiExit().FindStringSubmatch(line); m != nil {
			return m[1]
		}
	}
	return ""
}

// geminiShellOutput is the command's output in run_shell_command's
// llmContent, without Gemini's wrapper: 0.61.0 writes
//
//	<untrusted_context>
//	Output: <output, or (empty)>
//	[Error: …]
//	[Exit Code: N]
//	Process Group PGID: <pid>
//	</untrusted_context>
//
// and other releases drop the wrapper or add Signal and Background PIDs
// lines. The output is what follows "Output: " up to Gemini's own lines
// at the end (lines of the output that look like them stay).
func geminiShellOutput(llm string) string {
	text := strings.TrimSpace(llm)
	text = strings.TrimPrefix(text, "<untrusted_context>")
	text = strings.TrimSpace(strings.TrimSuffix(text, "</untrusted_context>"))
	if _, after, ok := strings.Cut(text, "Output: "); ok {
		text = after
	}
	out := strings.Split(text, "\n")
	for len(out) > 0 && geminiTrailer().MatchString(strings.TrimRight(out[len(out)-1], "\r")) {
		out = out[:len(out)-1]
	}
	output := strings.TrimSpace(strings.Join(out, "\n"))
	if output == "(empty)" {
		return ""
	}
	return output
}

// geminiTrailer is a line Gemini writes after a shell command's output.
var geminiTrailer = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(Error|Exit Code|Signal|Background PIDs|Process Group PGID): |^</untrusted_context>$`)
})

// cancelled todos; nil when it is not that shape.
func geminiTodos(input json.RawMessage) json.RawMessage {
	var args struct {
		Todos []struct {
			Description string `json:"description"`
			Status      string `json:"status"`
		} `json:"todos"`
	}
	if json.Unmarshal(input, &args) != nil || len(args.Todos) == 0 {
		return nil
	}
	items := []string{}
	for _, t := range args.Todos {
		if strings.TrimSpace(t.Description) == "" {
			return nil
		}
		if t.Status == "cancelled" {
			continue // dropped from the list: its step is skipped
		}
		items = append(items, string(hookwire.Object(nil).Str("content", t.Description).Str("status", t.Status).Str("activeForm", t.Description).Close()))
	}
	return json.RawMessage(`{"todos":[` + strings.Join(items, ",") + `]}`)
}

// Nothing is Gemini's empty answer (hookwire.GeminiNothing).
func (Gemini) Nothing() []byte { return []byte(hookwire.GeminiNothing) }

// Encode writes Gemini's answer (hookwire.EncodeGemini). The exit code is
// always 0: exit 2 is a block, other codes warnings.
// RecordsShell: Gemini CLI gives the agent's shell GEMINI_CLI=1 and no
// session id (GEMINI_SESSION_ID is in its hooks' environment alone): the
// hooks record the session for the Gemini process (Input.RecordShell).
func (Gemini) RecordsShell() bool { return true }

func (Gemini) Encode(in *Input, out *Output) ([]byte, int) {
	if in.Event == PostToolUseFailure && in.ErrorOnly && !out.Empty() && !out.Block && !out.Stop && strings.TrimSpace(out.Context) != "" {
		// Gemini gives the model only {"error": message} for a tool that
		// errored, dropping additionalContext: a denial's reason replaces
		// the result, so it carries the error and plangit's context. The
		// error is the tool's text, not plangit's: it goes in the context's
		// block of recorded text (brief.Fence), as Gemini's own wrapper
		// marks a shell command's output as untrusted.
		context := strings.ReplaceAll(out.Context, "TodoWrite", "write_todos")
		reason := brief.Join(brief.Fence(brief.Data("Tool error: "+in.Error)), context)
		return append(hookwire.Object(nil).Str("systemMessage", out.Notice).Str("decision", "deny").Str("reason", reason).Close(), '\n'), 0
	}
	return hookwire.EncodeGemini(in.Event, out), 0
}
