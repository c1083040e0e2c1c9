package hooks

import (
	"slices"
	"strconv"
	"strings"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/repo"
)

// Helpers the Cursor and Copilot CLI adapters share: both hosts name
// their tools and spell their tools' parameters their own way, and both
// also run the hooks of Claude Code's settings files (see native.go).

// hostEvent reads a host's event name as plangit's: the host's own
// spelling from the hosts table, or Claude Code's names (the command
// line of a hook installed in Claude Code's settings); "" when it is
// neither.
func hostEvent(host, name string) string {
	if h, err := lookupHost(host); err == nil {
		for _, ev := range h.events {
			if ev.Name == name {
				return ev.Event
			}
		}
	}
	if e := EventName(name); slices.Contains(repo.HookEvents, e) {
		return e
	}
	return ""
}

// exitFailure is the error of a shell tool whose result says its command
// exited non-zero: "Exit code N" and the output, as Claude Code words a
// failed Bash call; "" when the code is 0 or unknown.
func exitFailure(code, output string) string {
	n, err := strconv.Atoi(strings.TrimSpace(code))
	if err != nil || n == 0 {
		return ""
	}
	msg := "Exit code " + strconv.Itoa(n)
	if out := strings.TrimSpace(output); out != "" {
		msg += "\n" + out
	}
	return msg
}

// renameTool maps a host's tool name to the engine's through table; a name
// not in it is kept.
func renameTool(table map[string]string, name string) string {
	if n, ok := table[name]; ok {
		return n
	}
	return name
}

// field is a payload member an adapter reads, by its exact name, into a
// *string, *bool or *json.RawMessage (hookwire.DecodeFields).
type field struct {
	key string
	dst any
}

func decodeFields(payload []byte, fields []field) error {
	fs := make([]hookwire.Field, len(fields))
	for i, f := range fields {
		fs[i] = hookwire.Field{Key: f.key, Dst: f.dst}
	}
	return hookwire.DecodeFields(payload, fs)
}
