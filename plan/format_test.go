package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/repo/repotest"
)

var golden = repotest.Golden

// demoPlan exercises every field the format carries.
func demoPlan(t *testing.T) *Plan {
	t.Helper()
	p := samplePlan(t)
	p.Goal = "cache user lookups\nwithout changing the public API"
	p.Phases[0].Notes = "Read the service first.\n\n> quoted line\n- a list item in notes"
	p.AddStep(StepSpec{Text: "Use the cache in `UserService`", Phase: "2", Needs: []string{"3"}, Why: "the hot path", Active: "Using the cache"}, t0)
	p.AddStep(StepSpec{Text: "Benchmark it", Phase: "2", Needs: []string{"3", "4"}}, t0)
	p.Transition("1", ActStart, TransitionOpts{}, t0)
	p.Transition("1", ActDone, TransitionOpts{Result: "found 3 hot paths\nall in GetUser"}, t0.Add(20*time.Minute))
	p.Transition("2", ActDone, TransitionOpts{}, t0.Add(25*time.Minute))
	p.Transition("3", ActStart, TransitionOpts{}, t0.Add(30*time.Minute))
	p.SetProgress("3", Progress{2, 5}, t0.Add(31*time.Minute))
	p.Transition("4", ActBlock, TransitionOpts{Reason: "waits for the cache", Force: true}, t0.Add(32*time.Minute))
	p.Transition("5", ActFail, TransitionOpts{Retry: true}, t0.Add(33*time.Minute))
	p.Iterations = 7
	return p
}

func TestWritePlanGolden(t *testing.T) {
	t.Parallel()
	golden(t, "demo_plan.md", WritePlan(demoPlan(t)))
}

func TestPlanRoundTrip(t *testing.T) {
	t.Parallel()
	p := demoPlan(t)
	out := WritePlan(p)
	q, err := ParsePlan(out)
	if err != nil {
		t.Fatal(err)
	}
	assertSamePlan(t, p, q)
}

func assertSamePlan(t *testing.T, p, q *Plan) {
	t.Helper()
	a, _ := json.MarshalIndent(p, "", " ")
	b, _ := json.MarshalIndent(q, "", " ")
	if !bytes.Equal(a, b) || p.NextStep != q.NextStep || p.NextPhase != q.NextPhase {
		t.Fatalf("plans differ:\n%s\n---\n%s\nnext %d/%d vs %d/%d", a, b, p.NextStep, p.NextPhase, q.NextStep, q.NextPhase)
	}
	if !bytes.Equal(WritePlan(p), WritePlan(q)) {
		t.Fatalf("writes differ")
	}
}

