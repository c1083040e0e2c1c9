package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/repo/repotest"
)

// answer is one JSON-RPC answer the server wrote.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (a answer) id() string { return string(a.ID) }

// answers reads the server's output until until says stop (or the output
// ends), every line an answer or a batch of answers.
func (r *rawServer) answers(until func(answer) bool) []answer {
	r.t.Helper()
	var out []answer
	for {
		line, err := r.out.ReadBytes('\n')
		if len(line) > 0 {
			var batch []answer
			if line[0] == '[' {
				if err := json.Unmarshal(line, &batch); err != nil {
					r.t.Fatalf("the server wrote a batch that does not parse: %q", line)
				}
			} else {
				var a answer
				if err := json.Unmarshal(line, &a); err != nil || !strings.HasPrefix(string(line), `{"jsonrpc":"2.0"`) {
					r.t.Fatalf("the server wrote something that is not a JSON-RPC message: %q", line)
				}
				batch = []answer{a}
			}
			for _, a := range batch {
				out = append(out, a)
				if until != nil && until(a) {
					return out
				}
			}
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			r.t.Fatalf("reading the server's output: %v (stderr: %s)", err, r.stderr.Bytes())
		}
	}
}

// TestMalformedInput sends every kind of line that is not one JSON-RPC
// 2.0 message, each followed by a ping: each gets the error JSON-RPC calls
// for (parse error, invalid request — with the line's id when it has a
// usable one), nothing is run, and the server goes on.
func TestMalformedInput(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	mustCLI(t, root, "init", "Wire", "--session", "s1", "--phase", "Work")
	r := startRaw(t, root)
	r.initialize()
	huge := 17 << 20 // more than the 16 MiB the server reads
	if repotest.Long() {
		huge = 50 << 20
	}
	const parse, invalid = -32700, -32600
	type want struct {
		id   string // as the answer carries it
		code int
	}
	cases := []struct {
		name, line string
		want       []want // nothing: no answer (a notification, a blank line)
	}{
		{"not json", `not json`, []want{{"null", parse}}},
		{"an empty batch", `[]`, []want{{"null", invalid}}},
		{"null", `null`, []want{{"null", invalid}}},
		{"a number", `42`, []want{{"null", invalid}}},
		{"a string", `"ping"`, []want{{"null", invalid}}},
		{"a boolean", `true`, []want{{"null", invalid}}},
		{"an open brace", `{`, []want{{"null", parse}}},
		{"a message cut short", `{"jsonrpc":"2.0","id":"cut","method":"pi`, []want{{"null", parse}}},
		{"trailing garbage", `{"jsonrpc":"2.0","id":"tail","method":"ping"} garbage`, []want{{"null", parse}}},
		{"a NUL", "\x00", []want{{"null", parse}}},
		{"nested too deep", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), []want{{"null", parse}}},
		{"a batch", `[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"tools/call","params":{"name":"step","arguments":{"action":"add","text":"batched"}}}]`, []want{{`"b1"`, invalid}, {`"b2"`, invalid}}},
		{"a batch of a notification", `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, nil},
		{"a batch of numbers", `[1,2]`, []want{{"null", invalid}, {"null", invalid}}},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, []want{{"null", invalid}}},
		{"an array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, []want{{"null", invalid}}},
		{"a boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, []want{{"null", invalid}}},
		{"a fraction id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, []want{{"1.5", invalid}}},
		{"an id too large to carry", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, []want{{"123456789012345678901234567890", invalid}}},
		{"a null id", `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"step","arguments":{"action":"add","text":"null id"}}}`, []want{{"null", invalid}}},
		{"two objects on a line", `{"jsonrpc":"2.0","id":"two1","method":"ping"}{"jsonrpc":"2.0","id":"two2","method":"tools/call","params":{"name":"step","arguments":{"action":"add","text":"second on a line"}}}`, []want{{`"two1"`, invalid}, {`"two2"`, invalid}}},
		{"two objects apart", `{"jsonrpc":"2.0","method":"notifications/initialized"} {"jsonrpc":"2.0","method":"notifications/initialized"}`, []want{{"null", invalid}}},
		{"JSON-RPC 1.0", `{"method":"ping","params":[],"id":"v1"}`, []want{{`"v1"`, invalid}}},
		{"version 1.0", `{"jsonrpc":"1.0","id":"v10","method":"ping"}`, []want{{`"v10"`, invalid}}},
		{"version as a number", `{"jsonrpc":2.0,"id":"v2n","method":"ping"}`, []want{{`"v2n"`, invalid}}},
		{"an empty object", `{}`, []want{{"null", invalid}}},
		{"no method, no result", `{"jsonrpc":"2.0","id":"nm"}`, []want{{`"nm"`, invalid}}},
		{"result and error", `{"jsonrpc":"2.0","id":"re","result":{},"error":{"code":1,"message":"x"}}`, []want{{`"re"`, invalid}}},
		{"a number method", `{"jsonrpc":"2.0","id":"mn","method":5}`, []want{{`"mn"`, invalid}}},
		{"a null method", `{"jsonrpc":"2.0","id":"mnull","method":null}`, []want{{`"mnull"`, invalid}}},
		{"string params", `{"jsonrpc":"2.0","id":"ps","method":"tools/call","params":"step"}`, []want{{`"ps"`, invalid}}},
		{"number params", `{"jsonrpc":"2.0","id":"pn","method":"tools/list","params":5}`, []want{{`"pn"`, invalid}}},
		{"an unknown method", `{"jsonrpc":"2.0","id":"um","method":"no/such"}`, []want{{`"um"`, -32601}}},
		{"an unknown tool", `{"jsonrpc":"2.0","id":"ut","method":"tools/call","params":{"name":"nosuch","arguments":{}}}`, []want{{`"ut"`, -32602}}},
		{"a null tool name", `{"jsonrpc":"2.0","id":"nt","method":"tools/call","params":{"name":null}}`, []want{{`"nt"`, -32602}}},
		{"arguments not an object", `{"jsonrpc":"2.0","id":"as","method":"tools/call","params":{"name":"step","arguments":"add"}}`, []want{{`"as"`, 0}}},
		{"a wrong type", `{"jsonrpc":"2.0","id":"wt","method":"tools/call","params":{"name":"step","arguments":{"action":"add","text":5}}}`, []want{{`"wt"`, 0}}},
		{"an answer to nothing", `{"jsonrpc":"2.0","id":"nothing","result":{}}`, nil},
		{"a cancellation of nothing", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nothing"}}`, nil},
		{"an unknown notification", `{"jsonrpc":"2.0","method":"notifications/no-such"}`, nil},
		{"blanks", "   \t ", nil},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":\"u\xff\",\"method\":\"ping\"}", []want{{"\"u\ufffd\"", 0}}},
		{"a line too long", `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"import","arguments":{"content":"` + strings.Repeat("x", huge) + `"}}}`, []want{{`"huge"`, invalid}}},
		{"a line too long, its id cut off", strings.Repeat(" ", huge) + `{"jsonrpc":"2.0","id":"lost","method":"ping"}`, []want{{"null", invalid}}},
	}
	for i, c := range cases {
		sentinel := fmt.Sprintf(`"after-%d"`, i)
		r.send(c.line)
		r.send(`{"jsonrpc":"2.0","id":` + sentinel + `,"method":"ping"}`)
		// A tool call may be answered after the ping: read until both are.
		var got []answer
		pinged := false
		r.answers(func(a answer) bool {
			if a.id() == sentinel {
				pinged = true
			} else {
				got = append(got, a)
			}
			return pinged && len(got) >= len(c.want)
		})
		if !pinged {
			r.cmd.Wait()
			t.Fatalf("%s: the server stopped (%v): %s", c.name, r.cmd.ProcessState, r.stderr.Bytes())
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: %d answers, want %d: %+v", c.name, len(got), len(c.want), got)
			continue
		}
		for _, w := range c.want {
			i := slices.IndexFunc(got, func(a answer) bool {
				code := 0
				if a.Error != nil {
					code = a.Error.Code
				}
				return a.id() == w.id && code == w.code && (a.Error == nil || a.Error.Message != "")
			})
			if i < 0 {
				t.Errorf("%s: no answer with id %s and error %d among %+v", c.name, w.id, w.code, got)
				continue
			}
			got = slices.Delete(got, i, i+1)
		}
	}
	// Alive, and nothing a malformed line held was run.
	r.send(`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"step","arguments":{"action":"add","text":"after all"}}}`)
	if got := r.answers(func(a answer) bool { return a.id() == `"last"` }); got[len(got)-1].Error != nil {
		t.Fatalf("a change after the malformed lines: %+v", got)
	}
	if got := stepTexts(t, root); !slices.Equal(got, []string{"after all"}) {
		t.Errorf("steps %v: a malformed line was run", got)
	}
	r.stdin.Close()
	if err := r.cmd.Wait(); err != nil {
		t.Errorf("the server exited with %v: %s", err, r.stderr.Bytes())
	}
	checkSessions(t, root)
}

