package disk

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// gitRun runs git in dir, as the person would, with an identity of the
// test's own.
func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// worktrees makes a repository main with one commit and a linked worktree
// of it at each of the paths given (relative to the temporary directory,
// which is returned).
func worktrees(t *testing.T, linked ...string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if runtime.GOOS == "windows" {
			t.Skip("git is not installed (on Windows, Git for Windows; none runs under Wine): the worktrees are git's own")
		}
		t.Fatal("git is needed: the worktrees are git's own")
	}
	base, _ := filepath.EvalSymlinks(t.TempDir())
	gitRun(t, base, "init", "-q", "-b", "main", "main")
	gitRun(t, filepath.Join(base, "main"), "commit", "-q", "--allow-empty", "-m", "start")
	for i, l := range linked {
		gitRun(t, filepath.Join(base, "main"), "worktree", "add", "-q", "-b", "b"+string(rune('0'+i)), filepath.Join(base, l))
	}
	return base
}

// TestFindRootLinkedWorktree walks FindRoot's cases through worktrees git
// made.
func TestFindRootLinkedWorktree(t *testing.T) {
	t.Parallel()
	base := worktrees(t, "linked", "main/.worktrees/nested")
	main, linked, nested := filepath.Join(base, "main"), filepath.Join(base, "linked"), filepath.Join(base, "main", ".worktrees", "nested")
	sub := filepath.Join(linked, "a", "b")
	os.MkdirAll(sub, 0o755)
	asked := ""
	shared := func(m string) bool { asked = m; return false }
	separate := func(string) bool { return true }

	// Case 2: the main worktree, with or without its .code-agent yet, and
	// whether or not the linked worktree has one of its own.
	if got := FindRoot(sub, shared); got != main || asked != main {
		t.Errorf("shared: FindRoot(%s) = %s (asked %q), want %s", sub, got, asked, main)
	}
	os.MkdirAll(filepath.Join(linked, ProjectDir, PlansDir, "old"), 0o755)
	if got := FindRoot(sub, shared); got != main {
		t.Errorf("shared, with a .code-agent of its own: %s, want %s", got, main)
	}
	if w, ok := FindWorktree(sub); !ok || w.Top != linked || w.Main != main || w.Problem != "" || OwnSessions(w.Top) != 1 {
		t.Errorf("FindWorktree(%s) = %+v, %v; OwnSessions %d", sub, w, ok, OwnSessions(linked))
	}
	if got := FindRoot(nested, shared); got != main {
		t.Errorf("nested, shared: %s, want %s", got, main)
	}
	// Case 3: the worktree's own, not the main worktree it sits in.
	if got := FindRoot(sub, separate); got != linked {
		t.Errorf("separate, with .code-agent: %s, want %s", got, linked)
	}
	os.MkdirAll(filepath.Join(main, ProjectDir), 0o755)
	if got := FindRoot(filepath.Join(nested), separate); got != nested {
		t.Errorf("nested, separate: %s, want %s", got, nested)
	}
	// Case 1: a project nested below the worktree's top is its own.
	os.MkdirAll(filepath.Join(linked, "a", ProjectDir), 0o755)
	if got := FindRoot(sub, shared); got != filepath.Join(linked, "a") {
		t.Errorf("nested project: %s", got)
	}
	// In the main worktree, nothing changes: separate is not asked.
	if got := FindRoot(main, func(string) bool { t.Error("asked in the main worktree"); return false }); got != main {
		t.Errorf("main: %s", got)
	}
}

