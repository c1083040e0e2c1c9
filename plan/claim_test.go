package plan

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// claimPlan is mergeBase's plan with its phases free, so steps 1, 2 and 4
// are ready at once.
func claimPlan(t *testing.T) *State {
	t.Helper()
	st := mergeBase(t)
	st.Plan.Rules.PhaseOrder = PhasesFree
	return st
}

func mustClaim(t *testing.T, p *Plan, id string, o ClaimOpts, now time.Time) Change {
	t.Helper()
	c, err := p.Claim(id, o, now)
	if err != nil {
		t.Fatalf("claim %s for %s: %v", id, o.Agent, err)
	}
	return c
}

func TestClaimRoundTripsAndKeepsTokensGrowing(t *testing.T) {
	st := claimPlan(t)
	p := st.Plan
	mustClaim(t, p, "1", ClaimOpts{Agent: "claude:9f2c-a", Lease: 90 * time.Second}, t0)
	mustClaim(t, p, "2", ClaimOpts{Agent: "reviewer@laptop", Lease: 2*time.Hour + 30*time.Minute}, t0)
	src := WritePlan(p)
	if !bytes.Contains(src, []byte("  - claim: claude:9f2c-a token:1 lease:1m30s since:2026-11-20T10:00:00Z until:2026-11-20T10:01:30Z\n")) {
		t.Fatalf("claim line missing:\n%s", src)
	}
	back, err := ParsePlan(src)
	if err != nil {
		t.Fatal(err)
	}
	if got := WritePlan(back); !bytes.Equal(got, src) {
		t.Fatalf("round trip changed the plan:\n%s\n---\n%s", src, got)
	}
	// A hand edit that lowers the counter below a token in the file does
	// not make a token be given twice.
	lowered := bytes.Replace(src, []byte("claims=2"), []byte("claims=0"), 1)
	q, err := ParsePlan(lowered)
	if err != nil {
		t.Fatal(err)
	}
	q.Rules.PhaseOrder = PhasesFree
	mustClaim(t, q, "4", ClaimOpts{Agent: "c"}, t0)
	if s, _, _ := q.Step("4"); s.Claim.Token != 3 {
		t.Fatalf("token after a lowered counter = %d, want 3", s.Claim.Token)
	}
	for _, bad := range []string{"claim: -x token:1 lease:1m since:2026-11-20T10:00:00Z until:2026-11-20T10:01:00Z", "claim: a token:0 lease:1m since:2026-11-20T10:00:00Z until:2026-11-20T10:01:00Z", "claim: a token:1 lease:0s since:2026-11-20T10:00:00Z until:2026-11-20T10:01:00Z", "claim: a token:1"} {
		src := strings.Replace(string(WritePlan(p)), "claim: claude:9f2c-a token:1 lease:1m30s since:2026-11-20T10:00:00Z until:2026-11-20T10:01:30Z", bad, 1)
		if _, err := ParsePlan([]byte(src)); CodeOf(err) != CodePlanParseError {
			t.Errorf("%q: err = %v, want PLAN_PARSE_ERROR", bad, err)
		}
	}
}

