package plan

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DeliverableFile is the optional final-result file of a session.
const DeliverableFile = "deliverable.md"

// MaxDeliverable is the largest deliverable.md plangit records.
const MaxDeliverable = 1 << 20

// SessionFiles lists, in name order, every file a session records.
var SessionFiles = []string{DeliverableFile, ErrorsFile, FindingsFile, PlanFile}

// State is everything a session records: the plan, its findings, its error
// log and an optional deliverable.
type State struct {
	Plan        *Plan
	Findings    Findings
	Errors      ErrorLog
	Deliverable []byte // kept exactly as written
}

// Files writes the state as the session's files, by name. findings.md and
// errors.md are always written; deliverable.md only when there is one.
func (s *State) Files() map[string][]byte {
	files := map[string][]byte{
		PlanFile:     WritePlan(s.Plan),
		FindingsFile: WriteFindings(s.Findings),
		ErrorsFile:   WriteErrors(s.Errors),
	}
	if len(s.Deliverable) > 0 {
		files[DeliverableFile] = s.Deliverable
	}
	return files
}

// ParseState reads a session's files. task_plan.md must be there; a missing
// findings.md or errors.md is empty.
func ParseState(files map[string][]byte) (*State, error) {
	src, ok := files[PlanFile]
	if !ok {
		return nil, Errorf(CodePlanNotFound, "%s is missing", PlanFile).Hinted("plangit repair restores it from the last revision")
	}
	p, err := ParsePlan(src)
	if err != nil {
		return nil, err
	}
	fs, err := ParseFindings(files[FindingsFile])
	if err != nil {
		return nil, err
	}
	errs, err := ParseErrors(files[ErrorsFile])
	if err != nil {
		return nil, err
	}
	return &State{Plan: p, Findings: fs, Errors: errs, Deliverable: files[DeliverableFile]}, nil
}

// AddFinding records a finding (Findings.Add) under an id never given in
// the session: above the plan's NextFinding and its floor (Plan.Floor).
func (s *State) AddFinding(f Finding, now time.Time) (*Finding, error) {
	added, err := s.Findings.Add(f, now)
	if err != nil {
		return nil, err
	}
	if n, _ := strconv.Atoi(added.ID); n < max(s.Plan.NextFinding, s.Plan.Floor.Findings+1) {
		added.ID = strconv.Itoa(max(s.Plan.NextFinding, s.Plan.Floor.Findings+1))
	}
	if s.Plan.NextFinding > 0 {
		n, _ := strconv.Atoi(added.ID)
		s.Plan.NextFinding = n + 1
	}
	return added, nil
}

// RemoveFindings takes the findings with the given ids out of findings.md
// (history keeps them). Every id must exist, or nothing is removed. Their
// ids are not given again: the session's history holds them (repo), as it
// does those an undo took back.
func (s *State) RemoveFindings(ids []string) (Change, error) {
	if len(ids) == 0 {
		return Change{}, Errorf(CodeInvalidArgument, "say which findings: plangit findings lists them with their ids")
	}
	var gone []*Finding
	for _, id := range ids {
		i := slices.IndexFunc(s.Findings, func(f *Finding) bool { return f.ID == strings.TrimPrefix(strings.TrimSpace(id), "#") })
		if i < 0 {
			return Change{}, Errorf(CodeInvalidArgument, "findings.md holds no finding %s; plangit findings lists them with their ids", Clip(id)).With("finding", id)
		}
		if !slices.Contains(gone, s.Findings[i]) {
			gone = append(gone, s.Findings[i])
		}
	}
	s.Findings = slices.DeleteFunc(s.Findings, func(f *Finding) bool { return slices.Contains(gone, f) })
	if len(gone) == 1 {
		f := gone[0]
		return Change{Op: "finding.rm", Step: f.Step, Summary: fmt.Sprintf("finding %s removed: %s (%s)", f.ID, Clip(f.Title), f.Category)}, nil
	}
	names := make([]string, len(gone))
	for i, f := range gone {
		names[i] = f.ID
	}
	return Change{Op: "finding.rm", Summary: "findings removed: " + strings.Join(names, ", ")}, nil
}

