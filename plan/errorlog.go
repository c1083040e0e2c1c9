package plan

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/yuin/goldmark/ast"

	"github.com/plangit/plangit/plan/redact"
)

// ErrorsFile is the name of the error log in a session.
const ErrorsFile = "errors.md"

// Limits on what an error record keeps. Errors the hooks log are never
// refused, so Record cuts longer values; plangit error add refuses them
// (CheckErrorSizes).
const (
	maxErrorMessage = 4 << 10
	maxErrorParams  = 1 << 10
	errorKeyLength  = 100
)

// CheckErrorSizes refuses an error to log whose message, params or key is
// longer than a record keeps, naming the field: what a person or an
// agent gives is kept whole or not taken.
func CheckErrorSizes(e ErrorRecord) error {
	for _, f := range []struct {
		name, value string
		max         int
	}{{"tool", e.Tool, MaxLine}, {"message", e.Message, maxErrorMessage}, {"params", e.Params, maxErrorParams}, {"key", e.Key, maxErrorParams}} {
		if len(f.value) > f.max {
			return Errorf(CodeInvalidArgument, "the error's %s is %d bytes; an error record keeps up to %d: give its first lines, where the failure shows", f.name, len(f.value), f.max).With("field", f.name)
		}
	}
	return nil
}

// ErrorRecord is one kind of error seen, with how often. An error is open
// until it is resolved: by hand (plangit error resolve), or when the same
// tool succeeds on the same key (for Bash, the same command).
type ErrorRecord struct {
	ID      string    `json:"id"` // stable, never reused in a session
	Tool    string    `json:"tool"`
	Message string    `json:"message"`
	Count   int       `json:"count"`
	First   time.Time `json:"first_seen,omitzero"`
	Last    time.Time `json:"last_seen,omitzero"`
	Step    string    `json:"step,omitempty"`
	Params  string    `json:"params,omitempty"`
	// Key is what the tool acted on (for Bash, the command), when known:
	// the same tool succeeding on the same key resolves the error.
	Key string `json:"key,omitempty"`

	Resolved   bool      `json:"resolved"`
	ResolvedAt time.Time `json:"resolved_at,omitzero"` // zero when the source did not say
	Resolution string    `json:"resolution,omitempty"` // how it was resolved
}

// Open reports whether the error is not resolved.
func (e *ErrorRecord) Open() bool { return !e.Resolved }

// ErrorLog is a session's error records, newest first.
type ErrorLog []*ErrorRecord

// NormalizeKey is the form in which keys compare: white space collapsed and
// trimmed, at most 1,000 bytes.
func NormalizeKey(key string) string {
	return TruncateText(strings.Join(strings.Fields(key), " "), 1000)
}

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

// Identity is what makes two errors the same error: the tool, the key
// when there is one, and the normalized message.
func (e *ErrorRecord) Identity() string {
	return e.Tool + "\x00" + NormalizeKey(e.Key) + "\x00" + NormalizeMessage(e.Message)
}

// nextID is the id the next record gets: one more than any id in the log.
func (l ErrorLog) nextID() int {
	next := 1
	for _, e := range l {
		if n, err := strconv.Atoi(e.ID); err == nil && n >= next {
			next = n + 1
		}
	}
	return next
}

// Record logs an error. The same tool, key and normalized message counts
// up the open record of that error (keeping the latest message, step and
// params) and moves it to the top; anything else — a resolved error coming
// back included — adds a record with a new id. Credentials in the message,
// params and key are redacted first (the table of package redact; a
// session's own patterns through State.RecordError), so that the same
// error counts up whether its secret is the same or not.
func (l *ErrorLog) Record(e ErrorRecord, now time.Time) (*ErrorRecord, error) {
	return l.record(e, now, nil)
}

// RedactMargin is how much past a field's limit is redacted before the
// field is cut to it: a credential that starts within the limit is found
// whole unless it is longer than this, which none is, and a hook's 16 MB
// of output is not all redacted for the 4 KB of it that is kept (the
// project's log cuts its lines the same way).
const RedactMargin = 64 << 10

// redactError is e with its message, params and key redacted by r.
// Params that are JSON are redacted member by member (redact.JSON).
func redactError(e ErrorRecord, r *redact.Redactor) ErrorRecord {
	e.Message = r.String(TruncateText(e.Message, maxErrorMessage+RedactMargin))
	params := TruncateText(e.Params, maxErrorParams+RedactMargin)
	if json.Valid([]byte(params)) {
		e.Params = string(r.JSON([]byte(params)))
	} else {
		e.Params = r.String(params)
	}
	e.Key = r.String(TruncateText(e.Key, maxErrorParams+RedactMargin))
	return e
}

