package repo

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
)

// The revision log, .git/plangit/revlog, holds one line per revision of the
// session's history, in the order this machine came to know them: what each
// commit's message and trailers say, so that log, @N and short hashes need
// no walk over the commits. The line's number is the revision's @N here,
// and it never changes: a revision made here is numbered after the last
// one; revisions that arrive together (a fetch, a merge of another
// machine's revisions) are numbered parents before children, each commit's
// first parent's history before its second parent's. So a machine that
// fetched a session whole numbers it as the machine that made it did, and
// revisions merged in from elsewhere take the next numbers here — the same
// revision may have another number on another machine, never another
// hash.
//
// The log is a cache of the commits: when it disagrees with them (a
// process killed between moving the branch and appending, commits made by
// another git), it is completed from them, or rebuilt when the branch no
// longer descends from the log's last revision.
const revlogName = "revlog"

// revEntry is one revision as the revision log records it.
type revEntry struct {
	N       int // 1-based: @N names it on this machine
	Hash    plumbing.Hash
	Parent  plumbing.Hash   // the first parent
	Parents []plumbing.Hash // every parent, first first; more than one for a merge
	Time    time.Time
	Author  Person // who made it: the commit's author
	Meta    Meta
	Change  plan.Change
	Touches []plan.Touch
	Counts  plan.Counts // only Done and Total are kept
}

// Person is a commit's author: a name and an email.
type Person struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
}

func (s *Session) revlogPath() string { return filepath.Join(s.gitDir, privateDir, revlogName) }

func field(v string) string {
	return strings.Join(strings.FieldsFunc(v, func(r rune) bool { return r == '\t' || r == '\n' || r == '\r' }), " ")
}

// touchSep separates touched steps in a revision log line.
const touchSep = "; "

// revlogFields is how many tab-separated fields a line has: n, hash,
// parents (space-separated), time, actor, op, hook, tool, done/total,
// touched steps, summary, author name, author email, host, host session.
// Lines of 11 fields are from before merges were numbered: the same,
// with one parent and no author or host; a merge's such line is rebuilt.
const revlogFields = 15

// line writes the entry as one tab-separated line.
func (e revEntry) line() string {
	parents := make([]string, len(e.Parents))
	for i, p := range e.Parents {
		parents[i] = p.String()
	}
	touches := make([]string, len(e.Touches))
	for i, t := range e.Touches {
		touches[i] = t.String()
	}
	return strings.Join([]string{
		strconv.Itoa(e.N), e.Hash.String(), strings.Join(parents, " "), strconv.FormatInt(e.Time.Unix(), 10),
		field(e.Meta.Actor), field(e.Change.Op), field(e.Meta.Hook), field(e.Meta.Tool),
		strconv.Itoa(e.Counts.Done) + "/" + strconv.Itoa(e.Counts.Total), field(strings.Join(touches, touchSep)), field(e.Change.Summary),
		field(e.Author.Name), field(e.Author.Email), field(e.Meta.Host), field(e.Meta.HostSession),
	}, "\t") + "\n"
}

func parseRevLine(line string) (revEntry, bool) {
	return parseRevLineIn(line, nil)
}

