package plan

import "strings"

// CheckStepRef refuses text that cannot name any step ("abc", "0", ""),
// before a plan is read: INVALID_ARGUMENT, where a well-formed id that no
// step has is STEP_NOT_FOUND. Well-formed is what Step accepts.
func CheckStepRef(ref string) error {
	if _, ok := stepRef(ref); !ok || strings.TrimSpace(ref) == "" {
		return Errorf(CodeInvalidArgument, "%q is not a step id; step ids are numbers such as 3 (#3 and step_3 work too)", clip(ref)).With("step", clip(ref))
	}
	return nil
}
