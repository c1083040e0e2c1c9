package code

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Create makes the store's directory a bare repository, if it is not one
// yet: a fetch lands snapshots in it before it ever took one.
func (s *Store) Create() error { return s.create() }

// Objects is an object store beside the code store: a fetch's
// quarantine, whose objects move into the store once adopted.
type Objects interface {
	Has(plumbing.Hash) bool
	Read(plumbing.Hash) (plumbing.ObjectType, []byte, error)
}

// Adopt readies the store for snapshot tip, fetched from another machine
// into incoming, before incoming's objects move in: every object tip
// reaches must then be in the store. git left out of the fetch what this
// machine's project holds already (the project's history is the fetch's
// alternate), so each object tip reaches is, in order:
//
//  1. reached by the store's head: a snapshot the head reaches reaches
//     only objects the store holds (a snapshot's objects are all written
//     or borrowed before its commit, a fetch's before its pack moves in
//     and the head joins it), so a tree entry equal to its first parent's
//     entry is not looked at. Any other object the store holds (a pack of
//     the project's it linked may hold snapshots fetched into the project)
//     is looked at as one of incoming's;
//  2. in incoming: read there, and its tree walked;
//  3. in the project's object database: borrowed, by a hard link, as a
//     snapshot borrows (doc case 3);
//  4. nowhere: an error, and the store is left as it was but for what it
//     borrowed.
//
// Incoming's objects must move in as one pack, its index last, so that
// no commit of it is ever in the store without its trees. Under no lock:
// what it adds is objects only.
func (s *Store) Adopt(tip plumbing.Hash, incoming Objects) error {
	if s.proj == nil {
		return errors.New("the code store was opened without its project")
	}
	if err := s.create(); err != nil {
		return err
	}
	a := &adoption{s: s, in: incoming, done: map[plumbing.Hash]bool{}, whole: map[plumbing.Hash]bool{}}
	head, err := s.Head()
	if err != nil {
		return err
	}
	for todo := []plumbing.Hash{head}; len(todo) > 0; {
		h := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if h.IsZero() || a.whole[h] {
			continue
		}
		a.whole[h] = true
		c, err := a.commit(h)
		if err != nil {
			return fmt.Errorf("the store's own snapshot %s: %w", short(h), err)
		}
		todo = append(todo, c.parents...)
	}
	commits, err := a.newCommits(tip)
	if err != nil {
		return err
	}
	for _, c := range commits {
		var ref plumbing.Hash
		if len(c.parents) > 0 {
			if pc, err := a.commit(c.parents[0]); err == nil {
				ref = pc.tree
			}
		}
		if err := a.tree(c.tree, ref); err != nil {
			return fmt.Errorf("snapshot %s: %w", short(c.hash), err)
		}
	}
	return nil
}

// adoption is one Adopt under way.
type adoption struct {
	s     *Store
	in    Objects
	done  map[plumbing.Hash]bool // trees and blobs found whole
	whole map[plumbing.Hash]bool // the snapshots the store's head reaches
}

type snapCommit struct {
	hash, tree plumbing.Hash
	parents    []plumbing.Hash
}

// newCommits lists the commits of tip's history the store's head does
// not reach, each after its parents.
func (a *adoption) newCommits(tip plumbing.Hash) ([]snapCommit, error) {
	var out []snapCommit
	seen := map[plumbing.Hash]bool{}
	type frame struct {
		c    snapCommit
		next int // the next parent to visit
	}
	var stack []frame
	push := func(h plumbing.Hash) error {
		if seen[h] || a.whole[h] {
			return nil
		}
		seen[h] = true
		c, err := a.commit(h)
		if err != nil {
			return fmt.Errorf("snapshot %s: %w", short(h), err)
		}
		stack = append(stack, frame{c: c})
		return nil
	}
	if err := push(tip); err != nil {
		return nil, err
	}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < len(f.c.parents) {
			p := f.c.parents[f.next]
			f.next++
			if err := push(p); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, f.c)
		stack = stack[:len(stack)-1]
	}
	return out, nil
}