// parseRevLineIn is parseRevLine taking the parents' storage from arena,
// when given: reading a long log allocates it once.
func parseRevLineIn(line string, arena *[]plumbing.Hash) (revEntry, bool) {
	f := strings.Split(line, "\t")
	if len(f) < 11 || len(f) > revlogFields {
		return revEntry{}, false
	}
	for len(f) < revlogFields { // an older line, or empty fields at the end trimmed away
		f = append(f, "")
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < 1 || !plumbing.IsHash(f[1]) {
		return revEntry{}, false
	}
	sec, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return revEntry{}, false
	}
	e := revEntry{N: n, Hash: plumbing.NewHash(f[1]), Time: time.Unix(sec, 0).UTC(),
		Meta:   Meta{Actor: f[4], Hook: f[6], Tool: f[7]},
		Change: plan.Change{Op: f[5], Summary: f[10]}}
	var store []plumbing.Hash
	if arena != nil {
		store = *arena
	}
	start := len(store)
	for p := range strings.FieldsSeq(f[2]) {
		if !plumbing.IsHash(p) {
			return revEntry{}, false
		}
		store = append(store, plumbing.NewHash(p))
	}
	if len(store) > start {
		e.Parents = store[start:len(store):len(store)]
	}
	if arena != nil {
		*arena = store
	}
	if e.Change.Op == "merge" && len(e.Parents) == 1 {
		return revEntry{}, false // an older log's merge, which lacks its second parent: rebuilt
	}
	if len(e.Parents) > 0 {
		e.Parent = e.Parents[0]
	}
	d, t, _ := strings.Cut(f[8], "/")
	e.Counts.Done, _ = strconv.Atoi(d)
	e.Counts.Total, _ = strconv.Atoi(t)
	if f[9] != "" {
		for _, part := range strings.Split(f[9], touchSep) {
			if t, ok := plan.ParseTouch(part); ok {
				e.Touches = append(e.Touches, t)
			}
		}
	}
	e.Author = Person{Name: f[11], Email: f[12]}
	e.Meta.Host, e.Meta.HostSession = f[13], f[14]
	return e, true
}

// appendRevlog records a new revision, numbering it after the log's last
// line. It runs under the exclusive lock, right after the branch moved to
// e.Hash. A merge, or a revision whose parent is not the log's last line,
// is numbered by completing the log from the commits instead.
func (s *Session) appendRevlog(e revEntry) (int, error) {
	last, err := s.lastRevlogEntry()
	if err != nil || len(e.Parents) != 1 || last.Hash != e.Parent || last.Hash.IsZero() {
		entries, err := s.revisions(e.Hash)
		if err != nil {
			return 0, err
		}
		return entries[len(entries)-1].N, nil
	}
	e.N = last.N + 1
	f, err := disk.OpenFile(s.revlogPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return 0, plan.WrapError(plan.CodeIOError, err, "cannot write the revision log")
	}
	_, err = f.WriteString(e.line())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, plan.WrapError(plan.CodeIOError, err, "cannot write the revision log")
	}
	return e.N, nil
}

