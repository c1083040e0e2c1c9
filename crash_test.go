package main

// The crash test: the real plangit binary, killed with SIGKILL in the
// middle of every kind of change — step changes, rollback and undo, hook
// syncs and queued hook events, changes that pack, gc, init — and after
// each kill the next command, then the checks every repository must pass:
//
//   - git fsck --strict finds no error (objects a killed change wrote
//     before its branch moved are unreachable, which fsck reports as
//     dangling; that is not damage, so --no-dangling);
//   - git status --porcelain is empty after the next command: no torn set
//     of working files, nothing adopted as a person's edit;
//   - no temporary file is left after the next change, and no garbage
//     (git count-objects -v) after gc;
//   - every revision a command acknowledged is on the branch;
//   - no commit is attributed to "user" (everything here is the agent's);
//   - a command retried after a kill applies once: no step twice, and a
//     retried --if-rev change whose first run landed gets CONFLICT.
//
// Half the kills stop the process at a named point of a change (the
// test-only PLANGIT_CRASH_AT, see repo/crash.go); the other half after a
// random delay within the time the command takes. go test ./... runs 8
// kills, PLANGIT_LONG=1 (.ci/run) 200, and
// PLANGIT_CRASH_KILLS=1000 go test -run TestCrash -v . a thousand
// (PLANGIT_CRASH_SEED repeats one).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/disk"
	"github.com/plangit/plangit/repo/repotest"
)

// crashPoints are the named points of a change (repo/crash.go).
var crashPoints = []string{"objects", "intent", "ref", "file", "file:2", "file:3", "index", "revlog"}

// crasher runs the campaign against one project.
type crasher struct {
	t        *testing.T
	bin      string
	root     string
	env      []string
	rng      *rand.Rand
	acked    map[string][]string      // session → revisions commands acknowledged
	kills    map[string]int           // kind → kills
	window   map[string]time.Duration // kind → how long its command took unkilled
	landed   int                      // kills after which the change turned out to have landed
	lastKill string
	texts    int
}

// result is one finished command.
type result struct {
	code   int
	out    []byte
	err    []byte
	killed bool
	took   time.Duration
}

// buildPlangit is the plangit program the tests run as a process.
func buildPlangit(t *testing.T) string {
	t.Helper()
	return repotest.Program(repotest.RequirePrograms(t), "plangit")
}

// run runs plangit to its end.
func (c *crasher) run(stdin []byte, env []string, args ...string) result {
	c.t.Helper()
	return c.start(stdin, env, "", 0, args...)
}

// start runs plangit, killing it at crash point point (if set) or after
// delay (if positive).
func (c *crasher) start(stdin []byte, env []string, point string, delay time.Duration, args ...string) result {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Dir = c.root
	cmd.Env = append(slices.Clone(c.env), env...)
	if point != "" {
		cmd.Env = append(cmd.Env, "PLANGIT_CRASH_AT="+point)
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	if delay > 0 {
		timer := time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
	}
	err := cmd.Wait()
	r := result{out: out.Bytes(), err: errb.Bytes(), took: time.Since(begin)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			r.killed = true
		}
	} else if err != nil {
		c.t.Fatal(err)
	}
	return r
}

