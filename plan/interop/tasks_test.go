package interop

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// taskLines are a tasks.md's task lines, as written.
func taskLines(src []byte) []string {
	return regexp.MustCompile(`(?m)^[ \t]*- \[[ xX]\] .*$`).FindAllString(string(src), -1)
}

// spec-kit's and OpenSpec's tasks.md, written from their templates,
// import, export and import again: the export has the file's task lines
// — ids, [P], [USn], boxes, nesting — the re-import of the export changes
// nothing, and the export of that is the same bytes.
func TestTasksRoundTrip(t *testing.T) {
	t.Parallel()
	for name, format := range map[string]string{"speckit_tasks.md": FormatSpecKit, "openspec_tasks.md": FormatOpenSpec} {
		t.Run(format, func(t *testing.T) {
			src := readFixture(t, name)
			first, err := Import(name, src, "", t0)
			if err != nil {
				t.Fatal(err)
			}
			files, err := Export(first.State, format)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != 1 || files[0].Name != "tasks.md" {
				t.Fatalf("files %v", files)
			}
			if got, want := taskLines(files[0].Data), taskLines(src); !slices.Equal(got, want) {
				t.Errorf("the export's task lines:\n%s\nwant the file's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			again, err := Import("tasks.md", files[0].Data, "", t0)
			if err != nil {
				t.Fatalf("%v\n%s", err, files[0].Data)
			}
			if again.Format != format {
				t.Errorf("the export imports as %s", again.Format)
			}
			if c, dropped, err := Update(first.State, again, t0); err != nil || c.Op != "" {
				t.Errorf("the export changes the plan: %+v %v %v", c, err, dropped)
			}
			for i, s := range again.State.Plan.Steps() {
				want := first.State.Plan.Steps()[i]
				if s.Text != want.Text || s.Status != want.Status || !slices.Equal(s.Needs, want.Needs) {
					t.Errorf("step %d: %+v, want %+v", i, s, want)
				}
			}
			for i, ph := range again.State.Plan.Phases {
				if want := first.State.Plan.Phases[i]; ph.Title != want.Title || ph.Notes != want.Notes {
					t.Errorf("phase %d: %q %q, want %q %q", i, ph.Title, ph.Notes, want.Title, want.Notes)
				}
			}
			if len(again.State.Findings) != len(first.State.Findings) {
				t.Errorf("%d findings, want %d", len(again.State.Findings), len(first.State.Findings))
			}
			files2, err := Export(again.State, format)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(files[0].Data, files2[0].Data) {
				t.Errorf("the export of the import of an export differs:\n%s\n---\n%s", files[0].Data, files2[0].Data)
			}
		})
	}
}

// What spec-kit's markers mean: [P] no need of the task before, a task
// without it the task before in its phase, "depends on" the tasks named,
// [X] completed; the ids stay at the start of the steps' texts.
func TestSpecKitMarkers(t *testing.T) {
	t.Parallel()
	in, err := Import("tasks.md", readFixture(t, "speckit_tasks.md"), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	p := in.State.Plan
	step := func(label string) *plan.Step {
		for _, s := range p.Steps() {
			if TaskLabel(s.Text) == label {
				return s
			}
		}
		t.Fatalf("no step %s", label)
		return nil
	}
	id := func(label string) string { return step(label).ID }
	for label, want := range map[string][]string{
		"T001": nil,                      // the first of its phase
		"T002": {id("T001")},             // sequential
		"T003": nil,                      // [P]
		"T004": nil,                      // the first of phase 2: no need across phases
		"T010": {id("T009"), id("T008")}, // the task before, and "depends on T008, T009"
		"T011": {id("T010")},             // sequential
		"T007": nil,                      // [P] [US1]
	} {
		if got := step(label).Needs; !slices.Equal(got, want) {
			t.Errorf("%s needs %v, want %v", label, got, want)
		}
	}
	if s := step("T001"); s.Status != plan.StepCompleted || s.Text != "T001 Create project structure per implementation plan" {
		t.Errorf("T001: %+v", s)
	}
	if s := step("T008"); s.Status != plan.StepPending || !strings.HasPrefix(s.Text, "T008 [P] [US1] ") {
		t.Errorf("T008: %+v", s)
	}
	if len(p.Phases) != 4 || p.Phases[2].Title != "User Story 1 - Group photos into albums (Priority: P1) 🎯 MVP" {
		t.Fatalf("phases: %d, %q", len(p.Phases), p.Phases[2].Title)
	}
	if notes := p.Phases[1].Notes; !strings.Contains(notes, "**Checkpoint**: Foundation ready") {
		t.Errorf("phase 2's notes lack its checkpoint: %q", notes)
	}
	if !in.Labels || !in.Boxes {
		t.Error("a spec-kit import does not say its steps have task ids and boxes")
	}
}

// A tasks.md written again — a box ticked by /speckit.implement, a task
// reworded, one added, one unticked — updates the plan in place: steps
// matched by task id, then text; a step in progress stays so under its
// unticked box; nothing is duplicated; the same file again is no change.
func TestTasksReimportUpdatesInPlace(t *testing.T) {
	t.Parallel()
	src := string(readFixture(t, "speckit_tasks.md"))
	first, err := Import("tasks.md", []byte(src), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	st := first.State
	p := st.Plan
	if _, err := p.Transition("3", plan.ActStart, plan.TransitionOpts{}, t0); err != nil {
		t.Fatal(err)
	}
	edited := strings.NewReplacer(
		"- [ ] T004 Set up", "- [X] T004 Set up",
		"T005 [P] Implement the photo metadata reader in src/lib/exif.js", "T005 [P] Implement the EXIF reader in src/lib/exif.js",
		"- [X] T002 ", "- [ ] T002 ",
		"- [ ] T013 Run quickstart.md validation", "- [ ] T013 Run quickstart.md validation\n- [ ] T014 Publish the release notes",
	).Replace(src)
	in, err := Import("tasks.md", []byte(edited), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	c, dropped, err := Update(st, in, t0)
	if err != nil {
		t.Fatal(err)
	}
	if n := p.Counts().Total; n != 14 {
		t.Fatalf("%d steps, want 14: %v", n, dropped)
	}
	get := func(id string) *plan.Step { s, _, _ := p.Step(id); return s }
	if s := get("3"); s.Status != plan.StepInProgress {
		t.Errorf("T003, in progress under an unticked box, is %s", s.Status)
	}
	if s := get("4"); s.Status != plan.StepCompleted {
		t.Errorf("T004, ticked, is %s", s.Status)
	}
	if s := get("5"); s.Text != "T005 [P] Implement the EXIF reader in src/lib/exif.js" {
		t.Errorf("T005, reworded, is %q", s.Text)
	}
	if s := get("2"); s.Status != plan.StepPending {
		t.Errorf("T002, unticked, is %s", s.Status)
	}
	if s := get("14"); s == nil || s.Text != "T014 Publish the release notes" || !slices.Equal(s.Needs, []string{"13"}) {
		t.Errorf("T014: %+v", s)
	}
	if want := "import: updated in place — 1 step added (14), 3 steps changed (2, 4, 5)"; c.Summary != want {
		t.Errorf("summary %q, want %q", c.Summary, want)
	}
	if c, _, err := Update(st, in, t0); err != nil || c.Op != "" {
		t.Errorf("the same file again: %+v %v", c, err)
	}
}

// A plan that came from elsewhere exports to tasks.md with task ids of
// the format's own, and its re-import matches its steps by text: no step
// renamed, none added.
func TestTasksExportGivesIDs(t *testing.T) {
	t.Parallel()
	p := samplePlan(t)
	st := &plan.State{Plan: p}
	for _, format := range []string{FormatSpecKit, FormatOpenSpec} {
		files, err := Export(st, format)
		if err != nil {
			t.Fatal(err)
		}
		lines := taskLines(files[0].Data)
		want := map[string][]string{FormatSpecKit: {"- [ ] T001 Analyze", "- [ ] T002 Design", "- [ ] T003 Build"},
			FormatOpenSpec: {"- [ ] 1.1 Analyze", "- [ ] 1.2 Design", "- [ ] 2.1 Build"}}[format]
		if !slices.Equal(lines, want) {
			t.Errorf("%s task lines %q, want %q", format, lines, want)
		}
		in, err := Import("tasks.md", files[0].Data, "", t0)
		if err != nil {
			t.Fatal(err)
		}
		if c, dropped, err := Update(st, in, t0); err != nil || c.Op != "" {
			t.Errorf("%s: the export changes the plan: %+v %v %v", format, c, err, dropped)
		}
	}
}

// Claude Code's plan files in the shapes plan mode writes them: numbered
// steps under an Implementation section, steps as sub-headings, phases as
// sub-headings over lists, and a plan with no section naming its steps.
func TestClaudePlanShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		phases    []string
		steps     []string
	}{
		{"numbered", "# Plan: Fix login\n\n## Context\n\nLogins time out.\n\n## Implementation\n\n1. Raise the timeout\n2. Add a retry\n   - at most three\n\n## Verification\n\n- log in\n",
			[]string{"Implementation"}, []string{"Raise the timeout", "Add a retry"}},
		{"sub-headings", "# Fix login\n\n## Steps\n\n### 1. Raise the timeout\n\nIn `auth.go`.\n\n### 2. Add a retry\n\nThree at most.\n",
			[]string{"Steps"}, []string{"Raise the timeout", "Add a retry"}},
		{"phases", "# Migrate\n\n## Implementation Plan\n\n### Phase 1: Schema\n\n- [x] add the column\n- [ ] backfill it\n\n### Phase 2: Code\n\n- read the column\n",
			[]string{"Schema", "Code"}, []string{"add the column", "backfill it", "read the column"}},
		{"no step section", "# Speed up search\n\nSearch is slow.\n\n## Approach\n\n1. Add an index\n2. Cache results\n\n## Risks\n\n- stale cache\n",
			[]string{"Approach"}, []string{"Add an index", "Cache results"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if f, err := DetectFormat([]byte(c.src)); err != nil || f != FormatClaudePlan {
				t.Fatalf("detected %q (%v)", f, err)
			}
			in, err := Import("plan.md", []byte(c.src), "", t0)
			if err != nil {
				t.Fatal(err)
			}
			p := in.State.Plan
			var phases, steps []string
			for _, ph := range p.Phases {
				phases = append(phases, ph.Title)
			}
			for _, s := range p.Steps() {
				steps = append(steps, s.Text)
			}
			if !slices.Equal(phases, c.phases) || !slices.Equal(steps, c.steps) {
				t.Errorf("phases %q steps %q, want %q %q", phases, steps, c.phases, c.steps)
			}
			if p.Title == "" || strings.HasPrefix(p.Title, "Plan:") {
				t.Errorf("title %q", p.Title)
			}
		})
	}
	in, err := Import("plan.md", []byte(cases[0].src), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	p := in.State.Plan
	if p.Goal != "Logins time out." || p.Steps()[1].Why != "- at most three" {
		t.Errorf("goal %q, why %q", p.Goal, p.Steps()[1].Why)
	}
	if len(in.State.Findings) != 1 || in.State.Findings[0].Title != "Verification" {
		t.Errorf("findings %+v", in.State.Findings)
	}
	// The plan file written again after the agent re-planned: matched by
	// text, the new step added, nothing duplicated.
	again := strings.Replace(cases[0].src, "2. Add a retry", "2. Add a retry\n3. Log the timeouts", 1)
	in2, err := Import("plan.md", []byte(again), "", t0)
	if err != nil {
		t.Fatal(err)
	}
	if c, _, err := Update(in.State, in2, t0); err != nil || c.Summary != "import: updated in place — 1 step added (3)" {
		t.Errorf("re-plan: %+v %v", c, err)
	}
}

// A tasks.md that is not one is refused, naming why; nothing is half read.
func TestTasksRejects(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, src, format string
		code              plan.Code
		msg               string
	}{
		{"no task", "# Tasks: x\n\n## Phase 1: Setup\n\n**Purpose**: none\n", FormatSpecKit, plan.CodePlanParseError, "found no step"},
		{"openspec without tasks", "## 1. Group\n\nnothing yet\n", FormatOpenSpec, plan.CodePlanParseError, "found no step"},
		{"a cycle", "## Phase 1: A\n\n- [ ] T001 first (depends on T002)\n- [ ] T002 second\n", "", plan.CodeCircularDependency, "cycle"},
		{"claude plan without steps", "# Plan: think\n\n## Context\n\nnothing to do\n", "", plan.CodePlanParseError, "found no step"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Import("tasks.md", []byte(c.src), c.format, t0)
			wantCode(t, err, c.code)
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("message %q does not say %q", err, c.msg)
			}
		})
	}
}
