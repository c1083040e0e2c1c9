package repo

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
)

// The revision log, .git/plangit/revlog, holds one line per revision of the
// branch, oldest first: what each commit's message and trailers say, so that
// log, @N and short hashes need no walk over the commits. It is a cache: the
// commits are the truth, and when the log disagrees with them (a process
// killed between moving the branch and appending, or commits made by another
// git), it is rebuilt from them.
const revlogName = "revlog"

// revEntry is one revision as the revision log records it.
type revEntry struct {
	N       int // 1-based position on the branch
	Hash    plumbing.Hash
	Parent  plumbing.Hash
	Time    time.Time
	Meta    Meta
	Change  plan.Change
	Touches []plan.Touch
	Counts  plan.Counts // only Done and Total are kept
}

func (s *Session) revlogPath() string { return filepath.Join(s.gitDir, privateDir, revlogName) }

func field(v string) string {
	return strings.Join(strings.FieldsFunc(v, func(r rune) bool { return r == '\t' || r == '\n' || r == '\r' }), " ")
}

// touchSep separates touched steps in a revision log line.
const touchSep = "; "

// line writes the entry as one tab-separated line: n, hash, parent, time,
// actor, op, hook, tool, done/total, touched steps, summary.
func (e revEntry) line() string {
	parent := ""
	if !e.Parent.IsZero() {
		parent = e.Parent.String()
	}
	touches := make([]string, len(e.Touches))
	for i, t := range e.Touches {
		touches[i] = t.String()
	}
	return strings.Join([]string{
		strconv.Itoa(e.N), e.Hash.String(), parent, strconv.FormatInt(e.Time.Unix(), 10),
		field(e.Meta.Actor), field(e.Change.Op), field(e.Meta.Hook), field(e.Meta.Tool),
		strconv.Itoa(e.Counts.Done) + "/" + strconv.Itoa(e.Counts.Total), field(strings.Join(touches, touchSep)), field(e.Change.Summary),
	}, "\t") + "\n"
}

