package render

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// LineFitter cuts every line written through it to a terminal's width,
// ending a cut line with "…", so no view wraps raggedly however long a
// step's text, a result or a diff line is. ANSI colour codes take no
// columns and are kept; a line cut inside a colour is closed with a reset.
// Views lay their lines out for the width first (cutting a step's text,
// not its tags); the fitter is what holds every line to it. Made by
// Output, it also cleans every line (Clean) before it fits it.
type LineFitter struct {
	w     io.Writer
	width int
	clean bool   // map control characters (Clean)
	color bool   // with clean: let Style's colour codes pass
	line  []byte // the line being written, until its newline
	wrote bool   // something was written before it
	err   error
}

// Output returns the writer that the text of a view for people goes
// through, on a terminal or not: every line is cleaned (Clean: control
// characters from a file, a commit or a remote are shown, not sent; with
// s.Color, the only escape sequences passed are Style's own colour codes)
// and fitted to s.Width. Flush writes a last line that has no newline.
func Output(w io.Writer, s Style) *LineFitter {
	return &LineFitter{w: w, width: s.Width, clean: true, color: s.Color}
}

// FitLines returns a writer that fits lines to width columns; with width
// 0 (output that is not a terminal) it writes everything unchanged.
// Flush writes a last line that has no newline.
func FitLines(w io.Writer, width int) *LineFitter {
	return &LineFitter{w: w, width: width}
}

// Write fits each complete line of p and writes it on.
func (f *LineFitter) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.width <= 0 && (!f.clean || len(f.line) == 0 && plainText(p)) {
		f.wrote = f.wrote || len(p) > 0
		return f.w.Write(p)
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			f.line = append(f.line, p...)
			break
		}
		f.line = append(f.line, p[:i]...)
		p = p[i+1:]
		if _, f.err = io.WriteString(f.w, f.fit(f.line)+"\n"); f.err != nil {
			return 0, f.err
		}
		f.line = f.line[:0]
	}
	return n, nil
}

// Flush writes what is left of a line without a newline.
func (f *LineFitter) Flush() error {
	if f.err == nil && len(f.line) > 0 {
		_, f.err = io.WriteString(f.w, f.fit(f.line))
		f.line = f.line[:0]
	}
	return f.err
}

// fit is a line as the fitter writes it: cleaned, then fitted.
func (f *LineFitter) fit(line []byte) string {
	s := string(line)
	if f.clean {
		at := 0
		if f.wrote {
			at = 1 // a byte-order mark here is inside the text
		}
		s = clean(s, at, f.color, false)
	}
	f.wrote = true
	return FitANSI(s, f.width)
}

// plainText reports whether p is printable ASCII, tabs and newlines only:
// text Clean leaves as it is, whatever comes before or after it.
func plainText(p []byte) bool {
	for _, c := range p {
		if c >= utf8.RuneSelf || asciiControl(c) {
			return false
		}
	}
	return true
}

// FitANSI cuts s to at most width columns, as fitText does, leaving ANSI
// escape sequences whole and uncounted.
func FitANSI(s string, width int) string {
	if width <= 0 || Columns(stripANSI(s)) <= width {
		return s
	}
	var b strings.Builder
	used, colored := 0, false
	for i := 0; i < len(s); {
		if n := escapeLen(s[i:]); n > 0 {
			b.WriteString(s[i : i+n])
			colored = true
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		w := runeColumns(r)
		if used+w > width-1 {
			break
		}
		b.WriteString(s[i : i+size])
		used += w
		i += size
	}
	b.WriteString("…")
	if colored {
		b.WriteString(reset)
	}
	return b.String()
}

// escapeLen is the length of the ANSI CSI sequence s begins with, or 0.
func escapeLen(s string) int {
	if len(s) < 2 || s[0] != '\x1b' || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		if s[i] >= 0x40 && s[i] <= 0x7e {
			return i + 1
		}
	}
	return len(s)
}

// stripANSI removes ANSI CSI sequences.
func stripANSI(s string) string {
	if !strings.ContainsRune(s, '\x1b') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := escapeLen(s[i:]); n > 0 {
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}
