package plan

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
)

// PlanFile is the name of the plan's file in a session.
const PlanFile = "task_plan.md"

// The task_plan.md format (documented in the README):
//
//	# Title
//
//	> **Goal:** what the plan achieves
//	>
//	> **Status:** running · 2/5 steps done · updated 2026-11-20T10:30:00Z
//
//	## ◐ Phase 1: Build
//
//	> optional phase notes
//
//	- [x] ● Analyze the service `#1`
//	  - result: found 3 hot paths
//	  - time: 2026-11-20T10:00:00Z → 2026-11-20T10:20:00Z (20m)
//	- [ ] ◐ Implement the cache `#2 needs:1 progress:2/5`
//	- [x] ● Use the cache `#3 auto` (auto-advance completed it: no one said so)
//
//	<!-- plangit id=s1 created=2026-11-20T09:00:00Z iterations=4 next-step=3 next-phase=2 -->
//
// The checkbox and icon carry the status; the code span at the end of a step
// line carries its id and machine fields; detail lines carry the rest.

const (
	labelGoal     = "Goal"
	labelStatus   = "Status"
	labelResult   = "Result"
	labelReason   = "Reason"
	labelConflict = "Conflict"
	machineTag    = "<!-- plangit"
)

var stepIcons = []string{"○", "◐", "●", "✖", "⊘"}

// WritePlan writes a plan as task_plan.md.
func WritePlan(p *Plan) []byte {
	var b strings.Builder
	b.Grow(1024 + 96*p.stepCount()) // a step's line is 60 to 90 bytes: one allocation for most plans
	b.WriteString("# ")
	b.WriteString(p.Title)
	b.WriteString("\n\n")

	c := p.Counts()
	header := []string{
		"**" + labelGoal + ":** " + joinLines(p.Goal),
		fmt.Sprintf("**%s:** %s · %d/%d steps done", labelStatus, p.Status, c.Done, c.Total),
	}
	if !p.Updated.IsZero() {
		header[1] += " · updated " + formatTime(p.Updated)
	}
	if p.Result != "" {
		header = append(header, "**"+labelResult+":** "+joinLines(p.Result))
	}
	if p.Reason != "" {
		header = append(header, "**"+labelReason+":** "+joinLines(p.Reason))
	}
	for _, c := range p.Conflicts {
		header = append(header, "**"+labelConflict+":** "+c.String())
	}
	for i, h := range header {
		if i > 0 {
			b.WriteString(">\n")
		}
		b.WriteString(strings.TrimRight("> "+h, " "))
		b.WriteByte('\n')
	}

	for _, ph := range p.Phases {
		fmt.Fprintf(&b, "\n## %s Phase %s: %s\n", ph.Status().Icon(), ph.ID, ph.Title)
		if ph.Notes != "" {
			b.WriteByte('\n')
			writeQuote(&b, ph.Notes)
		}
		if len(ph.Steps) > 0 {
			b.WriteByte('\n')
		}
		for _, s := range ph.Steps {
			writeStep(&b, s)
		}
	}

	b.WriteString("\n" + machineTag)
	if p.ID != "" {
		b.WriteString(" id=" + p.ID)
	}
	if !p.Created.IsZero() {
		b.WriteString(" created=" + formatTime(p.Created))
	}
	fmt.Fprintf(&b, " iterations=%d next-step=%d next-phase=%d", p.Iterations, p.NextStep, p.NextPhase)
	if p.NextFinding > 0 {
		fmt.Fprintf(&b, " next-finding=%d", p.NextFinding)
	}
	if p.NextError > 0 {
		fmt.Fprintf(&b, " next-error=%d", p.NextError)
	}
	if p.Claims > 0 {
		fmt.Fprintf(&b, " claims=%d", p.Claims)
	}
	if p.From != "" {
		b.WriteString(" from=" + p.From)
	}
	b.WriteString(" -->\n")
	return sealed(&b)
}

