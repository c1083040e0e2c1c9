package repo

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
