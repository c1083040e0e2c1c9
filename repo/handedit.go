package repo

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
)

// A person's edit of the working files is a change to the revision they
// started from, which is not always the last one: an editor that opened
// task_plan.md before the agent's last changes saves its old copy back.
// Taken as it stands, that copy would undo what the agent did since (its
// steps gone, its completions reopened). So the edit is read as the
// change from its base — the recent revision whose files the edited ones
// differ least from, the latest of equals — to the edited files, and laid
// on the current plan by the three-way merge sharing uses (plan.Merge):
// the revisions since the base stay, the person's changes are added, and
// where both changed one field the person's value wins and the revision
// says so.

// editLookback is how many versions of the edited files back an edit's
// base is looked for — revisions that left them as they were (a finding
// added, for an edit of task_plan.md) do not count — and editScan how many
// revisions at most are read for them: an editor's copy older than that
// is taken as an edit of the last.
const (
	editLookback = 64
	editScan     = 1024
)

// adoption is what adopting a hand edit of the working files makes.
type adoption struct {
	state *plan.State   // the plan as adopted
	head  *plan.Plan    // the branch's plan it was laid on (nil: none readable)
	from  plumbing.Hash // the revision the edit was made on (the oldest, where its files had several)
	note  string        // what the revision says of the merge, if anything
	// composed is set where the edited files were each made on another
	// revision (composedBase): the note names them, and what came since
	// the oldest is not all that the copies lacked.
	composed bool
}

// adoptEdit reads the working files, parsed as st, as a hand edit of the
// branch at head (whose blobs are base): a step the edit added under an id
// issued before gets a fresh one, and an edit of an older copy is laid on
// head's plan by mergeEdit. st is changed in place.
func (s *Session) adoptEdit(head plumbing.Hash, base map[string]plumbing.Hash, files map[string][]byte, st *plan.State, issued int, now time.Time) (*adoption, error) {
	st.Plan.Updated = now
	before, err := s.planAt(head)
	if err != nil {
		return nil, err
	}
	from, since := head, 0
	var (
		headSt   *plan.State // read here only for an edit of an older copy
		composed *plan.State // the base of an edit whose files each have their own
	)
	madeOn := ""
	if before != nil {
		if from, since, err = s.editBase(head, base, files); err != nil {
			return nil, err
		}
		if c, f, n, on, ok := s.composedBase(head, base, files); ok {
			composed, from, since, madeOn = c, f, n, on
		}
		if from != head {
			if headSt, err = s.stateAt(head); err != nil {
				// The last revision's findings or errors do not read:
				// the person's files are a mending of it, as below.
				from, since, headSt, composed = head, 0, nil, nil
			}
		}
	} else {
		// The last revision's plan does not read (written with git by
		// hand): the person's files are a mending of it, taken as they
		// stand, and told apart from the newest plan that reads.
		before = s.readablePlan(head)
	}
	if madeOn == "" {
		madeOn = "made on " + short(from)
	}
	fromPlan := before
	switch {
	case composed != nil:
		fromPlan = composed.Plan.Clone()
	case from != head:
		if fromPlan, err = s.planAt(from); err != nil {
			return nil, err
		}
		theirs, err := s.editOf(from, base, files)
		if err != nil {
			return nil, err
		}
		// Where the person's files and from's copies of the others do
		// not read together (a finding of theirs names a step added
		// since), the files are taken as they stand.
		if theirs != nil {
			if mixed, err := plan.ParseState(theirs); err == nil {
				st = mixed
				st.Plan.Updated = now
			}
		}
	}
	st.Plan.ReserveSteps(issued + 1)
	var reused []string
	// A revision whose plan does not read (written with git by hand) has
	// no steps to tell the edit's new ones by: the ids stand as the
	// person's files give them.
	for _, d := range plan.DiffSteps(fromPlan, st.Plan) {
		if fromPlan == nil {
			break
		}
		if n, err := strconv.Atoi(d.ID); err == nil && d.Kind == plan.StepAdded && n <= issued {
			reused = append(reused, d.ID)
		}
	}
	st.Plan.Reissue(reused)
	// The two revisions' states, read once for the ids and the merge.
	fromSt, stErr := composed, error(nil)
	if composed == nil {
		fromSt, stErr = s.stateAt(from)
	}
	if from == head {
		headSt = fromSt
	}
	// So do findings and errors.
	if n, err := s.issuedNotes(head); err == nil && stErr == nil {
		reissueNotes(st, n, fromSt, headSt)
	}
	a := &adoption{state: st, head: before, from: from, composed: composed != nil}
	if from != head {
		// An edit of an older copy: the revisions since stay.
		if stErr != nil {
			return nil, stErr
		}
		merged, note, err := s.mergeEdit(head, madeOn, since, fromSt, headSt, st, issued, now)
		if err != nil {
			return nil, err
		}
		merged.Plan.ReserveSteps(issued + 1)
		a.state, a.note = merged, note
	}
	if before != nil {
		// An edit of findings.md or errors.md alone leaves task_plan.md
		// as it was, its time too, as a finding added by command does —
		// and its next step id, which the reservation above raised where
		// a rollback had taken steps back: the history, not the file,
		// keeps their ids from being given again.
		p := a.state.Plan
		updated, next := p.Updated, p.NextStep
		p.Updated, p.NextStep = before.Updated, before.NextStep
		if plumbing.ComputeHash(plumbing.BlobObject, a.state.Files()[plan.PlanFile]) != base[plan.PlanFile] {
			p.Updated, p.NextStep = updated, next
		}
	}
	return a, nil
}