// lastRevlogEntry reads the log's last line; the zero entry for an empty or
// missing log.
func (s *Session) lastRevlogEntry() (revEntry, error) {
	f, err := os.Open(s.revlogPath())
	if errors.Is(err, fs.ErrNotExist) {
		return revEntry{}, nil
	}
	if err != nil {
		return revEntry{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return revEntry{}, err
	}
	size := fi.Size()
	if size == 0 {
		return revEntry{}, nil
	}
	const tail = 16 << 10
	off := max(0, size-tail)
	buf := make([]byte, size-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return revEntry{}, err
	}
	buf = bytes.TrimRight(buf, "\n")
	line := buf[bytes.LastIndexByte(buf, '\n')+1:]
	if e, ok := parseRevLine(string(line)); ok {
		return e, nil
	}
	return revEntry{}, errors.New("damaged revision log")
}

// revisions returns every revision of head's history, in the log's order
// (oldest first; the last is head). It reads the revision log and, when
// the log is behind head, completes it from the commits — or rebuilds it,
// when head does not descend from the log's last revision — persisting
// the repair when it can take the lock without waiting.
func (s *Session) revisions(head plumbing.Hash) ([]revEntry, error) {
	entries, ok := s.readRevlog()
	if ok && len(entries) > 0 && entries[len(entries)-1].Hash == head {
		return entries, nil
	}
	if !ok {
		entries = nil
	}
	known := make(map[plumbing.Hash]int, len(entries))
	for i, e := range entries {
		known[e.Hash] = i
	}
	var last plumbing.Hash
	if len(entries) > 0 {
		last = entries[len(entries)-1].Hash
	}
	if i, ok := known[head]; ok {
		// The branch went back to an earlier revision (another git moved
		// it): the log is rebuilt for it.
		if i != len(entries)-1 {
			entries, known, last = nil, map[plumbing.Hash]int{}, plumbing.ZeroHash
		}
	}
	missing, met, err := s.collect(head, known, last)
	if err != nil {
		return nil, err
	}
	if !last.IsZero() && !met {
		// head does not descend from the log's last revision: rebuilt.
		entries, known = nil, map[plumbing.Hash]int{}
		if missing, _, err = s.collect(head, known, plumbing.ZeroHash); err != nil {
			return nil, err
		}
	}
	for _, e := range topoOrder(head, missing) {
		e.N = len(entries) + 1
		entries = append(entries, e)
	}
	s.persistRevlog(head, entries)
	return entries, nil
}

// collect reads the commits of head's history that known lacks, over
// every parent, and reports whether it met the revision stop on the way.
func (s *Session) collect(head plumbing.Hash, known map[plumbing.Hash]int, stop plumbing.Hash) (map[plumbing.Hash]revEntry, bool, error) {
	missing := map[plumbing.Hash]revEntry{}
	met := false
	queue := []plumbing.Hash{head}
	for len(queue) > 0 {
		h := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if h == stop {
			met = true
		}
		if _, ok := known[h]; ok {
			continue
		}
		if _, ok := missing[h]; ok || h.IsZero() {
			continue
		}
		e, err := s.entryFromCommit(h)
		if err != nil {
			return nil, false, err
		}
		missing[h] = e
		queue = append(queue, e.Parents...)
	}
	return missing, met, nil
}

// topoOrder orders the entries of head's history that missing holds:
// parents before children, a commit's first parent's history before its
// second parent's.
func topoOrder(head plumbing.Hash, missing map[plumbing.Hash]revEntry) []revEntry {
	if _, ok := missing[head]; !ok {
		return nil
	}
	type frame struct {
		h    plumbing.Hash
		next int
	}
	out := make([]revEntry, 0, len(missing))
	visited := map[plumbing.Hash]bool{head: true}
	stack := []frame{{h: head}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		e := missing[top.h]
		if top.next < len(e.Parents) {
			p := e.Parents[top.next]
			top.next++
			if _, ok := missing[p]; ok && !visited[p] {
				visited[p] = true
				stack = append(stack, frame{h: p})
			}
			continue
		}
		out = append(out, e)
		stack = stack[:len(stack)-1]
	}
	return out
}

// readRevlog parses the log and checks that it holds a whole history, in
// order: every line's parents come before it. ok is false when it is
// missing or broken.
func (s *Session) readRevlog() ([]revEntry, bool) {
	f, err := os.Open(s.revlogPath())
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var out []revEntry
	if fi, err := f.Stat(); err == nil {
		out = make([]revEntry, 0, fi.Size()/200+1) // a line is 200 bytes or more
	}
	arena := make([]plumbing.Hash, 0, cap(out))
	var seen map[plumbing.Hash]bool // every revision so far, once one is not its predecessor's child
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		e, ok := parseRevLineIn(sc.Text(), &arena)
		if !ok || e.N != len(out)+1 {
			return nil, false
		}
		// Every parent comes before. The first revision has no parent,
		// unless repair found the history before it damaged beyond
		// reading, and the log starts there.
		if n := len(out); n > 0 && (len(e.Parents) != 1 || e.Parent != out[n-1].Hash) {
			if seen == nil {
				seen = make(map[plumbing.Hash]bool, len(out))
				for _, x := range out {
					seen[x.Hash] = true
				}
			}
			for _, p := range e.Parents {
				if !seen[p] {
					return nil, false
				}
			}
		}
		if seen != nil {
			seen[e.Hash] = true
		}
		out = append(out, e)
	}
	return out, sc.Err() == nil
}