// RecordError logs an error (ErrorLog.Record), redacted by the plan's
// rules (Rules.Redact: the table and the project's redact_extra); a new
// record gets an id above the plan's NextError.
func (s *State) RecordError(e ErrorRecord, now time.Time) (*ErrorRecord, error) {
	next := s.Errors.nextID()
	rec, err := s.Errors.record(e, now, s.Plan.Rules.Redact)
	if err != nil {
		return nil, err
	}
	if n, _ := strconv.Atoi(rec.ID); n == next && n < max(s.Plan.NextError, s.Plan.Floor.Errors+1) {
		rec.ID = strconv.Itoa(max(s.Plan.NextError, s.Plan.Floor.Errors+1))
	}
	if s.Plan.NextError > 0 {
		n, _ := strconv.Atoi(rec.ID)
		s.Plan.NextError = max(s.Plan.NextError, n+1)
	}
	return rec, nil
}

// ResolveKey resolves the open errors of tool on key (ErrorLog.ResolveKey),
// the key redacted by the plan's rules as RecordError redacted theirs.
func (s *State) ResolveKey(tool, key, resolution string, now time.Time) ErrorLog {
	return s.Errors.resolveKey(tool, key, resolution, now, s.Plan.Rules.Redact)
}

// SetDeliverable records the session's deliverable, the final result of the
// work as a markdown document: line endings become "\n", invalid UTF-8 is
// replaced, and the text ends with one newline. Empty text removes it.
func (s *State) SetDeliverable(text []byte) (Change, error) {
	if len(text) > MaxDeliverable*2 {
		return Change{}, tooLong("the deliverable", len(text), MaxDeliverable)
	}
	text = bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n"))
	if !utf8.Valid(text) {
		text = bytes.ToValidUTF8(text, []byte("\uFFFD"))
	}
	text = bytes.TrimRight(bytes.TrimLeft(text, "\n"), " \t\n")
	if len(text) > 0 {
		text = append(text, '\n')
	}
	if len(text) > MaxDeliverable {
		return Change{}, tooLong("the deliverable", len(text), MaxDeliverable)
	}
	if err := s.Plan.settledPlan("deliverable"); err != nil {
		return Change{}, err
	}
	had := len(s.Deliverable) > 0
	if bytes.Equal(text, s.Deliverable) {
		return Change{}, nil
	}
	s.Deliverable = text
	lines := fmt.Sprintf("%d lines", bytes.Count(text, []byte("\n")))
	if lines == "1 lines" {
		lines = "1 line"
	}
	switch {
	case len(text) == 0:
		return Change{Op: "deliverable.rm", Summary: "deliverable: removed"}, nil
	case had:
		return Change{Op: "deliverable.set", Summary: "deliverable: changed (" + lines + ")"}, nil
	}
	return Change{Op: "deliverable.set", Summary: "deliverable: set (" + lines + ")"}, nil
}

// ResolveErrors marks the errors with the given ids resolved — every open
// error when ids is empty — saying how (resolution may be empty). Every id
// must exist; errors resolved already are left as they are.
func (s *State) ResolveErrors(ids []string, resolution string, now time.Time) (Change, error) {
	var done ErrorLog
	if len(ids) == 0 {
		var err error
		if done, err = s.Errors.ResolveAll(resolution, now); err != nil {
			return Change{}, err
		}
	} else {
		for _, id := range ids {
			if s.Errors.ByID(id) == nil {
				_, _, err := s.Errors.Resolve(id, resolution, now)
				return Change{}, err
			}
		}
		for _, id := range ids {
			rec, changed, err := s.Errors.Resolve(id, resolution, now)
			if err != nil {
				return Change{}, err
			}
			if changed {
				done = append(done, rec)
			}
		}
	}
	switch len(done) {
	case 0:
		return Change{}, nil
	case 1:
		e := done[0]
		first, _, _ := strings.Cut(e.Message, "\n")
		return Change{Op: "error.resolve", Step: e.Step, Summary: fmt.Sprintf("error #%s resolved: %s: %s", e.ID, e.Tool, Clip(first))}, nil
	}
	names := make([]string, len(done))
	for i, e := range done {
		names[i] = "#" + e.ID
	}
	return Change{Op: "error.resolve", Summary: fmt.Sprintf("errors resolved: %s", strings.Join(names, ", "))}, nil
}
