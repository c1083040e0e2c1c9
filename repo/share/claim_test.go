package share_test

import (
	"strings"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/share"
)

// claim claims step id of s for agent, as plangit step claim does, and
// returns the claim.
func (w *world) claim(s *repo.Session, id, agent string) share.Claimed {
	w.t.Helper()
	var c share.Claimed
	w.change(s, func(p *plan.Plan) (plan.Change, error) {
		ch, err := p.Claim(id, plan.ClaimOpts{Agent: agent}, w.now)
		if err == nil {
			step, _, _ := p.Step(id)
			c = share.Claimed{Step: id, Agent: agent, Token: step.Claim.Token}
		}
		return ch, err
	})
	return c
}

// TestClaimRaceAcrossMachines: two machines claim one step for two agents
// and publish it. The remote's ref update decides: the first push's claim
// stands; the second machine's push merges with it, the merge voids its
// claim and says so, and PublishClaim fails with CLAIMED naming the holder
// and the next ready step. Both machines end on the same commits, the
// remote's; the error told the loser, so no notice waits for it.
func TestClaimRaceAcrossMachines(t *testing.T) {
	t.Parallel()
	w := newWorld(t, fileRemote)
	s, ra, rr := w.shared("s1")
	r := w.open(w.reviewer, "s1")
	mine := w.claim(s, "2", "alpha")
	theirs := w.claim(r, "2", "beta")
	if mine.Token != theirs.Token {
		t.Fatalf("tokens %d and %d: both machines issued the next one", mine.Token, theirs.Token)
	}

	res, err := ra.PublishClaim(s, mine, w.opts())
	if err != nil || res.Status != "pushed" {
		t.Fatalf("the first claim: %s, %v", res.Status, err)
	}
	res, err = rr.PublishClaim(r, theirs, w.opts())
	if !plan.HasCode(err, plan.CodeClaimed) {
		t.Fatalf("the second claim: %s, %v; want CLAIMED", res.Status, err)
	}
	for _, want := range []string{"step 2 was claimed on origin first, by alpha: your claim (token 1) is voided", "on origin too", "next ready: step 3 (Build)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error says %q, without %q", err, want)
		}
	}
	if pe := err.(*plan.Error); pe.Details["holder"] != "alpha" || pe.Details["next"] != "3" {
		t.Errorf("details %v", pe.Details)
	}
	if res.Status != "merged" || !res.Published || len(res.Merge.Voided) != 1 {
		t.Fatalf("the loser's push: %+v", res)
	}
	if v := res.Merge.Voided[0]; v != (plan.VoidedClaim{Step: "2", Agent: "beta", Token: 1, Holder: "alpha"}) {
		t.Errorf("voided %+v", v)
	}
	if sum := res.Merge.Commit.Change.Summary; !strings.HasSuffix(sum, "; step 2: claim of beta voided, alpha's claim, received first, stands") {
		t.Errorf("the merge's summary: %s", sum)
	}
	if v, err := share.TakeVoided(r, "beta"); err != nil || len(v) != 0 {
		t.Errorf("the error told the void; a notice waits still: %v %v", v, err)
	}

	statuses(t, ra.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	sameHistory(t, s, r)
	if tip := strings.TrimSpace(w.git(w.bare, "rev-parse", share.RemoteRef("s1"))); tip != head(t, s) {
		t.Errorf("the remote holds %s, the machines %s", tip, head(t, s))
	}
	st, err := s.State()
	if err != nil {
		t.Fatal(err)
	}
	if c := stepClaim(t, st.Plan, "2"); c == nil || c.Agent != "alpha" || c.Token != 1 {
		t.Errorf("step 2's claim: %+v, want alpha's", c)
	}
	fsckAll(t, w)
}

// TestVoidedToldOnce: a fetch whose merge voids a claim records it; the
// agent is told of it once (TakeVoided), and other agents never.
func TestVoidedToldOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t, fileRemote)
	s, ra, rr := w.shared("s1")
	r := w.open(w.reviewer, "s1")
	if _, err := ra.PublishClaim(s, w.claim(s, "2", "alpha"), w.opts()); err != nil {
		t.Fatal(err)
	}
	w.claim(r, "2", "beta")
	w.claim(r, "3", "gamma")
	res := rr.Fetch([]string{"s1"}, w.opts())
	statuses(t, res, "s1:merged")
	if n := len(res[0].Merge.Voided); n != 1 {
		t.Fatalf("%d claims voided: %+v", n, res[0].Merge.Voided)
	}
	if v, err := share.TakeVoided(r, "gamma"); err != nil || len(v) != 0 {
		t.Errorf("gamma's claim stands, yet it is told %v (%v)", v, err)
	}
	v, err := share.TakeVoided(r, "beta")
	if err != nil || len(v) != 1 || v[0] != (plan.VoidedClaim{Step: "2", Agent: "beta", Token: 1, Holder: "alpha"}) {
		t.Fatalf("beta is told %+v (%v)", v, err)
	}
	st, err := r.State()
	if err != nil {
		t.Fatal(err)
	}
	want := "your claim on step 2 (token 1) was voided: alpha's claim reached the remote first; no step is ready to claim now"
	if got := share.VoidedNotice(v[0], st.Plan, w.now); got != want {
		t.Errorf("notice %q, want %q", got, want)
	}
	if v, err := share.TakeVoided(r, "beta"); err != nil || len(v) != 0 {
		t.Errorf("told twice: %v (%v)", v, err)
	}
	// The merge is pushed and fetched like any other revision.
	statuses(t, rr.Push([]string{"s1"}, w.opts()), "s1:pushed")
	statuses(t, ra.Fetch([]string{"s1"}, w.opts()), "s1:fast-forward")
	sameHistory(t, s, r)
	fsckAll(t, w)
}

// TestPublishClaimUnreachable: a remote that cannot be reached leaves the
// claim here, and the error says so: the remote does not hold it.
func TestPublishClaimUnreachable(t *testing.T) {
	t.Parallel()
	w := newWorld(t, fileRemote)
	s, ra, _ := w.shared("s1")
	w.git(w.agent.Root, "remote", "set-url", "origin", w.bare+".gone")
	_, err := ra.PublishClaim(s, w.claim(s, "2", "alpha"), w.opts())
	if err == nil || !strings.Contains(err.Error(), "step 2 is claimed here (") || !strings.Contains(err.Error(), "but origin does not hold the claim") {
		t.Fatalf("err %v", err)
	}
	if plan.HasCode(err, plan.CodeClaimed) {
		t.Errorf("no one else holds the step: %v", err)
	}
	fsckAll(t, w)
}

func stepClaim(t *testing.T, p *plan.Plan, id string) *plan.Claim {
	t.Helper()
	s, _, err := p.Step(id)
	if err != nil {
		t.Fatal(err)
	}
	return s.Claim
}
