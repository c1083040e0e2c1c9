package repo

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
)

// The gates (plan_confirmation, step_confirmation) are checked here, on
// every change a session commits, whatever way it arrives: approving a
// plan and starting a step under them are the person's (plan.Gated). A
// person is who runs plangit at a terminal (the actor "user"). The agent's
// shell and hooks may make such a change when the agent's host asked the
// person first and they allowed it: the hook that asks writes the asked
// record (.git/plangit/asked: lines of "DEADLINE WHAT", WHAT "approve" or
// "start"), and the change takes the line that answers it, once, before
// its deadline. An edit of the working files the hooks saw the agent's
// tool make (Options.EditBy) is held to the gates as the agent's: one the
// person did not allow is not adopted (Result.Refused).

// gate refuses a change only the person may make, unless the person made
// it, or allowed it when the agent's host asked them.
func gate(s *Session, before, after *plan.Plan, opts Options, now time.Time) error {
	cfg, err := s.Project.Config()
	if err != nil {
		return err
	}
	what, step := plan.Gated(before, after, plan.Gates{Plan: cfg.PlanConfirmation, Step: cfg.StepConfirmation})
	if what == "" || opts.Actor == "user" && opts.EditBy == "" || opts.Asked && takeAsked(s, what, now) {
		return nil
	}
	return plan.GateError(what, step).With("session", s.ID)
}

// takeAsked takes the asked record's line that answers what, if one has
// not passed its deadline, and drops the ones that have. It runs under the
// session lock.
func takeAsked(s *Session, what string, now time.Time) bool {
	path := s.PrivatePath(disk.AskedFile)
	b, err := disk.ReadFile(path)
	if err != nil {
		return false
	}
	var keep bytes.Buffer
	took := false
	for _, line := range strings.Split(string(b), "\n") {
		when, w, _ := strings.Cut(line, " ")
		deadline, err := strconv.ParseInt(when, 10, 64)
		if err != nil || deadline < now.Unix() {
			continue // passed, or not a line
		}
		if !took && w == what {
			took = true
			continue
		}
		keep.WriteString(line + "\n")
	}
	s.WritePrivate(disk.AskedFile, keep.Bytes())
	return took
}

// Asked reports whether the asked record holds a line answering what,
// before its deadline; it takes none (takeAsked does, in the change).
func (s *Session) Asked(what string, now time.Time) bool {
	b, err := disk.ReadFile(s.PrivatePath(disk.AskedFile))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		when, w, _ := strings.Cut(line, " ")
		if deadline, err := strconv.ParseInt(when, 10, 64); err == nil && deadline >= now.Unix() && w == what {
			return true
		}
	}
	return false
}
