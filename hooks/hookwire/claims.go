package hookwire

import (
	"strconv"
	"strings"
)

// ClaimsKey is the key under which an agent is told the claims of its
// plan, once a turn (package hooks' claimParts): the agent's name and the
// claims as the glance's claimkey line holds them. A plan whose claims
// the agent was told in this turn is answered by the hook binary as any
// other; a change to the claims makes a new key, plangit's to say.
func ClaimsKey(me, claims string) string { return "claims " + me + " " + claims }

// PlainAgent is the agent name plan.AgentName makes of parts, the empty
// ones left out, when every part is ASCII letters, digits and '-' only
// and the first starts with a letter or digit — the names the hosts' ids
// make; ok is false for any other parts, whose name is plangit's to
// make.
func PlainAgent(parts ...string) (name string, ok bool) {
	for _, p := range parts {
		if p == "" {
			continue
		}
		for i := 0; i < len(p); i++ {
			c := p[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return "", false
			}
		}
		if name == "" && p[0] == '-' {
			return "", false
		}
		if name != "" {
			name += ":"
		}
		name += p
	}
	return name, name != "" && len(name) <= 100
}

// Lease is one claim's lease in the glance: its holder, fencing token,
// length and end (seconds, Unix seconds), as last committed.
type Lease struct {
	Agent string
	Token int
	Lease int64
	Until int64
}

// RenewEvery is how often a tool use renews one claim's lease (package
// repo's lease.go).
const RenewEvery = 60 // seconds

// Renewals are the lines to append to the leases record (package repo's
// lease.go, whose RenewLeases this is) for a tool use of agent at now:
// each live claim it holds, its end the later of the glance's and the
// record's, whose renewed end would be a minute or more later. "" when
// none is due.
func Renewals(leases []Lease, record []byte, agent string, now int64) string {
	var ends map[int]int64
	var b []byte
	for _, l := range leases {
		if l.Agent != agent {
			continue
		}
		if ends == nil {
			ends = recordEnds(record)
		}
		until := max(l.Until, ends[l.Token])
		if now >= until {
			continue // expired: another agent may take it
		}
		if renewed := now + l.Lease; renewed-until >= RenewEvery {
			b = strconv.AppendInt(b, int64(l.Token), 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, renewed, 10)
			b = append(b, '\n')
		}
	}
	return string(b)
}

// recordEnds reads the leases record: each token's latest end. A torn
// line is no renewal.
func recordEnds(record []byte) map[int]int64 {
	ends := map[int]int64{}
	for _, line := range strings.Split(string(record), "\n") {
		tok, until, ok := strings.Cut(line, " ")
		t, err1 := strconv.Atoi(tok)
		u, err2 := strconv.ParseInt(until, 10, 64)
		if ok && err1 == nil && err2 == nil && u > ends[t] {
			ends[t] = u
		}
	}
	return ends
}