// editOf is the person's side of an edit of the working files (files)
// made on the revision from: the files they changed, and from's copy of
// each they left as the last revision (headFiles) wrote it. Taken as the
// last revision wrote it, such a file would make what the revisions since
// changed in it read as the person's change too, and the merge would make
// it twice: an old copy of findings.md saved back after a step was added
// would add that step again under a new id. nil when the person changed
// every file.
func (s *Session) editOf(from plumbing.Hash, headFiles map[string]plumbing.Hash, files map[string][]byte) (map[string][]byte, error) {
	var theirs, fromFiles map[string][]byte
	edited := editedFiles(headFiles, files)
	for name := range files {
		if slices.Contains(edited, name) {
			continue
		}
		if theirs == nil {
			var err error
			if fromFiles, err = s.objs.readFilesAt(from); err != nil {
				return nil, s.damaged(from, err)
			}
			theirs = maps.Clone(files)
		}
		if old, ok := fromFiles[name]; ok {
			theirs[name] = old
		} else {
			delete(theirs, name)
		}
	}
	return theirs, nil
}

// readablePlan is the plan of the newest revision up to head whose plan
// reads, or nil: what a revision after one that does not read is told
// apart from (its steps are not all new).
func (s *Session) readablePlan(head plumbing.Hash) *plan.Plan {
	entries, err := s.revisions(head)
	if err != nil {
		return nil
	}
	for i := len(entries) - 1; i >= 0 && i >= len(entries)-editScan; i-- {
		if p, err := s.planAt(entries[i].Hash); err == nil && p != nil {
			return p
		}
	}
	return nil
}

// reissueNotes gives the findings and errors an edit added (those of st
// that neither the revision it was made on nor the last has) under ids
// the history issued (n) fresh ones above them, as Reissue does for
// steps: a record added by hand after undo took one back does not take
// its id.
func reissueNotes(st *plan.State, n issuedIDs, revs ...*plan.State) {
	var findings [][]*plan.Finding
	var errs [][]*plan.ErrorRecord
	for _, r := range revs {
		findings, errs = append(findings, r.Findings), append(errs, r.Errors)
	}
	reissue(st.Findings, func(f *plan.Finding) *string { return &f.ID }, n.findings, findings...)
	reissue(st.Errors, func(e *plan.ErrorRecord) *string { return &e.ID }, n.errors, errs...)
}

