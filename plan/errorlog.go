package plan

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/yuin/goldmark/ast"
)

// ErrorsFile is the name of the error log in a session.
const ErrorsFile = "errors.md"

// Limits on what an error record keeps. Errors are logged by hooks and never
// refused, so longer values are cut, not rejected.
const (
	maxErrorMessage = 4 << 10
	maxErrorParams  = 1 << 10
	errorKeyLength  = 100
)

// ErrorRecord is one kind of error seen, with how often.
type ErrorRecord struct {
	Tool    string    `json:"tool"`
	Message string    `json:"message"`
	Count   int       `json:"count"`
	First   time.Time `json:"first_seen"`
	Last    time.Time `json:"last_seen"`
	Step    string    `json:"step,omitempty"`
	Params  string    `json:"params,omitempty"`
}

// ErrorLog is a session's error records, newest first.
type ErrorLog []*ErrorRecord

// NormalizeMessage is the part of a message that identifies an error: runs
// of digits become N, white space collapses, and only the first 100
// characters count. "timeout after 30s" and "timeout after 45s" are the same
// error.
func NormalizeMessage(msg string) string {
	var b strings.Builder
	n := 0
	digits, space := false, false
	for _, r := range strings.TrimSpace(msg) {
		if n >= errorKeyLength {
			break
		}
		switch {
		case unicode.IsDigit(r):
			if !digits {
				b.WriteByte('N')
				n++
			}
			digits, space = true, false
			continue
		case unicode.IsSpace(r):
			if !space {
				b.WriteByte(' ')
				n++
			}
			digits, space = false, true
			continue
		}
		digits, space = false, false
		b.WriteRune(r)
		n++
	}
	return b.String()
}

func (e *ErrorRecord) key() string { return e.Tool + "\x00" + NormalizeMessage(e.Message) }

// Record logs an error. The same tool with the same normalized message
// counts up the existing record (keeping the latest message, step and
// params) and moves it to the top; anything else adds a record.
func (l *ErrorLog) Record(e ErrorRecord, now time.Time) (*ErrorRecord, error) {
	tool, err := CleanLine("tool", TruncateText(e.Tool, MaxLine))
	if err != nil {
		return nil, err
	}
	if tool == "" {
		tool = "unknown"
	}
	msg, err := CleanBlock("error message", TruncateText(e.Message, maxErrorMessage))
	if err != nil {
		return nil, err
	}
	if msg == "" {
		return nil, Errorf(CodeInvalidArgument, "an error needs a message: plangit error add --tool Bash \"message\"")
	}
	params, err := CleanLine("params", TruncateText(e.Params, maxErrorParams))
	if err != nil {
		return nil, err
	}
	step, ok := stepRef(e.Step)
	if !ok {
		step = ""
	}
	now = Stamp(now)
	rec := &ErrorRecord{Tool: tool, Message: msg, Count: 1, First: now, Last: now, Step: step, Params: params}
	key := rec.key()
	if i := slices.IndexFunc(*l, func(x *ErrorRecord) bool { return x.key() == key }); i >= 0 {
		old := (*l)[i]
		rec.Count, rec.First = old.Count+1, old.First
		*l = slices.Delete(*l, i, i+1)
	}
	*l = slices.Insert(*l, 0, rec)
	return rec, nil
}

// Find returns the record for a tool and message, or nil.
func (l ErrorLog) Find(tool, message string) *ErrorRecord {
	key := (&ErrorRecord{Tool: tool, Message: message}).key()
	for _, e := range l {
		if e.key() == key {
			return e
		}
	}
	return nil
}

// ForTool returns the records of one tool, newest first.
func (l ErrorLog) ForTool(tool string) []*ErrorRecord {
	var out []*ErrorRecord
	for _, e := range l {
		if e.Tool == tool {
			out = append(out, e)
		}
	}
	return out
}

// WriteErrors writes errors.md.
func WriteErrors(l ErrorLog) []byte {
	var b strings.Builder
	b.WriteString("# Errors\n")
	for _, e := range l {
		b.WriteString("\n## " + e.Tool + " ×" + strconv.Itoa(e.Count) + "\n")
		b.WriteByte('\n')
		if !e.First.IsZero() {
			b.WriteString("- first: " + formatTime(e.First) + "\n")
		}
		if !e.Last.IsZero() {
			b.WriteString("- last: " + formatTime(e.Last) + "\n")
		}
		if e.Step != "" {
			b.WriteString("- step: " + e.Step + "\n")
		}
		if e.Params != "" {
			b.WriteString("- params: " + e.Params + "\n")
		}
		b.WriteByte('\n')
		writeQuote(&b, e.Message)
	}
	return []byte(b.String())
}

// ParseErrors parses errors.md. An empty file holds no errors.
func ParseErrors(src []byte) (ErrorLog, error) {
	if len(strings.TrimSpace(string(src))) == 0 {
		return nil, nil
	}
	d, err := parseDoc(ErrorsFile, src)
	if err != nil {
		return nil, err
	}
	var (
		out    ErrorLog
		cur    *ErrorRecord
		titled bool
	)
	for n := d.root.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			switch {
			case n.Level == 1 && !titled && cur == nil:
				titled = true
			case n.Level == 2:
				text := d.headingText(n)
				tool, count := text, 1
				if i := strings.LastIndex(text, " ×"); i >= 0 {
					c, err := strconv.Atoi(strings.TrimSpace(text[i+len(" ×"):]))
					if err != nil || c < 1 {
						return nil, d.errAtNode(n, "the count after × must be a positive number")
					}
					tool, count = strings.TrimSpace(text[:i]), c
				}
				if tool == "" {
					return nil, d.errAtNode(n, "an error heading names the tool: \"## Bash ×2\"")
				}
				cur = &ErrorRecord{Tool: tool, Count: count}
				out = append(out, cur)
			default:
				return nil, d.errAtNode(n, "errors.md holds one \"## Tool ×N\" heading per error")
			}
		case *ast.List:
			if cur == nil {
				return nil, d.errAtNode(n, "a list here belongs to no error")
			}
			fields, err := d.detailFields(n)
			if err != nil {
				return nil, err
			}
			for _, f := range fields {
				var ok = true
				switch f.key {
				case "first":
					cur.First, ok = parseTime(f.value)
				case "last":
					cur.Last, ok = parseTime(f.value)
				case "step":
					if cur.Step, ok = stepRef(f.value); !ok {
						return nil, d.errAt(f.off, "step %q is not a step id", clip(f.value))
					}
				case "params":
					cur.Params = f.value
				default:
					return nil, d.errAt(f.off, "unknown error field %q; known: first, last, step, params", clip(f.key))
				}
				if !ok {
					return nil, d.errAt(f.off, "the time %q is not an RFC 3339 time", clip(f.value))
				}
			}
		case *ast.Blockquote:
			if cur == nil {
				return nil, d.errAtNode(n, "a quote here belongs to no error")
			}
			cur.Message = joinNotes(cur.Message, d.quoteText(n))
		case *ast.Paragraph:
			if cur == nil {
				return nil, d.errAtNode(n, "text here belongs to no error")
			}
			text, _ := CleanBlock("error message", d.joinedLines(n, "\n"))
			cur.Message = joinNotes(cur.Message, text)
		case *ast.ThematicBreak:
		default:
			return nil, d.errAtNode(n, "plangit does not understand this %s in errors.md", kindName(n))
		}
	}
	for _, e := range out {
		if e.Message == "" {
			e.Message = "(no message)"
		}
	}
	return out, nil
}
