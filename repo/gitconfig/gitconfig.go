// Package gitconfig reads git's own configuration files as git does —
// the system's, the user's, the repository's, GIT_CONFIG_COUNT's pairs,
// include.path and includeIf "gitdir:" — without running git, which would
// cost each commit of plangit's a process start (standard library only).
package gitconfig

import (
	"bufio"
	"cmp"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// configReader reads the keys of git's configuration plangit needs.
type configReader struct {
	vals   map[string]string // lower-case section.key → value
	home   string
	gitDir string // the project's git directory, for includeIf "gitdir:"
}

// Read reads the configuration git would use in dir's repository: each
// key, lower-case "section.key", and its value, later files winning.
func Read(dir string) map[string]string {
	c := &configReader{vals: map[string]string{}, home: os.Getenv("HOME")}
	gitDir, common := findGitDir(dir)
	c.gitDir = gitDir
	if !truthy(os.Getenv("GIT_CONFIG_NOSYSTEM")) {
		c.read(cmp.Or(os.Getenv("GIT_CONFIG_SYSTEM"), "/etc/gitconfig"), 0)
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		c.read(g, 0)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && c.home != "" {
			xdg = filepath.Join(c.home, ".config")
		}
		if xdg != "" {
			c.read(filepath.Join(xdg, "git", "config"), 0)
		}
		if c.home != "" {
			c.read(filepath.Join(c.home, ".gitconfig"), 0)
		}
	}
	if common != "" {
		c.read(filepath.Join(common, "config"), 0)
	}
	if n, err := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT")); err == nil {
		for i := range min(n, 100) {
			k := os.Getenv("GIT_CONFIG_KEY_" + strconv.Itoa(i))
			c.set(k, os.Getenv("GIT_CONFIG_VALUE_"+strconv.Itoa(i)))
		}
	}
	return c.vals
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// findGitDir finds the git directory of the work tree holding dir, as git
// does, and the common directory holding its config (they differ in a
// linked worktree).
func findGitDir(dir string) (gitDir, common string) {
	dir, _ = filepath.Abs(dir)
	for d := dir; ; d = filepath.Dir(d) {
		dot := filepath.Join(d, ".git")
		if fi, err := os.Stat(dot); err == nil {
			if fi.IsDir() {
				gitDir = dot
			} else if b, err := os.ReadFile(dot); err == nil {
				if v, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
					gitDir = strings.TrimSpace(v)
					if !filepath.IsAbs(gitDir) {
						gitDir = filepath.Join(d, gitDir)
					}
				}
			}
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if gitDir == "" {
		return "", ""
	}
	common = gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	return filepath.Clean(gitDir), filepath.Clean(common)
}

func (c *configReader) set(key, value string) {
	key = strings.ToLower(key)
	switch key {
	case "user.name", "user.email", "author.name", "author.email", "core.excludesfile", "core.filemode", "status.showuntrackedfiles":
		c.vals[key] = value
	}
}

// read reads one configuration file, following its includes (depth
// bounds them, as git's own limit of 10 does).
func (c *configReader) read(path string, depth int) {
	if depth > 10 {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	var section, sub string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 1<<20)
	var pending string // a line continued with a backslash
	for sc.Scan() {
		line := pending + sc.Text()
		pending = ""
		if strings.HasSuffix(line, `\`) && !strings.HasSuffix(line, `\\`) {
			pending = line[:len(line)-1]
			continue
		}
		line = strings.TrimLeft(line, " \t")
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				return // malformed: git stops too
			}
			head := line[1:end]
			line = strings.TrimSpace(line[end+1:])
			section, sub = head, ""
			if i := strings.IndexByte(head, '"'); i >= 0 {
				section = strings.TrimSpace(head[:i])
				sub = strings.TrimSuffix(head[i+1:], `"`)
				sub = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(sub)
			} else if i := strings.IndexByte(head, '.'); i >= 0 {
				section, sub = head[:i], head[i+1:]
			}
			section = strings.ToLower(section)
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		key, value := line, "true"
		if i := strings.IndexByte(line, '='); i >= 0 {
			key, value = line[:i], configValue(line[i+1:])
		}
		key = strings.ToLower(strings.TrimSpace(key))
		switch {
		case section == "include" && key == "path":
			c.read(c.includePath(path, value), depth+1)
		case section == "includeif" && key == "path":
			if c.matches(path, sub) {
				c.read(c.includePath(path, value), depth+1)
			}
		case sub == "":
			c.set(section+"."+key, value)
		}
	}
}

// configValue reads a value: quotes removed, escapes read, a comment cut.
func configValue(raw string) string {
	var b strings.Builder
	quoted, space := false, 0
	for i := 0; i < len(raw); i++ {
		ch := raw[i]
		switch {
		case ch == '"':
			quoted = !quoted
			space = 0
			continue
		case ch == '\\' && i+1 < len(raw):
			i++
			switch raw[i] {
			case 'n':
				ch = '\n'
			case 't':
				ch = '\t'
			case 'b':
				ch = '\b'
			default:
				ch = raw[i]
			}
		case !quoted && (ch == '#' || ch == ';'):
			return strings.TrimRight(b.String(), " \t")
		case !quoted && (ch == ' ' || ch == '\t'):
			if b.Len() == 0 {
				continue
			}
			space++
		default:
			space = 0
		}
		b.WriteByte(ch)
	}
	out := b.String()
	return out[:len(out)-space]
}

// includePath resolves an include's path: ~ is the home directory, and a
// relative path is relative to the including file.
func (c *configReader) includePath(from, p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(c.home, rest)
	}
	if !filepath.IsAbs(p) {
		return filepath.Join(filepath.Dir(from), p)
	}
	return p
}

// matches tells whether an includeIf condition holds for the project's
// repository: "gitdir:" and "gitdir/i:" are read; other conditions never
// hold here.
func (c *configReader) matches(from, cond string) bool {
	pattern, fold := "", false
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		pattern = cond[len("gitdir:"):]
	case strings.HasPrefix(cond, "gitdir/i:"):
		pattern, fold = cond[len("gitdir/i:"):], true
	default:
		return false
	}
	if c.gitDir == "" || pattern == "" {
		return false
	}
	switch {
	case strings.HasPrefix(pattern, "~/"):
		pattern = filepath.ToSlash(c.home) + pattern[1:]
	case strings.HasPrefix(pattern, "./"):
		pattern = filepath.ToSlash(filepath.Dir(from)) + pattern[1:]
	case !strings.HasPrefix(pattern, "/") && !filepath.IsAbs(pattern):
		pattern = "**/" + pattern
	}
	if strings.HasSuffix(pattern, "/") {
		pattern += "**"
	}
	dirs := []string{filepath.ToSlash(c.gitDir)}
	if real, err := filepath.EvalSymlinks(c.gitDir); err == nil && real != c.gitDir {
		dirs = append(dirs, filepath.ToSlash(real))
	}
	for _, d := range dirs {
		if fold {
			if globMatch(strings.ToLower(pattern), strings.ToLower(d)) {
				return true
			}
		} else if globMatch(pattern, d) {
			return true
		}
	}
	return false
}

