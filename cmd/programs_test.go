package cmd

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/plangit/plangit/hooks"
)

// TestHookProgramsFindsTheHookBinary: the hook binary installed beside
// plangit is found by the name the system gives programs (plangit-hook.exe
// on Windows, where no file has an executable bit), and a file that is no
// program is passed over.
func TestHookProgramsFindsTheHookBinary(t *testing.T) {
	t.Parallel()
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	dir := t.TempDir()
	for _, name := range []string{"plangit", hooks.HookProgram} {
		if err := os.WriteFile(filepath.Join(dir, name+exe), []byte("a program"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	plangit := filepath.Join(dir, "plangit"+exe)
	if got, want := hookPrograms(plangit), (hooks.Programs{Plangit: plangit, Hook: filepath.Join(dir, hooks.HookProgram+exe)}); got != want {
		t.Errorf("hookPrograms(%q) = %+v, want %+v", plangit, got, want)
	}

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, hooks.HookProgram+".txt"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if err := os.WriteFile(filepath.Join(other, hooks.HookProgram), []byte("not executable"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plangit = filepath.Join(other, "plangit"+exe)
	if got := hookPrograms(plangit); got.Hook != "" {
		t.Errorf("hookPrograms(%q).Hook = %q, want none", plangit, got.Hook)
	}
}
