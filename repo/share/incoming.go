package share

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/disk"
	"github.com/plangit/plangit/repo/store"
)

// What a fetch brings is checked before any of it becomes the session's.
// git fetches the remote's tip into a quarantine: a bare repository of its
// own in .git/plangit/ that borrows the session's objects as alternates
// (so only what the session lacks travels), with git's own checks of every
// object it receives turned on (fetch.fsckObjects). plangit then reads
// every commit the quarantine holds — the whole of the new history, not
// only the tip — and refuses the lot unless each tree is one a session
// makes and git fsck --strict accepts: only plangit's files, each a
// regular non-executable file (mode 100644); no folder, symbolic link,
// gitlink, "..", ".git" or other name; entries in git's order, each named
// once. Only then are the objects moved into the session's object store
// (loose objects, then packs, each pack's index last) and the remote's
// tip recorded. A refusal removes the quarantine: nothing of it is kept.

// incomingPrefix names a quarantine: it is written without the session
// lock, so it names its writer, whom a change's sweep asks whether it
// still runs before removing it.
func incomingPrefix() string { return repo.UnlockedPrefix + strconv.Itoa(os.Getpid()) + "-incoming-" }

// incomingRef is the ref the quarantine's fetch writes.
const incomingRef = "refs/plangit/incoming"

// quarantine is a temporary repository a fetch lands in: a git directory
// of plangit's own outside the project (newScratch), and an object store
// in the session's .git/plangit/, on the session's file system, so that
// what passes the checks is moved into the session's store by renames.
type quarantine struct {
	dir     string // the git directory
	objects string // the folder the object store is in
	objs    *store.Disk
}

// newQuarantine makes a fetch's quarantine: its git directory, and an
// empty object store whose alternates are the session's objects.
func newQuarantine(s *repo.Session) (*quarantine, error) {
	return newQuarantineOf(s, []string{s.DiskStore().ObjectsDir()})
}

// newQuarantineOf makes a quarantine beside the session whose object
// store borrows from alternates.
func newQuarantineOf(s *repo.Session, alternates []string) (*quarantine, error) {
	dir, err := newScratch(incomingPrefix())
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot make a place to fetch session %s into", s.ID)
	}
	var objects string
	err = s.Privately(func(private string) error {
		var err error
		objects, err = os.MkdirTemp(private, incomingPrefix()+"*")
		return err
	})
	if err == nil {
		if objects, err = filepath.Abs(objects); err == nil {
			err = layoutObjects(filepath.Join(objects, "objects"), alternates)
		}
	}
	if err != nil {
		disk.RemoveAll(dir)
		if objects != "" {
			disk.RemoveAll(objects)
		}
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot make a place to fetch session %s into", s.ID)
	}
	return &quarantine{dir: dir, objects: objects, objs: store.NewObjects(dir, filepath.Join(objects, "objects"), objects)}, nil
}

// env points git at the quarantine's object store.
func (q *quarantine) env() []string { return []string{"GIT_OBJECT_DIRECTORY=" + q.objs.ObjectsDir()} }

