package interop

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
	"github.com/yuin/goldmark/ast"
)

var golden = repotest.Golden

// t0 is when the tests' plans are made and changed.
var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// samplePlan is a small plan with two phases and a dependency chain 1 ← 2 ← 3.
func samplePlan(t *testing.T) *plan.Plan {
	t.Helper()
	p, err := plan.New("s1", "Add caching", "cache lookups", []string{"Analysis", "Build"}, t0, false)
	if err != nil {
		t.Fatal(err)
	}
	must := func(_ *plan.Step, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(p.AddStep(plan.StepSpec{Text: "Analyze", Phase: "1"}, t0))
	must(p.AddStep(plan.StepSpec{Text: "Design", Phase: "1", Needs: []string{"1"}}, t0))
	must(p.AddStep(plan.StepSpec{Text: "Build", Phase: "2", Needs: []string{"2"}}, t0))
	return p
}

func wantCode(t *testing.T, err error, code plan.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	if got := plan.CodeOf(err); got != code {
		t.Fatalf("got %s (%v), want %s", got, err, code)
	}
}

// tImport is when the tests import: far from every time the fixtures give,
// so a time the import invents stands out.
var tImport = time.Date(2031, 5, 5, 5, 5, 5, 0, time.UTC)

// fixtures are the import fixtures in testdata/import, each written from
// the design of the system it comes from, with the format it is in.
var fixtures = map[string]string{
	"todowrite.json":         FormatTodos,
	"todowrite_persist.json": FormatTodos, // seed 004: TodoWrite with planTitle, persist, phaseId
	"claude_tasks.json":      FormatTasks,
	"pwf_task_plan.md":       FormatPWF,
	"pwf_full_task_plan.md":  FormatPWF,   // planning-with-files v3 template, filled in
	"manus_task_plan.md":     FormatManus, // seed 004: toMarkdown
	"maxclaw_plan.json":      FormatMaxclaw,
	"maxclaw_seed.json":      FormatMaxclaw, // seed 000: the plan schema
	"plan_tool.json":         FormatPlanTool,
	"plan_tool_seed.json":    FormatPlanTool, // seed 001: plan.json
	"plan_tool_result.json":  FormatPlanTool, // seed 001: the tool's whole answer
	"plan_manager.json":      FormatPlanManager,
	"plan_manager_seed.json": FormatPlanManager, // seed 002: the data structure
	"plan_execute.json":      FormatPlanExecute, // seed 003: the response format
	"speckit_tasks.md":       FormatSpecKit,     // spec-kit's templates/tasks-template.md, filled in
	"openspec_tasks.md":      FormatOpenSpec,    // OpenSpec's schemas/spec-driven/templates/tasks.md, filled in
	"claude_plan.md":         FormatClaudePlan,  // a plan file Claude Code's plan mode writes
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "import", name))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// importDump is an import as its golden file holds it: the files it
// writes and the report of what it did not keep.
func importDump(in *Imported) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "format: %s\n", in.Format)
	files := in.State.Files()
	for _, name := range []string{plan.PlanFile, plan.FindingsFile, plan.ErrorsFile} {
		fmt.Fprintf(&b, "--- %s\n%s", name, files[name])
	}
	b.WriteString("--- not imported\n")
	for _, d := range in.Dropped {
		b.WriteString(d.String() + "\n")
	}
	return b.Bytes()
}

// Every fixture imports to its golden result, is detected as its format,
// round-trips through plangit's files, leaves at most one step in progress
// and invents no time.
func TestImportFixtures(t *testing.T) {
	t.Parallel()
	for name, format := range fixtures {
		t.Run(name, func(t *testing.T) {
			src := readFixture(t, name)
			if f, err := DetectFormat(src); err != nil || f != format {
				t.Fatalf("detected %q (%v), want %q", f, err, format)
			}
			in, err := Import(name, src, "", tImport)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("import", strings.TrimSuffix(name, filepath.Ext(name))+".golden"), importDump(in))
			st, err := plan.ParseState(in.State.Files())
			if err != nil {
				t.Fatalf("imported state does not round-trip: %v", err)
			}
			if c := st.Plan.Counts(); c.InProgress > 1 || c.Total == 0 {
				t.Fatalf("%d steps in progress of %d", c.InProgress, c.Total)
			}
			for _, s := range st.Plan.Steps() {
				if s.Started.Equal(tImport) || s.Completed.Equal(tImport) {
					t.Errorf("step %s got the import's time", s.ID)
				}
			}
			for _, f := range st.Findings {
				if f.Time.Equal(tImport) {
					t.Errorf("finding %s got the import's time", f.ID)
				}
			}
			for _, e := range st.Errors {
				if e.First.Equal(tImport) || e.Last.Equal(tImport) || e.ResolvedAt.Equal(tImport) {
					t.Errorf("error %s got the import's time", e.ID)
				}
			}
		})
	}
}

