package share_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/repotest"
	"github.com/plangit/plangit/repo/share"
)

// hostileRemote builds, with git's own plumbing in the remote's
// repository, session tips git fsck --strict or plangit refuses.
type hostileRemote struct {
	w     *world
	files map[string]string // a clean session's files: name → blob
	root  string            // its tree
	tip   string            // its commit
}

func newHostileRemote(w *world, clean string) *hostileRemote {
	w.t.Helper()
	h := &hostileRemote{w: w, files: map[string]string{}}
	h.tip = strings.TrimSpace(w.git(w.bare, "rev-parse", share.RemoteRef(clean)))
	h.root = strings.TrimSpace(w.git(w.bare, "rev-parse", h.tip+"^{tree}"))
	for _, line := range strings.Split(strings.TrimSpace(w.git(w.bare, "ls-tree", h.root)), "\n") {
		meta, name, _ := strings.Cut(line, "\t")
		h.files[name] = strings.Fields(meta)[2]
	}
	return h
}

// blob writes content as a blob of the remote.
func (h *hostileRemote) blob(content string) string {
	return h.stdin(content, "hash-object", "-w", "--stdin")
}

func (h *hostileRemote) stdin(in string, args ...string) string {
	h.w.t.Helper()
	return strings.TrimSpace(gitStdin(h.w.t, h.w.bare, in, args...))
}

// tree makes a tree of the clean session's files with extra entries
// ("MODE TYPE HASH\tNAME") and without those named in drop.
func (h *hostileRemote) tree(extra []string, drop ...string) string {
	var lines []string
	for name, blob := range h.files {
		if !slicesContains(drop, name) {
			lines = append(lines, "100644 blob "+blob+"\t"+name)
		}
	}
	lines = append(lines, extra...)
	return h.stdin(strings.Join(lines, "\n")+"\n", "mktree", "--missing")
}

// commit makes a commit of tree on parent.
func (h *hostileRemote) commit(tree, parent, msg string) string {
	return strings.TrimSpace(h.w.git(h.w.bare, "commit-tree", tree, "-p", parent, "-m", msg))
}