func writeStep(b *strings.Builder, s *Step) {
	box := "[ ]"
	if s.Status == StepCompleted {
		box = "[x]"
	}
	// The step line, written piece by piece: a plan writes one per step.
	b.WriteString("- ")
	b.WriteString(box)
	b.WriteByte(' ')
	b.WriteString(s.Status.Icon())
	b.WriteByte(' ')
	b.WriteString(s.Text)
	b.WriteString(" `#")
	b.WriteString(s.ID)
	for i, n := range s.Needs {
		if i == 0 {
			b.WriteString(" needs:")
		} else {
			b.WriteByte(',')
		}
		b.WriteString(n)
	}
	if s.Progress.Total > 0 {
		b.WriteString(" progress:")
		b.WriteString(s.Progress.String())
	}
	if s.Retries > 0 {
		b.WriteString(" retries:")
		b.WriteString(strconv.Itoa(s.Retries))
	}
	if s.Status == StepBlocked {
		b.WriteString(" blocked")
	}
	if s.Auto && s.Status == StepCompleted {
		b.WriteString(" auto")
	}
	b.WriteString("`\n")
	detail := func(key, value string) {
		if value != "" {
			b.WriteString("  - " + key + ": " + joinLines(value) + "\n")
		}
	}
	detail("doing", s.Active)
	detail("why", s.Why)
	detail("result", s.Result)
	detail("reason", s.Reason)
	if !s.Started.IsZero() || !s.Completed.IsZero() {
		t := formatTime(s.Started) + " → " + formatTime(s.Completed)
		if !s.Started.IsZero() && !s.Completed.IsZero() {
			t += " (" + FormatDuration(s.Completed.Sub(s.Started)) + ")"
		}
		detail("time", strings.TrimSpace(t))
	}
	if s.Claim != nil {
		detail("claim", s.Claim.String())
	}
	for _, c := range s.Conflicts {
		b.WriteString("  - conflict: " + c.String() + "\n")
	}
}

// ParsePlan parses task_plan.md. Steps and phases written without an id (a
// hand-added "- [ ] new step" line) get fresh ids.
func ParsePlan(src []byte) (*Plan, error) {
	d, err := ParseDoc(PlanFile, src)
	if err != nil {
		return nil, err
	}
	pp := planParser{Doc: d, p: &Plan{Status: PlanRunning, Rules: DefaultRules()}, lines: map[string]int{}, notes: Gathered{}, repeats: map[string]int{}, phaseLines: map[string]int{}}
	if err := pp.parse(); err != nil {
		return nil, err
	}
	for _, s := range pp.p.Steps() {
		if s.Claim != nil {
			pp.p.Claims = max(pp.p.Claims, s.Claim.Token) // a token is never given twice
		}
	}
	return pp.p, nil
}

type planParser struct {
	*Doc
	p          *Plan
	titled     bool
	phase      *Phase
	lines      map[string]int // step id → offset, for dependency errors
	repeats    map[string]int // step id → offset of its second line, for a repeated id
	phaseLines map[string]int // phase id → offset of its last heading, for a repeated id
	nextStep   int
	nextPhase  int
	unnumbered []*Step
	notes      Gathered // phases' notes, joined after the last block
	newPhases  []*Phase
}

