package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
)

// BenchmarkHook times each event's decision in-process, on the standard
// plan, from the payload Claude Code sends to the answer: the cost a hook
// adds on top of starting the process. Events that record something (a
// failure, a todo sync, a checkpoint) include their commit.
func BenchmarkHook(b *testing.B) { benchmarkHook(b, false) }

// BenchmarkHookClaims is BenchmarkHook on the standard plan with its step
// in progress claimed by the main agent: what the claims add to each
// event (the agent's own context, the renewal, the gate on its claims).
func BenchmarkHookClaims(b *testing.B) { benchmarkHook(b, true) }

func benchmarkHook(b *testing.B, claims bool) {
	for _, payload := range []string{
		"session_start_startup.json", "user_prompt_submit_other.json", "pre_tool_use_bash.json",
		"pre_tool_use_read.json", "post_tool_use_read.json", "post_tool_use_todowrite.json",
		"post_tool_use_failure_bash.json", "stop.json", "pre_compact.json", "session_end.json",
	} {
		b.Run(strings.TrimSuffix(payload, ".json"), func(b *testing.B) {
			f := newFixture(b)
			f.withPlan(sessionID, func(st *plan.State) {
				if claims {
					st.Plan.Claim("2", plan.ClaimOpts{Agent: mainAgent, Lease: plan.MaxLease}, t0)
				}
			})
			raw, err := os.ReadFile(filepath.Join("..", "testdata", "hooks", payload))
			if err != nil {
				b.Fatal(err)
			}
			raw = bytes.ReplaceAll(raw, []byte("{{CWD}}"), inJSON(f.root))
			raw = bytes.ReplaceAll(raw, []byte("{{SESSION}}"), []byte(sessionID))
			event := strings.SplitN(payload, ".", 2)[0]
			now := t0.Add(time.Hour)
			env := Env{Now: func() time.Time { now = now.Add(time.Second); return now }}
			b.ReportAllocs()
			for b.Loop() {
				if _, code := Run(Claude{}, event, bytes.NewReader(raw), env); code != 0 {
					b.Fatalf("exit code %d", code)
				}
			}
		})
	}
}

// BenchmarkFailureRedacted is BenchmarkHook's post_tool_use_failure_bash
// for a failure that carries credentials in its command and 64 KB of
// output: what redacting them adds to recording the error (the record
// keeps 4 KB of the output, and redacts a little more than that).
func BenchmarkFailureRedacted(b *testing.B) {
	f := newFixture(b)
	f.withPlan(sessionID)
	command, output := leakyCall(leaks[0])
	for len(output) < 64<<10 {
		output += "\n--- FAIL: TestCacheEviction (0.01s)\n    cache_test.go:42: got 3 entries, want 2 (Authorization: Bearer " + leaks[1] + ")"
	}
	raw, _ := json.Marshal(map[string]any{"session_id": sessionID, "cwd": f.root, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
		"tool_input": map[string]string{"command": command}, "error": "Exit code 1\n" + output})
	now := t0.Add(time.Hour)
	env := Env{Now: func() time.Time { now = now.Add(time.Second); return now }}
	b.ReportAllocs()
	for b.Loop() {
		if _, code := Run(Claude{}, "PostToolUseFailure", bytes.NewReader(raw), env); code != 0 {
			b.Fatalf("exit code %d", code)
		}
	}
}
