package code

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotGit says the project is not in a git work tree: there are no code
// snapshots, everything else works.
var ErrNotGit = errors.New("the project is not a git repository")

// project is where the project's git keeps what a snapshot reads.
type project struct {
	top     string // the work tree's top directory
	gitDir  string // the work tree's own git directory (its index, its info/exclude)
	common  string // the common directory: objects, config
	objects []string
}

// findProject finds the git work tree holding dir, as git does: the
// nearest ancestor holding .git, a directory or a "gitdir:" file (a
// linked worktree, a submodule), whose commondir names the shared
// directory. A bare repository or none is ErrNotGit.
func findProject(dir string) (*project, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for {
		p := filepath.Join(dir, ".git")
		if fi, err := os.Stat(p); err == nil {
			git := p
			if !fi.IsDir() {
				b, err := os.ReadFile(p)
				if err != nil {
					return nil, err
				}
				line := strings.TrimSpace(string(b))
				if !strings.HasPrefix(line, "gitdir:") {
					return nil, ErrNotGit
				}
				git = strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
				if !filepath.IsAbs(git) {
					git = filepath.Join(dir, git)
				}
			}
			pr := &project{top: dir, gitDir: git, common: git}
			if b, err := os.ReadFile(filepath.Join(git, "commondir")); err == nil {
				c := strings.TrimSpace(string(b))
				if !filepath.IsAbs(c) {
					c = filepath.Join(git, c)
				}
				pr.common = filepath.Clean(c)
			}
			if _, err := os.Stat(filepath.Join(pr.common, "objects")); err != nil {
				return nil, ErrNotGit
			}
			pr.objects = objectDirs(filepath.Join(pr.common, "objects"))
			return pr, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, ErrNotGit
		}
		dir = parent
	}
}

// objectDirs is an object directory and those its info/alternates names,
// followed one level deep (git follows five; one serves a shared clone).
func objectDirs(objects string) []string {
	dirs := []string{objects}
	b, err := os.ReadFile(filepath.Join(objects, "info", "alternates"))
	if err != nil {
		return dirs
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(objects, line)
		}
		dirs = append(dirs, filepath.Clean(line))
	}
	return dirs
}