// read reads an object from the store, else incoming, else borrows it.
func (a *adoption) read(want plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	var t plumbing.ObjectType
	var data []byte
	var err error
	switch {
	case a.s.Has(h):
		t, data, err = a.s.st.Read(h)
	case a.in.Has(h):
		t, data, err = a.in.Read(h)
	default:
		var ok bool
		if ok, err = a.s.borrow(h); err == nil && !ok {
			err = fmt.Errorf("object %s is missing", short(h))
		}
		if err == nil {
			t, data, err = a.s.st.Read(h)
		}
	}
	if err == nil && t != want {
		err = fmt.Errorf("object %s is a %s, not a %s", short(h), t, want)
	}
	return data, err
}

func (a *adoption) commit(h plumbing.Hash) (snapCommit, error) {
	data, err := a.read(plumbing.CommitObject, h)
	if err != nil {
		return snapCommit{}, err
	}
	c := snapCommit{hash: h}
	header, _, _ := bytes.Cut(data, []byte("\n\n"))
	for _, line := range bytes.Split(header, []byte("\n")) {
		key, value, _ := bytes.Cut(line, []byte(" "))
		switch string(key) {
		case "tree":
			c.tree = plumbing.NewHash(string(value))
		case "parent":
			c.parents = append(c.parents, plumbing.NewHash(string(value)))
		}
	}
	if c.tree.IsZero() {
		return snapCommit{}, fmt.Errorf("snapshot %s names no tree", short(h))
	}
	return c, nil
}

// tree makes sure tree h and all it holds are in the store or incoming;
// ref is a tree the store holds whole (the parent snapshot's), whose
// equal entries need no look.
func (a *adoption) tree(h, ref plumbing.Hash) error {
	if a.done[h] || h == ref {
		return nil
	}
	data, err := a.read(plumbing.TreeObject, h)
	if err != nil {
		return err
	}
	entries, err := treeEntries(h, data)
	if err != nil {
		return err
	}
	known := map[string]treeEntry{}
	if !ref.IsZero() {
		if rd, err := a.read(plumbing.TreeObject, ref); err == nil {
			if re, err := treeEntries(ref, rd); err == nil {
				for _, e := range re {
					known[e.name] = e
				}
			}
		}
	}
	for _, e := range entries {
		k, ok := known[e.name]
		switch {
		case ok && k.hash == e.hash:
		case e.mode == filemode.Dir:
			var sub plumbing.Hash
			if ok && k.mode == filemode.Dir {
				sub = k.hash
			}
			if err := a.tree(e.hash, sub); err != nil {
				return err
			}
		case e.mode == filemode.Submodule: // a commit of another repository
		default:
			if err := a.blob(e.hash); err != nil {
				return err
			}
		}
	}
	a.done[h] = true
	return nil
}

func (a *adoption) blob(h plumbing.Hash) error {
	if a.done[h] || a.s.Has(h) || a.in.Has(h) {
		a.done[h] = true
		return nil
	}
	ok, err := a.s.borrow(h)
	if err == nil && !ok {
		err = fmt.Errorf("object %s is missing", short(h))
	}
	a.done[h] = err == nil
	return err
}

type treeEntry struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
}

// treeEntries reads a tree object's entries.
func treeEntries(h plumbing.Hash, data []byte) ([]treeEntry, error) {
	var out []treeEntry
	for len(data) > 0 {
		sp, nul := bytes.IndexByte(data, ' '), bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			return nil, fmt.Errorf("tree %s is malformed", short(h))
		}
		m, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("tree %s is malformed", short(h))
		}
		e := treeEntry{name: string(data[sp+1 : nul]), mode: filemode.FileMode(m)}
		copy(e.hash[:], data[nul+1:nul+21])
		out = append(out, e)
		data = data[nul+21:]
	}
	return out, nil
}
