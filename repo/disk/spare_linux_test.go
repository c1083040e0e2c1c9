//go:build linux

package disk

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRenameat2: the system call this architecture numbers renameat2
// exchanges two files, and refuses to replace one with RenameNoReplace.
func TestRenameat2(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("A"), 0o644)
	os.WriteFile(b, []byte("B"), 0o644)
	if err := Renameat2(a, b, RenameExchange); err != nil {
		t.Fatal(err)
	}
	if x, _ := os.ReadFile(a); string(x) != "B" {
		t.Fatalf("a holds %q after the exchange", x)
	}
	if x, _ := os.ReadFile(b); string(x) != "A" {
		t.Fatalf("b holds %q after the exchange", x)
	}
	if err := Renameat2(a, b, RenameNoReplace); !errors.Is(err, syscall.EEXIST) {
		t.Fatalf("a rename that must not replace replaced: %v", err)
	}
}

// TestPutFile: a file is put in place through the spare, which then holds
// what it displaced; a spare linked elsewhere — a person's file that came
// here displaced — is never written over, nor is a symbolic link followed.
func TestPutFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "index")
	if err := PutFile(dir, target, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := PutFile(dir, target, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if x, _ := os.ReadFile(target); string(x) != "two" {
		t.Fatalf("the file holds %q", x)
	}
	if x, _ := os.ReadFile(filepath.Join(dir, SpareFile)); string(x) != "one" {
		t.Fatalf("the spare holds %q, not what it displaced", x)
	}

	outside := filepath.Join(t.TempDir(), "notes.md")
	os.WriteFile(outside, []byte("a person's notes"), 0o644)
	os.Remove(filepath.Join(dir, SpareFile))
	if err := os.Link(outside, filepath.Join(dir, SpareFile)); err != nil {
		t.Fatal(err)
	}
	if err := PutFile(dir, target, []byte("three"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, SpareFile))
	if err := os.Symlink(outside, filepath.Join(dir, SpareFile)); err != nil {
		t.Fatal(err)
	}
	if err := PutFile(dir, target, []byte("four"), 0o644); err != nil {
		t.Fatal(err)
	}
	if x, _ := os.ReadFile(outside); string(x) != "a person's notes" {
		t.Fatalf("a file linked from the spare was written over: %q", x)
	}
	if x, _ := os.ReadFile(target); string(x) != "four" {
		t.Fatalf("the file holds %q", x)
	}

	// A directory in the file's place stays, and the write fails.
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(filepath.Join(sub, "x"), 0o755)
	if err := PutFile(dir, sub, []byte("five"), 0o644); err == nil {
		t.Fatal("a file replaced a directory")
	}
	if fi, err := os.Stat(filepath.Join(sub, "x")); err != nil || !fi.IsDir() {
		t.Fatal("the directory was not put back")
	}
}