// stepTexts is the texts of the plan's steps, in order.
func stepTexts(t *testing.T, root string) []string {
	t.Helper()
	out := mustCLI(t, root, "show", "--all").(map[string]any)
	var texts []string
	for _, ph := range out["plan"].(map[string]any)["phases"].([]any) {
		steps, _ := ph.(map[string]any)["steps"].([]any)
		for _, s := range steps {
			texts = append(texts, s.(map[string]any)["text"].(string))
		}
	}
	return texts
}

// TestCallsInFlight: many changes in flight, a malformed line among them,
// then the end of the input. The server answers the line and goes on,
// applies every change once, answers each exactly once, and exits only
// when every answer is out.
func TestCallsInFlight(t *testing.T) {
	t.Parallel()
	calls := 20
	if repotest.Long() {
		calls = 200
	}
	for _, end := range []string{"bad line", "end of input"} {
		t.Run(end, func(t *testing.T) {
			root := newProject(t)
			mustCLI(t, root, "init", "Wire", "--session", "s1", "--phase", "Work")
			r := startRaw(t, root)
			r.initialize()
			var want []string
			for i := range calls {
				want = append(want, fmt.Sprintf("call %d", i))
			}
			wrote := make(chan error, 1)
			go func() {
				for i, text := range want {
					if i == calls/2 && end == "bad line" {
						r.in.WriteString("not json\n")
					}
					fmt.Fprintf(r.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"step","arguments":{"action":"add","text":%q}}}`+"\n", 1000+i, text)
				}
				err := r.in.Flush()
				if end == "end of input" {
					r.stdin.Close()
				}
				wrote <- err
			}()
			expect := calls
			if end == "bad line" {
				expect++
			}
			seen, total := map[string]int{}, 0
			count := func(a answer) bool {
				seen[a.id()]++
				total++
				return end == "bad line" && total == expect
			}
			r.answers(count)
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
			if end == "bad line" {
				// Alive after the line: every call answered, then the end.
				r.stdin.Close()
				r.answers(count)
				if seen["null"] != 1 {
					t.Errorf("the malformed line got %d answers, want 1", seen["null"])
				}
			}
			for i := range calls {
				if n := seen[fmt.Sprint(1000+i)]; n != 1 {
					t.Errorf("call %d was answered %d times", 1000+i, n)
				}
			}
			if total != expect {
				t.Errorf("%d answers, want %d", total, expect)
			}
			done := make(chan error, 1)
			go func() { done <- r.cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("the server exited with %v: %s", err, r.stderr.Bytes())
				}
			case <-time.After(time.Minute):
				t.Fatal("the server did not exit at the end of its input")
			}
			got2 := stepTexts(t, root)
			slices.Sort(got2)
			slices.Sort(want)
			if !slices.Equal(got2, want) {
				t.Errorf("%d steps, want %d, each once", len(got2), len(want))
			}
			checkSessions(t, root)
		})
	}
}

// TestDuplicateID: a call whose id is in use by a call still running is
// refused (with a null id: its own would answer the other), and the
// running call gets its one answer.
func TestDuplicateID(t *testing.T) {
	t.Parallel()
	root := newProject(t)
	mustCLI(t, root, "init", "Wire", "--session", "s1", "--phase", "Work")
	r := startRaw(t, root)
	r.initialize()
	release := holdLock(t, root)
	r.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"step","arguments":{"action":"add","text":"first"}}}`)
	time.Sleep(100 * time.Millisecond)
	r.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"step","arguments":{"action":"add","text":"again"}}}`)
	got := r.answers(func(answer) bool { return true })
	if got[0].id() != "null" || got[0].Error == nil || got[0].Error.Code != -32600 || !strings.Contains(got[0].Error.Message, "in use") {
		t.Fatalf("a duplicate id: %+v", got[0])
	}
	release()
	got = r.answers(func(a answer) bool { return a.id() == "5" })
	if a := got[len(got)-1]; a.Error != nil {
		t.Fatalf("the first call: %+v", a)
	}
	if texts := stepTexts(t, root); !slices.Equal(texts, []string{"first"}) {
		t.Fatalf("steps %v", texts)
	}
	r.stdin.Close()
	r.cmd.Wait()
	checkSessions(t, root)
}
