package hooks

import (
	"strings"
	"unicode/utf8"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
)

// Shell is a command interpreter that runs a host's hook command line.
// Each quotes a program's path its own way: what one reads as the path,
// another reads as a string, or as two commands.
type Shell int

// The shells hosts run hook command lines through.
const (
	// ShellPOSIX is sh, bash or zsh with -c: 'it'\''s' — and Git Bash on
	// Windows, where a path's backslashes inside single quotes stay as
	// they are.
	ShellPOSIX Shell = iota
	// ShellPowerShell is powershell.exe or pwsh.exe with -Command: a
	// quoted program needs the call operator, & 'C:\it''s\plangit.exe'.
	ShellPowerShell
	// ShellCmd is cmd.exe with /c: "C:\a & b\plangit.exe". Inside double
	// quotes cmd still expands %VAR% (and !VAR! with delayed expansion),
	// and a double quote cannot be escaped: such words are refused.
	ShellCmd
)

func (sh Shell) String() string {
	switch sh {
	case ShellPowerShell:
		return "PowerShell"
	case ShellCmd:
		return "cmd.exe"
	}
	return "sh"
}

// windowsShells are the shells the hosts whose entries are command lines
// run them through on Windows. Claude Code and Copilot CLI entries are in
// exec form (a program and its arguments, no shell), so no shell reads them.
//
//   - Codex CLI: PowerShell. codex-rs/core/src/shell.rs
//     default_user_shell_from_path takes PowerShell on Windows (pwsh.exe,
//     else powershell.exe; cmd.exe only when neither is found), and the
//     session builds the hooks' CommandShell from it with derive_exec_args:
//     [pwsh, -NoProfile, -Command, COMMAND]; codex-rs/hooks/src/engine/
//     command_runner.rs build_command runs shell.program, shell.args and
//     the command.
//   - Gemini CLI: PowerShell. packages/core/src/hooks/hookRunner.ts spawns
//     getShellConfiguration() (packages/core/src/utils/shell-utils.ts) with
//     shell: false: on Windows %ComSpec% when it is powershell.exe or
//     pwsh.exe, else pwsh.exe, else powershell.exe, with -NoProfile
//     [-NonInteractive] -Command, and appends "; if ($LASTEXITCODE -ne 0)
//     { exit $LASTEXITCODE }" to the command.
//   - Cursor: PowerShell. Cursor's source is not public; hook commands
//     failing on Windows report PowerShell's own errors ("Program
//     'bash.exe' failed to run", speakeasy-api/gram#3736; "Cursor's hook
//     launcher initializes hook commands via PowerShell",
//     Arize-ai/coding-harness-tracing#58).
var windowsShells = map[string]Shell{
	HostCodex:  ShellPowerShell,
	HostCursor: ShellPowerShell,
	HostGemini: ShellPowerShell,
}

// hostShell is the shell a host runs command-line entries through on goos.
func hostShell(host, goos string) Shell {
	if sh, ok := windowsShells[host]; ok && goos == "windows" {
		return sh
	}
	return ShellPOSIX
}

// Join writes argv as a command line the shell runs as that program with
// those arguments. A word cmd.exe cannot quote is an INVALID_ARGUMENT
// error.
func (sh Shell) Join(argv []string) (string, error) {
	switch sh {
	case ShellPowerShell:
		out := make([]string, len(argv))
		for i, a := range argv {
			if plainWord(a) {
				out[i] = a
				continue
			}
			out[i] = "'" + doubleSingleQuotes(a) + "'"
			if i == 0 {
				// A quoted string is a value to PowerShell; the call
				// operator runs it.
				out[i] = "& " + out[i]
			}
		}
		return strings.Join(out, " "), nil
	case ShellCmd:
		out := make([]string, len(argv))
		for i, a := range argv {
			if i := strings.IndexFunc(a, func(r rune) bool { return r == '"' || r == '%' || r == '!' || r < ' ' || r == 0x7f }); i >= 0 {
				r, _ := utf8.DecodeRuneInString(a[i:])
				return "", plan.Errorf(plan.CodeInvalidArgument, "cmd.exe cannot quote %q in %q; install plangit where its path has no %q, or put it on PATH", r, a, r)
			}
			if plainWord(a) && (i > 0 || !strings.Contains(a, "/")) {
				out[i] = a // cmd.exe reads a slash in a program's name as a switch
			} else {
				out[i] = `"` + a + `"`
			}
		}
		return strings.Join(out, " "), nil
	}
	return ShellJoin(argv), nil
}

// plainWord reports whether every shell reads a as itself, unquoted:
// ASCII letters and digits, and - _ . / : not at the start of a program.
func plainWord(a string) bool {
	if a == "" {
		return false
	}
	for _, r := range a {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '-' || r == '_' || r == '.' || r == '/' || r == ':':
		default:
			return false
		}
	}
	return true
}

// singleQuotes are the characters PowerShell takes for a single quote.
const singleQuotes = hookwire.PowerShellQuotes

// doubleSingleQuotes escapes s for inside a PowerShell single-quoted
// string, where a quote is written twice.
func doubleSingleQuotes(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(singleQuotes, r) {
			b.WriteRune(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// commandFields splits a hook's command line into the program and its
// arguments (hookwire.CommandFields).
func commandFields(s string) []string { return hookwire.CommandFields(s) }

// programBase is the file name of a program's path (hookwire.ProgramBase).
func programBase(p string) string { return hookwire.ProgramBase(p) }
