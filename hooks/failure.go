package hooks

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/plangit/plangit/hooks/hookwire"
)

// A failed tool use is logged as the project's error only when it is one.
// Two kinds of failure are not:
//
//   - plangit's own: its command in the agent's shell refusing (a step
//     already done, a plan already there), or its MCP tool answering an
//     error. The agent is told what to do instead; errors.md stays the
//     project's.
//   - an exit status that answers a question: a search that found
//     nothing (grep, rg, git grep… exiting 1 with no output), a test that
//     is false (test, [, [[ exiting 1), differences found (diff, cmp, git
//     diff exiting 1).

// Why a failed tool use is not the project's error.
const (
	plangitsOwn = "plangit"
	anAnswer    = "answer"
)

// shellExit reads a shell command's failure as every adapter writes it —
// Claude Code's form (exitFailure): "Exit code N", then the output.
func shellExit(msg string) (code int, output string, ok bool) {
	rest, found := strings.CutPrefix(msg, "Exit code ")
	if !found {
		return 0, "", false
	}
	num, output, _ := strings.Cut(rest, "\n")
	code, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil {
		return 0, "", false
	}
	return code, output, true
}

// notTheProjects says why a failed tool use is not an error of the
// project: plangitsOwn, anAnswer; "" when it is the project's error.
func notTheProjects(tool string, input json.RawMessage, msg string) string {
	if hookwire.PlangitTool(tool) {
		return plangitsOwn
	}
	// A shell command: Bash, or a look-up a host's shell tool ran (Codex
	// CLI's exec_command read as Grep, LS, Read…), whose input is still
	// the command.
	command := inputString(input, "command")
	if tool != "Bash" && command == "" {
		return ""
	}
	if hookwire.RunsPlangit(command) && (hookwire.PlangitOnly(command) || strings.Contains(command, "plangit approve") || plangitRefusal(msg) != "") {
		return plangitsOwn
	}
	code, output, ok := shellExit(msg)
	if !ok || code != 1 {
		return ""
	}
	switch prog := lastProgram(command); prog {
	case "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "git grep", "pgrep":
		if strings.TrimSpace(output) == "" {
			return anAnswer
		}
	case "test", "[", "[[", "diff", "cmp", "git diff":
		return anAnswer
	}
	return ""
}

// plangitRefusal is the line in a failed command's output where plangit
// says what it refused ("plangit: … [CODE]"), or "".
func plangitRefusal(msg string) string {
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "plangit: ") && strings.HasSuffix(line, "]") && strings.LastIndex(line, " [") > 0 {
			return line
		}
	}
	return ""
}

// lastProgram is the program whose exit status a shell command line
// returns: the first word of its last simple command, past variable
// assignments and wrappers (env, command, time, sudo, nice); "git grep"
// and "git diff" for git's.
func lastProgram(command string) string {
	seg := command
	for _, sep := range []string{"&&", "||", ";", "|", "\n"} {
		if i := strings.LastIndex(seg, sep); i >= 0 {
			seg = seg[i+len(sep):]
		}
	}
	words := strings.Fields(seg)
	for len(words) > 0 {
		w := words[0]
		switch {
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "="):
		case w == "env" || w == "command" || w == "time" || w == "sudo" || w == "nice" || w == "!":
		default:
			prog := filepath.Base(strings.Trim(w, `"'`))
			if prog == "git" && len(words) > 1 && (words[1] == "grep" || words[1] == "diff") {
				return "git " + words[1]
			}
			return prog
		}
		words = words[1:]
	}
	return ""
}
