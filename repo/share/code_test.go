package share_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/code"
	"github.com/plangit/plangit/repo/repotest"
	"github.com/plangit/plangit/repo/share"
)

// projectFiles is how many files the project of the snapshot tests holds
// on the remote's main before any session starts.
const projectFiles = 200

// codeWorld is a world whose project holds projectFiles files, committed
// and pushed to the remote's main by the agent, pulled by the reviewer.
func codeWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t, fileRemote)
	for i := range projectFiles {
		writeFile(t, w.agent.Root, fmt.Sprintf("src/pkg%02d/file%03d.go", i%20, i), fmt.Sprintf("package pkg%02d\n\n// File %d.\nvar V%d = %d\n", i%20, i, i, i))
	}
	w.git(w.agent.Root, "add", "-A")
	w.git(w.agent.Root, "commit", "-q", "-m", "the project's files")
	w.git(w.agent.Root, "push", "-q", "origin", "main")
	w.git(w.reviewer.Root, "pull", "-q", "origin", "main")
	return w
}

func writeFile(t testing.TB, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// step moves step id by act: a step boundary, which takes a snapshot.
func (w *world) step(s *repo.Session, id string, act plan.Action) string {
	w.t.Helper()
	return w.change(s, func(p *plan.Plan) (plan.Change, error) {
		return p.Transition(id, act, plan.TransitionOpts{}, w.now)
	})
}

// codeStore opens a session's code store.
func codeStore(t testing.TB, s *repo.Session) *code.Store {
	t.Helper()
	cs, err := s.Code()
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func codeHeadOf(t testing.TB, s *repo.Session) plumbing.Hash {
	t.Helper()
	h, err := codeStore(t, s).Head()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// snapshotsOf is the code snapshot of each revision that names one, by
// revision hash.
func snapshotsOf(t testing.TB, s *repo.Session) map[string]plumbing.Hash {
	t.Helper()
	revs, err := s.Revisions()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]plumbing.Hash{}
	for _, r := range revs {
		if r.Code != "" {
			out[r.Hash] = plumbing.NewHash(r.Code)
		}
	}
	return out
}

// snapshotFiles reads every file of a snapshot: path → mode and content.
func snapshotFiles(t testing.TB, cs *code.Store, h plumbing.Hash) map[string]string {
	t.Helper()
	files, err := cs.Files(h)
	if err != nil {
		t.Fatalf("snapshot %s: %v", h, err)
	}
	out := map[string]string{}
	for p, f := range files {
		b, err := cs.Blob(f.Hash, 0)
		if err != nil {
			t.Fatalf("snapshot %s, %s: %v", h, p, err)
		}
		out[p] = f.Mode.String() + " " + string(b)
	}
	return out
}

// objectCount is how many objects a repository holds, loose and packed.
func objectCount(t testing.TB, dir string) int {
	t.Helper()
	n := 0
	for _, line := range strings.Split(gitIn(t, dir, "count-objects", "-v"), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		if k == "count" || k == "in-pack" {
			c, _ := strconv.Atoi(v)
			n += c
		}
	}
	return n
}

// reachable is every object a ref of a repository reaches.
func reachable(t testing.TB, dir, ref string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(gitIn(t, dir, "rev-list", "--objects", ref)), "\n") {
		h, _, _ := strings.Cut(line, " ")
		out[h] = true
	}
	return out
}

// fetchedObjects counts the objects in a session's code store that are
// its own: loose, or in packs that are not the project's, linked.
func fetchedObjects(t testing.TB, p repo.Project, s *repo.Session) int {
	t.Helper()
	dir := codeStore(t, s).ObjectsDir()
	n := 0
	loose, _ := filepath.Glob(filepath.Join(dir, "??", "*"))
	n += len(loose)
	idxs, _ := filepath.Glob(filepath.Join(dir, "pack", "pack-*.idx"))
	for _, idx := range idxs {
		if _, err := os.Stat(filepath.Join(p.Root, ".git", "objects", "pack", filepath.Base(idx))); err == nil {
			continue
		}
		b, err := os.ReadFile(idx)
		if err != nil {
			t.Fatal(err)
		}
		n += len(strings.Split(strings.TrimSpace(gitStdin(t, dir, string(b), "show-index")), "\n"))
	}
	return n
}

// TestCodeSnapshotsTravel: a session whose two steps edited the project
// is pushed with its code snapshots, and a reviewer's fetch brings them:
// every revision's snapshot holds the same files on both machines, the
// remote gained only what the steps changed (none of the project's files
// its main holds), and git gc --prune=now in the remote, and in the
// reviewer's project, keeps every snapshot whole.
func TestCodeSnapshotsTravel(t *testing.T) {
	t.Parallel()
	w := codeWorld(t)
	s := w.start(w.agent, "s1") // init and step 1 started: snapshots
	writeFile(t, w.agent.Root, "src/pkg03/file003.go", "package pkg03\n\n// File 3, changed by step 1.\nvar V3 = 33\n")
	writeFile(t, w.agent.Root, "src/cache/cache.go", "package cache\n\n// Cache is new in step 1.\ntype Cache struct{}\n")
	w.step(s, "1", plan.ActDone)
	w.step(s, "2", plan.ActStart)
	writeFile(t, w.agent.Root, "src/cache/cache.go", "package cache\n\n// Cache is new in step 1, grown in step 2.\ntype Cache struct{ n int }\n")
	os.Remove(filepath.Join(w.agent.Root, "src/pkg07/file007.go"))
	w.step(s, "2", plan.ActDone)
	agentSnaps := snapshotsOf(t, s)
	if len(agentSnaps) < 4 {
		t.Fatalf("the agent's session names %d snapshots, want 4 or more: %v", len(agentSnaps), agentSnaps)
	}
	head := codeHeadOf(t, s)

	before := objectCount(t, w.bare)
	ra := w.remote(w.agent)
	res := ra.Push([]string{"s1"}, w.opts())
	statuses(t, res, "s1:created")
	if res[0].Snapshots != head.String() {
		t.Errorf("push says snapshots %q, the code store's head is %s", res[0].Snapshots, head)
	}
	if got := strings.TrimSpace(gitIn(t, w.bare, "rev-parse", share.CodeRef("s1"))); got != head.String() {
		t.Errorf("the remote's %s is %s, want %s", share.CodeRef("s1"), got, head)
	}
	// What the remote gained: the session's objects, and of the
	// snapshots only what its main lacks.
	gained := objectCount(t, w.bare) - before
	plans := len(reachable(t, w.bare, share.RemoteRef("s1")))
	onMain := reachable(t, w.bare, "refs/heads/main")
	snaps := 0
	for h := range reachable(t, w.bare, share.CodeRef("s1")) {
		if !onMain[h] {
			snaps++
		}
	}
	if gained != plans+snaps || snaps > 30 {
		t.Errorf("the push added %d objects to the remote: the session's history is %d, the snapshots' beyond main %d (the project has %d files)",
			gained, plans, snaps, projectFiles)
	}
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:up-to-date")

	rr := w.remote(w.reviewer)
	res = rr.Fetch([]string{"s1"}, w.opts())
	statuses(t, res, "s1:new")
	if res[0].Snapshots != head.String() {
		t.Errorf("fetch says snapshots %q, want %s", res[0].Snapshots, head)
	}
	r1 := w.open(w.reviewer, "s1")
	// Nor did the fetch bring the files the reviewer's project holds:
	// the code store borrowed them.
	if n := fetchedObjects(t, w.reviewer, r1); n > snaps+5 {
		t.Errorf("the fetch brought %d objects of snapshots; what they hold beyond main is %d", n, snaps)
	}
	if got := codeHeadOf(t, r1); got != head {
		t.Errorf("the reviewer's code store is at %s, the agent's at %s", got, head)
	}
	reviewerSnaps := snapshotsOf(t, r1)
	if fmt.Sprint(reviewerSnaps) != fmt.Sprint(agentSnaps) {
		t.Errorf("the revisions name other snapshots on the reviewer's machine:\n%v\n%v", reviewerSnaps, agentSnaps)
	}
	ac, rc := codeStore(t, s), codeStore(t, r1)
	for rev, h := range agentSnaps {
		a, r := snapshotFiles(t, ac, h), snapshotFiles(t, rc, h)
		if fmt.Sprint(a) != fmt.Sprint(r) {
			t.Errorf("revision %s: snapshot %s differs between the machines", rev[:7], h)
		}
		if len(a) < projectFiles {
			t.Errorf("revision %s: snapshot %s holds %d files", rev[:7], h, len(a))
		}
	}
	last := snapshotFiles(t, rc, head)
	if !strings.Contains(last["src/cache/cache.go"], "grown in step 2") || !strings.Contains(last["src/pkg03/file003.go"], "changed by step 1") {
		t.Errorf("the last snapshot on the reviewer's machine: %q, %q", last["src/cache/cache.go"], last["src/pkg03/file003.go"])
	}
	if _, ok := last["src/pkg07/file007.go"]; ok {
		t.Errorf("the last snapshot holds the file step 2 deleted")
	}
	statuses(t, rr.Fetch([]string{"s1"}, w.opts()), "s1:up-to-date")
	fsckAll(t, w)

	// git gc --prune=now keeps every snapshot: in the remote, whose refs
	// reach them, and in the reviewer's project, whose objects the code
	// store borrowed by hard links.
	gitIn(t, w.bare, "gc", "-q", "--prune=now")
	gitIn(t, w.reviewer.Root, "gc", "-q", "--prune=now")
	for _, dir := range []string{w.bare, w.reviewer.Root} {
		if out := gitIn(t, dir, repotest.FsckArgs(dir, "--no-dangling")...); strings.TrimSpace(out) != "" {
			t.Errorf("git fsck --strict in %s after gc:\n%s", dir, out)
		}
	}
	for _, h := range agentSnaps {
		gitIn(t, w.bare, "ls-tree", "-r", h.String())
		snapshotFiles(t, codeStore(t, r1), h)
	}
	// A third clone fetches them from the remote gc packed. It is a local
	// clone, whose objects are the remote's, linked: the snapshots are in
	// the project already, and the code store borrows them all.
	third := repo.Project{Root: filepath.Join(filepath.Dir(w.bare), "third")}
	w.git(filepath.Dir(w.bare), "clone", "-q", w.bare, third.Root)
	statuses(t, w.remote(third).Fetch([]string{"s1"}, w.opts()), "s1:new")
	t1 := w.open(third, "s1")
	for rev, h := range agentSnaps {
		if fmt.Sprint(snapshotFiles(t, codeStore(t, t1), h)) != fmt.Sprint(snapshotFiles(t, ac, h)) {
			t.Errorf("revision %s: snapshot %s differs on the third clone", rev[:7], h)
		}
	}
	repotest.CheckAll(t, third.Root)
}

// TestCodeSnapshotsFromTwoMachines: the agent and the reviewer each take
// snapshots of one session; whichever pushes second finds the remote's
// snapshots ahead of its own, fetches and joins them, and pushes the
// join: the remote, and then both machines, reach both sets.
func TestCodeSnapshotsFromTwoMachines(t *testing.T) {
	t.Parallel()
	w := codeWorld(t)
	s, ra, rr := w.shared("s1")
	r1 := w.open(w.reviewer, "s1")

	writeFile(t, w.agent.Root, "src/pkg01/file001.go", "package pkg01\n\n// The agent's change.\n")
	w.step(s, "1", plan.ActDone)
	agentHead := codeHeadOf(t, s)
	writeFile(t, w.reviewer.Root, "src/pkg02/file002.go", "package pkg02\n\n// The reviewer's change.\n")
	w.step(r1, "2", plan.ActStart)
	reviewerHead := codeHeadOf(t, r1)
	if agentHead == reviewerHead {
		t.Fatal("the machines took the same snapshot")
	}

	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:pushed")
	res := rr.Push([]string{"s1"}, w.opts())
	statuses(t, res, "s1:merged")
	remoteCode := plumbing.NewHash(strings.TrimSpace(gitIn(t, w.bare, "rev-parse", share.CodeRef("s1"))))
	if res[0].Snapshots != remoteCode.String() || codeHeadOf(t, r1) != remoteCode {
		t.Errorf("the push says %s, the reviewer's store is at %s, the remote at %s", res[0].Snapshots, codeHeadOf(t, r1), remoteCode)
	}
	for _, h := range []plumbing.Hash{agentHead, reviewerHead} {
		gitIn(t, w.bare, "merge-base", "--is-ancestor", h.String(), remoteCode.String())
	}

	statuses(t, ra.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	ac, rc := codeStore(t, s), codeStore(t, r1)
	if codeHeadOf(t, s) != remoteCode {
		t.Errorf("the agent's store is at %s after the fetch, the remote at %s", codeHeadOf(t, s), remoteCode)
	}
	for _, cs := range []*code.Store{ac, rc} {
		for _, h := range []plumbing.Hash{agentHead, reviewerHead} {
			if !cs.Ancestor(h, remoteCode) {
				t.Errorf("%s does not reach %s", cs.Dir(), h)
			}
		}
	}
	if got := snapshotFiles(t, ac, reviewerHead)["src/pkg02/file002.go"]; !strings.Contains(got, "The reviewer's change") {
		t.Errorf("the agent reads the reviewer's snapshot as %q", got)
	}
	for rev, h := range snapshotsOf(t, s) {
		if fmt.Sprint(snapshotFiles(t, ac, h)) != fmt.Sprint(snapshotFiles(t, rc, h)) {
			t.Errorf("revision %s: snapshot %s differs between the machines", rev[:7], h)
		}
	}
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:up-to-date")
	fsckAll(t, w)
}

// TestCodeSnapshotsRefused: code snapshots on the remote that git's
// checks refuse (a tree holding .git) fail the fetch, and nothing of them
// lands: no session for a new one, no object or head in the code store of
// one here.
func TestCodeSnapshotsRefused(t *testing.T) {
	t.Parallel()
	w := codeWorld(t)
	s, ra, rr := w.shared("s1")
	r1 := w.open(w.reviewer, "s1")
	before := codeHeadOf(t, r1)
	objects := objectCount(t, codeStore(t, r1).Dir())

	// The agent moves on; then a hostile push replaces the code ref with
	// a snapshot whose tree holds .git.
	writeFile(t, w.agent.Root, "src/pkg01/file001.go", "package pkg01\n\n// changed\n")
	w.step(s, "1", plan.ActDone)
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:pushed")
	blob := strings.TrimSpace(gitStdin(t, w.bare, "[core]\n", "hash-object", "-w", "--stdin"))
	sub := strings.TrimSpace(gitStdin(t, w.bare, "100644 blob "+blob+"\tconfig\n", "mktree"))
	tree := strings.TrimSpace(gitStdin(t, w.bare, "040000 tree "+sub+"\t.git\n", "mktree"))
	bad := strings.TrimSpace(gitIn(t, w.bare, "-c", "user.name=x", "-c", "user.email=x@example.com", "commit-tree", tree, "-p", codeHeadOf(t, s).String(), "-m", "hostile"))
	gitIn(t, w.bare, "update-ref", share.CodeRef("s1"), bad)

	res := rr.Fetch([]string{"s1"}, w.opts())
	statuses(t, res, "s1:failed")
	if res[0].Code != plan.CodeInvalidArgument || !strings.Contains(res[0].Message, "code snapshots of session s1 on origin are refused") ||
		!strings.Contains(res[0].Message, "hasDotgit") {
		t.Errorf("fetch: %+v", res[0])
	}
	if got := codeHeadOf(t, r1); got != before {
		t.Errorf("the reviewer's code store moved to %s", got)
	}
	if got := objectCount(t, codeStore(t, r1).Dir()); got != objects {
		t.Errorf("the reviewer's code store holds %d objects, %d before", got, objects)
	}
	third := repo.Project{Root: filepath.Join(filepath.Dir(w.bare), "third")}
	w.git(filepath.Dir(w.bare), "clone", "-q", w.url, third.Root)
	statuses(t, w.remote(third).Fetch([]string{"s1"}, w.opts()), "s1:failed")
	if _, err := os.Stat(filepath.Join(third.PlansDir(), "s1")); !os.IsNotExist(err) {
		t.Errorf("a refused fetch left session s1 in the third clone: %v", err)
	}
	for _, p := range []repo.Project{w.agent, w.reviewer, third} {
		if out := gitIn(t, p.Root, repotest.FsckArgs(p.Root)...); strings.TrimSpace(out) != "" {
			t.Errorf("git fsck --strict in %s:\n%s", p.Root, out)
		}
		repotest.CheckAll(t, p.Root)
	}
}

// TestSessionWithoutSnapshotsShares: with code_snapshots off the session
// pushes and fetches as before, and the remote holds no code ref.
func TestSessionWithoutSnapshotsShares(t *testing.T) {
	t.Parallel()
	w := newWorld(t, fileRemote)
	if _, err := w.agent.SetConfig("code_snapshots", "off"); err != nil {
		t.Fatal(err)
	}
	s := w.start(w.agent, "s1")
	w.step(s, "1", plan.ActDone)
	res := w.remote(w.agent).Push([]string{"s1"}, w.opts())
	statuses(t, res, "s1:created")
	if res[0].Snapshots != "" {
		t.Errorf("push says snapshots %s", res[0].Snapshots)
	}
	if refs := gitIn(t, w.bare, "for-each-ref", "--format=%(refname)", "refs/plangit"); refs != "refs/plangit/sessions/s1\n" {
		t.Errorf("the remote holds:\n%s", refs)
	}
	res = w.remote(w.reviewer).Fetch([]string{"s1"}, w.opts())
	statuses(t, res, "s1:new")
	if res[0].Snapshots != "" {
		t.Errorf("fetch says snapshots %s", res[0].Snapshots)
	}
	sameHistory(t, s, w.open(w.reviewer, "s1"))
	if _, err := os.Stat(filepath.Join(w.reviewer.PlansDir(), "s1", ".git", code.StoreDir)); !os.IsNotExist(err) {
		t.Errorf("the fetch made a code store: %v", err)
	}
	fsckAll(t, w)
}

// TestCleanupRemovesSnapshots: cleanup removes a session's code store with
// it; the project's own objects, which the store held by hard links, stay
// as they were, and the project's git fsck stays clean.
func TestCleanupRemovesSnapshots(t *testing.T) {
	t.Parallel()
	w := codeWorld(t)
	s := w.start(w.agent, "s1")
	writeFile(t, w.agent.Root, "src/pkg01/file001.go", "package pkg01\n\n// changed\n")
	w.step(s, "1", plan.ActDone)
	w.change(s, func(p *plan.Plan) (plan.Change, error) { return p.Finish("done", true, w.now) })

	// The store links the project's pack.
	packs, _ := filepath.Glob(filepath.Join(w.agent.Root, ".git", "objects", "pack", "pack-*.pack"))
	linked := 0
	for _, p := range packs {
		if fi, err := os.Stat(filepath.Join(codeStore(t, s).ObjectsDir(), "pack", filepath.Base(p))); err == nil {
			if pi, _ := os.Stat(p); os.SameFile(fi, pi) {
				linked++
			}
		}
	}
	if linked == 0 {
		t.Fatalf("the code store links none of the project's packs %v", packs)
	}
	objects, state := objectCount(t, w.agent.Root), gitIn(t, w.agent.Root, "for-each-ref")+gitIn(t, w.agent.Root, "status", "--porcelain")

	rep, err := w.agent.Cleanup(repo.CleanupOptions{OlderThan: time.Hour, Now: w.now.Add(48 * time.Hour)})
	if err != nil || rep.Removed != 1 {
		t.Fatalf("cleanup: %v %+v", err, rep)
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Fatalf("the session is still there: %v", err)
	}
	for _, p := range packs {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the project's pack went with the session: %v", err)
		}
	}
	if got := objectCount(t, w.agent.Root); got != objects {
		t.Errorf("the project holds %d objects, %d before", got, objects)
	}
	if got := gitIn(t, w.agent.Root, "for-each-ref") + gitIn(t, w.agent.Root, "status", "--porcelain"); got != state {
		t.Errorf("cleanup changed the project's refs or status:\n%s\n---\n%s", state, got)
	}
	if out := gitIn(t, w.agent.Root, repotest.FsckArgs(w.agent.Root)...); strings.TrimSpace(out) != "" {
		t.Errorf("git fsck --strict in the project after cleanup:\n%s", out)
	}
}
