package history

import (
	"fmt"
	"strings"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
)

// diffTimeout bounds go-diff's work on one file. In line mode plangit's
// files diff in microseconds; the bound only matters for a pathological hand
// edit, where a coarser but correct diff beats a hook that hangs.
const diffTimeout = 2 * time.Second

// contextLines is how many unchanged lines surround each hunk.
const contextLines = 3

// FileDiff is the text difference of one file.
type FileDiff struct {
	Name    string `json:"file"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Unified string `json:"unified,omitempty"` // a unified diff, as git prints it
}

// TextDiff compares two revisions' files line by line. Files that did not
// change are left out.
func TextDiff(a, b map[string][]byte) []FileDiff {
	var out []FileDiff
	for _, name := range plan.SessionFiles {
		x, inA := a[name]
		y, inB := b[name]
		if !inA && !inB || string(x) == string(y) {
			continue
		}
		out = append(out, diffFile(name, string(x), string(y), inA, inB))
	}
	if out == nil {
		out = []FileDiff{}
	}
	return out
}

// op is one line of an edit script.
type op struct {
	kind byte // ' ', '-', '+'
	line string
}

// lineDiffs is the line-mode diff of a and b.
func lineDiffs(a, b string) []diffmatchpatch.Diff {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	ca, cb, lines := dmp.DiffLinesToChars(a, b)
	return dmp.DiffCharsToLines(dmp.DiffMain(ca, cb, false), lines)
}

// lineDelta counts the lines b adds to a and removes from it.
func lineDelta(a, b string) (added, deleted int) {
	for _, d := range lineDiffs(a, b) {
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			deleted += len(splitLines(d.Text))
		case diffmatchpatch.DiffInsert:
			added += len(splitLines(d.Text))
		}
	}
	return added, deleted
}

func diffFile(name, a, b string, inA, inB bool) FileDiff {
	diffs := lineDiffs(a, b)
	var script []op
	fd := FileDiff{Name: name}
	for _, d := range diffs {
		kind := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			kind = '-'
		case diffmatchpatch.DiffInsert:
			kind = '+'
		}
		for _, l := range splitLines(d.Text) {
			script = append(script, op{kind, l})
			switch kind {
			case '-':
				fd.Deleted++
			case '+':
				fd.Added++
			}
		}
	}
	var u strings.Builder
	from, to := "a/"+name, "b/"+name
	if !inA {
		from = "/dev/null"
	}
	if !inB {
		to = "/dev/null"
	}
	fmt.Fprintf(&u, "--- %s\n+++ %s\n", from, to)
	writeHunks(&u, script)
	fd.Unified = u.String()
	return fd
}

// splitLines splits text into lines, keeping a missing final newline
// visible as git does.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if strings.HasSuffix(l, "\n") {
			lines[i] = l[:len(l)-1]
		} else {
			lines[i] = l + "\n\\ No newline at end of file"
		}
	}
	return lines
}

// writeHunks groups an edit script into unified-diff hunks with
// contextLines of context.
func writeHunks(w *strings.Builder, script []op) {
	changed := make([]int, 0)
	for i, o := range script {
		if o.kind != ' ' {
			changed = append(changed, i)
		}
	}
	for len(changed) > 0 {
		start := max(0, changed[0]-contextLines)
		end := changed[0]
		n := 0
		for n < len(changed) && changed[n] <= end+2*contextLines {
			end = changed[n]
			n++
		}
		changed = changed[n:]
		end = min(len(script), end+contextLines+1)
		// Line numbers of the hunk in the old and new file.
		oldStart, newStart := 1, 1
		for _, o := range script[:start] {
			if o.kind != '+' {
				oldStart++
			}
			if o.kind != '-' {
				newStart++
			}
		}
		oldLen, newLen := 0, 0
		for _, o := range script[start:end] {
			if o.kind != '+' {
				oldLen++
			}
			if o.kind != '-' {
				newLen++
			}
		}
		fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(oldStart, oldLen), hunkRange(newStart, newLen))
		for _, o := range script[start:end] {
			w.WriteByte(o.kind)
			w.WriteString(o.line)
			w.WriteByte('\n')
		}
	}
}

func hunkRange(start, n int) string {
	if n == 0 {
		start-- // an empty range names the line before it
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// TextBetween is the text diff of two revisions of a session.
func TextBetween(s *repo.Session, revA, revB string) ([]FileDiff, Endpoint, Endpoint, error) {
	a, ha, err := s.FilesAt(revA)
	if err != nil {
		return nil, Endpoint{}, Endpoint{}, err
	}
	b, hb, err := s.FilesAt(revB)
	if err != nil {
		return nil, Endpoint{}, Endpoint{}, err
	}
	from, to := Endpoint{Rev: ha}, Endpoint{Rev: hb}
	numberEndpoints(s, &from, &to)
	return TextDiff(a, b), from, to, nil
}
