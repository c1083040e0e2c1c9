package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plangit/plangit/hooks"
	"github.com/plangit/plangit/plan"
)

// demoSession is the session id the demo uses.
const demoSession = "demo"

// NewCmdDemo builds `plangit demo`.
func NewCmdDemo(f *Factory) *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:   "demo",
		Short: "Play a realistic agent session in a temporary directory and show what plangit keeps",
		Long: `demo plays what an agent does with plangit — a plan with phases and dependencies, steps
started and completed, a finding, an error logged twice, a hand edit, a mistaken completion
reopened — printing each command and its output. It leaves the project behind, in a new
temporary directory or in --dir (a directory that does not exist yet, or an empty one: the
demo never plays into a project), and ends with its path, commands to look at it that work
as printed, and how to remove it: the session there is a real git repository.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			temporary := dir == ""
			if temporary {
				d, err := os.MkdirTemp("", "plangit-demo-")
				if err != nil {
					return plan.WrapError(plan.CodeIOError, err, "cannot create a temporary directory")
				}
				dir = d
			} else if err := demoDir(dir); err != nil {
				return err
			}
			return demoRun(f, dir, temporary)
		},
	}
	c.Flags().StringVar(&dir, "dir", "", "play the demo in DIR, new or empty, instead of a new temporary directory")
	return c
}

// demoDir makes dir ready for the demo: it creates it when it does not
// exist, and refuses it when it holds anything. The demo ends by telling
// the user to remove the directory, and makes its session the active one:
// neither may touch a project of the user's.
func demoDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return plan.WrapError(plan.CodeIOError, err, "cannot create --dir %s", dir)
		}
		return nil
	case err != nil:
		if info, statErr := os.Stat(dir); statErr == nil && !info.IsDir() {
			return plan.Errorf(plan.CodeInvalidArgument, "--dir %s is a file", dir).Hinted("name a directory that does not exist yet, or an empty one")
		}
		return plan.WrapError(plan.CodeIOError, err, "cannot read --dir %s", dir)
	case len(entries) > 0:
		return plan.Errorf(plan.CodeInvalidArgument, "--dir %s is not empty", dir).Hinted("the demo plays only in a directory that does not exist yet or an empty one, never in a project (omit --dir for a new temporary directory)")
	}
	return nil
}

// demoStep is one thing the demo does: a plangit command, or a narrated
// action on the files (shown: the command line it prints). A step marked
// code plays only in a git project, where steps record code snapshots.
type demoStep struct {
	say   string
	args  []string
	shown string
	do    func(root, sessionDir string) error
	code  bool
}

// demoFiles are the project the demo's agent works in, committed before
// it starts when git is at hand.
var demoFiles = map[string]string{
	"go.mod": "module example.com/users\n\ngo 1.26\n",
	"internal/user/service.go": `package user

// Service reads users.
type Service struct{ db DB }

// GetUser reads one user.
func (s *Service) GetUser(id string) (User, error) {
	return s.db.QueryUser(id)
}
`,
}

// demoGit makes dir a git project holding demoFiles, committed; false when
// git is not installed (the demo then plays without code snapshots).
func demoGit(w io.Writer, dir string) bool {
	if _, err := exec.LookPath("git"); err != nil {
		return false
	}
	for name, text := range demoFiles {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if os.MkdirAll(filepath.Dir(p), 0o755) != nil || os.WriteFile(p, []byte(text), 0o644) != nil {
			return false
		}
	}
	const line = "git init -q && git add -A && git commit -q -m 'UserService, no cache yet'"
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "UserService, no cache yet"}} {
		git := exec.Command("git", args...)
		git.Dir = dir
		git.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Demo", "GIT_AUTHOR_EMAIL=demo@example.com",
			"GIT_COMMITTER_NAME=Demo", "GIT_COMMITTER_EMAIL=demo@example.com")
		if git.Run() != nil {
			return false
		}
	}
	fmt.Fprintf(w, "\n# The project is a git repository: every step boundary records its files too.\n$ %s\n", line)
	return true
}

// demoWrite is a demo step's edit of a project file.
func demoWrite(name, text string) func(root, sessionDir string) error {
	return func(root, _ string) error {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(text), 0o644)
	}
}

func demoScript() []demoStep {
	return []demoStep{
		{say: "An agent starts a plan for its task.", args: []string{"init", "Add caching to UserService",
			"--goal", "cache user lookups without changing the public API", "--phase", "Analysis", "--phase", "Build", "--phase", "Verify"}},
		{args: []string{"step", "add", "Read UserService and find the hot paths", "--phase", "1"}},
		{args: []string{"step", "add", "Design the cache (LRU, 5-minute TTL)", "--phase", "1", "--needs", "1"}},
		{args: []string{"step", "add", "Implement the cache layer", "--phase", "2", "--needs", "2"}},
		{args: []string{"step", "add", "Use the cache in UserService.GetUser", "--phase", "2", "--needs", "3"}},
		{args: []string{"step", "add", "Benchmark before and after", "--phase", "3", "--needs", "4"}},
		{say: "It works through the plan, recording what it learns.", args: []string{"next"}},
		{args: []string{"finding", "add", "--category", "code", "--title", "GetUser is the hot path",
			"--source", "internal/user/service.go:42", "70% of requests call GetUser, and every call queries the database."}},
		{args: []string{"step", "done", "1", "--result", "3 hot paths, all in GetUser"}},
		{args: []string{"next"}},
		{args: []string{"step", "done", "2", "--result", "an LRU keyed by user id, entries expire after 5 minutes"}},
		{args: []string{"next"}},
		{code: true, shown: "$EDITOR internal/user/cache.go", do: demoWrite("internal/user/cache.go", `package user

