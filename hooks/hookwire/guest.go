package hookwire

import (
	"errors"
	"strings"

	"github.com/plangit/plangit/render/brief"
)

// What the readers of the hosts other than Claude Code share, here for
// the hook binary too: their payloads read by exact member names, and
// file tools' inputs given the file_path the engine reads.

// Field is a payload member a host's reader takes, by its exact name,
// into Dst (see DecodeInto).
type Field struct {
	Key string
	Dst any
}

// DecodeFields reads a payload's members into fields (a leading BOM
// skipped), as encoding/json would: the last of a repeated name, a value
// of the wrong type an error.
func DecodeFields(payload []byte, fields []Field) error {
	err := Members(StripBOM(payload), func(key string, value []byte) error {
		for _, f := range fields {
			if key == f.Key {
				if !DecodeInto(f.Dst, value) {
					return errors.New(f.Key + " holds a value of the wrong type")
				}
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return &MalformedError{err}
	}
	return nil
}

// FileTool reports whether an engine's tool acts on one file, named by
// tool_input.file_path.
func FileTool(tool string) bool {
	switch tool {
	case "Write", "Edit", "MultiEdit", "Read", "NotebookEdit":
		return true
	}
	return false
}

// pathKeys are the names hosts give a file tool's path, tried in order
// when tool_input has no file_path.
var pathKeys = [...]string{"path", "target_file", "filePath", "file"}

// WithFilePath returns a file tool's input with a file_path member, taken
// from the first of pathKeys it has, so the engine knows the file
// (errors are keyed by it, edits of the session's own files adopted by
// it). An input that has file_path, or none of them, is returned as it
// is.
func WithFilePath(input []byte) []byte {
	var o Object
	var found [len(pathKeys)]string // each name's last non-empty string
	has := false
	err := Members(input, func(key string, value []byte) error {
		if key == "file_path" {
			has = true // has one: leave the input alone
		}
		for i, k := range pathKeys {
			if key == k {
				if s, ok := String(value); ok && s != "" {
					found[i] = s
				}
			}
		}
		o = o.Raw(key, string(value))
		return nil
	})
	if err != nil || has {
		return input
	}
	for _, v := range found {
		if v != "" {
			return o.Str("file_path", v).Close()
		}
	}
	return input
}

// ObjectOrString reads a value a host sends either as a JSON object or as
// a string holding one: the object's JSON. A string that holds no JSON
// value is returned as the JSON string it was; null and absence are nil.
func ObjectOrString(raw []byte) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '"' {
		return raw
	}
	s, ok := String(raw)
	if !ok {
		return raw
	}
	if t := strings.TrimSpace(s); t != "" && Valid([]byte(t)) {
		return []byte(t)
	}
	return raw
}

// ContextOutput is an answer of one top-level string member, or nothing.
func ContextOutput(key, text string) []byte {
	if text == "" {
		return nil
	}
	return append(Object(nil).Str(key, text).Close(), '\n')
}

// HostText fits what the engine says to a host whose stop payload carries
// no agent message, so [Step] lines in replies are never read: the agent
// is taught `plangit step add` instead, and the host's todo tool (todo)
// in place of TodoWrite, or none when todo is "".
func HostText(sessionID, text, todo string) string {
	if text == "" {
		return text
	}
	text = strings.ReplaceAll(text, brief.StepSyntax, "Add a step with "+CLI(sessionID, false)+" step add \"what to do\".")
	if todo == "" {
		return strings.ReplaceAll(text, " Or plan with TodoWrite.", "")
	}
	return strings.ReplaceAll(text, " Or plan with TodoWrite.", " Or plan with "+todo+".")
}

// toldToStop is what a host whose hooks cannot stop its agent says to it
// when the answer would stop it: the context, then why it must stop.
func toldToStop(context string, out *Output) string {
	if !out.Stop {
		return context
	}
	return strings.TrimSpace(context + "\n[plangit] Stop now: " + out.StopReason)
}
