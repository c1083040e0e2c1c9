package mcpserver

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Editing Codex's config.toml in place. go-toml's decoder reads the file,
// and its parser (the unstable package, the only TOML parser for Go that
// reports where each expression lies in the text) finds the table the
// server is in. Installing appends a [mcp_servers.plangit] table after a
// line break; uninstalling cuts the table — its header through its last
// key, and the line break before it — and any of its subtables, so every
// other byte stays, comments and layout included, and install then
// uninstall gives the file back byte for byte. Both edits are checked by
// decoding the file before and after: the new file must hold exactly the
// old one's data with the server added, or removed.

// tomlTable is where a [table] lies in the text: from the start of its
// header's line to the end of the line of its last expression.
type tomlTable struct {
	key        []string
	start, end int
}

// tomlTables lists the file's tables in order.
func tomlTables(data []byte) ([]tomlTable, error) {
	var p unstable.Parser
	p.KeepComments = true
	p.Reset(data)
	var tables []tomlTable
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
			tables = append(tables, tomlTable{key: key, start: start, end: lineEnd(data, first)})
		case unstable.KeyValue:
			if len(tables) > 0 {
				tables[len(tables)-1].end = lineEnd(data, int(e.Raw.Offset+e.Raw.Length))
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

// tomlServer reads mcp_servers.NAME from decoded TOML.
func tomlServer(m map[string]any, name string) (map[string]any, bool) {
	servers, _ := m["mcp_servers"].(map[string]any)
	s, ok := servers[name].(map[string]any)
	return s, ok
}

// tomlInstall appends block — the [mcp_servers.NAME] table — to data.
func tomlInstall(data []byte, block string) []byte {
	if len(bytes.TrimSpace(data)) == 0 {
		return []byte(block)
	}
	return append(append(bytes.Clone(data), '\n'), block...)
}

// tomlUninstall removes the [mcp_servers.NAME] table and its subtables.
// A server written in another form (an inline table, dotted keys) is not
// plangit's to cut: the error says so.
func tomlUninstall(data []byte, name string) ([]byte, error) {
	tables, err := tomlTables(data)
	if err != nil {
		return nil, err
	}
	var cut []tomlTable
	header := false
	for _, t := range tables {
		if len(t.key) >= 2 && t.key[0] == "mcp_servers" && t.key[1] == name {
			cut = append(cut, t)
			header = header || len(t.key) == 2
		}
	}
	if !header {
		return nil, fmt.Errorf("mcp_servers.%s is not written as a [mcp_servers.%s] table", name, name)
	}
	out := data
	for i := len(cut) - 1; i >= 0; i-- {
		from := cut[i].start
		if from > 0 {
			from-- // the line break before the header
		}
		out = splice(out, from, cut[i].end, "")
	}
	return out, nil
}

// tomlString writes s as a TOML basic string.
func tomlString(s string) string {
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

// tomlDecode decodes a TOML document.
func tomlDecode(data []byte) (map[string]any, error) {
	m := map[string]any{}
	if err := toml.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m, nil
}
