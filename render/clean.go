package render

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Clean is s as it may reach a terminal: every control character a
// terminal would act on is shown instead of sent. C0 controls but tab and
// newline, DEL and the C1 controls (U+0080–U+009F) become Go's escapes,
// "\x1b", "\x7f", "\x9b"; a byte that is not UTF-8 becomes "\xNN" too;
// the bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E,
// U+200F, U+061C), which reorder what follows them, become their names in
// angle brackets, "<U+202E>", and so do the characters that show nothing
// but a model reads (unseen). So a step text, a title or a commit's
// summary written to set a window's title (OSC 0), write the clipboard
// (OSC 52), clear the screen (CSI 2J), hide text with backspaces or
// reverse it shows as the text it is. Text with nothing to map is returned
// as it is, without a copy. The JSON plangit prints keeps the exact text.
func Clean(s string) string { return clean(s, 0, false, false) }

// colorCodes are the only escape sequences plangit's own views draw (the
// ANSI codes of Style); with colour on, the output's writer passes them
// and maps every other.
var colorCodes = []string{reset, bold, dim, red, green, yellow, blue, magenta, cyan}

// clean is Clean; with keepColor, plangit's own colour codes pass; with
// htmlBidi, a bidirectional control becomes a character reference,
// "&#x202E;", which a browser reads as the character, so that the HTML
// report draws text in right-to-left scripts as it was written and holds
// no raw control character. at is where s stands in its text: a
// byte-order mark at its start is the text's own (unseen).
func clean(s string, at int, keepColor, htmlBidi bool) string {
	i := unsafeAt(s, at)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\x1b' && keepColor:
				if code := colorCode(s[i:]); code != "" {
					b.WriteString(code)
					i += len(code)
					continue
				}
				b.WriteString(`\x1b`)
			case asciiControl(c):
				b.WriteString(`\x`)
				b.WriteString(hex2(int(c)))
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(int(c)))
		case r < 0xa0:
			b.WriteString(`\x`)
			b.WriteString(hex2(int(r)))
		case bidi(r) && htmlBidi:
			b.WriteString("&#x")
			b.WriteString(strings.ToUpper(strconv.FormatInt(int64(r), 16)))
			b.WriteString(";")
		case unseen(r, at+i) && htmlBidi:
			b.WriteString("&lt;U+")
			b.WriteString(strings.ToUpper(strconv.FormatInt(int64(r), 16)))
			b.WriteString("&gt;")
		case bidi(r) || unseen(r, at+i):
			b.WriteString("<U+")
			b.WriteString(strings.ToUpper(strconv.FormatInt(int64(r), 16)))
			b.WriteString(">")
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeAt is the index of the first byte of s that Clean maps, or -1;
// s stands at at in its text.
func unsafeAt(s string, at int) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiControl(c) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r < 0xa0 || bidi(r) || unseen(r, at+i) {
			return i
		}
		i += size
	}
	return -1
}

// asciiControl: a C0 control but tab and newline, or DEL.
func asciiControl(c byte) bool { return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f }

// bidi: a control that changes the direction of the text around it.
func bidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// unseen: a character at index i of a text that shows nothing, which a
// person cannot see but a model reads: the zero-width space, the word
// joiner and the invisible operators (U+2060–U+2064), a byte-order mark
// but at the text's start, and the tag characters (U+E0000–U+E007F). The
// zero-width joiner and non-joiner, which scripts and emoji need, and the
// soft hyphen pass.
func unseen(r rune, i int) bool {
	return r == 0x200b || (r >= 0x2060 && r <= 0x2064) || (r == 0xfeff && i > 0) || (r >= 0xe0000 && r <= 0xe007f)
}

// colorCode is the colour code of Style's that s starts with, or "".
func colorCode(s string) string {
	for _, c := range colorCodes {
		if strings.HasPrefix(s, c) {
			return c
		}
	}
	return ""
}

func hex2(n int) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[n>>4&0xf], digits[n&0xf]})
}