// globMatch matches a path against a pattern as git's wildmatch does for
// includeIf: * and ? within one directory, ** across them, [a-z] and
// [!a-z] classes.
func globMatch(p, s string) bool {
	for len(p) > 0 {
		switch {
		case strings.HasPrefix(p, "**"):
			rest := strings.TrimPrefix(p[2:], "/")
			if rest == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if (i == 0 || s[i-1] == '/') && globMatch(rest, s[i:]) {
					return true
				}
			}
			return false
		case p[0] == '*':
			for i := 0; i <= len(s); i++ {
				if globMatch(p[1:], s[i:]) {
					return true
				}
				if i < len(s) && s[i] == '/' {
					break
				}
			}
			return false
		case p[0] == '?':
			if s == "" || s[0] == '/' {
				return false
			}
		case p[0] == '[':
			end := strings.IndexByte(p[1:], ']')
			if end < 0 || s == "" {
				return false
			}
			class, neg := p[1:end+1], false
			if class != "" && (class[0] == '!' || class[0] == '^') {
				class, neg = class[1:], true
			}
			in := false
			for i := 0; i < len(class); i++ {
				if i+2 < len(class) && class[i+1] == '-' {
					in = in || class[i] <= s[0] && s[0] <= class[i+2]
					i += 2
					continue
				}
				in = in || class[i] == s[0]
			}
			if in == neg {
				return false
			}
			p = p[end+1:]
		case p[0] == '\\' && len(p) > 1:
			if s == "" || s[0] != p[1] {
				return false
			}
			p = p[1:]
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
		}
		p, s = p[1:], s[1:]
	}
	return s == ""
}
