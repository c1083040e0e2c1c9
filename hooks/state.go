package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// stateFile holds a session's hook counters in .git/plangit/: runtime
// counts, not plan content, so they are never committed — a commit per
// tool call would bury the plan's real history.
const stateFile = hookwire.TallyFile

// state is what hooks count between calls for one session: the counters
// PostToolUse keeps (hookwire.Tally, which the hook binary counts too),
// and the maps that tie todos, tasks and subagents to steps.
type state struct {
	hookwire.Tally
	Todos  map[string]stepRef  `json:"todos,omitempty"`  // todo content → step
	Tasks  map[string]stepRef  `json:"tasks,omitempty"`  // task id → step
	Agents map[string][]string `json:"agents,omitempty"` // subagent id → the steps it started
	// Noticed is what the person was told, once: "complete", the step
	// signature of the plan they were told is complete.
	Noticed map[string]string `json:"noticed,omitempty"`

	// holdStarts: a sync leaves the steps a todo list starts pending
	// (step_confirmation, and the person was not asked); held are those
	// steps.
	holdStarts bool
	held       []string
	// agent is who syncs (engine.agent); refused are the todo changes
	// the sync kept out, said to the agent: another agent holds the
	// step, or the list is behind the plan.
	agent   string
	refused []string
	// revisions reads the session's history, to say who moved a step a
	// list is behind on; nil: not said.
	revisions func() ([]repo.Revision, error)
	// replay: the event was queued, and what the sync says reaches no
	// one; what is to tell waits for a live call.
	replay bool
	// claiming says the sync claims the steps a list starts, for agent,
	// for lease: on a plan with claims, or one shared by host sessions
	// or with subagents.
	claiming bool
	lease    time.Duration
}

// stepRef is the step a todo or task maps to: its id, and its text when
// the mapping was last confirmed. Ids are never reused, and the text is
// checked too, so that the map cannot lead to a step other than the one it
// was made for (as it once could after an undo).
//
// Said and Left are what the last sync of the todo or task saw (sync.go's
// cases): the status the list gave it, and the step's status as the sync
// left it; "" when it was never synced.
type stepRef struct {
	ID   string          `json:"id"`
	Text string          `json:"text,omitempty"`
	Said plan.StepStatus `json:"said,omitempty"`
	Left plan.StepStatus `json:"left,omitempty"`
}

// UnmarshalJSON also reads the older form, a bare step id.
func (r *stepRef) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*r = stepRef{}
		return json.Unmarshal(b, &r.ID)
	}
	type plain stepRef
	return json.Unmarshal(b, (*plain)(r))
}

// clone returns a copy of the counters that shares no map with st.
func (st *state) clone() *state {
	c := *st
	c.Todos = maps.Clone(st.Todos)
	c.Tasks = maps.Clone(st.Tasks)
	c.Agents = maps.Clone(st.Agents)
	c.Noticed = maps.Clone(st.Noticed)
	for k, v := range c.Agents {
		c.Agents[k] = slices.Clone(v)
	}
	return &c
}

// loadState reads a session's hook counters; missing or unreadable means
// starting over, which costs at most a reminder.
func loadState(s *repo.Session) *state {
	st := &state{}
	b, err := os.ReadFile(s.PrivatePath(stateFile))
	if err == nil {
		json.Unmarshal(b, st)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return st
	}
	if st.Todos == nil {
		st.Todos = map[string]stepRef{}
	}
	if st.Tasks == nil {
		st.Tasks = map[string]stepRef{}
	}
	return st
}

// ToolUses is how many tool uses the hooks counted in session s: the
// plan's iterations as they stand, which the plan file catches up with at
// the hooks' next revision.
func ToolUses(s *repo.Session) int {
	b, err := os.ReadFile(s.PrivatePath(stateFile))
	if err != nil {
		return 0
	}
	n := 0
	hookwire.Members(b, func(key string, value []byte) error {
		if key == "iterations" {
			n, _ = strconv.Atoi(string(value))
		}
		return nil
	})
	return n
}

// save writes the counters. The caller holds the session lock.
func (st *state) save(s *repo.Session) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return s.WritePrivate(stateFile, b)
}

// noticeComplete is the notice for the person that the plan p, complete,
// is — once for each completion: "" when they were told of this one.
func (st *state) noticeComplete(p *plan.Plan) string {
	if !p.Complete() {
		return ""
	}
	sig := stepSig(p)
	if st.Noticed["complete"] == sig {
		return ""
	}
	if st.Noticed == nil {
		st.Noticed = map[string]string{}
	}
	st.Noticed["complete"] = sig
	c := p.Counts()
	return fmt.Sprintf("plangit: plan %q completed, %d/%d steps done", plan.TruncateText(p.Title, 80), c.Done, c.Total)
}
