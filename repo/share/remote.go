package share

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/disk"
)

// SessionRefPrefix names sessions on a remote.
const SessionRefPrefix = "refs/plangit/sessions/"

// Remote is a git remote of the project, through which sessions are
// shared.
type Remote struct {
	Project repo.Project
	Name    string // the remote's name in the project's git
	URL     string // where it points, insteadOf rules applied (for messages)
	arg     string // what git is given: the name, or an absolute path
	config  string // the project's git configuration file
	top     string // the project's work tree
	git     *gitRunner
}

// RemoteOptions choose the remote and how git runs.
type RemoteOptions struct {
	Name       string // the remote; "" is the current branch's upstream remote, else origin
	What       string // the command that needs git, for the error when there is none
	Background bool   // started by a hook: git must not prompt, and is cut off after a while
}

// Remote finds the project's git repository and the remote to share
// sessions through. The project must be a git repository with that remote.
func NewRemote(p repo.Project, o RemoteOptions) (*Remote, error) {
	what := o.What
	if what == "" {
		what = "plangit"
	}
	g, err := findGit(what)
	if err != nil {
		return nil, err
	}
	g.background = o.Background
	out, err := g.run(p.Root, nil, "rev-parse", "--git-common-dir", "--show-toplevel")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 2 {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s shares sessions through the project's git remote, and %s is not in a git work tree", what, p.Root).Hinted("git init and git remote add origin URL first").With("root", p.Root)
	}
	common, top := lines[0], lines[1]
	if !filepath.IsAbs(common) {
		common = filepath.Join(p.Root, common)
	}
	if inSession(top) || inSession(common) {
		// A .code-agent/ made inside a session's directory makes it look
		// like a project; its repository is a session's, whose
		// configuration is in a work tree and is never the project's.
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s shares sessions through the project's git remote, and the git repository at %s is a plangit session's, not the project's", what, top).Hinted("run it from the project (--root PROJECT)").With("root", p.Root)
	}
	r := &Remote{Project: p, config: filepath.Join(common, "config"), top: top, git: g}

	// Every remote's URLs, every branch's upstream remote and every
	// insteadOf rule, in one call.
	out, _ = g.run(p.Root, nil, "config", "-z", "--get-regexp", `^(remote\..+\.url|branch\..+\.remote|url\..+\.insteadof)$`)
	remotes := map[string]bool{}
	firstURL := map[string]string{}
	upstream := map[string]string{}
	rewrites := false
	for _, kv := range strings.Split(string(out), "\x00") {
		key, value, _ := strings.Cut(kv, "\n")
		switch {
		case strings.HasPrefix(key, "remote.") && strings.HasSuffix(key, ".url"):
			name := key[len("remote.") : len(key)-len(".url")]
			if !remotes[name] {
				firstURL[name] = value
			}
			remotes[name] = true
		case strings.HasPrefix(key, "branch.") && strings.HasSuffix(key, ".remote"):
			upstream[key[len("branch."):len(key)-len(".remote")]] = value
		case strings.HasPrefix(key, "url.") && strings.HasSuffix(key, ".insteadof"):
			rewrites = true
		}
	}
	r.Name = o.Name
	// The current branch matters only when some branch's upstream is a
	// remote other than origin: otherwise the answer is origin, or none,
	// whichever branch is checked out, and git need not be asked.
	asks := false
	for _, up := range upstream {
		asks = asks || up != "origin" && up != "." && remotes[up]
	}
	if r.Name == "" && asks {
		if b, err := g.run(p.Root, nil, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
			if up := upstream[strings.TrimSpace(string(b))]; up != "" && up != "." && remotes[up] {
				r.Name = up
			}
		}
	}
	if r.Name == "" {
		if !remotes["origin"] {
			return nil, plan.Errorf(plan.CodeInvalidArgument, "the project's git has no remote to share sessions through: the current branch has no upstream and there is no origin%s; pass --remote NAME, or git remote add origin URL", remoteList(remotes))
		}
		r.Name = "origin"
	}
	if !remotes[r.Name] {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "the project's git has no remote %q%s; git remote -v lists them, git remote add %s URL adds one", r.Name, remoteList(remotes), r.Name).With("remote", r.Name)
	}
	if err := checkRefName(repo.TrackingRef(r.Name)); err != nil {
		return nil, plan.Errorf(plan.CodeInvalidArgument, "plangit cannot keep a ref for remote %q: %v", r.Name, err).With("remote", r.Name)
	}
	// git remote get-url is the remote's first URL with the insteadOf
	// rules applied: with no rule, it is the URL read above.
	r.URL, r.arg = firstURL[r.Name], r.Name
	if rewrites || r.URL == "" {
		out, err = g.run(p.Root, nil, "remote", "get-url", r.Name)
		if err != nil {
			return nil, plan.WrapError(plan.CodeInvalidArgument, err, "cannot read the URL of remote %s", r.Name).With("remote", r.Name)
		}
		r.URL = strings.TrimSpace(string(out))
	}
	if isRelativePath(r.URL) {
		// git reads a relative path from the work tree's top; plangit's git
		// runs in the session, so it is given the path itself.
		r.URL = filepath.Join(top, r.URL)
		r.arg = r.URL
	}
	r.URL = redactURL(r.URL)
	return r, nil
}

// inSession reports whether path is in a session's directory:
// …/.code-agent/plans/<id>/….
func inSession(path string) bool {
	for dir := filepath.Clean(path); ; {
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		if filepath.Base(parent) == disk.PlansDir && filepath.Base(filepath.Dir(parent)) == repo.DirName {
			return true
		}
		dir = parent
	}
}

