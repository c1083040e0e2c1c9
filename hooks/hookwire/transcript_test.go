package hookwire

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The transcripts below keep the shape of what the hosts wrote in real
// sessions (Claude Code 2.1.328, Codex CLI 0.169.0, Gemini CLI 0.61.0, run
// headless against a scripted model): the lines TurnMessages reads, and
// some it must skip.
var transcripts = map[string]string{
	"claude": `{"type":"queue-operation","operation":"enqueue"}
{"type":"user","message":{"role":"user","content":"Add caching."}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"An earlier turn."}]}}
{"type":"user","message":{"role":"user","content":"Now the lookups."}}
{"type":"attachment","attachment":{"type":"hook_additional_context"}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Reading the service.\n[Step] Read the service"}]}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{}}]}}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"..."}]}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Found it.\n[Step] Write the cache"}]}}
`,
	"codex": `{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>…</environment_context>"}]}}
{"timestamp":"t","type":"event_msg","payload":{"type":"user_message","message":"Now the lookups."}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Now the lookups."}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"[plangit] Started a plan"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Reading the service.\n[Step] Read the service"}]}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"c1"}}
{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed"}}
{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Found it.\n[Step] Write the cache"}]}}
`,
	"gemini": `{"sessionId":"s","projectHash":"h","startTime":"t","kind":"main"}
{"$set":{"messages":[]}}
{"id":"u1","timestamp":"t","type":"user","content":[{"text":"Now the lookups."},{"text":"<session_context>…"}]}
{"id":"g1","timestamp":"t","type":"gemini","content":"Reading the service.\n[Step] Read the service","model":"gemini-2.5-pro"}
{"id":"g1","timestamp":"t","type":"gemini","content":"Reading the service.\n[Step] Read the service","toolCalls":[{"id":"c1","name":"read_file"}]}
{"id":"u2","timestamp":"t","type":"user","content":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"..."}}}]}
{"$set":{"lastUpdated":"t"}}
{"id":"g2","timestamp":"t","type":"gemini","content":"Found it.\n[Step] Write the cache"}
{"id":"g3","timestamp":"t","type":"gemini","content":""}
`,
}

// TestTurnMessages: from each host's transcript, the agent's messages of
// the current turn, once each, oldest first.
func TestTurnMessages(t *testing.T) {
	t.Parallel()
	want := []string{"Reading the service.\n[Step] Read the service", "Found it.\n[Step] Write the cache"}
	for host, text := range transcripts {
		path := filepath.Join(t.TempDir(), host+".jsonl")
		os.WriteFile(path, []byte(text), 0o644)
		if got := TurnMessages(path); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, want %q", host, got, want)
		}
		// A tail cut inside a line starts at the next whole one.
		big := strings.Repeat(`{"type":"progress","data":"`+strings.Repeat("x", 1000)+`"}`+"\n", transcriptTail/1000+10) + text
		os.WriteFile(path, []byte(big), 0o644)
		if got := TurnMessages(path); !reflect.DeepEqual(got, want) {
			t.Errorf("%s, in a long file: %q, want %q", host, got, want)
		}
	}
	for _, path := range []string{"", filepath.Join(t.TempDir(), "missing.jsonl"), t.TempDir()} {
		if got := TurnMessages(path); got != nil {
			t.Errorf("%q: %q", path, got)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("not json\n{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}\n{broken"), 0o644)
	if got := TurnMessages(bad); !reflect.DeepEqual(got, []string{"ok"}) {
		t.Errorf("malformed lines: %q", got)
	}
}
