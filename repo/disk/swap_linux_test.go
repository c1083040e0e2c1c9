//go:build linux

package disk

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRenameat2: the system call this architecture numbers renameat2
// exchanges two files, and refuses to replace one with RenameNoReplace.
func TestRenameat2(t *testing.T) {
	t.Parallel()
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

// TestPutFile: a file is put in place through a new file; the one it
// displaced is removed and never written again, so a reader that holds it
// open reads it whole; a symbolic link in its place is replaced, not
// followed; a directory in its place stays, and the write fails.
func TestPutFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "index")
	if err := PutFile(dir, target, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, data := range []string{"two", "three, longer", "4"} {
		if err := PutFile(dir, target, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if x, _ := os.ReadFile(target); string(x) != data {
			t.Fatalf("the file holds %q, want %q", x, data)
		}
	}
	if x, _ := io.ReadAll(held); string(x) != "one" {
		t.Fatalf("a reader holding the first file reads %q", x)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 1 {
		t.Fatalf("files left beside the one written: %v", names)
	}

	outside := filepath.Join(t.TempDir(), "notes.md")
	os.WriteFile(outside, []byte("a person's notes"), 0o644)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if err := PutFile(dir, link, []byte("five"), 0o644); err != nil {
		t.Fatal(err)
	}
	if x, _ := os.ReadFile(outside); string(x) != "a person's notes" {
		t.Fatalf("a file reached through a link was written over: %q", x)
	}
	if fi, err := os.Lstat(link); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the link was not replaced by the file: %v", err)
	}

	sub := filepath.Join(dir, "sub")
	os.MkdirAll(filepath.Join(sub, "x"), 0o755)
	if err := PutFile(dir, sub, []byte("six"), 0o644); err == nil {
		t.Fatal("a file replaced a directory")
	}
	if fi, err := os.Stat(filepath.Join(sub, "x")); err != nil || !fi.IsDir() {
		t.Fatal("the directory was not put back")
	}
	if names, _ := filepath.Glob(filepath.Join(dir, TempPrefix+"*")); len(names) != 0 {
		t.Fatalf("temporary files left: %v", names)
	}
}
