package code

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/plangit/plangit/repo/repotest"
)

// readIndex reads what go-git's decoder reads, in every index version git
// writes, with the extended flags (intent to add, skip-worktree) and
// entries in conflict.
func TestReadIndex(t *testing.T) {
	root, _ := newProject(t)
	write(t, root, "deep/er/still/file.txt", "x\n")
	write(t, root, "intent.txt", "later\n")
	repotest.Git(t, root, "add", "deep")
	repotest.Git(t, root, "add", "-N", "intent.txt")
	repotest.Git(t, root, "update-index", "--skip-worktree", "README.md")
	// A conflict: the same path at stages 1 to 3.
	blob := strings.TrimSpace(repotest.Git(t, root, "hash-object", "-w", "src/main.go"))
	cmd := exec.Command("git", "update-index", "--index-info")
	cmd.Dir = root
	cmd.Stdin = strings.NewReader("0 " + strings.Repeat("0", 40) + "\tsrc/util.go\n" +
		"100644 " + blob + " 1\tsrc/util.go\n100644 " + blob + " 2\tsrc/util.go\n100644 " + blob + " 3\tsrc/util.go\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git update-index --index-info: %v\n%s", err, out)
	}
	// go-git reads versions 2 and 3 as git does (not the extended flags
	// of version 4): what it reads of version 3 is what every version
	// must read.
	read := func(version string) []byte {
		repotest.Git(t, root, "update-index", "--index-version", version)
		b, err := os.ReadFile(filepath.Join(root, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var want index.Index
	if err := index.NewDecoder(bytes.NewReader(read("3"))).Decode(&want); err != nil {
		t.Fatal(err)
	}
	stages := 0
	for _, e := range want.Entries {
		if e.Stage != 0 {
			stages++
		}
	}
	if stages != 3 || len(want.Entries) < 10 {
		t.Fatalf("the index holds %d entries, %d in conflict", len(want.Entries), stages)
	}
	for _, version := range []string{"2", "3", "4"} {
		got, err := readIndex(read(version))
		if err != nil {
			t.Fatalf("version %s: %v", version, err)
		}
		if len(got) != len(want.Entries) {
			t.Fatalf("version %s: %d entries, go-git reads %d", version, len(got), len(want.Entries))
		}
		for i, w := range want.Entries {
			g := got[i]
			if w.ModifiedAt.IsZero() { // go-git's time of a zero time
				g.mtimeSec = uint32(w.ModifiedAt.Unix())
			}
			if g.name != w.Name || g.mode != w.Mode || g.hash != w.Hash || g.size != w.Size || g.ino != w.Inode ||
				g.mtimeSec != uint32(w.ModifiedAt.Unix()) || g.mtimeNsec != uint32(w.ModifiedAt.Nanosecond()) ||
				g.stage != int(w.Stage) || g.skipWorktree != w.SkipWorktree || g.intentToAdd != w.IntentToAdd {
				t.Errorf("version %s, entry %d: %+v, go-git reads %+v", version, i, g, w)
			}
		}
	}
	for _, bad := range []string{"", "DIRC", "DIRC\x00\x00\x00\x05\x00\x00\x00\x00", "DIRC\x00\x00\x00\x02\x00\x00\x00\x09"} {
		if _, err := readIndex([]byte(bad)); err == nil {
			t.Errorf("readIndex(%q) read it", bad)
		}
	}
}