// must runs plangit and fails the test unless it succeeds.
func (c *crasher) must(args ...string) result {
	c.t.Helper()
	r := c.run(nil, nil, args...)
	if r.code != 0 {
		c.t.Fatalf("plangit %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.out, r.err)
	}
	return r
}

// ack records the revision a --json change printed.
func (c *crasher) ack(session string, r result) {
	var env struct {
		Data struct {
			Rev string `json:"rev"`
		} `json:"data"`
	}
	if json.Unmarshal(r.out, &env) == nil && env.Data.Rev != "" {
		c.acked[session] = append(c.acked[session], env.Data.Rev)
	}
}

// ackHook records the revision a hook's answer names.
var hookRev = regexp.MustCompile(`\(revision ([0-9a-f]{7})\)`)

func (c *crasher) ackHook(session string, r result) {
	if m := hookRev.FindSubmatch(r.out); m != nil {
		c.acked[session] = append(c.acked[session], string(m[1]))
	}
}

func (c *crasher) dir(session string) string {
	return filepath.Join(c.root, repo.DirName, "plans", session)
}

func (c *crasher) git(session string, args ...string) string {
	c.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = c.dir(session)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("after %s: git %s: %v\n%s", c.lastKill, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// kill runs a change that must be killed: at a crash point on even calls,
// after a random delay within its usual time on odd ones. It reports
// whether the process was in fact killed (a crash point the change never
// reaches, or a delay longer than it took, lets it finish; then the
// session must be settled at once).
func (c *crasher) kill(session, kind string, i int, points []string, stdin []byte, env []string, args ...string) (result, bool) {
	c.t.Helper()
	before := c.head(session)
	var r result
	if i%2 == 0 {
		point := points[c.rng.IntN(len(points))]
		c.lastKill = kind + " at " + point
		r = c.start(stdin, env, point, 0, args...)
	} else {
		window, ok := c.window[kind]
		if !ok {
			window = 40 * time.Millisecond
		}
		delay := time.Duration(c.rng.Int64N(int64(window))) + time.Millisecond
		c.lastKill = fmt.Sprintf("%s after %s", kind, delay)
		r = c.start(stdin, env, "", delay, args...)
	}
	if !r.killed {
		c.window[kind] = r.took // the next random kill lands within it
		c.settled(session)
	}
	if r.killed {
		c.kills[kind]++
		if c.head(session) != before {
			c.landed++ // killed after its branch moved
		}
	}
	return r, r.killed
}

// settled checks, after a kill and the next command of any kind, that the
// working files are HEAD's and nothing is left half-written.
func (c *crasher) settled(session string) {
	c.t.Helper()
	if out := c.git(session, "status", "--porcelain"); out != "" {
		c.t.Fatalf("after %s and the next command: git status --porcelain:\n%s", c.lastKill, out)
	}
	if disk.IntentPending(filepath.Join(c.dir(session), ".git", "plangit", "intent")) {
		c.t.Fatalf("after %s and the next command: the intent record is still there", c.lastKill)
	}
}

// check runs every check, after a kill, the next command and a change.
func (c *crasher) check(session string) {
	c.t.Helper()
	c.settled(session)
	if out := c.git(session, repotest.FsckArgs(c.dir(session), "--no-dangling")...); strings.TrimSpace(out) != "" {
		c.t.Fatalf("after %s: git fsck --strict:\n%s", c.lastKill, out)
	}
	log := c.git(session, "log", "--format=%H %(trailers:key=Plangit-Actor,valueonly,separator=)")
	for _, h := range c.acked[session] {
		if !strings.Contains(log, h) {
			c.t.Fatalf("after %s: acknowledged revision %s is not on the branch", c.lastKill, h)
		}
	}
	if strings.Contains(log, " user") {
		c.t.Fatalf("after %s: a commit is attributed to user:\n%s", c.lastKill, c.git(session, "log", "--format=%h %s"))
	}
	plan, err := os.ReadFile(filepath.Join(c.dir(session), "task_plan.md"))
	if err != nil {
		c.t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(plan), "\n") {
		if i := strings.Index(line, "crash-text-"); i >= 0 {
			text := strings.Fields(line[i:])[0]
			if seen[text] {
				c.t.Fatalf("after %s: step %q is in the plan twice", c.lastKill, text)
			}
			seen[text] = true
		}
	}
	c.noTemps(session)
}

// noTemps fails on a temporary file left anywhere in the session.
func (c *crasher) noTemps(session string) {
	c.t.Helper()
	dir := c.dir(session)
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, "tmp-") || strings.HasPrefix(name, "tmp_") || strings.Contains(name, ".tmp") || strings.HasSuffix(name, ".lock") {
			c.t.Fatalf("after %s and the next change: %s is left", c.lastKill, path)
		}
		return nil
	})
}

