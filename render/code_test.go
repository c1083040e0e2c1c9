package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/plangit/plangit/history"
	"github.com/plangit/plangit/repo/code"
)

// hostileCode is a step's code diff whose file names and lines are
// written to break out: markup that would run a script or close the
// report's folding, and terminal escapes.
func hostileCode() *history.CodeDiff {
	return &history.CodeDiff{
		Step: "1", From: history.CodeEndpoint{N: 2}, To: history.CodeEndpoint{N: 5}, Agent: "alpha",
		Shared: []history.SharedStep{{Step: "2", Agent: "<b>beta</b>"}},
		Files: []history.CodeFile{
			{Path: "<script>alert(1)</script>.js", Status: "added", Added: 2,
				Unified: "--- /dev/null\n+++ b/<script>alert(1)</script>.js\n@@ -0,0 +1,3 @@\n+</details></pre><script>alert(2)</script>\n+<style>body{display:none}</style>\x1b]0;pwned\x07\n+\x1b[31mred\n"},
			{Path: "evil\x1b[2J.txt", OldPath: "a\"onmouseover=\"x.txt", Status: "renamed"},
		},
		Added: 2,
		Large: []code.Large{{Path: "<img src=x>.bin", Size: 6 << 20}},
	}
}

// TestReportCodeEscaped: a step's code diff in the HTML report is folded
// under the step, and no file name or line of it is markup: no script or
// style from the project's files can run, and none closes the fold.
func TestReportCodeEscaped(t *testing.T) {
	t.Parallel()
	r := recorded(t)
	r.Code = map[string]*history.CodeDiff{"1": hostileCode()}
	var b bytes.Buffer
	HTMLReport(&b, r)
	out := b.String()
	for _, bad := range []string{"<script", "<style>body", "</details></pre>", "<img src", "<b>beta", "\x1b", "\x07", `"onmouseover`} {
		if strings.Contains(out, bad) {
			t.Errorf("the report holds %q", bad)
		}
	}
	for _, want := range []string{
		`<details class="code" id="code-1"><summary>code: 2 files, +2 −0 (@2 → @5)</summary>`,
		"&lt;script&gt;alert(1)&lt;/script&gt;.js",
		`<span class="a">+&lt;/details&gt;&lt;/pre&gt;&lt;script&gt;alert(2)&lt;/script&gt;</span>`,
		`\x1b]0;pwned\x07`,
		"evil\\x1b[2J.txt",
		"shared: step 2 (&lt;b&gt;beta&lt;/b&gt;) ran at the same time",
		"left out for its size: &lt;img src=x&gt;.bin (6.0 MB)",
		`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	// One fold opened and closed for the diff: the lines closed none.
	start := strings.Index(out, `<details class="code"`)
	end := strings.Index(out[start:], "</details>")
	if end < 0 || strings.Contains(out[start+1:start+end], "<details") {
		t.Errorf("the code diff's fold is broken")
	}
}

// TestCodeDiffTerminal: the terminal views of a code diff show a file's
// escapes as text, with colour on too: none reaches the terminal.
func TestCodeDiffTerminal(t *testing.T) {
	t.Parallel()
	for _, s := range []Style{{}, {Color: true}} {
		var b bytes.Buffer
		d := hostileCode()
		CodeDiff(&b, d, s)
		CodeStat(&b, d, s)
		StepCode(&b, d, s)
		out := b.String()
		if s.Color {
			out = strings.NewReplacer(reset, "", bold, "", green, "", red, "", cyan, "", yellow, "").Replace(out)
		}
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("color %v: a control character reached the output:\n%q", s.Color, out)
		}
		for _, want := range []string{`+<style>body{display:none}</style>\x1b]0;pwned\x07`, `R a"onmouseover="x.txt → evil\x1b[2J.txt`, "shared: step 2 (<b>beta</b>) ran at the same time", `+\x1b[31mred`} {
			if !strings.Contains(out, want) {
				t.Errorf("color %v: lacks %q:\n%s", s.Color, want, out)
			}
		}
	}
}
