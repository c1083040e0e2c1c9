package realhost

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// sent is one text a hook gave the host for the model.
type sent struct {
	event string
	text  string
}

// sentTexts lists the texts plangit's hooks answered in calls, in order.
func sentTexts(calls []call) []sent {
	var out []sent
	for _, c := range calls {
		if !c.hook {
			continue
		}
		for _, t := range c.texts() {
			out = append(out, sent{c.event, t})
		}
	}
	return out
}

// reach is how one text a hook sent reached the model over a turn.
type reach struct {
	sent
	most  int // the most times it is in one request
	first int // the first request (1-based, of the session) that holds it; 0: none
}

// measure finds each text the hooks sent during a turn in the turn's
// requests to the model. A host sends the whole conversation in every
// request, so a text counts once however many requests carry it; what
// counts is the most times one request holds it. show turns a text into
// the form the host gives some texts to the model (a host may escape
// characters); a text counts in either form.
// stray is plangit's text in the turn's last request that is none of the
// session's texts, all (earlier turns' texts stay in the conversation).
func measure(reqs []request, turn int, texts, all []sent, show func(string) string) (rs []reach, stray []string) {
	if show == nil {
		show = func(s string) string { return s }
	}
	seen := map[string]bool{}
	for _, x := range texts {
		if seen[x.text] {
			// The same text twice in a turn: it is counted once here and
			// found twice in the requests, an exact repeat.
			continue
		}
		seen[x.text] = true
		rs = append(rs, reach{sent: x})
	}
	var last []string
	for i, r := range reqs {
		if r.turn != turn {
			continue
		}
		strs := requestStrings(r.body)
		last = strs
		for j := range rs {
			n := 0
			for _, probe := range forms(rs[j].text, show) {
				for _, s := range strs {
					n += strings.Count(s, probe)
				}
			}
			if n > rs[j].most {
				rs[j].most = n
			}
			if n > 0 && rs[j].first == 0 {
				rs[j].first = i + 1
			}
		}
	}
	// plangit text in the turn's last request that no hook sent as such.
	for _, s := range last {
		if !strings.Contains(s, marker) {
			continue
		}
		rest := s
		for _, x := range all {
			for _, probe := range forms(x.text, show) {
				rest = strings.ReplaceAll(rest, probe, "")
			}
		}
		if strings.Contains(rest, marker) {
			stray = append(stray, s)
		}
	}
	return rs, stray
}

// forms are the forms a text may reach the model in: as sent, and as the
// host shows it where that differs.
func forms(text string, show func(string) string) []string {
	if v := show(text); v != text {
		return []string{text, v}
	}
	return []string{text}
}

// requestStrings is every string in a request's JSON body.
func requestStrings(body []byte) []string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return []string{string(body)}
	}
	var out []string
	walkStrings(v, func(s string) { out = append(out, s) })
	return out
}

// turnBytes is the bytes of plangit's text that reached the model over a
// turn, a text counted as often as one request holds it.
func turnBytes(rs []reach) int {
	n := 0
	for _, r := range rs {
		n += len(r.text) * r.most
	}
	return n
}

