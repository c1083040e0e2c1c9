package hooks

import (
	"slices"
	"strconv"
	"strings"

	"github.com/plangit/plangit/repo"
)

// Helpers the other hosts' adapters share (their payload readers, tool
// names and answers are in package hookwire, which the hook binary
// shares). Cursor and Copilot CLI also run the hooks of Claude Code's
// settings files (see native.go).

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
