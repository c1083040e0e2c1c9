package repo

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
)

// The largest step id ever issued in a session is kept in
// .git/plangit/steps as "<revision> <id>": the branch's revision it is good
// for, and the id. A commit updates it from the steps it touched, so no
// change reads history for it; when it is missing or behind the branch (a
// killed process, an older plangit), it is rebuilt once from the revision
// log, where every revision records the steps it touched.
const stepsName = "steps"

// issuedSteps returns the largest step id the history of head has issued.
// It runs under the session lock.
func (s *Session) issuedSteps(head plumbing.Hash) (int, error) {
	if b, err := os.ReadFile(s.PrivatePath(stepsName)); err == nil {
		h, n, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
		if v, err := strconv.Atoi(n); ok && err == nil && h == head.String() {
			return v, nil
		}
	}
	revs, err := s.revisions(head)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range revs {
		n = max(n, maxTouched(e.Touches))
	}
	s.noteIssued(head, n)
	return n, nil
}

// noteIssued records n as the largest step id issued up to head.
func (s *Session) noteIssued(head plumbing.Hash, n int) {
	// A cache, written in place: a copy cut short or left with a tail of
	// the old one does not read as "<revision> <id>" for this revision,
	// and is rebuilt.
	s.WriteCache(stepsName, []byte(head.String()+" "+strconv.Itoa(n)+"\n"))
}

func maxTouched(ts []plan.Touch) int {
	n := 0
	for _, t := range ts {
		if v, err := strconv.Atoi(t.Step); err == nil {
			n = max(n, v)
		}
	}
	return n
}

// The largest finding and error ids ever issued are kept the same way, in
// .git/plangit/notes as "<revision> <finding> <error>". Undo and rollback
// bring back older files, whose largest ids are smaller, and a person may
// delete a record by hand: the next finding or error still gets an id the
// session never gave, so that "finding 3" names one finding in the whole
// history. A commit updates the file from what it wrote; when it is
// missing or behind the branch, it is rebuilt once from the findings.md
// and errors.md of every revision.
const notesName = "notes"

// issuedIDs is the largest finding and error id a history has issued.
type issuedIDs struct{ findings, errors int }

// issuedNotes returns the largest finding and error ids the history of
// head has issued.
func (s *Session) issuedNotes(head plumbing.Hash) (issuedIDs, error) {
	var (
		known   issuedIDs
		knownAt plumbing.Hash // the revision known is good for
	)
	if b, err := os.ReadFile(s.PrivatePath(notesName)); err == nil {
		if f := strings.Fields(string(b)); len(f) == 3 && plumbing.IsHash(f[0]) {
			fi, err1 := strconv.Atoi(f[1])
			ei, err2 := strconv.Atoi(f[2])
			if err1 == nil && err2 == nil {
				known, knownAt = issuedIDs{fi, ei}, plumbing.NewHash(f[0])
			}
		}
	}
	if knownAt == head && !head.IsZero() {
		return known, nil
	}
	revs, err := s.revisions(head)
	if err != nil {
		return issuedIDs{}, err
	}
	// Behind the branch (a merge, a repair, an older plangit): only the
	// revisions the known one does not have are read.
	done := ancestorsIn(revs, knownAt)
	var n issuedIDs
	if done != nil {
		n = known
	}
	seen := map[plumbing.Hash]bool{}
	for _, e := range revs {
		if done[e.Hash] {
			continue
		}
		files, err := s.objs.readTreeFiles(e.Hash)
		if err != nil {
			return issuedIDs{}, s.damaged(e.Hash, err)
		}
		for _, name := range []string{plan.FindingsFile, plan.ErrorsFile} {
			h, ok := files[name]
			if !ok || seen[h] {
				continue
			}
			seen[h] = true
			b, err := s.objs.readAs(plumbing.BlobObject, h)
			if err != nil {
				return issuedIDs{}, s.damaged(e.Hash, err)
			}
			n = n.with(name, b)
		}
	}
	s.noteNotes(head, n)
	return n, nil
}

// ancestorsIn is the set of revs' revisions in rev's history, rev
// included; nil when rev is not among them.
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

// with raises n by the ids in a findings.md or errors.md (name) as
// plangit writes them: each record's heading ends in "`#ID …`".
func (n issuedIDs) with(name string, b []byte) issuedIDs {
	m := 0
	for line := range bytes.Lines(b) {
		if len(line) == 0 || line[0] != '#' {
			continue
		}
		i := bytes.LastIndex(line, []byte("`#"))
		if i < 0 {
			continue
		}
		j := i + 2
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if v, err := strconv.Atoi(string(line[i+2 : j])); err == nil {
			m = max(m, v)
		}
	}
	if name == plan.FindingsFile {
		n.findings = max(n.findings, m)
	} else if name == plan.ErrorsFile {
		n.errors = max(n.errors, m)
	}
	return n
}

// withFiles raises n by the ids in a revision's files.
func (n issuedIDs) withFiles(files map[string][]byte) issuedIDs {
	for _, name := range []string{plan.FindingsFile, plan.ErrorsFile} {
		if b, ok := files[name]; ok {
			n = n.with(name, b)
		}
	}
	return n
}

// noteNotes records n as the largest finding and error ids issued up to
// head (a cache, as noteIssued's).
func (s *Session) noteNotes(head plumbing.Hash, n issuedIDs) {
	s.WriteCache(notesName, []byte(head.String()+" "+strconv.Itoa(n.findings)+" "+strconv.Itoa(n.errors)+"\n"))
}

// notesReserve gives a state the next finding and error ids the history
// allows — above every id it issued — where the files alone would give
// one again; settle, after the change, puts back the files' own counters
// where no record was added, or where the files' ids have caught up, so
// that task_plan.md changes only when it must.
type notesReserve struct {
	fileFindings, fileErrors int // the plan file's counters
	findings, errors         int // as reserved
}

func reserveNotes(st *plan.State, n issuedIDs) notesReserve {
	r := notesReserve{fileFindings: st.Plan.NextFinding, fileErrors: st.Plan.NextError}
	if next := n.findings + 1; next > max(st.Plan.NextFinding, maxIDOf(st.Findings, findingID)+1) {
		st.Plan.NextFinding = next
	}
	if next := n.errors + 1; next > max(st.Plan.NextError, maxIDOf(st.Errors, errorID)+1) {
		st.Plan.NextError = next
	}
	r.findings, r.errors = st.Plan.NextFinding, st.Plan.NextError
	return r
}

func (r notesReserve) settle(st *plan.State) {
	p := st.Plan
	switch {
	case p.NextFinding == r.findings:
		p.NextFinding = r.fileFindings
	case r.fileFindings == 0 && p.NextFinding <= maxIDOf(st.Findings, findingID)+1:
		p.NextFinding = 0
	}
	switch {
	case p.NextError == r.errors:
		p.NextError = r.fileErrors
	case r.fileErrors == 0 && p.NextError <= maxIDOf(st.Errors, errorID)+1:
		p.NextError = 0
	}
}