func TestHandEdits(t *testing.T) {
	t.Parallel()
	base := string(WritePlan(demoPlan(t)))
	cases := []struct {
		name  string
		edit  func(string) string
		check func(t *testing.T, p *Plan)
	}{
		{"tick a checkbox", func(s string) string {
			return strings.Replace(s, "- [ ] ◐ Build", "- [x] ◐ Build", 1)
		}, func(t *testing.T, p *Plan) {
			if s, _, _ := p.Step("3"); s.Status != StepCompleted {
				t.Fatalf("status %s", s.Status)
			}
		}},
		{"untick a completed step", func(s string) string {
			return strings.Replace(s, "- [x] ● Design", "- [ ] ● Design", 1)
		}, func(t *testing.T, p *Plan) {
			if s, _, _ := p.Step("2"); s.Status != StepPending {
				t.Fatalf("status %s", s.Status)
			}
		}},
		{"edit a step's text", func(s string) string {
			return strings.Replace(s, "Benchmark it `#5", "Benchmark it under load `#5", 1)
		}, func(t *testing.T, p *Plan) {
			if s, _, _ := p.Step("5"); s.Text != "Benchmark it under load" {
				t.Fatalf("text %q", s.Text)
			}
		}},
		{"add a step line", func(s string) string {
			return strings.Replace(s, "\n<!-- plangit", "- [ ] Write the docs\n- [ ] And a changelog\n\n<!-- plangit", 1)
		}, func(t *testing.T, p *Plan) {
			s, ph, err := p.Step("6")
			if err != nil || s.Text != "Write the docs" || s.Status != StepPending || ph.ID != "2" {
				t.Fatalf("new step: %+v %v", s, err)
			}
			if s, _, _ := p.Step("7"); s == nil || s.Text != "And a changelog" {
				t.Fatal("second new step")
			}
			if p.NextStep != 8 {
				t.Fatalf("next = %d", p.NextStep)
			}
		}},
		{"add a plain bullet and a phase", func(s string) string {
			return strings.Replace(s, "\n<!-- plangit", "## Ship\n\n- release it\n\n<!-- plangit", 1)
		}, func(t *testing.T, p *Plan) {
			ph, err := p.Phase("Ship")
			if err != nil || ph.ID != "3" || len(ph.Steps) != 1 || ph.Steps[0].Text != "release it" {
				t.Fatalf("phase: %+v %v", ph, err)
			}
		}},
		{"loose list", func(s string) string {
			return strings.Replace(s, "`#4 needs:3 blocked`\n", "`#4 needs:3 blocked`\n\n", 1)
		}, func(t *testing.T, p *Plan) {
			if s, _, _ := p.Step("4"); s.Status != StepBlocked || s.Why != "the hot path" {
				t.Fatalf("loose item: %+v", s)
			}
			if s, _, _ := p.Step("5"); s.Retries != 1 {
				t.Fatalf("loose item: %+v", s)
			}
		}},
		{"wrapped step line", func(s string) string {
			return strings.Replace(s, "Benchmark it `#5", "Benchmark\n  it `#5", 1)
		}, func(t *testing.T, p *Plan) {
			if s, _, _ := p.Step("5"); s.Text != "Benchmark it" {
				t.Fatalf("text %q", s.Text)
			}
		}},
		{"a link reference line in phase notes", func(s string) string {
			return strings.Replace(s, "## ◐ Phase 2: Build\n", "## ◐ Phase 2: Build\n\n[spec]: https://example.com/spec\n", 1)
		}, func(t *testing.T, p *Plan) {
			if ph, _ := p.Phase("2"); ph.Notes != "[spec]: https://example.com/spec" {
				t.Fatalf("notes %q", ph.Notes)
			}
		}},
		{"windows line endings", func(s string) string {
			return strings.ReplaceAll(s, "\n", "\r\n")
		}, func(t *testing.T, p *Plan) {
			if p.Counts().Total != 5 || p.Goal != "cache user lookups\nwithout changing the public API" {
				t.Fatalf("%+v", p)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			edited := c.edit(base)
			if edited == base {
				t.Fatal("the edit did not apply")
			}
			p, err := ParsePlan([]byte(edited))
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, p)
			// Whatever was understood writes back stably.
			q, err := ParsePlan(WritePlan(p))
			if err != nil {
				t.Fatal(err)
			}
			assertSamePlan(t, p, q)
		})
	}
}