// checkContext checks what reached the model over a turn: every text a
// hook sent reaches it (except for the events in dropped, whose answers
// the host gives no model), none more than once, within budget bytes (0:
// no budget); and it logs the measure, and appends it to
// $PLANGIT_CONTEXT_REPORT when set.
func (s *session) checkContext(f *fake, turn int, calls, all []call, budget int, dropped map[string]bool, show func(string) string) {
	s.t.Helper()
	rs, stray := measure(f.requests(), turn, sentTexts(calls), sentTexts(all), show)
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "  %-18s ×%d  %4d B  %q\n", r.event, r.most, len(r.text), r.text)
		switch {
		case r.most == 0 && !dropped[r.event]:
			s.t.Errorf("turn %d: the %s text never reached the model: %q", turn, r.event, r.text)
		case r.most > 1:
			s.t.Errorf("turn %d: the %s text is %d times in one request to the model: %q", turn, r.event, r.most, r.text)
		}
	}
	for _, x := range stray {
		fmt.Fprintf(&b, "  (not a hook's text) %q\n", x)
	}
	total := turnBytes(rs)
	s.t.Logf("%s turn %d: %d B of plangit's text reached the model in %d texts\n%s", s.host, turn, total, len(rs), b.String())
	if budget > 0 && total > budget {
		s.t.Errorf("turn %d: %d B of plangit's text reached the model, over the budget of %d B", turn, total, budget)
	}
	if p := os.Getenv("PLANGIT_CONTEXT_REPORT"); p != "" {
		if fh, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			fmt.Fprintf(fh, "%s\tturn %d\t%d B\t%d texts\n", s.host, turn, total, len(rs))
			fh.Close()
		}
	}
}

// TestMeasure checks the measure on a made-up conversation: a text in
// every request counts once, a text twice in one request twice.
func TestMeasure(t *testing.T) {
	body := func(msgs ...string) []byte {
		b, _ := json.Marshal(map[string]any{"messages": msgs})
		return b
	}
	reqs := []request{
		{turn: 1, body: body("hi", "ctx: [plangit] a")},
		{turn: 1, body: body("hi", "ctx: [plangit] a", "[plangit] b", "again [plangit] b", "[plangit] c")},
		{turn: 2, body: body("[plangit] a")},
	}
	texts := []sent{{"X", "[plangit] a"}, {"Y", "[plangit] b"}, {"Z", "[plangit] d"}}
	rs, stray := measure(reqs, 1, texts, texts, nil)
	sort.Slice(rs, func(i, j int) bool { return rs[i].text < rs[j].text })
	got := fmt.Sprint(rs[0].most, rs[0].first, rs[1].most, rs[1].first, rs[2].most, turnBytes(rs), len(stray))
	if want := "1 1 2 2 0 33 1"; got != want {
		t.Errorf("measure: %s, want %s (%+v, stray %q)", got, want, rs, stray)
	}
}

// TestRecord checks the payloads the suite records: ids, paths and the
// named members normalised, the host's member order kept.
func TestRecord(t *testing.T) {
	base := t.TempDir()
	rec := t.TempDir()
	t.Setenv("PLANGIT_RECORD", rec)
	s := &session{t: t, host: "claude", base: base, project: filepath.Join(base, "proj"), home: filepath.Join(base, "home")}
	slug := strings.ReplaceAll(s.project, "/", "-")
	payload := `{"session_id":"S-1","transcript_path":"` + base + `/home/.claude/projects/` + slug + `/S-1.jsonl","cwd":"` + s.project +
		`","prompt_id":"0b5a2c9e-1f3d-4e5f-8a9b-0c1d2e3f4a5b","hook_event_name":"PostToolUse","tool_name":"Bash","duration_ms":137,"tool_input":{"command":"ls"}}`
	s.record([]call{{args: []string{"plangit", "hook", "PostToolUse"}, stdin: []byte(payload), hook: true, event: "PostToolUse"}},
		[]string{"S-1"}, map[string]any{"duration_ms": 0})
	got := readFile(t, filepath.Join(rec, "claude", "01-PostToolUse-Bash.json"))
	want := `{
  "session_id": "{{SESSION}}",
  "transcript_path": "{{RUN}}/home/.claude/projects/<PROJECT_SLUG>/{{SESSION}}.jsonl",
  "cwd": "{{CWD}}",
  "prompt_id": "<UUID>",
  "hook_event_name": "PostToolUse",
  "tool_name": "Bash",
  "duration_ms": 0,
  "tool_input": {
    "command": "ls"
  }
}
`
	if got != want {
		t.Errorf("recorded:\n%s\nwant:\n%s", got, want)
	}
}
