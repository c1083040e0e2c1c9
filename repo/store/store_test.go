package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// stores are the implementations of Store every contract test runs
// against: each makes a fresh, empty one.
var stores = []struct {
	name string
	make func(t *testing.T) Store
}{
	{"disk", func(t *testing.T) Store {
		git := filepath.Join(t.TempDir(), ".git")
		for _, d := range []string{"objects", "plangit", "refs/heads"} {
			if err := os.MkdirAll(filepath.Join(git, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return NewDisk(git, filepath.Join(git, "plangit"))
	}},
	{"memory", func(*testing.T) Store { return NewMemory() }},
}

// commitFiles writes files as a commit on parents and returns its hash.
func commitFiles(t *testing.T, st Store, files map[string]string, msg string, parents ...plumbing.Hash) plumbing.Hash {
	t.Helper()
	var entries []TreeEntry
	for name, content := range files {
		h, _, err := st.Write(plumbing.BlobObject, []byte(content))
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, TreeEntry{Name: name, Hash: h})
	}
	tree, _, err := st.Write(plumbing.TreeObject, EncodeTree(entries))
	if err != nil {
		t.Fatal(err)
	}
	sig := Signature{Name: "Ann Lee", Email: "ann@example.com", When: time.Date(2026, 11, 20, 10, 0, len(parents), 0, time.UTC)}
	c := &CommitObject{Tree: tree, Parents: parents, Author: sig, Committer: sig, Message: msg}
	h, _, err := st.Write(plumbing.CommitObject, c.Encode())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestStoreObjects: an object written reads back with its type; written
// again it is not written twice; a missing one is ErrObjectMissing; a
// dropped one is gone; a commit's tree and files read back whole.
func TestStoreObjects(t *testing.T) {
	for _, impl := range stores {
		t.Run(impl.name, func(t *testing.T) {
			st := impl.make(t)
			h, wrote, err := st.Write(plumbing.BlobObject, []byte("hello\n"))
			if err != nil || !wrote || h != plumbing.ComputeHash(plumbing.BlobObject, []byte("hello\n")) {
				t.Fatalf("Write = %s, %v, %v", h, wrote, err)
			}
			if _, again, _ := st.Write(plumbing.BlobObject, []byte("hello\n")); again {
				t.Error("the same object was written twice")
			}
			if typ, data, err := st.Read(h); err != nil || typ != plumbing.BlobObject || string(data) != "hello\n" {
				t.Errorf("Read = %v, %q, %v", typ, data, err)
			}
			if typ, size, err := st.Stat(h); err != nil || typ != plumbing.BlobObject || size != 6 {
				t.Errorf("Stat = %v, %d, %v", typ, size, err)
			}
			if _, err := st.ReadAs(plumbing.TreeObject, h); err == nil {
				t.Error("a blob read as a tree")
			}
			missing := plumbing.ComputeHash(plumbing.BlobObject, []byte("nowhere"))
			if _, _, err := st.Read(missing); !errors.Is(err, ErrObjectMissing) {
				t.Errorf("a missing object: %v", err)
			}
			st.Drop(h)
			if _, _, err := st.Read(h); !errors.Is(err, ErrObjectMissing) {
				t.Errorf("a dropped object: %v", err)
			}

			files := map[string]string{"task_plan.md": "# Plan\n", "findings.md": "# Findings\n"}
			c := commitFiles(t, st, files, "init\n\nPlangit-Op: init\n")
			co, err := st.ReadCommit(c)
			if err != nil || co.Author.Name != "Ann Lee" || co.Author.Email != "ann@example.com" || co.Message != "init\n\nPlangit-Op: init\n" || len(co.Parents) != 0 {
				t.Fatalf("ReadCommit = %+v, %v", co, err)
			}
			hashes, err := st.ReadTreeFiles(c)
			if err != nil || len(hashes) != 2 || hashes["findings.md"] != plumbing.ComputeHash(plumbing.BlobObject, []byte("# Findings\n")) {
				t.Errorf("ReadTreeFiles = %v, %v", hashes, err)
			}
			got, err := st.ReadFilesAt(c)
			if err != nil || len(got) != 2 || string(got["task_plan.md"]) != "# Plan\n" {
				t.Errorf("ReadFilesAt = %q, %v", got, err)
			}
		})
	}
}

// TestStoreRef: a new store's branch has no commit; the branch moves by
// compare-and-set alone: from where it is, and only while the check it is
// given holds.
func TestStoreRef(t *testing.T) {
	for _, impl := range stores {
		t.Run(impl.name, func(t *testing.T) {
			st := impl.make(t)
			if h, err := st.ReadRef(); err != nil || !h.IsZero() {
				t.Fatalf("a new branch = %s, %v", h, err)
			}
			one := commitFiles(t, st, map[string]string{"a": "1"}, "one\n")
			two := commitFiles(t, st, map[string]string{"a": "2"}, "two\n", one)
			if err := st.SetRefIf(one, plumbing.ZeroHash, nil); err != nil {
				t.Fatal(err)
			}
			if err := st.SetRefIf(two, two, nil); !errors.Is(err, ErrMoved) {
				t.Errorf("moved from where it is not: %v", err)
			}
			if err := st.SetRefIf(two, one, func() bool { return false }); !errors.Is(err, ErrRecordLost) {
				t.Errorf("moved though its check failed: %v", err)
			}
			if h, _ := st.ReadRef(); h != one {
				t.Errorf("a refused move moved the branch to %s", h)
			}
			if err := st.SetRefIf(two, one, func() bool { return true }); err != nil {
				t.Fatal(err)
			}
			if h, err := st.ReadRef(); err != nil || h != two {
				t.Errorf("branch = %s, %v; want %s", h, err, two)
			}
		})
	}
}

// TestStoreRevisionLog: the log is read from the commits' trailers when
// there is none, numbered parents first and a merge's first parent's side
// before its second's; appended to by the revision after its last; and
// rebuilt when it is out of order.
func TestStoreRevisionLog(t *testing.T) {
	for _, impl := range stores {
		t.Run(impl.name, func(t *testing.T) {
			st := impl.make(t)
			if _, ok := st.ReadLog(); ok {
				t.Error("a new store has a log")
			}
			base := commitFiles(t, st, map[string]string{"a": "0"}, "start the plan\n\nPlangit-Op: init\nPlangit-Step: 1 +pending\nPlangit-Actor: agent\nPlangit-Progress: 0/1\n")
			ours := commitFiles(t, st, map[string]string{"a": "1"}, "ours\n\nPlangit-Op: step.start\nPlangit-Actor: hook\nPlangit-Hook: PostToolUse\nPlangit-Host: claude\n", base)
			theirs := commitFiles(t, st, map[string]string{"a": "2"}, "theirs\n\nPlangit-Op: step.done\n", base)
			merge := commitFiles(t, st, map[string]string{"a": "3"}, "merge\n\nPlangit-Op: merge\nPlangit-Actor: user\n", ours, theirs)

			entries, repaired, err := Revisions(st, merge)
			if err != nil || !repaired {
				t.Fatalf("Revisions = %v, %v", repaired, err)
			}
			var order []plumbing.Hash
			for i, e := range entries {
				if e.N != i+1 {
					t.Errorf("entry %d is numbered %d", i, e.N)
				}
				order = append(order, e.Hash)
			}
			if want := []plumbing.Hash{base, ours, theirs, merge}; !slices.Equal(order, want) {
				t.Fatalf("order = %v, want %v", order, want)
			}
			if e := entries[0]; e.Op != "init" || e.Summary != "start the plan" || len(e.Steps) != 1 || e.Steps[0] != "1 +pending" || e.Done != 0 || e.Total != 1 || e.Author.Name != "Ann Lee" {
				t.Errorf("the first entry: %+v", e)
			}
			if e := entries[1]; e.Actor != "hook" || e.Hook != "PostToolUse" || e.Host != "claude" {
				t.Errorf("the second entry: %+v", e)
			}
			if e := entries[2]; e.Actor != "git" {
				t.Errorf("a commit without an actor: %q, want git", e.Actor)
			}
			if e := entries[3]; len(e.Parents) != 2 || e.Parent != ours {
				t.Errorf("the merge's parents: %v", e.Parents)
			}
			if err := st.WriteLog(entries); err != nil {
				t.Fatal(err)
			}
			if again, repaired, err := Revisions(st, merge); err != nil || repaired || len(again) != 4 || again[3].Summary != "merge" || again[1].Hook != "PostToolUse" {
				t.Errorf("Revisions from the log = %d entries, %v, %v", len(again), repaired, err)
			}

			next := commitFiles(t, st, map[string]string{"a": "4"}, "next\n\nPlangit-Op: step.add\n", merge)
			n, err := Append(st, Entry{Hash: next, Parent: merge, Parents: []plumbing.Hash{merge}, Time: time.Unix(1e9, 0).UTC(), Op: "step.add", Summary: "next", Steps: []string{"5 +pending", "2"}})
			if err != nil || n != 5 {
				t.Fatalf("Append = %d, %v", n, err)
			}
			last, err := st.LastEntry()
			if err != nil || last.N != 5 || last.Hash != next || len(last.Steps) != 2 || last.Steps[1] != "2" {
				t.Errorf("LastEntry = %+v, %v", last, err)
			}

			// A log whose lines are out of order is not read: rebuilt.
			swapped := append([]Entry{}, entries...)
			swapped[1], swapped[2] = swapped[2], swapped[1]
			if err := st.WriteLog(swapped); err != nil {
				t.Fatal(err)
			}
			if _, ok := st.ReadLog(); ok {
				t.Error("a log out of order was read")
			}
			rebuilt, err := Rebuild(st, next)
			if err != nil || len(rebuilt) != 5 || rebuilt[4].Hash != next {
				t.Fatalf("Rebuild = %d entries, %v", len(rebuilt), err)
			}
			if read, ok := st.ReadLog(); !ok || len(read) != 5 || read[2].Hash != theirs {
				t.Errorf("the rebuilt log reads as %d entries, %v", len(read), ok)
			}
		})
	}
}