func TestParseErrorsCarryPosition(t *testing.T) {
	t.Parallel()
	base := string(WritePlan(demoPlan(t)))
	cases := []struct {
		name, src, want string
	}{
		{"no title", "## Phase 1: x\n", "task_plan.md:1:1:"},
		{"empty", "", "task_plan.md:1:1:"},
		{"bad id", strings.Replace(base, "`#5", "`#x5", 1), "task_plan.md:28:1:"},
		{"unknown detail", strings.Replace(base, "  - why: the hot path", "  - colour: red", 1), "task_plan.md:26:3:"},
		{"unknown machine field", strings.Replace(base, "blocked`", "bogus`", 1), "task_plan.md:24:1:"},
		{"bad status", strings.Replace(base, "**Status:** running", "**Status:** sleeping", 1), "task_plan.md:5:3:"},
		{"heading level", strings.Replace(base, "## ◐ Phase 2", "### ◐ Phase 2", 1), "task_plan.md:20:1:"},
		{"list without phase", "# T\n\n- [ ] a\n", "task_plan.md:3:1:"},
		{"code block", base + "\n```\ncode\n```\n", "task_plan.md:34:1:"}, // after the machine line, the blank line and the seal
		{"bad time", strings.Replace(base, "→ 2026-11-20T10:25:00Z", "→ yesterday", 1), "task_plan.md:18:3:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePlan([]byte(c.src))
			wantCode(t, err, CodePlanParseError)
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %q does not start with %q", err, c.want)
			}
			e := err.(*Error)
			if _, ok := e.Details["line"]; !ok {
				t.Fatal("details carry the line")
			}
		})
	}
}

func TestSemanticErrorsFromFile(t *testing.T) {
	t.Parallel()
	base := string(WritePlan(demoPlan(t)))
	_, err := ParsePlan([]byte(strings.Replace(base, "`#4 needs:3", "`#4 needs:3,9", 1)))
	wantCode(t, err, CodeInvalidDependency)
	if !strings.Contains(err.Error(), "task_plan.md:24:") {
		t.Errorf("dependency errors name the line: %v", err)
	}
	_, err = ParsePlan([]byte(strings.Replace(base, "`#2 needs:1`", "`#2 needs:1,3`", 1)))
	wantCode(t, err, CodeCircularDependency)
	// A step line copied with its id names the copy's line, not the
	// original's.
	_, err = ParsePlan([]byte(strings.Replace(base, "`#5", "`#4", 1)))
	wantCode(t, err, CodePlanParseError) // as a repeated finding id is
	orig, copied := lineOf(base, "`#4"), lineOf(base, "`#5")
	if !strings.HasPrefix(err.Error(), fmt.Sprintf("task_plan.md:%d: two steps have id 4", copied)) || copied == orig {
		t.Errorf("a repeated step id names the copy's line %d (the original is on %d): %v", copied, orig, err)
	}
	// A phase heading copied with its id names the copy's line.
	_, err = ParsePlan([]byte(strings.Replace(base, "## ◐ Phase 2", "## ◐ Phase 1", 1)))
	wantCode(t, err, CodePlanParseError)
	if !strings.HasPrefix(err.Error(), "task_plan.md:20: two phases have id 1") {
		t.Errorf("a repeated phase id names the line: %v", err)
	}
}

// lineOf is the number of the first line of text holding sub.
func lineOf(text, sub string) int {
	return strings.Count(text[:strings.Index(text, sub)], "\n") + 1
}

