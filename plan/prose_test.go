package plan

import (
	"slices"
	"strings"
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

// FuzzProseLines: any message parses, and every line it gives is a line
// of the message.
func FuzzProseLines(f *testing.F) {
	for _, s := range []string{"", "a\n[Step] b", "> q\n[Step] lazy", "- x\n  > [Step] y", "`a\n[Step] b`", "<div>\n[Step]\n</div>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		src := strings.ReplaceAll(strings.ReplaceAll(msg, "\r\n", "\n"), "\r", "\n")
		for _, l := range ProseLines(msg) {
			if !strings.Contains(src, l) {
				t.Fatalf("%q gave %q", msg, l)
			}
		}
	})
}

// TestProseLinesDeep: past the nesting limits a line's markers are its
// text, so a step nested past them is declared by no line, and one within
// them is; quoted, neither is.
func TestProseLinesDeep(t *testing.T) {
	t.Parallel()
	for _, unit := range []string{"> ", "- ", "1. ", "> - ", ">"} {
		read := min(MaxNesting, (MaxNestingColumn+len(unit)-1)/len(unit)) // the markers a line's start is read for
		within := strings.Repeat(unit, read)
		msg := strings.Repeat(unit, 64<<10/len(unit)) + "[Step] deep\n\n[Step] top\n\n" + within + "[Step] within the limits\n"
		want := []string{"[Step] top"}
		if !strings.Contains(unit, ">") {
			want = []string{strings.Repeat(unit, 64<<10/len(unit)-read) + "[Step] deep", "[Step] top", "[Step] within the limits"}
		}
		if got := ProseLines(msg); !slices.Equal(got, want) {
			t.Errorf("%q: got %.80q…, want %.80q…", unit, got, want)
		}
	}
}

// BenchmarkProseLinesNested is the probe's case: one line of 64 KB of
// quote marks, then a step.
func BenchmarkProseLinesNested(b *testing.B) {
	msg := strings.Repeat(">", 64<<10) + "[Step] x\n"
	for b.Loop() {
		ProseLines(msg)
	}
}
