package code

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/plangit/plangit/repo/disk"
)

// TrailerBefore names, on a plan revision that wrote the project's files
// (a code revert, rollback or undo), the snapshot taken just before the
// write: undoing the revision merges its own snapshot back to that one.
const TrailerBefore = "Plangit-Code-Before"

// Write is one file of the project to change: From is what the work tree
// must hold for the write to go ahead (nil: no file there), To what it
// then holds (nil: the file is removed).
type Write struct {
	Path string
	From *File
	To   *File
}

// Reverse is the writes that undo ws.
func Reverse(ws []Write) []Write {
	out := make([]Write, len(ws))
	for i, w := range ws {
		out[i] = Write{Path: w.Path, From: w.To, To: w.From}
	}
	return out
}

// ErrChanged is in the chain of a write refused because the work tree no
// longer holds what the write expects (Write.From).
var ErrChanged = errors.New("changed in the work tree")

// ErrUnsafe is in the chain of a write refused for its path.
var ErrUnsafe = errors.New("not a path plangit writes")

// WriteBlob stores data as a blob (a merged file) for a Write to name.
func (s *Store) WriteBlob(data []byte) (plumbing.Hash, error) {
	if err := s.create(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.write(plumbing.BlobObject, data)
}

// Apply writes ws to the project's work tree, under the session lock, as
// one change:
//
//  1. every path is checked first: a relative slash path inside the work
//     tree's top with no empty, ".", ".." or ".git" part (any case), and
//     no part of it a symbolic link or a file the writes do not remove;
//     a regular file, an executable or a symbolic link to write, never a
//     directory or a submodule: else ErrUnsafe, and nothing is written;
//  2. every path must hold what its From says (content, mode, or no file):
//     else ErrChanged, and nothing is written;
//  3. removals first, then the files to write, each through a temporary
//     file and a rename; a directory a removal empties goes, as git's
//     checkout removes it; an exec bit is kept where the file system
//     keeps one (core.fileMode);
//  4. if a write fails, those already made are undone, and the error
//     says so.
//
// The project's index, HEAD, refs and stash are never touched: the work
// tree differs from the index afterwards as any edit makes it differ.
func (s *Store) Apply(ws []Write) error {
	if s.proj == nil {
		return errors.New("the code store was opened without its project")
	}
	removed := map[string]bool{}
	for _, w := range ws {
		if w.To == nil {
			removed[w.Path] = true
		}
	}
	execOK := execBits && !strings.EqualFold(readConf(s.proj.top)["core.filemode"], "false")
	for _, w := range ws {
		if err := s.checkPath(w, removed); err != nil {
			return err
		}
		if err := s.holds(w.Path, w.From, execOK, removed); err != nil {
			return err
		}
	}
	order := slices.Clone(ws)
	slices.SortStableFunc(order, func(a, b Write) int {
		if (a.To == nil) != (b.To == nil) {
			if a.To == nil {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Path, b.Path)
	})
	for i, w := range order {
		if err := s.put(w, execOK); err != nil {
			undo := Reverse(order[:i])
			slices.Reverse(undo)
			for _, u := range undo {
				if uerr := s.put(u, execOK); uerr != nil {
					return fmt.Errorf("cannot write %s: %w; and %s could not be put back as it was (%v): the snapshot before the write holds it", w.Path, err, u.Path, uerr)
				}
			}
			return fmt.Errorf("cannot write %s: %w; the files written before it were put back", w.Path, err)
		}
	}
	return nil
}

// abs is a checked slash path's place in the work tree.
func (s *Store) abs(p string) string {
	return filepath.Join(s.proj.top, filepath.FromSlash(p))
}

// checkPath is Apply's case 1 for one write.
func (s *Store) checkPath(w Write, removed map[string]bool) error {
	unsafe := func(why string) error { return fmt.Errorf("%q: %s: %w", w.Path, why, ErrUnsafe) }
	p := w.Path
	switch {
	case p == "" || strings.HasPrefix(p, "/") || filepath.IsAbs(filepath.FromSlash(p)) || strings.ContainsRune(p, 0):
		return unsafe("not a relative path")
	case runtime.GOOS == "windows" && (strings.ContainsAny(p, `\:`)):
		return unsafe("not a path on this system")
	}
	parts := strings.Split(p, "/")
	for _, part := range parts {
		if part == "" || part == "." || part == ".." || strings.EqualFold(part, ".git") {
			return unsafe("it has a " + strconv.Quote(part) + " part")
		}
	}
	if w.To != nil && w.To.Mode != filemode.Regular && w.To.Mode != filemode.Executable && w.To.Mode != filemode.Symlink {
		return unsafe(fmt.Sprintf("mode %o is not a file's", uint32(w.To.Mode)))
	}
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		fi, err := os.Lstat(s.abs(dir))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // made by the write
		case err != nil:
			return fmt.Errorf("cannot read %s: %w", dir, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return unsafe(dir + " is a symbolic link")
		case !fi.IsDir() && !removed[dir]:
			return unsafe(dir + " is a file")
		case !fi.IsDir():
			return nil // removed first, then made a directory
		}
	}
	return nil
}

// holds is Apply's case 2: path holds f (nil: nothing, or a directory
// whose files the writes remove).
func (s *Store) holds(p string, f *File, execOK bool, removed map[string]bool) error {
	changed := func(why string) error { return fmt.Errorf("%s %s: %w", p, why, ErrChanged) }
	fi, err := os.Lstat(s.abs(p))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		if f != nil {
			return changed("is gone")
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", p, err)
	}
	if f == nil {
		if fi.IsDir() {
			for r := range removed {
				if strings.HasPrefix(r, p+"/") {
					return nil // emptied first; what else it holds fails the write
				}
			}
		}
		return changed("exists")
	}
	var data []byte
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		if f.Mode != filemode.Symlink {
			return changed("is a symbolic link")
		}
		target, err := os.Readlink(s.abs(p))
		if err != nil {
			return fmt.Errorf("cannot read %s: %w", p, err)
		}
		data = []byte(filepath.ToSlash(target))
	case !fi.Mode().IsRegular():
		return changed("is not a file")
	default:
		if f.Mode == filemode.Symlink {
			return changed("is no longer a symbolic link")
		}
		if execOK && (fi.Mode()&0o111 != 0) != (f.Mode == filemode.Executable) {
			return changed("changed mode")
		}
		if size, err := s.BlobSize(f.Hash); err == nil && size != fi.Size() {
			return changed("changed size")
		}
		if data, err = os.ReadFile(s.abs(p)); err != nil {
			return fmt.Errorf("cannot read %s: %w", p, err)
		}
	}
	if plumbing.ComputeHash(plumbing.BlobObject, data) != f.Hash {
		return changed("changed")
	}
	return nil
}

