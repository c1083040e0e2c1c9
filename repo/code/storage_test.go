package code

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plangit/plangit/repo/repotest"
)

// storeFiles lists the code store's object files by their path under
// objects/, with their stat data.
func storeFiles(t *testing.T, s *Store) map[string]os.FileInfo {
	t.Helper()
	out := map[string]os.FileInfo{}
	err := filepath.WalkDir(s.ObjectsDir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.ObjectsDir(), p)
		out[filepath.ToSlash(rel)] = fi
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// looseTypes is the type of each loose object among files, by git.
func looseTypes(t *testing.T, s *Store, files map[string]os.FileInfo) map[string]string {
	t.Helper()
	types := map[string]string{}
	for rel := range files {
		if strings.HasPrefix(rel, "pack/") || strings.HasPrefix(rel, "info/") {
			continue
		}
		hex := strings.Replace(rel, "/", "", 1)
		types[hex] = strings.TrimSpace(repotest.Git(t, s.Dir(), "cat-file", "-t", hex))
	}
	return types
}

// The first snapshot of a packed project copies none of its objects: the
// project's pack is in the store by a hard link (the same inode), and the
// store's own files are the snapshot's trees, its commit and the blobs of
// the files the index does not hold (modified, untracked). A second
// snapshot after one file changed adds that blob, the trees on its path
// and one commit, and nothing else.
func TestCaptureStorage(t *testing.T) {
	root := t.TempDir()
	tracked := repotest.CodeProject(t, root, 200)
	gitDir := filepath.Join(root, ".code-agent", "plans", "s", ".git")
	s, err := Open(gitDir, root)
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Capture(Options{Message: "init"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := first.Tree.String(), gitTree(t, root); got != want {
		t.Fatalf("first snapshot's tree is %s, git's is %s", got, want)
	}
	files := storeFiles(t, s)
	projPacks, _ := filepath.Glob(filepath.Join(root, ".git", "objects", "pack", "pack-*"))
	if len(projPacks) == 0 {
		t.Fatal("the project has no pack")
	}
	var packed, copied int64
	for _, p := range projPacks {
		if strings.HasSuffix(p, ".rev") {
			continue // git's reverse index: the store has no need of it
		}
		src, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		dst, ok := files["pack/"+filepath.Base(p)]
		if !ok {
			t.Fatalf("the store lacks the project's %s", filepath.Base(p))
		}
		if !os.SameFile(src, dst) {
			t.Errorf("the store's %s is a copy, not a link to the project's", filepath.Base(p))
		}
		packed += src.Size()
	}
	types := looseTypes(t, s, files)
	for rel, fi := range files {
		if !strings.HasPrefix(rel, "pack/") {
			copied += fi.Size()
		}
	}
	// The snapshot's trees that the project's commit lacks: the top and
	// the directories holding a modified or an untracked file.
	projTrees := map[string]bool{strings.TrimSpace(repotest.Git(t, root, "rev-parse", "HEAD^{tree}")): true}
	for _, line := range strings.Split(strings.TrimSpace(repotest.Git(t, root, "ls-tree", "-r", "-d", "HEAD")), "\n") {
		projTrees[strings.Fields(line)[2]] = true
	}
	newTrees := 0
	if !projTrees[first.Tree.String()] {
		newTrees++
	}
	for _, line := range strings.Split(strings.TrimSpace(repotest.Git(t, s.Dir(), "ls-tree", "-r", "-d", first.Tree.String())), "\n") {
		if !projTrees[strings.Fields(line)[2]] {
			newTrees++
		}
	}
	count := map[string]int{}
	for _, ty := range types {
		count[ty]++
	}
	// Three modified files and three untracked ones: their blobs are read.
	if want := map[string]int{"blob": 6, "tree": newTrees, "commit": 1}; !mapsEqual(count, want) {
		t.Errorf("the first snapshot's own objects: %v, want %v", count, want)
	}
	t.Logf("first snapshot: %d object files of its own, %d bytes; the project's pack linked, %d bytes", len(types), copied, packed)

	// One file changes, five directories deep.
	time.Sleep(10 * time.Millisecond)
	name := tracked[len(tracked)-1]
	write(t, root, name, "changed\n")
	second, err := s.Capture(Options{Message: "step 1"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := second.Tree.String(), gitTree(t, root); got != want {
		t.Fatalf("second snapshot's tree is %s, git's is %s", got, want)
	}
	after := storeFiles(t, s)
	added := map[string]os.FileInfo{}
	for rel, fi := range after {
		if _, ok := files[rel]; !ok {
			added[rel] = fi
		}
	}
	count = map[string]int{}
	var grew int64
	for _, ty := range looseTypes(t, s, added) {
		count[ty]++
	}
	for rel, fi := range added {
		if strings.HasPrefix(rel, "pack/") {
			t.Errorf("the second snapshot added %s", rel)
		}
		grew += fi.Size()
	}
	depth := strings.Count(name, "/") + 1 // the trees on its path, the top's included
	if want := map[string]int{"blob": 1, "tree": depth, "commit": 1}; !mapsEqual(count, want) {
		t.Errorf("the second snapshot added %v, want %v", count, want)
	}
	t.Logf("second snapshot: %d object files, %d bytes", len(added), grew)
	if out := repotest.Git(t, s.Dir(), repotest.FsckArgs(s.Dir(), "--no-dangling")...); strings.TrimSpace(out) != "" {
		t.Errorf("fsck of the code store: %s", out)
	}
}

func mapsEqual(a, b map[string]int) bool {
	ka, kb := make([]string, 0, len(a)), make([]string, 0, len(b))
	for k, v := range a {
		if b[k] != v {
			return false
		}
		ka = append(ka, k)
	}
	for k := range b {
		kb = append(kb, k)
	}
	return len(ka) == len(kb) && slices.Equal(slices.Sorted(slices.Values(ka)), slices.Sorted(slices.Values(kb)))
}