// What each seed's design holds arrives where it belongs.
func TestImportKeepsWhatTheSourcesHold(t *testing.T) {
	t.Parallel()
	imp := func(name string) *plan.State {
		t.Helper()
		in, err := Import(name, readFixture(t, name), "", tImport)
		if err != nil {
			t.Fatal(err)
		}
		return in.State
	}
	step := func(st *plan.State, id string) *plan.Step {
		t.Helper()
		s, _, err := st.Plan.Step(id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	mc := imp("maxclaw_seed.json")
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	if !mc.Plan.Created.Equal(at("2026-02-24T10:00:00Z")) || !mc.Plan.Updated.Equal(at("2026-02-24T10:30:00Z")) || mc.Plan.Iterations != 15 {
		t.Errorf("maxclaw plan times: %v %v %d", mc.Plan.Created, mc.Plan.Updated, mc.Plan.Iterations)
	}
	if s := step(mc, "1"); !s.Started.Equal(at("2026-02-24T10:00:05Z")) || !s.Completed.Equal(at("2026-02-24T10:02:30Z")) || s.Progress != (plan.Progress{Current: 5, Total: 5}) {
		t.Errorf("maxclaw step 1: %+v", s)
	}
	if s := step(mc, "2"); s.Status != plan.StepInProgress || !s.Completed.IsZero() || s.Progress != (plan.Progress{Current: 2, Total: 5}) {
		t.Errorf("maxclaw step 2: %+v", s)
	}

	pt := imp("plan_tool_seed.json")
	if s := step(pt, "1"); s.Text != "调研竞品" || s.Status != plan.StepCompleted || s.Result != "已完成3个竞品分析" {
		t.Errorf("plan tool step 1: %+v", s)
	}

	pm := imp("plan_manager_seed.json")
	if s := step(pm, "4"); !slices.Equal(s.Needs, []string{"3"}) || s.Why != "Need filtered results to select the first item" {
		t.Errorf("plan manager step 4: %+v", s)
	}
	if pm.Plan.Current().ID != "1" || step(pm, "5").Status != plan.StepSkipped {
		t.Errorf("plan manager statuses")
	}

	pe := imp("plan_execute.json")
	if s := step(pe, "2"); s.Status != plan.StepInProgress || step(pe, "1").Result != "Five sources collected" {
		t.Errorf("plan-execute: currentTaskStatus says task-2 runs: %+v", s)
	}

	tw := imp("todowrite_persist.json")
	if tw.Plan.Title != "UserService 缓存重构" || len(tw.Plan.Phases) != 3 || tw.Plan.Phases[1].Title != "实现" || step(tw, "3").Active != "实现中" {
		t.Errorf("todo list with planTitle and phaseId: %q %d", tw.Plan.Title, len(tw.Plan.Phases))
	}
	if step(tw, "3").Status != plan.StepInProgress || step(tw, "4").Status != plan.StepPending {
		t.Errorf("one step in progress: the first")
	}

	mn := imp("manus_task_plan.md")
	if mn.Plan.Goal != "Cache user lookups without changing the public API" || mn.Plan.Phases[0].Notes != "Read the service before designing anything." ||
		step(mn, "4").Status != plan.StepBlocked || step(mn, "5").Status != plan.StepSkipped || step(mn, "3").Status != plan.StepInProgress ||
		!mn.Plan.Updated.Equal(at("2026-01-14T10:30:00Z")) {
		b, _ := json.Marshal(mn.Plan)
		t.Errorf("manus: %s", b)
	}

	pw := imp("pwf_full_task_plan.md")
	if cur := pw.Plan.Current(); cur == nil || cur.Text != "Write the list and delete commands" {
		t.Errorf("Current Phase 3: its first open item is in progress: %+v", cur)
	}
	if step(pw, "6").Status != plan.StepCompleted || !step(pw, "6").Completed.IsZero() {
		t.Errorf("a complete phase's items are completed, undated")
	}
	var questions, decisions int
	for _, f := range pw.Findings {
		switch f.Category {
		case plan.CatIssue:
			questions++
		case plan.CatArchitecture:
			decisions++
			if f.Title == "Use JSON for storage" && f.Content != "Simple, human-readable, built-in Python support" {
				t.Errorf("decision rationale: %q", f.Content)
			}
		}
	}
	if questions != 2 || decisions != 2 {
		t.Errorf("findings: %d questions, %d decisions", questions, decisions)
	}
	if len(pw.Errors) != 3 || pw.Errors.ByID("2").Count != 2 || !pw.Errors.ByID("1").Resolved || pw.Errors.ByID("3").Resolved {
		b, _ := json.Marshal(pw.Errors)
		t.Errorf("errors with counts and resolutions: %s", b)
	}
	if n := pw.Plan.Phases[0].Notes; !strings.Contains(n, "Result: passed") || !strings.Contains(n, "- Re-read this plan before major decisions") {
		t.Errorf("phase 1 notes: %q", n)
	}
}

// stateStrings are every value of an imported state, as JSON gives them:
// where the test looks for what a fixture held.
func stateStrings(t *testing.T, st *plan.State) []string {
	b, err := json.Marshal(map[string]any{"plan": st.Plan, "findings": st.Findings, "errors": st.Errors})
	if err != nil {
		t.Fatal(err)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.Decode(&v)
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			out = append(out, v)
		case json.Number:
			out = append(out, v.String())
		}
	}
	walk(v)
	return out
}

// kept reports whether a value from a source is in the imported state: as
// text inside one of its values, as the same time, or — for a status — as
// the status plangit reads it as.
func kept(values []string, key, v string) bool {
	v = strings.TrimSpace(v)
	if v == "" {
		return true
	}
	if tv, err := time.Parse(time.RFC3339Nano, v); err == nil {
		v = plan.Stamp(tv).Format(time.RFC3339)
	}
	if key == "status" || key == "state" || key == "Status" || key == "executeState" {
		if st, ok := ImportStatus(v); ok {
			v = string(st)
		}
		if st, ok := importPlanStatus(v); ok && !slices.Contains(values, v) {
			v = string(st)
		}
	}
	if key == "id" {
		v = plan.NormalizeID(v)
	}
	for _, s := range values {
		if s == v || (len(v) > 3 && strings.Contains(s, v)) {
			return true
		}
	}
	return false
}

// droppedAt reports whether the report names field, or a field holding it.
func droppedAt(dropped []Dropped, field string) bool {
	for _, d := range dropped {
		if d.Field == field || strings.HasPrefix(field, d.Field+".") || strings.HasPrefix(field, d.Field+"[") {
			return true
		}
	}
	return false
}

// Every field of every fixture is either in the imported state or named
// in the import's report of what it dropped. The fixtures are walked
// generically — every JSON leaf, every markdown block and table cell — so
// a field the importer forgets is caught.
func TestImportAccountsForEveryField(t *testing.T) {
	t.Parallel()
	for name := range fixtures {
		t.Run(name, func(t *testing.T) {
			src := readFixture(t, name)
			in, err := Import(name, src, "", tImport)
			if err != nil {
				t.Fatal(err)
			}
			values := stateStrings(t, in.State)
			lost := func(field, key, v string) {
				if !droppedAt(in.Dropped, field) && !kept(values, key, v) {
					t.Errorf("%s (%q) is neither imported nor reported as dropped", field, v)
				}
			}
			if strings.HasSuffix(name, ".json") {
				var v any
				dec := json.NewDecoder(bytes.NewReader(src))
				dec.UseNumber()
				if err := dec.Decode(&v); err != nil {
					t.Fatal(err)
				}
				walkJSON(v, "", "", func(path, key string, leaf any) {
					switch leaf := leaf.(type) {
					case nil:
					case string:
						lost(path, key, leaf)
					case json.Number:
						lost(path, key, leaf.String())
					default:
						lost(path, key, fmt.Sprint(leaf))
					}
				})
				return
			}
			walkMarkdown(t, src, in, lost)
		})
	}
}

func walkJSON(v any, path, key string, leaf func(path, key string, v any)) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			walkJSON(x, p, k, leaf)
		}
	case []any:
		for i, x := range v {
			walkJSON(x, path+"["+strconv.Itoa(i)+"]", key, leaf)
		}
	default:
		leaf(path, key, v)
	}
}

