package main

// The documentation's command examples, run as printed: every ```sh,
// ```bash and ```console block of README.md and docs/*.md, with the
// plangit, plangit-hook and plangit-mcp built from this tree first on PATH.
//
//   - The blocks of one file run in order in one scratch project (a new
//     temporary directory, its own HOME), so an earlier example sets up a
//     later one. The clock is PLANGIT_NOW=2026-11-20T10:00:00Z.
//   - A sh or bash block runs as one bash script (set -euo pipefail) and
//     must succeed.
//   - A console block is `$ command` lines (a line ending in \ goes on on
//     the next), each followed by what it prints. Each command runs in
//     bash; its standard output and error together must match the lines
//     printed, once what legitimately varies is set aside on both sides:
//     session ids, hashes, the scratch project's path (which the examples
//     call /work/app) and HOME. A line holding only … stands for any lines.
//     A command may fail only where its printed output shows plangit's
//     error line (`plangit: … [CODE]`), and then it must.
//   - An HTML comment on the line before a block, `<!-- example: … -->`,
//     says what is special about it, in directives separated by ";":
//     `not run (why)`; `output not compared (why)`; `needs PROGRAM` (the
//     block is skipped where PROGRAM is not installed); `terminal` (the
//     view plangit draws on an 80-column terminal, without colour:
//     CLICOLOR_FORCE=1 NO_COLOR=1 COLUMNS=80); `after testdata/docs/X.sh`
//     (a bash script run in the project first, to set up what the example
//     reads). Every exception is visible in the markdown, and a block
//     without one that fails fails the test.
//   - After a file's blocks, every session in its project passes
//     git fsck --strict with an empty git status --porcelain (where git is
//     installed).
//
// It also checks that every relative link of those files names a file that
// exists and, for a markdown file, a heading it has.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/plangit/plangit/repo/repotest"
)

// docExampleProject is the project path the examples print and send in
// hook payloads; the test puts its scratch project in its place.
const docExampleProject = "/work/app"

// docBlock is one fenced code block of a markdown file.
type docBlock struct {
	file   string // path relative to the repository's top
	line   int    // line of the opening fence, from 1
	lang   string // the fence's info string, first word
	text   string // the content, the fence's indentation removed
	marker string // the text of the example comment before it, if any
}

func (b docBlock) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

// docFiles are the markdown files whose examples run: README.md, then
// docs/*.md in name order.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return append([]string{"README.md"}, files...)
}

var (
	docExampleComment = regexp.MustCompile(`^\s*<!--\s*example:(.*)-->\s*$`)
	docFence          = regexp.MustCompile("^(\\s*)(```+|~~~+)\\s*([^`\\s]*)")
)

// docParseBlocks returns the fenced code blocks of a markdown file, and the
// lines of example comments that no runnable block follows.
func docParseBlocks(file string, src []byte) (blocks []docBlock, stray []int) {
	lines := strings.Split(string(src), "\n")
	pending, pendingLine := "", 0 // an example comment waiting for its block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := docExampleComment.FindStringSubmatch(l); m != nil {
			if pendingLine != 0 {
				stray = append(stray, pendingLine)
			}
			pending, pendingLine = strings.TrimSpace(m[1]), i+1
			continue
		}
		m := docFence.FindStringSubmatch(l)
		if m == nil {
			if strings.TrimSpace(l) != "" && pendingLine != 0 {
				stray = append(stray, pendingLine)
				pendingLine = 0
			}
			continue
		}
		indent, fence, lang := len(m[1]), m[2], m[3]
		b := docBlock{file: file, line: i + 1, lang: lang}
		if pendingLine != 0 {
			if docRunnable(lang) {
				b.marker = pending
			} else {
				stray = append(stray, pendingLine)
			}
			pendingLine = 0
		}
		var body []string
		for i++; i < len(lines); i++ {
			if t := strings.TrimSpace(lines[i]); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				break
			}
			c := lines[i]
			for n := 0; n < indent && strings.HasPrefix(c, " "); n++ {
				c = c[1:]
			}
			body = append(body, c)
		}
		b.text = strings.Join(body, "\n")
		blocks = append(blocks, b)
	}
	if pendingLine != 0 {
		stray = append(stray, pendingLine)
	}
	return blocks, stray
}

func docRunnable(lang string) bool { return lang == "sh" || lang == "bash" || lang == "console" }

// docDirectives is what an example comment says.
type docDirectives struct {
	notRun     string // why the block is not run
	noCompare  string // why its output is not compared
	needs      []string
	terminal   bool
	after      []string
	unexpected []string // directives the test does not know
}