func (l *ErrorLog) record(e ErrorRecord, now time.Time, r *redact.Redactor) (*ErrorRecord, error) {
	e = redactError(e, r)
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
	key, err := CleanLine("key", TruncateText(e.Key, maxErrorParams))
	if err != nil {
		return nil, err
	}
	step, ok := stepRef(e.Step)
	if !ok {
		step = ""
	}
	now = Stamp(now)
	rec := &ErrorRecord{Tool: tool, Message: msg, Count: 1, First: now, Last: now, Step: step, Params: params, Key: key}
	id := rec.Identity()
	if i := slices.IndexFunc(*l, func(x *ErrorRecord) bool { return x.Open() && x.Identity() == id }); i >= 0 {
		old := (*l)[i]
		rec.ID, rec.Count, rec.First = old.ID, old.Count+1, old.First
		*l = slices.Delete(*l, i, i+1)
	} else {
		rec.ID = strconv.Itoa(l.nextID())
	}
	*l = slices.Insert(*l, 0, rec)
	return rec, nil
}

// Find returns the record of a tool and message — the open one if there
// is one, else the newest — or nil.
func (l ErrorLog) Find(tool, message string) *ErrorRecord {
	msg := NormalizeMessage(message)
	var found *ErrorRecord
	for _, e := range l {
		if e.Tool == tool && NormalizeMessage(e.Message) == msg {
			if e.Open() {
				return e
			}
			if found == nil {
				found = e
			}
		}
	}
	return found
}

