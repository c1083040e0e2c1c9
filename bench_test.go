//go:build bench

package main

// The whole-process benchmark: plangit as an agent's host runs it, one
// process per call, against what a user would run instead, in one run.
//
//	go test -tags bench -run Bench -v .
//
// It builds plangit (CGO_ENABLED=0, -trimpath, as the README installs it),
// prepares sessions of 10, 1,000 and 10,000 revisions, and times each case
// against its peer, alternating the two so that a change in the machine's
// load hits both. It prints the median, the spread (10th to 90th
// percentile) and the ratio of medians, and each ratio's budget (DESIGN.md
// section 10). It fails only on a gross regression, a ratio more than twice
// its budget, so a noisy machine cannot fail it; PLANGIT_BENCH_STRICT=1
// fails on any budget missed.
//
// PLANGIT_BENCH_RUNS (default 41) sets the runs per case and
// PLANGIT_BENCH_REVS (default 10000) the largest session; .ci/run uses a
// smaller version. PLANGIT_BENCH_DIR keeps the sessions and binaries in
// that (empty) directory instead of a temporary one. PLANGIT_DIST names a
// release's dist/, whose npm packages the hook through an npm install is
// timed with (without it, this tree's, packed by .ci/npm).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/plantest"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
)

// The benchmark plan: benchPhases phases of chained steps, benchSteps in
// all, then a phase of benchFree steps that need nothing. The step change
// measured is `step done` of the first free step; an untimed `step reopen`
// puts it back before each run, so the plan keeps its size.
const (
	benchPhases = 4
	benchSteps  = 20
	benchFree   = 4
)

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// timing is one command's runs.
type timing struct {
	times  []time.Duration
	maxRSS int64 // KB
}

func (t *timing) median() time.Duration { return pct(t.times, 50) }

func pct(ts []time.Duration, p int) time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// spread is the 10th to 90th percentile, and the mean, which counts the
// rare slow run (a commit that also packs) the median leaves out.
func (t *timing) spread() string {
	var sum time.Duration
	for _, d := range t.times {
		sum += d
	}
	return fmt.Sprintf("%s–%s, mean %s", ms(pct(t.times, 10)), ms(pct(t.times, 90)), ms(sum/time.Duration(len(t.times))))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }

// bench runs plangit and the programs it is measured against.
type bench struct {
	t       *testing.T
	bin     string // the plangit binary
	rsswrap string // runs a command and prints its peak memory
	wrap    bool   // run through rsswrap, for memory, not time
	env     []string
	results []row
	failed  bool
}

// row is one line of the report.
type row struct {
	name, a, b     string
	ta, tb         *timing
	ratio, budget  float64
	note           string
	sizeA, sizeB   int64
	isSize, hasRSS bool
	grossAt        float64       // the ratio that fails the run, when not twice the budget
	limit          time.Duration // a budget of plangit's median itself, not of the ratio
}

