package hooks

import (
	"fmt"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
)

// A todo list behind the plan (sync.go's cases 1–5): the list's word
// applies where it is news, and where the plan has moved on it changes
// nothing and the agent is told, once.

// synced is the ref after a sync in which the list said said of step s.
func (r stepRef) synced(said plan.StepStatus, s *plan.Step) stepRef {
	r.ID, r.Text, r.Said, r.Left = s.ID, s.Text, said, s.Status
	return r
}

// apply sets step s to the list's word want, unless the list is behind
// the plan on it; ids[key] remembers what this sync saw. A list behind
// leaves Left as it was: the plan's move stays news to the list until the
// list agrees with it.
func (c *syncCount) apply(p *plan.Plan, s *plan.Step, ids map[string]stepRef, key string, want plan.StepStatus, now time.Time) error {
	ref := ids[key]
	if behind(s, ref, want) {
		c.noteBehind(s, now)
		ref.Said = want
		ids[key] = ref
		return nil
	}
	if err := setStatus(p, s, want, now, c); err != nil {
		return err
	}
	ids[key] = ref.synced(want, s)
	return nil
}

// behind reports whether the list's word want on s, last synced as ref,
// is older than the plan's state of s (sync.go's case 3).
func behind(s *plan.Step, ref stepRef, want plan.StepStatus) bool {
	switch {
	case want == "" || want == s.Status:
		return false // nothing the list could change
	case ref.Left != "" && s.Status == ref.Left:
		return false // case 1: the plan has not moved it since
	case s.Status == plan.StepSkipped && s.Reason == droppedReason:
		return false // case 5: the list's own drop
	}
	return want == ref.Said || rank(want) < rank(s.Status)
}

// rank orders statuses by how far along a step is: pending, then started
// (in progress, or blocked on the way), then resolved.
func rank(st plan.StepStatus) int {
	switch {
	case st.Resolved():
		return 2
	case st == plan.StepInProgress || st == plan.StepBlocked:
		return 1
	}
	return 0
}

// noteBehind notes that the list is behind on s, to be told unless the
// agent was told of s in this state already.
func (c *syncCount) noteBehind(s *plan.Step, now time.Time) {
	if c.hs == nil || c.hs.replay {
		return
	}
	key := "behind " + s.ID
	sig := fmt.Sprintf("%s %d %d %d", s.Status, s.Started.UnixNano(), s.Completed.UnixNano(), s.Retries)
	if c.hs.Noticed[key] == sig {
		return
	}
	if c.hs.Noticed == nil {
		c.hs.Noticed = map[string]string{}
	}
	c.hs.Noticed[key] = sig
	c.behind = append(c.behind, fmt.Sprintf("%q (step %s) is %s in the plan%s", clip(s.Text), s.ID, strings.ReplaceAll(string(s.Status), "_", " "), c.movedBy(s, now)))
}

// movedBy says who put s in its status and when: the newest revision
// that did, from the session's history; the step's own time when the
// history does not say.
func (c *syncCount) movedBy(s *plan.Step, now time.Time) string {
	if c.hs.revisions != nil {
		if revs, err := c.hs.revisions(); err == nil {
			for i := len(revs) - 1; i >= 0; i-- {
				r := revs[i]
				for _, t := range r.Touches {
					if t.Step != s.ID || t.To != s.Status {
						continue
					}
					who := r.Who()
					if w, ok := actorWords[who]; ok {
						who = w // no one named: the actor, in words
					}
					if r.Agent != "" && r.Agent == c.hs.agent {
						who = "you" // its own plangit command, its list not updated
					}
					if s.Auto && s.Status == plan.StepCompleted {
						who += ", auto-advance"
					}
					return fmt.Sprintf(" (by %s, %s, revision %s)", who, render.Ago(now, r.Time), r.Hash[:7])
				}
			}
		}
	}
	if !s.Completed.IsZero() {
		return " (" + render.Ago(now, s.Completed) + ")"
	}
	return ""
}

// actorWords say a revision's actor when it names no one.
var actorWords = map[string]string{"user": "the person", "agent": "an agent", "hook": "the hooks"}

// tellBehind adds what the list is behind on to what the agent is told.
func (c *syncCount) tellBehind() {
	if len(c.behind) == 0 || c.hs == nil {
		return
	}
	c.hs.refused = append(c.hs.refused, "Your todo list is behind the plan, which keeps its state: "+strings.Join(c.behind, "; ")+
		". Update your list to match the plan.")
	c.behind = nil
}
