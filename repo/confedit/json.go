// Package confedit edits other programs' settings files in place — the
// agent hosts' hook settings and MCP configs, and plangit's own config —
// as text, touching only the bytes of what changes.
//
// A JSON document (Doc) is changed member by member: every other key,
// value, order, indentation and line break stays as it was. An addition
// is written in the style of the container it goes into (one line, or one
// item per line at the container's indentation), and removing what was
// added gives back the bytes there were before — so a program can add its
// entries to a file a person wrote, and take them out again, leaving no
// trace. ParseJSONC reads documents with // and /* */ comments, which stay
// as they are. A TOML document is changed table by table (toml.go).
//
// It sits on the ground floor, beside package disk: repo (config set),
// hooks (hooks install) and the MCP server's installer all import it, and
// it imports no package of plangit's.
package confedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Value is where a JSON value sits in the document.
type Value struct {
	Kind    byte     // '{', '[', '"', or 'x' for a number, true, false, null
	Start   int      // offset of its first byte
	End     int      // offset after its last byte
	Members []Member // an object's members, in order
	Elems   []*Value // an array's elements, in order
}

// Member is one key and value of an object.
type Member struct {
	Key      string
	KeyStart int // offset of the key's opening quote
	Value    *Value
}

// Get returns the value of key in an object (the last, if the key
// repeats), or nil.
func (v *Value) Get(key string) *Value {
	if v == nil {
		return nil
	}
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Key == key {
			return v.Members[i].Value
		}
	}
	return nil
}

// Len is how many members or elements a container has.
func (v *Value) Len() int { return len(v.Members) + len(v.Elems) }

// span is the bytes of a container's i-th member (key included) or element.
func (v *Value) span(i int) (start, end int) {
	if v.Kind == '{' {
		m := v.Members[i]
		return m.KeyStart, m.Value.End
	}
	return v.Elems[i].Start, v.Elems[i].End
}

// Doc is a JSON document being edited.
type Doc struct {
	src      []byte
	plain    []byte // src with its comments blanked, when it may have them; else src
	comments bool   // // and /* */ comments are allowed (JSONC)
	root     *Value
	indent   string // the document's indent unit
}

// Parse reads a JSON document. Empty input is an empty object, which
// additions fill one item per line, indented by two spaces.
func Parse(src []byte) (*Doc, error) { return parseDoc(src, false) }

// ParseJSONC reads a JSON document that may hold // and /* */ comments, as
// some hosts' settings files do. The comments stay where they are, as
// every other byte does.
func ParseJSONC(src []byte) (*Doc, error) { return parseDoc(src, true) }

func parseDoc(src []byte, comments bool) (*Doc, error) {
	d := &Doc{src: bytes.Clone(src), comments: comments}
	if len(bytes.TrimSpace(src)) == 0 {
		d.src = []byte("{\n}\n") // a new document is written one item per line
	}
	plain := d.src
	if comments {
		plain = blankComments(d.src)
	}
	if !json.Valid(plain) {
		var v any
		err := json.Unmarshal(plain, &v)
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if err := d.reparse(); err != nil {
		return nil, err
	}
	d.indent = detectIndent(d.src)
	return d, nil
}

// blankComments returns src with each comment's bytes turned into spaces,
// its line breaks kept, so that every value keeps its offsets. An
// unterminated comment runs to the end.
func blankComments(src []byte) []byte {
	out := bytes.Clone(src)
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"':
			i += len(quoted(out[i:])) - 1
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				if out[i] != '\r' {
					out[i] = ' '
				}
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			j := bytes.Index(out[i+2:], []byte("*/"))
			end := len(out)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			for k := i; k < end; k++ {
				if out[k] != '\n' && out[k] != '\r' {
					out[k] = ' '
				}
			}
			i = end - 1
		}
	}
	return out
}

func (d *Doc) reparse() error {
	d.plain = d.src
	if d.comments {
		d.plain = blankComments(d.src)
	}
	p := &parser{src: d.plain}
	p.space()
	v, err := p.value()
	if err != nil {
		return err
	}
	d.root = v
	return nil
}

// Bytes is the document as it now stands.
func (d *Doc) Bytes() []byte { return d.src }

// Root is the document's top value.
func (d *Doc) Root() *Value { return d.root }

// Text is the bytes of v.
func (d *Doc) Text(v *Value) []byte { return d.src[v.Start:v.End] }

// Decode reads v into out, as json.Unmarshal does (its comments, if any,
// left out).
func (d *Doc) Decode(v *Value, out any) error { return json.Unmarshal(d.plain[v.Start:v.End], out) }

// Lookup follows object keys from the top value; nil when one is missing
// or a value on the way is not an object.
func (d *Doc) Lookup(path ...string) *Value {
	v := d.root
	for _, k := range path {
		if v == nil || v.Kind != '{' {
			return nil
		}
		v = v.Get(k)
	}
	return v
}