func (pp *planParser) parse() error {
	for n := pp.Root.FirstChild(); n != nil; n = n.NextSibling() {
		if !pp.titled {
			h, ok := n.(*ast.Heading)
			if !ok || h.Level != 1 {
				return pp.errAtNode(n, "task_plan.md starts with the plan's title, a \"# Title\" line")
			}
			pp.p.Title, pp.titled = pp.HeadingText(h), true
			continue
		}
		if err := pp.block(n); err != nil {
			return err
		}
	}
	pp.notes.Join()
	if !pp.titled {
		return pp.ErrAt(0, "task_plan.md is empty; it starts with the plan's title, a \"# Title\" line")
	}
	pp.number()
	if err := pp.p.Validate(); err != nil {
		var e *Error
		if errors.As(err, &e) {
			off, ok := -1, false
			if id, is := e.Details["step"].(string); is {
				off, ok = pp.lines[id]
				if e.Details["repeated"] == true {
					off, ok = pp.repeats[id]
				}
			} else if id, is := e.Details["phase"].(string); is {
				off, ok = pp.phaseLines[id]
			}
			if ok {
				line, _ := pp.Position(off)
				e.With("line", line).With("file", PlanFile)
				e.Message = fmt.Sprintf("%s:%d: %s", PlanFile, line, e.Message)
			}
			if e.Code == CodeInvalidArgument {
				// An id written twice is the file's fault, as a repeated
				// finding id is findings.md's: a parse error. Needs and
				// cycles keep their own codes.
				e.Code = CodePlanParseError
			}
		}
		return err
	}
	return nil
}

func (pp *planParser) block(n ast.Node) error {
	switch n := n.(type) {
	case *ast.Heading:
		if n.Level != 2 {
			return pp.errAtNode(n, "phases are \"## \" headings; a level-%d heading has no place in task_plan.md", n.Level)
		}
		pp.phase = pp.parsePhaseHeading(pp.HeadingText(n))
		pp.p.Phases = append(pp.p.Phases, pp.phase)
		if pp.phase.ID != "" {
			pp.phaseLines[pp.phase.ID] = pp.Start(n)
		}
	case *ast.Blockquote:
		if pp.phase == nil {
			return pp.header(n)
		}
		notes, err := pp.quoteText(n, "phase notes")
		if err != nil {
			return err
		}
		pp.notes.Add(&pp.phase.Notes, notes)
	case *ast.Paragraph:
		if pp.phase == nil {
			return pp.headerLines(n)
		}
		notes, err := pp.clean(pp.Start(n), "phase notes", pp.JoinedLines(n, "\n"), CleanBlock)
		if err != nil {
			return err
		}
		pp.notes.Add(&pp.phase.Notes, notes)
	case *ast.HTMLBlock:
		raw := strings.TrimSpace(pp.JoinedLines(n, "\n"))
		if !strings.HasPrefix(raw, machineTag) {
			return pp.errAtNode(n, "plangit keeps no HTML in task_plan.md; put notes in a \"> \" quote under a phase")
		}
		return pp.machine(n, raw)
	case *ast.List:
		if pp.phase == nil {
			return pp.errAtNode(n, "steps belong under a phase: add a \"## Phase 1: Name\" heading above them")
		}
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			if err := pp.step(it); err != nil {
				return err
			}
		}
	case *ast.ThematicBreak:
		// A rule carries nothing; it is not kept.
	default:
		return pp.errAtNode(n, "plangit does not understand this %s in task_plan.md (see the README, \"File format\")", KindName(n))
	}
	return nil
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "\n\n" + b
}

func (pp *planParser) parsePhaseHeading(text string) *Phase {
	text = StripIcon(text)
	if rest, ok := strings.CutPrefix(text, "Phase "); ok {
		if id, title, ok := strings.Cut(rest, ":"); ok && IsStepID(id) {
			n, _ := strconv.Atoi(id)
			pp.nextPhase = max(pp.nextPhase, n+1)
			return &Phase{ID: id, Title: strings.TrimSpace(title)}
		}
	}
	ph := &Phase{Title: text}
	pp.newPhases = append(pp.newPhases, ph)
	return ph
}

// header reads the blockquote of header fields under the title.
func (pp *planParser) header(bq *ast.Blockquote) error {
	for c := bq.FirstChild(); c != nil; c = c.NextSibling() {
		p, ok := c.(*ast.Paragraph)
		if !ok {
			return pp.errAtNode(c, "the quote under the title holds \"**Goal:**\" and \"**Status:**\" lines only")
		}
		if err := pp.headerLines(p); err != nil {
			return err
		}
	}
	return nil
}

