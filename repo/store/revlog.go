package store

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

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

// Entry is one revision as the revision log records it: what its commit's
// message and trailers say, as they say it.
type Entry struct {
	N       int // 1-based: @N names it on this machine
	Hash    plumbing.Hash
	Parent  plumbing.Hash   // the first parent
	Parents []plumbing.Hash // every parent, first first; more than one for a merge
	Time    time.Time
	Author  Person // who made it: the commit's author, when plangit knew them
	// Actor, Hook, Tool, Host, HostSession, Agent and Code are their
	// trailers'.
	Actor, Hook, Tool, Host, HostSession, Agent, Code string
	Op                                                string   // the Plangit-Op trailer
	Summary                                           string   // the message's first line
	Steps                                             []string // the Plangit-Step trailers, first first
	// Done and Total are the Plangit-Progress trailer's "done/total".
	Done, Total int
}

// Person is a commit's author: a name and an email.
type Person struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
}

// Trailer keys: what a commit's message says of its change, one line
// each, after the summary.
const (
	TrailerOp       = "Plangit-Op"
	TrailerStep     = "Plangit-Step"
	TrailerActor    = "Plangit-Actor"
	TrailerHook     = "Plangit-Hook"
	TrailerTool     = "Plangit-Tool"
	TrailerProgress = "Plangit-Progress"
	// TrailerHost and TrailerHostSession name the agent host a change
	// came through and that host's id of its session.
	TrailerHost        = "Plangit-Host"
	TrailerHostSession = "Plangit-Host-Session"
	// TrailerAgent names the agent that made a change, as the claims know
	// it (plan.ValidAgent).
	TrailerAgent = "Plangit-Agent"
	// TrailerCode names the code snapshot taken with a change: a commit
	// of the session's code store (package repo/code).
	TrailerCode = "Plangit-Code"
)

// RevlogPath is where the revision log of the repository whose .git
// directory is gitDir is kept.
func RevlogPath(gitDir string) string {
	return filepath.Join(gitDir, disk.PrivateDir, revlogName)
}

func field(v string) string {
	return strings.Join(strings.FieldsFunc(v, func(r rune) bool { return r == '\t' || r == '\n' || r == '\r' }), " ")
}

// touchSep separates touched steps in a revision log line.
const touchSep = "; "

// revlogFields is how many tab-separated fields a line has: n, hash,
// parents (space-separated), time, actor, op, hook, tool, done/total,
// touched steps, summary, author name, author email, host, host session,
// agent, code snapshot. Lines of 16 fields are from before code snapshots:
// the same, with none; of 15 fields from before agents were named: the
// same, with no agent. Lines of 11 fields are from before merges were
// numbered: the same, with one parent and no author or host; a merge's
// such line is rebuilt.
const revlogFields = 17

// Line writes the entry as one tab-separated line of the log.
func (e Entry) Line() string {
	parents := make([]string, len(e.Parents))
	for i, p := range e.Parents {
		parents[i] = p.String()
	}
	return strings.Join([]string{
		strconv.Itoa(e.N), e.Hash.String(), strings.Join(parents, " "), strconv.FormatInt(e.Time.Unix(), 10),
		field(e.Actor), field(e.Op), field(e.Hook), field(e.Tool),
		strconv.Itoa(e.Done) + "/" + strconv.Itoa(e.Total), field(strings.Join(e.Steps, touchSep)), field(e.Summary),
		field(e.Author.Name), field(e.Author.Email), field(e.Host), field(e.HostSession), field(e.Agent), field(e.Code),
	}, "\t") + "\n"
}

// ParseLine reads a line of the log; ok is false when it is not one.
func ParseLine(line string) (Entry, bool) {
	return parseLineIn(line, nil)
}

// parseLineIn is ParseLine taking the parents' storage from arena, when
// given: reading a long log allocates it once.
func parseLineIn(line string, arena *[]plumbing.Hash) (Entry, bool) {
	f := strings.Split(line, "\t")
	if len(f) < 11 || len(f) > revlogFields {
		return Entry{}, false
	}
	for len(f) < revlogFields { // an older line, or empty fields at the end trimmed away
		f = append(f, "")
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < 1 || !plumbing.IsHash(f[1]) {
		return Entry{}, false
	}
	sec, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return Entry{}, false
	}
	e := Entry{N: n, Hash: plumbing.NewHash(f[1]), Time: time.Unix(sec, 0).UTC(),
		Actor: f[4], Hook: f[6], Tool: f[7], Op: f[5], Summary: f[10]}
	var store []plumbing.Hash
	if arena != nil {
		store = *arena
	}
	start := len(store)
	for p := range strings.FieldsSeq(f[2]) {
		if !plumbing.IsHash(p) {
			return Entry{}, false
		}
		store = append(store, plumbing.NewHash(p))
	}
	if len(store) > start {
		e.Parents = store[start:len(store):len(store)]
	}
	if arena != nil {
		*arena = store
	}
	if e.Op == "merge" && len(e.Parents) == 1 {
		return Entry{}, false // an older log's merge, which lacks its second parent: rebuilt
	}
	if len(e.Parents) > 0 {
		e.Parent = e.Parents[0]
	}
	d, t, _ := strings.Cut(f[8], "/")
	e.Done, _ = strconv.Atoi(d)
	e.Total, _ = strconv.Atoi(t)
	if f[9] != "" {
		e.Steps = strings.Split(f[9], touchSep)
	}
	e.Author = Person{Name: f[11], Email: f[12]}
	e.Host, e.HostSession, e.Agent, e.Code = f[13], f[14], f[15], f[16]
	return e, true
}

