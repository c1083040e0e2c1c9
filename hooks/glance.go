package hooks

import (
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/plangit/plangit/hooks/hookwire"
	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/render"
	"github.com/plangit/plangit/repo"
)

// The glance (hookwire.Glance) is built here, from the parsed plan, and
// read by the read-only hooks — here, and in the hook binary.

func newGlance(st *plan.State, key string, cfg repo.Config) *hookwire.Glance {
	p := st.Plan
	g := &hookwire.Glance{Key: key, Files: plan.SessionFiles, Status: string(p.Status), Unfinished: p.Status.Unfinished(), Complete: p.Complete(), Sig: stepSig(p), Failed: failedSig(p),
		Findings: newestFinding(st.Findings), Rules: glanceRules(cfg), Claims: len(p.Claimed()), ClaimKey: claimKey(p.Claimed())}
	for _, s := range p.Claimed() {
		c := s.Claim
		g.Leases = append(g.Leases, hookwire.Lease{Agent: c.Agent, Token: c.Token, Lease: int64(c.Lease / time.Second), Until: c.Until.Unix()})
	}
	g.Line = hookwire.Part{Text: render.StatusLine(st, hookwire.CLIMark)}
	g.Line.Key = g.Line.Text
	pp := postPlan(st)
	g.Cur, g.CurText = pp.Cur, pp.CurText
	if cur := p.Current(); cur != nil {
		g.Names = append(g.Names, curName(cur))
	}
	if next := render.NextStep(p); next != nil {
		g.Names = append(g.Names, nextName(next))
	}
	g.Step = stepPart(p, hookwire.CLIMark)
	if p.Status == plan.PlanRunning && !p.Complete() && len(p.Unfinished()) > 0 {
		g.Left = render.LeftToDo(p, hookwire.CLIMark)
	}
	perTool := map[string]int{}
	for _, e := range st.Errors.Open() {
		if perTool[e.Tool]++; perTool[e.Tool] > maxToolErrors {
			continue
		}
		g.Errors = append(g.Errors, hookwire.GlanceError{Tool: e.Tool, ID: e.ID, Count: strconv.Itoa(e.Count),
			Key: hookwire.NormKey(e.Key), Text: plan.TruncateText(strings.Join(strings.Fields(e.Message), " "), 200)})
		if perTool[e.Tool] == 1 {
			g.OpenErrors = append(g.OpenErrors, hookwire.ToolCount{Tool: e.Tool})
		}
	}
	for i, o := range g.OpenErrors {
		g.OpenErrors[i].N = perTool[o.Tool]
	}
	return g
}

// maxToolErrors is how many open errors of one tool a glance keeps: the
// pre-tool error history names up to five.
const maxToolErrors = 5

// curName and nextName are the turn memory's names for saying which step
// is current and which is next, whatever the wording.
func curName(s *plan.Step) string  { return "current " + s.ID + " " + s.Text }
func nextName(s *plan.Step) string { return "next " + s.ID + " " + s.Text }

// stepPart is the step before a critical tool, keyed by its name.
func stepPart(p *plan.Plan, cli string) hookwire.Part {
	text := render.StepContext(p, cli)
	switch cur := p.Current(); {
	case text == "":
		return hookwire.Part{}
	case cur != nil:
		return hookwire.Part{Key: curName(cur), Text: text}
	}
	return hookwire.Part{Key: nextName(p.Ready()[0]), Text: text}
}

// stepSig sums up the plan's steps — ids, statuses and texts — so that a
// hook can tell whether any changed.
func stepSig(p *plan.Plan) string {
	h := fnv.New64a()
	var buf []byte
	for _, ph := range p.Phases {
		for _, s := range ph.Steps {
			buf = append(buf[:0], s.ID...)
			buf = append(append(buf, 0), s.Status...)
			buf = append(append(buf, 0), s.Text...)
			h.Write(append(buf, 0))
		}
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

// glanceRules are the settings the read-only hooks apply.
func glanceRules(cfg repo.Config) hookwire.Rules {
	r := hookwire.Rules{CriticalTools: cfg.CriticalTools, WriteTools: cfg.WriteTools, ViewTools: cfg.ViewTools,
		PlanConfirmation: cfg.PlanConfirmation, StepConfirmation: cfg.StepConfirmation, Budget: cfg.ContextBudget,
		ActionThreshold: cfg.ActionThreshold, AutoAdvance: cfg.AutoAdvance, AdvanceAfter: cfg.AdvanceAfter, MaxIterations: cfg.MaxIterations,
		StopMode: cfg.StopMode, StopBlockCap: cfg.StopBlockCap, PushOnStop: cfg.PushOn == "stop"}
	for _, e := range repo.HookEvents {
		if !cfg.Hooks[e] {
			r.Off = append(r.Off, e)
		}
	}
	return r
}

// glanceKey names the session's working files and the project's config as
// they stand.
func glanceKey(s *repo.Session) string {
	return hookwire.GlanceKey(s.Project.ConfigPath(), s.Dir, plan.SessionFiles)
}

// readGlance returns the session's glance when it matches the working
// files and the config as they stand; otherwise it parses the plan and,
// when nothing changed meanwhile, stores a new glance for the next hook.
// The new glance says the files are the branch's (Landed) when the old
// one did for the same files, or when they are found to be.
func readGlance(s *repo.Session, cfg repo.Config) (*hookwire.Glance, error) {
	key := glanceKey(s)
	head := hookwire.BranchTip(s.Dir)
	var old *hookwire.Glance
	if g, ok := hookwire.ReadGlance(s.PrivatePath(hookwire.GlanceFile)); ok {
		if g.Key == key && (g.Landed == "" && g.Rev == "" || g.Rev == head) {
			return g, nil
		}
		old = g
	}
	st, err := s.State()
	if err != nil {
		return nil, err
	}
	st.Plan.Rules = cfg.Rules()
	g := newGlance(st, key, cfg)
	if files := s.FilesKey(); old != nil && old.Landed == files && old.Rev == head && head != "" {
		g.Landed = files
	} else {
		g.Landed = s.CommittedKey()
	}
	if g.Landed != "" && head != "" && hookwire.BranchTip(s.Dir) == head {
		g.Rev = head
	} else {
		g.Landed = ""
	}
	if glanceKey(s) == key {
		s.WriteCache(hookwire.GlanceFile, g.Encode()) // a cache: a failed write costs only speed
	}
	return g, nil
}

// WriteGlance writes a session's glance from the state a change just
// landed, under the change's lock (repo.Project.Landed): the hook binary, which
// answers from the glance alone, finds it fresh after every change. A
// project whose config cannot be read gets none; the next hook says why.
func WriteGlance(s *repo.Session, st *plan.State) {
	cfg, err := s.Project.Config()
	if err != nil {
		return // the glance names the config: the old one is stale now
	}
	rules := st.Plan.Rules
	st.Plan.Rules = cfg.Rules()
	defer func() { st.Plan.Rules = rules }()
	g := newGlance(st, glanceKey(s), cfg)
	g.Landed = s.FilesKey() // the change just left the files as the branch has them
	g.Rev = hookwire.BranchTip(s.Dir)
	s.WriteCache(hookwire.GlanceFile, g.Encode())
}
