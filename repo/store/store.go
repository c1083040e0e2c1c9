// Package store is a session repository's git object store: its objects,
// loose and packed, the branch they hang from, and the revision log, a
// cache of what each commit's message says. It knows git's formats and
// nothing of plans: a revision's change, the steps it touched and its
// progress are kept as the commit's trailers say them, and package repo
// reads them as a plan's.
//
// Two stores implement Store: Disk, a repository's .git directory, and
// Memory, for tests that must touch neither git nor the disk.
package store

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/repo/disk"
)

// Store is a session's objects, its branch and its revision log.
type Store interface {
	// Read returns an object's type and content; an error wrapping
	// ErrObjectMissing when the store has no such object.
	Read(h plumbing.Hash) (plumbing.ObjectType, []byte, error)
	// Stat returns an object's type and the size it declares, reading no
	// more of it than it must.
	Stat(h plumbing.Hash) (plumbing.ObjectType, int64, error)
	// Write stores an object and reports whether it wrote a new copy.
	Write(t plumbing.ObjectType, data []byte) (plumbing.Hash, bool, error)
	// Drop removes the loose copy of an object a change wrote and did
	// not land, if it has one.
	Drop(h plumbing.Hash)

	// ReadAs reads an object and checks its type.
	ReadAs(want plumbing.ObjectType, h plumbing.Hash) ([]byte, error)
	// ReadCommit reads and decodes a commit.
	ReadCommit(h plumbing.Hash) (*CommitObject, error)
	// ReadTreeFiles returns the blob hash of each file in a commit's tree.
	ReadTreeFiles(commit plumbing.Hash) (map[string]plumbing.Hash, error)
	// ReadFilesAt returns the content of every file in a commit's tree.
	ReadFilesAt(commit plumbing.Hash) (map[string][]byte, error)

	// ReadRef returns the commit the branch points at, or the zero hash
	// when the branch has no commit yet.
	ReadRef() (plumbing.Hash, error)
	// SetRefIf moves the branch to next if it still points at old and
	// still (if set) holds: a compare-and-set, ErrMoved when the branch
	// is elsewhere and ErrRecordLost when still fails.
	SetRefIf(next, old plumbing.Hash, still func() bool) error

	// ReadLog returns the revision log's entries, oldest first; ok is
	// false when it is missing or broken (not a whole history in order).
	ReadLog() (entries []Entry, ok bool)
	// LastEntry returns the log's last entry; the zero Entry for an empty
	// or missing log.
	LastEntry() (Entry, error)
	// AppendEntry adds an entry, numbered already, at the log's end.
	AppendEntry(e Entry) error
	// WriteLog replaces the log with entries.
	WriteLog(entries []Entry) error
}

// Errors a store returns, in the chain of what it says.
var (
	// ErrObjectMissing is returned when an object is in neither a loose
	// file nor a pack.
	ErrObjectMissing = errors.New("object not found")
	// ErrMoved says the branch was not where a change expected it:
	// another writer (another git) moved it.
	ErrMoved = errors.New("the branch moved during the change")
	// ErrRecordLost says the check SetRefIf was given failed: the intent
	// record vanished before the branch moved — a person removed
	// .git/plangit while the change ran — so the change, were it to land,
	// could not be told from a person's edit if cut short: it starts
	// over.
	ErrRecordLost = errors.New("the intent record vanished during the change")
	// ErrDamagedRef says the branch's ref file holds no hash.
	ErrDamagedRef = errors.New("damaged ref")
)

// RefError is a failure to read or write the branch's ref file.
type RefError struct {
	Op  string // "read" or "write"
	Err error
}

func (e *RefError) Error() string { return "cannot " + e.Op + " " + BranchRef + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *RefError) Unwrap() error { return e.Err }

// MaxFile is the size of the largest session file plangit reads, as
// package plan's MaxFile (repo's tests hold the two equal).
const MaxFile = 8 << 20

// BranchRef is the branch a session's history is on.
const BranchRef = "refs/heads/main"

// tmpPrefix starts the name of every temporary file the store makes.
const tmpPrefix = disk.TempPrefix

// objectReader is what reads builds on.
type objectReader interface {
	Read(h plumbing.Hash) (plumbing.ObjectType, []byte, error)
	Stat(h plumbing.Hash) (plumbing.ObjectType, int64, error)
}

// reads is the part of Store every store has alike: reading commits,
// trees and files through its Read and Stat.
type reads struct{ o objectReader }

// ReadAs reads an object and checks its type.
func (r reads) ReadAs(want plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	t, data, err := r.o.Read(h)
	if err != nil {
		return nil, err
	}
	if t != want {
		return nil, fmt.Errorf("object %s is a %s, not a %s", h, t, want)
	}
	return data, nil
}

// ReadCommit reads and decodes a commit.
func (r reads) ReadCommit(h plumbing.Hash) (*CommitObject, error) {
	data, err := r.ReadAs(plumbing.CommitObject, h)
	if err != nil {
		return nil, err
	}
	return DecodeCommit(data)
}

// ReadTreeFiles returns the blob hash of each file in a commit's tree.
func (r reads) ReadTreeFiles(commit plumbing.Hash) (map[string]plumbing.Hash, error) {
	c, err := r.ReadCommit(commit)
	if err != nil {
		return nil, err
	}
	data, err := r.ReadAs(plumbing.TreeObject, c.Tree)
	if err != nil {
		return nil, err
	}
	entries, err := DecodeTree(data)
	if err != nil {
		return nil, err
	}
	out := make(map[string]plumbing.Hash, len(entries))
	for _, e := range entries {
		out[e.Name] = e.Hash
	}
	return out, nil
}

// ReadFilesAt returns the content of every file in a commit's tree. A
// file over MaxFile is refused by the size its object declares, before it
// is read.
func (r reads) ReadFilesAt(commit plumbing.Hash) (map[string][]byte, error) {
	hashes, err := r.ReadTreeFiles(commit)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(hashes))
	for name, h := range hashes {
		if _, size, err := r.o.Stat(h); err != nil {
			return nil, err
		} else if size > MaxFile {
			return nil, fmt.Errorf("%s is %d bytes, and plangit reads a session's files up to %d bytes", name, size, MaxFile)
		}
		data, err := r.ReadAs(plumbing.BlobObject, h)
		if err != nil {
			return nil, err
		}
		out[name] = data
	}
	return out, nil
}
