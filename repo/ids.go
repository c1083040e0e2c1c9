package repo

import (
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