// Set gives the member at path the value v: its value's text is replaced
// when it exists; otherwise it is added at the end of its object, and
// objects missing on the way are added with it.
func (d *Doc) Set(path []string, v any) error {
	if len(path) == 0 {
		return errors.New("confedit: an empty path")
	}
	obj := d.root
	for i, k := range path {
		if obj.Kind != '{' {
			return fmt.Errorf("%s is not an object", strings.Join(path[:i], "."))
		}
		next := obj.Get(k)
		if next == nil {
			val := v
			for j := len(path) - 1; j > i; j-- {
				val = orderedObject{key: path[j], value: val}
			}
			return d.insert(obj, k, val)
		}
		if i == len(path)-1 {
			return d.replace(next, v)
		}
		obj = next
	}
	return nil
}

// Append adds v at the end of the array at path.
func (d *Doc) Append(path []string, v any) error {
	arr := d.Lookup(path...)
	if arr == nil || arr.Kind != '[' {
		return fmt.Errorf("%s is not an array", strings.Join(path, "."))
	}
	return d.insert(arr, "", v)
}

// Remove takes the i-th member or element out of container c, with the
// separator before it (or, for the first of several, after it): the
// inverse of adding it last. The last one out leaves the container empty,
// as it was before it was added.
func (d *Doc) Remove(c *Value, i int) error {
	if i < 0 || i >= c.Len() {
		return fmt.Errorf("confedit: no item %d", i)
	}
	start, end := c.span(i)
	switch {
	case c.Len() == 1:
		// The container is left empty as insert found it: "{}" — or, over
		// lines, with the space that followed the item, unless that is
		// just what insert writes into a nested "{}".
		itemStart, itemEnd := start, end
		start, end = c.Start+1, c.End-1
		if bytes.ContainsRune(d.Text(c), '\n') {
			nl, outer := d.newline(), d.lineIndent(c.Start)
			written := string(d.src[c.Start+1:itemStart]) == nl+outer+d.indent && string(d.src[itemEnd:c.End-1]) == nl+outer
			if c == d.root || !written {
				end = itemEnd
			}
		}
	case i > 0:
		_, start = c.span(i - 1)
	default:
		end, _ = c.span(1)
	}
	return d.splice(start, end, nil)
}

func (d *Doc) splice(start, end int, with []byte) error {
	src := make([]byte, 0, len(d.src)-(end-start)+len(with))
	src = append(append(append(src, d.src[:start]...), with...), d.src[end:]...)
	old := d.src
	d.src = src
	if err := d.reparse(); err != nil {
		d.src = old
		d.reparse()
		return err
	}
	return nil
}

// insert adds v (as the member key, for an object) at the end of c.
func (d *Doc) insert(c *Value, key string, v any) error {
	item := func(indent string, multiline bool) ([]byte, error) {
		val, err := d.encode(v, indent, multiline)
		if err != nil {
			return nil, err
		}
		if !multiline && spaced(d.Text(c), d.Text(d.root)) {
			val = space(val)
		}
		if c.Kind != '{' {
			return val, nil
		}
		k, _ := json.Marshal(key)
		colon := ": "
		if !multiline {
			colon = ":"
		}
		if len(c.Members) > 0 {
			last := c.Members[len(c.Members)-1]
			colon = string(d.src[last.KeyStart+len(quoted(d.src[last.KeyStart:])) : last.Value.Start])
		}
		return append(append(k, colon...), val...), nil
	}
	if c.Len() == 0 {
		// An empty container takes the document's style — one item per
		// line when the document spans lines, else one line, so that a
		// file that is just "{}" stays on its line — and removing the
		// item gives back what there was (Remove).
		multiline := bytes.ContainsRune(d.Text(d.root), '\n')
		outer := d.lineIndent(c.Start)
		text, err := item(outer+d.indent, multiline)
		if err != nil {
			return err
		}
		nl := d.newline()
		switch {
		case !multiline:
			return d.splice(c.Start+1, c.End-1, text)
		case bytes.ContainsRune(d.Text(c), '\n'):
			// Over lines already: the item on a line of its own after
			// the brace, the space before the closing one kept.
			return d.splice(c.Start+1, c.Start+1, []byte(nl+outer+d.indent+string(text)))
		default: // "{}" in a document over lines
			return d.splice(c.Start+1, c.End-1, []byte(nl+outer+d.indent+string(text)+nl+outer))
		}
	}
	lastStart, lastEnd := c.span(c.Len() - 1)
	multiline := bytes.ContainsRune(d.Text(c), '\n')
	var sep string
	switch {
	case multiline:
		sep = d.newline() + d.itemIndent(c, lastStart)
	case c.Len() > 1:
		_, firstEnd := c.span(0)
		secondStart, _ := c.span(1)
		sep = strings.TrimPrefix(string(d.src[firstEnd:secondStart]), ",")
	case spaced(d.Text(c), d.Text(d.root)):
		sep = " "
	}
	text, err := item(strings.TrimPrefix(sep, d.newline()), multiline)
	if err != nil {
		return err
	}
	return d.splice(lastEnd, lastEnd, append([]byte(","+sep), text...))
}