// walkMarkdown checks a markdown fixture block by block: headings, list
// items ("**Label:** value" read as a field), paragraph lines and table
// cells (the header row names columns, it holds no value).
func walkMarkdown(t *testing.T, src []byte, in *Imported, lost func(field, key, v string)) {
	d, err := plan.ParseDoc("fixture", src)
	if err != nil {
		t.Fatal(err)
	}
	// The sections whose heading names where their content goes; a plan
	// file's Context is its goal.
	sections := []string{"goal", "current phase", "phases", "key questions", "decisions made", "errors encountered", "session management", "notes", "context"}
	line := func(n ast.Node) string { l, _ := d.Position(d.Start(n)); return "line " + strconv.Itoa(l) }
	section := ""
	text := func(field, s string) {
		_, s = cutIcon(s)
		if label, value, ok := plan.CutLabel(s); ok {
			lost(field, label, value)
			return
		}
		s = strings.TrimSpace(strings.Trim(s, "*_"))
		for _, prefix := range []string{"Task Plan:", "Phase:"} {
			s = strings.TrimSpace(strings.TrimPrefix(s, prefix))
		}
		if k, v, ok := strings.Cut(s, ":"); ok && k == "Last updated" {
			lost(field, "", strings.TrimSpace(v))
			return
		}
		lost(field, "", s)
	}
	for n := d.Root.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			h := d.HeadingText(n)
			if n.Level == 2 && slices.Contains(sections, strings.ToLower(h)) {
				section = strings.ToLower(h)
				continue
			}
			if rest, ok := strings.CutPrefix(h, "Phase "); ok {
				_, h, _ = strings.Cut(rest, ":")
			}
			for _, prefix := range []string{"Tasks:", "Plan:"} { // a tasks.md's and a plan file's titles
				h = strings.TrimPrefix(h, prefix)
			}
			h = openSpecGroup.ReplaceAllString(h, "") // OpenSpec's "## 1. Group"
			text(line(n), h)
		case *ast.List:
			for it := n.FirstChild(); it != nil; it = it.NextSibling() {
				s := d.JoinedLines(it.FirstChild(), " ")
				if _, boxed := plan.CheckBox(it.FirstChild()); boxed {
					s = s[3:]
				}
				text(line(it), s)
			}
		case *ast.Paragraph, *ast.Blockquote:
			var lines []string
			var nums []int
			for p := range paragraphsOf(n) {
				for i := 0; i < p.Lines().Len(); i++ {
					seg := p.Lines().At(i)
					l, _ := d.Position(seg.Start)
					lines, nums = append(lines, strings.TrimSpace(string(seg.Value(d.Src)))), append(nums, l)
				}
			}
			if section == "current phase" {
				cur := in.State.Plan.Current()
				_, ph, _ := in.State.Plan.Step(cur.ID)
				if want := strings.TrimSpace(strings.TrimPrefix(lines[0], "Phase")); ph.ID != want {
					t.Errorf("Current Phase %s: the step in progress is in phase %s", want, ph.ID)
				}
				continue
			}
			if tbl, ok := readTable(lines, nums); ok && len(tbl.header) > 1 {
				for i, row := range tbl.rows {
					for _, c := range row {
						lost("line "+strconv.Itoa(tbl.lines[i]), "", c)
					}
				}
				continue
			}
			for i, l := range lines {
				text("line "+strconv.Itoa(nums[i]), l)
			}
		case *ast.HTMLBlock:
			if !droppedAt(in.Dropped, line(n)) {
				t.Errorf("%s: an HTML comment not reported", line(n))
			}
		}
	}
}