// newScratch makes a git directory of plangit's own, named prefix…, in
// scratchRoot: where plangit's git fetches, pushes and lists a remote's
// sessions. It holds HEAD, refs/ and a configuration of plangit's (bare,
// nothing else); git is given the object stores to use (objectsEnv,
// quarantine.env), or the caller lays one out in it (layoutObjects). The
// caller removes it; a killed process's is swept (the prefix names its
// writer).
func newScratch(prefix string) (string, error) {
	root, err := scratchRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(root, prefix+"*")
	if err != nil {
		return "", err
	}
	if err := layoutGitDir(dir); err != nil {
		disk.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// scratchRoot is the folder the git directories of plangit's git are made
// in: the user's cache (<cache>/plangit/git; the system's temporary folder
// where the user has none or it cannot be written), outside the project. Not in the work tree: a
// session's .git/config is there, which anything that writes files there
// can write, and so would be a git directory made beside it, whose config
// such a process could rewrite between plangit writing it and git reading
// it (a receivepack there ran as the push did). What killed processes
// left there is removed.
func scratchRoot() (string, error) {
	var bases []string
	if base, err := os.UserCacheDir(); err == nil && filepath.IsAbs(base) {
		bases = append(bases, base)
	}
	var root string
	var err error
	for _, base := range append(bases, os.TempDir()) {
		root = filepath.Join(base, "plangit", "git")
		if err = os.MkdirAll(root, 0o700); err == nil {
			break
		}
	}
	if err != nil {
		return "", err
	}
	if names, err := os.ReadDir(root); err == nil {
		for _, e := range names {
			pid, _, _ := strings.Cut(strings.TrimPrefix(e.Name(), repo.UnlockedPrefix), "-")
			if n, err := strconv.Atoi(pid); strings.HasPrefix(e.Name(), repo.UnlockedPrefix) && (err != nil || !disk.Running(n)) {
				disk.RemoveAll(filepath.Join(root, e.Name()))
			}
		}
	}
	return root, nil
}

// layoutGitDir lays out an empty bare git directory in dir: HEAD, refs/
// and a configuration of plangit's own (bare, nothing else). It makes as
// few directories as git needs: each costs a push its making and removal.
func layoutGitDir(dir string) error {
	if err := os.Mkdir(filepath.Join(dir, "refs"), 0o755); err != nil {
		return err
	}
	for name, content := range map[string]string{"HEAD": "ref: " + store.BranchRef + "\n", "config": "[core]\n\trepositoryformatversion = 0\n\tbare = true\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// layoutObjects lays out an empty object store in dir whose alternates
// are those given.
func layoutObjects(dir string, alternates []string) error {
	for _, d := range []string{dir, filepath.Join(dir, "info"), filepath.Join(dir, "pack")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	if len(alternates) == 0 {
		return nil
	}
	var alt strings.Builder
	for _, a := range alternates {
		abs, err := filepath.Abs(a)
		if err != nil {
			return err
		}
		alt.WriteString(alternateEntry(abs, '\n') + "\n")
	}
	return os.WriteFile(filepath.Join(dir, "info", "alternates"), []byte(alt.String()), 0o644)
}

// objectsEnv gives git the object stores to use: the first as its own
// (GIT_OBJECT_DIRECTORY), the rest as alternates.
func objectsEnv(stores []string) ([]string, error) {
	abs := make([]string, len(stores))
	for i, d := range stores {
		var err error
		if abs[i], err = filepath.Abs(d); err != nil {
			return nil, err
		}
	}
	env := []string{"GIT_OBJECT_DIRECTORY=" + abs[0]}
	if len(abs) > 1 {
		for i, d := range abs[1:] {
			abs[i+1] = alternateEntry(d, os.PathListSeparator)
		}
		env = append(env, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+strings.Join(abs[1:], string(os.PathListSeparator)))
	}
	return env, nil
}

// alternateEntry is an absolute directory as an entry of a list of
// alternates separated by sep (a line of objects/info/alternates, a part
// of GIT_ALTERNATE_OBJECT_DIRECTORIES): as it is, or, when it holds the
// separator or a newline, quoted the way git reads an entry starting
// with a double quote.
func alternateEntry(dir string, sep rune) string {
	if !strings.ContainsRune(dir, sep) && !strings.Contains(dir, "\n") {
		return dir
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(dir) + `"`
}

func (q *quarantine) remove() {
	q.objs.ClosePacks()
	disk.RemoveAll(q.dir)
	disk.RemoveAll(q.objects)
}

// refusal is why a fetched revision cannot become the session's.
type refusal struct {
	commit plumbing.Hash
	why    string
}

// check reads every commit the quarantine holds from tip down — those the
// session has already were checked when they came, or made here — and
// returns the first that a session cannot hold, if any.
func (q *quarantine) check(s *repo.Session, tip plumbing.Hash) (*refusal, error) {
	read := func(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
		if q.objs.Has(h) {
			return q.objs.Read(h)
		}
		return s.Store().Read(h)
	}
	stat := func(h plumbing.Hash) (plumbing.ObjectType, int64, error) {
		if q.objs.Has(h) {
			return q.objs.Stat(h)
		}
		return s.Store().Stat(h)
	}
	seen := map[plumbing.Hash]bool{}
	trees := map[plumbing.Hash]bool{}
	blobs := map[plumbing.Hash]bool{}
	for queue := []plumbing.Hash{tip}; len(queue) > 0; {
		h := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if seen[h] || !q.objs.Has(h) {
			continue // the session's own: checked when it came
		}
		seen[h] = true
		if _, size, err := q.objs.Stat(h); err != nil {
			return nil, err
		} else if size > store.MaxObject {
			return &refusal{h, fmt.Sprintf("is an object of %d bytes, more than plangit reads (%d)", size, store.MaxObject)}, nil
		}
		t, data, err := q.objs.Read(h)
		if err != nil {
			return nil, err
		}
		if t != plumbing.CommitObject {
			return &refusal{h, "is a " + t.String() + ", not a commit"}, nil
		}
		if bytes.IndexByte(data, 0) >= 0 {
			return &refusal{h, "holds a NUL byte, which git fsck --strict refuses in a commit"}, nil
		}
		c, err := store.DecodeCommit(data)
		if err != nil {
			return &refusal{h, err.Error()}, nil
		}
		queue = append(queue, c.Parents...)
		if trees[c.Tree] {
			continue
		}
		trees[c.Tree] = true
		t, data, err = read(c.Tree)
		if err != nil {
			return &refusal{h, "has a tree that cannot be read: " + err.Error()}, nil
		}
		if t != plumbing.TreeObject {
			return &refusal{h, "names a " + t.String() + " as its tree"}, nil
		}
		files, why := checkSessionTree(data)
		if why != "" {
			return &refusal{h, why}, nil
		}
		for _, f := range files {
			if blobs[f.Hash] {
				continue
			}
			blobs[f.Hash] = true
			// A file's size is read from its header, never by inflating
			// it: a 1 GB file packs into a few megabytes.
			if t, size, err := stat(f.Hash); err != nil {
				return &refusal{h, fmt.Sprintf("has a %s that cannot be read: %v", f.Name, err)}, nil
			} else if t != plumbing.BlobObject {
				return &refusal{h, fmt.Sprintf("names a %s as its %s", t, f.Name)}, nil
			} else if size > plan.MaxFile {
				return &refusal{h, fmt.Sprintf("holds a %s of %d bytes, and plangit reads a session's files up to %d bytes", f.Name, size, plan.MaxFile)}, nil
			}
		}
	}
	return nil, nil
}

// checkSessionTree reads a tree object as git fsck --strict would, and
// accepts only what a session holds: plangit's files, regular and not
// executable, in git's order, each once. why says what else it holds.
func checkSessionTree(data []byte) (files []store.TreeEntry, why string) {
	last := ""
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp <= 0 || nul < sp || len(data) < nul+1+20 {
			return nil, "has a malformed tree"
		}
		mode, name := string(data[:sp]), string(data[sp+1:nul])
		var h plumbing.Hash
		copy(h[:], data[nul+1:nul+21])
		data = data[nul+21:]
		switch {
		case mode == "40000" || mode == "040000":
			return nil, fmt.Sprintf("holds a folder %q", name)
		case mode == "120000":
			return nil, fmt.Sprintf("holds %q as a symbolic link", name)
		case mode == "160000":
			return nil, fmt.Sprintf("holds %q as a gitlink (a submodule)", name)
		case !slices.Contains(plan.SessionFiles, name):
			return nil, fmt.Sprintf("holds %q, which is not a plangit session file", name)
		case mode == "100755":
			return nil, fmt.Sprintf("holds %q as an executable file", name)
		case mode != "100644":
			return nil, fmt.Sprintf("holds %q with file mode %s", name, mode)
		case name <= last:
			return nil, fmt.Sprintf("has a tree git refuses: %q out of order or twice", name)
		case h.IsZero():
			return nil, fmt.Sprintf("holds %q as the null object", name)
		}
		last = name
		files = append(files, store.TreeEntry{Name: name, Hash: h})
	}
	return files, ""
}

// install moves the quarantine's objects into the session's store: loose
// objects first, then packs, each pack's index last (a pack is found by
// its index; one killed before it is indexed by the next gc or repair).
// An object the session has already is dropped.
func (q *quarantine) install(s *repo.Session) error { return q.installInto(s.DiskStore()) }

// installInto is install into the object store dst.
func (q *quarantine) installInto(dst *store.Disk) error {
	src := q.objs.ObjectsDir()
	dirs, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		names, err := os.ReadDir(filepath.Join(src, d.Name()))
		if err != nil {
			return err
		}
		for _, n := range names {
			from, to := filepath.Join(src, d.Name(), n.Name()), filepath.Join(dst.ObjectsDir(), d.Name(), n.Name())
			if _, err := os.Lstat(to); err == nil {
				continue
			}
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return err
			}
			if err := os.Rename(from, to); err != nil {
				return err
			}
		}
	}
	packs, err := filepath.Glob(filepath.Join(src, "pack", "pack-*.pack"))
	if err != nil {
		return err
	}
	q.objs.ClosePacks()
	for _, p := range packs {
		base := strings.TrimSuffix(filepath.Base(p), ".pack")
		if _, err := os.Lstat(filepath.Join(dst.PackDir(), base+".idx")); err == nil {
			continue // the same pack, installed by another fetch
		}
		for _, ext := range []string{".pack", ".rev", ".idx"} {
			from := filepath.Join(src, "pack", base+ext)
			if _, err := os.Lstat(from); errors.Is(err, fs.ErrNotExist) && ext == ".rev" {
				continue
			}
			if err := os.Rename(from, filepath.Join(dst.PackDir(), base+ext)); err != nil {
				return err
			}
		}
	}
	dst.ClosePacks() // listed again on the next read
	return nil
}

// fsckLine finds what git's checks of a fetch found: "error: object
// 1234…: badEmail: invalid author/committer line - bad email".
var fsckLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^error: object ([0-9a-f]{40}): (.*)$`) })

// fetchRefused says a session on a remote is refused, and why.
func (r *Remote) fetchRefused(s *repo.Session, tip plumbing.Hash, rf *refusal) error {
	which := "its tip " + short(tip)
	switch {
	case tip.IsZero():
		which = "what git fetched of it:"
	case rf.commit != tip:
		which = "its revision " + short(rf.commit) + ", in the history behind its tip " + short(tip) + ","
	}
	return plan.Errorf(plan.CodeInvalidArgument, "session %s on %s is refused: %s %s; a session holds only %s, each a plain file, and nothing git fsck --strict refuses, so nothing of it is kept here",
		s.ID, r.Name, which, rf.why, strings.Join(plan.SessionFiles, ", ")).
		With("session", s.ID).With("remote", r.Name).With("rev", rf.commit.String())
}
