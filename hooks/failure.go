package hooks

import (
	"encoding/json"
	"path/filepath"
	"slices"
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
	if hookwire.RunsPlangit(command) && (hookwire.PlangitOnly(command) || strings.Contains(command, "plangit approve") || plangitsFailure(command, msg)) {
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

// plangitsFailure reports whether a failed command line's status is
// plangit's, in the ways an agent writes a plangit command beyond
// PlangitOnly's: with its output redirected (2>/dev/null, 2>&1), piped
// into a filter (| head), after cd or set, with VAR=value before it.
//
//   - Every command of the line is plangit or does no work of the
//     project's (cd, set, export, echo…; a filter plangit's output is
//     piped into): nothing else could have failed.
//   - Or the line is commands joined by && whose last is plangit, and
//     plangit said it refused (its error line, or --json's envelope): every
//     command before the plangit that refused succeeded.
//
// A line with another command after ";" or "||" (plangit step done 9;
// ls cache) is the project's: its status may be that command's.
func plangitsFailure(command, msg string) bool {
	segs, joins := splitCommands(command)
	if len(segs) == 0 {
		return false
	}
	all := true
	for _, seg := range segs {
		if !plangitPipeline(seg) && !harmless(seg) {
			all = false
		}
	}
	if all {
		return true
	}
	for _, j := range joins {
		if j != "&&" {
			return false
		}
	}
	return plangitPipeline(segs[len(segs)-1]) && plangitRefusal(msg) != ""
}

// splitCommands splits a command line into its commands at ;, &&, || and
// newlines, and returns the joins between them. A pipeline stays one.
func splitCommands(command string) (segs, joins []string) {
	rest := command
	for {
		at, join := -1, ""
		for _, sep := range []string{"&&", "||", ";", "\n"} {
			if i := strings.Index(rest, sep); i >= 0 && (at < 0 || i < at) {
				at, join = i, sep
			}
		}
		if at < 0 {
			break
		}
		if seg := strings.TrimSpace(rest[:at]); seg != "" {
			segs = append(segs, seg)
			joins = append(joins, join)
		}
		rest = rest[at+len(join):]
	}
	if seg := strings.TrimSpace(rest); seg != "" {
		segs = append(segs, seg)
	} else if len(joins) > 0 {
		joins = joins[:len(joins)-1]
	}
	return segs, joins
}

// plangitPipeline reports whether one command runs plangit, with its
// output redirected or piped into filters only.
func plangitPipeline(seg string) bool {
	parts := strings.Split(seg, "|")
	if hookwire.Program(parts[0]) != "plangit" {
		return false
	}
	for _, p := range parts[1:] {
		switch hookwire.Program(p) {
		case "head", "tail", "jq", "cat", "less", "more", "grep", "sed", "awk", "wc", "sort", "uniq", "cut", "tr", "tee", "column":
		default:
			return false
		}
	}
	return true
}

// harmless reports whether a command does no work of the project's: it
// moves, sets the shell up or prints.
func harmless(seg string) bool {
	if strings.ContainsAny(seg, "|`$(") {
		return false
	}
	switch hookwire.Program(seg) {
	case "cd", "pushd", "popd", "set", "export", "true", ":", "echo", "printf":
		return true
	}
	return false
}

// plangitRefusal is what plangit said it refused in a failed command's
// output: its error line ("plangit: … [CODE]"), or with --json the
// envelope's message and code ("… [CODE]"); "" when there is neither.
func plangitRefusal(msg string) string {
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "plangit: ") && strings.HasSuffix(line, "]") && strings.LastIndex(line, " [") > 0 {
			return line
		}
	}
	return jsonRefusal(msg)
}

// jsonRefusal reads --json's error envelope, {"success": false, "error":
// {"code", "message"}}, from the start of a failed command's output
// ("Exit code N" first, as every adapter writes it): "message [CODE]", or
// "".
func jsonRefusal(msg string) string {
	if _, out, ok := shellExit(msg); ok {
		msg = out
	}
	start := strings.Index(msg, "{")
	if start < 0 {
		return ""
	}
	var env struct {
		Success *bool `json:"success"`
		Error   struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(strings.NewReader(msg[start:]))
	if dec.Decode(&env) != nil || env.Success == nil || *env.Success || env.Error.Code == "" {
		return ""
	}
	return env.Error.Message + " [" + env.Error.Code + "]"
}

// lastProgram is the program whose exit status a shell command line
// returns: the program of its last simple command (hookwire.Program: past
// assignments, redirections and wrappers); "git grep" and "git diff" for
// git's.
func lastProgram(command string) string {
	seg := command
	for _, sep := range []string{"&&", "||", ";", "|", "\n"} {
		if i := strings.LastIndex(seg, sep); i >= 0 {
			seg = seg[i+len(sep):]
		}
	}
	prog := hookwire.Program(seg)
	if prog == "git" {
		words := hookwire.ShellWords(seg)
		if i := slices.IndexFunc(words, func(w string) bool { return filepath.Base(w) == "git" }); i+1 < len(words) && (words[i+1] == "grep" || words[i+1] == "diff") {
			return "git " + words[i+1]
		}
	}
	return prog
}