// ByID returns the record with id ("3" or "#3"), or nil.
func (l ErrorLog) ByID(id string) *ErrorRecord {
	id = strings.TrimPrefix(strings.TrimSpace(id), "#")
	for _, e := range l {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// ForTool returns the records of one tool, newest first.
func (l ErrorLog) ForTool(tool string) ErrorLog {
	var out ErrorLog
	for _, e := range l {
		if e.Tool == tool {
			out = append(out, e)
		}
	}
	return out
}

// Open returns the open records, newest first.
func (l ErrorLog) Open() ErrorLog {
	var out ErrorLog
	for _, e := range l {
		if e.Open() {
			out = append(out, e)
		}
	}
	return out
}

// Resolve marks the error with id resolved, saying how (resolution may be
// empty). An error resolved already is left as it was and returned with
// changed false.
func (l ErrorLog) Resolve(id, resolution string, now time.Time) (rec *ErrorRecord, changed bool, err error) {
	rec = l.ByID(id)
	if rec == nil {
		return nil, false, Errorf(CodeInvalidArgument, "no error #%s in this session; plangit errors lists them with their ids", Clip(strings.TrimPrefix(strings.TrimSpace(id), "#"))).With("error", id)
	}
	if !rec.Open() {
		return rec, false, nil
	}
	if resolution, err = CleanText("resolution", resolution); err != nil {
		return nil, false, err
	}
	rec.resolve(resolution, now)
	return rec, true, nil
}

// ResolveAll marks every open error resolved and returns them.
func (l ErrorLog) ResolveAll(resolution string, now time.Time) (ErrorLog, error) {
	resolution, err := CleanText("resolution", resolution)
	if err != nil {
		return nil, err
	}
	open := l.Open()
	for _, e := range open {
		e.resolve(resolution, now)
	}
	return open, nil
}

// ResolveKey marks resolved every open error of tool whose key is key (as
// NormalizeKey compares them, once redacted as Record redacts it) — what
// hooks do when a tool succeeds on what it failed on before, such as the
// same Bash command — and returns them. An empty key resolves nothing.
func (l ErrorLog) ResolveKey(tool, key, resolution string, now time.Time) ErrorLog {
	return l.resolveKey(tool, key, resolution, now, nil)
}

func (l ErrorLog) resolveKey(tool, key, resolution string, now time.Time, r *redact.Redactor) ErrorLog {
	if !slices.ContainsFunc(l, func(e *ErrorRecord) bool { return e.Open() && e.Tool == tool && e.Key != "" }) {
		return nil // nothing to resolve: the key need not be redacted
	}
	key = NormalizeKey(r.String(TruncateText(key, maxErrorParams+RedactMargin)))
	if key == "" {
		return nil
	}
	resolution, _ = CleanText("resolution", TruncateText(resolution, MaxText))
	var out ErrorLog
	for _, e := range l {
		if e.Open() && e.Tool == tool && NormalizeKey(e.Key) == key {
			e.resolve(resolution, now)
			out = append(out, e)
		}
	}
	return out
}

// MergeAll merges records as Merge merges them one by one. Into an empty
// log, records that are all different errors go in one pass (an import
// reads thousands): Merge gives them ids in turn and orders them by when
// they were last seen, the same time in turn, the undated ones last, each
// before those merged before it.
func (l *ErrorLog) MergeAll(recs []*ErrorRecord) {
	seen := make(map[string]bool, len(recs))
	for _, rec := range recs {
		key := strconv.FormatBool(rec.Open()) + rec.Identity()
		if len(*l) > 0 || seen[key] {
			for _, r := range recs {
				l.Merge(r)
			}
			return
		}
		seen[key] = true
	}
	var dated, undated ErrorLog
	for i, rec := range recs {
		c := *rec
		c.ID = strconv.Itoa(i + 1)
		if c.Last.IsZero() {
			undated = append(undated, &c)
		} else {
			dated = append(dated, &c)
		}
	}
	slices.SortStableFunc(dated, func(a, b *ErrorRecord) int { return b.Last.Compare(a.Last) })
	slices.Reverse(undated)
	*l = append(dated, undated...)
}

// Merge adds a record from elsewhere (an import): the same error, open or
// resolved as the record is, counts up, keeping the earliest first and the
// latest last time; anything else is added with a new id, in order of when
// it was last seen (undated ones last).
func (l *ErrorLog) Merge(rec *ErrorRecord) {
	id := rec.Identity()
	if i := slices.IndexFunc(*l, func(x *ErrorRecord) bool { return x.Open() == rec.Open() && x.Identity() == id }); i >= 0 {
		old := (*l)[i]
		old.Count += rec.Count
		if !rec.First.IsZero() && (old.First.IsZero() || rec.First.Before(old.First)) {
			old.First = rec.First
		}
		if rec.Last.After(old.Last) {
			old.Last = rec.Last
		}
		if !rec.Open() {
			old.Resolution = joinDistinct(old.Resolution, rec.Resolution)
		}
		return
	}
	c := *rec
	c.ID = strconv.Itoa(l.nextID())
	at := slices.IndexFunc(*l, func(x *ErrorRecord) bool {
		if c.Last.IsZero() {
			return x.Last.IsZero() // before the older undated ones
		}
		return x.Last.IsZero() || x.Last.Before(c.Last)
	})
	if at < 0 {
		at = len(*l)
	}
	*l = slices.Insert(*l, at, &c)
}

func (e *ErrorRecord) resolve(resolution string, now time.Time) {
	e.Resolved, e.ResolvedAt, e.Resolution = true, Stamp(now), resolution
}

// WriteErrors writes errors.md.
func WriteErrors(l ErrorLog) []byte {
	var b strings.Builder
	b.WriteString("# Errors\n")
	for _, e := range l {
		machine := "#" + e.ID
		if e.Resolved {
			machine += " resolved"
		}
		b.WriteString("\n## " + e.Tool + " ×" + strconv.Itoa(e.Count) + " `" + machine + "`\n")
		fields := [][2]string{{"first", formatTime(e.First)}, {"last", formatTime(e.Last)}, {"step", e.Step},
			{"key", e.Key}, {"params", e.Params}, {"resolved", formatTime(e.ResolvedAt)}, {"resolution", joinLines(e.Resolution)}}
		wrote := false
		for _, f := range fields {
			if f[1] == "" {
				continue
			}
			if !wrote {
				b.WriteByte('\n')
				wrote = true
			}
			b.WriteString("- " + f[0] + ": " + f[1] + "\n")
		}
		b.WriteByte('\n')
		writeQuote(&b, e.Message)
	}
	return sealed(&b)
}

// manusErrorsNote is the line a Manus-style errors.md (seed 004's
// ErrorTracker) writes under its "# Error Log" title.
const manusErrorsNote = "This file tracks errors to avoid repeating the same mistakes."

// manusField reads a Manus-style "**Label:** value" paragraph: Count,
// Message or Params.
func manusField(text string) (label, value string, ok bool) {
	for _, l := range []string{"Count", "Message", "Params"} {
		if rest, found := strings.CutPrefix(text, "**"+l+":**"); found {
			return l, strings.TrimSpace(rest), true
		}
	}
	return "", "", false
}

// ParseErrors parses errors.md: plangit's, or a Manus-style one (seed
// 004: "## Tool - TIME", "**Count:** N times", "**Message:** …",
// "**Params:**" and a JSON block), which the next change writes back in
// plangit's form. An empty file holds no errors.
func ParseErrors(src []byte) (ErrorLog, error) {
	if len(strings.TrimSpace(string(src))) == 0 {
		return nil, nil
	}
	d, err := ParseDoc(ErrorsFile, src)
	if err != nil {
		return nil, err
	}
	var (
		out     ErrorLog
		cur     *ErrorRecord
		titled  bool
		params  bool // a Manus-style "**Params:**" waits for its code block
		message = Gathered{}
		ids     = map[string]bool{}
	)
	for n := d.Root.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			if cur == nil || !params {
				return nil, d.errAtNode(n, "plangit does not understand this code block in errors.md")
			}
			cur.Params, params = compactJSON(d.codeText(n)), false
		case *ast.Heading:
			switch {
			case n.Level == 1 && !titled && cur == nil:
				titled = true
			case n.Level == 2:
				text, machine := cutMachine(d.HeadingText(n))
				rec := &ErrorRecord{}
				for _, tok := range strings.Fields(machine) {
					switch {
					case strings.HasPrefix(tok, "#") && rec.ID == "" && IsStepID(tok[1:]):
						rec.ID = tok[1:]
					case tok == "resolved":
						rec.Resolved = true
					default:
						return nil, d.errAtNode(n, "unknown field %q in the error's code span; known: #ID, resolved", Clip(tok))
					}
				}
				if machine != "" && rec.ID == "" {
					return nil, d.errAtNode(n, "the error's code span has no #ID; write `#N` or drop the span")
				}
				if rec.ID != "" && ids[rec.ID] {
					return nil, d.errAtNode(n, "two errors have id %s; remove the id from the copy", rec.ID)
				}
				ids[rec.ID] = true
				if tool, when, ok := strings.Cut(text, " - "); ok && machine == "" {
					// A Manus-style heading (seed 004's ErrorTracker):
					// "## Tool - 2026-11-20T10:00:00.000Z".
					if t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(when)); err == nil {
						rec.Tool, rec.Count, rec.First, rec.Last = strings.TrimSpace(tool), 1, Stamp(t), Stamp(t)
						cur, params = rec, false
						out = append(out, cur)
						continue
					}
				}
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
				rec.Tool, rec.Count = tool, count
				cur = rec
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
						return nil, d.ErrAt(f.off, "step %q is not a step id", Clip(f.value))
					}
				case "params":
					cur.Params = f.value
				case "key":
					cur.Key = f.value
				case "resolved":
					cur.Resolved = true
					if v := strings.ToLower(f.value); v != "yes" && v != "true" {
						cur.ResolvedAt, ok = parseTime(f.value)
					}
				case "resolution":
					if cur.Resolution, err = d.clean(f.off, "resolution", splitLines(f.value), CleanText); err != nil {
						return nil, err
					}
				default:
					return nil, d.ErrAt(f.off, "unknown error field %q; known: first, last, step, key, params, resolved, resolution", Clip(f.key))
				}
				if !ok {
					return nil, d.ErrAt(f.off, "the time %q is not an RFC 3339 time", Clip(f.value))
				}
			}
		case *ast.Blockquote:
			text, err := d.quoteText(n, "error message")
			if err != nil {
				return nil, err
			}
			if cur == nil && strings.TrimSpace(text) == manusErrorsNote {
				continue // the Manus-style file's own line under its title
			}
			if cur == nil {
				return nil, d.errAtNode(n, "a quote here belongs to no error")
			}
			message.Add(&cur.Message, text)
		case *ast.Paragraph:
			if cur == nil {
				return nil, d.errAtNode(n, "text here belongs to no error")
			}
			raw := d.JoinedLines(n, "\n")
			if label, value, ok := manusField(raw); ok {
				switch label {
				case "Count":
					c, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(value, "times"), "time")))
					if err != nil || c < 1 {
						return nil, d.errAtNode(n, "**Count:** takes a positive number of times, not %q", Clip(value))
					}
					cur.Count = c
				case "Message":
					m, err := d.clean(d.Start(n), "error message", value, CleanBlock)
					if err != nil {
						return nil, err
					}
					message.set(&cur.Message, m)
				case "Params":
					params = true
				}
				continue
			}
			text, err := d.clean(d.Start(n), "error message", raw, CleanBlock)
			if err != nil {
				return nil, err
			}
			message.Add(&cur.Message, text)
		case *ast.ThematicBreak:
		default:
			return nil, d.errAtNode(n, "plangit does not understand this %s in errors.md", KindName(n))
		}
	}
	message.Join()
	for _, e := range out {
		if e.Message == "" {
			e.Message = "(no message)"
		}
	}
	if err := numberErrors(out); err != nil {
		return nil, err
	}
	return out, nil
}

// numberErrors checks that ids are unique and gives records written
// without one (errors.md from before ids, or a record added by hand) fresh
// ids, oldest — last in the file — first.
func numberErrors(l ErrorLog) error {
	seen := map[string]bool{}
	for _, e := range l {
		if e.ID == "" {
			continue
		}
		if seen[e.ID] {
			return Errorf(CodePlanParseError, "%s: two errors have id %s", ErrorsFile, e.ID).Hinted("remove the id from the copy")
		}
		seen[e.ID] = true
	}
	next := l.nextID()
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].ID == "" {
			l[i].ID = strconv.Itoa(next)
			next++
		}
	}
	return nil
}

// compactJSON is JSON text on one line, as errors.md's params field holds
// it; text that is not JSON stays as it is, on one line.
func compactJSON(text string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(text)) == nil {
		return b.String()
	}
	return strings.Join(strings.Fields(text), " ")
}
