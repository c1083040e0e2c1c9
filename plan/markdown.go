package plan

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// mdParser is the one configured goldmark parser: CommonMark blocks plus
// GitHub task-list checkboxes. It is built on first use, not at package
// init, so commands that never parse markdown don't pay for it.
//
// plangit reads the raw source of blocks, never rendered inline text, so the
// only inline parser is the checkbox one: block structure does not depend on
// inlines, and skipping them saves a fifth of the allocations. Nor is the
// link-reference-definition transformer installed: it removes "[a]: url"
// lines from paragraphs, and plangit renders no links, so it could only lose
// text a person wrote.
//
// The checkbox parser is plangit's own (taskCheckBoxParser) rather than
// goldmark/extension.TaskList: importing goldmark/extension compiles its
// linkify and table regexps at init, which costs every plangit process
// (every hook call) close to a millisecond. It produces the same
// *extast.TaskCheckBox nodes.
var mdParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(util.Prioritized(taskCheckBoxParser{}, 0)),
	)
})

// taskCheckBoxParser recognises "[ ]", "[x]" and "[X]" at the start of a list
// item's first block, followed by white space, as GitHub does.
type taskCheckBoxParser struct{}

func (taskCheckBoxParser) Trigger() []byte { return []byte{'['} }

func (taskCheckBoxParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	// The checkbox must be the first thing in the first block of a list item.
	if parent.HasChildren() || parent.Parent() == nil || parent.Parent().FirstChild() != parent {
		return nil
	}
	if _, ok := parent.Parent().(*ast.ListItem); !ok {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 3 || line[0] != '[' || line[2] != ']' {
		return nil
	}
	mark := line[1]
	if mark != ' ' && mark != 'x' && mark != 'X' {
		return nil
	}
	if len(line) > 3 && !util.IsSpace(line[3]) {
		return nil
	}
	n := 3
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	block.Advance(n)
	return extast.NewTaskCheckBox(mark != ' ')
}

// Doc is a parsed markdown file: its source and syntax tree, and the
// positions in it that errors name. Readers of plangit's own files and of
// other tools' markdown (package interop) read blocks through it. A Doc
// given only a Name and Src, no Root, gives positions in a file that is no
// markdown (a JSON file).
type Doc struct {
	Name   string   // file name, for error positions
	Src    []byte   // the source, as parsed: line endings normalized
	Root   ast.Node // the syntax tree; nil in a Doc made for positions only
	starts []int    // where each line starts, made on the first position asked
}

// ParseDoc normalizes line endings and parses src with plangit's one
// markdown parser; name is the file's name for error positions.
func ParseDoc(name string, src []byte) (*Doc, error) {
	if len(src) > MaxFile {
		return nil, Errorf(CodePlanParseError, "%s is %d bytes; plangit reads files up to %d bytes", name, len(src), MaxFile).With("file", name)
	}
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	if bytes.IndexByte(src, '\r') >= 0 {
		src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
		src = bytes.ReplaceAll(src, []byte("\r"), []byte("\n"))
	}
	if !utf8.Valid(src) {
		src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	}
	src = unseal(src)
	return &Doc{Name: name, Src: src, Root: mdParser().Parse(text.NewReader(limitNesting(src)))}, nil
}

// Nesting limits. goldmark's work on a line grows with the square of the
// containers it opens or continues there (each one measures the column it
// starts at from the start of the line), so a line of 64 KB of ">" took
// seconds. plangit reads at most MaxNesting block quote and list markers
// at the start of a line, each within its first MaxNestingColumn columns;
// a marker past either limit is read as the start of the line's text.
// Nothing of the text is lost: plangit reads blocks' raw source, and the
// source is unchanged.
const (
	MaxNesting       = 32
	MaxNestingColumn = 64
)

// limitNesting returns the source goldmark parses: src with every quote or
// list marker past the nesting limits replaced by a letter, which starts
// the line's text there. The copy has src's length, so every position
// goldmark gives is a position in src, where plangit reads the text; it is
// made only when a line goes past a limit.
func limitNesting(src []byte) []byte {
	out, copied := src, false
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src)
		} else {
			end += start
		}
		if at := pastNesting(src[start:end]); at >= 0 {
			if !copied {
				out, copied = bytes.Clone(src), true
			}
			out[start+at] = 'x'
		}
		start = end + 1
	}
	return out
}

