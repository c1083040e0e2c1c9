package plan

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/plangit/plangit/plan/redact"
)

// Size limits. Input over a limit is refused with INVALID_ARGUMENT rather
// than stored, so a runaway agent cannot bloat a plan's history.
const (
	MaxLine = 2000     // bytes in a one-line field: titles, step text
	MaxText = 64 << 10 // bytes in a multi-line field: goal, result, notes, finding content, error messages
	MaxFile = 8 << 20  // bytes in a file plangit will parse
)

// lineBreak is how a multi-line value is written inside one markdown line.
// GitHub renders it as a line break; plangit reads it back as "\n".
const lineBreak = "<br>"

// CleanLine normalizes a one-line field: line breaks and tabs become spaces,
// other control characters are dropped, invalid UTF-8 is replaced, and the
// ends are trimmed. It refuses values over MaxLine bytes.
func CleanLine(field, s string) (string, error) {
	if len(s) > MaxLine*4 {
		return "", tooLong(field, len(s), MaxLine)
	}
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case isControl(r):
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	s = strings.TrimSpace(s)
	if len(s) > MaxLine {
		return "", tooLong(field, len(s), MaxLine)
	}
	return s, nil
}

// CleanText normalizes a multi-line field that is written on one markdown
// line: "<br>" and line endings become "\n", trailing spaces are trimmed from
// every line, control characters other than tab are dropped, and leading and
// trailing blank lines go. It refuses values over MaxText bytes.
func CleanText(field, s string) (string, error) {
	if len(s) > MaxText*4 {
		return "", tooLong(field, len(s), MaxText)
	}
	// Control characters go before "<br>" is read, so that dropping one
	// cannot make a "<br>" the next read would see.
	s = strings.Map(func(r rune) rune {
		if isControl(r) && r != '\n' && r != '\r' && r != '\t' {
			return -1
		}
		return r
	}, s)
	s, err := cleanLines(field, strings.ReplaceAll(s, lineBreak, "\n"))
	// The first line's indent cannot survive a one-line field.
	return strings.TrimLeft(s, " \t"), err
}

// CleanBlock normalizes a multi-line field written as its own block (phase
// notes, finding content, error messages): like CleanText, but "<br>" is
// kept as written.
func CleanBlock(field, s string) (string, error) {
	if len(s) > MaxText*4 {
		return "", tooLong(field, len(s), MaxText)
	}
	return cleanLines(field, s)
}

func cleanLines(field, s string) (string, error) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\r':
			return '\n'
		case r == '\n' || r == '\t':
			return r
		case isControl(r):
			return -1
		}
		return r
	}, s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	s = strings.Trim(strings.Join(lines, "\n"), "\n")
	if len(s) > MaxText {
		return "", tooLong(field, len(s), MaxText)
	}
	return s, nil
}

// TruncateText shortens s to at most max bytes on a rune boundary, marking
// the cut, and never inside a redacted value's mark (redact.Cut). Hooks use it for error messages, which are logged, never refused.
func TruncateText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:redact.Cut(s, cut)] + "…"
}

func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029'
}

func tooLong(field string, n, limit int) *Error {
	return Errorf(CodeInvalidArgument, "%s is %d bytes; the limit is %d", field, n, limit).
		With("field", field).With("bytes", n).With("limit", limit)
}

// splitLines splits a one-line field value written with lineBreak back into
// its lines.
func splitLines(s string) string { return strings.ReplaceAll(s, lineBreak, "\n") }

// joinLines writes a multi-line value on one line.
func joinLines(s string) string { return strings.ReplaceAll(s, "\n", lineBreak) }

// count writes a number with its noun, agreeing: "1 step", "2 steps".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// CheckFileSizes refuses files over MaxFile, which plangit would not read
// back: a change that would write one is refused before anything is
// written, so that no revision leaves the session unreadable.
func CheckFileSizes(files map[string][]byte) error {
	for _, name := range SessionFiles {
		if n := len(files[name]); n > MaxFile {
			hint := map[string]string{
				FindingsFile: "keep long text in the project's files and point at them, or take findings out (plangit finding rm)",
				ErrorsFile:   "resolved errors stay in the log; continue the work in a new session",
				PlanFile:     "keep long text in the project's files and point at them",
			}[name]
			e := Errorf(CodeInvalidArgument, "the change would make %s %d bytes, and plangit reads a session's files up to %d bytes; nothing was changed: %s", name, n, MaxFile, hint).
				With("file", name).With("bytes", n).With("limit", MaxFile)
			e.Err = ErrFileFull
			return e
		}
	}
	return nil
}

// ErrFileFull is in the chain of CheckFileSizes' refusal: the session's
// file has no room for the change.
var ErrFileFull = errors.New("a session file is at plangit's size limit")

// joinDistinct joins two texts on a new line, once when they are the same.
func joinDistinct(a, b string) string {
	if a == "" || a == b {
		return b
	}
	if b == "" {
		return a
	}
	return a + "\n" + b
}
