package repo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
	"github.com/plangit/plangit/repo/store"
)

// WriteFileAtomic writes data to path through a temporary file in the same
// directory and a rename, so a reader sees the old file or the new one,
// never a part of either, and a killed process leaves no half-written file.
// With durable set it also fsyncs the file before the rename; plangit does
// that for files a person owns (their hook settings), not for session files,
// whose crash model is a killed process (see the README, "Crash safety").
// It is for files outside sessions; a session's files go through
// the session's own writes, whose temporary files stay inside .git/plangit/.
func WriteFileAtomic(path string, data []byte, perm os.FileMode, durable bool) error {
	if err := disk.WriteAtomic(path, data, perm, durable); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot write %s", path)
	}
	return nil
}

// WriteDocument writes a document for a person, a report, atomically
// (disk.WriteDocument): a new file's mode is 0666 less the umask, an
// existing file keeps its own.
func WriteDocument(path string, data []byte) error {
	if err := disk.WriteDocument(path, data); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot write %s", path)
	}
	return nil
}

// tmpPrefix starts the name of every temporary file plangit makes in a
// session. They all live in .git/plangit/ — working files, the index,
// objects and packs are written there and renamed into place,
// all on one file system — so a killed process leaves its debris in one
// directory git never looks at, which the next change clears.
const tmpPrefix = disk.TempPrefix

// UnlockedPrefix starts the name of a temporary file a process writes
// without the session lock (a new session's HEAD, the turn memory starting
// over), followed by the writer's process id: a change's sweep leaves it
// while that process runs, which may be about to rename it, and for
// staleTemp at most.
// UnlockedPrefix starts the name of a file or directory plangit writes
// without the session lock, followed by its writer's process id and a
// dash: a sweep removes it once that process no longer runs.
const UnlockedPrefix = tmpPrefix + "free-"

// staleTemp is the age at which a temporary file written without the
// lock is debris, whoever wrote it.
const staleTemp = 10 * time.Minute

// writeFile replaces path, a working file or a file under .git, with data,
// through a new file in .git/plangit/ put in its place (disk.Replace).
// The file it displaces is removed, never written again: a reader that
// has it open reads it whole.
func (w *workTree) writeFile(path string, data []byte, perm os.FileMode) error {
	prefix := tmpPrefix
	if !w.lk.held {
		// A change's sweep must not take it from under us: it names its
		// writer, whom the sweep asks whether it still runs.
		prefix = UnlockedPrefix + strconv.Itoa(os.Getpid()) + "-"
	}
	err := w.privately(func(dir string) error {
		tmp, err := disk.TempFile(dir, prefix+"*", data, perm, false)
		if err == nil {
			if err = disk.Replace(tmp, path); err != nil {
				os.Remove(tmp)
			}
		}
		return err
	})
	if err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot write %s", path)
	}
	return nil
}

// prepareFile makes a temporary file in .git/plangit/ holding data, to be
// renamed into place.
func (w *workTree) prepareFile(data []byte, perm os.FileMode) (tmp string, err error) {
	err = w.privately(func(dir string) error {
		tmp, err = disk.TempFile(dir, tmpPrefix+"*", data, perm, false)
		return err
	})
	if err != nil {
		return "", plan.WrapError(plan.CodeIOError, err, "cannot write a temporary file")
	}
	return tmp, nil
}

// Privately runs fn, which makes a file in .git/plangit/ (dir): when the
// directory is gone — a person removed it, with everything in it — it is
// made again and fn tried again, a few times.
func (s *Session) Privately(fn func(dir string) error) error { return s.work.privately(fn) }

// privately is Privately.
func (w *workTree) privately(fn func(dir string) error) error {
	for try := 0; ; try++ {
		err := fn(w.private)
		if err == nil || try == 20 || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := w.ensurePrivate(); err != nil {
			return err
		}
	}
}

// WritePrivate replaces .git/plangit/NAME, a file of plangit's own.
func (s *Session) WritePrivate(name string, data []byte) error {
	return s.work.writeFile(s.PrivatePath(name), data, 0o644)
}

// WriteCache overwrites .git/plangit/NAME, a cache, in place: no new file,
// no rename. It is for a file whose content proves itself — it names the
// revision or the files it is good for and ends in a check a cut-off or
// mixed copy fails (the glance's checksum) — so that a reader that meets
// a write half done reads no cache, and the next writer rewrites it. A
// failed write costs only what the cache saves.
func (s *Session) WriteCache(name string, data []byte) error {
	if err := s.EnsurePrivate(); err != nil {
		return err
	}
	return overwrite(s.PrivatePath(name), data)
}

// overwrite is disk.Overwrite with plangit's error.
func overwrite(path string, data []byte) error {
	if err := disk.Overwrite(path, data); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot write %s", path)
	}
	return nil
}

// sweepTemps removes what killed processes left: temporary files in
// .git/plangit/ and a ref lock. It runs under the session lock, where no
// other plangit process is writing under it; what a process writes
// without it (UnlockedPrefix) is left while that process runs.
func (w *workTree) sweepTemps() {
	dir := w.private
	if d, err := os.Open(dir); err == nil {
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, name := range names {
			path := filepath.Join(dir, name)
			switch {
			case strings.HasPrefix(name, UnlockedPrefix):
				pid, _, _ := strings.Cut(strings.TrimPrefix(name, UnlockedPrefix), "-")
				n, err := strconv.Atoi(pid)
				// A fetch's quarantine is a directory (incoming.go), kept
				// while its fetch runs, however long the network takes.
				if err != nil || !disk.Running(n) {
					disk.RemoveAll(path)
				} else if fi, err := os.Lstat(path); err == nil && time.Since(fi.ModTime()) > staleTemp && !fi.IsDir() {
					os.Remove(path)
				}
			case strings.HasPrefix(name, tmpPrefix), name == disk.SpareFile:
				disk.RemoveAll(path) // and the spare earlier versions kept
			}
		}
	}
	os.Remove(filepath.Join(w.gitDir, branchRef+".lock"))
}

// sweepDebris removes, besides what sweepTemps does, what older versions
// of plangit and a killed git leave: temporary files beside the files they
// were to replace (".NAME.tmp…", in the session directory too, where they
// keep git status dirty) and temporary objects and packs in .git/objects.
// A pack without its index is indexed; what cannot be used is moved into
// .git/plangit/, where git does not count it as garbage. It runs under the
// session lock, for gc and repair; objects is the session.s store, whose
// temporary objects and packs it clears.
func (w *workTree) sweepDebris(objects *store.Disk) {
	w.sweepTemps()
	oldTemp := func(name string) bool { return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp") }
	gitTemp := func(name string) bool {
		return strings.HasPrefix(name, "tmp_obj_") || strings.HasPrefix(name, "tmp_pack_") || strings.HasPrefix(name, "tmp_idx_")
	}
	for dir, junk := range map[string]func(string) bool{
		w.dir:     oldTemp,
		w.gitDir:  oldTemp,
		w.private: oldTemp,
		filepath.Dir(filepath.Join(w.gitDir, branchRef)): oldTemp,
		objects.ObjectsDir():                             gitTemp,
		objects.PackDir():                                gitTemp,
	} {
		d, err := os.Open(dir)
		if err != nil {
			continue
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, name := range names {
			if junk(name) {
				os.Remove(filepath.Join(dir, name))
			}
		}
	}
	objects.FixHalfPacks()
}