// reissue gives each record of recs whose id (at id) is at most issued and
// in none of others a fresh id above issued and every id recs has.
func reissue[R any](recs []R, id func(R) *string, issued int, others ...[]R) {
	had := map[string]bool{}
	for _, o := range others {
		for _, r := range o {
			had[*id(r)] = true
		}
	}
	next := issued
	for _, r := range recs {
		if v, err := strconv.Atoi(*id(r)); err == nil {
			next = max(next, v)
		}
	}
	next++
	for _, r := range recs {
		if v, err := strconv.Atoi(*id(r)); err == nil && !had[*id(r)] && v <= issued {
			*id(r), next = strconv.Itoa(next), next+1
		}
	}
}

// unchanged reports whether the adopted plan is the branch's, base, but
// for the time it was updated: the person saved a copy with nothing of
// their own in it (an editor's old buffer, a layout of their own).
func (a *adoption) unchanged(base map[string]plumbing.Hash) bool {
	if a.head == nil {
		return false
	}
	p := a.state.Plan
	updated := p.Updated
	p.Updated = a.head.Updated
	defer func() { p.Updated = updated }()
	return sameFiles(a.state.Files(), base)
}

// editBase finds the revision a hand edit of the working files started
// from: of the last editLookback revisions, the one whose copies of the
// edited files differ least, by lines, from the working ones; head when
// it is as close as any. Where task_plan.md was edited and its stamp
// (planStamp) is one of theirs, only the revisions whose copy has that
// stamp count. It returns the revision and how many revisions came after
// it. only, when given, names the edited files to look at.
func (s *Session) editBase(head plumbing.Hash, headFiles map[string]plumbing.Hash, files map[string][]byte, only ...string) (plumbing.Hash, int, error) {
	edited := editedFiles(headFiles, files)
	if len(only) > 0 {
		edited = slices.DeleteFunc(edited, func(name string) bool { return !slices.Contains(only, name) })
	}
	entries, err := s.revisions(head)
	if err != nil {
		return head, 0, err
	}
	want := map[string]map[string]int{} // each edited file's lines, counted
	for _, name := range edited {
		want[name] = countLines(layoutFree(files[name]))
	}
	dist := map[plumbing.Hash]int{} // blob → its distance from the working file of that name
	distance := func(name string, h plumbing.Hash, ok bool) (int, error) {
		if !ok {
			return lineCount(files[name]), nil
		}
		if d, seen := dist[h]; seen {
			return d, nil
		}
		data, err := s.objs.readAs(plumbing.BlobObject, h)
		if err != nil {
			return 0, err
		}
		d := lineDistance(want[name], layoutFree(data))
		dist[h] = d
		return d, nil
	}
	// task_plan.md says which revision wrote it (planStamp): a copy whose
	// stamp a revision's copy has was made on one of those, whatever the
	// lines an edit removed say (a person deleting many steps of the
	// current copy is not an editor's old copy saved back).
	wantStamp := ""
	if want[plan.PlanFile] != nil {
		wantStamp = planStamp(files[plan.PlanFile])
	}
	stamps := map[plumbing.Hash]string{} // task_plan.md blob → its stamp
	stampOf := func(h plumbing.Hash) string {
		if st, seen := stamps[h]; seen {
			return st
		}
		data, err := s.objs.readAs(plumbing.BlobObject, h)
		if err != nil {
			return ""
		}
		stamps[h] = planStamp(data)
		return stamps[h]
	}
	// findings.md and errors.md name their records' ids in the headings:
	// a copy holding a record was made on a revision that had it, so one
	// that lacks it is no base, however close its lines (a finding
	// deleted by hand is not an older copy saved back).
	workRecords := map[string]map[string]string{} // edited record file → its records' blocks by id
	for _, name := range []string{plan.FindingsFile, plan.ErrorsFile} {
		if want[name] != nil {
			workRecords[name] = recordBlocks(files[name])
		}
	}
	blocks := map[plumbing.Hash]map[string]string{} // blob → its records' blocks by id
	blocksOf := func(tree map[string]plumbing.Hash, name string) (map[string]string, bool) {
		h, ok := tree[name]
		if !ok {
			return nil, true // no such file: no records
		}
		if b, seen := blocks[h]; seen {
			return b, true
		}
		data, err := s.objs.readAs(plumbing.BlobObject, h)
		if err != nil {
			return nil, false
		}
		blocks[h] = recordBlocks(data)
		return blocks[h], true
	}
	holds := func(tree map[string]plumbing.Hash) bool {
		for name, work := range workRecords {
			at, read := blocksOf(tree, name)
			if !read {
				return false
			}
			for id := range work {
				if _, had := at[id]; !had {
					return false
				}
			}
		}
		return true
	}
	// Where only findings.md or errors.md was edited, an older revision
	// is a base only on evidence in the records themselves (staleEvidence):
	// records the copy has as that revision had them, not as the last
	// one, or records added since that the copy lacks. A record deleted
	// by hand is no evidence, whatever lines its block had.
	recordsOnly := len(workRecords) == len(edited)
	for _, work := range workRecords {
		// A copy that names no record (one another tool wrote) shows
		// nothing either way: its lines decide.
		recordsOnly = recordsOnly && len(work) > 0
	}
	evidenced := func(tree map[string]plumbing.Hash) bool {
		for name, work := range workRecords {
			at, _ := blocksOf(tree, name)
			now, _ := blocksOf(headFiles, name)
			if staleEvidence(work, at, now) {
				return true
			}
		}
		return false
	}
	best, bestAt, bestDist := head, 0, -1
	stamped, stampedAt, stampedDist := head, 0, -1 // the best of those with the copy's stamp
	holding, holdingAt, holdingDist := head, 0, -1 // the best of those holding the copy's records and stamp
	versions := map[string]bool{}                  // the edited files' blobs, as one key
	for i := len(entries) - 1; i >= 0 && i >= len(entries)-editScan; i-- {
		rev := entries[i].Hash
		tree, err := s.objs.readTreeFiles(rev)
		if err != nil {
			break // an older revision that cannot be read is no candidate
		}
		var version strings.Builder
		for _, name := range edited {
			version.WriteString(tree[name].String())
		}
		if !versions[version.String()] {
			if len(versions) == editLookback {
				break
			}
			versions[version.String()] = true
		}
		if recordsOnly && rev != head && !evidenced(tree) {
			continue
		}
		d := 0
		for _, name := range edited {
			h, ok := tree[name]
			n, err := distance(name, h, ok)
			if err != nil {
				// A blob that cannot be read: no base is guessed, and the
				// edit is read against the last revision, as it stands.
				return head, 0, nil
			}
			d += n
		}
		if bestDist < 0 || d < bestDist {
			best, bestAt, bestDist = rev, len(entries)-1-i, d
		}
		h, ok := tree[plan.PlanFile]
		stampOK := wantStamp == "" || ok && stampOf(h) == wantStamp
		if wantStamp != "" && stampOK && (stampedDist < 0 || d < stampedDist) {
			stamped, stampedAt, stampedDist = rev, len(entries)-1-i, d
		}
		if len(workRecords) > 0 && stampOK && (holdingDist < 0 || d < holdingDist) && holds(tree) {
			holding, holdingAt, holdingDist = rev, len(entries)-1-i, d
		}
		if d == 0 {
			break
		}
	}
	switch {
	case holdingDist >= 0:
		return holding, holdingAt, nil
	case stampedDist >= 0:
		return stamped, stampedAt, nil
	}
	return best, bestAt, nil
}