// pastNesting returns the offset of the first marker at the start of line
// that is past the nesting limits, or -1. The markers are CommonMark's:
// ">", "-", "+" or "*" and "1." or "1)" followed by white space or the
// line's end; spaces and tabs may come between them.
func pastNesting(line []byte) int {
	col, markers := 0, 0
	for i := 0; i < len(line); {
		switch line[i] {
		case ' ':
			col, i = col+1, i+1
			continue
		case '\t':
			col, i = col+4-col%4, i+1
			continue
		}
		n := markerLen(line[i:])
		if n == 0 {
			return -1
		}
		if markers == MaxNesting || col >= MaxNestingColumn {
			if isThematicBreak(line[i:]) {
				return -1 // a leaf: goldmark opens nothing inside it
			}
			return i
		}
		markers++
		col, i = col+n, i+n
	}
	return -1
}

// markerLen is the length of the quote or list marker s starts with, or 0.
func markerLen(s []byte) int {
	spaceAfter := func(i int) bool { return i == len(s) || s[i] == ' ' || s[i] == '\t' }
	switch s[0] {
	case '>':
		return 1
	case '-', '+', '*':
		if spaceAfter(1) {
			return 1
		}
		return 0
	}
	n := 0
	for n < len(s) && n < 9 && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	if n > 0 && n < len(s) && (s[n] == '.' || s[n] == ')') && spaceAfter(n+1) {
		return n + 1
	}
	return 0
}

// isThematicBreak reports whether s is a thematic break: three or more of
// one of "-", "*" or "_", with nothing but spaces and tabs between them.
func isThematicBreak(s []byte) bool {
	c, n := s[0], 0
	if c != '-' && c != '*' && c != '_' {
		return false
	}
	for _, b := range s {
		switch b {
		case c:
			n++
		case ' ', '\t':
		default:
			return false
		}
	}
	return n >= 3
}

// IsPlanFile reports whether src is a task_plan.md plangit wrote: it
// carries the machine comment plangit writes at its end.
func IsPlanFile(src []byte) bool { return bytes.Contains(src, []byte(machineTag)) }

// ErrAt returns a PLAN_PARSE_ERROR at a byte offset, as file:line:column.
func (d *Doc) ErrAt(off int, format string, args ...any) *Error {
	line, col := d.Position(off)
	msg := fmt.Sprintf(format, args...)
	return Errorf(CodePlanParseError, "%s:%d:%d: %s", d.Name, line, col, msg).
		With("file", d.Name).With("line", line).With("column", col)
}

// errAtNode is ErrAt at the start of a node.
func (d *Doc) errAtNode(n ast.Node, format string, args ...any) *Error {
	return d.ErrAt(d.Start(n), format, args...)
}

// Position turns a byte offset into a 1-based line and column (in
// characters). Importers ask it of every block, so the line starts are
// found once, not counted again from the file's start each time.
func (d *Doc) Position(off int) (line, col int) {
	off = max(0, min(off, len(d.Src)))
	if d.starts == nil {
		d.starts = append(d.starts, 0)
		for i, c := range d.Src {
			if c == '\n' {
				d.starts = append(d.starts, i+1)
			}
		}
	}
	line, found := slices.BinarySearch(d.starts, off)
	if !found {
		line-- // off is inside the line before
	}
	return line + 1, utf8.RuneCount(d.Src[d.starts[line]:off]) + 1
}