// paragraphsOf yields a paragraph, or the paragraphs of a quote.
func paragraphsOf(n ast.Node) func(func(ast.Node) bool) {
	return func(yield func(ast.Node) bool) {
		if _, ok := n.(*ast.Paragraph); ok {
			yield(n)
			return
		}
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if _, ok := c.(*ast.Paragraph); ok && !yield(c) {
				return
			}
		}
	}
}

// TestImportSelfNeedIsReported: a step the source has waiting for itself
// is imported without that need, and the report says so.
func TestImportSelfNeedIsReported(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{
		"claude tasks": `{"tasks":[{"id":"1","subject":"a","blockedBy":["1"]},{"id":"2","subject":"b","blockedBy":["1"]}]}`,
		"plan manager": `{"meta":{"goal":"g"},"tasks":[{"id":1,"name":"a","dependencies":[1]},{"id":2,"name":"b","dependencies":[1]}]}`,
	} {
		in, err := Import("t.json", []byte(src), "", tImport)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s1, _, _ := in.State.Plan.Step("1")
		s2, _, _ := in.State.Plan.Step("2")
		if len(s1.Needs) != 0 || !slices.Equal(s2.Needs, []string{"1"}) {
			t.Errorf("%s: needs %v, %v", name, s1.Needs, s2.Needs)
		}
		if len(in.Dropped) != 1 || in.Dropped[0].Value != "1" || !strings.Contains(in.Dropped[0].Why, "cannot wait for itself") {
			t.Errorf("%s: dropped %+v", name, in.Dropped)
		}
	}
}

