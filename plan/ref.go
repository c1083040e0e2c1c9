package plan

import "strings"

// CheckStepRef refuses text that cannot name any step ("abc", "0", ""),
// before a plan is read: INVALID_ARGUMENT, where a well-formed id that no
// step has is STEP_NOT_FOUND. Well-formed is what Step accepts.
func CheckStepRef(ref string) error {
	if _, ok := stepRef(ref); !ok || strings.TrimSpace(ref) == "" {
		return Errorf(CodeInvalidArgument, "%q is not a step id; step ids are numbers such as 3 (#3 and step_3 work too)", Clip(ref)).With("step", Clip(ref))
	}
	return nil
}

// CheckNoteRef refuses text that cannot name any finding or error (kind
// says which): INVALID_ARGUMENT before a plan is read. Ids are numbers,
// "#3" as well as "3".
func CheckNoteRef(kind, ref string) error {
	if !IsStepID(strings.TrimPrefix(strings.TrimSpace(ref), "#")) {
		return Errorf(CodeInvalidArgument, "%q is not %s id; ids are numbers such as 3", Clip(ref), kind).With(strings.TrimPrefix(strings.TrimPrefix(kind, "an "), "a "), Clip(ref))
	}
	return nil
}