// Start is where a node begins in the source, markers included.
func (d *Doc) Start(n ast.Node) int {
	if p := n.Pos(); p >= 0 {
		return p
	}
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		return n.Lines().At(0).Start
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if p := d.Start(c); p >= 0 {
			return p
		}
	}
	return -1
}

// End is where the block after n begins: the end of n's source range.
func (d *Doc) End(n ast.Node) int {
	for m := n; m != nil; m = m.Parent() {
		for s := m.NextSibling(); s != nil; s = s.NextSibling() {
			if p := d.Start(s); p >= 0 {
				return p
			}
		}
	}
	return len(d.Src)
}

// lineOf returns the whole source line holding offset off, without its
// newline.
func (d *Doc) lineOf(off int) string {
	start := bytes.LastIndexByte(d.Src[:off], '\n') + 1
	end := bytes.IndexByte(d.Src[off:], '\n')
	if end < 0 {
		return string(d.Src[start:])
	}
	return string(d.Src[start : off+end])
}

// HeadingText is a heading's text: its source line without the "#"
// marker. plangit reads the raw line so a title ending in " #" is not taken
// for a closing sequence. Control characters are dropped, as CleanLine
// drops them from every field plangit is given: a title, a phase or an
// error's tool read from a file holds none (an escape sequence written in
// by hand is never printed, nor written back), and a file plangit wrote,
// which holds none, reads back as it was.
func (d *Doc) HeadingText(h *ast.Heading) string {
	off := d.Start(h)
	if off < 0 {
		return ""
	}
	var s string
	// A setext heading's text starts where the heading does; an ATX
	// heading's starts after its "#" marker (or is absent: "#").
	if h.Lines().Len() > 0 && h.Lines().At(0).Start == off {
		s = d.JoinedLines(h, " ") // setext, maybe several lines
	} else {
		s = strings.TrimLeft(d.lineOf(off), " ")
		s = s[min(h.Level, len(s)):]
	}
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if isControl(r) && r != '\t' {
			return -1
		}
		return r
	}, s))
}

// JoinedLines is a leaf block's raw lines, each trimmed, joined with sep.
// A soft-wrapped line in markdown means a space, so one-line fields join
// with " ".
func (d *Doc) JoinedLines(n ast.Node, sep string) string {
	lines := n.Lines()
	parts := make([]string, 0, lines.Len())
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		parts = append(parts, strings.TrimSpace(string(seg.Value(d.Src))))
	}
	return strings.Join(parts, sep)
}

// clean cleans a field read at off with clean (CleanLine, CleanText or
// CleanBlock). A value over its limit is a parse error there, naming the
// field: the file is refused as unreadable, never read without the text.
func (d *Doc) clean(off int, field, s string, clean func(field, s string) (string, error)) (string, error) {
	out, err := clean(field, s)
	if err == nil {
		return out, nil
	}
	e := d.ErrAt(off, "%s: shorten it, or keep long text in the project's files and point at them", err.Error())
	if ce, ok := err.(*Error); ok {
		for k, v := range ce.Details {
			e = e.With(k, v)
		}
	}
	return "", e
}

// quoteText is a blockquote's text, cleaned as a block (QuoteSource).
func (d *Doc) quoteText(bq *ast.Blockquote, field string) (string, error) {
	return d.clean(d.Start(bq), field, d.QuoteSource(bq), CleanBlock)
}

// QuoteSource is a blockquote's raw text: its source lines with the ">"
// markers removed. It is exact, whatever markdown the quoted text holds, so
// free text round-trips through a blockquote byte for byte.
func (d *Doc) QuoteSource(bq *ast.Blockquote) string {
	raw := string(d.Src[d.Start(bq):d.End(bq)])
	lines := strings.Split(strings.TrimRight(raw, "\n"), "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) <= 3 && strings.HasPrefix(t, ">") {
			t = t[1:]
			if strings.HasPrefix(t, " ") {
				t = t[1:]
			}
			lines[i] = t
		}
	}
	return strings.Join(lines, "\n")
}