// redactURL hides a password or token written into a URL
// (https://user:token@host/…): the URL goes into messages and records.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

func remoteList(remotes map[string]bool) string {
	if len(remotes) == 0 {
		return " (it has no remote at all)"
	}
	names := make([]string, 0, len(remotes))
	for n := range remotes {
		names = append(names, n)
	}
	sort.Strings(names)
	return " (its remotes: " + strings.Join(names, ", ") + ")"
}

// isRelativePath reports whether a remote URL is a relative local path:
// no scheme, not scp-like (host:path), not absolute.
func isRelativePath(url string) bool {
	if url == "" || filepath.IsAbs(url) || strings.Contains(url, "://") {
		return false
	}
	if i := strings.IndexByte(url, ':'); i >= 0 && !strings.Contains(url[:i], "/") {
		return false // host:path
	}
	return true
}

// scratchArgs are git's arguments to run a command against this remote
// in dir, a bare repository plangit made for it (newScratch), named to
// git (--git-dir), never found by looking around. git reads the user's
// own configuration (system, global), the one plangit wrote in dir, the
// project's (-c include.path=<project's .git/config>), then what plangit
// needs of git there — none of the project's hooks, no automatic gc or
// maintenance (a gc would repack and prune under plangit's feet), no
// commit-graph, no fsmonitor, no reflogs, no advice. A session's own
// .git/config is never read: it is in the work tree.
func (r *Remote) scratchArgs(dir string, args ...string) []string {
	base := []string{"--git-dir=" + dir}
	if _, err := os.Stat(r.config); err == nil {
		base = append(base, "-c", "include.path="+r.config)
	}
	base = append(base, "-c", "core.hooksPath="+os.DevNull, "-c", "gc.auto=0", "-c", "maintenance.auto=false",
		"-c", "fetch.writeCommitGraph=false", "-c", "core.fsmonitor=false", "-c", "core.logAllRefUpdates=false",
		"-c", "advice.pushUpdateRejected=false", "-c", "fetch.recurseSubmodules=false")
	return append(base, args...)
}

// RemoteRef is a session's ref on a remote.
func RemoteRef(id string) string { return SessionRefPrefix + id }

// checkRefName applies git's rules for ref names (git check-ref-format) to
// the parts plangit puts into one: session ids and remote names.
func checkRefName(ref string) error {
	for _, part := range strings.Split(ref, "/") {
		switch {
		case part == "":
			return errf("an empty part")
		case part[0] == '.':
			return errf("a part starting with a dot")
		case strings.HasSuffix(part, ".lock"):
			return errf("a part ending in .lock")
		}
	}
	switch {
	case strings.Contains(ref, ".."):
		return errf("\"..\"")
	case strings.HasSuffix(ref, "."):
		return errf("a dot at the end")
	case strings.Contains(ref, "@{"):
		return errf("\"@{\"")
	case strings.ContainsAny(ref, " ~^:?*[\\\x7f"):
		return errf("a character git does not allow")
	}
	for _, c := range []byte(ref) {
		if c < 0x20 {
			return errf("a control character")
		}
	}
	return nil
}

type refNameError string

func (e refNameError) Error() string { return "a git ref name cannot hold " + string(e) }

func errf(what string) error { return refNameError(what) }

// sessionRefError says a session's id cannot name a git ref.
func sessionRefError(id string, err error) error {
	return plan.Errorf(plan.CodeInvalidSessionID, "session %s cannot be shared: %v; plangit adopt %s --session NEW moves it to an id that can", id, err, id).With("session", id)
}

// lsRemote lists the sessions on the remote: id → tip. Refs under the
// namespace whose names are not session ids are skipped: their names.
func (r *Remote) lsRemote() (map[string]string, []string, error) {
	tips, skipped, _, err := r.lsSessions(false)
	return tips, skipped, err
}

// lsSessions is lsRemote, and with withCode the heads of the sessions'
// code snapshots too (id → head), in the same git ls-remote.
func (r *Remote) lsSessions(withCode bool) (tips map[string]string, skipped []string, codes map[string]string, err error) {
	args := []string{"-c", "core.hooksPath=" + os.DevNull, "ls-remote", r.arg, SessionRefPrefix + "*"}
	if withCode {
		args = append(args, CodeRefPrefix+"*")
	}
	out, err := r.git.run(r.top, nil, args...)
	if err != nil {
		return nil, nil, nil, r.netError(err, "cannot list the sessions on %s", r.Name)
	}
	tips, codes = map[string]string{}, map[string]string{}
	for _, line := range strings.Split(string(bytes.TrimSpace(out)), "\n") {
		hash, ref, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		if id, ok := strings.CutPrefix(ref, CodeRefPrefix); ok {
			if len(hash) == 40 {
				codes[id] = hash
			}
			continue
		}
		id, ok := strings.CutPrefix(ref, SessionRefPrefix)
		if !ok {
			continue
		}
		if repo.ValidateSessionID(id) != nil || len(hash) != 40 {
			skipped = append(skipped, id)
			continue
		}
		tips[id] = hash
	}
	return tips, skipped, codes, nil
}

// netError is an IO_ERROR for a git command that failed talking to the
// remote, with what git said.
func (r *Remote) netError(err error, format string, args ...any) *plan.Error {
	return plan.WrapError(plan.CodeIOError, err, format, args...).With("remote", r.Name)
}