// headerLines reads "**Label:** value" lines. A line that starts no label
// continues the one before it, as a soft-wrapped line does.
func (pp *planParser) headerLines(para *ast.Paragraph) error {
	label, value, off := "", "", 0
	flush := func() error {
		if label == "" {
			return nil
		}
		return pp.headerField(label, strings.TrimSpace(value), off)
	}
	lines := para.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		line := strings.TrimSpace(string(seg.Value(pp.Src)))
		if l, v, ok := CutLabel(line); ok {
			if err := flush(); err != nil {
				return err
			}
			label, value, off = l, v, seg.Start
			continue
		}
		if label == "" {
			return pp.ErrAt(seg.Start, "expected a \"**Goal:**\" or \"**Status:**\" line here, found %q", Clip(line))
		}
		value += " " + line
	}
	return flush()
}

// CutLabel splits "**Label:** value".
func CutLabel(line string) (label, value string, ok bool) {
	rest, ok := strings.CutPrefix(line, "**")
	if !ok {
		return "", "", false
	}
	label, value, ok = strings.Cut(rest, ":**")
	if !ok || label == "" || strings.ContainsAny(label, "*`") {
		return "", "", false
	}
	return label, strings.TrimSpace(value), true
}

func (pp *planParser) headerField(label, value string, off int) error {
	var err error
	switch {
	case strings.EqualFold(label, labelGoal):
		pp.p.Goal, err = CleanText("goal", splitLines(value))
	case strings.EqualFold(label, labelResult):
		pp.p.Result, err = CleanText("result", splitLines(value))
	case strings.EqualFold(label, labelReason):
		pp.p.Reason, err = CleanText("reason", splitLines(value))
	case strings.EqualFold(label, labelConflict):
		c, cerr := ParseConflict(value)
		if cerr != nil {
			return pp.ErrAt(off, "%s", cerr.(*Error).Message)
		}
		pp.p.Conflicts = append(pp.p.Conflicts, c)
	case strings.EqualFold(label, labelStatus):
		word, rest, _ := strings.Cut(value, " ")
		st, ok := ParsePlanStatus(strings.ToLower(strings.TrimSpace(word)))
		if !ok {
			return pp.ErrAt(off, "unknown plan status %q; one of pending, running, paused, completed, failed", Clip(word))
		}
		pp.p.Status = st
		if _, at, ok := strings.Cut(rest, "updated "); ok {
			stamp, _, _ := strings.Cut(strings.TrimSpace(at), " ")
			t, ok := parseTime(stamp)
			if !ok {
				return pp.ErrAt(off, "the updated time %q is not an RFC 3339 time like 2026-11-20T10:30:00Z", Clip(stamp))
			}
			pp.p.Updated = t
		}
	default:
		return pp.ErrAt(off, "unknown header line %q; the header holds Goal, Status, Result, Reason and Conflict", Clip(label))
	}
	if err != nil {
		return pp.ErrAt(off, "%s", err.Error())
	}
	return nil
}

// machine reads "<!-- plangit id=... created=... -->".
func (pp *planParser) machine(n ast.Node, raw string) error {
	body := strings.TrimSuffix(strings.TrimPrefix(raw, machineTag), "-->")
	for _, kv := range strings.Fields(body) {
		k, v, _ := strings.Cut(kv, "=")
		bad := false
		switch k {
		case "id":
			pp.p.ID = v
		case "created":
			t, ok := parseTime(v)
			pp.p.Created, bad = t, !ok
		case "iterations":
			n, err := strconv.Atoi(v)
			pp.p.Iterations, bad = n, err != nil || n < 0
		case "next-step":
			n, err := strconv.Atoi(v)
			pp.nextStep, bad = max(pp.nextStep, n), err != nil || n < 1
		case "next-phase":
			n, err := strconv.Atoi(v)
			pp.nextPhase, bad = max(pp.nextPhase, n), err != nil || n < 1
		case "next-finding":
			n, err := strconv.Atoi(v)
			pp.p.NextFinding, bad = n, err != nil || n < 1
		case "next-error":
			n, err := strconv.Atoi(v)
			pp.p.NextError, bad = n, err != nil || n < 1
		case "claims":
			n, err := strconv.Atoi(v)
			pp.p.Claims, bad = n, err != nil || n < 0
		case "from":
			pp.p.From, bad = v, !slices.Contains(Origins, v)
		default:
			// Fields from a newer plangit are ignored.
		}
		if bad {
			return pp.errAtNode(n, "bad value in the plangit comment: %q", Clip(kv))
		}
	}
	return nil
}