// writeQuote writes free text as a blockquote, every line marked so that no
// line of it can start a block of its own.
func writeQuote(b *strings.Builder, s string) {
	for _, l := range strings.Split(s, "\n") {
		if l == "" {
			b.WriteString(">\n")
			continue
		}
		b.WriteString("> ")
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// CheckBox returns the task checkbox that opens a list item's first block.
func CheckBox(block ast.Node) (checked, ok bool) {
	if block == nil {
		return false, false
	}
	if cb, isBox := block.FirstChild().(*extast.TaskCheckBox); isBox {
		return cb.IsChecked, true
	}
	return false, false
}

// IsTextBlock reports whether n is the text of a list item: a TextBlock in a
// tight list or a Paragraph in a loose one.
func IsTextBlock(n ast.Node) bool {
	switch n.(type) {
	case *ast.TextBlock, *ast.Paragraph:
		return true
	}
	return false
}

// field is one "key: value" line of a detail list.
type field struct {
	key, value string
	off        int
}

// detailFields reads a list of "key: value" items.
func (d *Doc) detailFields(list *ast.List) ([]field, error) {
	var out []field
	for it := list.FirstChild(); it != nil; it = it.NextSibling() {
		first := it.FirstChild()
		if first == nil || !IsTextBlock(first) || first.NextSibling() != nil {
			return nil, d.errAtNode(it, "expected a \"- key: value\" line here")
		}
		raw := d.JoinedLines(first, " ")
		key, value, ok := strings.Cut(raw, ":")
		key = strings.ToLower(strings.TrimSpace(key))
		if !ok || key == "" || strings.ContainsAny(key, " `*[") {
			return nil, d.errAtNode(it, "expected a \"- key: value\" line here, found %q", Clip(raw))
		}
		out = append(out, field{key: key, value: strings.TrimSpace(value), off: d.Start(it)})
	}
	return out, nil
}

// timeLayout is how plangit writes times: RFC 3339, UTC, whole seconds.
const timeLayout = time.RFC3339

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(timeLayout, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, false
	}
	return Stamp(t), true
}

// AbsDuration is |d|, saturating: the most negative duration (what
// time.Sub returns for times centuries apart) has no positive twin.
func AbsDuration(d time.Duration) time.Duration {
	switch {
	case d == math.MinInt64:
		return math.MaxInt64
	case d < 0:
		return -d
	}
	return d
}

// FormatDuration writes a duration compactly: 45s, 20m, 1h5m, 2d3h.
func FormatDuration(d time.Duration) string {
	if d < 0 {
		return "-" + FormatDuration(AbsDuration(d))
	}
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m)
	}
	days, h := int(d.Hours())/24, int(d.Hours())%24
	if h == 0 {
		return fmt.Sprintf("%dd", days)
	}
	return fmt.Sprintf("%dd%dh", days, h)
}

// codeText is a code block's content, as written.
func (d *Doc) codeText(n ast.Node) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(d.Src))
	}
	return b.String()
}

// Gathered holds the blocks of fields read from several blocks (a phase's
// notes, a finding's content, an error's message), joined once at the end
// as joinNotes joins two: joining as each block is read copies the field
// again for every block, the square of its size.
type Gathered map[*string][]string

// Add appends a block's text to field.
func (g Gathered) Add(field *string, s string) {
	parts, ok := g[field]
	if !ok && *field != "" {
		parts = []string{*field}
	}
	if s != "" {
		parts = append(parts, s)
	}
	g[field] = parts
}

// set replaces what field holds.
func (g Gathered) set(field *string, s string) {
	delete(g, field)
	*field = s
}

// Join writes every field's blocks into it.
func (g Gathered) Join() {
	for field, parts := range g {
		*field = strings.Join(parts, "\n\n")
	}
	clear(g)
}