// recordIDs is the ids the record headings of a findings.md or errors.md
// name: "### Title `#3`", "## Bash ×2 `#4 resolved`".
func recordIDs(b []byte) []string {
	var ids []string
	for line := range bytes.Lines(b) {
		line = bytes.TrimRight(line, " \t\r\n")
		if !bytes.HasPrefix(line, []byte("#")) || !bytes.HasSuffix(line, []byte("`")) {
			continue
		}
		open := bytes.LastIndex(line[:len(line)-1], []byte("`#"))
		if open < 0 {
			continue
		}
		id, _, _ := bytes.Cut(line[open+2:len(line)-1], []byte(" "))
		if len(id) > 0 && isDigits(id) {
			ids = append(ids, string(id))
		}
	}
	return ids
}

// recordBlocks is each record of a findings.md or errors.md, by the id
// its heading names: the heading and the lines under it up to the next
// heading, with the layout set aside (layoutFree).
func recordBlocks(b []byte) map[string]string {
	out := map[string]string{}
	id := ""
	var block strings.Builder
	flush := func() {
		if id != "" {
			out[id] = string(layoutFree([]byte(block.String())))
		}
		id = ""
		block.Reset()
	}
	for line := range bytes.Lines(b) {
		if bytes.HasPrefix(line, []byte("#")) {
			flush()
			if ids := recordIDs(line); len(ids) == 1 {
				id = ids[0]
			}
		}
		if id != "" {
			block.Write(line)
		}
	}
	flush()
	return out
}