import "time"

// cache keeps users for five minutes.
type cache struct {
	entries map[string]entry
}

type entry struct {
	user    User
	expires time.Time
}
`)},
		{say: "A test fails twice the same way; the error log counts it instead of adding rows.",
			args: []string{"error", "add", "--tool", "Bash", "go test ./...: TestCache timed out after 30s"}},
		{args: []string{"error", "add", "--tool", "Bash", "go test ./...: TestCache timed out after 45s"}},
		{args: []string{"step", "progress", "3", "4/5"}},
		{say: "It marks step 4 done by mistake, then reopens it; history keeps both.", args: []string{"step", "done", "4", "--force"}},
		{args: []string{"step", "reopen", "4"}},
		{say: "A person adds a step by editing task_plan.md by hand.", shown: "$EDITOR .code-agent/plans/demo/" + plan.PlanFile, do: func(_, dir string) error {
			path := filepath.Join(dir, plan.PlanFile)
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			edited := bytes.Replace(b, []byte("\n<!-- plangit"), []byte("- [ ] Document the cache in the README\n\n<!-- plangit"), 1)
			return os.WriteFile(path, edited, 0o644)
		}},
		{say: "The next command adopts the edit as its own revision first.", args: []string{"step", "done", "3", "--result", "cache.go with Get/Set and TTL eviction; tests pass"}},
		{say: "What step 3 did to the project, from the snapshots at its start and end.", code: true, args: []string{"diff", "--code", "3", "--stat"}},
		{args: []string{"show", "--all"}},
		{args: []string{"status"}},
	}
}

func demoRun(f *Factory, dir string, temporary bool) error {
	w := f.IO.Out
	human := !f.JSON
	if f.JSON || f.Quiet {
		w = io.Discard
	}
	sub := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: w, ErrOut: f.IO.ErrOut}, Now: f.Now, Getwd: f.Getwd,
		Getenv: func(k string) string {
			if k == "PLANGIT_ACTOR" {
				return "agent"
			}
			return ""
		}}
	sessionDir := filepath.Join(dir, ".code-agent", "plans", demoSession)
	withGit := demoGit(w, dir)
	for _, st := range demoScript() {
		if st.code && !withGit {
			continue
		}
		if st.say != "" {
			fmt.Fprintf(w, "\n# %s\n", st.say)
		}
		if st.do != nil {
			fmt.Fprintf(w, "$ %s\n", st.shown)
			if err := st.do(dir, sessionDir); err != nil {
				return plan.WrapError(plan.CodeIOError, err, "demo: cannot edit %s", st.shown)
			}
			continue
		}
		fmt.Fprintf(w, "$ plangit %s\n", quoteArgs(st.args))
		args := append([]string{"--root", dir, "--session", demoSession}, st.args...)
		if code := Run(sub, args); code != 0 {
			return plan.Errorf(plan.CodeInternal, "demo: plangit %s failed (exit %d)", quoteArgs(st.args), code)
		}
	}
	proj, err := sub.Project()
	if err != nil {
		return err
	}
	s, err := proj.Open(demoSession)
	if err != nil {
		return err
	}
	revs, err := s.Revisions()
	if err != nil {
		return err
	}
	if !human {
		return f.print(map[string]any{"dir": dir, "temporary": temporary, "session": demoSession, "session_dir": s.Dir, "revisions": revs}, nil)
	}
	fmt.Fprintf(w, "\n# Every change above is one commit in the session's git repository:\n")
	for i := len(revs) - 1; i >= 0; i-- {
		r := revs[i]
		fmt.Fprintf(w, "  %s @%-2d %-6s %d/%d  %s\n", r.Hash[:7], r.N, r.Actor, r.Done, r.Total, r.Summary)
	}
	self, note := selfCommand()
	root := self + " --root " + quoteArgs([]string{dir})
	fmt.Fprintf(w, "\nThe project is in %s", dir)
	if temporary {
		fmt.Fprint(w, ", a temporary directory")
	}
	fmt.Fprintf(w, ". Look at it%s:\n", note)
	fmt.Fprintf(w, "  git -C %s log --stat    # the plan's history, read by the real git\n", quoteArgs([]string{s.Dir}))
	fmt.Fprintf(w, "  %s show --all    # the plan\n", root)
	fmt.Fprintf(w, "  %s report --html %s    # the plan and its history as one page\n", root, quoteArgs([]string{filepath.Join(dir, "plan.html")}))
	fmt.Fprintf(w, "Remove it when you are done:\n  rm -rf %s\n", quoteArgs([]string{dir}))
	return nil
}

// selfCommand is how to run this plangit again from a shell: "plangit"
// when that is this very binary on PATH; "go run ." when go run built it
// (the binary is gone when the demo ends); else its full path. note says
// where the command works when that needs saying.
func selfCommand() (cmd, note string) {
	exe, err := os.Executable()
	if err != nil {
		return "plangit", ""
	}
	if onPath, err := exec.LookPath("plangit"); err == nil {
		a, errA := os.Stat(onPath)
		b, errB := os.Stat(exe)
		if errA == nil && errB == nil && os.SameFile(a, b) {
			return "plangit", ""
		}
	}
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return "go run .", " (from plangit's source directory, where go run . demo ran)"
	}
	return quoteArgs([]string{exe}), ""
}

// quoteArgs prints arguments as a shell would need them.
func quoteArgs(args []string) string { return hooks.ShellJoin(args) }