func (h *hostileRemote) publish(id, commit string) {
	h.w.git(h.w.bare, "update-ref", share.RemoteRef(id), commit)
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestFetchRefusesWhatGitRefuses: a remote tip holding a ".." folder, a
// .git/config, a gitlink, a symbolically linked findings.md, an
// executable task_plan.md, a folder, a commit git's checks refuse, or a
// clean tip with such a revision behind it is refused, naming the session
// and the reason, and leaves nothing: no session, no object, no ref, no
// quarantine, and git fsck --strict clean in every repository. Sessions
// whose ids init refuses are refused too, while the clean sessions of the
// same fetch come in.
func TestFetchRefusesWhatGitRefuses(t *testing.T) {
	t.Parallel()
	w := newWorld(t, fileRemote)
	w.start(w.agent, "clean")
	ra, rr := w.remote(w.agent), w.remote(w.reviewer)
	statuses(t, ra.Push([]string{"clean"}, w.opts()), "clean:created")
	h := newHostileRemote(w, "clean")

	config := h.blob("[core]\n\tfsmonitor = touch /tmp/pwned\n")
	dotgit := h.stdin("100644 blob "+config+"\tconfig\n", "mktree")
	link := h.blob("../../../../etc/passwd")
	planBlob := h.files[plan.PlanFile]
	badCommit := h.stdin("tree "+h.root+"\nparent "+h.tip+"\nauthor Mallory <mallory 1700000000 +0000\ncommitter Mallory <m@example.com> 1700000000 +0000\n\nbad ident\n",
		"hash-object", "-t", "commit", "-w", "--literally", "--stdin")
	execTree := h.tree([]string{"100755 blob " + planBlob + "\t" + plan.PlanFile}, plan.PlanFile)
	dotdot := h.tree([]string{"40000 tree " + dotgit + "\t.."})
	behind := h.commit(h.tree(nil), h.commit(execTree, h.tip, "hostile"), "clean again")
	behindDots := h.commit(h.tree(nil), h.commit(dotdot, h.tip, "hostile"), "clean again")
	cases := []struct {
		id, tip, why string
	}{
		// git's own checks refuse these first.
		{"dotdot", h.commit(dotdot, h.tip, "x"), "what git fetched of it: object " + dotdot[:7] + " fails git's checks (hasDotdot"},
		{"dotgit", h.commit(h.tree([]string{"40000 tree " + dotgit + "\t.git"}), h.tip, "x"), "fails git's checks (hasDotgit"},
		{"gitlink", h.commit(h.tree([]string{"160000 commit " + h.tip + "\tsub"}), h.tip, "x"), `its tip %s holds "sub" as a gitlink`},
		{"symlink", h.commit(h.tree([]string{"120000 blob " + link + "\t" + plan.FindingsFile}, plan.FindingsFile), h.tip, "x"), `its tip %s holds "findings.md" as a symbolic link`},
		{"exec", h.commit(execTree, h.tip, "x"), `its tip %s holds "task_plan.md" as an executable file`},
		{"folder", h.commit(h.tree([]string{"40000 tree " + dotgit + "\tnotes"}), h.tip, "x"), `its tip %s holds a folder "notes"`},
		{"other", h.commit(h.tree([]string{"100644 blob " + config + "\tREADME"}), h.tip, "x"), `its tip %s holds "README", which is not a plangit session file`},
		{"badident", badCommit, "what git fetched of it: object " + badCommit[:7] + " fails git's checks (badEmail"},
		{"behind", behind, `in the history behind its tip %s, holds "task_plan.md" as an executable file`},
		{"behinddots", behindDots, "fails git's checks (hasDotdot"},
	}
	var ids []string
	for _, c := range cases {
		h.publish(c.id, c.tip)
		ids = append(ids, c.id)
	}
	before := projectState(t, w.reviewer.Root)
	res := rr.Fetch(ids, w.opts())
	for i, c := range cases {
		r := res[i]
		why := c.why
		if strings.Contains(why, "%s") {
			why = strings.ReplaceAll(why, "%s", c.tip[:7])
		}
		if r.Status != "failed" || !plan.HasCode(r.Err(), plan.CodeInvalidArgument) ||
			!strings.Contains(r.Message, "session "+c.id+" on origin is refused") || !strings.Contains(r.Message, why) {
			t.Errorf("%s: %s %v\nwant %q", c.id, r.Status, r.Err(), why)
		}
		if _, err := os.Lstat(filepath.Join(w.reviewer.PlansDir(), c.id)); !os.IsNotExist(err) {
			t.Errorf("%s: the refused session left %v", c.id, err)
		}
	}
	if after := projectState(t, w.reviewer.Root); after != before {
		t.Errorf("a refused fetch changed the project's repository:\n%s\n%s", before, after)
	}

	// A session here that the remote moves to a hostile revision keeps
	// what it had: its head, its record of the remote's tip, its objects;
	// and a push that finds the remote moved fetches it, and refuses it
	// the same way. go test ./... moves it to two of the revisions, one
	// that git refuses and one that plangit does (each with
	// PLANGIT_LONG=1).
	statuses(t, rr.Fetch([]string{"clean"}, w.opts()), "clean:new")
	r1 := w.open(w.reviewer, "clean")
	headBefore, objsBefore := head(t, r1), w.git(r1.Dir, "count-objects", "-v")
	trackBefore := w.git(r1.Dir, "for-each-ref")
	for _, c := range cases {
		if !repotest.Long() && c.id != "behind" && c.id != "dotgit" {
			continue
		}
		h.publish("clean", c.tip)
		res := rr.Fetch([]string{"clean"}, w.opts())
		statuses(t, res, "clean:failed")
		if !strings.Contains(res[0].Message, "session clean on origin is refused") {
			t.Errorf("clean moved to %s: %v", c.id, res[0].Err())
		}
		if head(t, r1) != headBefore || w.git(r1.Dir, "count-objects", "-v") != objsBefore || w.git(r1.Dir, "for-each-ref") != trackBefore {
			t.Errorf("clean moved to %s: the refused fetch changed the session", c.id)
		}
		if left, _ := filepath.Glob(filepath.Join(r1.GitDir(), "plangit", "tmp-*")); len(left) != 0 {
			t.Errorf("clean moved to %s: left %v", c.id, left)
		}
		w.addStep(w.open(w.agent, "clean"), "more "+c.id)
		pres := ra.Push([]string{"clean"}, w.opts())
		statuses(t, pres, "clean:failed")
		if !strings.Contains(pres[0].Message, "session clean on origin is refused") {
			t.Errorf("push over %s: %v", c.id, pres[0].Err())
		}
	}
	h.publish("clean", h.tip)

	// Ids init refuses are refused; the clean sessions of the same fetch
	// still come in.
	for _, id := range []string{"-", "-c", "-rf"} {
		h.publish(id, h.tip)
	}
	for _, c := range cases {
		w.git(w.bare, "update-ref", "-d", share.RemoteRef(c.id))
	}
	w.start(w.agent, "other")
	statuses(t, ra.Push([]string{"other"}, w.opts()), "other:created")
	res = rr.Fetch([]string{"..", "-rf"}, w.opts())
	var err error
	statuses(t, res, "..:failed", "-rf:failed")
	for _, r := range res {
		if !plan.HasCode(r.Err(), plan.CodeInvalidSessionID) || !strings.Contains(r.Message, `"`+r.Session+`"`) {
			t.Errorf("%s: %v", r.Session, r.Err())
		}
	}
	res, err = rr.FetchAll(w.opts())
	if err != nil {
		t.Fatal(err)
	}
	statuses(t, res, "-:failed", "-c:failed", "-rf:failed", "clean:up-to-date", "other:new")
	for _, r := range res[:3] {
		if !plan.HasCode(r.Err(), plan.CodeInvalidSessionID) || !strings.Contains(r.Message, "session "+r.Session+" is refused") || !strings.Contains(r.Message, `begins with "-"`) {
			t.Errorf("%s: %v", r.Session, r.Err())
		}
		if _, err := os.Lstat(filepath.Join(w.reviewer.PlansDir(), r.Session)); !os.IsNotExist(err) {
			t.Errorf("%s: the refused session left %v", r.Session, err)
		}
	}
	if err := share.SyncError(res); err == nil || !strings.Contains(err.Error(), "3 of 5 sessions failed") {
		t.Errorf("fetch --all: %v", err)
	}
	// The hostile objects go from the remote too, for its own fsck.
	for _, id := range []string{"-", "-c", "-rf"} {
		w.git(w.bare, "update-ref", "-d", share.RemoteRef(id))
	}
	w.git(w.bare, "prune", "--expire=now")
	fsckAll(t, w)
}

// gitStdin runs the real git with in as its input.
func gitStdin(t testing.TB, dir, in string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	// The commits a test makes with git have an author and committer;
	// plangit's come from the projects' git configuration.
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Project Dev", "GIT_AUTHOR_EMAIL=dev@example.com",
		"GIT_COMMITTER_NAME=Project Dev", "GIT_COMMITTER_EMAIL=dev@example.com")
	cmd.Stdin = strings.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return string(out)
}

