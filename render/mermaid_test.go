package render

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
)

// mermaidJS is mermaid.min.js from the npm package mermaid, the library
// GitHub draws Mermaid blocks with. .ci/run fetches it and sets
// PLANGIT_MERMAID_JS.
func mermaidJS(t *testing.T) string {
	t.Helper()
	js := os.Getenv("PLANGIT_MERMAID_JS")
	if js == "" {
		repotest.Missing(t, "mermaid.js", "PLANGIT_MERMAID_JS is not set: it names mermaid.min.js from the npm package mermaid")
	}
	if _, err := os.Stat(js); err != nil {
		t.Fatalf("PLANGIT_MERMAID_JS: %v", err)
	}
	return js
}

// mermaidBlocks are the ```mermaid blocks of a markdown text.
func mermaidBlocks(md string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```mermaid\n(.*?)```").FindAllStringSubmatch(md, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestMermaidRenders: every Mermaid text plangit writes — graphs of a
// plain, a tricky and an empty plan, and the markdown report's graph and
// progress chart — is parsed and drawn by mermaid.js in headless Chromium:
// an SVG for each, no error, and in the graphs a node for every step.
func TestMermaidRenders(t *testing.T) {
	t.Parallel()
	js := mermaidJS(t)
	empty, _ := plan.New("", "Empty plan", "", []string{"Nothing yet"}, t0, false)
	plans := []*plan.Plan{sampleState(t).Plan, trickyPlan(t), empty, phasedPlan()}
	var sources []string
	for _, p := range plans {
		var b bytes.Buffer
		Mermaid(&b, p)
		sources = append(sources, b.String())
	}
	var report bytes.Buffer
	MarkdownReport(&report, recorded(t))
	blocks := mermaidBlocks(report.String())
	if len(blocks) != 2 {
		t.Fatalf("the markdown report has %d Mermaid blocks, want 2 (graph, progress)", len(blocks))
	}
	sources = append(sources, blocks...)

	var page strings.Builder
	page.WriteString("<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>\n")
	for i, src := range sources {
		fmt.Fprintf(&page, "<pre class=\"mermaid\" id=\"m%d\">%s</pre>\n", i, html.EscapeString(src))
	}
	fmt.Fprintf(&page, "<script src=%q></script>\n", "file://"+js)
	page.WriteString(`<script>
mermaid.initialize({startOnLoad: false, securityLevel: "strict"});
(async () => {
  for (const el of document.querySelectorAll("pre.mermaid")) {
    try {
      await mermaid.parse(el.textContent);
    } catch (e) {
      el.setAttribute("data-error", String(e && e.message || e));
    }
  }
  // Each diagram is drawn under an id of its own: mermaid.run names them
  // after Date.now(), which virtual time does not move, so two diagrams
  // would share an id and one be drawn into the other's SVG.
  for (const el of document.querySelectorAll("pre.mermaid:not([data-error])")) {
    try {
      const {svg} = await mermaid.render("svg-" + el.id, el.textContent);
      el.innerHTML = svg;
    } catch (e) {
      document.body.setAttribute("data-error", String(e && e.message || e));
    }
  }
  document.body.setAttribute("data-done", "yes");
})();
</script></body></html>
`)
	dir := t.TempDir()
	path := filepath.Join(dir, "mermaid.html")
	if err := os.WriteFile(path, []byte(page.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, requests := chromium(t, path, "", "--virtual-time-budget=20000")
	if len(requests) > 0 {
		t.Errorf("the page asked the network for %v", requests)
	}
	if !strings.Contains(dom, `data-done="yes"`) {
		t.Fatalf("mermaid.js did not finish:\n%s", clipDOM(dom))
	}
	if m := regexp.MustCompile(`data-error="([^"]*)"`).FindAllStringSubmatch(dom, -1); len(m) > 0 {
		for _, e := range m {
			t.Errorf("mermaid.js: %s", html.UnescapeString(e[1]))
		}
		t.FailNow()
	}
	// Each block, cut out of the DOM, holds an SVG; each graph a node per step.
	for i, src := range sources {
		start := strings.Index(dom, fmt.Sprintf(`id="m%d"`, i))
		if start < 0 {
			t.Fatalf("block %d is gone", i)
		}
		end := strings.Index(dom[start:], "</pre>")
		block := dom[start : start+end]
		if !strings.Contains(block, "<svg") {
			t.Errorf("block %d was not drawn:\n%s\n%s", i, src, clipDOM(block))
			continue
		}
		if i < len(plans) {
			for _, s := range plans[i].Steps() {
				if !regexp.MustCompile(`id="[^"]*-S` + s.ID + `-\d+"`).MatchString(block) {
					t.Errorf("graph %d: no node for step %s", i, s.ID)
				}
			}
		}
	}
}

func clipDOM(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}
