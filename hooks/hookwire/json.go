// Package hookwire is what plangit's hooks and its hook binary share: reading a
// host's payload, writing an answer, the glance and the turn memory, and fitting
// text to the context budget. It imports the standard library alone, so a
// program that links it and nothing else of plangit starts in the time of an
// empty Go program.
package hookwire

import (
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON reader and writer for the hook path. A hook is a new process
// on every tool call, and encoding/json — its reflection, and the
// packages it links — costs more on its first use in a process than the
// rest of a read-only hook's work. These cover what that path needs — an
// object's members, strings, booleans, raw values — and accept and decode
// exactly what encoding/json does; the tests hold them to that.

// Members calls fn with each member of the JSON object b, in order: the
// member's name and its value as raw JSON. null is an object without
// members; invalid JSON and any other value are errors.
func Members(b []byte, fn func(key string, value []byte) error) error {
	return members(b, func(key, value []byte) error {
		name, _ := String(key)
		return fn(name, value)
	})
}

// members is Members with each member's name as it is written, a raw
// JSON string, for a caller that only compares it (memberName).
func members(b []byte, fn func(key, value []byte) error) error {
	if err := check(b); err != nil {
		return err
	}
	i := skipSpace(b, 0)
	switch b[i] {
	case 'n':
		return nil
	case '{':
	default:
		return errors.New("cannot read a JSON " + jsonKind(b[i]) + " as an object")
	}
	i = skipSpace(b, i+1)
	for b[i] != '}' {
		end := skipValue(b, i)
		key := b[i:end]
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

// memberName is a member's name, the raw JSON string key decoded, as
// bytes: string(memberName(key)) in a comparison or a switch copies
// nothing, where a string for every member would be an allocation each.
func memberName(key []byte) []byte {
	if inner := key[1 : len(key)-1]; plain(inner) {
		return inner
	}
	s, _ := String(key)
	return []byte(s)
}

// String decodes a raw JSON string; null is "". ok is false for any
// other value.
func String(raw []byte) (s string, ok bool) {
	switch {
	case string(raw) == "null":
		return "", true
	case len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"':
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if plain(inner) {
		return string(inner), true
	}
	if check(raw) != nil {
		return "", false
	}
	return unquote(inner), true
}

// plain reports whether the inside of a string literal needs no decoding:
// no escape, quote or control character, and valid UTF-8.
func plain(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return utf8.Valid(s)
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

// DecodeInto stores a raw JSON value in dst, a *string, a *bool, or a
// *[]byte or *json.RawMessage (anything that unmarshals itself: it is
// given the raw value); ok is false when the value is of another type.
func DecodeInto(dst any, value []byte) (ok bool) {
	switch d := dst.(type) {
	case *string:
		*d, ok = String(value)
	case *bool:
		*d, ok = Bool(value)
	case *[]byte:
		*d, ok = value, true
	case interface{ UnmarshalJSON([]byte) error }:
		ok = d.UnmarshalJSON(value) == nil
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
// but an array has none. The array must be valid JSON (Valid).
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

// Valid reports whether b is one JSON value, as encoding/json's Valid
// does: RFC 8259's grammar, any bytes but control characters in strings,
// and at most 10,000 arrays and objects one inside another.
func Valid(b []byte) bool { return check(b) == nil }

// SyntaxError is JSON that cannot be read, and where.
type SyntaxError struct {
	msg    string
	Offset int // the byte it was found at
}

func (e *SyntaxError) Error() string { return e.msg + " (at byte " + strconv.Itoa(e.Offset) + ")" }

// maxDepth is how deep encoding/json nests arrays and objects.
const maxDepth = 10000

// check is Valid, with the error.
func check(b []byte) error {
	v := validator{b: b}
	v.value(0)
	if v.err == nil {
		if i := skipSpace(b, v.i); i < len(b) {
			v.fail(i, "invalid character "+quoteChar(b[i])+" after top-level value")
		}
	}
	if v.err != nil {
		return v.err
	}
	return nil
}

type validator struct {
	b   []byte
	i   int
	err *SyntaxError
}

func (v *validator) fail(at int, msg string) {
	if v.err == nil {
		v.err = &SyntaxError{msg: msg, Offset: at}
	}
	v.i = len(v.b)
}

// expect reports whether the next byte after white space is c, and
// fails with what it is otherwise.
func (v *validator) expect(c byte, where string) bool {
	n := v.next()
	if v.err != nil {
		return false
	}
	if n != c {
		v.fail(v.i, "invalid character "+quoteChar(n)+" "+where)
		return false
	}
	return true
}

// next skips white space and returns the next byte; 0 at the end.
func (v *validator) next() byte {
	v.i = skipSpace(v.b, v.i)
	if v.i >= len(v.b) {
		v.fail(v.i, "unexpected end of JSON input")
		return 0
	}
	return v.b[v.i]
}

func (v *validator) value(depth int) {
	c := v.next()
	switch {
	case v.err != nil:
	case c == '{' || c == '[':
		if depth == maxDepth {
			v.fail(v.i, "exceeded max depth")
			return
		}
		v.i++
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		if v.next() == closing {
			v.i++
			return
		}
		for v.err == nil {
			if c == '{' {
				if !v.expect('"', "looking for beginning of object key string") {
					return
				}
				v.str()
				if !v.expect(':', "after object key") {
					return
				}
				v.i++
			}
			v.value(depth + 1)
			if v.err != nil {
				return
			}
			switch n := v.next(); {
			case v.err != nil:
				return
			case n == ',':
				v.i++
			case n == closing:
				v.i++
				return
			case c == '{':
				v.fail(v.i, "invalid character "+quoteChar(n)+" after object key:value pair")
			default:
				v.fail(v.i, "invalid character "+quoteChar(n)+" after array element")
			}
		}
	case c == '"':
		v.str()
	case c == '-' || '0' <= c && c <= '9':
		v.number()
	case c == 't':
		v.literal("true")
	case c == 'f':
		v.literal("false")
	case c == 'n':
		v.literal("null")
	default:
		v.fail(v.i, "invalid character "+quoteChar(c)+" looking for beginning of value")
	}
}

func (v *validator) literal(word string) {
	for k := 0; k < len(word); k++ {
		if v.i+k >= len(v.b) {
			v.fail(len(v.b), "unexpected end of JSON input")
			return
		}
		if v.b[v.i+k] != word[k] {
			v.fail(v.i+k, "invalid character "+quoteChar(v.b[v.i+k])+" in literal "+word+" (expecting "+quoteChar(word[k])+")")
			return
		}
	}
	v.i += len(word)
}

func (v *validator) str() {
	b := v.b
	for i := v.i + 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			v.i = i + 1
			return
		case c < 0x20:
			v.fail(i, "invalid character "+quoteChar(c)+" in string literal")
			return
		case c == '\\':
			i++
			if i >= len(b) {
				break
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for k := 1; k <= 4; k++ {
					if i+k >= len(b) {
						v.fail(len(b), "unexpected end of JSON input")
						return
					}
					if !isHex(b[i+k]) {
						v.fail(i+k, "invalid character "+quoteChar(b[i+k])+" in \\u hexadecimal character escape")
						return
					}
				}
				i += 4
			default:
				v.fail(i, "invalid character "+quoteChar(b[i])+" in string escape code")
				return
			}
		}
	}
	v.fail(len(b), "unexpected end of JSON input")
}

func (v *validator) number() {
	b, i := v.b, v.i
	digits := func() bool {
		start := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i > start
	}
	bad := func(what string) {
		if i >= len(b) {
			v.fail(i, "unexpected end of JSON input")
		} else {
			v.fail(i, "invalid character "+quoteChar(b[i])+" "+what)
		}
	}
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		bad("in numeric literal")
		return
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			bad("after decimal point in numeric literal")
			return
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			bad("in exponent of numeric literal")
			return
		}
	}
	v.i = i
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// quoteChar names a byte in an error, as encoding/json does.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// unquote decodes the inside of a valid JSON string as encoding/json
// does: escapes read, a lone or broken surrogate and each byte of invalid
// UTF-8 read as U+FFFD.
func unquote(s []byte) string {
	b := make([]byte, 0, len(s))
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			r++
			switch s[r] {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := hex4(s[r+1:])
				r += 5
				if utf16.IsSurrogate(rr) {
					if r+6 <= len(s) && s[r] == '\\' && s[r+1] == 'u' {
						if dec := utf16.DecodeRune(rr, hex4(s[r+2:])); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							r += 6
							continue
						}
					}
					rr = utf8.RuneError
				}
				b = utf8.AppendRune(b, rr)
				continue
			default: // " \ /
				b = append(b, s[r])
			}
			r++
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			b = utf8.AppendRune(b, rr)
			r += size
		}
	}
	return string(b)
}

// hex4 reads four hex digits.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r*16 + rune(c)
	}
	return r
}
