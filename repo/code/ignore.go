package code

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/plangit/plangit/repo/gitconfig"
)

// ignores are the ignore rules in force in one directory: git's global
// excludes file, the repository's info/exclude, then each .gitignore from
// the top down to it, later rules winning.
type ignores struct {
	patterns []gitignore.Pattern
	m        gitignore.Matcher
}

// baseIgnores are the rules before any .gitignore: core.excludesFile (or
// git's default, $XDG_CONFIG_HOME/git/ignore) and info/exclude.
func baseIgnores(p *project, conf map[string]string) *ignores {
	var ps []gitignore.Pattern
	global := conf["core.excludesfile"]
	if global == "" {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			if home, err := os.UserHomeDir(); err == nil {
				xdg = filepath.Join(home, ".config")
			}
		}
		if xdg != "" {
			global = filepath.Join(xdg, "git", "ignore")
		}
	} else if rest, ok := strings.CutPrefix(global, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			global = filepath.Join(home, rest)
		}
	}
	if global != "" {
		ps = append(ps, readPatterns(global, nil)...)
	}
	ps = append(ps, readPatterns(filepath.Join(p.common, "info", "exclude"), nil)...)
	return &ignores{patterns: ps, m: gitignore.NewMatcher(ps)}
}

// in is the rules in directory dir (its slash path's parts), with the
// .gitignore it holds, if any.
func (ig *ignores) in(abs string, dir []string) *ignores {
	ps := readPatterns(filepath.Join(abs, ".gitignore"), dir)
	if len(ps) == 0 {
		return ig
	}
	all := append(ig.patterns[:len(ig.patterns):len(ig.patterns)], ps...)
	return &ignores{patterns: all, m: gitignore.NewMatcher(all)}
}

// ignored says whether the path (its parts) is excluded.
func (ig *ignores) ignored(path []string, dir bool) bool {
	return len(ig.patterns) > 0 && ig.m.Match(path, dir)
}

func readPatterns(path string, domain []string) []gitignore.Pattern {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// readConf is the git configuration a snapshot needs.
func readConf(top string) map[string]string { return gitconfig.Read(top) }
