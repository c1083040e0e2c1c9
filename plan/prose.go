package plan

import (
	"bytes"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// proseParser reads a message as mdParser reads a file, with code spans
// for its one inline parser: ProseLines needs to know where they run.
var proseParser = sync.OnceValue(func() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(util.Prioritized(parser.NewCodeSpanParser(), 100)),
	)
})

// ProseLines returns the lines of a markdown message that are its
// writer's own prose: the source lines of its paragraphs, in order,
// without the markers of the lists they stand in. Never a line of a block
// quote (text the writer quotes), of a code block, fenced or indented, of
// raw HTML or of a heading, nor a line that begins inside a code span.
// The "[Step] …" lines an agent declares in a reply are read from these
// alone, so a step quoted from a web page or shown in code is none. Only
// the first MaxFile bytes are read, under the nesting limits every file
// is read with (MaxNesting): past them, the rest of a line is its text.
func ProseLines(msg string) []string {
	src := []byte(msg[:min(len(msg), MaxFile)])
	if bytes.IndexByte(src, '\r') >= 0 {
		src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
		src = bytes.ReplaceAll(src, []byte("\r"), []byte("\n"))
	}
	root := proseParser().Parse(text.NewReader(limitNesting(src)))
	var out []string
	ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.Blockquote, *ast.CodeBlock, *ast.FencedCodeBlock, *ast.HTMLBlock, *ast.Heading:
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.TextBlock:
			spans := codeSpans(n)
			lines := n.Lines()
			for i := 0; i < lines.Len(); i++ {
				seg := lines.At(i)
				if inSpan(spans, seg.Start) {
					continue
				}
				out = append(out, string(bytes.TrimRight(seg.Value(src), "\n")))
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// codeSpans are where the code spans of a paragraph's text run: from the
// first byte of each one's code to the end of its last.
func codeSpans(n ast.Node) [][2]int {
	var spans [][2]int
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if _, ok := c.(*ast.CodeSpan); !ok {
			continue
		}
		first, last := c.FirstChild(), c.LastChild()
		a, okA := first.(*ast.Text)
		b, okB := last.(*ast.Text)
		if !okA || !okB {
			continue
		}
		spans = append(spans, [2]int{a.Segment.Start, b.Segment.Stop})
	}
	return spans
}

// inSpan reports whether a line that starts at off begins inside a code
// span that an earlier line opened.
func inSpan(spans [][2]int, off int) bool {
	for _, s := range spans {
		if s[0] <= off && off < s[1] {
			return true
		}
	}
	return false
}