// staleEvidence reports whether a copy's records (work) show it was made
// on an older revision (at) rather than the last (now): a record the copy
// has that now lacks and at has (removed since); a record changed since
// of which the copy has a line as at had it and now does not (an error
// counted up since, whose copy the person also changed, still has its
// old count); or a record now has that at did not and the copy lacks
// (added since).
func staleEvidence(work, at, now map[string]string) bool {
	for id, w := range work {
		a, inAt := at[id]
		n, inNow := now[id]
		switch {
		case !inAt:
		case !inNow:
			return true
		case a != n:
			older, newer := countLines([]byte(a)), countLines([]byte(n))
			for line := range countLines([]byte(w)) {
				if older[line] > newer[line] {
					return true
				}
			}
		}
	}
	for id := range now {
		_, inAt := at[id]
		_, inWork := work[id]
		if !inAt && !inWork {
			return true
		}
	}
	return false
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// editedFiles names the working files (files) that differ from the
// branch's (headFiles), in a stable order.
func editedFiles(headFiles map[string]plumbing.Hash, files map[string][]byte) []string {
	var edited []string
	for _, name := range plan.SessionFiles {
		b, ok := files[name]
		if h, had := headFiles[name]; ok && (!had || plumbing.ComputeHash(plumbing.BlobObject, b) != h) {
			edited = append(edited, name)
		}
	}
	return edited
}

// composedBase is the state a hand edit of several files was made on when
// each edited file's closest revision (its own editBase) is another — an
// editor's old task_plan.md saved beside a current findings.md: each
// edited file as its own base had it, the others as the branch has them.
// ok is false when the bases are one, or their files do not read
// together; from is then the oldest base, since how many revisions
// followed it, and madeOn names each file's base ("task_plan.md made on
// 1a2b3c4, findings.md on 5d6e7f8").
func (s *Session) composedBase(head plumbing.Hash, headFiles map[string]plumbing.Hash, files map[string][]byte) (st *plan.State, from plumbing.Hash, since int, madeOn string, ok bool) {
	edited := editedFiles(headFiles, files)
	if len(edited) < 2 {
		return nil, head, 0, "", false
	}
	bases := map[string]plumbing.Hash{}
	one := true
	since = -1
	for _, name := range edited {
		b, n, err := s.editBase(head, headFiles, files, name)
		if err != nil {
			return nil, head, 0, "", false
		}
		bases[name] = b
		one = one && b == bases[edited[0]]
		if n > since {
			from, since = b, n
		}
	}
	if one {
		return nil, head, 0, "", false
	}
	composed, err := s.objs.readFilesAt(head)
	if err != nil {
		return nil, head, 0, "", false
	}
	var on []string
	if i := slices.Index(edited, plan.PlanFile); i > 0 { // the plan's base first
		edited = append([]string{plan.PlanFile}, slices.Delete(edited, i, i+1)...)
	}
	for _, name := range edited {
		at, err := s.objs.readFilesAt(bases[name])
		if err != nil {
			return nil, head, 0, "", false
		}
		if b, had := at[name]; had {
			composed[name] = b
		} else {
			delete(composed, name)
		}
		if len(on) == 0 {
			on = append(on, name+" made on "+short(bases[name]))
		} else {
			on = append(on, name+" on "+short(bases[name]))
		}
	}
	if st, err = plan.ParseState(composed); err != nil {
		return nil, head, 0, "", false
	}
	return st, from, since, strings.Join(on, ", "), true
}

// planStamp is what a task_plan.md says of the revision that wrote it:
// its status line ("> **Status:** running · 2/5 steps done · updated
// 2026-11-20T10:00:00Z") and its machine line ("<!-- plangit … next-step=6
// … -->"), which a person editing the steps leaves as they are; "" when
// it has neither.
func planStamp(b []byte) string {
	var status, machine []byte
	for line := range bytes.Lines(b) {
		line = bytes.TrimSpace(line)
		switch {
		case status == nil && bytes.HasPrefix(line, []byte("> **Status:**")):
			status = line
		case bytes.HasPrefix(line, []byte("<!-- plangit")):
			machine = line
		}
	}
	if status == nil && machine == nil {
		return ""
	}
	return string(status) + "\n" + string(machine)
}

// layoutFree is a text with what an editor or a formatter changes without
// changing what it says set aside, line by line: line ends (CRLF), blanks
// at the ends of lines, and the marker of a list item ("* " and "+ " read
// as "- "). An edit that only reformats the file is then as close to its
// base as it was, and the base search does not take an older revision
// for it (whose steps the edit would seem to add again).
func layoutFree(b []byte) []byte {
	out := make([]byte, 0, len(b)+1)
	for line := range bytes.Lines(b) {
		line = bytes.TrimRight(line, " \t\r\n")
		text := bytes.TrimLeft(line, " \t")
		indent := line[:len(line)-len(text)]
		if len(text) >= 2 && (text[0] == '*' || text[0] == '+') && text[1] == ' ' {
			out = append(append(append(out, indent...), '-'), text[1:]...)
		} else {
			out = append(out, line...)
		}
		out = append(out, '\n')
	}
	return out
}

// countLines counts each line of a text.
func countLines(b []byte) map[string]int {
	count := map[string]int{}
	for line := range bytes.Lines(b) {
		count[string(line)]++
	}
	return count
}

// lineDistance counts the lines one text has that the other lacks, each
// way, as multisets, the first text given by its counted lines: a cheap
// measure of how far apart two versions are.
func lineDistance(want map[string]int, b []byte) int {
	seen := make(map[string]int, len(want))
	d := 0
	for line := range bytes.Lines(b) {
		n := seen[string(line)] + 1
		seen[string(line)] = n
		if n > want[string(line)] {
			d++ // a line b has more often than the other
		}
	}
	for line, n := range want {
		d += max(n-seen[line], 0)
	}
	return d
}

func lineCount(b []byte) int {
	n := 0
	for range bytes.Lines(b) {
		n++
	}
	return n
}

// editRev names the person's side of the merge an edit of a stale copy
// makes; no abbreviated commit hash reads like it.
const editRev = "edit"

// mergeEdit lays a hand edit made on an older state, baseSt (the
// revision or revisions madeOn names — "made on 1a2b3c4" — since
// revisions ago), onto head's
// state, headSt: what the revisions since changed stays, what the person
// changed is added, and a field both changed takes the person's value
// (the merge may change both states). edited is the state the working
// files parse to, its new steps already given ids never issued. It
// returns the merged state and what the revision says of it.
func (s *Session) mergeEdit(head plumbing.Hash, madeOn string, since int, baseSt, headSt, edited *plan.State, issued int, now time.Time) (*plan.State, string, error) {
	errorsWas, errorsEdited := errorCopies(baseSt), errorCopies(edited)
	merged, rep, err := plan.Merge(baseSt, plan.MergeSide{Rev: short(head), State: headSt}, plan.MergeSide{Rev: editRev, State: edited},
		plan.MergeOptions{NextStep: issued + 1, Keep: plan.KeepX}) // the revisions' records keep their ids; the edit's move
	if err != nil {
		return nil, "", err
	}
	var settled []string
	for _, c := range rep.Conflicts {
		if _, err := merged.Resolve(c.Target(), c.Field, plan.Choice{Rev: editRev}, now); err != nil {
			return nil, "", err
		}
		what := c.Target() + " " + c.Field
		if c.Field == "removed" {
			// One side removed it, the other changed it: say which.
			what = c.Target() + " kept (removed since)"
			for _, side := range c.Sides {
				if side.Rev == editRev && side.Removed {
					what = c.Target() + " removed (changed since)"
				}
			}
		}
		settled = append(settled, what)
	}
	settled = append(settled, personsErrors(merged, errorsWas, errorsEdited)...)
	theirs, sinceWon := keptRecords(baseSt, headSt, edited, merged)
	settled = append(settled, theirs...)
	note := fmt.Sprintf("%s, the %s since kept", madeOn, count(since, "revision"))
	if len(settled) > 0 {
		note = fmt.Sprintf("%s, the %s since kept but where the person's copy won: %s", madeOn, count(since, "revision"), strings.Join(settled, ", "))
	}
	if len(sinceWon) > 0 {
		note += "; where the revisions since won: " + strings.Join(sinceWon, ", ")
	}
	merged.Plan.Updated = now
	return merged, note, nil
}

// errorCopies is a copy of each error of st, by id.
func errorCopies(st *plan.State) map[string]plan.ErrorRecord {
	out := make(map[string]plan.ErrorRecord, len(st.Errors))
	for _, e := range st.Errors {
		out[e.ID] = *e
	}
	return out
}

// personsErrors gives the fields of merged's errors that the person
// changed from the base (was) in their copy (edited) the person's value,
// as a step's field both sides changed takes it: the merge sharing uses
// takes the later sighting's, which for an error logged again since is
// the agent's. It names the fields so settled.
func personsErrors(merged *plan.State, was, edited map[string]plan.ErrorRecord) []string {
	var settled []string
	for _, e := range merged.Errors {
		o, inBase := was[e.ID]
		p, inEdit := edited[e.ID]
		if !inBase || !inEdit {
			continue
		}
		for _, f := range []struct {
			name           string
			field          *string
			before, theirs string
		}{
			{"message", &e.Message, o.Message, p.Message},
			{"step", &e.Step, o.Step, p.Step},
			{"params", &e.Params, o.Params, p.Params},
			{"key", &e.Key, o.Key, p.Key},
			{"resolution", &e.Resolution, o.Resolution, p.Resolution},
		} {
			if f.theirs != f.before && *f.field != f.theirs {
				*f.field = f.theirs
				settled = append(settled, "error #"+e.ID+" "+f.name)
			}
		}
		if p.Resolved != o.Resolved && e.Resolved != p.Resolved {
			e.Resolved, e.ResolvedAt = p.Resolved, p.ResolvedAt
			settled = append(settled, "error #"+e.ID+" resolved")
		}
		if !e.Resolved {
			e.ResolvedAt, e.Resolution = time.Time{}, ""
		}
	}
	return settled
}

// keptRecords names the findings and errors of base that one side
// removed and the other changed, which the merge keeps: those the
// revisions since (head) removed and the person's copy (edited) changed,
// and those the person removed and the revisions since changed.
func keptRecords(base, head, edited, merged *plan.State) (theirs, since []string) {
	findings := func(st *plan.State) []string {
		var ids []string
		for _, f := range st.Findings {
			ids = append(ids, f.ID)
		}
		return ids
	}
	errs := func(st *plan.State) []string {
		var ids []string
		for _, e := range st.Errors {
			ids = append(ids, e.ID)
		}
		return ids
	}
	for _, kind := range []struct {
		name string
		ids  func(*plan.State) []string
	}{{"finding ", findings}, {"error #", errs}} {
		set := func(st *plan.State) map[string]bool {
			m := map[string]bool{}
			for _, id := range kind.ids(st) {
				m[id] = true
			}
			return m
		}
		inHead, inEdit, kept := set(head), set(edited), set(merged)
		for _, id := range kind.ids(base) { // in the file's order
			switch {
			case !kept[id]:
			case !inHead[id] && inEdit[id]:
				theirs = append(theirs, kind.name+id+" kept (removed since)")
			case inHead[id] && !inEdit[id]:
				since = append(since, kind.name+id+" kept (changed since)")
			}
		}
	}
	return theirs, since
}
