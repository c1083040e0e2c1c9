package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unsafe"

	"github.com/plangit/plangit/plan"
)

// hostile are the control sequences a file, a commit or a remote may
// carry to a terminal, and how plangit shows each.
var hostile = []struct{ name, raw, shown string }{
	{"OSC 0 window title", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
	{"OSC 52 clipboard", "\x1b]52;c;cm0gLXJmIH4=\x07", `\x1b]52;c;cm0gLXJmIH4=\x07`},
	{"CSI 2J clear screen", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
	{"backspaces hiding text", "rm -rf ~\b\b\b\b\b\b\b\bls", `rm -rf ~\x08\x08\x08\x08\x08\x08\x08\x08ls`},
	{"carriage return overwriting", "evil\rgood", `evil\x0dgood`},
	{"C1 CSI", "\u009b2J", `\x9b2J`},
	{"C1 OSC, ST", "\u009d0;t\u009c", `\x9d0;t\x9c`},
	{"DEL", "a\x7fb", `a\x7fb`},
	{"NUL", "a\x00b", `a\x00b`},
	{"a byte that is not UTF-8", "a\x9bb", `a\x9bb`},
	{"right-to-left override", "txt.\u202egpj", "txt.<U+202E>gpj"},
	{"isolates and marks", "\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d", "<U+2066><U+2067><U+2068><U+2069><U+200E><U+200F><U+61C><U+202A><U+202B><U+202C><U+202D>"},
	{"zero-width space", "ig\u200bnore", "ig<U+200B>nore"},
	{"word joiner and invisible operators", "\u2060\u2061\u2062\u2063\u2064", "<U+2060><U+2061><U+2062><U+2063><U+2064>"},
	{"a byte-order mark inside a text", "a\ufeffb", "a<U+FEFF>b"},
	{"tag characters", "\U000E0001\U000E0041\U000E007F", "<U+E0001><U+E0041><U+E007F>"},
}

// rawControl matches what a terminal acts on: C0 controls but tab and
// newline, DEL, C1 controls (as UTF-8 and as bytes) and the bidi controls.
var rawControl = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\\xc2[\\x80-\\x9f]")

// hasRawControl reports whether s holds a byte a terminal would act on.
func hasRawControl(s string) bool {
	return rawControl.MatchString(s) || strings.ContainsAny(s, "\x1b\x9b\x9d")
}

// TestClean: each control sequence is shown, not sent; text with nothing
// to map comes back as it is, not copied; tabs, newlines, wide runes and
// icons pass; and cleaning twice is cleaning once.
func TestClean(t *testing.T) {
	t.Parallel()
	for _, h := range hostile {
		got := Clean("x " + h.raw + " y")
		if want := "x " + h.shown + " y"; got != want {
			t.Errorf("%s: Clean = %q, want %q", h.name, got, want)
		}
		if hasRawControl(got) {
			t.Errorf("%s: %q still holds a control", h.name, got)
		}
		if Clean(got) != got {
			t.Errorf("%s: Clean is not idempotent on %q", h.name, got)
		}
	}
	for _, s := range []string{"", "plain ascii", "tab\tand\nnewline", "● 3  Implement → done 日本語 🚀", "U+202E spelled out", `\x1b as text`,
		"\ufeffa byte-order mark at the start", "ZWNJ \u0645\u200c\u0627 ZWJ 👩\u200d💻 soft\u00adhyphen"} {
		got := Clean(s)
		if got != s {
			t.Errorf("Clean(%q) = %q, want it unchanged", s, got)
		}
		if len(s) > 0 && unsafe.StringData(got) != unsafe.StringData(s) {
			t.Errorf("Clean(%q) copied text it left as it was", s)
		}
	}
}

// TestOutputCleansEveryLine: the writer a view's text goes through shows
// every control a line carries, piped (no width) and on a terminal
// (fitted, with colour), and counts the columns of what it shows; with
// colour, Style's own colour codes are the only escapes passed.
func TestOutputCleansEveryLine(t *testing.T) {
	t.Parallel()
	for _, h := range hostile {
		for _, style := range []Style{{}, {Width: 200}, {Color: true, Bars: true, Width: 200}} {
			var b bytes.Buffer
			w := Output(&b, style)
			// Written in pieces, as fmt does: a control's bytes may come in
			// two writes.
			text := "summary " + h.raw + " end\n" + h.raw
			for i := 0; i < len(text); i += 3 {
				w.Write([]byte(text[i:min(i+3, len(text))]))
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if want := "summary " + h.shown + " end\n" + h.shown; b.String() != want {
				t.Errorf("%s, %+v: Output wrote %q, want %q", h.name, style, b.String(), want)
			}
		}
	}
	var b bytes.Buffer
	s := Style{Color: true, Bars: true, Width: 30}
	w := Output(&b, s)
	w.Write([]byte(s.paint(red, "failed") + " \x1b[8mhidden\x1b[0m " + strings.Repeat("\u202e", 20) + "\n"))
	w.Flush()
	got := b.String()
	if !strings.HasPrefix(got, red+"failed"+reset+` \x1b[8mhidden`) {
		t.Errorf("with colour, Output wrote %q: plangit's colour kept, the text's escapes shown", got)
	}
	if line := strings.TrimSuffix(stripANSI(got), "\n"); Columns(line) > 30 {
		t.Errorf("the line shown takes %d columns, more than the width 30: %q", Columns(line), line)
	}
}

// TestViewsShowControls: the views that print what files and commits
// hold — the plan, a step, the log, blame, errors, findings, the session
// lists, a text diff — clean it on a terminal too, where the text is
// painted and fitted before the output's writer sees it.
func TestViewsShowControls(t *testing.T) {
	t.Parallel()
	raw := "\x1b]0;t\x07 \x1b[31mred \u009b2J \u202eevil"
	st := sampleState(t)
	p := st.Plan
	p.Title = "Title " + raw
	p.Phases[0].Title = "Phase " + raw
	p.Phases[0].Steps[0].Text = "Step " + raw
	st.Errors.Record(plan.ErrorRecord{Tool: "Tool " + raw, Message: "boom"}, t0)
	st.Findings.Add(plan.Finding{Category: plan.CatInsight, Title: "Bidi \u202eevil", Content: "content \u202eevil"}, t0)

	s := recordedSession(t)
	h := readHistory(t, s, 6, "@1")
	for i := range h.revs {
		h.revs[i].Summary += " " + raw
		h.revs[i].Author.Name = "Mallory " + raw
	}
	for i := range h.files {
		h.files[i].Unified += " " + raw + "\n"
	}
	for _, style := range []Style{{Color: true, Bars: true}, {Color: true, Bars: true, Width: 100}} {
		views := map[string]func(*bytes.Buffer){
			"show":      func(b *bytes.Buffer) { Plan(b, p, PlanOptions{All: true, Style: style}) },
			"show STEP": func(b *bytes.Buffer) { StepDetail(b, p, p.Phases[0].Steps[0], p.Phases[0], nil, style) },
			"status":    func(b *bytes.Buffer) { Status(b, st, t0, style) },
			"log":       func(b *bytes.Buffer) { Log(b, h.revs, style) },
			"diff":      func(b *bytes.Buffer) { TextDiff(b, h.from, h.to, h.files, style) },
			"sessions": func(b *bytes.Buffer) {
				Sessions(b, []SessionRow{{ID: "s1", Title: p.Title, Status: p.Status}}, t0, "plans")
			},
		}
		for name, draw := range views {
			var b bytes.Buffer
			draw(&b)
			if text := ansiCode.ReplaceAllString(b.String(), ""); hasRawControl(text) {
				t.Errorf("%s at %+v holds a raw control, colour codes aside:\n%q", name, style, text)
			}
			if !strings.Contains(b.String(), `\x1b]0;t\x07`) && !strings.Contains(b.String(), `\x1b]0;t…`) && name != "sessions" {
				t.Errorf("%s at %+v does not show the escape:\n%q", name, style, b.String())
			}
		}
	}
}

var ansiCode = regexp.MustCompile(regexp.QuoteMeta(reset) + "|" + "\x1b\\[(?:1|2|3[1-6])m")

// TestReportsShowControls: the HTML report holds no raw control (each
// shown as Clean shows it, a bidi control kept as a character reference),
// and the markdown report shows them as the terminal does.
func TestReportsShowControls(t *testing.T) {
	t.Parallel()
	r := recorded(t)
	raw := "\x1b]0;t\x07 \u009b2J \u202eevil"
	r.State.Plan.Title += raw
	r.Revisions[len(r.Revisions)-1].Summary += raw
	var h, m bytes.Buffer
	HTMLReport(&h, r)
	MarkdownReport(&m, r)
	for name, out := range map[string]string{"html": h.String(), "markdown": m.String()} {
		if hasRawControl(out) {
			t.Errorf("the %s report holds a raw control", name)
		}
		if !strings.Contains(out, `\x1b]0;t\x07 \x9b2J`) && !strings.Contains(out, `\\x1b\]0;t\\x07 \\x9b2J`) {
			t.Errorf("the %s report does not show the escapes", name)
		}
	}
	if !strings.Contains(h.String(), "&#x202E;evil") {
		t.Error("the HTML report does not keep the bidi control as a character reference")
	}
	r.State.Plan.Title += " zero\u200bwidth"
	h.Reset()
	HTMLReport(&h, r)
	if !strings.Contains(h.String(), "zero&lt;U+200B&gt;width") {
		t.Error("the HTML report does not show the zero-width space by name")
	}
}