// put is Apply's case 3 for one write.
func (s *Store) put(w Write, execOK bool) error {
	abs := s.abs(w.Path)
	if w.To == nil {
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		for d := path.Dir(w.Path); d != "."; d = path.Dir(d) {
			if os.Remove(s.abs(d)) != nil {
				break // not empty
			}
		}
		return nil
	}
	data, err := s.Blob(w.To.Hash, 0)
	if err != nil {
		return err
	}
	for d := path.Dir(w.Path); d != "."; d = path.Dir(d) {
		if fi, err := os.Lstat(s.abs(d)); err == nil && !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", d)
		}
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	if w.To.Mode == filemode.Symlink {
		tmp := filepath.Join(filepath.Dir(abs), "."+filepath.Base(abs)+".plangit-link")
		os.Remove(tmp)
		if err := os.Symlink(filepath.FromSlash(string(data)), tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, abs); err != nil {
			os.Remove(tmp)
			return err
		}
		return nil
	}
	perm := os.FileMode(0o644)
	if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", w.Path)
	} else if err == nil && fi.Mode().IsRegular() {
		perm = fi.Mode().Perm() // the person's own, but for the exec bit
	}
	switch {
	case !execOK:
	case w.To.Mode == filemode.Executable:
		perm |= (perm & 0o444) >> 2
	default:
		perm &^= 0o111
	}
	return disk.WriteAtomic(abs, data, perm, false)
}

