package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
)

const bearer = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

// TestCommitSummaryRedacted: a change's summary that quotes a tool's text
// (a failed command, a todo) has its credentials redacted in the commit
// message, the revision log and the result the caller prints — by the
// table, and by the project's redact_extra through the plan's rules.
func TestCommitSummaryRedacted(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	os.WriteFile(s.Project.ConfigPath(), []byte(`{"redact_extra": ["acme_[0-9a-f]{8}"]}`), 0o644)
	cfg, err := s.Project.Config()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Update(Options{Now: t0, Meta: Meta{Actor: "hook", Hook: "PostToolUseFailure", Tool: "Bash"}}, func(st *plan.State) (plan.Change, error) {
		st.Plan.Rules = cfg.Rules()
		r, err := st.RecordError(plan.ErrorRecord{Tool: "Bash", Message: "401 acme_0123abcd", Key: `curl -H "Authorization: Bearer ` + bearer + `" https://x`}, t0)
		if err != nil {
			return plan.Change{}, err
		}
		return plan.Change{Op: "error.add", Summary: "error #" + r.ID + ": curl -H 'Authorization: Bearer " + bearer + "' (" + "401 acme_0123abcd)"}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	msg := repotest.Git(t, s.Dir, "log", "-1", "--format=%B")
	revs, err := s.Revisions()
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"the commit message": msg, "the result": res.Commit.Change.Summary, "the revision log": revs[len(revs)-1].Summary, "errors.md": readFile(t, s, plan.ErrorsFile)} {
		if strings.Contains(text, bearer) || strings.Contains(text, "acme_0123abcd") {
			t.Errorf("%s holds the credential: %s", what, text)
		}
		if what != "errors.md" && !strings.Contains(text, "Bearer [redacted]") {
			t.Errorf("%s: %s", what, text)
		}
	}
}

// TestAppendLogRedacted: the project's log keeps no credential a failure
// quoted, by the table or by redact_extra; with a config.json that does
// not read, by the table.
func TestAppendLogRedacted(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	path := filepath.Join(s.Project.Dir(), LogFile)
	os.WriteFile(s.Project.ConfigPath(), []byte(`{"redact_extra": ["acme_[0-9a-f]{8}"]}`), 0o644)
	s.Project.AppendLog(t0, "hook PostToolUseFailure: cannot record `AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI mysql -phunter2` acme_0123abcd\nAuthorization: Bearer "+bearer)
	os.WriteFile(s.Project.ConfigPath(), []byte(`{"redact_extra": [`), 0o644)
	s.Project.AppendLog(t0, "https://u:hunter2@example.com")
	b, _ := os.ReadFile(path)
	for _, secret := range []string{"wJalrXUtnFEMI", "hunter2", "acme_0123abcd", bearer} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the log holds %q:\n%s", secret, b)
		}
	}
	if !strings.Contains(string(b), "https://u:[redacted]@example.com") || !strings.Contains(string(b), "Bearer [redacted]") {
		t.Errorf("the log:\n%s", b)
	}
}

// TestAppendLogRedactedBeforeCut: a long credential that starts just
// before the log line's limit is redacted whole, then the line is cut:
// no part of it shows.
func TestAppendLogRedactedBeforeCut(t *testing.T) {
	t.Parallel()
	s := newTestSession(t)
	jwt := "eyJ" + strings.Repeat("a1B2", 600) + ".eyJzdWIiOiIxMjM0NSJ9.abcdefghijklmnop"
	s.Project.AppendLog(t0, strings.Repeat("x", maxLogLine-30)+" "+jwt)
	b, _ := os.ReadFile(filepath.Join(s.Project.Dir(), LogFile))
	if strings.Contains(string(b), "a1B2a1B2") {
		t.Errorf("the log shows part of the token: …%q", b[len(b)-60:])
	}
}
