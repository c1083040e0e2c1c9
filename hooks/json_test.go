package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/repo"
)

// claudeInput is the payload read the plain way, with encoding/json: what
// Claude.Decode must agree with.
type claudeInput struct {
	SessionID            string          `json:"session_id"`
	Cwd                  string          `json:"cwd"`
	HookEventName        string          `json:"hook_event_name"`
	Source               string          `json:"source"`
	Prompt               string          `json:"prompt"`
	ToolName             string          `json:"tool_name"`
	ToolInput            json.RawMessage `json:"tool_input"`
	ToolResponse         json.RawMessage `json:"tool_response"`
	Error                string          `json:"error"`
	IsInterrupt          bool            `json:"is_interrupt"`
	StopHookActive       bool            `json:"stop_hook_active"`
	LastAssistantMessage string          `json:"last_assistant_message"`
	Trigger              string          `json:"trigger"`
	AgentID              string          `json:"agent_id"`
	AgentType            string          `json:"agent_type"`
	TranscriptPath       string          `json:"transcript_path"`
	PermissionMode       string          `json:"permission_mode"`
}

// checkDecode compares Claude.Decode with encoding/json on one payload.
func checkDecode(t *testing.T, payload []byte) {
	t.Helper()
	got, err := (Claude{}).Decode(PreToolUse, payload)
	var c claudeInput
	jerr := json.Unmarshal(payload, &c)
	event := PreToolUse
	if c.HookEventName != "" {
		event = EventName(c.HookEventName)
	}
	if jerr == nil && !slices.Contains(repo.HookEvents, event) {
		jerr = errors.New("unknown event")
	}
	if (err != nil) != (jerr != nil) {
		t.Fatalf("%q: Decode error %v, encoding/json error %v", payload, err, jerr)
	}
	if err != nil {
		return
	}
	want := &Input{Event: event, SessionID: c.SessionID, Cwd: c.Cwd, Source: c.Source, Prompt: c.Prompt,
		ToolName: c.ToolName, ToolInput: c.ToolInput, ToolResponse: c.ToolResponse, Error: c.Error,
		IsInterrupt: c.IsInterrupt, StopHookActive: c.StopHookActive,
		LastAssistantMessage: c.LastAssistantMessage, Trigger: c.Trigger, AgentID: c.AgentID, AgentType: c.AgentType, TranscriptPath: c.TranscriptPath, PermissionMode: c.PermissionMode}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", payload, got, want)
	}
}

var decodeCases = []string{
	`{}`, `null`, ` {"session_id" : "s" , "cwd":"/p"} `, `[]`, `"s"`, `1`, `true`, `{`, `{"a":}`, ``, `{"a":1}x`,
	`{"session_id":"a\"b\\c\u00e9\ud83d\ude00\n"}`, `{"session_id":"caf\u00e9","cwd":"日本"}`,
	`{"Session_ID":"fold","SESSION_ID":"last wins"}`, `{"ſession_id":"long s folds to s"}`,
	`{"session_id":5}`, `{"session_id":null,"stop_hook_active":null}`, `{"stop_hook_active":"yes"}`,
	`{"stop_hook_active":true,"is_interrupt":false}`, `{"tool_input":null}`, `{"tool_input":[1,{"a":"]}"}],"tool_response":"x"}`,
	`{"tool_input":{"command":"echo \"}\"","n":[1e3,-0.5,true,null]},"tool_name":"Bash"}`,
	`{"unknown":{"deep":[[[{}]]]},"prompt":"p"}`, `{"hook_event_name":"pre-tool-use"}`, `{"hook_event_name":"Nope"}`,
	"{\"session_id\":\"\xff\xfe invalid UTF-8\"}", `{"session_id":"a","session_id":"b"}`, "{\"cwd\":\"tab\\tand\\u0000nul\"}",
	`{"\u0073ession_id":"a name escaped","cw\u0064":"/p","TOOL_\u004eAME":"Bash"}`, "{\"session_id\xff\":\"a name of invalid UTF-8\"}",
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, c := range decodeCases {
		checkDecode(t, []byte(c))
	}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "hooks", "*.json"))
	if len(files) == 0 {
		t.Fatal("no payloads in testdata/hooks")
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		checkDecode(t, b)
	}
}

// FuzzClaudeDecode: for any bytes, Claude.Decode and encoding/json agree.
func FuzzClaudeDecode(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "hooks", "*.json"))
	for _, name := range files {
		b, _ := os.ReadFile(name)
		f.Add(b)
	}
	f.Fuzz(checkDecode)
}

