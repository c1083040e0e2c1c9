package hookwire

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