// step reads one step item.
func (pp *planParser) step(it ast.Node) error {
	first := it.FirstChild()
	if first == nil || !IsTextBlock(first) {
		return pp.errAtNode(it, "a step is a \"- [ ] text\" line")
	}
	checked, boxed := CheckBox(first)
	raw := pp.JoinedLines(first, " ")
	if boxed {
		raw = strings.TrimSpace(raw[3:])
	}
	icon := ""
	for _, ic := range stepIcons {
		if rest, ok := strings.CutPrefix(raw, ic); ok && (rest == "" || rest[0] == ' ') {
			icon, raw = ic, strings.TrimSpace(rest)
			break
		}
	}
	s := &Step{}
	text, machine := cutMachine(raw)
	blocked := false
	for _, tok := range strings.Fields(machine) {
		k, v, _ := strings.Cut(tok, ":")
		var err error
		switch {
		case strings.HasPrefix(tok, "#") && s.ID == "":
			s.ID = tok[1:]
			if !IsStepID(s.ID) {
				return pp.errAtNode(it, "step id %q is not a number; put back the number the step had (plangit show --rev HEAD lists them), or remove it and plangit adds the line as a new step", Clip(tok))
			}
		case k == "needs":
			s.Needs = ParseNeeds(v)
		case k == "progress":
			s.Progress, err = ParseProgress(v)
		case k == "retries":
			s.Retries, err = strconv.Atoi(v)
			if err == nil && s.Retries < 0 {
				err = fmt.Errorf("negative")
			}
		case tok == "blocked":
			blocked = true
		case tok == "auto":
			s.Auto = true
		default:
			return pp.errAtNode(it, "unknown field %q in the step's code span; known: #ID, needs:1,2, progress:2/5, retries:N, blocked, auto", Clip(tok))
		}
		if err != nil {
			return pp.errAtNode(it, "bad field %q in the step's code span", Clip(tok))
		}
	}
	if machine != "" && s.ID == "" {
		return pp.errAtNode(it, "the step's code span has no #ID; write `#N ...` or drop the span")
	}
	t, err := CleanLine("step text", text)
	if err != nil {
		return pp.errAtNode(it, "%s", err.Error())
	}
	if t == "" {
		return pp.errAtNode(it, "the step has no text")
	}
	s.Text = t
	s.Status = statusFrom(checked, icon, blocked)
	s.Auto = s.Auto && s.Status == StepCompleted // a completion unticked by hand is no one's

	for c := first.NextSibling(); c != nil; c = c.NextSibling() {
		list, ok := c.(*ast.List)
		if !ok {
			return pp.errAtNode(c, "under a step plangit keeps only \"- key: value\" detail lines")
		}
		fields, err := pp.detailFields(list)
		if err != nil {
			return err
		}
		for _, f := range fields {
			if err := pp.stepField(s, f); err != nil {
				return err
			}
		}
	}
	if s.ID == "" {
		pp.unnumbered = append(pp.unnumbered, s)
	} else {
		n, _ := strconv.Atoi(s.ID)
		pp.nextStep = max(pp.nextStep, n+1)
		if _, dup := pp.lines[s.ID]; !dup {
			pp.lines[s.ID] = pp.Start(it)
		} else if _, again := pp.repeats[s.ID]; !again {
			pp.repeats[s.ID] = pp.Start(it)
		}
	}
	pp.phase.Steps = append(pp.phase.Steps, s)
	return nil
}

