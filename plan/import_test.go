package plan

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// stepsOf summarises a plan as "id:status:text" lines with needs.
type stepView struct {
	ID, Text string
	Status   StepStatus
	Needs    []string
}

func viewSteps(p *Plan) []stepView {
	var out []stepView
	for _, s := range p.Steps() {
		out = append(out, stepView{s.ID, s.Text, s.Status, s.Needs})
	}
	return out
}

func TestImportFormats(t *testing.T) {
	cases := []struct {
		file, format, title string
		status              PlanStatus
		steps               []stepView
		check               func(t *testing.T, p *Plan)
	}{
		{"todowrite.json", FormatTodos, "Todos", PlanRunning, []stepView{
			{"1", "Read the UserService code", StepCompleted, nil},
			{"2", "Add an LRU cache to GetUser", StepInProgress, nil},
			{"3", "Write cache invalidation tests", StepPending, nil},
		}, func(t *testing.T, p *Plan) {
			if s, _, _ := p.Step("2"); s.Active != "Adding an LRU cache to GetUser" {
				t.Errorf("active form %q", s.Active)
			}
		}},
		{"claude_tasks.json", FormatTasks, "Tasks", PlanRunning, []stepView{
			{"1", "Create the database schema", StepCompleted, nil},
			{"2", "Implement the login API", StepInProgress, []string{"1"}},
			{"3", "Implement the signup API", StepPending, []string{"1"}},
			{"4", "End-to-end tests", StepPending, []string{"2", "3"}},
		}, func(t *testing.T, p *Plan) {
			if s, _, _ := p.Step("2"); s.Why != "POST /login with JWT" {
				t.Errorf("description → why: %q", s.Why)
			}
		}},
		{"pwf_task_plan.md", FormatPWF, "Build a todo CLI in Python", PlanRunning, []stepView{
			{"1", "Understand user intent", StepCompleted, nil},
			{"2", "Identify constraints and requirements", StepCompleted, nil},
			{"3", "Document findings in findings.md", StepCompleted, nil}, // the phase is complete
			{"4", "Define technical approach", StepInProgress, nil},
			{"5", "Create project structure", StepPending, nil},
			{"6", "Write the add, list and delete commands", StepPending, nil},
			{"7", "Delivery", StepPending, nil}, // a phase without items becomes one step
		}, func(t *testing.T, p *Plan) {
			if p.Goal != "Create a Python CLI todo app with add, list, and delete functionality." || len(p.Phases) != 4 || p.Phases[1].Title != "Planning & Structure" {
				t.Errorf("goal %q, phases %d", p.Goal, len(p.Phases))
			}
		}},
		{"maxclaw_plan.json", FormatMaxclaw, "Summarise the three latest issues in the repo and post the summary to Slack", PlanRunning, []stepView{
			{"1", "Fetch the latest issues", StepCompleted, nil},
			{"2", "Summarise each issue", StepInProgress, nil},
			{"3", "Post the summary to Slack", StepPending, nil},
		}, func(t *testing.T, p *Plan) {
			s, _, _ := p.Step("2")
			if p.Iterations != 6 || s.Progress != (Progress{1, 3}) || p.ID != "plan_1763630000000" {
				t.Errorf("iterations %d progress %v", p.Iterations, s.Progress)
			}
			if s, _, _ := p.Step("1"); s.Result != "3 issues fetched" {
				t.Errorf("result %q", s.Result)
			}
		}},
		{"plan_tool.json", FormatPlanTool, "Migrate the config loader from YAML to TOML", PlanRunning, []stepView{
			{"1", "Inventory every YAML key in use", StepCompleted, nil},
			{"2", "Write the TOML schema", StepInProgress, nil},
			{"3", "Switch the loader and keep a YAML fallback for one release", StepPending, nil},
		}, nil},
		{"plan_manager.json", FormatPlanManager, "Search JD for 'mechanical keyboard' and add the first one under 500 yuan to the cart", PlanRunning, []stepView{
			{"1", "Navigate to the JD homepage", StepCompleted, nil},
			{"2", "Search for mechanical keyboard", StepInProgress, []string{"1"}},
			{"3", "Add the first keyboard under 500 yuan to the cart", StepPending, []string{"2"}},
		}, func(t *testing.T, p *Plan) {
			if s, _, _ := p.Step("1"); s.Why != "Need to open the target website first" || s.Result != "Homepage loaded" {
				t.Errorf("%+v", s)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("..", "testdata", "import", c.file))
			if err != nil {
				t.Fatal(err)
			}
			if f, err := DetectFormat(src); err != nil || f != c.format {
				t.Fatalf("detected %q (%v), want %q", f, err, c.format)
			}
			in, err := Import("input", src, "", t0)
			if err != nil {
				t.Fatal(err)
			}
			p := in.Plan
			if p.Title != c.title || p.Status != c.status {
				t.Errorf("title %q status %s", p.Title, p.Status)
			}
			if got := viewSteps(p); !slices.EqualFunc(got, c.steps, func(a, b stepView) bool {
				return a.ID == b.ID && a.Text == b.Text && a.Status == b.Status && slices.Equal(a.Needs, b.Needs)
			}) {
				t.Errorf("steps:\n got %+v\nwant %+v", got, c.steps)
			}
			if c.check != nil {
				c.check(t, p)
			}
			if _, err := ParsePlan(WritePlan(p)); err != nil {
				t.Fatalf("imported plan does not round-trip: %v", err)
			}
		})
	}
}

func TestImportRejects(t *testing.T) {
	cases := []struct {
		name, src, format string
		code              Code
	}{
		{"empty", "  ", "", CodeInvalidArgument},
		{"malformed json", `{"todos": [`, "", CodePlanParseError},
		{"unknown json", `{"foo": 1}`, "", CodeInvalidArgument},
		{"unknown format", `{}`, "yaml", CodeInvalidArgument},
		{"wrong type", `{"todos": "nope"}`, "", CodePlanParseError},
		{"dangling dependency", `[{"id":"1","subject":"a","blockedBy":["9"]}]`, "", CodeInvalidDependency},
		{"cycle", `{"meta":{"goal":"g"},"tasks":[{"id":1,"name":"a","dependencies":[2]},{"id":2,"name":"b","dependencies":[1]}]}`, "", CodeCircularDependency},
		{"not a pwf plan", "just some text\n", "", CodePlanParseError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Import("input", []byte(c.src), c.format, t0)
			wantCode(t, err, c.code)
		})
	}
	_, err := Import("input", []byte(`{"todos": [`+"\n"+`  {"content": 1}]}`), "", t0)
	if err == nil || err.Error()[:14] != "input:2:15: fi" {
		t.Errorf("JSON errors carry a position: %v", err)
	}
}

func TestMerge(t *testing.T) {
	p := samplePlan(t)
	src, _ := os.ReadFile(filepath.Join("..", "testdata", "import", "claude_tasks.json"))
	in, err := Import("input", src, "", t0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Merge(in.Plan, t0)
	if err != nil || c.Summary != "import: 4 steps in 1 phase" {
		t.Fatalf("%+v %v", c, err)
	}
	s, ph, _ := p.Step("7")
	if ph.ID != "3" || s.Text != "End-to-end tests" || !slices.Equal(s.Needs, []string{"5", "6"}) {
		t.Fatalf("merged step 7 in phase %s: %+v", ph.ID, s)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
}