// A source named .json that is not JSON gets the JSON reader's error at
// the wrong byte, not the markdown detector's; its format still decides
// when given.
func TestImportNamedJSONIsReadAsJSON(t *testing.T) {
	t.Parallel()
	_, err := Import("bad.json", []byte("not json\n"), "", tImport)
	wantCode(t, err, plan.CodePlanParseError)
	if !strings.Contains(err.Error(), "bad.json:1:2: malformed JSON") {
		t.Errorf("got %v", err)
	}
	_, err = Import("BROKEN.JSON", []byte(`{"todos": [ }`), "", tImport)
	if err == nil || !strings.Contains(err.Error(), "BROKEN.JSON:1:12: malformed JSON") {
		t.Errorf("got %v", err)
	}
	in, err := Import("plan.json", []byte("# Task Plan: T\n\n## Phase 1: A\n- [ ] one\n"), FormatPWF, tImport)
	if err != nil || in.State.Plan.Counts().Total != 1 {
		t.Errorf("--format pwf of a file named .json: %v", err)
	}
}

func TestImportRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src, format string
		code              plan.Code
		msg               string
	}{
		{"empty", "  ", "", plan.CodeInvalidArgument, "empty"},
		{"malformed json", `{"todos": [`, "", plan.CodePlanParseError, "input:1:"},
		{"trailing data", `{"todos": []} x`, "", plan.CodePlanParseError, "input:1:15: malformed JSON"},
		{"unknown json", `{"foo": 1}`, "", plan.CodeInvalidArgument, "cannot tell"},
		{"unknown format", `{}`, "yaml", plan.CodeInvalidArgument, `unknown format "yaml"`},
		{"wrong type", `{"todos": "nope"}`, "", plan.CodePlanParseError, "todos: expected a list of steps, found a string"},
		{"number for a step", `{"task_description": "t", "steps": [123]}`, "", plan.CodePlanParseError, "input:1:37: steps[0]: a step is text or an object {step, action, status, result}, not a number"},
		{"unknown status", `{"task_description": "t", "steps": [{"action": "a", "status": "bogus"}]}`, "", plan.CodeInvalidArgument, `steps[0].status: unknown status "bogus"`},
		{"unknown plan status", `{"goal": "g", "status": "sleeping", "steps": [{"description": "a"}]}`, "", plan.CodeInvalidArgument, `status: unknown plan status "sleeping"`},
		{"no steps", `{"task_description": "t", "steps": [{"step": 1, "action": "  "}]}`, "", plan.CodePlanParseError, "found no step"},
		{"objects without text", `{"task_description": "t", "steps": []}`, "", plan.CodePlanParseError, "found no step"},
		{"dangling dependency", `[{"id":"1","subject":"a","blockedBy":["9"]}]`, "", plan.CodeInvalidDependency, `[0].blockedBy: step "a" depends on "9"`},
		{"cycle", `{"meta":{"goal":"g"},"tasks":[{"id":1,"name":"a","dependencies":[2]},{"id":2,"name":"b","dependencies":[1]}]}`, "", plan.CodeCircularDependency, "cycle"},
		{"not a pwf plan", "just some text\n", "", plan.CodePlanParseError, "Task Plan"},
		{"pwf without steps", "# Task Plan: x\n\n## Goal\ng\n", "", plan.CodePlanParseError, "found no step"},
		{"pwf unknown phase status", "# Task Plan: x\n\n### Phase 1: A\n- [ ] a\n- **Status:** someday\n", "", plan.CodeInvalidArgument, `input:5: Phase 1 Status: unknown status "someday"`},
		{"manus without steps", "# T\n\n> **Objective:** o\n\n## ○ Phase: A\n", "", plan.CodePlanParseError, "found no step"},
		{"text for an id list", `{"meta":{},"tasks":[{"id":1,"name":"a","dependencies":{"x":1}}]}`, "", plan.CodePlanParseError, "dependencies: expected a list, found an object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Import("input", []byte(c.src), c.format, tImport)
			wantCode(t, err, c.code)
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("message %q does not say %q", err, c.msg)
			}
			for _, goName := range []string{"map[", "interface", "[]", "float64", "json."} {
				if strings.Contains(err.Error(), goName) && !strings.Contains(c.msg, goName) {
					t.Errorf("message %q shows a Go type", err)
				}
			}
		})
	}
}