// trickyString is a string full of what JSON escapes.
func trickyString(r *rand.Rand) string {
	pieces := []string{"a", " ", `"`, `\`, "\n", "\t", "\r", "\b", "\f", "\x00", "\x1f", "\x7f", "<", ">", "&",
		"é", "日本", "😀", "\u2028", "\u2029", "\xff", "\xe6\x97", "plan", "[plangit] step 3"}
	var b strings.Builder
	for n := r.IntN(12); n > 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// marshalString is encoding/json's escaping with HTML escaping off, as
// the hook answers were written before.
func marshalString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func TestAppendJSONString(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		s := trickyString(r)
		if got, want := string(hookwire.AppendString(nil, s)), marshalString(s); got != want {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	}
}

// FuzzJSONString: appendJSONString escapes as encoding/json does.
func FuzzJSONString(f *testing.F) {
	f.Add("plain")
	f.Add("\"\\\n\t\x00\u2028\xff日本")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(hookwire.AppendString(nil, s)), marshalString(s); got != want {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

// TestEncodeMatchesEncodingJSON: Claude.Encode writes what encoding/json
// writes for the answer's struct, for every event and every kind of answer.
func TestEncodeMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	type specific struct {
		HookEventName            string `json:"hookEventName"`
		AdditionalContext        string `json:"additionalContext,omitempty"`
		PermissionDecision       string `json:"permissionDecision,omitempty"`
		PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	}
	type answer struct {
		Continue           *bool     `json:"continue,omitempty"`
		StopReason         string    `json:"stopReason,omitempty"`
		SystemMessage      string    `json:"systemMessage,omitempty"`
		Decision           string    `json:"decision,omitempty"`
		Reason             string    `json:"reason,omitempty"`
		HookSpecificOutput *specific `json:"hookSpecificOutput,omitempty"`
	}
	events := []string{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop, SubagentStop, PreCompact}
	r := rand.New(rand.NewPCG(3, 4))
	maybe := func() string {
		if r.IntN(2) == 0 {
			return ""
		}
		return trickyString(r)
	}
	for i := 0; i < 3000; i++ {
		in := &Input{Event: events[r.IntN(len(events))]}
		out := &Output{Context: maybe(), Block: r.IntN(2) == 0, Reason: maybe(), Permission: []string{"", "allow", "deny", "ask"}[r.IntN(4)],
			PermissionReason: maybe(), Stop: r.IntN(3) == 0, StopReason: maybe()}
		got, code := (Claude{}).Encode(in, out)
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		if out.Empty() || in.Event == PreCompact {
			// Claude Code discards a PreCompact answer: none is sent.
			if got != nil {
				t.Fatalf("an empty answer wrote %s", got)
			}
			continue
		}
		var a answer
		if out.Context != "" {
			if in.Event == Stop || in.Event == SubagentStop {
				a.SystemMessage = out.Context
			} else {
				a.HookSpecificOutput = &specific{HookEventName: in.Event, AdditionalContext: out.Context}
			}
		}
		if out.Permission != "" && in.Event == PreToolUse {
			if a.HookSpecificOutput == nil {
				a.HookSpecificOutput = &specific{HookEventName: in.Event}
			}
			a.HookSpecificOutput.PermissionDecision = out.Permission
			a.HookSpecificOutput.PermissionDecisionReason = out.PermissionReason
		}
		if out.Block && in.Event == Stop && strings.TrimSpace(out.Reason) != "" {
			// A held Stop is context, which reaches the model once.
			a.HookSpecificOutput = &specific{HookEventName: Stop, AdditionalContext: out.Reason}
		} else if out.Block {
			a.Decision, a.Reason = "block", out.Reason
		}
		if out.Stop {
			no := false
			a.Continue, a.StopReason = &no, out.StopReason
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(a)
		if string(got) != want.String() {
			t.Fatalf("%+v %+v:\n got %s\nwant %s", in, out, got, want.String())
		}
	}
}

// TestGlanceEncoding: a glance reads back as written, whatever its text
// holds, and no part of one is read as a glance.
func TestGlanceEncoding(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	var prev []byte
	for i := 0; i < 500; i++ {
		g := &hookwire.Glance{Key: trickyString(r), Status: "running", Sig: trickyString(r), Cur: trickyString(r),
			Line: hookwire.Part{Key: trickyString(r), Text: trickyString(r)}, Step: hookwire.Part{Key: trickyString(r), Text: trickyString(r)},
			Files: []string{trickyString(r)}, Unfinished: r.IntN(2) == 0,
			Rules: hookwire.Rules{CriticalTools: []string{trickyString(r)}, PlanConfirmation: r.IntN(2) == 0, Budget: r.IntN(5000)}}
		for n := r.IntN(3); n > 0; n-- {
			g.Names = append(g.Names, trickyString(r))
		}
		for n := r.IntN(3); n > 0; n-- {
			g.Errors = append(g.Errors, hookwire.GlanceError{Tool: trickyString(r), ID: trickyString(r), Count: trickyString(r), Key: trickyString(r), Text: trickyString(r)})
		}
		b := g.Encode()
		back, ok := hookwire.DecodeGlance(b)
		if !ok {
			t.Fatalf("does not read back:\n%s", b)
		}
		if !reflect.DeepEqual(back, g) {
			t.Fatalf("read back differently:\n got %+v\nwant %+v", back, g)
		}
		for cut := 0; cut < len(b); cut++ {
			if _, ok := hookwire.DecodeGlance(b[:cut]); ok {
				t.Fatalf("the first %d bytes read as a glance:\n%s", cut, b[:cut])
			}
		}
		// The checksum tells any one byte changed (each of its steps is a
		// bijection of the sum), and a glance written over another and
		// torn part way.
		end := bytes.LastIndex(b, []byte("\nend ")) + 1
		for at := 0; i < 20 && at < end; at++ {
			changed := bytes.Clone(b)
			changed[at] ^= byte(1 + r.IntN(255))
			if _, ok := hookwire.DecodeGlance(changed); ok {
				t.Fatalf("byte %d changed still reads:\n%s", at, changed)
			}
		}
		if prev != nil {
			for at := 1; at < min(len(b), len(prev)); at++ {
				torn := append(bytes.Clone(b[:at]), prev[at:]...)
				if _, ok := hookwire.DecodeGlance(torn); ok && !bytes.Equal(torn, b) && !bytes.Equal(torn, prev) {
					t.Fatalf("a glance torn at %d reads:\n%s", at, torn)
				}
			}
		}
		prev = b
	}
	for _, bad := range []string{"", "{}", hookwire.GlanceVersion + "\nend\n" + "x", "plangit glance 1\nend\n", hookwire.GlanceVersion + "\nkey 1\nend\n", hookwire.GlanceVersion + "\nodd \"x\"\nend\n"} {
		if _, ok := hookwire.DecodeGlance([]byte(bad)); ok {
			t.Errorf("%q read as a glance", bad)
		}
	}
}
