package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// Memory is a store held in memory: the same objects, branch and revision
// log as Disk, for tests that must touch neither git nor the disk. It is
// safe for concurrent use.
type Memory struct {
	reads
	mu      sync.Mutex
	objects map[plumbing.Hash]memObject
	ref     plumbing.Hash
	log     []string // the lines Disk's file would hold; nil: no log
}

type memObject struct {
	t    plumbing.ObjectType
	data []byte
}

// NewMemory returns an empty store: no objects, a branch with no commit,
// an empty log.
func NewMemory() *Memory {
	m := &Memory{objects: map[plumbing.Hash]memObject{}}
	m.reads = reads{m}
	return m
}

// Read returns an object's type and content.
func (m *Memory) Read(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objects[h]
	if !ok {
		return 0, nil, fmt.Errorf("%w: %s", ErrObjectMissing, h)
	}
	return o.t, slices.Clone(o.data), nil
}

// Stat returns an object's type and size.
func (m *Memory) Stat(h plumbing.Hash) (plumbing.ObjectType, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objects[h]
	if !ok {
		return 0, 0, fmt.Errorf("%w: %s", ErrObjectMissing, h)
	}
	return o.t, int64(len(o.data)), nil
}

// Write stores an object unless the store holds it already, and reports
// whether it wrote one.
func (m *Memory) Write(t plumbing.ObjectType, data []byte) (plumbing.Hash, bool, error) {
	h := plumbing.ComputeHash(t, data)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.objects[h]; ok {
		return h, false, nil
	}
	m.objects[h] = memObject{t: t, data: slices.Clone(data)}
	return h, true, nil
}

// Drop removes object h.
func (m *Memory) Drop(h plumbing.Hash) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objects, h)
}

// ReadRef returns the commit the branch points at.
func (m *Memory) ReadRef() (plumbing.Hash, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ref, nil
}

// SetRefIf moves the branch to next if it points at old and still (if
// set) holds, as one step.
func (m *Memory) SetRefIf(next, old plumbing.Hash, still func() bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ref != old {
		return ErrMoved
	}
	if still != nil && !still() {
		return ErrRecordLost
	}
	m.ref = next
	return nil
}

// ReadLog returns the log's entries, read and checked as Disk reads its
// file.
func (m *Memory) ReadLog() ([]Entry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.log == nil {
		return nil, false
	}
	var check logCheck
	out := make([]Entry, 0, len(m.log))
	for _, line := range m.log {
		e, ok := ParseLine(line)
		if !ok || !check.next(out, e) {
			return nil, false
		}
		out = append(out, e)
	}
	return out, true
}

// LastEntry returns the log's last entry.
func (m *Memory) LastEntry() (Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.log) == 0 {
		return Entry{}, nil
	}
	if e, ok := ParseLine(m.log[len(m.log)-1]); ok {
		return e, nil
	}
	return Entry{}, errors.New("damaged revision log")
}

// AppendEntry adds e at the log's end.
func (m *Memory) AppendEntry(e Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = append(m.log, strings.TrimSuffix(e.Line(), "\n"))
	return nil
}

// WriteLog replaces the log with entries.
func (m *Memory) WriteLog(entries []Entry) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log = make([]string, len(entries))
	for i, e := range entries {
		m.log[i] = strings.TrimSuffix(e.Line(), "\n")
	}
	return nil
}