// Importing into a plan appends the steps with fresh ids; a step in
// progress in the plan stays the one in progress; findings and errors join
// the session's; what the plan keeps of its own is reported.
func TestAppend(t *testing.T) {
	t.Parallel()
	st := &plan.State{Plan: samplePlan(t)}
	st.Plan.Transition("1", plan.ActStart, plan.TransitionOpts{}, t0)
	in, err := Import("input", readFixture(t, "pwf_full_task_plan.md"), "", tImport)
	if err != nil {
		t.Fatal(err)
	}
	c, dropped, err := Append(st, in, t0)
	if err != nil || c.Summary != "import: 12 steps in 5 phases (steps 4–15), 6 findings, 3 errors" {
		t.Fatalf("%+v %v", c, err)
	}
	if cur := st.Plan.Current(); cur.ID != "1" || st.Plan.Counts().InProgress != 1 {
		t.Fatalf("two steps in progress after an import")
	}
	if !droppedAt(dropped, "title") || !droppedAt(dropped, "goal") || !slices.ContainsFunc(dropped, func(d Dropped) bool { return strings.Contains(d.Why, "step 1 is in progress already") }) {
		t.Fatalf("dropped: %v", dropped)
	}
	if len(st.Findings) != 6 || len(st.Errors) != 3 {
		t.Fatalf("findings %d errors %d", len(st.Findings), len(st.Errors))
	}
	// The same file again: still one step in progress, errors count up.
	if _, _, err := Append(st, in, t0); err != nil {
		t.Fatal(err)
	}
	if st.Plan.Counts().InProgress != 1 || len(st.Errors) != 3 || st.Errors.ByID("3").Count != 6 {
		b, _ := json.Marshal(st.Errors)
		t.Fatalf("in progress %d; errors %s", st.Plan.Counts().InProgress, b)
	}
	claude := readFixture(t, "claude_tasks.json")
	ct, _ := Import("input", claude, "", tImport)
	p := samplePlan(t)
	ms := &plan.State{Plan: p}
	if _, _, err := Append(ms, ct, t0); err != nil {
		t.Fatal(err)
	}
	s, ph, _ := p.Step("7")
	if ph.ID != "3" || s.Text != "End-to-end tests" || !slices.Equal(s.Needs, []string{"5", "6"}) {
		t.Fatalf("merged step 7 in phase %s: %+v", ph.ID, s)
	}
	paused := &plan.State{Plan: samplePlan(t)}
	paused.Plan.Pause("", t0)
	_, _, err = Append(paused, ct, t0)
	wantCode(t, err, plan.CodePlanNotActive)
}

