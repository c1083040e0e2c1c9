package disk

import (
	"os"
	"path/filepath"
	"strings"
)

// Worktree is what the files of a linked git worktree say of it, read as
// git writes them, without running git: its top directory holds a .git
// file "gitdir: <path>"; that git directory holds a commondir file naming
// (relative to it) the repository's own .git directory, and a gitdir file
// naming the .git file back; the main worktree is the directory holding
// that .git directory.
type Worktree struct {
	Top     string // the linked worktree's top directory, holding the .git file
	Main    string // its main worktree; "" when it has none to share (Problem says why)
	Problem string // why Main is "": a .git file or a file it names that does not say what git writes
}

// Shared reports whether the worktree's project data is its main
// worktree's.
func (w Worktree) Shared() bool { return w.Main != "" }

// LinkedWorktree reads top's .git, if it is a file: ok is false when it
// is not (a directory, a main worktree's; or nothing). When it is, Main is
// the main worktree, or "" with Problem saying why there is none to use:
// the file does not hold "gitdir: <path>", the git directory it names has
// no commondir (a submodule's) or does not name this .git file back (the
// worktree was moved: git worktree repair mends that), or the common
// directory is a bare repository's (core.bare, or not named .git).
// Only those files are read; no path leads anywhere they do not name.
func LinkedWorktree(top string) (w Worktree, ok bool) {
	dotGit := under(top, ".git")
	if fi, err := Lstat(dotGit); err != nil || !fi.Regular {
		return Worktree{}, false
	}
	w.Top = top
	fail := func(why string) (Worktree, bool) {
		w.Problem = why
		return w, true
	}
	b, err := os.ReadFile(dotGit)
	if err != nil {
		return fail("cannot read " + dotGit + ": " + err.Error())
	}
	gitDir, found := strings.CutPrefix(firstLine(b), "gitdir:")
	if gitDir = strings.TrimSpace(gitDir); !found || gitDir == "" {
		return fail(dotGit + ` does not say "gitdir: <path>"`)
	}
	if !filepath.IsAbs(gitDir) {
		gitDir = filepath.Join(top, gitDir)
	}
	gitDir = filepath.Clean(gitDir)
	b, err = os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return fail(dotGit + " names " + gitDir + ", which has no commondir: not a linked worktree's git directory")
	}
	common := firstLine(b)
	if common == "" {
		return fail(filepath.Join(gitDir, "commondir") + " is empty")
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	common = filepath.Clean(common)
	b, err = os.ReadFile(filepath.Join(gitDir, "gitdir"))
	back := firstLine(b)
	if err == nil && back != "" && !filepath.IsAbs(back) {
		back = filepath.Join(gitDir, back)
	}
	if err != nil || back == "" || !sameFile(back, dotGit) {
		return fail(gitDir + " does not name " + dotGit + " back; if the worktree was moved, git worktree repair mends it")
	}
	if filepath.Base(common) != ".git" || bare(filepath.Join(common, "config")) {
		return fail("its repository " + common + " is bare: there is no main worktree to share")
	}
	main := filepath.Dir(common)
	if fi, err := Stat(common); err != nil || !fi.Dir || main == top {
		return fail(common + " is not a main worktree's .git directory")
	}
	w.Main = main
	return w, true
}

// FindRoot is the project a directory belongs to, dir absolute. Walking
// up from dir, the first of these cases that holds decides:
//
//  1. a directory below a linked worktree's top holds .code-agent/ (a
//     project nested in it, as in any tree) --> that directory;
//  2. the directory is a linked worktree's top (LinkedWorktree) with a
//     main worktree, and separate(main) is false — the main worktree's
//     config.json says worktree: shared, or nothing --> the main
//     worktree: every worktree's agents share the project's plans there
//     (a .code-agent/ the linked worktree has of its own is not read;
//     OwnSessions counts what it holds, for plangit to say so);
//  3. the same, with separate(main) true --> the worktree is a project
//     of its own: the top if it holds .code-agent/, else dir; nothing
//     above the top (the main worktree it may sit in) is its;
//  4. a linked worktree's top with no main worktree (Problem: a bare
//     repository's, a malformed .git file, a worktree moved), or any
//     other directory, holding .code-agent/ --> that directory;
//  5. none up to the filesystem's root --> dir itself.
//
// separate is asked only in cases 2 and 3, once.
func FindRoot(dir string, separate func(main string) bool) string {
	for d := filepath.Clean(dir); ; {
		if w, ok := LinkedWorktree(d); ok && w.Shared() {
			if !separate(w.Main) {
				return w.Main // case 2
			}
			if hasProject(d) {
				return d // case 3
			}
			return dir // case 3
		}
		if hasProject(d) {
			return d // cases 1 and 4
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir // case 5
		}
		d = parent
	}
}

// FindWorktree is the linked worktree dir lies in: the nearest directory
// from dir up whose .git is a file (LinkedWorktree). ok is false when the
// nearest .git is a directory, or there is none.
func FindWorktree(dir string) (w Worktree, ok bool) {
	for d := filepath.Clean(dir); ; {
		if w, ok := LinkedWorktree(d); ok {
			return w, true
		}
		if _, err := Lstat(under(d, ".git")); err == nil {
			return Worktree{}, false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Worktree{}, false
		}
		d = parent
	}
}

// OwnSessions counts the sessions a linked worktree keeps of its own, in
// its top's .code-agent/plans: those that FindRoot's case 2 does not read.
func OwnSessions(top string) int {
	entries, _ := os.ReadDir(under(top, ProjectDir+sep+PlansDir))
	n := 0
	for _, e := range entries {
		if e.IsDir() && PlainSessionID(e.Name()) {
			n++
		}
	}
	return n
}

// hasProject reports whether d holds ProjectDir.
func hasProject(d string) bool {
	fi, err := Stat(under(d, ProjectDir))
	return err == nil && fi.Dir
}

// firstLine is b's first line, trimmed.
func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(s)
}

// sameFile reports whether paths a and b name one file.
func sameFile(a, b string) bool {
	x, err := os.Stat(a)
	if err != nil {
		return false
	}
	y, err := os.Stat(b)
	return err == nil && os.SameFile(x, y)
}

// bare reports whether the git config file at path sets core.bare true.
// Only [core] sections are read, as git writes them; includes are not
// followed (git worktree add writes none that sets core.bare).
func bare(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	core, isBare := false, false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			name, _, _ := strings.Cut(strings.Trim(line, "[]"), " ")
			core = strings.EqualFold(strings.TrimSpace(name), "core")
			continue
		}
		if !core {
			continue
		}
		key, value, hasValue := strings.Cut(line, "=")
		if !strings.EqualFold(strings.TrimSpace(key), "bare") {
			continue
		}
		value, _, _ = strings.Cut(value, "#")
		value, _, _ = strings.Cut(value, ";")
		switch strings.ToLower(strings.TrimSpace(value)) {
		case "true", "yes", "on", "1":
			isBare = true
		case "":
			isBare = !hasValue // "bare" alone is true
		default:
			isBare = false
		}
	}
	return isBare
}
