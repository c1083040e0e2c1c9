package hooks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// Helpers the Cursor and Copilot CLI adapters share: both hosts name
// their tools and spell their tools' parameters their own way, and both
// also run the hooks of Claude Code's settings files (see native.go).

// hostEvent reads a host's event name as plangit's: the host's own
// spelling from the hosts table, or Claude Code's names (the command
// line of a hook installed in Claude Code's settings); "" when it is
// neither.
func hostEvent(host, name string) string {
	if h, err := lookupHost(host); err == nil {
		for _, ev := range h.events {
			if ev.Name == name {
				return ev.Event
			}
		}
	}
	if e := EventName(name); slices.Contains(repo.HookEvents, e) {
		return e
	}
	return ""
}

// fileTools are the engine's tools that act on one file, named by
// tool_input.file_path.
func fileTool(tool string) bool {
	switch tool {
	case "Write", "Edit", "MultiEdit", "Read", "NotebookEdit":
		return true
	}
	return false
}

// pathKeys are the names hosts give a file tool's path, tried in order
// when tool_input has no file_path.
var pathKeys = []string{"path", "target_file", "filePath", "file"}

// withFilePath returns a file tool's input with a file_path member, taken
// from the first of pathKeys it has, so the engine knows the file
// (errors are keyed by it, edits of the session's own files adopted by
// it). An input that has file_path, or none of them, is returned as it
// is.
func withFilePath(input json.RawMessage) json.RawMessage {
	var o hookwire.Object
	var path string
	found := map[string]string{}
	err := hookwire.Members(input, func(key string, value []byte) error {
		if key == "file_path" {
			path = "\x00" // has one: leave the input alone
		}
		if s, ok := hookwire.String(value); ok && s != "" {
			found[key] = s
		}
		o = o.Raw(key, string(value))
		return nil
	})
	if err != nil || path != "" {
		return input
	}
	for _, k := range pathKeys {
		if v := found[k]; v != "" {
			return json.RawMessage(o.Str("file_path", v).Close())
		}
	}
	return input
}

// objectOrString reads a value a host sends either as a JSON object or as
// a string holding one: the object's JSON. A string that holds no JSON
// value is returned as the JSON string it was; null and absence are nil.
func objectOrString(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '"' {
		return raw
	}
	s, ok := hookwire.String(raw)
	if !ok {
		return raw
	}
	if t := strings.TrimSpace(s); t != "" && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	return raw
}

// exitFailure is the error of a shell tool whose result says its command
// exited non-zero: "Exit code N" and the output, as Claude Code words a
// failed Bash call; "" when the code is 0 or unknown.
func exitFailure(code, output string) string {
	n, err := strconv.Atoi(strings.TrimSpace(code))
	if err != nil || n == 0 {
		return ""
	}
	msg := "Exit code " + strconv.Itoa(n)
	if out := strings.TrimSpace(output); out != "" {
		msg += "\n" + out
	}
	return msg
}

// renameTool maps a host's tool name to the engine's through table; a name
// not in it is kept.
func renameTool(table map[string]string, name string) string {
	if n, ok := table[name]; ok {
		return n
	}
	return name
}

// contextOutput is an answer of one top-level string member, or nothing.
func contextOutput(key, text string) []byte {
	if text == "" {
		return nil
	}
	return append(hookwire.Object(nil).Str(key, text).Close(), '\n')
}

// hostText fits what the engine says to a host whose stop payload carries
// no agent message, so [Step] lines in replies are never read: the agent
// is taught `plangit step add` instead, and the host's todo tool (todo)
// in place of TodoWrite, or none when todo is "".
func hostText(in *Input, text, todo string) string {
	if text == "" {
		return text
	}
	text = strings.ReplaceAll(text, render.StepSyntax, "Add a step with "+hookwire.CLI(in.SessionID, false)+" step add \"what to do\".")
	if todo == "" {
		return strings.ReplaceAll(text, " Or plan with TodoWrite.", "")
	}
	return strings.ReplaceAll(text, " Or plan with TodoWrite.", " Or plan with "+todo+".")
}

// field is a payload member an adapter reads, by its exact name, into a
// *string, *bool or *json.RawMessage (see decodeInto).
type field struct {
	key string
	dst any
}

// decodeFields reads a payload's members into fields (a leading BOM
// skipped), as encoding/json would: the last of a repeated name, a value
// of the wrong type an error.
func decodeFields(payload []byte, fields []field) error {
	err := hookwire.Members(hookwire.StripBOM(payload), func(key string, value []byte) error {
		for _, f := range fields {
			if key == f.key {
				if !hookwire.DecodeInto(f.dst, value) {
					return fmt.Errorf("%s holds a value of the wrong type", f.key)
				}
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("malformed hook payload: %w", err)
	}
	return nil
}
