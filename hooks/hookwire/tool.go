package hookwire

import (
	"path/filepath"
	"slices"
	"strings"
)

// ToolKey is what a tool call acts on, by which its errors are known: the
// command of a shell tool, else the file a tool writes; and the command,
// "" for a tool that has none. One pass over the input, which can hold a
// whole file.
func ToolKey(input []byte) (key, command string) {
	var file string
	members(input, func(key, value []byte) error {
		switch string(memberName(key)) {
		case "command":
			command, _ = String(value)
		case "file_path":
			file, _ = String(value)
		}
		return nil
	})
	if command != "" {
		return command, command
	}
	return file, ""
}

// PlanningTool reports whether tool is one of Claude Code's planning
// tools, whose use PostToolUse syncs into the plan.
func PlanningTool(tool string) bool {
	return tool == "TodoWrite" || tool == "TaskCreate" || tool == "TaskUpdate"
}

// HostPlan reports whether tool carries the plan the person approved in
// the host: Claude Code's ExitPlanMode, whose PostToolUse plangit turns
// into the plan.
func HostPlan(tool string) bool { return tool == "ExitPlanMode" }

// WritesIn reports whether a tool call's input names a file (file_path,
// in any case, as encoding/json reads it) directly in dir, a session's
// directory: a tool that wrote one of the session's own files. A relative
// path is taken from cwd.
func WritesIn(input []byte, cwd, dir string) bool {
	var path string
	members(input, func(key, value []byte) error {
		if strings.EqualFold(string(memberName(key)), "file_path") {
			path, _ = String(value)
		}
		return nil
	})
	if path == "" {
		return false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	return filepath.Dir(filepath.Clean(path)) == dir
}

// PlangitOnly reports whether a shell command runs plangit and nothing
// else, and not plangit approve: what an agent may run while its plan
// awaits approval (shaping the plan). Anything it cannot read runs
// something else.
func PlangitOnly(command string) bool {
	segs := strings.FieldsFunc(command, func(r rune) bool {
		return r == ';' || r == '&' || r == '|' || r == '\n' || r == '`' || r == '$' || r == '(' || r == ')' || r == '>' || r == '<'
	})
	if len(segs) == 0 {
		return false
	}
	for _, seg := range segs {
		f := strings.Fields(seg)
		if len(f) == 0 || filepath.Base(f[0]) != "plangit" || slices.Contains(f, "approve") {
			return false
		}
	}
	return true
}

// StartsStep reports whether a shell command runs `plangit step start` or
// `plangit next`.
func StartsStep(command string) bool {
	ids, next := StepStarts(command)
	return len(ids) > 0 || next
}

// StepStarts reads the steps a shell command starts through plangit: the
// ids `plangit step start` names, and whether it runs `plangit next`.
func StepStarts(command string) (ids []string, next bool) {
	fields := strings.FieldsFunc(command, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '&' || r == '|' })
	for i, f := range fields {
		if filepath.Base(f) != "plangit" {
			continue
		}
		for j := i + 1; j < len(fields); j++ {
			switch {
			case fields[j] == "next":
				next = true
				j = len(fields)
			case fields[j] == "step" && j+1 < len(fields) && fields[j+1] == "start":
				for _, a := range fields[j+2:] {
					if a == "plangit" || filepath.Base(a) == "plangit" {
						break
					}
					if a != "--" && !strings.HasPrefix(a, "-") {
						ids = append(ids, strings.Trim(a, `"'`))
					}
				}
				if len(ids) == 0 {
					ids = append(ids, "") // a start, of a step not named here
				}
				j = len(fields)
			case !strings.HasPrefix(fields[j], "-") && fields[j-1] != "--session" && fields[j-1] != "--root" && fields[j-1] != "--if-rev":
				j = len(fields) // another subcommand
			}
		}
	}
	return ids, next
}

// RunsPlangit reports whether a shell command runs plangit: one of its
// simple commands runs the program plangit (or plangit-hook).
func RunsPlangit(command string) bool {
	segs := strings.FieldsFunc(command, func(r rune) bool {
		return r == ';' || r == '&' || r == '|' || r == '\n' || r == '(' || r == ')' || r == '`'
	})
	for _, seg := range segs {
		if prog := Program(seg); prog == "plangit" || prog == "plangit-hook" {
			return true
		}
	}
	return false
}