// TestLinkedWorktreeProblems: a .git file that does not lead, as git
// writes it, to a main worktree is case 4 — the directory's own
// .code-agent, as anywhere — with the reason said.
func TestLinkedWorktreeProblems(t *testing.T) {
	t.Parallel()
	base := worktrees(t, "linked")
	main, linked := filepath.Join(base, "main"), filepath.Join(base, "linked")
	dotGit := filepath.Join(linked, ".git")
	good, _ := os.ReadFile(dotGit)
	elsewhere := filepath.Join(base, "elsewhere")
	os.MkdirAll(filepath.Join(elsewhere, ".git"), 0o755)
	os.WriteFile(filepath.Join(elsewhere, "commondir"), []byte(".\n"), 0o644)
	os.WriteFile(filepath.Join(elsewhere, "gitdir"), []byte(dotGit+"\n"), 0o644)
	for _, c := range []struct{ name, content, problem string }{
		{"not git's", "not a git file\n", `does not say "gitdir: <path>"`},
		{"empty", "", `does not say "gitdir: <path>"`},
		{"nowhere", "gitdir: " + filepath.Join(base, "nowhere") + "\n", "which has no commondir"},
		{"a main worktree's git directory", "gitdir: " + filepath.Join(main, ".git") + "\n", "which has no commondir"},
		{"another worktree's, gone", "gitdir: ../main/.git/worktrees/other\n", "which has no commondir"},
		// A git directory that names the file back, whose common
		// directory is no .git: no main worktree.
		{"a common directory not named .git", "gitdir: " + elsewhere + "\n", "is bare"},
	} {
		os.WriteFile(dotGit, []byte(c.content), 0o644)
		w, ok := FindWorktree(linked)
		if !ok || w.Main != "" || !strings.Contains(w.Problem, c.problem) {
			t.Errorf("%s: %+v, %v; want a problem saying %q", c.name, w, ok, c.problem)
		}
		if got := FindRoot(linked, func(string) bool { t.Errorf("%s: asked", c.name); return false }); got != linked {
			t.Errorf("%s: FindRoot = %s, want %s", c.name, got, linked)
		}
	}
	// Moved: the git directory names another .git file.
	copyDir := filepath.Join(base, "copy")
	os.MkdirAll(copyDir, 0o755)
	os.WriteFile(filepath.Join(copyDir, ".git"), good, 0o644)
	if w, _ := FindWorktree(copyDir); w.Main != "" || !strings.Contains(w.Problem, "git worktree repair") {
		t.Errorf("a copy of the .git file: %+v", w)
	}
	os.WriteFile(dotGit, good, 0o644)
	if w, _ := FindWorktree(linked); w.Main != main {
		t.Errorf("restored: %+v", w)
	}
}

// TestLinkedWorktreeOfBare: a bare repository's worktrees have no main
// worktree to share.
func TestLinkedWorktreeOfBare(t *testing.T) {
	t.Parallel()
	base := worktrees(t)
	gitRun(t, base, "clone", "-q", "--bare", "main", "bare.git")
	gitRun(t, filepath.Join(base, "bare.git"), "worktree", "add", "-q", "-b", "w", filepath.Join(base, "w"))
	w, ok := FindWorktree(filepath.Join(base, "w"))
	if !ok || w.Main != "" || !strings.Contains(w.Problem, "is bare") {
		t.Errorf("bare: %+v, %v", w, ok)
	}
	// A bare repository named .git (core.bare) is as bare.
	gitRun(t, base, "clone", "-q", "--bare", "main", filepath.Join("b2", ".git"))
	gitRun(t, filepath.Join(base, "b2", ".git"), "worktree", "add", "-q", "-b", "w", filepath.Join(base, "w2"))
	if w, _ := FindWorktree(filepath.Join(base, "w2")); w.Main != "" || !strings.Contains(w.Problem, "is bare") {
		t.Errorf("core.bare: %+v", w)
	}
}

func TestBare(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for content, want := range map[string]bool{
		"[core]\n\tbare = true\n":                       true,
		"[core]\n\tbare = false\n":                      false,
		"[Core]\n\tBare\n":                              true,
		"[core]\n\tbare = yes ; a comment\n":            true,
		"[remote \"x\"]\n\tbare = true\n[core]\n":       false,
		"[core]\n\tbare = true\n[core]\n\tbare = off\n": false,
		"": false,
	} {
		path := filepath.Join(dir, "config")
		os.WriteFile(path, []byte(content), 0o644)
		if got := bare(path); got != want {
			t.Errorf("bare(%q) = %v, want %v", content, got, want)
		}
	}
}
