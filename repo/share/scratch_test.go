package share

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
)

// TestScratchBorrowsOddPaths: the repository a push runs in reads every
// session's objects, whatever their directory's name holds — the list
// separator of GIT_ALTERNATE_OBJECT_DIRECTORIES, a newline, a double
// quote, a backslash — and so does a quarantine's alternates file, one
// line a store. (A push of several sessions used to lose those after the
// first whose path held the separator.)
func TestScratchBorrowsOddPaths(t *testing.T) {
	t.Parallel()
	repotest.RequireTool(t, "git")
	g, err := findGit("test")
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	names := []string{"plain", "with" + string(os.PathListSeparator) + "separator", `"quoted`}
	if runtime.GOOS != "windows" {
		names = append(names, "with\nnewline", `back\slash`)
	}
	var stores, blobs []string
	for _, name := range names {
		dir := filepath.Join(base, name)
		repotest.Git(t, base, "init", "-q", "--bare", dir)
		content := filepath.Join(base, "content")
		os.WriteFile(content, []byte("the object of "+name+"\n"), 0o644)
		out, err := g.run(base, nil, "--git-dir="+dir, "hash-object", "-w", content)
		if err != nil {
			t.Fatal(err)
		}
		stores = append(stores, filepath.Join(dir, "objects"))
		blobs = append(blobs, strings.TrimSpace(string(out)))
	}
	check := func(how, dir string, env []string) {
		t.Helper()
		for i, b := range blobs {
			if _, err := g.run(dir, env, "--git-dir="+dir, "cat-file", "-e", b); err != nil {
				t.Errorf("%s: the object of %q is not found: %v", how, names[i], err)
			}
		}
	}

	push := filepath.Join(base, "push")
	os.Mkdir(push, 0o755)
	if err := layoutGitDir(push); err != nil {
		t.Fatal(err)
	}
	env, err := objectsEnv(stores)
	if err != nil {
		t.Fatal(err)
	}
	check("a push's repository", push, env)
	// The first store is the push's own, the others alternates: each comes
	// first once.
	for i := range stores {
		rotated := append(append([]string{}, stores[i:]...), stores[:i]...)
		env, _ := objectsEnv(rotated)
		check("a push's repository, "+names[i]+" first", push, env)
	}

	quarantine := filepath.Join(base, "quarantine")
	os.Mkdir(quarantine, 0o755)
	if err := layoutGitDir(quarantine); err != nil {
		t.Fatal(err)
	}
	if err := layoutObjects(filepath.Join(quarantine, "objects"), stores); err != nil {
		t.Fatal(err)
	}
	check("a quarantine", quarantine, nil)
}

// TestScratchOfKilledProcessSwept: the git directory a killed push or
// fetch left in the scratch folder goes when the next one is made; one
// whose process still runs stays; and the folder is the user's cache,
// outside any project.
func TestScratchOfKilledProcessSwept(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the user's cache folder is named by XDG_CACHE_HOME on Linux alone")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(cache, "plangit", "git")
	dead := filepath.Join(root, repo.UnlockedPrefix+strconv.Itoa(gone.Process.Pid)+"-push-1")
	alive := filepath.Join(root, repo.UnlockedPrefix+strconv.Itoa(os.Getpid())+"-push-2")
	for _, d := range []string{dead, alive} {
		if err := os.MkdirAll(filepath.Join(d, "refs"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := newScratch(pushPrefix())
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if filepath.Dir(dir) != root {
		t.Errorf("the git directory is made in %s, not in the user's cache %s", filepath.Dir(dir), root)
	}
	if _, err := os.Lstat(dead); !os.IsNotExist(err) {
		t.Errorf("the killed process's git directory is left: %v", err)
	}
	if _, err := os.Lstat(alive); err != nil {
		t.Errorf("a running process's git directory was taken: %v", err)
	}
}