// AppendEntry adds e, numbered already, at the log's end.
func (o *Disk) AppendEntry(e Entry) error {
	f, err := disk.OpenFile(RevlogPath(o.gitDir), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(e.Line())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// LastEntry reads the log's last line; the zero entry for an empty or
// missing log.
func (o *Disk) LastEntry() (Entry, error) {
	f, err := os.Open(RevlogPath(o.gitDir))
	if errors.Is(err, fs.ErrNotExist) {
		return Entry{}, nil
	}
	if err != nil {
		return Entry{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Entry{}, err
	}
	size := fi.Size()
	if size == 0 {
		return Entry{}, nil
	}
	const tail = 16 << 10
	off := max(0, size-tail)
	buf := make([]byte, size-off)
	if _, err := f.ReadAt(buf, off); err != nil {
		return Entry{}, err
	}
	buf = bytes.TrimRight(buf, "\n")
	line := buf[bytes.LastIndexByte(buf, '\n')+1:]
	if e, ok := ParseLine(string(line)); ok {
		return e, nil
	}
	return Entry{}, errors.New("damaged revision log")
}

// ReadLog parses the log and checks that it holds a whole history, in
// order: every line's parents come before it. ok is false when it is
// missing or broken.
func (o *Disk) ReadLog() ([]Entry, bool) {
	f, err := os.Open(RevlogPath(o.gitDir))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var out []Entry
	if fi, err := f.Stat(); err == nil {
		out = make([]Entry, 0, fi.Size()/200+1) // a line is 200 bytes or more
	}
	arena := make([]plumbing.Hash, 0, cap(out))
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var check logCheck
	for sc.Scan() {
		e, ok := parseLineIn(sc.Text(), &arena)
		if !ok || !check.next(out, e) {
			return nil, false
		}
		out = append(out, e)
	}
	return out, sc.Err() == nil
}

// logCheck checks, entry by entry, that a log holds a whole history in
// order.
type logCheck struct {
	seen map[plumbing.Hash]bool // every revision so far, once one is not its predecessor's child
}

// next reports whether e may follow out.
func (c *logCheck) next(out []Entry, e Entry) bool {
	if e.N != len(out)+1 {
		return false
	}
	// Every parent comes before. The first revision has no parent,
	// unless repair found the history before it damaged beyond
	// reading, and the log starts there.
	if n := len(out); n > 0 && (len(e.Parents) != 1 || e.Parent != out[n-1].Hash) {
		if c.seen == nil {
			c.seen = make(map[plumbing.Hash]bool, len(out))
			for _, x := range out {
				c.seen[x.Hash] = true
			}
		}
		for _, p := range e.Parents {
			if !c.seen[p] {
				return false
			}
		}
	}
	if c.seen != nil {
		c.seen[e.Hash] = true
	}
	return true
}

// WriteLog replaces the log with entries, through a temporary file
// renamed into place. It runs under the exclusive lock.
func (o *Disk) WriteLog(entries []Entry) error {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.Line())
	}
	path := RevlogPath(o.gitDir)
	for try := 0; ; try++ {
		tmp, err := disk.TempFile(o.tmp, tmpPrefix+"*", []byte(b.String()), 0o644, false)
		if err == nil {
			if err = disk.Replace(tmp, path); err != nil {
				os.Remove(tmp)
			}
		}
		if err == nil || try == 20 || !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		os.Mkdir(o.tmp, 0o755) // removed by a person: made again
	}
}

// Append records a new revision in st's log, numbering it after the log's
// last line, and returns its number. It runs under the exclusive lock,
// right after the branch moved to e.Hash. A merge, or a revision whose
// parent is not the log's last line, is numbered by completing the log
// from the commits instead (Revisions), which is written back while the
// branch is still at e.Hash.
func Append(st Store, e Entry) (int, error) {
	last, err := st.LastEntry()
	if err != nil || len(e.Parents) != 1 || last.Hash != e.Parent || last.Hash.IsZero() {
		entries, repaired, err := Revisions(st, e.Hash)
		if err != nil {
			return 0, err
		}
		if cur, err := st.ReadRef(); repaired && err == nil && cur == e.Hash {
			st.WriteLog(entries)
		}
		return entries[len(entries)-1].N, nil
	}
	e.N = last.N + 1
	if err := st.AppendEntry(e); err != nil {
		return 0, &LogError{Err: err}
	}
	return e.N, nil
}

// LogError is a failure to write the revision log.
type LogError struct{ Err error }

func (e *LogError) Error() string { return "cannot write the revision log: " + e.Err.Error() }

// Unwrap returns the cause.
func (e *LogError) Unwrap() error { return e.Err }

// Revisions returns every revision of head's history, in the log's order
// (oldest first; the last is head). It reads the revision log and, when
// the log is behind head, completes it from the commits — or rebuilds it,
// when head does not descend from the log's last revision; repaired says
// the caller should write the log back (WriteLog), when it may.
func Revisions(st Store, head plumbing.Hash) (entries []Entry, repaired bool, err error) {
	entries, ok := st.ReadLog()
	if ok && len(entries) > 0 && entries[len(entries)-1].Hash == head {
		return entries, false, nil
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
	missing, met, err := Collect(st, head, known, last)
	if err != nil {
		return nil, false, err
	}
	if !last.IsZero() && !met {
		// head does not descend from the log's last revision: rebuilt.
		entries, known = nil, map[plumbing.Hash]int{}
		if missing, _, err = Collect(st, head, known, plumbing.ZeroHash); err != nil {
			return nil, false, err
		}
	}
	for _, e := range TopoOrder(head, missing) {
		e.N = len(entries) + 1
		entries = append(entries, e)
	}
	return entries, true, nil
}

// Rebuild rewrites st's log from the commits reachable from head. It runs
// under the exclusive lock.
func Rebuild(st Store, head plumbing.Hash) ([]Entry, error) {
	missing, _, err := Collect(st, head, nil, plumbing.ZeroHash)
	if err != nil {
		return nil, err
	}
	entries := TopoOrder(head, missing)
	for i := range entries {
		entries[i].N = i + 1
	}
	return entries, st.WriteLog(entries)
}

// Collect reads the commits of head's history that known lacks, over
// every parent, and reports whether it met the revision stop on the way.
func Collect(st Store, head plumbing.Hash, known map[plumbing.Hash]int, stop plumbing.Hash) (map[plumbing.Hash]Entry, bool, error) {
	missing := map[plumbing.Hash]Entry{}
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
		e, err := EntryFromCommit(st, h)
		if err != nil {
			return nil, false, err
		}
		missing[h] = e
		queue = append(queue, e.Parents...)
	}
	return missing, met, nil
}

// TopoOrder orders the entries of head's history that missing holds:
// parents before children, a commit's first parent's history before its
// second parent's.
func TopoOrder(head plumbing.Hash, missing map[plumbing.Hash]Entry) []Entry {
	if _, ok := missing[head]; !ok {
		return nil
	}
	type frame struct {
		h    plumbing.Hash
		next int
	}
	out := make([]Entry, 0, len(missing))
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

// NoIdentity is the author of a commit when plangit finds no git identity
// and no login name, and of every commit plangit made before it recorded
// authors: such a commit's author reads as unknown.
var NoIdentity = Signature{Name: "plangit", Email: "plangit@localhost"}

// Known reports whether a commit's author names someone: not plangit's
// own identity of no one.
func Known(sig Signature) bool {
	return sig.Name != NoIdentity.Name || sig.Email != NoIdentity.Email
}

// RevisionError is a failure to read a revision's commit.
type RevisionError struct {
	Hash plumbing.Hash
	Err  error
}

func (e *RevisionError) Error() string {
	return "cannot read revision " + e.Hash.String()[:7] + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *RevisionError) Unwrap() error { return e.Err }

// EntryFromCommit reads a revision's entry from its commit: the summary
// line and the trailers. A commit without a Plangit-Actor trailer was made
// by another git client: its actor is "git".
func EntryFromCommit(st Store, h plumbing.Hash) (Entry, error) {
	c, err := st.ReadCommit(h)
	if err != nil {
		return Entry{}, &RevisionError{Hash: h, Err: err}
	}
	e := Entry{Hash: h, Time: c.Committer.When, Parents: c.Parents}
	if len(c.Parents) > 0 {
		e.Parent = c.Parents[0]
	}
	if Known(c.Author) {
		e.Author = Person{Name: c.Author.Name, Email: c.Author.Email}
	}
	summary, body, _ := strings.Cut(c.Message, "\n")
	e.Summary = strings.TrimSpace(summary)
	for _, line := range strings.Split(body, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		switch k {
		case TrailerOp:
			e.Op = v
		case TrailerStep:
			e.Steps = append(e.Steps, v)
		case TrailerActor:
			e.Actor = v
		case TrailerHook:
			e.Hook = v
		case TrailerTool:
			e.Tool = v
		case TrailerHost:
			e.Host = v
		case TrailerHostSession:
			e.HostSession = v
		case TrailerAgent:
			e.Agent = v
		case TrailerCode:
			if plumbing.IsHash(v) {
				e.Code = v
			}
		case TrailerProgress:
			d, t, _ := strings.Cut(v, "/")
			e.Done, _ = strconv.Atoi(d)
			e.Total, _ = strconv.Atoi(t)
		}
	}
	if e.Actor == "" {
		e.Actor = "git" // made by another git client
	}
	return e, nil
}