// TestQuarantineOfKilledFetchSwept: the quarantine a killed fetch left in
// .git/plangit/ goes with the next change; one whose fetch still runs
// stays.
func TestQuarantineOfKilledFetchSwept(t *testing.T) {
	t.Parallel()
	w := newWorld(t, fileRemote)
	s := w.start(w.agent, "s1")
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(s.GitDir(), "plangit", fmt.Sprintf("tmp-free-%d-incoming-1", gone.Process.Pid))
	alive := filepath.Join(s.GitDir(), "plangit", fmt.Sprintf("tmp-free-%d-incoming-2", os.Getpid()))
	for _, d := range []string{dead, alive} {
		os.MkdirAll(filepath.Join(d, "objects", "ab"), 0o755)
		os.WriteFile(filepath.Join(d, "objects", "ab", "cdef"), []byte("x"), 0o444)
	}
	w.addStep(s, "after a killed fetch")
	if _, err := os.Lstat(dead); !os.IsNotExist(err) {
		t.Errorf("the killed fetch's quarantine is left: %v", err)
	}
	if _, err := os.Lstat(alive); err != nil {
		t.Errorf("a running fetch's quarantine was taken: %v", err)
	}
	os.RemoveAll(alive)
	repotest.Check(t, s.Dir)
}