func parseRevLine(line string) (revEntry, bool) {
	f := strings.Split(line, "\t")
	if len(f) != 11 || !plumbing.IsHash(f[1]) || (f[2] != "" && !plumbing.IsHash(f[2])) {
		return revEntry{}, false
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < 1 {
		return revEntry{}, false
	}
	sec, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return revEntry{}, false
	}
	e := revEntry{N: n, Hash: plumbing.NewHash(f[1]), Time: time.Unix(sec, 0).UTC(),
		Meta:   Meta{Actor: f[4], Hook: f[6], Tool: f[7]},
		Change: plan.Change{Op: f[5], Summary: f[10]}}
	if f[2] != "" {
		e.Parent = plumbing.NewHash(f[2])
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
	return e, true
}

// appendRevlog records a new revision, numbering it after the log's last
// line. It runs under the exclusive lock, right after the branch moved to
// e.Hash. When the log's last line is not e's parent, the log is rebuilt
// from the commits instead.
func (s *Session) appendRevlog(e revEntry) (int, error) {
	last, err := s.lastRevlogEntry()
	if err != nil || last.Hash != e.Parent {
		entries, err := s.rebuildRevlog(e.Hash)
		return len(entries), err
	}
	e.N = last.N + 1
	f, err := os.OpenFile(s.revlogPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE|disk.NoFollow, 0o644)
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

// revisions returns every revision from the first to head, oldest first.
// It reads the revision log and, when the log is behind head or
// inconsistent, completes or rebuilds it from the commits (persisting the
// repair when it can take the lock without waiting).
func (s *Session) revisions(head plumbing.Hash) ([]revEntry, error) {
	entries, ok := s.readRevlog()
	if ok && len(entries) > 0 && entries[len(entries)-1].Hash == head {
		return entries, nil
	}
	// Walk back from head to the log's last known revision.
	known := map[plumbing.Hash]int{}
	for i, e := range entries {
		known[e.Hash] = i
	}
	var missing []revEntry
	for h := head; !h.IsZero(); {
		if i, ok := known[h]; ok {
			entries = entries[:i+1]
			break
		}
		e, err := s.entryFromCommit(h)
		if err != nil {
			return nil, err
		}
		missing = append(missing, e)
		h = e.Parent
		if h.IsZero() {
			entries = nil
		}
	}
	slices.Reverse(missing)
	entries = append(entries, missing...)
	for i := range entries {
		entries[i].N = i + 1
	}
	s.persistRevlog(head, entries)
	return entries, nil
}

// readRevlog parses the log and checks that it is one chain; ok is false
// when it is missing or broken.
func (s *Session) readRevlog() ([]revEntry, bool) {
	f, err := os.Open(s.revlogPath())
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var out []revEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		e, ok := parseRevLine(sc.Text())
		if !ok {
			return nil, false
		}
		// The first revision has no parent, unless repair found the history
		// before it damaged beyond reading, and the log starts there.
		if e.N != len(out)+1 || len(out) > 0 && e.Parent != out[len(out)-1].Hash {
			return nil, false
		}
		out = append(out, e)
	}
	return out, sc.Err() == nil
}

// rebuildRevlog rewrites the log from the commits reachable from head. It
// runs under the exclusive lock.
func (s *Session) rebuildRevlog(head plumbing.Hash) ([]revEntry, error) {
	var entries []revEntry
	for h := head; !h.IsZero(); {
		e, err := s.entryFromCommit(h)
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
		h = e.Parent
	}
	slices.Reverse(entries)
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
		s.writeRevlog(entries)
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
	e := revEntry{Hash: h, Time: c.Committer.When}
	if len(c.Parents) > 0 {
		e.Parent = c.Parents[0]
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

// resolveAt turns a revision name into a commit hash, given the current
// head: HEAD, HEAD~N, HEAD^, @N (the N-th revision, 1-based), or a full or
// unambiguous short hash.
func (s *Session) resolveAt(rev string, head plumbing.Hash) (plumbing.Hash, error) {
	notFound := func(why string) error {
		return plan.Errorf(plan.CodeRevisionNotFound, "no revision %q in session %s%s; plangit log lists them", clipID(rev), s.ID, why).With("rev", clipID(rev))
	}
	r := strings.TrimSpace(rev)
	if strings.Contains(r, "/") { // origin/main: a remote's tip of the session
		if h, ok, err := s.resolveTracking(r); ok || err != nil {
			return h, err
		}
		return plumbing.ZeroHash, notFound("")
	}
	back := 0
	switch {
	case r == "HEAD" || r == "@":
		return head, nil
	case strings.HasPrefix(r, "HEAD~"):
		n, err := strconv.Atoi(r[len("HEAD~"):])
		if err != nil || n < 0 {
			return plumbing.ZeroHash, notFound("")
		}
		back = n
	case strings.HasPrefix(r, "HEAD^") && strings.Trim(r[len("HEAD"):], "^") == "":
		back = len(r) - len("HEAD")
	}
	revs, err := s.revisions(head)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	switch {
	case strings.HasPrefix(r, "HEAD"):
		if back >= len(revs) {
			return plumbing.ZeroHash, notFound(" (it has " + strconv.Itoa(len(revs)) + " revisions)")
		}
		return revs[len(revs)-1-back].Hash, nil
	case strings.HasPrefix(r, "@"):
		n, err := strconv.Atoi(r[1:])
		if err != nil || n < 1 || n > len(revs) {
			return plumbing.ZeroHash, notFound(" (it has " + strconv.Itoa(len(revs)) + " revisions, @1 to @" + strconv.Itoa(len(revs)) + ")")
		}
		return revs[n-1].Hash, nil
	}
	r = strings.ToLower(r)
	if len(r) < 4 || len(r) > 40 || strings.Trim(r, "0123456789abcdef") != "" {
		return plumbing.ZeroHash, notFound("")
	}
	var found plumbing.Hash
	for _, e := range revs {
		if strings.HasPrefix(e.Hash.String(), r) {
			if !found.IsZero() {
				return plumbing.ZeroHash, plan.Errorf(plan.CodeRevisionNotFound, "revision %q is ambiguous; give more of the hash", rev).With("rev", rev)
			}
			found = e.Hash
		}
	}
	if found.IsZero() {
		if found, err = s.findTrackedCommit(r, revs); err != nil || found.IsZero() {
			return plumbing.ZeroHash, cmp.Or(err, notFound(""))
		}
	}
	return found, nil
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
	N       int          `json:"n"` // 1-based: @N names it
	Hash    string       `json:"rev"`
	Parent  string       `json:"parent,omitempty"`
	Time    time.Time    `json:"time"`
	Actor   string       `json:"actor"`
	Hook    string       `json:"hook,omitempty"`
	Tool    string       `json:"tool,omitempty"`
	Op      string       `json:"op"`
	Summary string       `json:"summary"`
	Touches []plan.Touch `json:"steps,omitempty"` // the steps it changed
	Done    int          `json:"done"`
	Total   int          `json:"total"`
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
	r := Revision{N: e.N, Hash: e.Hash.String(), Time: e.Time, Actor: e.Meta.Actor, Hook: e.Meta.Hook, Tool: e.Meta.Tool,
		Op: e.Change.Op, Summary: e.Change.Summary, Touches: e.Touches, Done: e.Counts.Done, Total: e.Counts.Total}
	if !e.Parent.IsZero() {
		r.Parent = e.Parent.String()
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
