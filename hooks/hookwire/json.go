// Package hookwire is what plangit's hooks and its hook binary share: reading a
// host's payload, writing an answer, the glance and the turn memory, and fitting
// text to the context budget. It imports the standard library alone, so a
// program that links it and nothing else of plangit starts in the time of an
// empty Go program.
package hookwire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// A small JSON reader and writer for the hook path. A hook is a new process
// on every tool call, and encoding/json's reflection costs about 0.1 ms on
// its first use in a process: more than the rest of a read-only hook's
// work. These cover what that path needs — an object's members, strings,
// booleans, raw values — and leave the rare cases (a string with escapes)
// to encoding/json, so they accept and decode exactly what it does; the
// tests hold them to that.

// Members calls fn with each member of the JSON object b, in order: the
// member's name and its value as raw JSON. null is an object without
// members; invalid JSON and any other value are errors.
func Members(b []byte, fn func(key string, value []byte) error) error {
	if !json.Valid(b) {
		var v any
		return json.Unmarshal(b, &v) // the syntax error, with its offset
	}
	i := skipSpace(b, 0)
	switch b[i] {
	case 'n':
		return nil
	case '{':
	default:
		return fmt.Errorf("cannot read a JSON %s as an object", jsonKind(b[i]))
	}
	i = skipSpace(b, i+1)
	for b[i] != '}' {
		end := skipValue(b, i)
		key, _ := String(b[i:end])
		i = skipSpace(b, skipSpace(b, end)+1) // past the colon
		end = skipValue(b, i)
		if err := fn(key, b[i:end]); err != nil {
			return err
		}
		if i = skipSpace(b, end); b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return nil
}

// String decodes a raw JSON string; null is "". ok is false for any
// other value.
func String(raw []byte) (s string, ok bool) {
	switch {
	case string(raw) == "null":
		return "", true
	case len(raw) < 2 || raw[0] != '"':
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	return s, json.Unmarshal(raw, &s) == nil
}

// Bool decodes a raw JSON boolean; null is false. ok is false for any
// other value.
func Bool(raw []byte) (v, ok bool) {
	switch string(raw) {
	case "true":
		return true, true
	case "false", "null":
		return false, true
	}
	return false, false
}

// DecodeInto stores a raw JSON value in dst, a *string, *bool or
// *json.RawMessage; ok is false when the value is of another type.
func DecodeInto(dst any, value []byte) (ok bool) {
	switch d := dst.(type) {
	case *string:
		*d, ok = String(value)
	case *bool:
		*d, ok = Bool(value)
	case *json.RawMessage:
		*d, ok = value, true
	}
	return ok
}

func jsonKind(c byte) string {
	switch c {
	case '"':
		return "string"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	}
	return "number"
}

// Elements calls fn with each element of a JSON array, in order; anything
// but an array has none. The array must be valid JSON (json.Valid).
func Elements(list []byte, fn func(value []byte)) {
	i := skipSpace(list, 0)
	if i >= len(list) || list[i] != '[' {
		return
	}
	for i = skipSpace(list, i+1); i < len(list) && list[i] != ']'; {
		end := skipValue(list, i)
		fn(list[i:end])
		if i = skipSpace(list, end); i < len(list) && list[i] == ',' {
			i = skipSpace(list, i+1)
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the valid JSON value that starts at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = skipString(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && !isDelimiter(b[j]) {
		j++
	}
	return j
}

// isDelimiter reports whether c ends a number or a literal.
func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// skipString returns the end of the JSON string that starts at b[i].
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// AppendString appends s as a JSON string, escaped as encoding/json
// escapes it with HTML escaping off.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Object is a JSON object being written: its members, each after a
// comma.
type Object []byte

// Str adds a string member, unless value is empty.
func (o Object) Str(key, value string) Object {
	if value == "" {
		return o
	}
	return Object(AppendString(o.key(key), value))
}

// Raw adds a member whose value is already JSON.
func (o Object) Raw(key, value string) Object {
	return append(o.key(key), value...)
}

func (o Object) key(key string) Object {
	o = Object(AppendString(append(o, ','), key))
	return append(o, ':')
}

// Close returns the object's JSON.
func (o Object) Close() []byte {
	if len(o) == 0 {
		return []byte("{}")
	}
	o[0] = '{'
	return append(o, '}')
}
