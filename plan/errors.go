package plan

import (
	"errors"
	"fmt"

	"github.com/plangit/plangit/plan/redact"
)

// Code is a stable error code. Codes are part of plangit's interface: scripts
// and agents branch on them, so they never change meaning.
type Code string

// The error codes plangit reports.
const (
	CodePlanNotFound       Code = "PLAN_NOT_FOUND"
	CodeSessionNotFound    Code = "SESSION_NOT_FOUND"
	CodeInvalidSessionID   Code = "INVALID_SESSION_ID"
	CodeStepNotFound       Code = "STEP_NOT_FOUND"
	CodePhaseNotFound      Code = "PHASE_NOT_FOUND"
	CodeStepNotEditable    Code = "STEP_NOT_EDITABLE"
	CodeInvalidStatus      Code = "INVALID_STATUS"
	CodeInvalidDependency  Code = "INVALID_DEPENDENCY"
	CodeCircularDependency Code = "CIRCULAR_DEPENDENCY"
	CodePlanNotActive      Code = "PLAN_NOT_ACTIVE"
	CodePlanParseError     Code = "PLAN_PARSE_ERROR"
	CodeRevisionNotFound   Code = "REVISION_NOT_FOUND"
	CodeConflict           Code = "CONFLICT"
	CodeLockTimeout        Code = "LOCK_TIMEOUT"
	CodeInvalidArgument    Code = "INVALID_ARGUMENT"
	CodeIOError            Code = "IO_ERROR"
	CodeInternal           Code = "INTERNAL_ERROR"
	CodeClaimed            Code = "CLAIMED"       // the step is another agent's (plan.Claim)
	CodeInvalidAgent       Code = "INVALID_AGENT" // an agent name plangit does not take
	// CodeConfirmationRequired: the change is the person's to make (plan
	// or step confirmation), and the agent made it.
	CodeConfirmationRequired Code = "CONFIRMATION_REQUIRED"
)

// Error is a domain error carrying a stable Code. Its Message is short and
// lowercase and says what is wrong; its Hint, where there is one, what to
// do about it, which a terminal shows on a line of its own and JSON as the
// error's "hint".
type Error struct {
	Code    Code
	Message string
	Hint    string
	Details map[string]any
	Err     error
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WrapError returns an *Error with the given code that wraps err.
func WrapError(code Code, err error, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if err != nil {
		msg += ": " + err.Error()
	}
	return &Error{Code: code, Message: msg, Err: err}
}

// Error is the message and, after a semicolon, the hint.
func (e *Error) Error() string {
	if e.Hint == "" {
		return e.Message
	}
	return e.Message + "; " + e.Hint
}

// Hinted sets what to do about the error, and returns e.
func (e *Error) Hinted(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// Parts are the message and the hint of err: the first *Error's in its
// chain, or err's text and no hint.
func Parts(err error) (message, hint string) {
	var e *Error
	if errors.As(err, &e) && e.Error() == err.Error() {
		return e.Message, e.Hint
	}
	return err.Error(), ""
}

// Unwrap returns the underlying cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// With records a detail for machine readers (the JSON envelope's details) and
// returns e.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = make(map[string]any, 2)
	}
	e.Details[key] = value
	return e
}

// CodeOf returns the code of the first *Error in err's chain, or
// CodeInternal when there is none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) && e.Code != "" {
		return e.Code
	}
	return CodeInternal
}

// HasCode reports whether err carries the given code.
func HasCode(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// Clip shortens s for quoting in an error message or a summary. It is
// redacted first (the table alone), then cut: a credential cut in two
// would show what the rules no longer see as one.
func Clip(s string) string {
	const max = 80
	s = (*redact.Redactor)(nil).String(s)
	cut, n := len(s), 0
	for i := range s {
		if n == max {
			cut = i
			break
		}
		n++
	}
	if cut == len(s) {
		return s
	}
	return s[:redact.Cut(s, cut)] + "…"
}
