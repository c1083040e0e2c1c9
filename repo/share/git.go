package share

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
)

// gitRunner runs the user's own git. Every network operation plangit makes
// goes through it, so the user's credential helpers, ssh configuration,
// proxies and url.*.insteadOf rules apply as they do for the project, and
// go-git's transports stay out of the binary.
type gitRunner struct {
	path string
	// background is set for a push a hook started: no one is there to
	// answer a prompt, so git must not ask, and a hung connection is cut.
	background bool
}

// backgroundTimeout bounds a background push: a hook's push must not
// linger for hours on a connection that hangs.
const backgroundTimeout = 5 * time.Minute

// findGit looks for git on PATH. what names the command that needs it.
func findGit(what string) (*gitRunner, error) {
	p, err := exec.LookPath("git")
	if err != nil {
		return nil, plan.Errorf(plan.CodeIOError, "%s needs git, and there is no git on PATH", what).Hinted("install git (plangit reaches the project's remote through it, so your credentials and ssh configuration apply)")
	}
	return &gitRunner{path: p}, nil
}

// repoEnv are the variables git sets for one repository (git rev-parse
// --local-env-vars). They are dropped from git's environment, so that a
// plangit started from inside a git hook does not aim git at the project's
// repository when it means a session's, or the other way round.
var repoEnv = []string{"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE", "GIT_INDEX_FILE",
	"GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE",
	"GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_QUARANTINE_PATH"}

func (g *gitRunner) env(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(repoEnv, name) && name != "LC_ALL" && name != "LANGUAGE" {
			env = append(env, kv)
		}
	}
	// Messages in English: plangit reads a few of them (a missing remote
	// ref), and passes the rest on.
	env = append(env, "LC_ALL=C")
	if g.background {
		env = append(env, "GIT_TERMINAL_PROMPT=0", "GCM_INTERACTIVE=never")
	}
	return append(env, extra...)
}

// gitError is a git command that failed: its exit code and what it said.
type gitError struct {
	sub    string // the git command: push, fetch, ls-remote
	code   int
	stderr string
}

func (e *gitError) Error() string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(e.stderr), "\n") {
		l = strings.TrimSpace(l)
		// Hints are git's advice on what to do with git; plangit says its own.
		if l != "" && !strings.HasPrefix(l, "hint:") && !strings.HasPrefix(l, "Done") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 4 {
		lines = lines[len(lines)-4:]
	}
	msg := strings.Join(lines, "; ")
	if msg == "" {
		msg = "exit status " + strconv.Itoa(e.code)
	}
	return "git " + e.sub + ": " + msg
}

// run runs git with args in dir and returns its standard output. A failure
// is a *gitError carrying git's standard error; the output is returned too,
// for commands (push --porcelain) that report per ref on it.
func (g *gitRunner) run(dir string, extraEnv []string, args ...string) ([]byte, error) {
	ctx := context.Background()
	if g.background {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, backgroundTimeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, g.path, args...)
	cmd.Dir = dir
	cmd.Env = g.env(extraEnv)
	cmd.Stdin = nil
	if g.background {
		// In a process group of its own, so the timeout ends ssh and the
		// remote helpers git started too. A foreground git stays in
		// plangit's group, where the person's Ctrl-C reaches it.
		ownGroup(cmd)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		ge := &gitError{sub: subcommand(args), code: ee.ExitCode(), stderr: stderr.String()}
		if ctx.Err() != nil {
			ge.stderr += "\ngave up after " + backgroundTimeout.String()
		}
		return stdout.Bytes(), ge
	}
	return nil, plan.WrapError(plan.CodeIOError, err, "cannot run git")
}

// subcommand is the git command among args, after the options that come
// before it (-c key=value).
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-c" || args[i] == "-C":
			i++
		case !strings.HasPrefix(args[i], "-"):
			return args[i]
		}
	}
	return "git"
}
