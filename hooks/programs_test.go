package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestFindProgramsNeverALauncher: where PATH finds plangit and
// plangit-hook as scripts (the npm package's launchers, where its install
// script did not run), the hooks name the native programs by their full
// paths: the running plangit, and the hook binary beside it.
func TestFindProgramsNeverALauncher(t *testing.T) {
	t.Parallel()
	// Windows names programs .exe, and npm's launchers there are .cmd.
	exeExt, launcherExt, exts := "", "", []string{""}
	if runtime.GOOS == "windows" {
		exeExt, launcherExt, exts = ".exe", ".cmd", []string{".exe", ".cmd"}
	}
	native := t.TempDir()
	npm := t.TempDir()
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(native, "plangit"+exeExt), "\x7fELF native")
	write(filepath.Join(native, HookProgram+exeExt), "\x7fELF native")
	launcher := "#!/bin/sh\nexec " + native + "/plangit \"$@\"\n"
	path := func(dirs ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			for _, d := range dirs {
				for _, ext := range exts {
					if p := filepath.Join(d, name+ext); isProgram(p, runtime.GOOS) {
						return p, nil
					}
				}
			}
			return "", errors.New("not found")
		}
	}
	exe := filepath.Join(native, "plangit"+exeExt)
	env := func(dirs ...string) ProgramEnv {
		return ProgramEnv{LookPath: path(dirs...), Executable: exe, OS: runtime.GOOS}
	}

	// Both launchers.
	write(filepath.Join(npm, "plangit"+launcherExt), launcher)
	write(filepath.Join(npm, HookProgram+launcherExt), launcher)
	want := Programs{Plangit: exe, Hook: filepath.Join(native, HookProgram+exeExt)}
	if got := FindPrograms("", env(npm)); got != want {
		t.Errorf("launchers on PATH: %+v, want %+v", got, want)
	}
	// plangit native on PATH, plangit-hook a launcher in front of it.
	first := t.TempDir()
	write(filepath.Join(first, HookProgram+launcherExt), launcher)
	want = Programs{Plangit: "plangit", Hook: filepath.Join(native, HookProgram+exeExt)}
	if got := FindPrograms("", env(first, native)); got != want {
		t.Errorf("a launcher named plangit-hook on PATH: %+v, want %+v", got, want)
	}
	// Native programs on PATH: their names.
	want = Programs{Plangit: "plangit", Hook: HookProgram}
	if got := FindPrograms("", env(native)); got != want {
		t.Errorf("native programs on PATH: %+v, want %+v", got, want)
	}
}

// TestIsLauncher: a script is a launcher, a native program is not; on
// Windows a program not named .exe is.
func TestIsLauncher(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script, native := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(script, []byte("#!/usr/bin/env node\n"), 0o755)
	os.WriteFile(native, []byte("\x7fELF"), 0o755)
	if !IsLauncher(script, "linux") || IsLauncher(native, "linux") {
		t.Errorf("IsLauncher: script %v, native %v", IsLauncher(script, "linux"), IsLauncher(native, "linux"))
	}
	if !IsLauncher(`C:\npm\plangit-hook.cmd`, "windows") || IsLauncher(`C:\bin\plangit-hook.exe`, "windows") {
		t.Errorf("IsLauncher on Windows tells .cmd from .exe wrongly")
	}
}
