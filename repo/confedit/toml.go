package confedit

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// A TOML document is edited table by table: AppendTOML adds a table after
// a line break; RemoveTOMLTable cuts a table — its header through its last
// key, and the line break before it — and its subtables, so every other
// byte stays, comments and layout included, and appending then removing
// gives the file back byte for byte. go-toml's decoder reads the file (a
// caller checks an edit by decoding before and after), and its parser (the
// unstable package, the only TOML parser for Go that reports where each
// expression lies in the text) finds the tables.

// TOMLTable is where a [table] lies in the text: from the start of its
// header's line to the end of the line of its last expression.
type TOMLTable struct {
	Key        []string
	Start, End int
}

// TOMLTables lists a document's tables in order.
func TOMLTables(data []byte) ([]TOMLTable, error) {
	var p unstable.Parser
	p.KeepComments = true
	p.Reset(data)
	var tables []TOMLTable
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			var key []string
			first := -1
			it := e.Key()
			for it.Next() {
				k := it.Node()
				if first < 0 {
					first = int(k.Raw.Offset)
				}
				key = append(key, string(k.Data))
			}
			start := bytes.LastIndexByte(data[:first], '\n') + 1
			tables = append(tables, TOMLTable{Key: key, Start: start, End: lineEnd(data, first)})
		case unstable.KeyValue:
			if len(tables) > 0 {
				tables[len(tables)-1].End = lineEnd(data, int(e.Raw.Offset+e.Raw.Length))
			}
		}
	}
	return tables, p.Error()
}

// lineEnd is the offset after the line break that ends the line holding
// offset i, or the end of data.
func lineEnd(data []byte, i int) int {
	if n := bytes.IndexByte(data[i:], '\n'); n >= 0 {
		return i + n + 1
	}
	return len(data)
}

// AppendTOML appends block, a table, to data, after a line break.
func AppendTOML(data []byte, block string) []byte {
	if len(bytes.TrimSpace(data)) == 0 {
		return []byte(block)
	}
	return append(append(bytes.Clone(data), '\n'), block...)
}

// RemoveTOMLTable removes the table key and its subtables. A table written
// in another form (an inline table, dotted keys) is not cut: the error
// says so.
func RemoveTOMLTable(data []byte, key ...string) ([]byte, error) {
	tables, err := TOMLTables(data)
	if err != nil {
		return nil, err
	}
	var cut []TOMLTable
	header := false
	for _, t := range tables {
		if len(t.Key) >= len(key) && slices.Equal(t.Key[:len(key)], key) {
			cut = append(cut, t)
			header = header || len(t.Key) == len(key)
		}
	}
	if !header {
		name := strings.Join(key, ".")
		return nil, fmt.Errorf("%s is not written as a [%s] table", name, name)
	}
	out := data
	for i := len(cut) - 1; i >= 0; i-- {
		from := cut[i].Start
		if from > 0 {
			from-- // the line break before the header
		}
		out = append(out[:from:from], out[cut[i].End:]...)
	}
	return out, nil
}

// TOMLString writes s as a TOML basic string.
func TOMLString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// DecodeTOML decodes a TOML document.
func DecodeTOML(data []byte) (map[string]any, error) {
	m := map[string]any{}
	if err := toml.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}