// rebuildRevlog rewrites the log from the commits reachable from head. It
// runs under the exclusive lock.
func (s *Session) rebuildRevlog(head plumbing.Hash) ([]revEntry, error) {
	missing, _, err := s.collect(head, nil, plumbing.ZeroHash)
	if err != nil {
		return nil, err
	}
	entries := topoOrder(head, missing)
	for i := range entries {
		entries[i].N = i + 1
	}
	return entries, s.writeRevlog(entries)
}

func (s *Session) writeRevlog(entries []revEntry) error {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.line())
	}
	return s.WritePrivate(revlogName, []byte(b.String()))
}

// persistRevlog saves a repaired log: at once when this process holds the
// session lock, otherwise only if the lock is free right now and head has
// not moved (the next change repairs it anyway).
func (s *Session) persistRevlog(head plumbing.Hash, entries []revEntry) {
	if s.locked {
		if cur, err := s.readRef(); err == nil && cur == head {
			s.writeRevlog(entries)
		}
		return
	}
	unlock, ok := s.tryExclusive()
	if !ok {
		return
	}
	defer unlock()
	if cur, err := s.readRef(); err == nil && cur == head {
		s.writeRevlog(entries)
	}
}

// entryFromCommit reads a revision's entry from its commit: the summary
// line and the trailers.
func (s *Session) entryFromCommit(h plumbing.Hash) (revEntry, error) {
	c, err := s.objs.readCommit(h)
	if err != nil {
		return revEntry{}, plan.WrapError(plan.CodeIOError, err, "cannot read revision %s", short(h))
	}
	e := revEntry{Hash: h, Time: c.Committer.When, Parents: c.Parents}
	if len(c.Parents) > 0 {
		e.Parent = c.Parents[0]
	}
	if known(c.Author) {
		e.Author = Person{Name: c.Author.Name, Email: c.Author.Email}
	}
	summary, body, _ := strings.Cut(c.Message, "\n")
	e.Change.Summary = strings.TrimSpace(summary)
	for _, line := range strings.Split(body, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		switch k {
		case TrailerOp:
			e.Change.Op = v
		case TrailerStep:
			if t, ok := plan.ParseTouch(v); ok {
				e.Touches = append(e.Touches, t)
			}
		case TrailerActor:
			e.Meta.Actor = v
		case TrailerHook:
			e.Meta.Hook = v
		case TrailerTool:
			e.Meta.Tool = v
		case TrailerHost:
			e.Meta.Host = v
		case TrailerHostSession:
			e.Meta.HostSession = v
		case TrailerProgress:
			d, t, _ := strings.Cut(v, "/")
			e.Counts.Done, _ = strconv.Atoi(d)
			e.Counts.Total, _ = strconv.Atoi(t)
		}
	}
	if e.Meta.Actor == "" {
		e.Meta.Actor = "git" // made by another git client
	}
	return e, nil
}

// RevisionForms names the revisions plangit understands, for messages.
const RevisionForms = "HEAD, HEAD~N (N revisions back along first parents), HEAD^N (the N-th parent of a merge), @N, a hash (4 to 40 hex digits) or a remote's tip (origin/main), each followed by any ~N and ^N"

// revStep is one step back from a revision: ~N (N first parents back) or
// ^N (the N-th parent; ^0 is the revision itself).
type revStep struct {
	nth bool
	n   int
}

// CheckRevName checks that rev is a revision name plangit understands —
// not that the revision exists: an INVALID_ARGUMENT naming the forms when
// it is not.
func CheckRevName(rev string) error {
	_, _, err := parseRevName(rev)
	return err
}