// randomText draws text from an alphabet heavy in markdown punctuation.
func randomText(r *rand.Rand, maxLen int, multiline bool) string {
	pieces := []string{"a", "b", "Z", "9", " ", " ", "`", "*", "_", "#", "[", "]", "(", ")", "<", ">", "!", "|", "\\",
		"-", "+", ".", ":", "~", "=", "é", "中", "🙂", "<br>", "&amp;", "[x]", "- ", "1. ", "```", "> ", "<!--", "-->", "○", "●", "×"}
	if multiline {
		pieces = append(pieces, "\n", "\n", "\n\n", "\t", "    ")
	}
	var b strings.Builder
	n := r.IntN(maxLen + 1)
	for i := 0; i < n; i++ {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// randomPlan builds a plan through the model's own operations, so it obeys
// every invariant the operations keep.
func randomPlan(r *rand.Rand) *Plan {
	now := t0
	tick := func() time.Time { now = now.Add(time.Duration(r.IntN(5000)) * time.Second); return now }
	title := ""
	for title == "" {
		title = strings.TrimSpace(randomText(r, 8, false))
		if c, err := CleanLine("t", title); err != nil || c == "" {
			title = ""
		}
	}
	p, err := New("sess-"+string(rune('a'+r.IntN(26))), title, randomText(r, 12, true), nil, tick(), r.IntN(5) == 0)
	if err != nil {
		panic(err)
	}
	for i := r.IntN(4); i >= 0; i-- {
		p.AddPhase("P"+randomText(r, 6, false), randomText(r, 10, true), tick())
	}
	for i := r.IntN(12); i > 0; i-- {
		var needs []string
		if all := p.Steps(); len(all) > 0 && r.IntN(2) == 0 {
			needs = []string{all[r.IntN(len(all))].ID}
		}
		phase := p.Phases[r.IntN(len(p.Phases))].ID
		p.AddStep(StepSpec{Text: "s" + randomText(r, 10, false), Phase: phase, Needs: needs, Why: randomText(r, 8, true), Active: randomText(r, 5, false)}, tick())
	}
	if p.Status == PlanPending && r.IntN(2) == 0 {
		p.Approve(tick())
	}
	for i := r.IntN(20); i > 0; i-- {
		steps := p.Steps()
		if len(steps) == 0 {
			break
		}
		s := steps[r.IntN(len(steps))]
		switch r.IntN(4) {
		case 0:
			p.SetProgress(s.ID, Progress{r.IntN(3), 3}, tick())
		default:
			a := Actions[r.IntN(len(Actions))]
			p.Transition(s.ID, a, TransitionOpts{Result: randomText(r, 8, true), Reason: randomText(r, 6, true), Retry: r.IntN(2) == 0, Force: true, Auto: r.IntN(3) == 0}, tick())
		}
	}
	p.Iterations = r.IntN(100)
	if r.IntN(4) == 0 {
		p.From = Origins[r.IntN(len(Origins))]
	}
	switch r.IntN(6) {
	case 0:
		p.Pause(randomText(r, 6, true), tick())
	case 1:
		p.Finish(randomText(r, 8, true), true, tick())
	case 2:
		p.Abort("x"+randomText(r, 8, true), tick())
	}
	if r.IntN(4) == 0 {
		randomConflicts(r, p)
	}
	return p
}

// randomConflicts records merge conflicts on the plan and some of its
// steps, as a merge does, with values of any text.
func randomConflicts(r *rand.Rand, p *Plan) {
	rev := func() string {
		const hex = "0123456789abcdef"
		b := make([]byte, 7)
		for i := range b {
			b[i] = hex[r.IntN(16)]
		}
		return string(b)
	}
	side := func() ConflictSide {
		if r.IntN(5) == 0 {
			return ConflictSide{Rev: rev(), Removed: true}
		}
		return ConflictSide{Rev: rev(), Value: randomText(r, 8, r.IntN(2) == 0)}
	}
	for _, s := range p.Steps() {
		if r.IntN(3) == 0 {
			for _, f := range []string{"needs", "status", "text"}[:1+r.IntN(3)] {
				s.Conflicts = append(s.Conflicts, Conflict{Field: f, Sides: [2]ConflictSide{side(), side()}})
			}
		}
	}
	for _, f := range []string{"deliverable", "goal", "phase 1 title"}[:r.IntN(4)] {
		p.Conflicts = append(p.Conflicts, Conflict{Field: f, Sides: [2]ConflictSide{side(), side()}})
	}
	if r.IntN(2) == 0 {
		p.NextFinding, p.NextError = 1+r.IntN(9), 1+r.IntN(9)
	}
}

// TestRoundTripProperty: for random plans, parse(write(p)) equals p and
// write(parse(write(p))) == write(p).
func TestRoundTripProperty(t *testing.T) {
	t.Parallel()
	n := 2000
	if testing.Short() {
		n = 200
	}
	for seed := 0; seed < n; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		p := randomPlan(r)
		out := WritePlan(p)
		q, err := ParsePlan(out)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, out)
		}
		a, _ := json.Marshal(p)
		b, _ := json.Marshal(q)
		if !bytes.Equal(a, b) || p.NextStep != q.NextStep || p.NextPhase != q.NextPhase {
			t.Fatalf("seed %d: parse(write(p)) != p\n%s\n%s\n%s", seed, out, a, b)
		}
		if out2 := WritePlan(q); !bytes.Equal(out, out2) {
			t.Fatalf("seed %d: write(parse(write(p))) != write(p)\n%s\n---\n%s", seed, out, out2)
		}
	}
}

