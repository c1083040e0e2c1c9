package hooks

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ProgramEnv is what FindPrograms asks of the system.
type ProgramEnv struct {
	// LookPath finds a program on PATH (exec.LookPath).
	LookPath func(string) (string, error)
	// Executable is the path of the running plangit (os.Executable).
	Executable string
	// OS is the system, as runtime.GOOS names it.
	OS string
}

// FindPrograms finds what installed hooks run: explicit when given, else
// plangit when PATH finds it, else the running plangit by its full path;
// and the hook binary installed beside that plangit ("plangit-hook" when
// PATH finds that one, else its path).
//
// Never a launcher: a host starts a hook on every tool call, and a
// launcher (the npm package's Node script where its install script did
// not run, a .cmd shim on Windows) would start a second runtime in front
// of every one. When what PATH finds as plangit or plangit-hook is a
// launcher, the hooks name the native program instead by its full path:
// the running plangit, which the launcher started, and the hook binary
// beside it.
func FindPrograms(explicit string, env ProgramEnv) Programs {
	exe := env.Executable
	look := func(name string) string {
		if env.LookPath == nil {
			return ""
		}
		path, err := env.LookPath(name)
		if err != nil {
			return ""
		}
		return path
	}
	p := Programs{Plangit: explicit}
	launcher := false
	if p.Plangit == "" {
		onPath := look("plangit")
		launcher = onPath != "" && IsLauncher(onPath, env.OS)
		switch {
		case onPath != "" && !launcher:
			p.Plangit = "plangit"
		case exe != "":
			p.Plangit = exe
		default:
			p.Plangit = "plangit"
		}
	}
	dir := ""
	if strings.ContainsAny(p.Plangit, `/\`) {
		dir = filepath.Dir(p.Plangit)
	} else if path := look(p.Plangit); path != "" {
		dir = filepath.Dir(path)
	}
	file := HookProgram
	if env.OS == "windows" {
		file += ".exe"
	}
	if dir != "" {
		if hook := filepath.Join(dir, file); isProgram(hook, env.OS) {
			if IsLauncher(hook, env.OS) {
				launcher = true
			} else {
				p.Hook = hook
				if !strings.ContainsAny(p.Plangit, `/\`) {
					if onPath := look(HookProgram); onPath != "" && filepath.Dir(onPath) == dir {
						p.Hook = HookProgram
					}
				}
			}
		}
	}
	if onPath := look(HookProgram); onPath != "" && IsLauncher(onPath, env.OS) {
		launcher = true
	}
	if p.Hook == "" && launcher && exe != "" {
		if hook := filepath.Join(filepath.Dir(exe), file); isProgram(hook, env.OS) && !IsLauncher(hook, env.OS) {
			p.Hook = hook
		}
	}
	return p
}

// isProgram reports whether path is a program the system would run: a
// regular file, marked executable where the system marks programs (on
// Windows its name says so).
func isProgram(path, goos string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && (goos == "windows" || st.Mode()&0o111 != 0)
}

// IsLauncher reports whether the program at path is a launcher rather
// than a native executable: on Windows a program not named .exe (a .cmd
// or .ps1 shim), elsewhere a script (a file that starts with #!).
func IsLauncher(path, goos string) bool {
	if goos == "windows" {
		return !strings.EqualFold(filepath.Ext(path), ".exe")
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := io.ReadFull(f, head)
	return n == 2 && string(head) == "#!"
}

// FromNpx reports whether path lies in npx's cache (…/_npx/…), where
// `npx plangit` runs plangit from: npm clears that cache, and hooks that
// name a program there stop running when it goes.
func FromNpx(path string) bool {
	return strings.Contains(strings.ReplaceAll(path, `\`, "/"), "/_npx/")
}
