package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/plan/redact"
)

// TestErrorRecordRedacted: what an error record keeps of a failing call —
// its message (stderr), params (the tool's input) and key (the command) —
// holds no credential, and errors.md written from it holds none; the same
// command failing with a different token, or the same one, counts up one
// record, so the 3-strike rule still sees it.
func TestErrorRecordRedacted(t *testing.T) {
	t.Parallel()
	call := func(token string) ErrorRecord {
		cmd := `curl -sf -H "Authorization: Bearer ` + token + `" https://api.example.com/v1/deploy`
		return ErrorRecord{Tool: "Bash", Key: cmd, Params: `{"command":` + jsonQuote(cmd) + `,"env":{"DEPLOY_TOKEN":"` + token + `"}}`,
			Message: "Exit code 22\ncurl: (22) 401 for token " + token + "\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG mysql --password=hunter2 -phunter2"}
	}
	tokens := []string{"ghp_0123456789abcdefghijABCDEFGHIJ012345", "ghp_ZYXWVUTSRQPONMLKJIHGzyxwvutsrqponm9876", "ghp_ZYXWVUTSRQPONMLKJIHGzyxwvutsrqponm9876"}
	var l ErrorLog
	var rec *ErrorRecord
	for i, tok := range tokens {
		var err error
		if rec, err = l.Record(call(tok), t0.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if len(l) != 1 || rec.Count != 3 {
		t.Fatalf("the same failure with another token or the same is one error counted three times: %d records, count %d", len(l), rec.Count)
	}
	md := string(WriteErrors(l))
	for _, secret := range append(tokens, "wJalrXUtnFEMI", "hunter2") {
		if strings.Contains(md, secret) {
			t.Errorf("errors.md holds %q:\n%s", secret, md)
		}
	}
	for _, kept := range []string{"Authorization: Bearer [redacted]", `"DEPLOY_TOKEN":"[redacted]"`, "--password=[redacted]", "https://api.example.com/v1/deploy"} {
		if !strings.Contains(md, kept) {
			t.Errorf("errors.md lost %q:\n%s", kept, md)
		}
	}
	back, err := ParseErrors([]byte(md))
	if err != nil || len(back) != 1 || back[0].Key != rec.Key {
		t.Fatalf("errors.md reads back: %v %+v", err, back)
	}
	// The same command succeeding, with its token, resolves the error.
	if done := l.ResolveKey("Bash", call(tokens[0]).Key, "it passed", t0.Add(time.Hour)); len(done) != 1 {
		t.Fatalf("the same command with its token in it resolves nothing: %+v", l[0])
	}
}

// TestRecordErrorExtra: a session's own patterns (the plan's rules, from
// redact_extra) redact what the table does not know.
func TestRecordErrorExtra(t *testing.T) {
	t.Parallel()
	r, err := redact.New([]string{`acme_[0-9a-f]{12}`})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := New("s", "T", "", nil, t0, false)
	p.Rules.Redact = r
	st := &State{Plan: p}
	rec, err := st.RecordError(ErrorRecord{Tool: "Bash", Message: "denied: acme_0123456789ab", Key: "deploy --key acme_0123456789ab"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Message != "denied: [redacted]" || rec.Key != "deploy --key [redacted]" {
		t.Fatalf("recorded %q, key %q", rec.Message, rec.Key)
	}
	if done := st.ResolveKey("Bash", "deploy --key acme_0123456789ab", "", t0); len(done) != 1 {
		t.Fatal("the key is redacted the same way when it resolves")
	}
}

func jsonQuote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// TestRedactedBeforeCut: text that is both cut and redacted is redacted
// first, so that a credential cut in two shows no part of itself — in a
// summary clipped to 80 characters, and in an error's message cut to its
// limit with a long credential starting just before it.
func TestRedactedBeforeCut(t *testing.T) {
	t.Parallel()
	token := "0123456789abcdefghijABCDEFGHIJ012345"
	p := samplePlan(t)
	st, err := p.AddStep(StepSpec{Text: strings.Repeat("word ", 13) + "ghp_" + token + " and then more words", Phase: "1"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.RemoveStep(st.ID, t0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.Summary, token[:6]) || !strings.Contains(c.Summary, "ghp_[redacted]") {
		t.Errorf("the summary shows part of the token: %q", c.Summary)
	}
	jwt := "eyJ" + strings.Repeat("a1B2", 600) + ".eyJzdWIiOiIxMjM0NSJ9.abcdefghijklmnop"
	var l ErrorLog
	rec, err := l.Record(ErrorRecord{Tool: "Bash", Key: "deploy", Message: strings.Repeat("x", maxErrorMessage-20) + " " + jwt}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rec.Message, "a1B2a1B2") {
		t.Errorf("the message shows part of the token: …%q", rec.Message[len(rec.Message)-40:])
	}
}
