package hookwire

import "strings"

// Reading a hook entry as the hosts' hook files hold it — what package
// hooks edits, and what the hook binary reads to tell whether plangit's
// hooks are installed somewhere else too.

// HookProgram is the name of the hook binary.
const HookProgram = "plangit-hook"

// PowerShellQuotes are the characters PowerShell takes for a single quote:
// the apostrophe and the typographic ones.
const PowerShellQuotes = "'\u2018\u2019\u201a\u201b"

// IsPlangitHook reports whether a hook entry (raw JSON) is a plangit hook:
// a command hook running a program named plangit… with "hook" as its first
// argument, or the hook binary. The program and its arguments are read
// from "exec" and "args" (Copilot CLI), "command" and "args" (exec form),
// or the command line in "command" or "bash".
func IsPlangitHook(raw []byte) bool {
	if !Valid(raw) {
		return false
	}
	var typ, command, bash, exec string
	var args []string
	bad := false
	err := Members(raw, func(key string, v []byte) error {
		str := func(dst *string) {
			s, ok := String(v)
			bad = bad || !ok
			*dst = s
		}
		switch strings.ToLower(key) { // as encoding/json matches them
		case "type":
			str(&typ)
		case "command":
			str(&command)
		case "bash":
			str(&bash)
		case "exec":
			str(&exec)
		case "args":
			if string(v) == "null" {
				return nil
			}
			if v[0] != '[' {
				bad = true
				return nil
			}
			args = nil
			Elements(v, func(e []byte) {
				s, ok := String(e)
				bad = bad || !ok
				args = append(args, s)
			})
		}
		return nil
	})
	if err != nil || bad || typ != "" && typ != "command" {
		return false
	}
	var argv []string
	switch {
	case exec != "":
		argv = append([]string{exec}, args...)
	case command != "" && len(args) > 0:
		argv = append([]string{command}, args...)
	case command != "":
		argv = CommandFields(command)
	default:
		argv = CommandFields(bash)
	}
	if len(argv) < 2 {
		return false
	}
	base := ProgramBase(argv[0])
	return strings.HasPrefix(base, HookProgram) || strings.HasPrefix(base, "plangit") && argv[1] == "hook"
}

// CommandFields splits a hook's command line into the program and its
// arguments, in the form install wrote it for the host's shell: after
// PowerShell's call operator, PowerShell's single quotes; else a POSIX
// shell's words (cmd.exe's double quotes read the same).
func CommandFields(s string) []string {
	if rest, ok := strings.CutPrefix(strings.TrimLeft(s, " \t"), "& "); ok {
		return powerShellFields(rest)
	}
	return ShellWords(s)
}

// powerShellFields splits the words of a PowerShell command: single-quoted
// strings, with a quote written twice inside, and bare words.
func powerShellFields(s string) []string {
	var out []string
	var word strings.Builder
	in := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case strings.ContainsRune(PowerShellQuotes, r):
			in = true
			for i++; i < len(rs); i++ {
				if strings.ContainsRune(PowerShellQuotes, rs[i]) {
					if i+1 < len(rs) && strings.ContainsRune(PowerShellQuotes, rs[i+1]) {
						i++
						word.WriteRune(rs[i])
						continue
					}
					break
				}
				word.WriteRune(rs[i])
			}
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, word.String())
				word.Reset()
				in = false
			}
		default:
			word.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, word.String())
	}
	return out
}

// ProgramBase is the file name of a program's path, with either slash:
// entries written for Windows are read on every system.
func ProgramBase(p string) string {
	return p[strings.LastIndexAny(p, `/\`)+1:]
}