// parseRevName splits a revision name into its base — HEAD, @, @N, a
// hash or a remote's tip — and the steps back that follow it.
func parseRevName(rev string) (string, []revStep, error) {
	r := strings.TrimSpace(rev)
	bad := func(why string) (string, []revStep, error) {
		return "", nil, plan.Errorf(plan.CodeInvalidArgument, "%q is not a revision%s; name one as %s", clipID(rev), why, RevisionForms).With("rev", clipID(rev))
	}
	cut := strings.IndexAny(r, "~^")
	if cut < 0 {
		cut = len(r)
	}
	base, suffix := r[:cut], r[cut:]
	switch {
	case base == "":
		return bad("")
	case base == "HEAD" || base == "@":
	case base[0] == '@':
		if n, err := strconv.Atoi(base[1:]); err != nil || n < 1 || strings.ContainsAny(base[1:], "+-") {
			return bad(": @N numbers revisions from @1")
		}
	case strings.Contains(base, "/"):
		if strings.ContainsAny(base, "@{}: \t") {
			return bad("")
		}
	default:
		if strings.Trim(strings.ToLower(base), "0123456789abcdef") != "" {
			return bad("")
		}
		if len(base) < 4 || len(base) > 40 {
			if _, err := strconv.Atoi(base); err == nil && len(base) < 4 {
				return bad(fmt.Sprintf(" (a revision's number is written @%s)", base))
			}
			return bad(": a hash has 4 to 40 hex digits")
		}
	}
	var steps []revStep
	for len(suffix) > 0 {
		st := revStep{nth: suffix[0] == '^', n: 1}
		i := 1
		for i < len(suffix) && suffix[i] >= '0' && suffix[i] <= '9' {
			i++
		}
		if i > 1 {
			n, err := strconv.Atoi(suffix[1:i])
			if err != nil || n > 1<<20 {
				return bad("")
			}
			st.n = n
		}
		if i < len(suffix) && suffix[i] != '~' && suffix[i] != '^' {
			return bad("")
		}
		steps = append(steps, st)
		suffix = suffix[i:]
	}
	return base, steps, nil
}