// readThenChange is what follows most kills: a reader as the next command,
// which must leave the session settled, then a change (by default a new
// step) and every check.
func (c *crasher) readThenChange(reader string, change ...string) {
	c.t.Helper()
	c.must(reader)
	c.settled("s1")
	if len(change) == 0 {
		change = []string{"step", "add", c.text()}
	}
	c.ack("s1", c.must(append([]string{"--json"}, change...)...))
	c.check("s1")
}

func (c *crasher) text() string {
	c.texts++
	return fmt.Sprintf("crash-text-%d", c.texts)
}

// head is the session's branch, read as git would, without running git.
func (c *crasher) head(session string) string {
	b, err := os.ReadFile(filepath.Join(c.dir(session), ".git", "refs", "heads", "main"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func TestCrash(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	kills := 8 // go test ./...: a taste; .ci/run (PLANGIT_LONG) runs 200
	if repotest.Long() {
		kills = 200
	}
	if n, err := strconv.Atoi(os.Getenv("PLANGIT_CRASH_KILLS")); err == nil && n > 0 {
		kills = n
	}
	seed := uint64(time.Now().UnixNano())
	if n, err := strconv.ParseUint(os.Getenv("PLANGIT_CRASH_SEED"), 10, 64); err == nil {
		seed = n
	}
	t.Logf("%d kills, PLANGIT_CRASH_SEED=%d", kills, seed)
	c := &crasher{t: t, bin: buildPlangit(t), root: t.TempDir(), rng: rand.New(rand.NewPCG(seed, 1)),
		acked: map[string][]string{}, kills: map[string]int{}, window: map[string]time.Duration{}}
	home := t.TempDir()
	c.env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0", "PLANGIT_ACTOR=agent", "PLANGIT_SESSION=s1")

	c.must("init", "Crash campaign", "--goal", "survive kill -9", "--phase", "Work", "--session", "s1")
	for i := 1; i <= 4; i++ {
		c.must("step", "add", fmt.Sprintf("Prepared step %d", i))
	}
	c.must("finding", "add", "--category", "insight", "--title", "A first finding", "found")
	c.must("error", "add", "--tool", "Bash", "make: first error")
	c.must("step", "start", "1")
	// @2 and HEAD differ in every file, so a rollback to @2 writes three.

	kinds := []struct {
		name string
		run  func(c *crasher, i int) bool
	}{
		{"step add --if-rev", crashStepAdd},
		{"step change", crashStepChange},
		{"rollback", crashRollback},
		{"undo", crashUndo},
		{"hook sync", crashHookSync},
		{"hook failure", crashHookFailure},
		{"queued hooks", crashQueue},
		{"change that packs", crashPack},
		{"gc", crashGC},
		{"init", crashInit},
	}
	done, tries := 0, 0
	for done < kills {
		if tries++; tries > 6*kills+50 {
			t.Fatalf("only %d of %d runs were killed", done, tries)
		}
		k := kinds[tries%len(kinds)]
		if k.run(c, done) {
			done++
		}
	}
	var report []string
	for _, k := range kinds {
		report = append(report, fmt.Sprintf("%s %d", k.name, c.kills[k.name]))
	}
	t.Logf("%d kills (%s), %d of them after the branch moved; %d runs in all", done, strings.Join(report, ", "), c.landed, tries)
}

// crashStepAdd kills `step add TEXT --if-rev HEAD` and retries it: the
// retry adds the step if the first run did not land, and gets CONFLICT if
// it did.
func crashStepAdd(c *crasher, i int) bool {
	text, head := c.text(), c.head("s1")
	args := []string{"--json", "step", "add", text, "--if-rev", head}
	if _, killed := c.kill("s1", "step add --if-rev", i, crashPoints, nil, nil, args...); !killed {
		return false
	}
	r := c.run(nil, nil, args...)
	switch {
	case r.code == 0:
		c.ack("s1", r)
	case bytes.Contains(r.out, []byte("CONFLICT")):
		if c.head("s1") == head {
			c.t.Fatalf("after %s: the retry got CONFLICT, but HEAD did not move", c.lastKill)
		}
	default:
		c.t.Fatalf("after %s: the retry failed: %s%s", c.lastKill, r.out, r.err)
	}
	c.check("s1")
	st := c.must("show", "--json")
	if n := bytes.Count(st.out, []byte(`"text": "`+text+`"`)); n != 1 {
		c.t.Fatalf("after %s and a retry: step %q is in the plan %d times", c.lastKill, text, n)
	}
	return true
}

// crashStepChange kills a status change; the next command only reads.
func crashStepChange(c *crasher, i int) bool {
	st := c.must("--json", "show")
	var env struct {
		Data struct {
			Plan struct {
				Phases []struct {
					Steps []struct {
						ID     string `json:"id"`
						Status string `json:"status"`
					} `json:"steps"`
				} `json:"phases"`
			} `json:"plan"`
		} `json:"data"`
	}
	json.Unmarshal(st.out, &env)
	args := []string{"step", "progress", "2", fmt.Sprintf("%d/9", c.rng.IntN(9)+1)}
	for _, ph := range env.Data.Plan.Phases {
		for _, s := range ph.Steps {
			switch s.Status {
			case "pending":
				args = []string{"step", "start", s.ID}
			case "in_progress":
				args = []string{"step", "done", s.ID, "--result", "ok"}
			case "completed":
				args = []string{"step", "reopen", s.ID}
			}
			if c.rng.IntN(3) == 0 {
				goto chosen
			}
		}
	}
chosen:
	if _, killed := c.kill("s1", "step change", i, crashPoints, nil, nil, args...); !killed {
		return false
	}
	c.readThenChange("status")
	return true
}

// crashRollback kills a rollback to @2, which rewrites all three files.
func crashRollback(c *crasher, i int) bool {
	if _, killed := c.kill("s1", "rollback", i, crashPoints, nil, nil, "rollback", "@2"); !killed {
		return false
	}
	c.readThenChange("show", "rollback", "HEAD~1")
	return true
}

// crashUndo kills an undo.
func crashUndo(c *crasher, i int) bool {
	c.ack("s1", c.must("--json", "finding", "add", "--category", "code", "--title", c.text(), "to be undone"))
	if _, killed := c.kill("s1", "undo", i, crashPoints, nil, nil, "undo"); !killed {
		return false
	}
	c.readThenChange("log", "step", "add", c.text())
	return true
}

func todoPayload(root, text, status string) []byte {
	return []byte(fmt.Sprintf(`{"session_id":"s1","transcript_path":"/dev/null","cwd":%q,"permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"TodoWrite","tool_input":{"todos":[{"content":%q,"status":%q,"activeForm":"working"}]},"tool_response":{},"tool_use_id":"toolu_1"}`, root, text, status))
}

// crashHookSync kills a TodoWrite sync and sends it again: a repeated
// todo list changes nothing.
func crashHookSync(c *crasher, i int) bool {
	payload := todoPayload(c.root, c.text(), "in_progress")
	if _, killed := c.kill("s1", "hook sync", i, crashPoints, payload, nil, "hook", "PostToolUse"); !killed {
		return false
	}
	r := c.run(payload, nil, "hook", "PostToolUse")
	if r.code != 0 {
		c.t.Fatalf("after %s: the hook exited %d: %s", c.lastKill, r.code, r.err)
	}
	c.ackHook("s1", r)
	c.check("s1")
	return true
}

// crashHookFailure kills the logging of a failed tool.
func crashHookFailure(c *crasher, i int) bool {
	payload := []byte(fmt.Sprintf(`{"session_id":"s1","transcript_path":"/dev/null","cwd":%q,"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"make %d"},"tool_use_id":"toolu_2","error":"make: *** [%d] Error 1","is_interrupt":false}`, c.root, i, i))
	if _, killed := c.kill("s1", "hook failure", i, crashPoints, payload, nil, "hook", "PostToolUseFailure"); !killed {
		return false
	}
	c.readThenChange("errors")
	return true
}

// crashQueue queues hook events while the test holds the session, then
// kills the command that applies them; the next applies each once.
func crashQueue(c *crasher, i int) bool {
	s, err := repo.Project{Root: c.root}.Open("s1")
	if err != nil {
		c.t.Fatal(err)
	}
	texts := []string{c.text(), c.text(), c.text()}
	release, locked := make(chan struct{}), make(chan struct{})
	finished := make(chan error)
	go func() {
		finished <- s.Locked(5*time.Second, func() error { close(locked); <-release; return nil })
	}()
	<-locked
	for _, text := range texts {
		r := c.run(todoPayload(c.root, text, "pending"), []string{"PLANGIT_LOCK_WAIT=20ms"}, "hook", "PostToolUse")
		if r.code != 0 || len(r.out) != 0 {
			c.t.Fatalf("a hook on a busy session: exit %d, %s%s", r.code, r.out, r.err)
		}
	}
	close(release)
	if err := <-finished; err != nil {
		c.t.Fatal(err)
	}
	points := append([]string{"queue"}, crashPoints...)
	if _, killed := c.kill("s1", "queued hooks", i, points, nil, nil, "show"); !killed {
		return false
	}
	st := c.must("show", "--json")
	for _, text := range texts {
		if n := bytes.Count(st.out, []byte(`"text": "`+text+`"`)); n != 1 {
			c.t.Fatalf("after %s: queued todo %q is in the plan %d times", c.lastKill, text, n)
		}
	}
	c.readThenChange("status")
	return true
}

// crashPack kills a change that packs: the test makes the next commit
// pack by moving the record of the last pack past the branch.
func crashPack(c *crasher, i int) bool {
	packed := filepath.Join(c.dir("s1"), ".git", "plangit", "packed")
	if err := os.WriteFile(packed, []byte("1000000\n"), 0o644); err != nil {
		c.t.Fatal(err)
	}
	points := []string{"pack", "pack", "objects", "ref", "revlog"}
	if _, killed := c.kill("s1", "change that packs", i, points, nil, nil, "step", "progress", "3", fmt.Sprintf("%d/7", c.rng.IntN(7)+1)); !killed {
		return false
	}
	c.ack("s1", c.must("--json", "step", "add", c.text()))
	c.check("s1")
	return true
}

// crashGC kills gc, runs it again, and checks that no garbage is left.
func crashGC(c *crasher, i int) bool {
	if _, killed := c.kill("s1", "gc", i, []string{"pack"}, nil, nil, "gc"); !killed {
		return false
	}
	c.must("gc")
	c.check("s1")
	if out := c.git("s1", "count-objects", "-v"); !strings.Contains(out, "\ngarbage: 0\n") {
		c.t.Fatalf("after %s and gc: git count-objects -v:\n%s", c.lastKill, out)
	}
	return true
}

// crashInit kills the init of a new session and runs it again.
func crashInit(c *crasher, i int) bool {
	id := fmt.Sprintf("init-%d", c.texts)
	c.texts++
	args := []string{"--json", "init", "Started under fire", "--phase", "One", "--phase", "Two", "--session", id}
	env := []string{"PLANGIT_SESSION=" + id}
	_, killed := c.kill(id, "init", i, crashPoints, nil, env, args...)
	r := c.run(nil, env, args...)
	switch {
	case r.code == 0:
		c.ack(id, r)
	case bytes.Contains(r.out, []byte("already has a plan")):
	default:
		c.t.Fatalf("after %s: init again: exit %d\n%s%s", c.lastKill, r.code, r.out, r.err)
	}
	c.run(nil, env, "--session", id, "step", "add", "first")
	c.check(id)
	os.RemoveAll(c.dir(id)) // one session per init
	c.must("use", "s1")
	return killed
}
