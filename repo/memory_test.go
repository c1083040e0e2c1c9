package repo

import (
	"github.com/go-git/go-git/v5/plumbing"
	"slices"
	"testing"

	"github.com/plangit/plangit/plan"
)

// newMemorySession is newTestSession with the session's git objects,
// branch and revision log in memory (store.NewMemory): the working files,
// the lock and plangit's records stay on disk, and no git or plangit
// process starts. The hand-edit tests run on it.
func newMemorySession(t *testing.T) *Session {
	t.Helper()
	p := Project{Root: t.TempDir(), memory: &memoryStores{}}
	pl := newTestSessionPlan(t)
	s, res, err := p.Create("s1", &plan.State{Plan: pl}, plan.Change{Op: "init", Summary: "init: Add caching"}, Options{Now: t0, Meta: Meta{Actor: "agent"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit == nil || s.diskStore != nil {
		t.Fatal("create made no commit in memory")
	}
	t.Cleanup(func() { checkClean(t, s) })
	return s
}

// checkClean is, for a session in memory, what git status --porcelain
// and git fsck say of one on disk: the working files are the branch's,
// and every revision's files read.
func checkClean(t *testing.T, s *Session) {
	t.Helper()
	files, err := s.ReadFiles()
	if err != nil {
		t.Fatal(err)
	}
	head, _, err := s.FilesAt("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if !sameFiles(files, hashFiles(head)) {
		t.Error("the working files are not the branch's")
	}
	revs, err := s.Revisions()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range revs {
		if _, err := s.FilesOf(r.Hash); err != nil {
			t.Errorf("revision @%d: %v", r.N, err)
		}
	}
}

// changedFiles names the files that differ between two revisions, as git
// diff --name-only does.
func changedFiles(t *testing.T, s *Session, from, to string) []string {
	t.Helper()
	a, _, err := s.FilesAt(from)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := s.FilesAt(to)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range plan.SessionFiles {
		if string(a[name]) != string(b[name]) || (a[name] == nil) != (b[name] == nil) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// summaries are the revisions' summaries, newest first, as git log
// --format=%s prints them.
func summaries(t *testing.T, s *Session) []string {
	t.Helper()
	revs, err := s.Revisions()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := len(revs) - 1; i >= 0; i-- {
		out = append(out, revs[i].Summary)
	}
	return out
}

// mustFiles reads a revision's files.
func mustFiles(t *testing.T, s *Session, rev string) map[string][]byte {
	t.Helper()
	files, _, err := s.FilesAt(rev)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// mustTree is the branch's files as blob hashes.
func mustTree(t *testing.T, s *Session) map[string]plumbing.Hash {
	t.Helper()
	return hashFiles(mustFiles(t, s, "HEAD"))
}
