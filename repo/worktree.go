package repo

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
	"github.com/plangit/plangit/repo/store"
)

// workTree is a session's files outside its objects: the working files,
// the index, and plangit's own files in .git/plangit/ — the intent record
// (intent.go) and the temporary files every write goes through
// (atomic.go). It writes them so that a reader never sees a file in part,
// and a process killed midway leaves what the next command finishes or
// clears.
type workTree struct {
	id      string       // the session's id, for messages
	dir     string       // the session directory, holding the working files
	gitDir  string       // its .git
	private string       // .git/plangit/
	store   store.Store  // the blobs the intent record names, and the branch
	lk      *sessionLock // the session lock, as this process holds it
	warnf   func(format string, args ...any)
	// landing, in tests alone, runs at the named moments of landing a
	// working file ("checked", "exchanged"), to play a person's save there.
	landing func(moment, path string)
}

// newWorkTree is the working tree of the session id at dir, whose .git is
// gitDir, written under lk and warning through warnf.
func newWorkTree(id, dir, gitDir string, st store.Store, lk *sessionLock, warnf func(string, ...any)) *workTree {
	return &workTree{id: id, dir: dir, gitDir: gitDir, private: filepath.Join(gitDir, privateDir), store: st, lk: lk, warnf: warnf}
}

// readRef is Session.readRef, for what the working tree reads of the
// branch.
func (w *workTree) readRef() (plumbing.Hash, error) {
	h, err := w.store.ReadRef()
	return h, storeError(err, w.gitDir)
}

// ensurePrivate is Session.EnsurePrivate.
func (w *workTree) ensurePrivate() error { return ensurePrivate(w.private) }

// landingMark is what a change's landing changes: the branch, and the
// intent record, pending from before the branch moves until every file
// has landed. Working files read between two equal marks are one
// revision's (with the record's new files for those still old).
type landingMark struct {
	ref, intent string
}

// landingMark reads the branch and the intent record, in that order, or
// the other (after: reading the files is done).
func (w *workTree) landingMark(after bool) landingMark {
	var m landingMark
	readRef := func() {
		b, _ := os.ReadFile(filepath.Join(w.gitDir, branchRef))
		m.ref = string(b)
	}
	if !after {
		readRef()
	}
	if w.intentPending() {
		b, err := os.ReadFile(w.intentPath())
		m.intent = string(b)
		if err != nil || len(b) == 0 {
			m.intent = "?" // pending, or cannot tell
		}
	}
	if after {
		readRef()
	}
	return m
}

// readWorking reads the working files as they stand.
func (w *workTree) readWorking() (map[string][]byte, error) {
	files := make(map[string][]byte, len(plan.SessionFiles))
	for _, name := range plan.SessionFiles {
		b, have, err := readWorkingFile(filepath.Join(w.dir, name))
		if err != nil {
			return nil, err
		}
		if have {
			files[name] = b
		}
	}
	return files, nil
}

// changedSince reports whether the working files differ from files, which
// were read from them: a person saved one meanwhile.
func (w *workTree) changedSince(files map[string][]byte) bool {
	now, err := w.readWorking()
	if err != nil || len(now) != len(files) {
		return true
	}
	for name, b := range now {
		if old, ok := files[name]; !ok || !bytes.Equal(old, b) {
			return true
		}
	}
	return false
}

// restoreWorking brings working files that were saved from an older
// revision without a change of their own back to the branch's, base: as a
// change lands its files, under an intent record, so that a process killed
// midway leaves them for the next command to finish, and a file saved
// again meanwhile is left as it is, for the next command to adopt.
func (w *workTree) restoreWorking(head plumbing.Hash, files map[string][]byte, base map[string]plumbing.Hash) error {
	content := make(map[string][]byte, len(base))
	for name, h := range base {
		b, err := w.store.ReadAs(plumbing.BlobObject, h)
		if err != nil {
			return damaged(w.id, head, err)
		}
		content[name] = b
	}
	if err := w.checkWritable(files, content); err != nil {
		return err
	}
	in := &intent{Commit: head, Files: fileChanges(files, content)}
	if _, err := w.recordIntent(in); err != nil {
		return err
	}
	_, err := w.land(in, content)
	return err
}

// checkWritable makes sure, before anything is written, that the working
// files a change replaces (those whose content differs between old and
// files) can be replaced: a file a person made read-only, or that this
// process may not write, or a session directory it may not write in, is
// an IO_ERROR that names it and the fix, and the change is not made.
func (w *workTree) checkWritable(old, files map[string][]byte) error {
	dirChecked := false
	for _, name := range plan.SessionFiles {
		was, had := old[name]
		now, has := files[name]
		if had == has && bytes.Equal(was, now) {
			continue
		}
		path := filepath.Join(w.dir, name)
		if had {
			fi, err := os.Lstat(path)
			if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 == 0 {
				return plan.Errorf(plan.CodeIOError, "%s is read-only (mode %04o), so plangit leaves it as it is and made no change; make it writable (chmod u+w %s) and run the command again", name, fi.Mode().Perm(), path).
					With("file", path)
			}
			if err := disk.CanWrite(path); err != nil {
				return plan.WrapError(plan.CodeIOError, err, "cannot write %s (%v), so plangit made no change; give this user write access to it (chmod u+w %s, or chown) and run the command again", name, errors.Unwrap(err), path).
					With("file", path)
			}
		}
		if !dirChecked {
			dirChecked = true
			if err := disk.CanWrite(w.dir); err != nil {
				return plan.WrapError(plan.CodeIOError, err, "cannot write in %s (%v), where %s is replaced, so plangit made no change; give this user write access to the directory (chmod u+w %s) and run the command again", w.dir, errors.Unwrap(err), name, w.dir).
					With("file", path)
			}
		}
	}
	return nil
}
