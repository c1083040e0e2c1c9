package hookwire

import (
	"strings"

	"github.com/plangit/plangit/render/brief"
)

// Codex CLI's hook protocol, for what the engine and the hook binary
// share: its tool calls read as the engine's tools, and its answers
// (hooks.Codex tells the whole protocol, and where each rule comes from).

// CodexTool is the engine's tool a Codex tool call is, and the input the
// engine reads of it: apply_patch is an Edit of the first file its patch
// names ({"file_path": …}), or a Write when the patch adds that file; a
// shell command that only reads or searches is the look-up it is (Read,
// Grep, Glob, LS); any other call is itself. update_plan, a TodoWrite, is
// read by package hooks.
func CodexTool(tool string, input []byte) (string, []byte) {
	switch tool {
	case "apply_patch":
		return codexPatch(input)
	case "Bash":
		return CodexLookup(input), input
	}
	return tool, input
}

// codexPatch reads apply_patch's input — the patch text in command (or
// patch, or input) — as an Edit or Write of the first file the patch
// names. A patch that names no file stays an Edit with its input as it
// was.
func codexPatch(input []byte) (string, []byte) {
	var patch string
	Members(input, func(key string, value []byte) error {
		if key == "command" || key == "patch" || key == "input" {
			if s, ok := String(value); ok && patch == "" {
				patch = s
			}
		}
		return nil
	})
	for line := range strings.SplitSeq(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, p := range [...]struct{ prefix, tool string }{{"*** Add File: ", "Write"}, {"*** Update File: ", "Edit"}, {"*** Delete File: ", "Edit"}} {
			if path, ok := strings.CutPrefix(line, p.prefix); ok && strings.TrimSpace(path) != "" {
				return p.tool, Object(nil).Str("file_path", strings.TrimSpace(path)).Close()
			}
		}
	}
	return "Edit", input
}

// CodexLookup is the engine's look-up tool a Bash command is, or "Bash":
// one program that reads or searches (cat, head, tail, nl, sed -n, wc; rg,
// grep; find; ls, tree) — Codex's agent has no other way to read — with no
// redirection, command list or pipe into anything but head or tail.
func CodexLookup(input []byte) string {
	var command string
	Members(input, func(key string, value []byte) error {
		if key == "command" {
			command, _ = String(value)
		}
		return nil
	})
	if command == "" || strings.ContainsAny(command, ";&>`$\n") {
		return "Bash"
	}
	stages := strings.Split(command, "|")
	for _, stage := range stages[1:] {
		if f := strings.Fields(stage); len(f) == 0 || f[0] != "head" && f[0] != "tail" {
			return "Bash"
		}
	}
	f := strings.Fields(stages[0])
	if len(f) == 0 {
		return "Bash"
	}
	tool := codexLookupTool(f[0])
	if tool == "" || f[0] == "sed" && (len(f) < 2 || f[1] != "-n") {
		return "Bash"
	}
	return tool
}

// codexLookupTool is the look-up tool a program is; "" for none. A switch,
// not a map: the hook binary builds no table it may not need.
func codexLookupTool(program string) string {
	switch program {
	case "cat", "head", "tail", "nl", "sed", "wc":
		return "Read"
	case "rg", "grep":
		return "Grep"
	case "find":
		return "Glob"
	case "ls", "tree":
		return "LS"
	}
	return ""
}

// EncodeCodex writes Codex's answer to the engine's event; nothing at all
// when there is nothing to say. Each event gets only the fields its output
// schema allows (every one has additionalProperties: false):
// hookSpecificOutput.additionalContext on SessionStart, UserPromptSubmit,
// PreToolUse and PostToolUse (a PostToolUseFailure is plangit's reading of
// a PostToolUse); a PreToolUse denial as permissionDecision "deny" — Codex
// has no "ask" — with its reason, which does not end in "." (Codex adds
// ". Command: …"); Stop's and SubagentStop's decision
// "block" with a non-empty reason; nothing on PreCompact. Where Codex
// cannot do what the answer asks — a block after a tool, which would
// replace the tool's result; stopping the agent — the answer says it in
// the context instead. TodoWrite is update_plan to Codex's agent.
func EncodeCodex(event string, out *Output) []byte {
	if out.Empty() {
		return nil
	}
	context := strings.ReplaceAll(out.Context, "TodoWrite", "update_plan")
	if out.Block && (event == "PostToolUse" || event == "PostToolUseFailure") {
		context = brief.Join(context, out.Reason)
	}
	context = toldToStop(context, out)
	switch event {
	case "SessionStart", "UserPromptSubmit", "PostToolUse":
		return codexContext(event, context, "", "", out.Notice)
	case "PostToolUseFailure":
		return codexContext("PostToolUse", context, "", "", out.Notice)
	case "PreToolUse":
		if out.Permission == "ask" || out.Permission == "deny" {
			reason := strings.TrimSpace(out.PermissionReason)
			if out.Permission == "ask" {
				reason = strings.TrimSpace(reason + " Codex cannot ask here, so the call is denied: the person confirms by running it, or what the reason names, themselves.")
			}
			// Codex appends ". Command: …" to the reason it gives the
			// model: a reason of its own ending in "." would read "..".
			reason = strings.TrimRight(reason, ". ")
			return codexContext(event, context, "deny", reason, out.Notice)
		}
		return codexContext(event, context, "", "", out.Notice)
	case "Stop", "SubagentStop":
		if out.Block && strings.TrimSpace(out.Reason) != "" {
			return append(Object(nil).Str("decision", "block").Str("reason", out.Reason).Close(), '\n')
		}
	}
	return nil // PreCompact, and a stop plangit does not hold
}

// codexContext is {["systemMessage",]"hookSpecificOutput":{"hookEventName",
// "additionalContext"[,"permissionDecision","permissionDecisionReason"]}},
// or nothing when there is neither context, nor a decision, nor a notice
// for the person (systemMessage, a member every event's schema allows).
func codexContext(event, context, decision, reason, notice string) []byte {
	if context == "" && decision == "" && notice == "" {
		return nil
	}
	o := Object(nil).Str("systemMessage", notice)
	if context != "" || decision != "" {
		specific := Object(nil).Str("hookEventName", event).Str("additionalContext", context)
		if decision != "" {
			specific = specific.Str("permissionDecision", decision).Str("permissionDecisionReason", reason)
		}
		o = o.Raw("hookSpecificOutput", string(specific.Close()))
	}
	return append(o.Close(), '\n')
}
