package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
)

// Editing a host's JSON settings in place. A settings file is a person's:
// adding plangit's server splices one member into it, and removing the
// server cuts exactly that text out again, so every other byte — order,
// indentation, the spacing of values, comments where the host allows them —
// stays as it was, and install then uninstall gives the file back byte for
// byte. The edit is located by a scanner over the text and checked by
// decoding the file before and after with encoding/json.

// jsonObject is an object's position in a JSON text: its braces and its
// members, in order.
type jsonObject struct {
	open, close int // offsets of '{' and '}'
	members     []jsonMember
}

// jsonMember is one member of an object: where its key starts and where
// its value ends (exclusive).
type jsonMember struct {
	key                        string
	keyStart, valStart, valEnd int
}

// find returns the index of the last member named key (JSON keeps the last
// of duplicate keys), or -1.
func (o *jsonObject) find(key string) int {
	for i := len(o.members) - 1; i >= 0; i-- {
		if o.members[i].key == key {
			return i
		}
	}
	return -1
}

// jsonText is a settings file being read; comments says whether the host
// allows // and /* */ comments in it (JSONC).
type jsonText struct {
	data     []byte
	comments bool
}

// stripped is the text with its comments blanked (newlines kept), for
// encoding/json.
func (t jsonText) stripped() []byte {
	if !t.comments {
		return t.data
	}
	out := bytes.Clone(t.data)
	for i := 0; i < len(out); {
		switch {
		case out[i] == '"':
			i = t.skipString(i)
		case out[i] == '/' && i+1 < len(out) && (out[i+1] == '/' || out[i+1] == '*'):
			end := t.skipComment(i)
			for j := i; j < end; j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			i = end
		default:
			i++
		}
	}
	return out
}

// valid reports whether the text is a JSON object, and decodes it.
func (t jsonText) decode() (map[string]any, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(t.stripped()))
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("not a JSON object")
	}
	if dec.More() {
		return nil, errors.New("data after the JSON object")
	}
	return m, nil
}

// skipComment returns the offset after the comment starting at i.
func (t jsonText) skipComment(i int) int {
	if t.data[i+1] == '/' {
		if n := bytes.IndexByte(t.data[i:], '\n'); n >= 0 {
			return i + n
		}
		return len(t.data)
	}
	if n := bytes.Index(t.data[i+2:], []byte("*/")); n >= 0 {
		return i + 2 + n + 2
	}
	return len(t.data)
}

// space returns the offset of the next byte that is neither white space
// nor, in JSONC, a comment.
func (t jsonText) space(i int) int {
	for i < len(t.data) {
		switch c := t.data[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case t.comments && c == '/' && i+1 < len(t.data) && (t.data[i+1] == '/' || t.data[i+1] == '*'):
			i = t.skipComment(i)
		default:
			return i
		}
	}
	return i
}

// skipString returns the offset after the string starting at i.
func (t jsonText) skipString(i int) int {
	for i++; i < len(t.data); i++ {
		switch t.data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the offset after the value starting at i. The text is
// known to be valid.
func (t jsonText) skipValue(i int) int {
	switch t.data[i] {
	case '"':
		return t.skipString(i)
	case '{', '[':
		depth := 0
		for i < len(t.data) {
			switch c := t.data[i]; {
			case c == '"':
				i = t.skipString(i)
				continue
			case t.comments && c == '/' && i+1 < len(t.data) && (t.data[i+1] == '/' || t.data[i+1] == '*'):
				i = t.skipComment(i)
				continue
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(t.data) && !strings.ContainsRune(",}] \t\r\n/", rune(t.data[i])) {
		i++
	}
	return i
}

// object scans the object whose '{' is at i.
func (t jsonText) object(i int) (*jsonObject, error) {
	if i >= len(t.data) || t.data[i] != '{' {
		return nil, errors.New("not a JSON object")
	}
	o := &jsonObject{open: i}
	i = t.space(i + 1)
	for i < len(t.data) && t.data[i] != '}' {
		if t.data[i] == ',' {
			i = t.space(i + 1)
			continue
		}
		m := jsonMember{keyStart: i}
		end := t.skipString(i)
		if err := json.Unmarshal(t.data[i:end], &m.key); err != nil {
			return nil, err
		}
		i = t.space(end)
		if i >= len(t.data) || t.data[i] != ':' {
			return nil, errors.New("expected a colon")
		}
		m.valStart = t.space(i + 1)
		m.valEnd = t.skipValue(m.valStart)
		o.members = append(o.members, m)
		i = t.space(m.valEnd)
	}
	if i >= len(t.data) {
		return nil, errors.New("unterminated object")
	}
	o.close = i
	return o, nil
}

// top scans the document's object.
func (t jsonText) top() (*jsonObject, error) { return t.object(t.space(0)) }

// lineIndent is the white space that starts the line holding offset i, if
// only white space comes before i on that line.
func (t jsonText) lineIndent(i int) (string, bool) {
	start := bytes.LastIndexByte(t.data[:i], '\n') + 1
	ind := t.data[start:i]
	if len(bytes.Trim(ind, " \t")) != 0 {
		return "", false
	}
	return string(ind), true
}

// memberIndent is how o lays out its members: the indent of its first
// member's line, with ok false when its members share a line with the
// brace. An empty object lays out like its parent, one unit deeper, when
// its braces are on different lines.
func (t jsonText) memberIndent(o *jsonObject, unit string) (string, bool) {
	if len(o.members) > 0 {
		return t.lineIndent(o.members[0].keyStart)
	}
	if !bytes.Contains(t.data[o.open:o.close], []byte("\n")) {
		return "", false
	}
	ind, ok := t.lineIndent(o.close)
	return ind + unit, ok
}

// insert returns the text with member key: value added as o's last
// member, laid out as o's members are. value is written as given,
// indented by the member's indent after its first line.
func (t jsonText) insert(o *jsonObject, key string, value string, unit string) []byte {
	k, _ := json.Marshal(key)
	ind, multiline := t.memberIndent(o, unit)
	value = strings.ReplaceAll(value, "\n", "\n"+ind)
	var at int
	var ins string
	switch {
	case len(o.members) > 0 && multiline:
		at, ins = o.members[len(o.members)-1].valEnd, ",\n"+ind+string(k)+": "+value
	case len(o.members) > 0:
		at, ins = o.members[len(o.members)-1].valEnd, ", "+string(k)+": "+value
	case multiline:
		at, ins = o.open+1, "\n"+ind+string(k)+": "+value
	default:
		at, ins = o.open+1, string(k)+": "+value
	}
	return splice(t.data, at, at, ins)
}

// remove returns the text without o's member i: the exact text insert
// would have added for it, so that insert then remove is no change.
func (t jsonText) remove(o *jsonObject, i int) []byte {
	m := o.members[i]
	switch {
	case len(o.members) == 1:
		return splice(t.data, o.open+1, m.valEnd, "")
	case i == len(o.members)-1:
		return splice(t.data, o.members[i-1].valEnd, m.valEnd, "")
	}
	return splice(t.data, m.keyStart, o.members[i+1].keyStart, "")
}

// splice replaces data[from:to] with s.
func splice(data []byte, from, to int, s string) []byte {
	out := make([]byte, 0, len(data)-(to-from)+len(s))
	out = append(out, data[:from]...)
	out = append(out, s...)
	return append(out, data[to:]...)
}

// indentUnit finds the indent unit a JSON text uses: the indent of its
// first indented line; two spaces if it has none.
func indentUnit(data []byte) string {
	for _, line := range strings.Split(string(data), "\n")[1:] {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return "  "
}
