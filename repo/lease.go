package repo

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
)

// A claim's lease is renewed by its holder's changes (plan.Fenced), and
// by its hooks' activity, which commits nothing: a tool use appends a
// line "TOKEN UNTIL" (UNTIL in Unix seconds) to the leases record
// (.git/plangit/leases), at most once a minute a claim. Every reading of
// the plan takes the record's ends into the claims it names, and the next
// change commits them and empties the record.

// renewEvery is how often the hooks' activity renews one claim.
const renewEvery = time.Minute

// RenewLeases renews, by the leases record, the live claims agent holds
// in st whose lease was last renewed more than a minute ago. It reports
// how many it renewed. It takes no lock: each renewal is one appended
// line.
func (s *Session) RenewLeases(st *plan.State, agent string, now time.Time) (int, error) {
	var b strings.Builder
	n := 0
	for _, step := range st.Plan.Held(agent, now) {
		c := step.Claim
		until := now.Add(c.Lease).Truncate(time.Second)
		if until.Sub(c.Until) < renewEvery {
			continue
		}
		fmt.Fprintf(&b, "%d %d\n", c.Token, until.Unix())
		n++
	}
	if n == 0 {
		return 0, nil
	}
	if err := disk.AppendFile(s.PrivatePath(disk.LeasesFile), []byte(b.String())); err != nil {
		return 0, err
	}
	return n, nil
}

// applyLeases takes the leases record's renewals into st's claims.
func (s *Session) applyLeases(st *plan.State) {
	b, err := disk.ReadFile(s.PrivatePath(disk.LeasesFile))
	if err != nil || len(b) == 0 {
		return
	}
	ends := map[int]time.Time{}
	for _, line := range strings.Split(string(b), "\n") {
		tok, until, ok := strings.Cut(line, " ")
		t, err1 := strconv.Atoi(tok)
		u, err2 := strconv.ParseInt(until, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			continue // a torn line: a renewal lost, never a wrong one
		}
		if e := time.Unix(u, 0).UTC(); e.After(ends[t]) {
			ends[t] = e
		}
	}
	for _, step := range st.Plan.Claimed() {
		if e, ok := ends[step.Claim.Token]; ok && e.After(step.Claim.Until) {
			step.Claim.Until = e
		}
	}
}

// clearLeases empties the leases record once a change committed the
// renewals it held. It runs under the session lock.
func (s *Session) clearLeases() {
	if _, err := os.Lstat(s.PrivatePath(disk.LeasesFile)); err == nil {
		s.WritePrivate(disk.LeasesFile, nil)
	}
}