// Program is the program a simple command runs, by its base name: its
// first word past VAR=value assignments (quoted values too), redirections,
// and the wrappers that run a program as it is — env, command, exec,
// time, nice, nohup, sudo, timeout (and its duration), and "!"; "" for
// none.
func Program(seg string) string {
	words := ShellWords(seg)
	wrapped, duration := false, false
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<") || len(w) > 1 && w[0] >= '0' && w[0] <= '9' && strings.ContainsAny(w, "<>"):
			if w == ">" || w == "<" || w == ">>" || strings.HasSuffix(w, ">") && !strings.HasSuffix(w, "&>") {
				i++ // the redirection's file
			}
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "=") && !strings.HasPrefix(w, "-"):
		case wrapped && (w == "-v" || w == "-V") && words[i-1] == "command":
			return "command" // command -v plangit looks plangit up; it does not run it
		case wrapped && strings.HasPrefix(w, "-"):
			if w == "-n" || w == "-u" || w == "-s" || w == "-k" {
				i++ // nice -n N, sudo -u USER, timeout -s SIGNAL, -k DURATION
			}
		case w == "env" || w == "command" || w == "exec" || w == "time" || w == "nice" || w == "nohup" || w == "sudo" || w == "!":
			wrapped = true
		case w == "timeout":
			wrapped, duration = true, true
		case duration:
			duration = false // timeout's duration
		default:
			prog := filepath.Base(w)
			// sh -c 'plangit …' runs what its command runs.
			if (prog == "sh" || prog == "bash" || prog == "zsh" || prog == "dash") && i+2 < len(words) && shellC(words[i+1]) {
				return Program(words[i+2])
			}
			return prog
		}
	}
	return ""
}

// shellC reports whether a shell's option word includes -c: "-c", "-lc",
// "-ec".
func shellC(w string) bool {
	return len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.HasSuffix(w, "c")
}

// ShellWords splits a simple shell command line into words as a POSIX
// shell does: blanks and newlines separate words, except inside quotes,
// which are removed; a backslash outside them keeps the next byte.
func ShellWords(s string) []string {
	var out []string
	var word strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			word.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, word.String())
				word.Reset()
				in = false
			}
		case c == '\\' && i+1 < len(s):
			i++
			word.WriteByte(s[i])
			in = true
		default:
			word.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, word.String())
	}
	return out
}

// PlangitTool reports whether a tool is one of plangit's own MCP tools, as
// hosts name a server's tools: mcp__plangit__show (Claude Code, Codex),
// mcp_plangit_show, plangit__show (Gemini CLI), plangit-show or
// plangit/show.
func PlangitTool(tool string) bool {
	for _, prefix := range []string{"mcp__plangit__", "mcp_plangit_", "plangit__", "plangit-", "plangit/"} {
		if strings.HasPrefix(tool, prefix) && len(tool) > len(prefix) {
			return true
		}
	}
	return false
}

// OwnUse reads what a tool use is to PostToolUse's counting: plangit's
// own — its command in the agent's shell, its MCP tool — which is no work
// in a step; and whether with it the agent drives its steps itself — a
// plangit step or next command, the MCP step tool — after which
// auto-advance never decides for it.
func OwnUse(tool, command string) (plangit, drives bool) {
	if PlangitTool(tool) {
		name := tool[strings.LastIndexAny(tool, "_-/")+1:]
		return true, name == "step" || name == "next"
	}
	if command == "" || !RunsPlangit(command) {
		return false, false
	}
	fields := strings.FieldsFunc(command, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == ';' || r == '&' || r == '|' })
	for i, f := range fields {
		if filepath.Base(strings.Trim(f, `"'`)) != "plangit" {
			continue
		}
		for j := i + 1; j < len(fields); j++ {
			a := fields[j]
			if a == "step" || a == "next" {
				return true, true
			}
			if a == "--session" || a == "--root" || a == "--if-rev" {
				j++ // its value
				continue
			}
			if !strings.HasPrefix(a, "-") {
				break // another subcommand
			}
		}
	}
	return true, false
}

// TodoStarts reads what a planning tool's call starts: the content of a
// TodoWrite list's in_progress items (each one line, clipped as the
// glance's current step is), or, for a TaskUpdate to in_progress, its
// task id; nil when it starts nothing.
func TodoStarts(tool string, input []byte) []string {
	var out []string
	switch tool {
	case "TodoWrite":
		Members(input, func(key string, value []byte) error {
			if key == "todos" {
				Elements(value, func(item []byte) {
					if content, status := withStatus(item, "content"); status == "in_progress" {
						out = append(out, ClipLine(content))
					}
				})
			}
			return nil
		})
	case "TaskUpdate":
		if id, status := withStatus(input, "taskId"); status == "in_progress" {
			out = append(out, "task "+id)
		}
	}
	return out
}

// withStatus reads an object's string member name and its status.
func withStatus(object []byte, name string) (value, status string) {
	Members(object, func(k string, v []byte) error {
		switch k {
		case name:
			value, _ = String(v)
		case "status":
			status, _ = String(v)
		}
		return nil
	})
	return value, status
}

// ClipLine is s on one line, white space collapsed, at most 80 bytes (a
// cut one ends in "…"): how the glance holds the current step's text.
func ClipLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= 80 {
		return s
	}
	cut := 80 - len("…")
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