// resolveAt turns a revision name into a commit hash, given the current
// head. The names are RevisionForms'. A malformed name is an
// INVALID_ARGUMENT; a well-formed one that names no revision of the
// session's history (or of a remote's tip of it) is REVISION_NOT_FOUND.
func (s *Session) resolveAt(rev string, head plumbing.Hash) (plumbing.Hash, error) {
	base, steps, err := parseRevName(rev)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	notFound := func(why string) error {
		return plan.Errorf(plan.CodeRevisionNotFound, "no revision %q in session %s%s; plangit log lists them", clipID(rev), s.ID, why).With("rev", clipID(rev))
	}
	var revs []revEntry
	byHash := map[plumbing.Hash]*revEntry{}
	loadRevs := func() error {
		if revs != nil || head.IsZero() {
			return nil
		}
		var err error
		if revs, err = s.revisions(head); err == nil {
			for i := range revs {
				byHash[revs[i].Hash] = &revs[i]
			}
		}
		return err
	}
	var h plumbing.Hash
	switch {
	case base == "HEAD" || base == "@":
		if head.IsZero() {
			return plumbing.ZeroHash, notFound(" (it has no revision yet)")
		}
		h = head
	case base[0] == '@':
		if err := loadRevs(); err != nil {
			return plumbing.ZeroHash, err
		}
		n, _ := strconv.Atoi(base[1:])
		if n > len(revs) {
			return plumbing.ZeroHash, notFound(" (it has " + strconv.Itoa(len(revs)) + " revisions, @1 to @" + strconv.Itoa(len(revs)) + ")")
		}
		h = revs[n-1].Hash
	case strings.Contains(base, "/"):
		var ok bool
		if h, ok, err = s.resolveTracking(base); err != nil {
			return plumbing.ZeroHash, err
		} else if !ok {
			return plumbing.ZeroHash, notFound(" (no remote's tip of that name: plangit fetch keeps one as origin/main)")
		}
	default:
		if err := loadRevs(); err != nil {
			return plumbing.ZeroHash, err
		}
		prefix := strings.ToLower(base)
		for _, e := range revs {
			if strings.HasPrefix(e.Hash.String(), prefix) {
				if !h.IsZero() {
					return plumbing.ZeroHash, plan.Errorf(plan.CodeRevisionNotFound, "revision %q is ambiguous; give more of the hash", clipID(rev)).With("rev", clipID(rev))
				}
				h = e.Hash
			}
		}
		if h.IsZero() {
			if h, err = s.findTrackedCommit(prefix, byHash); err != nil || h.IsZero() {
				return plumbing.ZeroHash, cmp.Or(err, notFound(""))
			}
		}
	}
	parents := func(h plumbing.Hash) ([]plumbing.Hash, error) {
		if e, ok := byHash[h]; ok {
			return e.Parents, nil
		}
		c, err := s.objs.readCommit(h)
		if err != nil {
			return nil, plan.WrapError(plan.CodeIOError, err, "cannot read revision %s", short(h))
		}
		return c.Parents, nil
	}
	if len(steps) > 0 && h == head {
		if err := loadRevs(); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	for _, st := range steps {
		for i := 0; i < st.n || st.nth && i == 0 && st.n > 0; i++ {
			ps, err := parents(h)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if st.nth {
				if st.n > len(ps) {
					has := "no parent: it is the first revision"
					if len(ps) > 0 {
						has = plural(len(ps), "parent")
					}
					return plumbing.ZeroHash, notFound(fmt.Sprintf(" (%s has %s)", short(h), has))
				}
				h = ps[st.n-1]
				break
			}
			if len(ps) == 0 {
				return plumbing.ZeroHash, notFound(" (it goes back further than the first revision)")
			}
			h = ps[0]
		}
	}
	return h, nil
}

// Resolve turns a revision name into a full commit hash.
func (s *Session) Resolve(rev string) (string, error) {
	head, err := s.readRef()
	if err != nil {
		return "", err
	}
	h, err := s.resolveAt(rev, head)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// Revision is one revision of a session, as its commit's message and
// trailers describe it.
type Revision struct {
	N       int       `json:"n"` // 1-based: @N names it on this machine; 0 for a remote's revision not here yet
	Hash    string    `json:"rev"`
	Parent  string    `json:"parent,omitempty"`  // the first parent
	Parents []string  `json:"parents,omitempty"` // every parent, when it is a merge
	Time    time.Time `json:"time"`
	Author  Person    `json:"author,omitzero"` // the person (their git identity); zero when plangit knew none
	Actor   string    `json:"actor"`           // agent, user, hook
	Host    string    `json:"host,omitempty"`  // the agent host the change came through
	// HostSession is the agent host's own id of its session.
	HostSession string       `json:"host_session,omitempty"`
	Hook        string       `json:"hook,omitempty"`
	Tool        string       `json:"tool,omitempty"`
	Op          string       `json:"op"`
	Summary     string       `json:"summary"`
	Touches     []plan.Touch `json:"steps,omitempty"` // the steps it changed
	Done        int          `json:"done"`
	Total       int          `json:"total"`
	// Merge is what a merge revision's message says of its sides, when
	// history.Log read it.
	Merge *MergeInfo `json:"merge,omitempty"`
}

// Touched reports whether the revision changed step id.
func (r Revision) Touched(id string) bool {
	for _, t := range r.Touches {
		if t.Step == id {
			return true
		}
	}
	return false
}

// IsMerge reports whether the revision is a merge: more than one parent.
func (r Revision) IsMerge() bool { return len(r.Parents) > 1 }

// Who names who made the revision: the person and, when it was not the
// person at the keyboard, the actor ("Ann Lee (agent)"); the actor alone
// when the person is not known.
func (r Revision) Who() string {
	switch {
	case r.Author.Name == "":
		return r.Actor
	case r.Actor == "user" || r.Actor == "":
		return r.Author.Name
	}
	return r.Author.Name + " (" + r.Actor + ")"
}

// Revisions returns every revision of the session, oldest first.
func (s *Session) Revisions() ([]Revision, error) {
	head, err := s.readRef()
	if err != nil {
		return nil, err
	}
	return s.revisionsTo(head)
}

// revisionsTo returns the revisions leading to head along first parents,
// oldest first.
func (s *Session) revisionsTo(head plumbing.Hash) ([]Revision, error) {
	if head.IsZero() {
		return nil, nil
	}
	entries, err := s.revisions(head)
	if err != nil {
		return nil, err
	}
	out := make([]Revision, len(entries))
	for i, e := range entries {
		out[i] = e.revision()
	}
	return out, nil
}

func (e revEntry) revision() Revision {
	r := Revision{N: e.N, Hash: e.Hash.String(), Time: e.Time, Author: e.Author, Actor: e.Meta.Actor, Host: e.Meta.Host, HostSession: e.Meta.HostSession,
		Hook: e.Meta.Hook, Tool: e.Meta.Tool, Op: e.Change.Op, Summary: e.Change.Summary, Touches: e.Touches, Done: e.Counts.Done, Total: e.Counts.Total}
	if !e.Parent.IsZero() {
		r.Parent = e.Parent.String()
	}
	if len(e.Parents) > 1 {
		r.Parents = make([]string, len(e.Parents))
		for i, p := range e.Parents {
			r.Parents[i] = p.String()
		}
	}
	return r
}

// FilesAt returns the files of a revision and its full hash.
func (s *Session) FilesAt(rev string) (map[string][]byte, string, error) {
	h, err := s.Resolve(rev)
	if err != nil {
		return nil, "", err
	}
	files, err := s.objs.readFilesAt(plumbing.NewHash(h))
	if err != nil {
		return nil, "", plan.WrapError(plan.CodeIOError, err, "cannot read revision %s", h[:7])
	}
	return files, h, nil
}

// FilesOf reads the files of a revision known to be on the branch — a Hash
// or Parent from Revisions — without the lookup FilesAt makes to resolve
// a name, which reads the revision log.
func (s *Session) FilesOf(hash string) (map[string][]byte, error) {
	if !plumbing.IsHash(hash) {
		return nil, plan.Errorf(plan.CodeRevisionNotFound, "%q is not a full revision hash", clipID(hash))
	}
	files, err := s.objs.readFilesAt(plumbing.NewHash(hash))
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read revision %s", hash[:7])
	}
	return files, nil
}

// StateOf reads the state of a revision known to be on the branch.
func (s *Session) StateOf(hash string) (*plan.State, error) {
	files, err := s.FilesOf(hash)
	if err != nil {
		return nil, err
	}
	return plan.ParseState(files)
}

// StateAt reads the state of a revision.
func (s *Session) StateAt(rev string) (*plan.State, string, error) {
	files, h, err := s.FilesAt(rev)
	if err != nil {
		return nil, "", err
	}
	st, err := plan.ParseState(files)
	if err != nil {
		return nil, "", err
	}
	return st, h, nil
}

// Last returns the session's newest revision, read from the tail of the
// revision log when it agrees with the branch, else from the history.
func (s *Session) Last() (Revision, error) {
	head, err := s.readRef()
	if err != nil {
		return Revision{}, err
	}
	if head.IsZero() {
		return Revision{}, s.noBranch()
	}
	if e, err := s.lastRevlogEntry(); err == nil && e.Hash == head {
		return e.revision(), nil
	}
	revs, err := s.Revisions()
	if err != nil {
		return Revision{}, err
	}
	return revs[len(revs)-1], nil
}

// Size is the session's size on disk: its files and its repository.
func (s *Session) Size() int64 { return dirSize(s.Dir) }