func randomFindings(r *rand.Rand) Findings {
	var fs Findings
	now := t0
	for i := r.IntN(8); i > 0; i-- {
		now = now.Add(time.Minute)
		fs.Add(Finding{Category: Categories[r.IntN(len(Categories))], Title: "f" + randomText(r, 8, false),
			Content: randomText(r, 20, true), Source: randomText(r, 4, false), Step: []string{"", "3"}[r.IntN(2)]}, now)
	}
	return fs
}

func randomErrors(r *rand.Rand) ErrorLog {
	var l ErrorLog
	now := t0
	for i := r.IntN(8); i > 0; i-- {
		now = now.Add(time.Minute)
		l.Record(ErrorRecord{Tool: []string{"Bash", "Edit", "mcp__x__y"}[r.IntN(3)], Message: "e" + randomText(r, 12, true),
			Params: randomText(r, 5, false), Step: []string{"", "2"}[r.IntN(2)], Key: []string{"", "go build ./...", randomText(r, 3, false)}[r.IntN(3)]}, now)
		if len(l) > 0 && r.IntN(3) == 0 {
			e := l[r.IntN(len(l))]
			if r.IntN(2) == 0 {
				l.Resolve(e.ID, randomText(r, 6, true), now)
			} else {
				e.Resolved = true // as an import reads it: undated
				e.Resolution, _ = CleanText("resolution", randomText(r, 4, false))
			}
		}
	}
	return l
}

func TestFindingsAndErrorsRoundTrip(t *testing.T) {
	t.Parallel()
	for seed := 0; seed < 1000; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 11))
		fs := randomFindings(r)
		out := WriteFindings(fs)
		got, err := ParseFindings(out)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, out)
		}
		a, _ := json.Marshal(fs)
		b, _ := json.Marshal(got)
		if !bytes.Equal(a, b) {
			t.Fatalf("seed %d findings:\n%s\n%s\n%s", seed, out, a, b)
		}
		l := randomErrors(r)
		out = WriteErrors(l)
		gotl, err := ParseErrors(out)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, out)
		}
		a, _ = json.Marshal(l)
		b, _ = json.Marshal(gotl)
		if !bytes.Equal(a, b) {
			t.Fatalf("seed %d errors:\n%s\n%s\n%s", seed, out, a, b)
		}
	}
}

func TestFindingsAndErrorsGolden(t *testing.T) {
	t.Parallel()
	var fs Findings
	fs.Add(Finding{Category: CatInsight, Title: "GetUser dominates", Content: "70% of calls.\n\n```go\nfunc GetUser()\n```", Step: "1"}, t0)
	fs.Add(Finding{Category: CatCode, Title: "Cache interface", Source: "internal/cache/cache.go:12", Content: "Has Get/Set/Delete."}, t0.Add(time.Minute))
	golden(t, "findings.md", WriteFindings(fs))

	var l ErrorLog
	l.Record(ErrorRecord{Tool: "Bash", Message: "go test ./...: exit status 1\n--- FAIL: TestCache (0.01s)", Step: "3", Params: `{"command":"go test ./..."}`}, t0)
	l.Record(ErrorRecord{Tool: "Edit", Message: "old_string not found"}, t0.Add(time.Minute))
	l.Record(ErrorRecord{Tool: "Bash", Message: "go test ./...: exit status 2\n--- FAIL: TestCache (0.02s)"}, t0.Add(2*time.Minute))
	l.Record(ErrorRecord{Tool: "Bash", Message: "go build: undefined: Cache", Key: "go build ./..."}, t0.Add(3*time.Minute))
	l.ResolveKey("Bash", "go  build ./...", "the same command succeeded", t0.Add(4*time.Minute))
	golden(t, "errors.md", WriteErrors(l))
}

