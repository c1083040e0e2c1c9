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

// TestProseLinesDeep: a line nested past proseNesting is no prose — read
// as a blank line, in time linear in its length — and the lines after it
// are read as ever.
func TestProseLinesDeep(t *testing.T) {
	t.Parallel()
	for _, unit := range []string{"> ", "- ", "1. ", "> - ", ">"} {
		msg := strings.Repeat(unit, 64<<10/len(unit)) + "[Step] deep\n\n[Step] top\n" + strings.Repeat(unit, proseNesting) + "[Step] within the limit\n"
		want := []string{"[Step] top"}
		if !strings.Contains(unit, ">") {
			want = append(want, "[Step] within the limit") // a list item, 32 deep
		}
		if got := ProseLines(msg); !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", unit, got, want)
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
