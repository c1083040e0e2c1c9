// Package render turns plangit's model into what people and agents read:
// terminal text, JSON envelopes, and compact summaries sized for an agent's
// context.
package render

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/plangit/plangit/plan"
)

// Envelope is the one JSON object every command prints with --json.
type Envelope struct {
	Success bool       `json:"success"`
	Data    any        `json:"data,omitempty"`
	Error   *ErrorBody `json:"error,omitempty"`
}

// ErrorBody is an envelope's error.
type ErrorBody struct {
	Code    plan.Code      `json:"code"`
	Message string         `json:"message"`
	Hint    string         `json:"hint,omitempty"` // what to do about it
	Details map[string]any `json:"details"`
}

// JSON writes a success envelope holding data.
func JSON(w io.Writer, data any) error {
	return writeJSON(w, Envelope{Success: true, Data: data})
}

// JSONError writes a failure envelope for err.
func JSONError(w io.Writer, err error) error {
	return writeJSON(w, Envelope{Success: false, Error: ErrorOf(err)})
}

// ErrorOf is err as an envelope's error: its code, message and details.
func ErrorOf(err error) *ErrorBody {
	body := &ErrorBody{Code: plan.CodeOf(err), Details: map[string]any{}}
	body.Message, body.Hint = plan.Parts(err)
	var e *plan.Error
	if errors.As(err, &e) {
		for k, v := range e.Details {
			body.Details[k] = v
		}
	}
	return body
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