// Unwind moves the store's head back from snapshot from to snapshot to (the
// zero hash: no snapshot), if it is still at from: a snapshot taken for a
// change that was then refused, so that the refusal changes nothing. The
// snapshot stays in the store, unnamed. Under the session lock.
func (s *Store) Unwind(from, to plumbing.Hash) error {
	head, err := s.Head()
	if err != nil || head != from || from == to {
		return err
	}
	if to.IsZero() {
		return os.Remove(filepath.Join(s.dir, filepath.FromSlash(HeadRef)))
	}
	return s.setRef(HeadRef, to)
}

// Rewrite is a write of the project's files between two snapshots.
type Rewrite struct {
	s         *Store
	Head      plumbing.Hash // the store's head before
	Pre, Post plumbing.Hash // the snapshots before and after the write
	Writes    []Write
}

// Rewrite writes the project's files between two snapshots, under the
// session lock:
//
//  1. the work tree is snapshotted (Pre), so that nothing in it is lost;
//  2. ask says what to write, given Pre and the store's head before it;
//     when it fails or has nothing to write, the head goes back to where
//     it was (Unwind) and Rewrite returns its error, or nil and no write;
//  3. the writes are made (Apply: all or none);
//  4. the work tree is snapshotted again (Post) and must show every write:
//     a file the project's ignore rules hide, say, would leave an undo
//     nothing to go by, so the writes are undone and ErrUnsafe returned.
func (s *Store) Rewrite(o Options, ask func(now *Snapshot, head plumbing.Hash) ([]Write, error)) (*Rewrite, error) {
	head, err := s.Head()
	if err != nil {
		return nil, err
	}
	before := o
	before.Message = "before: " + o.Message
	pre, err := s.Capture(before)
	if err != nil {
		return nil, fmt.Errorf("cannot snapshot the project's files before writing them: %w", err)
	}
	r := &Rewrite{s: s, Head: head, Pre: pre.Commit}
	r.Writes, err = ask(pre, head)
	if err != nil || len(r.Writes) == 0 {
		if uerr := s.Unwind(pre.Commit, head); uerr != nil && err == nil {
			err = uerr
		}
		return nil, err
	}
	if err := s.Apply(r.Writes); err != nil {
		s.Unwind(pre.Commit, head)
		return nil, err
	}
	post, err := s.Capture(o)
	if err == nil {
		r.Post = post.Commit
		err = s.shows(post.Commit, r.Writes)
	}
	if err != nil {
		if uerr := r.Undo(); uerr != nil {
			return nil, fmt.Errorf("%w; and the files written could not all be put back (%v): snapshot %s holds them as they were", err, uerr, short(pre.Commit))
		}
		return nil, err
	}
	return r, nil
}

// shows says whether snapshot h holds every write.
func (s *Store) shows(h plumbing.Hash, ws []Write) error {
	files, err := s.Files(h)
	if err != nil {
		return err
	}
	for _, w := range ws {
		f, ok := files[w.Path]
		if w.To == nil && ok || w.To != nil && (!ok || f != *w.To) {
			return fmt.Errorf("%s as written is not what a snapshot records (the project's ignore rules, or core.fileMode): %w", w.Path, ErrUnsafe)
		}
	}
	return nil
}

// Undo puts back what r wrote, for a change that did not land, and the
// store's head where it was.
func (r *Rewrite) Undo() error {
	if err := r.s.Apply(Reverse(r.Writes)); err != nil {
		return err
	}
	if !r.Post.IsZero() {
		return r.s.Unwind(r.Post, r.Head)
	}
	return r.s.Unwind(r.Pre, r.Head)
}