// cutMachine splits a step line into its text and the content of the code
// span that ends it, when that span starts with "#".
func cutMachine(raw string) (text, machine string) {
	if !strings.HasSuffix(raw, "`") || len(raw) < 3 {
		return raw, ""
	}
	open := strings.LastIndexByte(raw[:len(raw)-1], '`')
	if open < 0 || !strings.HasPrefix(raw[open+1:], "#") || (open > 0 && raw[open-1] == '`') {
		return raw, ""
	}
	return strings.TrimSpace(raw[:open]), raw[open+1 : len(raw)-1]
}

func statusFrom(checked bool, icon string, blocked bool) StepStatus {
	if checked {
		return StepCompleted
	}
	switch icon {
	case "◐":
		return StepInProgress
	case "✖":
		if blocked {
			return StepBlocked
		}
		return StepFailed
	case "⊘":
		return StepSkipped
	}
	// ○, no icon, or ● with the box unticked: a completion undone by hand.
	return StepPending
}

func (pp *planParser) stepField(s *Step, f field) error {
	var err error
	switch f.key {
	case "doing":
		s.Active, err = CleanLine("active form", f.value)
	case "why":
		s.Why, err = CleanText("why", splitLines(f.value))
	case "result":
		s.Result, err = CleanText("result", splitLines(f.value))
	case "reason":
		s.Reason, err = CleanText("reason", splitLines(f.value))
	case "claim":
		s.Claim, err = parseClaim(f.value)
		if e, ok := err.(*Error); ok {
			return pp.ErrAt(f.off, "%s", e.Message)
		}
	case "conflict":
		c, cerr := ParseConflict(f.value)
		if cerr != nil {
			return pp.ErrAt(f.off, "%s", cerr.(*Error).Message)
		}
		s.Conflicts = append(s.Conflicts, c)
		return nil
	case "time":
		start, rest, _ := strings.Cut(f.value, "→")
		end, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
		var ok1, ok2 = true, true
		if start = strings.TrimSpace(start); start != "" {
			s.Started, ok1 = parseTime(start)
		}
		if end != "" {
			s.Completed, ok2 = parseTime(end)
		}
		if !ok1 || !ok2 {
			return pp.ErrAt(f.off, "the time line is \"START → END\" in RFC 3339 (2026-11-20T10:30:00Z); found %q", Clip(f.value))
		}
	default:
		return pp.ErrAt(f.off, "unknown step detail %q; known: doing, why, result, reason, time, claim, conflict", Clip(f.key))
	}
	if err != nil {
		return pp.ErrAt(f.off, "%s", err.Error())
	}
	return nil
}

// number gives fresh ids to steps and phases written without one, in file
// order, after every id in the file. A hand edit's are provisional: the
// merge that lays it on the branch moves those the history issued.
func (pp *planParser) number() {
	p := pp.p
	p.NextStep, p.NextPhase = max(pp.nextStep, 1), max(pp.nextPhase, 1)
	for _, s := range pp.unnumbered {
		s.ID = p.IssueStep() // the file's: a change's merge gives it one past the history's
	}
	for _, ph := range pp.newPhases {
		ph.ID = strconv.Itoa(p.NextPhase)
		p.NextPhase++
	}
}

// StripIcon removes a leading step status icon (○ ◐ ● ✖ ⊘) from s.
func StripIcon(s string) string {
	for _, ic := range stepIcons {
		if rest, ok := strings.CutPrefix(s, ic); ok {
			return strings.TrimSpace(rest)
		}
	}
	return s
}

// KindName names a markdown node's kind for messages: "fenced code block".
func KindName(n ast.Node) string {
	name := n.Kind().String()
	var b strings.Builder
	for i, r := range name {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToLower(b.String())
}
