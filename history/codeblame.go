package history

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/code"
)

// CodeChange is a revision whose code snapshot changed lines of a file:
// the revision, and the steps whose work it recorded.
type CodeChange struct {
	N    int       `json:"n"`
	Rev  string    `json:"rev"`
	Time time.Time `json:"time"`
	Who  string    `json:"who"`
	// Steps are the steps in progress just before the revision, whose
	// work its snapshot recorded; with none, the steps whose status the
	// revision changed (a step completed without being started).
	Steps   []string `json:"steps,omitempty"`
	Summary string   `json:"summary"`
}

// CodeLine is one line of a file as the newest snapshot holds it, and
// the change that last made it what it is: Change indexes
// CodeBlame.Changes; -1 when the line is as the session's first snapshot
// had it.
type CodeLine struct {
	Line   int    `json:"line"`
	Text   string `json:"text"`
	Change int    `json:"change"`
}

// CodeBlame is, for each line of a file in the session's newest code
// snapshot, the revision and step that last changed it.
type CodeBlame struct {
	Path string `json:"path"`
	// At is the revision whose snapshot is the newest, whose version of
	// the file the lines are.
	At CodeEndpoint `json:"at"`
	// First is the session's first snapshot's revision: lines unchanged
	// since have Change -1.
	First   CodeEndpoint `json:"first"`
	Changes []CodeChange `json:"changes"`
	Lines   []CodeLine   `json:"lines"`
}

// maxBlameBlob is the largest version of a file blame reads.
const maxBlameBlob = maxDiffBlob

// BlameCode walks the session's revisions that name a code snapshot,
// oldest first along first parents, line-diffs each version of path (a
// slash path from the project's top) against the one before, and
// attributes each line of the newest version to the revision that last
// changed it: the revision whose snapshot first held the line as it is.
// A revision's work is that of the steps in progress just before it (the
// snapshot was taken as their work stood), else that of the steps whose
// status it changed. Lines the first snapshot held and nothing changed
// since say so (Change -1); a file added later is the adding revision's.
func BlameCode(s *repo.Session, path string) (*CodeBlame, error) {
	l, err := newLineage(s)
	if err != nil {
		return nil, err
	}
	cs := CodeStore(s)
	b := &CodeBlame{Path: path, Changes: []CodeChange{}, Lines: []CodeLine{}}
	var (
		prevSnap string
		prevBlob plumbing.Hash
		held     bool     // the previous snapshot held the file
		text     string   // its content there
		owners   []int    // per line of text: its change, or -1
		lastSeen = -1     // the last revision whose snapshot held the file
		goneAt   = -1     // the revision whose snapshot no longer held it
		binary   bool     // the newest version is binary or too large
		running  []string // steps in progress after the revision before
		first    = true
	)
	for i, r := range l.revs {
		before := slices.Clone(running)
		var changed []string
		for _, t := range r.Touches {
			if t.From == t.To {
				continue
			}
			id := l.current(i, t.Step)
			if id == "" {
				id = t.Step
			}
			changed = append(changed, id)
			running = slices.DeleteFunc(running, func(x string) bool { return x == id })
			if t.To == plan.StepInProgress {
				running = append(running, id)
			}
		}
		if r.Code == "" || r.Code == prevSnap {
			continue
		}
		prevSnap = r.Code
		files, err := cs.Files(plumbing.NewHash(r.Code))
		if err != nil {
			return nil, codeMissing(err)
		}
		if first {
			b.First = CodeEndpoint{N: r.N, Rev: r.Hash, Snapshot: r.Code}
		}
		b.At = CodeEndpoint{N: r.N, Rev: r.Hash, Snapshot: r.Code}
		f, ok := files[path]
		if !ok {
			if held {
				goneAt = i
			}
			held, text, owners, prevBlob, first = false, "", nil, plumbing.ZeroHash, false
			continue
		}
		lastSeen, goneAt = i, -1
		if held && f.Hash == prevBlob {
			first = false
			continue
		}
		data, err := cs.Blob(f.Hash, maxBlameBlob)
		if errors.Is(err, code.ErrTooLarge) {
			data, err = nil, nil
			binary = true
		} else {
			binary = bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0
		}
		if err != nil {
			return nil, codeMissing(err)
		}
		owner := -1
		if !first {
			steps := before
			if len(steps) == 0 {
				steps = changed
			}
			slices.Sort(steps)
			b.Changes = append(b.Changes, CodeChange{N: r.N, Rev: r.Hash, Time: r.Time, Who: r.Who(), Steps: slices.Compact(steps), Summary: r.Summary})
			owner = len(b.Changes) - 1
		}
		if binary {
			text, owners = "", nil
		} else {
			owners = carryOwners(text, string(data), owners, owner)
			text = string(data)
		}
		held, prevBlob, first = true, f.Hash, false
	}
	if b.At.Snapshot == "" {
		return nil, noSnapshots(s, codeNoneError())
	}
	switch {
	case lastSeen < 0:
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s is in none of the session's code snapshots", path).
			With("file", path).Hinted("give its path from the project's top; plangit diff --code STEP lists the files a step changed")
	case goneAt >= 0:
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s is not in the newest code snapshot (@%d): @%d took it away", path, b.At.N, l.revs[goneAt].N).
			With("file", path).Hinted("plangit diff --code @%d @%d shows it going", l.revs[lastSeen].N, l.revs[goneAt].N)
	case binary:
		return nil, plan.Errorf(plan.CodeInvalidArgument, "%s is binary or over 1 MB in the newest code snapshot: blame --code reads text", path).With("file", path)
	}
	for n, line := range blameLines(text) {
		owner := -1
		if n < len(owners) {
			owner = owners[n]
		}
		b.Lines = append(b.Lines, CodeLine{Line: n + 1, Text: line, Change: owner})
	}
	// Only the changes a line still names.
	used := make([]int, len(b.Changes))
	for i := range used {
		used[i] = -1
	}
	var kept []CodeChange
	for i, line := range b.Lines {
		if line.Change < 0 {
			continue
		}
		if used[line.Change] < 0 {
			used[line.Change] = len(kept)
			kept = append(kept, b.Changes[line.Change])
		}
		b.Lines[i].Change = used[line.Change]
	}
	b.Changes = kept
	if b.Changes == nil {
		b.Changes = []CodeChange{}
	}
	return b, nil
}

func codeNoneError() error {
	e := plan.Errorf(plan.CodeInvalidStatus, "the session has no code snapshots")
	e.Err = CodeNone
	return e
}

// carryOwners is the owner of each line of b, a new version of a whose
// lines belong to owners: a line the diff keeps keeps its owner, and an
// added line is owner's.
func carryOwners(a, b string, owners []int, owner int) []int {
	var out []int
	at := 0
	for _, d := range lineDiffs(a, b) {
		n := len(blameLines(d.Text))
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			for k := range n {
				o := owner
				if at+k < len(owners) {
					o = owners[at+k]
				}
				out = append(out, o)
			}
			at += n
		case diffmatchpatch.DiffDelete:
			at += n
		case diffmatchpatch.DiffInsert:
			for range n {
				out = append(out, owner)
			}
		}
	}
	return out
}

// blameLines splits text into its lines, without their newlines.
func blameLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}