// docParseDirectives reads an example comment: directives separated by ";"
// outside parentheses.
func docParseDirectives(marker string) docDirectives {
	var d docDirectives
	var parts []string
	depth, start := 0, 0
	for i, r := range marker {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ';':
			if depth == 0 {
				parts = append(parts, marker[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, marker[start:])
	reason := func(s, prefix string) string {
		r := strings.TrimSpace(strings.TrimPrefix(s, prefix))
		if !strings.HasPrefix(r, "(") || !strings.HasSuffix(r, ")") || len(r) < 3 {
			return ""
		}
		return r[1 : len(r)-1]
	}
	for _, p := range parts {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
		case strings.HasPrefix(p, "not run"):
			d.notRun = reason(p, "not run")
			if d.notRun == "" {
				d.unexpected = append(d.unexpected, p+" (say why, in parentheses)")
			}
		case strings.HasPrefix(p, "output not compared"):
			d.noCompare = reason(p, "output not compared")
			if d.noCompare == "" {
				d.unexpected = append(d.unexpected, p+" (say why, in parentheses)")
			}
		case strings.HasPrefix(p, "needs "):
			d.needs = append(d.needs, strings.Fields(strings.TrimPrefix(p, "needs "))...)
		case p == "terminal":
			d.terminal = true
		case strings.HasPrefix(p, "after "):
			f := strings.Fields(strings.TrimPrefix(p, "after "))
			if len(f) == 0 || !strings.HasPrefix(f[0], "testdata/docs/") {
				d.unexpected = append(d.unexpected, p+" (a script under testdata/docs/)")
				continue
			}
			d.after = append(d.after, f[0])
		default:
			d.unexpected = append(d.unexpected, p)
		}
	}
	return d
}

// docCommand is one command of a console block and what it prints.
type docCommand struct {
	line int // in the markdown file
	cmd  string
	want []string
}

// docParseConsole splits a console block into its commands.
func docParseConsole(b docBlock) ([]docCommand, error) {
	var cmds []docCommand
	lines := strings.Split(b.text, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "$ ") {
			if len(cmds) == 0 {
				return nil, fmt.Errorf("%s: line %q comes before any $ command", b.where(), l)
			}
			cmds[len(cmds)-1].want = append(cmds[len(cmds)-1].want, l)
			continue
		}
		c := docCommand{line: b.line + 1 + i, cmd: strings.TrimPrefix(l, "$ ")}
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l = lines[i]
			c.cmd += "\n" + l
		}
		cmds = append(cmds, c)
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("%s: a console block with no $ command (output alone is a ```text block)", b.where())
	}
	return cmds, nil
}

// docEnv is the environment the examples run in: nothing of the caller's
// but PATH, so no agent host's variables or git settings leak in.
func docEnv(bin, home, tmp string, terminal bool) []string {
	env := []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + tmp,
		"PLANGIT_NOW=2026-11-20T10:00:00Z",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_OPTIONAL_LOCKS=0",
	}
	if terminal {
		env = append(env, "CLICOLOR_FORCE=1", "NO_COLOR=1", "COLUMNS=80")
	}
	return env
}

var (
	docSessionID = regexp.MustCompile(`\b\d{8}-\d{6}-[0-9a-f]{6}\b`)
	docHash      = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	docErrorLine = regexp.MustCompile(`^plangit: .* \[[A-Z_]+\]$`)
)

// docNormalize sets aside what legitimately varies between a run and the
// printed example: the project's and HOME's paths, session ids, hashes,
// spaces at line ends and empty lines at the end.
func docNormalize(lines []string, project, home string) []string {
	var out []string
	for _, l := range lines {
		l = strings.ReplaceAll(l, project, docExampleProject)
		l = strings.ReplaceAll(l, home, "~")
		l = docSessionID.ReplaceAllString(l, "<session>")
		l = docHash.ReplaceAllString(l, "<hash>")
		out = append(out, strings.TrimRightFunc(l, unicode.IsSpace))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// docMatch reports whether got matches want, where a want line of … alone
// matches any lines.
func docMatch(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "…" {
		for i := 0; i <= len(got); i++ {
			if docMatch(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && want[0] == got[0] && docMatch(want[1:], got[1:])
}

// TestDocExamples runs the examples of README.md and docs/*.md, as the
// comment at the top of this file says.
func TestDocExamples(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash")
	}
	bin := repotest.RequirePrograms(t)
	_, gitErr := exec.LookPath("git")
	files := docFiles(t)
	t.Run("links", func(t *testing.T) { checkDocLinks(t, files) })
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			blocks, stray := docParseBlocks(filepath.ToSlash(file), src)
			for _, l := range stray {
				t.Errorf("%s:%d: an example comment must come right before a sh, bash or console block", file, l)
			}
			p := &docProject{t: t, bash: bash, bin: bin, dir: t.TempDir(), home: t.TempDir(), tmp: t.TempDir()}
			if dir, err := filepath.EvalSymlinks(p.dir); err == nil {
				p.dir = dir
			}
			if gitErr == nil {
				// The project is a git repository, as a reader's is: its
				// steps record code snapshots.
				repotest.Git(t, p.dir, "init", "-q", "-b", "main")
			}
			ran, notRun := 0, 0
			for _, b := range blocks {
				if !docRunnable(b.lang) {
					continue
				}
				d := docParseDirectives(b.marker)
				for _, u := range d.unexpected {
					t.Errorf("%s: unknown example directive %q", b.where(), u)
				}
				if d.notRun != "" {
					notRun++
					continue
				}
				if p.example(b, d) {
					ran++
				}
			}
			t.Logf("%d examples run, %d marked not run", ran, notRun)
			if gitErr == nil {
				repotest.CheckAll(t, p.dir)
			}
		})
	}
}

// docProject is the scratch project the examples of one file run in.
type docProject struct {
	t              *testing.T
	bash, bin      string
	dir, home, tmp string
}

// run runs script in bash in the project and returns what it printed, on
// standard output and error together, and its exit code.
func (p *docProject) run(b docBlock, d docDirectives, script string) (string, int) {
	p.t.Helper()
	cmd := exec.Command(p.bash, "-c", script)
	cmd.Dir, cmd.Env = p.dir, docEnv(p.bin, p.home, p.tmp, d.terminal)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), ee.ExitCode()
	} else if err != nil {
		p.t.Fatalf("%s: %v", b.where(), err)
	}
	return out.String(), 0
}

