package hooks

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
)

// hostilePaths are Windows paths of plangit with what each shell would
// otherwise read as its own: spaces, apostrophes (straight and
// typographic, which PowerShell takes for quotes too), & ^ ( ) ; , = $ @ #
// ~ ` [ ] { }, a UNC share, forward slashes and non-ASCII letters.
var hostilePaths = []string{
	`C:\Program Files\plangit\plangit.exe`,
	`C:\Users\O'Brien\plangit.exe`,
	`C:\a & b\plangit.exe`,
	`C:\x^y (1)\plangit.exe`,
	`C:\Ünïcödé 日本語\plangit.exe`,
	"C:\\it\u2019s \u2018q\u2019 \u201ax\u201b\\plangit.exe",
	"C:\\$env:x;{y}[z]@w#v,u=t~s`r\\plangit.exe",
	`\\server\share\plangit.exe`,
	`C:/tools/plangit.exe`,
	`C:\tools\plangit.exe`,
}

// TestShellJoin: each shell's quoting of a program's path, as the hosts'
// shells read it (sources in windowsShells): POSIX single quotes,
// PowerShell's call operator before single quotes with quotes doubled,
// cmd.exe's double quotes; and every hostile path reads back as written.
func TestShellJoin(t *testing.T) {
	t.Parallel()
	args := []string{"hook", "SessionStart", "--host", "codex"}
	for _, c := range []struct {
		prog                string
		posix, pwsh, cmdexe string
	}{
		{"plangit", "plangit hook SessionStart --host codex", "plangit hook SessionStart --host codex", "plangit hook SessionStart --host codex"},
		{`C:\Program Files\plangit\plangit.exe`,
			`'C:\Program Files\plangit\plangit.exe' hook SessionStart --host codex`,
			`& 'C:\Program Files\plangit\plangit.exe' hook SessionStart --host codex`,
			`"C:\Program Files\plangit\plangit.exe" hook SessionStart --host codex`},
		{`C:\Users\O'Brien\plangit.exe`,
			`'C:\Users\O'\''Brien\plangit.exe' hook SessionStart --host codex`,
			`& 'C:\Users\O''Brien\plangit.exe' hook SessionStart --host codex`,
			`"C:\Users\O'Brien\plangit.exe" hook SessionStart --host codex`},
		{"C:\\it\u2019s\\plangit.exe", "", "& 'C:\\it\u2019\u2019s\\plangit.exe' hook SessionStart --host codex", ""},
		{`C:/tools/plangit.exe`, "", `C:/tools/plangit.exe hook SessionStart --host codex`, `"C:/tools/plangit.exe" hook SessionStart --host codex`},
	} {
		argv := append([]string{c.prog}, args...)
		for sh, want := range map[Shell]string{ShellPOSIX: c.posix, ShellPowerShell: c.pwsh, ShellCmd: c.cmdexe} {
			if got, err := sh.Join(argv); want != "" && (err != nil || got != want) {
				t.Errorf("%s: %q, %v; want %q", sh, got, err, want)
			}
		}
	}
	for _, p := range hostilePaths {
		argv := append([]string{p}, args...)
		for _, sh := range []Shell{ShellPOSIX, ShellPowerShell, ShellCmd} {
			line, err := sh.Join(argv)
			if err != nil {
				t.Errorf("%s: %q: %v", sh, p, err)
				continue
			}
			if got := commandFields(line); !reflect.DeepEqual(got, argv) {
				t.Errorf("%s: %s reads back as %q", sh, line, got)
			}
		}
	}
}

// TestShellJoinCmdRefuses: what cmd.exe expands even inside double quotes
// (%VAR%, !VAR! with delayed expansion on) or cannot quote at all (a
// double quote) is refused with INVALID_ARGUMENT, naming the character;
// PowerShell's single quotes take them as they are.
func TestShellJoinCmdRefuses(t *testing.T) {
	t.Parallel()
	for _, p := range []string{`C:\50%\plangit.exe`, `C:\%PATH%\plangit.exe`, `C:\wow!\plangit.exe`, `C:\a"b\plangit.exe`, "C:\\a\nb\\plangit.exe"} {
		argv := []string{p, "hook", "Stop"}
		_, err := ShellCmd.Join(argv)
		var perr *plan.Error
		if !errors.As(err, &perr) || perr.Code != plan.CodeInvalidArgument || !strings.Contains(err.Error(), "cmd.exe cannot quote") {
			t.Errorf("%q: %v", p, err)
		}
		line, err := ShellPowerShell.Join(argv)
		if got := commandFields(line); err != nil || !reflect.DeepEqual(got, argv) {
			t.Errorf("PowerShell: %s reads back as %q (%v)", line, got, err)
		}
	}
}