// A plan in one file with several steps in progress keeps the first (or
// the one the file names as current) and says so.
func TestImportOneStepInProgress(t *testing.T) {
	t.Parallel()
	src := `{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`
	in, err := Import("input", []byte(src), "", tImport)
	if err != nil {
		t.Fatal(err)
	}
	if c := in.State.Plan.Counts(); c.InProgress != 1 || in.State.Plan.Current().Text != "a" {
		t.Fatalf("%+v", c)
	}
	if !droppedAt(in.Dropped, "todos[1]") {
		t.Fatalf("not reported: %v", in.Dropped)
	}
	src = `{"meta":{"goal":"g"},"state":{"current_task_id":2},"tasks":[{"id":1,"name":"a","status":"running"},{"id":2,"name":"b","status":"running"}]}`
	in, _ = Import("input", []byte(src), "", tImport)
	if in.State.Plan.Current().ID != "2" {
		t.Fatalf("the current task wins")
	}
}

// TestImportMaxclawPending: maxclaw has no approval; its "pending" plan
// (the seed's initial status before any step runs) is one not started
// yet, imported running with its steps pending — never awaiting approval.
func TestImportMaxclawPending(t *testing.T) {
	t.Parallel()
	src := []byte(`{"id":"plan_abc123","goal":"下载腾讯财报","status":"pending","created_at":"2026-02-24T10:00:00Z","updated_at":"2026-02-24T10:00:00Z",
"steps":[{"id":"step_1","description":"搜索财报链接","status":"pending","result":""}],"current_step_index":0,"iteration_count":0}`)
	in, err := Import("plan.json", src, "", tImport)
	if err != nil {
		t.Fatal(err)
	}
	if p := in.State.Plan; p.Status != plan.PlanRunning || p.Steps()[0].Status != plan.StepPending {
		t.Fatalf("a pending maxclaw plan: %s, step %s", p.Status, p.Steps()[0].Status)
	}
}

// TestManusFindingsAndErrors: the Manus-style findings.md and errors.md,
// as seed 004's FindingsManager and ErrorTracker write them, read as
// plangit's own files: every finding with its category, content and
// source; every error with its tool, time, count, message and params.
func TestManusFindingsAndErrors(t *testing.T) {
	t.Parallel()
	fs, err := plan.ParseFindings(readFixture(t, "manus_findings.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 3 || fs[0].Category != plan.CatCode || fs[0].Title != "GetUser is the hot path" || fs[0].Source != "src/user/service.ts" ||
		fs[0].Content != "70% of calls go through GetUser; every call reads the database." || fs[2].Category != plan.CatInsight || fs[2].Content != "Warm the cache on boot." {
		t.Fatalf("findings: %+v %+v %+v", fs[0], fs[1], fs[2])
	}
	l, err := plan.ParseErrors(readFixture(t, "manus_errors.md"))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 20, 10, 5, 0, 0, time.UTC)
	if len(l) != 2 || l[0].Tool != "Bash" || l[0].Count != 3 || !l[0].Last.Equal(at) || l[0].Message != "File not found: src/cache/RedisCache.ts" ||
		l[0].Params != `{"command":"npm test"}` || l[1].Tool != "Edit" || l[1].Count != 1 || l[1].Message != "old_string not found in src/user/service.ts" {
		t.Fatalf("errors: %+v %+v", l[0], l[1])
	}
	// Written back in plangit's form, they read the same.
	fs2, err := plan.ParseFindings(plan.WriteFindings(fs))
	if err != nil || len(fs2) != 3 || fs2[0].Source != fs[0].Source {
		t.Fatalf("findings written back: %v %+v", err, fs2)
	}
	l2, err := plan.ParseErrors(plan.WriteErrors(l))
	if err != nil || len(l2) != 2 || l2[0].Count != 3 || l2[0].Params != l[0].Params {
		t.Fatalf("errors written back: %v %+v", err, l2)
	}
	// A line plangit cannot read is named.
	bad := strings.Replace(string(readFixture(t, "manus_errors.md")), "**Count:** 3 times", "**Count:** three times", 1)
	if _, err := plan.ParseErrors([]byte(bad)); !plan.HasCode(err, plan.CodePlanParseError) || !strings.Contains(err.Error(), "errors.md:7:") {
		t.Fatalf("a bad count: %v", err)
	}
}