// inProject puts the scratch project where an example names /work/app.
func (p *docProject) inProject(s string) string {
	return strings.ReplaceAll(s, docExampleProject, p.dir)
}

// example runs one block as its directives say, and reports whether it
// ran.
func (p *docProject) example(b docBlock, d docDirectives) bool {
	t := p.t
	t.Helper()
	for _, prog := range d.needs {
		if _, err := exec.LookPath(prog); err != nil {
			t.Logf("%s: skipped: needs %s", b.where(), prog)
			return false
		}
	}
	for _, script := range d.after {
		if out, code := p.run(b, d, "set -euo pipefail\nsource '"+filepath.Join(docGetwd(t), script)+"'"); code != 0 {
			t.Fatalf("%s: %s exited %d:\n%s", b.where(), script, code, out)
		}
	}
	if b.lang != "console" {
		if out, code := p.run(b, d, "set -euo pipefail\n"+p.inProject(b.text)); code != 0 {
			t.Errorf("%s: the example exited %d (mark it <!-- example: not run (why) --> if it cannot run here):\n%s\n--- it printed:\n%s", b.where(), code, b.text, out)
		}
		return true
	}
	cmds, err := docParseConsole(b)
	if err != nil {
		t.Error(err)
		return true
	}
	for _, c := range cmds {
		out, code := p.run(b, d, p.inProject(c.cmd))
		got := docNormalize(strings.Split(out, "\n"), p.dir, p.home)
		want := docNormalize(c.want, p.dir, p.home)
		fails := false
		for _, l := range want {
			fails = fails || docErrorLine.MatchString(l)
		}
		switch {
		case d.noCompare == "" && !docMatch(want, got):
			t.Errorf("%s:%d: $ %s\n--- printed in the example:\n%s\n--- printed by plangit (exit %d):\n%s", b.file, c.line, c.cmd, strings.Join(want, "\n"), code, strings.Join(got, "\n"))
		case code != 0 && !fails:
			t.Errorf("%s:%d: $ %s: exit %d, where the example shows no error:\n%s", b.file, c.line, c.cmd, code, out)
		case code == 0 && fails:
			t.Errorf("%s:%d: $ %s: succeeded, where the example shows an error", b.file, c.line, c.cmd)
		}
	}
	return true
}

func docGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

var (
	docLink       = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	docCodeSpan   = regexp.MustCompile("`+[^`]*`+")
	docHeadingTag = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
)

// docLine is a line of a file and its index.
type docLine struct {
	n    int
	text string
}

// proseLines are a markdown file's lines outside fenced code blocks, in
// order, each with its index in the file.
func proseLines(src []byte) []docLine {
	var out []docLine
	fence := ""
	for i, l := range strings.Split(string(src), "\n") {
		if m := docFence.FindStringSubmatch(l); m != nil {
			switch {
			case fence == "":
				fence = m[2]
			case strings.HasPrefix(strings.TrimSpace(l), fence):
				fence = ""
			}
			continue
		}
		if fence == "" {
			out = append(out, docLine{i, l})
		}
	}
	return out
}

// docAnchors are the anchors GitHub gives a markdown file's headings.
func docAnchors(src []byte) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, pl := range proseLines(src) {
		m := docHeadingTag.FindStringSubmatch(pl.text)
		if m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[2]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}

// checkDocLinks checks every relative link of files: the file it names
// exists, and so does the heading its #anchor names.
func checkDocLinks(t *testing.T, files []string) {
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, pl := range proseLines(src) {
			i, l := pl.n, pl.text
			for _, m := range docLink.FindAllStringSubmatch(docCodeSpan.ReplaceAllString(l, ""), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				resolved := file
				if path != "" {
					resolved = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
					if _, err := os.Stat(resolved); err != nil {
						t.Errorf("%s:%d: link %s: no such file", file, i+1, target)
						continue
					}
				}
				if anchor == "" || !strings.HasSuffix(resolved, ".md") {
					continue
				}
				b, err := os.ReadFile(resolved)
				if err != nil {
					t.Fatal(err)
				}
				if !docAnchors(b)[anchor] {
					t.Errorf("%s:%d: link %s: %s has no heading #%s", file, i+1, target, resolved, anchor)
				}
			}
		}
	}
}