// TestInstallWindowsShells: hooks installed for Windows (Programs.OS) with
// plangit at a path that needs quoting are PowerShell command lines for
// Codex, Cursor and Gemini — `& 'C:\…\plangit.exe' hook …`, which
// PowerShell runs, where the POSIX form `'C:\…' hook …` is a string
// followed by stray words — and stay exec form for Claude Code and
// Copilot CLI. Install recognises its own entries (twice is once), status
// reads the program back, and an entry in the POSIX form is upgraded in
// place.
func TestInstallWindowsShells(t *testing.T) {
	t.Parallel()
	dir := `C:\Program Files\it's & co\`
	win := Programs{Plangit: dir + "plangit.exe", Hook: dir + "plangit-hook.exe", OS: "windows"}
	for _, host := range HostNames() {
		t.Run(host, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "hooks.json")
			f := loadHost(t, host, path)
			if err := f.Install(win); err != nil {
				t.Fatal(err)
			}
			saveHost(t, f)
			f = loadHost(t, host, path)
			cmds := map[string]hookEntry{}
			for _, p := range f.ours() {
				var h hookEntry
				json.Unmarshal(p.raw, &h)
				cmds[p.event] = h
			}
			events, _ := HostEvents(host)
			if len(cmds) != len(events) {
				t.Fatalf("%d entries for %d events: %s", len(cmds), len(events), f.Bytes())
			}
			for _, ev := range events {
				h := cmds[ev.Name]
				argv := h.argv()
				if programBase(argv[0]) != "plangit.exe" && programBase(argv[0]) != "plangit-hook.exe" || !strings.HasPrefix(argv[0], dir) {
					t.Errorf("%s: runs %q", ev.Name, argv)
				}
				switch host {
				case HostClaude, HostCopilot:
					if h.Command+h.Exec != argv[0] || len(h.Args) == 0 {
						t.Errorf("%s: not exec form: %+v", ev.Name, h)
					}
				default:
					if want := "& 'C:\\Program Files\\it''s & co\\"; !strings.HasPrefix(h.Command, want) {
						t.Errorf("%s: %s, want it to start %s", ev.Name, h.Command, want)
					}
				}
			}
			if st, differ := f.State(win); st != StateInstalled {
				t.Errorf("state %s %v", st, differ)
			}
			if got := f.Program(); got != win.Plangit {
				t.Errorf("Program: %q", got)
			}
			if h := cmds[events[0].Name]; len(h.Args) == 0 && f.Installed()[events[0].Name] != h.Command {
				t.Errorf("Installed: %q, want the entry's own %q", f.Installed()[events[0].Name], h.Command)
			}
			if err := f.Install(win); err != nil || f.Changed() {
				t.Errorf("installing twice changed the file (%v): %s", err, f.Bytes())
			}

			// The form an earlier plangit wrote on Windows: upgraded in place.
			posix := win
			posix.OS = "linux"
			os.Remove(path)
			f = loadHost(t, host, path)
			f.Install(posix)
			saveHost(t, f)
			f = loadHost(t, host, path)
			if st, _ := f.State(win); (st == StateInstalled) != (host == HostClaude || host == HostCopilot) {
				t.Errorf("POSIX form for Windows: %s", st)
			}
			f.Install(win)
			if st, differ := f.State(win); st != StateInstalled || len(f.ours()) != len(events) {
				t.Errorf("after upgrade: %s %v: %s", st, differ, f.Bytes())
			}
			f.Uninstall()
			saveHost(t, f)
			if _, err := os.Stat(path); err == nil {
				t.Error("uninstall left the file install created")
			}
		})
	}
}
