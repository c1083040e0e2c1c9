package plan

import (
	"slices"
	"testing"
)

func TestProseLines(t *testing.T) {
	t.Parallel()
	msg := "Intro line\r\nsecond line of it\r\n\r\n- a list item\r\n  - nested `code` item\r\n\r\n> quoted\r\n\r\n```\r\nfenced\r\n```\r\n\r\n    indented code\r\n\r\n# Heading\r\n\r\n<p>\r\nhtml\r\n</p>\r\n\r\nRun `a\r\nspan` and go\r\nlast"
	want := []string{"Intro line", "second line of it", "a list item", "nested `code` item", "Run `a", "last"}
	if got := ProseLines(msg); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := ProseLines(""); len(got) != 0 {
		t.Errorf("%q", got)
	}
}
