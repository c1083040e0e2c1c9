package disk

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveAll: a tree of read-only files in read-only directories, as
// git leaves its objects, goes whole; a path that does not exist is no
// error.
func TestRemoveAll(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "session")
	objects := filepath.Join(root, ".git", "objects")
	for _, d := range []string{"ab", "cd", "pack"} {
		if err := os.MkdirAll(filepath.Join(objects, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]os.FileMode{
		"task_plan.md":                  0o644,
		".git/HEAD":                     0o644,
		".git/objects/ab/cdef0123":      0o444,
		".git/objects/cd/ef012345":      0o444,
		".git/objects/pack/pack-1.pack": 0o444,
		".git/objects/pack/pack-1.idx":  0o444,
		".git/objects/pack/pack-1.rev":  0o400,
		".git/objects/pack/pack-1.keep": 0o000,
	}
	for name, mode := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.WriteFile(path, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"ab", "pack"} {
		if err := os.Chmod(filepath.Join(objects, d), 0o555); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(root); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", root, err)
	}
	if err := RemoveAll(root); err != nil {
		t.Errorf("removing what is gone: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(root)); len(entries) != 0 {
		t.Errorf("left beside it: %v", entries)
	}
}

// TestRemoveAllLinks: a symbolic link inside is removed, never followed:
// the file and the directory it names stay.
func TestRemoveAllLinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(outside, "kept.md")
	if err := os.WriteFile(kept, []byte("kept\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "session")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, filepath.Join(root, "dir-link"))
	symlink(t, kept, filepath.Join(root, "file-link"))
	if err := RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(root); !os.IsNotExist(err) {
		t.Errorf("%s is still there: %v", root, err)
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) != "kept\n" {
		t.Errorf("the link's target: %q, %v", b, err)
	}
}
