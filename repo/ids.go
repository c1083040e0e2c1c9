package repo

import (
	"os"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
)

// The ids a session's history issued (plan.Issued: the largest step,
// finding and error ids) are kept in one cache, .git/plangit/ids, as
// "<revision> <steps> <findings> <errors>": the branch's revision it is
// good for, and the three. Every commit writes it from the ids its own
// state holds, so no change reads history for it; when it is missing or
// behind the branch (a killed process, an older plangit, a merge), it is
// completed from the revisions it lacks: the steps each touched, as the
// revision log records them, and the findings and errors its files hold.
const idsName = "ids"

// The caches an older plangit kept: "<revision> <steps>" and "<revision>
// <findings> <errors>". Read once, where ids is missing.
const (
	oldStepsName = "steps"
	oldNotesName = "notes"
)

// issued returns the ids the history of head has issued: the floor of
// every change made on head. It runs under the session lock.
func (s *Session) issued(head plumbing.Hash) (plan.Issued, error) {
	known, at := s.readIssued()
	if at == head && !head.IsZero() {
		return known, nil
	}
	revs, err := revisions(s, head)
	if err != nil {
		return plan.Issued{}, err
	}
	done := ancestorsIn(revs, at)
	var n plan.Issued
	if done != nil {
		n = known // good up to at: only what came after it is read
	}
	seen := map[plumbing.Hash]bool{}
	for _, e := range revs {
		if done[e.Hash] {
			continue
		}
		n.Steps = max(n.Steps, maxTouched(e.Touches))
		files, err := s.store.ReadTreeFiles(e.Hash)
		if err != nil {
			return plan.Issued{}, damaged(s.ID, e.Hash, err)
		}
		for _, name := range []string{plan.FindingsFile, plan.ErrorsFile} {
			h, ok := files[name]
			if !ok || seen[h] {
				continue
			}
			seen[h] = true
			b, err := s.store.ReadAs(plumbing.BlobObject, h)
			if err != nil {
				return plan.Issued{}, damaged(s.ID, e.Hash, err)
			}
			n = n.Raise(recordsIn(name, b))
		}
	}
	s.noteIssued(head, n)
	return n, nil
}

// recordsIn is the largest record id a findings.md or errors.md of a
// revision holds, by plan's own reading; a copy that does not read (one
// written with git by hand) holds none plangit gave.
func recordsIn(name string, b []byte) plan.Issued {
	st := &plan.State{Plan: &plan.Plan{}}
	var err error
	if name == plan.FindingsFile {
		st.Findings, err = plan.ParseFindings(b)
	} else {
		st.Errors, err = plan.ParseErrors(b)
	}
	if err != nil {
		return plan.Issued{}
	}
	return plan.Issued{}.Holding(st)
}

// readIssued reads the cache: the ids, and the revision they are good
// for (zero when there is none that reads).
func (s *Session) readIssued() (plan.Issued, plumbing.Hash) {
	if f, ok := s.cacheFields(idsName, 4); ok {
		return plan.Issued{Steps: f.n[0], Findings: f.n[1], Errors: f.n[2]}, f.rev
	}
	steps, ok1 := s.cacheFields(oldStepsName, 2)
	notes, ok2 := s.cacheFields(oldNotesName, 3)
	if ok1 && ok2 && steps.rev == notes.rev {
		return plan.Issued{Steps: steps.n[0], Findings: notes.n[0], Errors: notes.n[1]}, steps.rev
	}
	return plan.Issued{}, plumbing.ZeroHash
}

type cacheLine struct {
	rev plumbing.Hash
	n   []int
}

// cacheFields reads a cache of "<revision> <number>…", fields in all; a
// copy cut short or left with a tail of an older one does not read.
func (s *Session) cacheFields(name string, fields int) (cacheLine, bool) {
	b, err := os.ReadFile(s.PrivatePath(name))
	if err != nil {
		return cacheLine{}, false
	}
	f := strings.Fields(string(b))
	if len(f) != fields || !plumbing.IsHash(f[0]) {
		return cacheLine{}, false
	}
	c := cacheLine{rev: plumbing.NewHash(f[0])}
	for _, v := range f[1:] {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return cacheLine{}, false
		}
		c.n = append(c.n, n)
	}
	return c, true
}

// noteIssued records n as the ids issued up to head.
func (s *Session) noteIssued(head plumbing.Hash, n plan.Issued) {
	s.WriteCache(idsName, []byte(head.String()+" "+strconv.Itoa(n.Steps)+" "+strconv.Itoa(n.Findings)+" "+strconv.Itoa(n.Errors)+"\n"))
}

// maxTouched is the largest step id among the steps a revision touched.
func maxTouched(ts []plan.Touch) int {
	n := 0
	for _, t := range ts {
		if v, err := strconv.Atoi(t.Step); err == nil {
			n = max(n, v)
		}
	}
	return n
}

// ancestorsIn is rev and its ancestors among revs (nil when rev is not
// one of them): the revisions a cache good for rev has counted.
func ancestorsIn(revs []revEntry, rev plumbing.Hash) map[plumbing.Hash]bool {
	byHash := make(map[plumbing.Hash]*revEntry, len(revs))
	for i := range revs {
		byHash[revs[i].Hash] = &revs[i]
	}
	if rev.IsZero() || byHash[rev] == nil {
		return nil
	}
	out := map[plumbing.Hash]bool{}
	for queue := []plumbing.Hash{rev}; len(queue) > 0; {
		h := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		e := byHash[h]
		if e == nil || out[h] {
			continue
		}
		out[h] = true
		queue = append(queue, e.Parents...)
		if len(e.Parents) == 0 && !e.Parent.IsZero() {
			queue = append(queue, e.Parent)
		}
	}
	return out
}