// errors.md written before errors had ids still reads: the records get ids
// oldest first, and keep them once written.
func TestErrorsWithoutIDs(t *testing.T) {
	t.Parallel()
	old := "# Errors\n\n## Bash ×2\n\n- first: 2026-11-20T10:00:00Z\n- last: 2026-11-20T10:02:00Z\n\n> newest\n\n## Edit ×1 `#4`\n\n> middle\n\n## Read ×1\n\n> oldest\n"
	l, err := ParseErrors([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{l[0].ID, l[1].ID, l[2].ID}; !slices.Equal(got, []string{"6", "4", "5"}) {
		t.Fatalf("ids %v", got)
	}
	again, _ := ParseErrors(WriteErrors(l))
	if again[0].ID != "6" || again[2].ID != "5" {
		t.Fatalf("ids are not kept once written")
	}
	for _, bad := range []string{"## Bash ×1 `#2 fixed`\n", "## Bash ×1 `#1`\n\n## Edit ×1 `#1`\n", "## Bash ×1\n\n- resolved: last week\n"} {
		_, err := ParseErrors([]byte("# Errors\n\n" + bad))
		wantCode(t, err, CodePlanParseError)
	}
}

// An error is open until resolved; a resolved error stays in the log, is
// not counted by the 3-strike rule, and the same error coming back starts
// a new record.
func TestErrorLifecycle(t *testing.T) {
	t.Parallel()
	var l ErrorLog
	l.Record(ErrorRecord{Tool: "Bash", Message: "exit status 1", Key: "go test ./..."}, t0)
	l.Record(ErrorRecord{Tool: "Bash", Message: "exit status 1", Key: "go test  ./..."}, t0)
	rec, _ := l.Record(ErrorRecord{Tool: "Bash", Message: "exit status 1", Key: "go vet ./..."}, t0)
	if len(l) != 2 || l.ByID("1").Count != 2 || rec.ID != "2" {
		t.Fatalf("a key tells errors apart: %+v", l)
	}
	if got := l.ResolveKey("Bash", "go test ./...", "the same command succeeded", t0.Add(time.Minute)); len(got) != 1 || got[0].ID != "1" {
		t.Fatalf("resolve by key: %+v", got)
	}
	if r := l.ByID("1"); r.Open() || !r.ResolvedAt.Equal(t0.Add(time.Minute)) || r.Resolution != "the same command succeeded" {
		t.Fatalf("resolved: %+v", r)
	}
	if len(l.Open()) != 1 || len(l.ResolveKey("Bash", "", "", t0)) != 0 || len(l.ResolveKey("Edit", "go vet ./...", "", t0)) != 0 {
		t.Fatal("only open errors of that tool and key resolve")
	}
	again, _ := l.Record(ErrorRecord{Tool: "Bash", Message: "exit status 1", Key: "go test ./..."}, t0.Add(2*time.Minute))
	if again.ID != "3" || again.Count != 1 || len(l) != 3 {
		t.Fatalf("a resolved error coming back is a new record: %+v", again)
	}
	if _, changed, err := l.Resolve("#3", "fixed the test", t0); err != nil || !changed {
		t.Fatal(err)
	}
	if _, changed, err := l.Resolve("3", "again", t0); err != nil || changed {
		t.Fatalf("resolving twice changes nothing: %v", err)
	}
	_, _, err := l.Resolve("9", "", t0)
	wantCode(t, err, CodeInvalidArgument)
	all, _ := l.ResolveAll("cleared", t0)
	if len(all) != 1 || all[0].ID != "2" || len(l.Open()) != 0 || len(l) != 3 {
		t.Fatalf("resolve all: %+v", all)
	}
	if f := l.Find("Bash", "exit status 7"); f == nil || f.ID != "3" {
		t.Fatalf("find falls back to the newest resolved record: %+v", f)
	}
}

func TestFindingsHandEdit(t *testing.T) {
	t.Parallel()
	src := "# Findings\n\n## Insights\n\n### A new note\n\nJust a paragraph.\n\n## Dependencies\n\n### Uses redis `#4`\n\n- source: go.mod\n"
	fs, err := ParseFindings([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || fs[0].ID != "5" || fs[0].Category != CatInsight || fs[0].Content != "Just a paragraph." || fs[1].Category != CatDependency {
		b, _ := json.Marshal(fs)
		t.Fatalf("%s", b)
	}
	_, err = ParseFindings([]byte("# Findings\n\n## Rumours\n"))
	wantCode(t, err, CodePlanParseError)
}

// TestRemoveFindings: a removal takes out exactly the findings named, or
// nothing when one of them is unknown, and leaves task_plan.md alone (the
// session's history keeps the ids from being given again: repo's
// TestNoteIDsNeverGivenTwice and the record script).
func TestRemoveFindings(t *testing.T) {
	t.Parallel()
	p, err := New("p1", "T", "", []string{"A"}, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	st := &State{Plan: p}
	for _, title := range []string{"one", "two", "three"} {
		if _, err := st.AddFinding(Finding{Category: CatInsight, Title: title}, t0); err != nil {
			t.Fatal(err)
		}
	}
	planBefore, before := string(WritePlan(st.Plan)), string(WriteFindings(st.Findings))
	_, err = st.RemoveFindings([]string{"1", "7"})
	wantCode(t, err, CodeInvalidArgument)
	if got := string(WriteFindings(st.Findings)); got != before {
		t.Fatalf("a refused removal changed the findings:\n%s", got)
	}
	_, err = st.RemoveFindings(nil)
	wantCode(t, err, CodeInvalidArgument)

	c, err := st.RemoveFindings([]string{"#1", "1"})
	if err != nil || c.Op != "finding.rm" || c.Summary != "finding 1 removed: one (insight)" {
		t.Fatalf("%+v %v", c, err)
	}
	if c, err = st.RemoveFindings([]string{"3", "2"}); err != nil || c.Summary != "findings removed: 3, 2" || len(st.Findings) != 0 {
		t.Fatalf("%+v %v %d left", c, err, len(st.Findings))
	}
	if got := string(WritePlan(st.Plan)); got != planBefore {
		t.Fatalf("removing findings changed task_plan.md:\n%s", got)
	}
}

// TestRepeatedNoteIDsNameTheLine: a finding or error copied with its id
// is refused at the copy's heading.
func TestRepeatedNoteIDsNameTheLine(t *testing.T) {
	t.Parallel()
	var fs Findings
	fs.Add(Finding{Category: CatCode, Title: "One"}, t0)
	fs.Add(Finding{Category: CatCode, Title: "Two"}, t0)
	src := strings.Replace(string(WriteFindings(fs)), "### Two `#2`", "### Two `#1`", 1)
	_, err := ParseFindings([]byte(src))
	wantCode(t, err, CodePlanParseError)
	if want := fmt.Sprintf("findings.md:%d:1: two findings have id 1", lineOf(src, "### Two")); !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s", err, want)
	}
	var l ErrorLog
	l.Record(ErrorRecord{Tool: "Bash", Message: "one"}, t0)
	l.Record(ErrorRecord{Tool: "Edit", Message: "two"}, t0)
	src = strings.Replace(string(WriteErrors(l)), "`#2`", "`#1`", 1)
	_, err = ParseErrors([]byte(src))
	wantCode(t, err, CodePlanParseError)
	if !strings.Contains(err.Error(), "two errors have id 1") || !strings.HasPrefix(err.Error(), "errors.md:") {
		t.Errorf("got %v", err)
	}
}
