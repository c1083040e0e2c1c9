package repo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
)

// TestAgentsEditMeetsTheGates: under step confirmation, an edit of the
// working files the hooks saw the agent's tool make (Options.EditBy) that
// starts a step is the agent's change: without the person's yes in the
// asked record it is not adopted — the change goes on from the branch,
// and the files are the branch's again — and with it, it is adopted as
// the agent's. The same edit made by the person is theirs, and passes.
func TestAgentsEditMeetsTheGates(t *testing.T) {
	t.Parallel()
	s := newMemorySession(t)
	if err := os.WriteFile(s.Project.ConfigPath(), []byte(`{"step_confirmation": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(time.Hour)
	agent := Options{Now: now, Asked: true, EditBy: "Edit", Meta: Meta{Actor: "hook", Hook: "PostToolUse", Tool: "Edit", Agent: "builder"}}
	start := func(text string) {
		t.Helper()
		path := filepath.Join(s.Dir, plan.PlanFile)
		b, _ := os.ReadFile(path)
		if !strings.Contains(string(b), "- [ ] ○ "+text) {
			t.Fatalf("no pending %q in:\n%s", text, b)
		}
		os.WriteFile(path, []byte(strings.Replace(string(b), "- [ ] ○ "+text, "- [ ] ◐ "+text, 1)), 0o644)
	}
	status := func(id string) plan.StepStatus {
		t.Helper()
		st, err := s.State()
		if err != nil {
			t.Fatal(err)
		}
		_, status := stepText(t, st, id)
		return status
	}

	start("Analyze")
	res, err := s.Update(agent, addFinding("cache"))
	if err != nil {
		t.Fatal(err)
	}
	if !plan.HasCode(res.Refused, plan.CodeConfirmationRequired) || res.Adopted != nil || res.Commit == nil {
		t.Fatalf("the unasked edit: refused %v, adopted %+v, commit %+v", res.Refused, res.Adopted, res.Commit)
	}
	if st := status("1"); st != plan.StepPending {
		t.Fatalf("the unasked edit started step 1: %s", st)
	}
	if files, _ := s.ReadFiles(); !sameFiles(files, mustTree(t, s)) {
		t.Fatal("the working files are not the branch's")
	}

	// Asked first, the person's yes lets it through, once.
	if err := s.AppendPrivate(disk.AskedFile, []byte(disk.AskedLine("start", now.Unix()))); err != nil {
		t.Fatal(err)
	}
	start("Analyze")
	res, err = s.Update(agent, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if err != nil || res.Refused != nil || res.Adopted == nil || res.Adopted.Actor != "agent" {
		t.Fatalf("the edit the person allowed: %v, %+v", err, res)
	}
	revs, _ := s.Revisions()
	if last := revs[len(revs)-1]; last.Actor != "agent" || last.Tool != "Edit" || last.Agent != "builder" || status("1") != plan.StepInProgress {
		t.Fatalf("the agent's edit is recorded as %+v", last)
	}
	if s.Asked("start", now) {
		t.Fatal("the person's yes was not taken")
	}

	// The person's own edit, found by the next change, is theirs.
	start("Design")
	res, err = s.Update(Options{Now: now, Asked: true, Meta: Meta{Actor: "hook", Hook: "Stop"}}, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if err != nil || res.Adopted == nil || res.Adopted.Actor != "user" || status("2") != plan.StepInProgress {
		t.Fatalf("the person's edit: %v, %+v", err, res)
	}
}
