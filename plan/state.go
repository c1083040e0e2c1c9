package plan

// DeliverableFile is the optional final-result file of a session.
const DeliverableFile = "deliverable.md"

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
		return nil, Errorf(CodePlanNotFound, "%s is missing; plangit repair restores it from the last revision", PlanFile)
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
