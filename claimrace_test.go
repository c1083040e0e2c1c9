package main

// The claim race (issue 49, "How it is checked"): many plangit processes
// at once, each an agent calling `next --claim` again and again on one
// plan of ready steps, and then the checks:
//
//   - every step is claimed, once: no two acknowledged claims name one
//     step, and no two one token;
//   - every acknowledged claim is in the history: its revision is on the
//     branch, its commit says which step and which agent, and the plan at
//     HEAD holds the step for that agent with that token;
//   - the history holds the claims and nothing else: one revision a claim;
//   - every call that got no step failed with a code (no ready step free,
//     or a busy session), never silently;
//   - git fsck --strict is clean and git status --porcelain empty.
//
// The same again with leases of 1s, which expire while the race runs: an
// expired claim leaves its step in progress, which next --claim never
// takes (that takes step claim --take), so still every step is claimed
// once. go test ./... runs 6 agents × 10 calls on 40 steps; PLANGIT_LONG=1
// (.ci/run) the 24 × 50 on 400.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
)

// raceSize is the race's size: agents, calls each, steps.
func raceSize() (agents, calls, steps int) {
	if repotest.Long() {
		return 24, 50, 400
	}
	return 6, 10, 40
}

// claimAck is what an acknowledged next --claim --json said.
type claimAck struct {
	agent, step, rev string
	token            int
	since, until     time.Time
}

// raceProject makes a project with one session of n ready steps, in one
// phase, and returns its root.
func raceProject(t *testing.T, n int) string {
	t.Helper()
	now := time.Now().UTC()
	p, err := plan.New("race", "Many agents, one plan", "every step claimed once", nil, now, false)
	if err != nil {
		t.Fatal(err)
	}
	ph, _ := p.AddPhase("Work", "", now)
	for i := 1; i <= n; i++ {
		if _, err := p.AddStep(plan.StepSpec{Text: fmt.Sprintf("Change pkg/file%d.go and run its tests", i), Phase: ph.ID}, now); err != nil {
			t.Fatal(err)
		}
	}
	root := t.TempDir()
	if _, _, err := (repo.Project{Root: root}).Create("race", &plan.State{Plan: p}, plan.Change{Op: "init", Summary: "init"}, repo.Options{Now: now}); err != nil {
		t.Fatal(err)
	}
	return root
}

// pgEnv is the environment every plangit process of these tests gets:
// its own home, no system git config, and a lock wait long enough that
// the race is one of claims, not of the lock.
func pgEnv(t *testing.T, extra ...string) []string {
	return append(append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_OPTIONAL_LOCKS=0",
		"PLANGIT_ACTOR=agent", "PLANGIT_LOCK_WAIT=120s", "PLANGIT_AGENT=", "PLANGIT_NOW="), extra...)
}

// pgRun runs plangit in dir and returns its exit code and output.
func pgRun(t *testing.T, bin, dir string, env []string, args ...string) (int, []byte, []byte) {
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.Bytes(), errb.Bytes()
	} else if err != nil {
		t.Error(err)
		return -1, nil, nil
	}
	return 0, out.Bytes(), errb.Bytes()
}