// spaced reports whether one-line JSON puts a space after its colons and
// commas — {"a": 1, "b": 2} rather than {"a":1,"b":2} — going by the first
// of texts that has one.
func spaced(texts ...[]byte) bool {
	for _, text := range texts {
		for i := 0; i < len(text)-1; i++ {
			switch text[i] {
			case '"':
				i += len(quoted(text[i:])) - 1
			case ':', ',':
				return text[i+1] == ' '
			}
		}
	}
	return false
}

// space puts a space after every colon and comma of compact JSON.
func space(text []byte) []byte {
	var b bytes.Buffer
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			q := quoted(text[i:])
			b.Write(q)
			i += len(q) - 1
		case ':', ',':
			b.WriteByte(text[i])
			b.WriteByte(' ')
		default:
			b.WriteByte(text[i])
		}
	}
	return b.Bytes()
}

// Replace puts v in place of the value at old (a member's value or an
// array's element), written in old's style.
func (d *Doc) Replace(old *Value, v any) error { return d.replace(old, v) }

// replace puts v in place of the value at old, in old's style.
func (d *Doc) replace(old *Value, v any) error {
	multiline := bytes.ContainsRune(d.Text(old), '\n')
	text, err := d.encode(v, d.lineIndent(old.Start), multiline)
	if err != nil {
		return err
	}
	if !multiline && spaced(d.Text(old), d.Text(d.root)) {
		text = space(text)
	}
	return d.splice(old.Start, old.End, text)
}

// encode writes v compactly, or indented one item per line after indent.
func (d *Doc) encode(v any, indent string, multiline bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if multiline {
		enc.SetIndent(indent, d.indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	text := bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	if multiline && d.newline() != "\n" {
		text = bytes.ReplaceAll(text, []byte("\n"), []byte(d.newline()))
	}
	return text, nil
}

// newline is the line end the document uses: "\r\n" or "\n".
func (d *Doc) newline() string {
	if bytes.Contains(d.src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// lineIndent is the white space that begins the line holding offset at.
func (d *Doc) lineIndent(at int) string {
	start := bytes.LastIndexByte(d.src[:at], '\n') + 1
	line := d.src[start:at]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// itemIndent is the indentation of an item of c that begins at offset at:
// its line's indentation when it begins the line, else c's own plus one
// unit.
func (d *Doc) itemIndent(c *Value, at int) string {
	start := bytes.LastIndexByte(d.src[:at], '\n') + 1
	if len(bytes.TrimLeft(d.src[start:at], " \t")) == 0 {
		return string(d.src[start:at])
	}
	return d.lineIndent(c.Start) + d.indent
}

// detectIndent finds the indent unit a document uses: the white space
// that begins its first indented line; two spaces if none is.
func detectIndent(src []byte) string {
	for _, line := range bytes.Split(src, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && len(trimmed) < len(line) {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}

// orderedObject encodes as an object of one key, for members added with
// the objects that hold them.
type orderedObject struct {
	key   string
	value any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	k, err := json.Marshal(o.key)
	if err != nil {
		return nil, err
	}
	v, err := json.Marshal(o.value)
	if err != nil {
		return nil, err
	}
	return []byte("{" + string(k) + ":" + string(v) + "}"), nil
}

// quoted is the JSON string src begins with, quotes included.
func quoted(src []byte) []byte {
	for i := 1; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return src[:i+1]
		}
	}
	return src
}

// parser finds where every value of a valid document sits.
type parser struct {
	src []byte
	pos int
}

func (p *parser) space() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *parser) value() (*Value, error) {
	if p.pos >= len(p.src) {
		return nil, errors.New("confedit: unexpected end of the document")
	}
	v := &Value{Start: p.pos}
	switch c := p.src[p.pos]; c {
	case '{', '[':
		v.Kind = c
		p.pos++
		p.space()
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		for p.pos < len(p.src) && p.src[p.pos] != closing {
			if c == '{' {
				keyStart := p.pos
				k := quoted(p.src[p.pos:])
				var key string
				if err := json.Unmarshal(k, &key); err != nil {
					return nil, err
				}
				p.pos += len(k)
				p.space()
				p.pos++ // the colon
				p.space()
				val, err := p.value()
				if err != nil {
					return nil, err
				}
				v.Members = append(v.Members, Member{Key: key, KeyStart: keyStart, Value: val})
			} else {
				val, err := p.value()
				if err != nil {
					return nil, err
				}
				v.Elems = append(v.Elems, val)
			}
			p.space()
			if p.pos < len(p.src) && p.src[p.pos] == ',' {
				p.pos++
				p.space()
			}
		}
		p.pos++
	case '"':
		v.Kind = c
		p.pos += len(quoted(p.src[p.pos:]))
	default:
		v.Kind = 'x'
		for p.pos < len(p.src) && strings.IndexByte(",]} \t\r\n", p.src[p.pos]) < 0 {
			p.pos++
		}
	}
	v.End = p.pos
	return v, nil
}