func TestFencedFollowsTheClaimRule(t *testing.T) {
	st := claimPlan(t)
	p := st.Plan
	mustClaim(t, p, "1", ClaimOpts{Agent: "a", Lease: 10 * time.Minute}, t0)
	done := func(f Fence, at time.Duration) (*Plan, error) {
		after := p.Clone()
		if _, err := after.Transition("1", ActDone, TransitionOpts{}, t0.Add(at)); err != nil {
			t.Fatal(err)
		}
		return after, Fenced(p, after, f, t0.Add(at))
	}
	// 2: another agent, while the lease lasts: refused; with Force: taken.
	if _, err := done(Fence{Agent: "b"}, time.Minute); CodeOf(err) != CodeClaimed || !strings.Contains(err.Error(), "claimed by a until 2026-11-20T10:10:00Z") {
		t.Errorf("another agent's change: %v", err)
	}
	if _, err := done(Fence{Agent: "b", Force: true}, time.Minute); err != nil {
		t.Errorf("forced: %v", err)
	}
	if _, err := done(Fence{}, time.Minute); CodeOf(err) != CodeClaimed {
		t.Errorf("an unnamed caller's change: %v", err)
	}
	// 3: once the lease has ended, anyone's.
	if _, err := done(Fence{Agent: "b"}, 11*time.Minute); err != nil {
		t.Errorf("after the lease: %v", err)
	}
	// 6: the holder's completion ends the claim.
	after, err := done(Fence{Agent: "a", Token: 1}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if s, _, _ := after.Step("1"); s.Claim != nil {
		t.Errorf("a completed step keeps its claim: %+v", s.Claim)
	}
	// 4: an older token is refused, expired or not.
	took := p.Clone()
	mustClaim(t, took, "1", ClaimOpts{Agent: "b", Take: true}, t0.Add(11*time.Minute))
	next := took.Clone()
	next.Transition("1", ActDone, TransitionOpts{}, t0.Add(40*time.Minute))
	if err := Fenced(took, next, Fence{Agent: "a", Token: 1}, t0.Add(40*time.Minute)); CodeOf(err) != CodeClaimed || !strings.Contains(err.Error(), "claimed again since token 1: b holds it now, with token 2") {
		t.Errorf("an old token after the new claim expired: %v", err)
	}
	// 5: the holder's change renews the lease.
	prog := p.Clone()
	prog.SetProgress("1", Progress{Current: 1, Total: 2}, t0.Add(8*time.Minute))
	if err := Fenced(p, prog, Fence{Agent: "a"}, t0.Add(8*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := prog.Step("1"); !s.Claim.Until.Equal(t0.Add(18 * time.Minute)) {
		t.Errorf("renewed until %v, want 10:18", s.Claim.Until)
	}
	// 1: an unclaimed step takes anyone's change.
	other := p.Clone()
	other.Transition("2", ActStart, TransitionOpts{}, t0)
	if err := Fenced(p, other, Fence{Agent: "b"}, t0); err != nil {
		t.Errorf("an unclaimed step: %v", err)
	}
}

func TestClaimRefusals(t *testing.T) {
	st := claimPlan(t)
	p := st.Plan
	mustClaim(t, p, "1", ClaimOpts{Agent: "a", Lease: time.Minute}, t0)
	for _, tc := range []struct {
		name string
		err  func() error
		code Code
		want string
	}{
		{"live", func() error { _, err := p.Claim("1", ClaimOpts{Agent: "b"}, t0); return err }, CodeClaimed, "step 1 is claimed by a until"},
		{"take live", func() error { _, err := p.Claim("1", ClaimOpts{Agent: "b", Take: true}, t0); return err }, CodeClaimed, "--take takes only"},
		{"expired without take", func() error { _, err := p.Claim("1", ClaimOpts{Agent: "b"}, t0.Add(time.Hour)); return err }, CodeClaimed, "whose lease ended"},
		{"release by another", func() error { _, err := p.Release("1", "b", false, t0); return err }, CodeClaimed, "only its holder releases it"},
		{"bad agent", func() error { _, err := p.Claim("2", ClaimOpts{Agent: "a b"}, t0); return err }, CodeInvalidAgent, "agent name"},
		{"needs unmet", func() error { _, err := p.Claim("3", ClaimOpts{Agent: "b"}, t0); return err }, CodeInvalidStatus, ""},
		{"unknown", func() error { _, err := p.Claim("99", ClaimOpts{Agent: "b"}, t0); return err }, CodeStepNotFound, ""},
	} {
		before := WritePlan(p)
		err := tc.err()
		if CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %s %q", tc.name, err, tc.code, tc.want)
		}
		if !bytes.Equal(WritePlan(p), before) {
			t.Errorf("%s changed the plan", tc.name)
		}
	}
	for _, l := range []string{"0", "0s", "500ms", "25h", "8760h", "soon"} {
		if _, err := ParseLease(l); CodeOf(err) != CodeInvalidArgument {
			t.Errorf("lease %q: %v", l, err)
		}
	}
	if got := p.Claimable(t0); len(got) != 2 || got[0].ID != "2" || got[1].ID != "4" {
		t.Errorf("claimable = %v", got)
	}
}

// Both machines claimed one step: the claim of the published side stands,
// whatever the order; the other is voided and the report names it.
func TestMergeKeepsThePublishedClaim(t *testing.T) {
	base := claimPlan(t)
	x := edit(t, base, func(st *State, now time.Time) error {
		_, err := st.Plan.Claim("2", ClaimOpts{Agent: "laptop"}, now)
		return err
	}, time.Minute)
	y := edit(t, base, func(st *State, now time.Time) error {
		_, err := st.Plan.Claim("2", ClaimOpts{Agent: "desktop"}, now)
		return err
	}, 2*time.Minute)
	for _, keep := range []Keep{KeepX, KeepY} {
		out, rep, err := Merge(base, MergeSide{Rev: "aaaaaaa", State: x}, MergeSide{Rev: "bbbbbbb", State: y}, MergeOptions{Keep: keep})
		if err != nil {
			t.Fatal(err)
		}
		win, lose := "laptop", "desktop"
		if keep == KeepY {
			win, lose = lose, win
		}
		s, _, _ := out.Plan.Step("2")
		if s.Claim == nil || s.Claim.Agent != win || len(s.Conflicts) != 0 {
			t.Fatalf("keep %v: claim %+v conflicts %v", keep, s.Claim, s.Conflicts)
		}
		if len(rep.Voided) != 1 || rep.Voided[0] != (VoidedClaim{Step: "2", Agent: lose, Token: 1, Holder: win}) {
			t.Errorf("keep %v: voided %+v", keep, rep.Voided)
		}
	}
	// Without a published side, the earlier claim stands, either way round.
	a, _, _ := Merge(base, MergeSide{Rev: "aaaaaaa", State: x}, MergeSide{Rev: "bbbbbbb", State: y}, MergeOptions{})
	b, _, _ := Merge(base, MergeSide{Rev: "bbbbbbb", State: y}, MergeSide{Rev: "aaaaaaa", State: x}, MergeOptions{})
	if !bytes.Equal(WritePlan(a.Plan), WritePlan(b.Plan)) {
		t.Fatal("the merge depends on the order of its sides")
	}
	if s, _, _ := a.Plan.Step("2"); s.Claim.Agent != "laptop" {
		t.Errorf("by content: %s's claim stands, want the earlier (laptop)", s.Claim.Agent)
	}
	// One side released, the other left the claim alone: released.
	claimed := edit(t, base, func(st *State, now time.Time) error {
		_, err := st.Plan.Claim("2", ClaimOpts{Agent: "laptop"}, now)
		return err
	}, 0)
	released := edit(t, claimed, func(st *State, now time.Time) error {
		_, err := st.Plan.Release("2", "laptop", false, now)
		return err
	}, time.Minute)
	other := edit(t, claimed, func(st *State, now time.Time) error {
		_, err := st.Plan.Transition("1", ActStart, TransitionOpts{}, now)
		return err
	}, time.Minute)
	out, _, err := Merge(claimed, MergeSide{Rev: "aaaaaaa", State: released}, MergeSide{Rev: "bbbbbbb", State: other}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s, _, _ := out.Plan.Step("2"); s.Claim != nil || s.Status != StepPending {
		t.Errorf("released on one side: %s %+v", s.Status, s.Claim)
	}
}