// pgMust runs plangit and fails the test unless it succeeds.
func pgMust(t *testing.T, bin, dir string, env []string, args ...string) []byte {
	t.Helper()
	code, out, errb := pgRun(t, bin, dir, env, args...)
	if code != 0 {
		t.Fatalf("plangit %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errb)
	}
	return out
}

// claimReply is next --claim --json's answer, success or failure.
type claimReply struct {
	Success bool `json:"success"`
	Data    struct {
		Rev    string `json:"rev"`
		Change struct {
			Op   string `json:"op"`
			Step string `json:"step"`
		} `json:"change"`
		Step struct {
			ID     string      `json:"id"`
			Status string      `json:"status"`
			Claim  *plan.Claim `json:"claim"`
		} `json:"step"`
	} `json:"data"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func TestClaimRace(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	bin := buildPlangit(t)
	agents, calls, steps := raceSize()
	for _, c := range []struct {
		name, lease string
		span        time.Duration // how long an agent's pauses between its calls add up to
	}{
		{"lease 15m", "15m", 0},
		// Claims are stamped to the second: a race whose claims span more
		// than two seconds sees a 1s lease end while claims are still made.
		{"leases of 1s expiring", "1s", 4500 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			claimRace(t, bin, agents, calls, steps, c.lease, c.span)
		})
	}
}

// claimRace runs agents processes at once, each making calls calls of
// next --claim with lease, pausing between them for about span/calls,
// on a plan of steps ready steps; then checks what they were told
// against the history.
func claimRace(t *testing.T, bin string, agents, calls, steps int, lease string, span time.Duration) {
	root := raceProject(t, steps)
	env := pgEnv(t, "PLANGIT_SESSION=race")
	dir := filepath.Join(root, repo.DirName, "plans", "race")
	revsBefore := repotest.RevCount(t, dir)

	var mu sync.Mutex
	var acks []claimAck
	refusals := map[string]int{}
	start := time.Now()
	var wg sync.WaitGroup
	for w := 1; w <= agents; w++ {
		agent := fmt.Sprintf("w%d", w)
		rng := rand.New(rand.NewPCG(uint64(w), 49))
		wg.Go(func() {
			for range calls {
				if pace := span / time.Duration(calls); pace > 0 {
					time.Sleep(pace/2 + time.Duration(rng.Int64N(int64(pace))))
				}
				code, out, errb := pgRun(t, bin, root, env, "next", "--claim", "--agent", agent, "--lease", lease, "--json")
				var r claimReply
				if err := json.Unmarshal(out, &r); err != nil {
					t.Errorf("%s: next --claim: exit %d, no JSON answer: %v\n%s%s", agent, code, err, out, errb)
					continue
				}
				mu.Lock()
				switch {
				case code == 0 && r.Success:
					if r.Data.Change.Op != "step.claim" || r.Data.Step.Claim == nil || r.Data.Step.ID != r.Data.Change.Step || r.Data.Step.Status != "in_progress" {
						t.Errorf("%s: next --claim succeeded without a claim:\n%s", agent, out)
					} else if r.Data.Step.Claim.Agent != agent {
						t.Errorf("%s: next --claim answered a claim of %s:\n%s", agent, r.Data.Step.Claim.Agent, out)
					} else {
						c := r.Data.Step.Claim
						acks = append(acks, claimAck{agent: agent, step: r.Data.Step.ID, rev: r.Data.Rev, token: c.Token, since: c.Since, until: c.Until})
					}
				case code != 0 && !r.Success:
					// The refusals a racing agent may get: every ready
					// step taken, or (though the wait is long) a
					// session too busy.
					switch r.Error.Code {
					case string(plan.CodeInvalidStatus):
						if !strings.HasPrefix(r.Error.Message, "no step is ready to claim") && !strings.HasPrefix(r.Error.Message, "no ready step is free") {
							t.Errorf("%s: next --claim refused for another reason: %s", agent, r.Error.Message)
						}
					case string(plan.CodeLockTimeout):
					default:
						t.Errorf("%s: next --claim failed with %s: %s", agent, r.Error.Code, r.Error.Message)
					}
					refusals[r.Error.Code]++
				default:
					t.Errorf("%s: next --claim: exit %d with success %v:\n%s%s", agent, code, r.Success, out, errb)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	t.Logf("%d agents × %d calls on %d steps, lease %s: %d claims, refusals %v, in %s", agents, calls, steps, lease, len(acks), refusals, took.Round(time.Millisecond))
	if t.Failed() {
		return
	}

	// Every step claimed once: as many claims as steps, no step or token twice.
	bySteps, byTokens := map[string]claimAck{}, map[int]claimAck{}
	for _, a := range acks {
		if prev, ok := bySteps[a.step]; ok {
			t.Errorf("step %s claimed twice: by %s (token %d) and %s (token %d)", a.step, prev.agent, prev.token, a.agent, a.token)
		}
		if prev, ok := byTokens[a.token]; ok {
			t.Errorf("token %d issued twice: to %s for step %s and %s for step %s", a.token, prev.agent, prev.step, a.agent, a.step)
		}
		bySteps[a.step], byTokens[a.token] = a, a
	}
	if len(bySteps) != steps {
		t.Errorf("%d of %d steps claimed (%d attempts)", len(bySteps), steps, agents*calls)
	}
	// With short leases, claims expired while others were still made.
	if span > 0 && len(acks) > 0 {
		first, last := acks[0].until, acks[0].since
		for _, a := range acks {
			first, last = minTime(first, a.until), maxTime(last, a.since)
		}
		if !first.Before(last) {
			t.Errorf("no lease of %s expired during the race: the first ended %s, the last claim was made %s", lease, first, last)
		}
	}

	// Every acknowledged claim in the history: one revision each, the
	// acknowledged one, naming its step and agent.
	if got := repotest.RevCount(t, dir); got != revsBefore+len(acks) {
		t.Errorf("%d revisions after %d acknowledged claims on %d: the history holds something else", got, len(acks), revsBefore)
	}
	logged := map[string]string{} // revision → subject and Plangit-Step trailer
	for _, entry := range strings.Split(repotest.Git(t, dir, "log", "--format=%H %s%x00%(trailers:key=Plangit-Step,valueonly)%x01"), "\x01") {
		entry = strings.TrimSpace(entry)
		if rev, rest, ok := strings.Cut(entry, " "); ok {
			logged[rev] = rest
		}
	}
	for _, a := range acks {
		msg, ok := logged[a.rev]
		subject, trailer, _ := strings.Cut(msg, "\x00")
		switch {
		case !ok:
			t.Errorf("%s's claim of step %s (revision %s) is not on the branch", a.agent, a.step, a.rev)
		case !strings.HasPrefix(subject, fmt.Sprintf("step %s: pending → in_progress, claimed by %s (lease %s, token %d)", a.step, a.agent, lease, a.token)):
			t.Errorf("revision %s of %s's claim of step %s says %q", a.rev, a.agent, a.step, subject)
		case strings.TrimSpace(trailer) != a.step+" (pending → in_progress)":
			t.Errorf("revision %s of %s's claim of step %s has Plangit-Step %q", a.rev, a.agent, a.step, trailer)
		}
	}
	// The plan at HEAD holds each step for the agent told it had it.
	var shown struct {
		Data struct {
			Plan struct {
				Phases []struct {
					Steps []struct {
						ID     string      `json:"id"`
						Status string      `json:"status"`
						Claim  *plan.Claim `json:"claim"`
					} `json:"steps"`
				} `json:"phases"`
			} `json:"plan"`
		} `json:"data"`
	}
	if err := json.Unmarshal(pgMust(t, bin, root, env, "show", "--json"), &shown); err != nil {
		t.Fatal(err)
	}
	for _, ph := range shown.Data.Plan.Phases {
		for _, s := range ph.Steps {
			a, ok := bySteps[s.ID]
			switch {
			case !ok:
			case s.Status != "in_progress" || s.Claim == nil:
				t.Errorf("step %s, acknowledged to %s, is %s with claim %v at HEAD", s.ID, a.agent, s.Status, s.Claim)
			case s.Claim.Agent != a.agent || s.Claim.Token != a.token:
				t.Errorf("step %s, acknowledged to %s with token %d, is held by %s with token %d at HEAD", s.ID, a.agent, a.token, s.Claim.Agent, s.Claim.Token)
			}
		}
	}
	repotest.Check(t, dir)
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