// run starts one process and times it to its exit.
func (b *bench) run(dir string, stdin []byte, args ...string) (time.Duration, int64) {
	b.t.Helper()
	if b.wrap {
		args = append([]string{b.rsswrap}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = b.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		b.t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	var rss int64
	if b.wrap {
		_, after, _ := strings.Cut(stderr.String(), "rsswrap maxrss ")
		rss, _ = strconv.ParseInt(strings.TrimSpace(after), 10, 64)
	}
	return d, rss
}

// peak runs a plangit case three times more through rsswrap and records
// its peak memory. (A process started by this test would count the test's
// own memory as its peak.)
func (b *bench) peak(t *timing, run func(int) (time.Duration, int64)) {
	b.wrap = true
	defer func() { b.wrap = false }()
	for i := range 3 {
		_, rss := run(1000 + i)
		t.maxRSS = max(t.maxRSS, rss)
	}
}

// pair times a against c, alternating which goes first, runs times each,
// after one untimed run of each to warm the page cache.
func (b *bench) pair(runs int, a, c func(i int) (time.Duration, int64)) (*timing, *timing) {
	ta, tc := &timing{}, &timing{}
	a(-1) // warm the page cache and the binary
	c(-1)
	for i := range runs {
		first, second := a, c
		tf, ts := ta, tc
		if i%2 == 1 {
			first, second, tf, ts = c, a, tc, ta
		}
		d, _ := first(i)
		tf.times = append(tf.times, d)
		d, _ = second(i)
		ts.times = append(ts.times, d)
	}
	return ta, tc
}

func (b *bench) record(r row) {
	if r.isSize {
		r.ratio = float64(r.sizeA) / float64(r.sizeB)
	} else {
		r.ratio = float64(r.ta.median()) / float64(r.tb.median())
	}
	gross := 2 * r.budget
	if r.grossAt > 0 {
		gross = r.grossAt
	}
	switch {
	case r.limit > 0 && r.ta.median() > 2*r.limit:
		r.note = "GROSS REGRESSION"
		b.failed = true
	case r.limit > 0 && r.ta.median() >= r.limit:
		r.note = "over budget"
		if os.Getenv("PLANGIT_BENCH_STRICT") != "" {
			b.failed = true
		}
	case r.limit > 0:
		r.note = "ok"
	case r.ratio > gross:
		r.note = "GROSS REGRESSION"
		b.failed = true
	case r.budget == 0:
		r.note = "reported" // no budget: a figure to read beside its row's
	case r.ratio > r.budget:
		r.note = "over budget"
		if os.Getenv("PLANGIT_BENCH_STRICT") != "" {
			b.failed = true
		}
	default:
		r.note = "ok"
	}
	b.results = append(b.results, r)
}

// benchPlan is a plan as a long agent session leaves it: phases of steps
// that need the one before, and a last phase of independent steps.
func benchPlan(t *testing.T, now time.Time) *plan.State {
	p, err := plan.New("bench", "Add caching to UserService", "cache user lookups without changing the public API", nil, now, false)
	if err != nil {
		t.Fatal(err)
	}
	for ph := 1; ph <= benchPhases; ph++ {
		p.AddPhase(fmt.Sprintf("Phase %d of the work", ph), "", now)
		for i := 1; i <= benchSteps/benchPhases; i++ {
			spec := plan.StepSpec{Text: fmt.Sprintf("Change pkg/file%d_%d.go and run the tests", ph, i), Phase: strconv.Itoa(ph)}
			if n := len(p.Steps()); n > 0 {
				spec.Needs = []string{p.Steps()[n-1].ID}
			}
			if _, err := p.AddStep(spec, now); err != nil {
				t.Fatal(err)
			}
		}
	}
	p.AddPhase("Independent checks", "", now)
	for i := 1; i <= benchFree; i++ {
		if _, err := p.AddStep(plan.StepSpec{Text: fmt.Sprintf("Check case %d", i), Phase: strconv.Itoa(benchPhases + 1)}, now); err != nil {
			t.Fatal(err)
		}
	}
	st := &plan.State{Plan: p}
	st.Findings.Add(plan.Finding{Category: plan.CatCode, Title: "GetUser is the hot path", Source: "service.go:42", Content: "70% of calls, all uncached"}, now)
	st.Errors.Record(plan.ErrorRecord{Tool: "Bash", Message: "go test ./...: TestCache timed out after 30s", Step: "3"}, now)
	return st
}

// makeSession creates a session of revs revisions in root: the plan, then
// step changes (start, progress, done) through the first benchSteps steps,
// round and round, as an agent's work makes them.
func makeSession(t *testing.T, root, id string, revs int) *repo.Session {
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	s, _, err := repo.Project{Root: root}.Create(id, benchPlan(t, now), plan.Change{Op: "init", Summary: "init"}, repo.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < revs; i++ {
		now = now.Add(time.Second)
		o := repo.Options{Now: now, Meta: repo.Meta{Actor: "agent"}}
		_, err := s.Update(o, func(st *plan.State) (plan.Change, error) {
			id := strconv.Itoa((i/7)%benchSteps + 1)
			return st.Plan.SetProgress(id, plan.Progress{Current: i%7 + 1, Total: 8}, now)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func dirSize(t *testing.T, dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// benchWork is the directory a run works in: PLANGIT_BENCH_DIR, kept for a
// look afterwards (it must be empty), else a temporary one.
func benchWork(t *testing.T) string {
	work := os.Getenv("PLANGIT_BENCH_DIR")
	if work == "" {
		return t.TempDir()
	}
	if entries, _ := os.ReadDir(work); len(entries) > 0 {
		t.Fatalf("PLANGIT_BENCH_DIR %s is not empty", work)
	}
	return work
}

// newBench builds plangit, and rsswrap to read peak memory with, in work,
// and sets the environment every timed process gets.
func newBench(t *testing.T, work string) *bench {
	b := &bench{t: t, bin: filepath.Join(work, "plangit"), rsswrap: filepath.Join(work, "rsswrap")}
	home := filepath.Join(work, "home")
	os.MkdirAll(home, 0o755)
	b.env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "PLANGIT_ACTOR=agent",
		"GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com")
	b.build(map[string]string{b.bin: ".", b.rsswrap: "./testdata/rsswrap"})
	return b
}

// build builds each package into its binary, as the README installs plangit.
func (b *bench) build(bins map[string]string) {
	for bin, pkg := range bins {
		build := exec.Command("go", "build", "-trimpath", "-o", bin, pkg)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			b.t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
}

func TestBench(t *testing.T) {
	t.Parallel()
	runs := envInt("PLANGIT_BENCH_RUNS", 41)
	big := envInt("PLANGIT_BENCH_REVS", 10000)
	work := benchWork(t)
	b := newBench(t, work)
	hookBin := filepath.Join(work, "plangit-hook")
	emptyHook := filepath.Join(work, "emptyhook")
	b.build(map[string]string{hookBin: "./cmd/plangit-hook", emptyHook: "./testdata/emptyhook"})

	// Sessions of 10, 1,000 and big revisions, each in its own project.
	sizes := []int{10, 1000, big}
	if big <= 1000 {
		sizes = []int{10, big}
	}
	roots := map[int]string{}
	for _, n := range sizes {
		start := time.Now()
		roots[n] = filepath.Join(work, fmt.Sprintf("p%d", n))
		makeSession(t, roots[n], "s", n)
		os.WriteFile(filepath.Join(roots[n], repo.DirName, "active"), []byte("s\n"), 0o644)
		// The last phase's steps need nothing: under the default strict
		// phase order they would wait for the chained phases before them.
		os.WriteFile(filepath.Join(roots[n], repo.DirName, "config.json"), []byte(`{"phase_order": "free"}`+"\n"), 0o644)
		t.Logf("prepared a session of %d revisions in %s", n, time.Since(start).Round(time.Millisecond))
	}
	// Preparing writes tens of megabytes; flush them now, so that their
	// writeback does not land on the timed runs.
	if err := exec.Command("sync").Run(); err != nil {
		t.Logf("sync: %v", err)
	}
	small := roots[10]
	smallDir := filepath.Join(small, repo.DirName, "plans", "s")
	pg := func(root string, stdin []byte, args ...string) func(int) (time.Duration, int64) {
		return func(int) (time.Duration, int64) {
			return b.run(root, stdin, append([]string{b.bin}, args...)...)
		}
	}
	// planning-with-files' hook, given the payload of the call it stands
	// beside: a host pipes the payload to every hook it runs.
	shellHook := func(in []byte) func(int) (time.Duration, int64) {
		return func(int) (time.Duration, int64) {
			return b.run(smallDir, in, "sh", "-c", "cat task_plan.md 2>/dev/null | head -30")
		}
	}

	// Read-only hooks against planning-with-files' shell hook, on the same plan.
	payload := func(event, extra string) []byte {
		return []byte(fmt.Sprintf(`{"session_id":"s","transcript_path":"/dev/null","cwd":%q,"permission_mode":"default","hook_event_name":%q%s}`, small, event, extra))
	}
	pre := payload("PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run the tests"},"tool_use_id":"toolu_01"`)
	prompt := payload("UserPromptSubmit", `,"prompt":"add a test for cache expiry"`)
	// plangit hook itself answers these where plangit-hook is not installed
	// beside it (hooks install then writes plangit hook): reported, with
	// no budget of its own — the design's is for the hooks as installed
	// with plangit-hook, the rows below — and failing only at 3×.
	for _, c := range []struct {
		name, event string
		in          []byte
	}{{"plangit hook pre-tool-use, without the hook binary (exec form)", "pre-tool-use", pre}, {"plangit hook user-prompt-submit, without the hook binary (exec form)", "user-prompt-submit", prompt}} {
		ta, tb := b.pair(runs, pg(small, c.in, "hook", c.event), shellHook(c.in))
		b.peak(ta, pg(small, c.in, "hook", c.event))
		b.record(row{name: c.name, a: "plangit hook " + c.event, b: `sh -c 'cat task_plan.md \| head -30'`, ta: ta, tb: tb, hasRSS: true, grossAt: 3.0})
	}
	// The floor for any hook in Go: a program that reads the payload and
	// answers nothing, started as the hook binary is in each form.
	{
		floor := func(int) (time.Duration, int64) { return b.run(small, pre, emptyHook) }
		ta, tb := b.pair(runs, floor, shellHook(pre))
		b.record(row{name: "floor: a Go program that reads the payload and exits (exec form)", a: "emptyhook", b: `sh -c 'cat task_plan.md \| head -30'`, ta: ta, tb: tb, grossAt: 3.0})
		floor = func(int) (time.Duration, int64) { return b.run(small, pre, "sh", "-c", emptyHook) }
		ta, tb = b.pair(runs, floor, shellHook(pre))
		b.record(row{name: "floor: a Go program that reads the payload and exits (both through sh -c)", a: "sh -c emptyhook", b: `sh -c 'cat task_plan.md \| head -30'`, ta: ta, tb: tb, grossAt: 3.0})
	}
	// The hook binary as hooks install sets it up: for Claude Code in exec
	// form (no shell); for Codex CLI, a shell-form host, its command line
	// through sh -c, as planning-with-files' users run the peer, and
	// through the shell Codex itself runs it with (codexShell), the peer
	// through the same one.
	codex := b.installed("codex")
	userShell := codexShell()
	t.Logf("Codex CLI would run its hooks through %q -c (\"\": PowerShell, not timed)", userShell)
	codexPayload := func(event, extra string) []byte {
		return []byte(fmt.Sprintf(`{"session_id":"s","transcript_path":"/home/dev/.codex/sessions/2026/11/24/rollout-2026-11-24T09-00-00-s.jsonl","cwd":%q,"hook_event_name":%q,"model":"gpt-5.5-codex","turn_id":"turn-7","permission_mode":"default"%s}`, small, event, extra))
	}
	for _, c := range []struct {
		name, event string
		in, codexIn []byte
	}{
		{"hook binary pre-tool-use", "PreToolUse", pre, codexPayload("PreToolUse", `,"tool_name":"Bash","tool_use_id":"call_1","tool_input":{"command":"go test ./..."}`)},
		{"hook binary user-prompt-submit", "UserPromptSubmit", prompt, codexPayload("UserPromptSubmit", `,"prompt":"add a test for cache expiry"`)},
	} {
		exec := func(int) (time.Duration, int64) { return b.run(small, c.in, hookBin, c.event) }
		ta, tb := b.pair(runs, exec, shellHook(c.in))
		b.peak(ta, exec)
		b.record(row{name: c.name + " (exec form, Claude Code)", a: "plangit-hook " + c.event, b: `sh -c 'cat task_plan.md \| head -30'`, ta: ta, tb: tb, budget: 0.9, hasRSS: true})
		groups := codex.Hooks[c.event]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 || !strings.HasPrefix(groups[0].Hooks[0].Command, hookBin+" ") {
			t.Fatalf("Codex's %s hook, as installed, is not plangit-hook: %+v", c.event, groups)
		}
		command := groups[0].Hooks[0].Command
		shown := strings.Replace(command, hookBin, "plangit-hook", 1)
		shell := func(int) (time.Duration, int64) { return b.run(small, c.codexIn, "sh", "-c", command) }
		ta, tb = b.pair(runs, shell, shellHook(c.codexIn))
		b.record(row{name: c.name + " (shell form, Codex CLI's command line, both through sh -c)", a: "sh -c '" + shown + "'", b: `sh -c 'cat task_plan.md \| head -30'`, ta: ta, tb: tb, budget: 1.2})
		if name := shellType(userShell); userShell != "" && name != "sh" {
			// Codex CLI itself runs the command line through the user's
			// shell; the peer through the same one.
			viaUser := func(int) (time.Duration, int64) { return b.run(small, c.codexIn, userShell, "-c", command) }
			peerViaUser := func(int) (time.Duration, int64) {
				return b.run(smallDir, c.codexIn, userShell, "-c", "cat task_plan.md 2>/dev/null | head -30")
			}
			ta, tb = b.pair(runs, viaUser, peerViaUser)
			b.record(row{name: c.name + " (shell form, Codex CLI as it runs hooks: both through the user's shell, " + name + " -c)",
				a: name + " -c '" + shown + "'", b: name + ` -c 'cat task_plan.md \| head -30'`, ta: ta, tb: tb, budget: 1.2})
		}
		if c.event == "PreToolUse" {
			// What Codex's entry ran before it ran the hook binary:
			// reported, failing only at 3×.
			before := func(int) (time.Duration, int64) {
				return b.run(small, c.codexIn, "sh", "-c", b.bin+" hook PreToolUse --host codex")
			}
			ta, tb = b.pair(runs, before, shellHook(c.codexIn))
			b.record(row{name: "plangit hook pre-tool-use, without the hook binary (shell form, Codex CLI's command line, both through sh -c)", a: "sh -c 'plangit hook PreToolUse --host codex'", b: `sh -c 'cat task_plan.md \| head -30'`, ta: ta, tb: tb, grossAt: 3.0})
		}
	}
	b.npmHook(runs, work, small, pre)
	if revs := revCount(t, smallDir); revs != 10 {
		t.Fatalf("read-only hooks committed: %d revisions, want 10", revs)
	}

	b.turn(runs, work, small)

	// A step change against git add + commit making the same edit in a
	// plain repository. The peer's edit is written before it is timed.
	peer := filepath.Join(work, "peer")
	gitRun := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = peer, b.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(peer, 0o755)
	gitRun("init", "-q", "-b", "main")
	for _, f := range []string{"task_plan.md", "findings.md", "errors.md"} {
		data, _ := os.ReadFile(filepath.Join(smallDir, f))
		os.WriteFile(filepath.Join(peer, f), data, 0o644)
	}
	gitRun("add", "-A")
	gitRun("commit", "-q", "-m", "init")
	// Each run completes the first free step; an untimed reopen comes first.
	free := strconv.Itoa(benchSteps + 1)
	completed := map[int]bool{}
	done := func(n int) func(int) (time.Duration, int64) {
		return func(int) (time.Duration, int64) {
			if completed[n] {
				wrap := b.wrap
				b.wrap = false
				b.run(roots[n], nil, b.bin, "step", "reopen", free)
				b.wrap = wrap
			}
			completed[n] = true
			return b.run(roots[n], nil, b.bin, "step", "done", free, "--result", "checked")
		}
	}
	gitPair := func(i int) (time.Duration, int64) {
		data, _ := os.ReadFile(filepath.Join(smallDir, "task_plan.md"))
		os.WriteFile(filepath.Join(peer, "task_plan.md"), append(data, fmt.Sprintf("<!-- %d -->\n", i)...), 0o644)
		return b.run(peer, nil, "sh", "-c", "git add -A && git commit -q -m msg")
	}
	// Both launched through sh -c, as a shell-form hook or a script runs
	// them; then both without a shell, the git pair as two processes.
	doneShell := func(int) (time.Duration, int64) {
		if completed[10] {
			wrap := b.wrap
			b.wrap = false
			b.run(roots[10], nil, b.bin, "step", "reopen", free)
			b.wrap = wrap
		}
		completed[10] = true
		return b.run(roots[10], nil, "sh", "-c", b.bin+" step done "+free+" --result checked")
	}
	ta, tb := b.pair(runs, doneShell, gitPair)
	b.record(row{name: "step change (both through sh -c)", a: "sh -c 'plangit step done N'", b: "sh -c 'git add -A && git commit'", ta: ta, tb: tb, budget: 0.8})
	gitExec := func(i int) (time.Duration, int64) {
		data, _ := os.ReadFile(filepath.Join(smallDir, "task_plan.md"))
		os.WriteFile(filepath.Join(peer, "task_plan.md"), append(data, fmt.Sprintf("<!-- exec %d -->\n", i)...), 0o644)
		d1, r1 := b.run(peer, nil, "git", "add", "-A")
		d2, r2 := b.run(peer, nil, "git", "commit", "-q", "-m", "msg")
		return d1 + d2, max(r1, r2)
	}
	ta, tb = b.pair(runs, done(10), gitExec)
	b.peak(ta, done(10))
	b.record(row{name: "step change (both without a shell)", a: "plangit step done N", b: "git add -A, then git commit (two processes)", ta: ta, tb: tb, budget: 0.8, hasRSS: true})
	for _, n := range sizes[1:] {
		ta, tb := b.pair(runs, done(n), done(10))
		b.peak(ta, done(n))
		b.record(row{name: fmt.Sprintf("step change at %d revisions (both without a shell)", n), a: fmt.Sprintf("at %d", n), b: "at 10", ta: ta, tb: tb, budget: 1.2, hasRSS: true})
	}
	// The same change as the plan grows; the small run times the largest
	// plan only.
	planSteps := []int{1, 40, 200}
	if big <= 1000 {
		planSteps = []int{200}
	}
	b.planSizes(runs, work, planSteps)
	b.claims(runs, work)
	b.snapshots(runs, work, []int{200, 20000})

	// log against git log --oneline, both at the largest session.
	bigDir := filepath.Join(roots[big], repo.DirName, "plans", "s")
	ta, tb = b.pair(runs, pg(roots[big], nil, "log"), func(int) (time.Duration, int64) {
		return b.run(bigDir, nil, "git", "log", "--oneline")
	})
	b.peak(ta, pg(roots[big], nil, "log"))
	b.record(row{name: fmt.Sprintf("log at %d revisions (both without a shell)", big), a: "plangit log", b: "git log --oneline", ta: ta, tb: tb, budget: 1.5, hasRSS: true})

	// gc against git gc, each on a fresh copy of the largest session as
	// plangit's automatic packing left it.
	fresh := func(name string) string {
		dir := filepath.Join(work, name)
		os.RemoveAll(dir)
		if out, err := exec.Command("cp", "-a", roots[big], dir).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v\n%s", err, out)
		}
		return dir
	}
	gcPlangit := func(int) (time.Duration, int64) { return b.run(fresh("gc-plangit"), nil, b.bin, "gc") }
	gcGit := func(int) (time.Duration, int64) {
		return b.run(filepath.Join(fresh("gc-git"), repo.DirName, "plans", "s"), nil, "git", "gc", "-q")
	}
	gcRuns := max(runs/4, 5) // each run copies the session first
	ta, tb = b.pair(gcRuns, gcPlangit, gcGit)
	b.peak(ta, gcPlangit)
	b.peak(tb, gcGit)
	b.record(row{name: fmt.Sprintf("gc at %d revisions (both without a shell)", big), a: "plangit gc", b: "git gc", ta: ta, tb: tb, budget: 2.0, hasRSS: true})

	// Size against the same repository after git gc.
	copyDir := filepath.Join(work, "gc")
	if out, err := exec.Command("cp", "-a", bigDir, copyDir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	gc := exec.Command("git", "gc", "-q")
	gc.Dir, gc.Env = copyDir, b.env
	if out, err := gc.CombinedOutput(); err != nil {
		t.Fatalf("git gc: %v\n%s", err, out)
	}
	b.record(row{name: fmt.Sprintf("size at %d revisions", big), a: "plangit", b: "after git gc", isSize: true,
		sizeA: dirSize(t, filepath.Join(bigDir, ".git")), sizeB: dirSize(t, filepath.Join(copyDir, ".git")), budget: 1.5})

	b.report(runs)
	if b.failed {
		t.Fail()
	}
}

// TestBenchPlanSize runs only the rows of a step change by plan size:
//
//	go test -tags bench -run '^TestBenchPlanSize$' -v .
func TestBenchPlanSize(t *testing.T) {
	t.Parallel()
	work := benchWork(t)
	b := newBench(t, work)
	runs := envInt("PLANGIT_BENCH_RUNS", 41)
	b.planSizes(runs, work, []int{1, 40, 200})
	b.report(runs)
	if b.failed {
		t.Fail()
	}
}

// TestBenchClaims runs only the row of next --claim:
//
//	go test -tags bench -run '^TestBenchClaims$' -v .
func TestBenchClaims(t *testing.T) {
	t.Parallel()
	work := benchWork(t)
	b := newBench(t, work)
	runs := envInt("PLANGIT_BENCH_RUNS", 41)
	b.claims(runs, work)
	b.report(runs)
	if b.failed {
		t.Fail()
	}
}

// TestBenchSnapshots runs only the rows of a step change's code snapshot:
//
//	go test -tags bench -run '^TestBenchSnapshots$' -v .
func TestBenchSnapshots(t *testing.T) {
	t.Parallel()
	work := benchWork(t)
	b := newBench(t, work)
	runs := envInt("PLANGIT_BENCH_RUNS", 41)
	b.snapshots(runs, work, []int{200, 20000})
	b.report(runs)
	if b.failed {
		t.Fail()
	}
}

// Many agents on one plan: claimSteps ready steps (phase_order free),
// of which claimLive are held by other agents' live claims.
const (
	claimSteps = 400
	claimLive  = 20
)

// claims times next --claim, which starts the first ready step no claim
// holds and claims it, on a plan of claimSteps steps with claimLive live
// claims, against plain next on the same plan — next --also, since the
// claimed steps are in progress — which starts the same step without a
// claim; both through sh -c. An untimed step release (after next --claim)
// or step reopen (after next) puts the step back after each run, so the
// plan keeps its claims and its size.
func (b *bench) claims(runs int, work string) {
	t := b.t
	now := time.Now().UTC()
	p, err := plan.New("bench", "Add caching to UserService", "cache user lookups without changing the public API", nil, now, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= claimSteps; i++ {
		if (i-1)%20 == 0 {
			p.AddPhase(fmt.Sprintf("Phase %d of the work", len(p.Phases)+1), "", now)
		}
		if _, err := p.AddStep(plan.StepSpec{Text: fmt.Sprintf("Change pkg/file%d.go and run the tests", i), Phase: p.Phases[len(p.Phases)-1].ID}, now); err != nil {
			t.Fatal(err)
		}
	}
	root := filepath.Join(work, "claims")
	s, _, err := (repo.Project{Root: root}).Create("s", &plan.State{Plan: p}, plan.Change{Op: "init", Summary: "init"}, repo.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	// The other agents' claims, with leases that outlast the benchmark.
	for i := 1; i <= claimLive; i++ {
		agent := fmt.Sprintf("agent-%d", i)
		o := repo.Options{Now: now, Meta: repo.Meta{Actor: "agent", Agent: agent}}
		if _, err := s.Update(o, func(st *plan.State) (plan.Change, error) {
			return st.Plan.Claim(strconv.Itoa(i), plan.ClaimOpts{Agent: agent, Lease: plan.MaxLease}, now)
		}); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(root, repo.DirName, "active"), []byte("s\n"), 0o644)
	os.WriteFile(filepath.Join(root, repo.DirName, "config.json"), []byte(`{"phase_order": "free"}`+"\n"), 0o644)
	exec.Command("sync").Run()
	b.run(root, nil, b.bin, "gc")

	next := strconv.Itoa(claimLive + 1) // the step both start
	commits := 0                        // since the last gc
	untimed := func(args ...string) {
		wrap := b.wrap
		b.wrap = false
		b.run(root, nil, append([]string{b.bin}, args...)...)
		b.wrap = wrap
	}
	// Each run and each reset commits a revision, and a session packs
	// itself every 64 revisions: in this fixed order of runs every pack
	// would land on the same side. An untimed gc every 60 commits keeps
	// the packs out of the timed runs of both.
	reset := func(args ...string) {
		untimed(args...)
		if commits += 2; commits >= 60 {
			untimed("gc")
			commits = 0
		}
	}
	claim := func(int) (time.Duration, int64) {
		d, rss := b.run(root, nil, "sh", "-c", b.bin+" next --claim --agent bench")
		reset("step", "release", next, "--agent", "bench")
		return d, rss
	}
	plain := func(int) (time.Duration, int64) {
		d, rss := b.run(root, nil, "sh", "-c", b.bin+" next --also")
		reset("step", "reopen", next)
		return d, rss
	}
	ta, tb := b.pair(runs, claim, plain)
	b.peak(ta, claim)
	b.record(row{name: fmt.Sprintf("next --claim, %d-step plan, %d live claims (both through sh -c)", claimSteps, claimLive),
		a: "sh -c 'plangit next --claim'", b: "sh -c 'plangit next --also'", ta: ta, tb: tb, budget: 1.2, hasRSS: true})
	dir := filepath.Join(root, repo.DirName, "plans", "s")
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	if live := len(st.Plan.Held("bench", time.Now())); live != 0 || len(st.Plan.Claimed()) != claimLive {
		t.Fatalf("after the runs the plan has %d claims (%d of bench's), want the %d it started with", len(st.Plan.Claimed()), live, claimLive)
	}
	repotest.Check(t, dir)
}

// snapshots times what a code snapshot adds to a step change, on git
// projects of each number of files (repotest.CodeProject: nested
// directories, ignored build output, three modified and three untracked
// files, committed and packed), beside git stash create on the same tree.
// A round runs three processes, in an order that turns each round, all
// without a shell: plangit step done N with code_snapshots on, the same
// with it off, and git stash create. Before each, untimed, one tracked
// file changes — a different one each time — and for the two step
// changes a step reopen puts the step back (under the same setting, so
// that the snapshot timed is of that one change). The snapshot's cost is
// each round's on minus its off; its budget is 1.2× git stash create at
// 20,000 files, and 50 ms at 200, where starting git is most of git's
// time.
func (b *bench) snapshots(runs int, work string, sizes []int) {
	t := b.t
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for _, n := range sizes {
		root := filepath.Join(work, fmt.Sprintf("code%d", n))
		start := time.Now()
		tracked := repotest.CodeProject(t, root, n)
		if _, _, err := (repo.Project{Root: root}).Create("s", benchPlan(t, now), plan.Change{Op: "init", Summary: "init"}, repo.Options{Now: now}); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(root, repo.DirName, "active"), []byte("s\n"), 0o644)
		setting := func(on bool) {
			conf := `{"phase_order": "free", "code_snapshots": "off"}`
			if on {
				conf = `{"phase_order": "free", "code_snapshots": "on"}`
			}
			os.WriteFile(filepath.Join(root, repo.DirName, "config.json"), []byte(conf+"\n"), 0o644)
		}
		exec.Command("sync").Run()
		t.Logf("prepared a git project of %d files in %s", n, time.Since(start).Round(time.Millisecond))
		edits := 0
		change := func() {
			edits++
			p := filepath.Join(root, filepath.FromSlash(tracked[edits*31%len(tracked)]))
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(p, fmt.Appendf(data, "// edit %d\n", edits), 0o644)
		}
		free := strconv.Itoa(benchSteps + 1)
		completed := false
		commits := 0
		done := func(on bool) func(int) (time.Duration, int64) {
			return func(int) (time.Duration, int64) {
				wrap := b.wrap
				b.wrap = false
				setting(on)
				if completed {
					b.run(root, nil, b.bin, "step", "reopen", free)
				}
				// A session packs itself every 64 revisions: an untimed gc
				// keeps the packs out of the timed runs.
				if commits += 2; commits >= 60 {
					b.run(root, nil, b.bin, "gc")
					commits = 0
				}
				change()
				b.wrap = wrap
				completed = true
				return b.run(root, nil, b.bin, "step", "done", free, "--result", "checked")
			}
		}
		stash := func(int) (time.Duration, int64) {
			change()
			return b.run(root, nil, "git", "stash", "create")
		}
		on, off, peer := b.triple(runs, done(true), done(false), stash)
		b.peak(on, done(true))
		cost := &timing{}
		for i := range on.times {
			cost.times = append(cost.times, on.times[i]-off.times[i])
		}
		r := row{name: fmt.Sprintf("code snapshot of a step change, %d files (all without a shell)", n),
			a: "step done N, code_snapshots on minus off", b: "git stash create", ta: cost, tb: peer, hasRSS: true}
		cost.maxRSS = on.maxRSS
		if n >= 20000 {
			r.budget = 1.2
		} else {
			r.limit = 50 * time.Millisecond
		}
		b.record(r)
		b.record(row{name: fmt.Sprintf("step change in a git project of %d files, code_snapshots on against off (all without a shell)", n),
			a: "step done N, on", b: "step done N, off", ta: on, tb: off, grossAt: 100})
		// Every run with code_snapshots on took a snapshot of its change.
		store := filepath.Join(root, repo.DirName, "plans", "s", ".git", "code")
		if out, err := exec.Command("git", "-C", store, "rev-list", "--count", "refs/heads/snapshots").Output(); err != nil {
			t.Fatalf("the code store: %v", err)
		} else if got, _ := strconv.Atoi(strings.TrimSpace(string(out))); got < runs {
			t.Fatalf("the code store holds %d snapshots after %d runs with code_snapshots on", got, runs)
		}
		if out, err := exec.Command("git", "-C", root, "stash", "list").Output(); err != nil || len(out) > 0 {
			t.Fatalf("the project's stash is not empty: %q %v", out, err)
		}
		repotest.Check(t, filepath.Join(root, repo.DirName, "plans", "s"))
	}
}

// triple times a, c and d in rounds of one run each, their order turning
// each round, after one untimed run of each.
func (b *bench) triple(runs int, a, c, d func(i int) (time.Duration, int64)) (*timing, *timing, *timing) {
	fs := []func(int) (time.Duration, int64){a, c, d}
	ts := []*timing{{}, {}, {}}
	for _, f := range fs {
		f(-1)
	}
	for i := range runs {
		for k := range 3 {
			j := (i + k) % 3
			dur, _ := fs[j](i)
			ts[j].times = append(ts[j].times, dur)
		}
	}
	return ts[0], ts[1], ts[2]
}

// planSizes times a step change — step done of the plan's last step,
// which needs nothing, put back by an untimed step reopen — on plans of
// each number of steps, against git add and commit of the same edit in a
// plain repository holding the same files, launched alike: both through
// sh -c, then both without a shell (the git pair as two processes).
func (b *bench) planSizes(runs int, work string, sizes []int) {
	t := b.t
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for _, n := range sizes {
		root := filepath.Join(work, fmt.Sprintf("steps%d", n))
		st := plantest.Sized(t, n, now)
		if _, _, err := (repo.Project{Root: root}).Create("s", st, plan.Change{Op: "init", Summary: "init"}, repo.Options{Now: now}); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(root, repo.DirName, "active"), []byte("s\n"), 0o644)
		os.WriteFile(filepath.Join(root, repo.DirName, "config.json"), []byte(`{"phase_order": "free"}`+"\n"), 0o644)
		dir := filepath.Join(root, repo.DirName, "plans", "s")
		peer := filepath.Join(work, fmt.Sprintf("peer%d", n))
		os.MkdirAll(peer, 0o755)
		gitRun := func(args ...string) {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = peer, b.env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		gitRun("init", "-q", "-b", "main")
		for _, f := range []string{"task_plan.md", "findings.md", "errors.md"} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(peer, f), data, 0o644)
		}
		gitRun("add", "-A")
		gitRun("commit", "-q", "-m", "init")
		exec.Command("sync").Run()

		free := strconv.Itoa(n)
		completed := false
		reopen := func() {
			if completed {
				wrap := b.wrap
				b.wrap = false
				b.run(root, nil, b.bin, "step", "reopen", free)
				b.wrap = wrap
			}
			completed = true
		}
		done := func(int) (time.Duration, int64) {
			reopen()
			return b.run(root, nil, b.bin, "step", "done", free, "--result", "checked")
		}
		doneShell := func(int) (time.Duration, int64) {
			reopen()
			return b.run(root, nil, "sh", "-c", b.bin+" step done "+free+" --result checked")
		}
		// The peer's edit, written before it is timed: the plan as it
		// stands, and a line that differs each run.
		edit := func(i int) {
			data, err := os.ReadFile(filepath.Join(dir, "task_plan.md"))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(peer, "task_plan.md"), append(data, fmt.Sprintf("<!-- %d -->\n", i)...), 0o644)
		}
		gitShell := func(i int) (time.Duration, int64) {
			edit(i)
			return b.run(peer, nil, "sh", "-c", "git add -A && git commit -q -m msg")
		}
		gitExec := func(i int) (time.Duration, int64) {
			edit(i)
			d1, r1 := b.run(peer, nil, "git", "add", "-A")
			d2, r2 := b.run(peer, nil, "git", "commit", "-q", "-m", "msg")
			return d1 + d2, max(r1, r2)
		}
		size := fmt.Sprintf("%d-step plan", n)
		if n == 1 {
			size = "1-step plan"
		}
		if findings := len(st.Findings); findings > 1 {
			size += fmt.Sprintf(", %d findings", findings)
		}
		ta, tb := b.pair(runs, doneShell, gitShell)
		b.record(row{name: "step change (both through sh -c), " + size, a: "sh -c 'plangit step done N'", b: "sh -c 'git add -A && git commit'", ta: ta, tb: tb, budget: 0.8})
		ta, tb = b.pair(runs, done, gitExec)
		b.peak(ta, done)
		b.record(row{name: "step change (both without a shell), " + size, a: "plangit step done N", b: "git add -A, then git commit (two processes)", ta: ta, tb: tb, budget: 0.8, hasRSS: true})
	}
}

// turn times a realistic turn's hooks — the recorded turn of
// testdata/agentloop/turn.jsonl: a prompt, twelve tool calls (reads, greps,
// a glob, edits, a write, three Bash calls of which one fails) and a stop
// held once — with plangit's hooks exactly as hooks install writes them
// for Claude Code (exec form; plangit-hook beside plangit answers
// PreToolUse, UserPromptSubmit, PostToolUse and Stop), against
// planning-with-files' hooks on the same turn, each hook launched as Claude
// Code launches its entry (sh -c for a command line). A turn's time is the
// sum of its hook processes.
//
// The peer, as its users run it: the hooks of planning-with-files'
// SKILL.md, verbatim, from the package npm publishes (PLANGIT_BENCH_PWF
// names its unpacked directory; .ci/run fetches it, checked against its
// digest), with CLAUDE_SKILL_DIR set to it as Claude Code sets it for a
// skill's hooks, and Debian's default PATH (so python3 is the system's,
// which its hooks use when there is one, not a version manager's shim).
//
// And a lower bound of any file-based planner's hooks: what the peer's
// hooks read and print on the same events (PreToolUse on
// Write|Edit|Bash|Read|Glob|Grep, PostToolUse on Write|Edit,
// UserPromptSubmit and Stop), as the shell commands of its earlier
// releases did, without the script dispatch, plan lookup and checks its
// current release runs first. plangit makes more calls (27 to 18: it
// counts every tool use after it) and records the failed command and its
// fix as revisions; this row says what that costs.
//
// Each plangit turn starts from a copy of the same session (untimed), so
// what a turn commits — the failed command's error, its resolution — is
// the same work each time.
func (b *bench) turn(runs int, work, small string) {
	t := b.t
	settings := b.installed("claude")
	binaryUses := map[string]bool{}
	lines, err := os.ReadFile(filepath.Join("testdata", "agentloop", "turn.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	turnRoot := filepath.Join(work, "turn")
	pwfDir := filepath.Join(work, "pwf")
	var payloads, pwfPayloads [][]byte
	var events, tools []string
	for _, line := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		var p struct {
			Event string `json:"hook_event_name"`
			Tool  string `json:"tool_name"`
		}
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatal(err)
		}
		payloads = append(payloads, []byte(strings.NewReplacer("{{SESSION}}", "s", "{{CWD}}", turnRoot).Replace(line)))
		pwfPayloads = append(pwfPayloads, []byte(strings.NewReplacer("{{SESSION}}", "s", "{{CWD}}", pwfDir).Replace(line)))
		events, tools = append(events, p.Event), append(tools, p.Tool)
	}
	calls := 0
	plangitTurn := func(i int) (time.Duration, int64) {
		wrap := b.wrap
		b.wrap = false
		os.RemoveAll(turnRoot)
		if out, err := exec.Command("cp", "-a", small, turnRoot).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v\n%s", err, out)
		}
		// The copy's files have new inodes, which the glance's key names:
		// a prompt first, untimed, lets plangit write the glance afresh,
		// as the change before a real turn would have.
		b.run(turnRoot, payloads[0], b.bin, "hook", "UserPromptSubmit")
		b.wrap = wrap
		var total time.Duration
		var rss int64
		calls = 0
		for k, payload := range payloads {
			for _, g := range settings.Hooks[events[k]] {
				if !matches(g.Matcher, tools[k]) {
					continue
				}
				for _, h := range g.Hooks {
					argv := []string{"sh", "-c", h.Command}
					if len(h.Args) > 0 {
						argv = append([]string{h.Command}, h.Args...)
					}
					if strings.HasSuffix(argv[0], "plangit-hook") {
						binaryUses[events[k]] = true
					}
					d, r := b.run(turnRoot, payload, argv...)
					total, rss, calls = total+d, max(rss, r), calls+1
				}
			}
		}
		return total, rss
	}
	// The peer's plan: planning-with-files' files for the same plan.
	os.MkdirAll(pwfDir, 0o755)
	for name, src := range map[string]string{"task_plan.md": "pwf_task_plan.md", "progress.md": "pwf_progress.md", "findings.md": ""} {
		var data []byte
		if src != "" {
			if data, err = os.ReadFile(filepath.Join("testdata", "agentloop", src)); err != nil {
				t.Fatal(err)
			}
		}
		os.WriteFile(filepath.Join(pwfDir, name), data, 0o644)
	}
	peerTurn := func(hooks map[string][]pwfHook, env []string, n *int) func(int) (time.Duration, int64) {
		return func(int) (time.Duration, int64) {
			var total time.Duration
			var rss int64
			*n = 0
			saved := b.env
			b.env = env
			defer func() { b.env = saved }()
			for k, payload := range pwfPayloads {
				for _, h := range hooks[events[k]] {
					if !matches(h.matcher, tools[k]) {
						continue
					}
					d, r := b.run(pwfDir, payload, "sh", "-c", h.command)
					total, rss, *n = total+d, max(rss, r), *n+1
				}
			}
			return total, rss
		}
	}

	if dir := os.Getenv("PLANGIT_BENCH_PWF"); dir != "" {
		hooks, version, err := readSkillHooks(dir)
		if err != nil {
			t.Fatalf("PLANGIT_BENCH_PWF: %v", err)
		}
		home := filepath.Join(work, "pwf-home")
		os.MkdirAll(home, 0o755)
		env := append(os.Environ(), "HOME="+home, "CLAUDE_SKILL_DIR="+dir, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
		python := "no python3"
		if _, err := os.Stat("/usr/bin/python3"); err == nil {
			python = "python3 " + "/usr/bin/python3"
		}
		peerCalls := 0
		ta, tb := b.pair(runs, plangitTurn, peerTurn(hooks, env, &peerCalls))
		b.record(row{name: fmt.Sprintf("hook time per turn (as installed: exec form; the peer's SKILL.md hooks through sh -c, %s; %d calls / %d calls)", python, calls, peerCalls),
			a: "plangit's hooks", b: "planning-with-files " + version + "'s hooks", ta: ta, tb: tb, budget: 1.0})
	} else if os.Getenv("PLANGIT_CI") != "" {
		t.Fatal("PLANGIT_BENCH_PWF is not set: .ci/run fetches planning-with-files for the turn's peer")
	} else {
		t.Log("PLANGIT_BENCH_PWF is not set: the turn against planning-with-files as installed is not timed (see .ci/run)")
	}

	emulated := map[string][]pwfHook{
		"UserPromptSubmit": {{"", `if [ -f task_plan.md ]; then echo "[planning-with-files] ACTIVE PLAN"; echo "===BEGIN PLAN DATA==="; head -50 task_plan.md; echo "===END PLAN DATA==="; echo; echo "=== recent progress ==="; tail -20 progress.md 2>/dev/null; echo; echo "[planning-with-files] Read findings.md for research context."; fi`}},
		"PreToolUse":       {{"Write|Edit|Bash|Read|Glob|Grep", `if [ -f task_plan.md ]; then head -30 task_plan.md; fi`}},
		"PostToolUse":      {{"Write|Edit", `echo "[planning-with-files] File updated. If this completes a phase, update task_plan.md status."`}},
		"Stop":             {{"", `total=$(grep -c "### Phase" task_plan.md || true); done=$(grep -cF "**Status:** complete" task_plan.md || true); echo "[planning-with-files] $done/$total phases complete"`}},
	}
	lowCalls := 0
	ta, tb := b.pair(runs, plangitTurn, peerTurn(emulated, b.env, &lowCalls))
	for _, e := range []string{"PreToolUse", "UserPromptSubmit", "PostToolUse", "Stop"} {
		if !binaryUses[e] {
			t.Errorf("the installed hooks do not run plangit-hook beside plangit for %s", e)
		}
	}
	// Not a budget of the design's: reported, and it fails CI only if it
	// doubles from where it stands (README, Performance).
	b.record(row{name: fmt.Sprintf("hook time per turn against a lower bound: the peer's file reads alone, through sh -c (%d calls / %d calls)", calls, lowCalls),
		a: "plangit's hooks", b: "cat, head, tail, grep, echo", ta: ta, tb: tb, grossAt: 4.0})
}

// hookSettings are a host's hooks as hooks install writes them.
type hookSettings struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// installed is what hooks install writes for host, with the plangit under
// test (and plangit-hook beside it).
func (b *bench) installed(host string) hookSettings {
	out, err := exec.Command(b.bin, "hooks", "install", "--host", host, "--print", "--command", b.bin).Output()
	if err != nil {
		b.t.Fatalf("hooks install --host %s --print: %v", host, err)
	}
	var settings hookSettings
	start := bytes.IndexByte(out, '{')
	if start < 0 || json.Unmarshal(out[start:], &settings) != nil {
		b.t.Fatalf("hooks install --host %s --print printed no settings:\n%s", host, out)
	}
	return settings
}

// codexShell is the shell Codex CLI runs a hook's command line through on
// Linux and macOS, with -c: the user's login shell from the password
// database when it is zsh, bash or sh, else bash then zsh (zsh then bash
// on macOS), else /bin/sh (openai/codex: codex-rs/core/src/shell.rs,
// default_user_shell and derive_exec_args; the session builds the hooks'
// shell from it, not a login one, in build_hooks_for_config). "" when the
// login shell is PowerShell, which Codex runs them through with -Command.
// Unlike Codex, it checks that the login shell is there: a benchmark
// cannot time a shell that is not.
func codexShell() string {
	login := ""
	uid := strconv.Itoa(os.Getuid())
	if out, err := exec.Command("getent", "passwd", uid).Output(); err == nil {
		login = passwdShell(string(out), uid)
	} else if data, err := os.ReadFile("/etc/passwd"); err == nil {
		login = passwdShell(string(data), uid)
	}
	switch shellType(login) {
	case "zsh", "bash", "sh":
		if fi, err := os.Stat(login); err == nil && fi.Mode().IsRegular() {
			return login
		}
	case "pwsh", "powershell":
		return ""
	}
	order := []string{"bash", "zsh"}
	if runtime.GOOS == "darwin" {
		order = []string{"zsh", "bash"}
	}
	for _, name := range order {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
		if fi, err := os.Stat("/bin/" + name); err == nil && fi.Mode().IsRegular() {
			return "/bin/" + name
		}
	}
	return "/bin/sh"
}

// shellType is a shell's name as Codex CLI reads it from its path: the
// file's name without its extensions.
func shellType(path string) string {
	name := filepath.Base(path)
	if i := strings.IndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	return name
}

// passwdShell is the login shell of uid in password database lines.
func passwdShell(lines, uid string) string {
	for _, line := range strings.Split(lines, "\n") {
		f := strings.Split(line, ":")
		if len(f) == 7 && f[2] == uid {
			return strings.TrimSpace(f[6])
		}
	}
	return ""
}

// pwfHook is one of planning-with-files' hook commands: its matcher and
// the command line Claude Code runs through sh -c.
type pwfHook struct{ matcher, command string }

func matches(matcher, tool string) bool {
	if matcher == "" || matcher == "*" || tool == "" {
		return true
	}
	ok, _ := regexp.MatchString("^(?:"+matcher+")$", tool)
	return ok
}

// readSkillHooks reads the hooks of the SKILL.md in dir, as its front
// matter declares them for Claude Code —
//
//	hooks:
//	  PreToolUse:
//	    - matcher: "Write|Edit"
//	      hooks:
//	        - type: command
//	          command: "..."
//
// — and the package's version (package.json).
func readSkillHooks(dir string) (map[string][]pwfHook, string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		return nil, "", err
	}
	parts := strings.SplitN(string(b), "---", 3)
	if len(parts) < 3 {
		return nil, "", fmt.Errorf("%s/SKILL.md has no front matter", dir)
	}
	hooks := map[string][]pwfHook{}
	event, matcher, in := "", "", false
	for _, line := range strings.Split(parts[1], "\n") {
		trimmed := strings.TrimSpace(line)
		switch indent := len(line) - len(strings.TrimLeft(line, " ")); {
		case indent == 0:
			in = trimmed == "hooks:"
		case !in:
		case indent == 2 && strings.HasSuffix(trimmed, ":"):
			event, matcher = strings.TrimSuffix(trimmed, ":"), ""
		case strings.HasPrefix(trimmed, "- matcher:"):
			matcher = unquoteYAML(strings.TrimSpace(strings.TrimPrefix(trimmed, "- matcher:")))
		case strings.HasPrefix(trimmed, "command:"):
			hooks[event] = append(hooks[event], pwfHook{matcher, unquoteYAML(strings.TrimSpace(strings.TrimPrefix(trimmed, "command:")))})
		}
	}
	if len(hooks["PreToolUse"]) == 0 {
		return nil, "", fmt.Errorf("%s/SKILL.md declares no PreToolUse hook", dir)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
		json.Unmarshal(b, &pkg)
	}
	return hooks, pkg.Version, nil
}

// unquoteYAML reads a YAML scalar as SKILL.md writes them: double-quoted
// with JSON's escapes, or plain.
func unquoteYAML(s string) string {
	var v string
	if strings.HasPrefix(s, `"`) && json.Unmarshal([]byte(s), &v) == nil {
		return v
	}
	return s
}

func revCount(t *testing.T, dir string) int {
	out, err := exec.Command("git", "-C", dir, "rev-list", "--count", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

func (b *bench) report(runs int) {
	cpu := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(line, ":", 2)[1])
				break
			}
		}
	}
	fmt.Printf("\nplangit whole-process benchmark: %s, %d CPUs, %s/%s, %s; %d runs per case, alternating; times in ms: median (p10–p90, mean)\n\n",
		cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), runs)
	fmt.Println("| case | plangit | peer | ratio | budget | max RSS | |")
	fmt.Println("|---|---|---|---:|---:|---:|---|")
	var peak, gcPeak int64
	for _, r := range b.results {
		if r.isSize {
			fmt.Printf("| %s | %s: %s | %s: %s | %.2f× | ≤ %.1f× | | %s |\n", r.name, r.a, render.Bytes(r.sizeA), r.b, render.Bytes(r.sizeB), r.ratio, r.budget, r.note)
			continue
		}
		rss := ""
		if r.hasRSS {
			rss = fmt.Sprintf("%.1f MB", float64(r.ta.maxRSS)/1024)
			if strings.HasPrefix(r.name, "gc ") {
				// gc is maintenance, not a hook or a change: its own
				// budget, beside git gc's peak.
				gcPeak = r.ta.maxRSS
				rss += fmt.Sprintf(" (git gc %.1f MB)", float64(r.tb.maxRSS)/1024)
			} else {
				peak = max(peak, r.ta.maxRSS)
			}
		}
		budget := "≤ " + strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", r.budget), "0"), ".") + "×"
		if r.budget == float64(int(r.budget)) {
			budget = fmt.Sprintf("≤ %.1f×", r.budget)
		}
		switch {
		case r.limit > 0:
			budget = fmt.Sprintf("< %d ms", r.limit.Milliseconds())
		case r.budget == 0:
			budget = "none"
		case strings.HasPrefix(r.name, "step change ("):
			budget = fmt.Sprintf("< %.1f×", r.budget)
		}
		fmt.Printf("| %s | %s: %s (%s) | %s: %s (%s) | %.2f× | %s | %s | %s |\n",
			r.name, r.a, ms(r.ta.median()), r.ta.spread(), r.b, ms(r.tb.median()), r.tb.spread(), r.ratio, budget, rss, r.note)
	}
	note := "ok"
	switch {
	case peak >= 60*1024:
		note = "GROSS REGRESSION"
		b.failed = true
	case peak >= 30*1024:
		note = "over budget"
	}
	fmt.Printf("| peak memory of any hook, change or log | %.1f MB | | | < 30 MB | | %s |\n", float64(peak)/1024, note)
	note = "ok"
	if gcPeak >= 100*1024 {
		note = "over budget"
		b.failed = true
	}
	fmt.Printf("| peak memory of gc | %.1f MB | | | < 100 MB | | %s |\n\n", float64(gcPeak)/1024, note)
}

// npmHook times plangit-hook as npm installs it — the plangit-hook an
// npm install puts on PATH, through its link — beside the same program
// run directly: the release's (PLANGIT_DIST), or this tree's packed by
// .ci/npm (see npm_test.go). The postinstall made it the native program,
// so the two should take the same time (budget ≤ 1.05×). Without npm the
// row is left out, except under CI, which has npm.
func (b *bench) npmHook(runs int, work, root string, payload []byte) {
	t := b.t
	for _, prog := range []string{"npm", "node"} {
		if _, err := exec.LookPath(prog); err != nil {
			if os.Getenv("PLANGIT_CI") != "" {
				t.Fatalf("%s is not installed: the hook through an npm install is not timed", prog)
			}
			t.Logf("%s is not installed: the hook through an npm install is not timed", prog)
			return
		}
	}
	dir := filepath.Join(work, "npm")
	r := newNPMRelease(t, dir)
	prefix := filepath.Join(dir, "global")
	npmInstall(t, npmEnv(dir), r.pack(t, dir), prefix)
	installed := filepath.Join(prefix, "bin", "plangit-hook")
	if !isNative(t, installed) {
		t.Fatalf("%s is not the native program", installed)
	}
	direct := filepath.Join(r.programs, "plangit-hook")
	ta, tb := b.pair(runs, func(int) (time.Duration, int64) { return b.run(root, payload, installed, "PreToolUse") },
		func(int) (time.Duration, int64) { return b.run(root, payload, direct, "PreToolUse") })
	b.record(row{name: "hook binary pre-tool-use through the npm install (exec form, Claude Code)", a: "npm's plangit-hook PreToolUse", b: "the same program, run directly", ta: ta, tb: tb, budget: 1.05})
}
