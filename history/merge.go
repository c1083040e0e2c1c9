package history

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// A line merge of three versions of a text file, as diff3 and git's merge
// make one: base is what both others came from; ours and theirs each
// changed some of its lines. The lines are cut after each newline, so a
// last line without one is a line of its own kind and is kept as it is.
//
//  1. Each side's changes are hunks: a run of base lines (possibly none,
//     an insertion) that the side replaced by its own lines, found by
//     go-diff's line diff (history/text.go).
//  2. Hunks of both sides that overlap or touch (one ends where the other
//     begins, or both insert at one place) form one region; a region of
//     one side's hunks alone takes that side's lines.
//  3. A region with hunks of both sides takes their lines when both made
//     it the same; else it is a conflict, and the merge has no result:
//     the conflict names the region's lines in ours and in base.
//  4. Lines outside every region are base's, which both kept.

// lineHunk is base lines [lo, hi) replaced by lines.
type lineHunk struct {
	lo, hi int
	lines  []string
}

// MergeHunk is one conflicting region of a line merge: where it is in the
// current file (ours) and in the merge's base, as a first line and a count
// (a count of 0 is a place between lines: after line Start).
type MergeHunk struct {
	Start    int `json:"start"`
	Lines    int `json:"lines"`
	Base     int `json:"base_start"`
	BaseLine int `json:"base_lines"`
}

// String is the hunk's lines in the current file: "lines 3-5", "line 4",
// "after line 7".
func (h MergeHunk) String() string {
	switch h.Lines {
	case 0:
		if h.Start == 0 {
			return "at the top"
		}
		return fmt.Sprintf("after line %d", h.Start)
	case 1:
		return fmt.Sprintf("line %d", h.Start)
	}
	return fmt.Sprintf("lines %d-%d", h.Start, h.Start+h.Lines-1)
}

// cutLines cuts text after each newline.
func cutLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lineHunks is case 1: the hunks that make other of base.
func lineHunks(base, other string) []lineHunk {
	var out []lineHunk
	pos := 0
	var cur *lineHunk
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for _, d := range lineDiffs(base, other) {
		n := cutLines(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			flush()
			pos += len(n)
		case diffmatchpatch.DiffDelete:
			if cur == nil {
				cur = &lineHunk{lo: pos, hi: pos}
			}
			cur.hi += len(n)
			pos += len(n)
		case diffmatchpatch.DiffInsert:
			if cur == nil {
				cur = &lineHunk{lo: pos, hi: pos}
			}
			cur.lines = append(cur.lines, n...)
		}
	}
	flush()
	return out
}

// side is one side's hunks as the merge walks them.
type side struct {
	hunks []lineHunk
	i     int
	delta int // its lines before the current region less base's
}

// version is the side's lines for base[lo:hi] with its hunks hs.
func version(base []string, lo, hi int, hs []lineHunk) []string {
	var out []string
	p := lo
	for _, h := range hs {
		out = append(out, base[p:h.lo]...)
		out = append(out, h.lines...)
		p = h.hi
	}
	return append(out, base[p:hi]...)
}

// merge3 merges ours and theirs from base (the cases above): the merged
// text, or the conflicts and no text.
func merge3(base, ours, theirs string) (string, []MergeHunk) {
	b := cutLines(base)
	sides := [2]*side{{hunks: lineHunks(base, ours)}, {hunks: lineHunks(base, theirs)}}
	var out []string
	var conflicts []MergeHunk
	pos := 0
	for {
		// The region starts at the first hunk of either side.
		first := -1
		for k, sd := range sides {
			if sd.i < len(sd.hunks) && (first < 0 || sd.hunks[sd.i].lo < sides[first].hunks[sides[first].i].lo) {
				first = k
			}
		}
		if first < 0 {
			break
		}
		lo := sides[first].hunks[sides[first].i].lo
		hi := lo
		var in [2][]lineHunk
		for grew := true; grew; {
			grew = false
			for k, sd := range sides {
				for sd.i < len(sd.hunks) && sd.hunks[sd.i].lo <= hi {
					h := sd.hunks[sd.i]
					in[k] = append(in[k], h)
					hi = max(hi, h.hi)
					sd.i++
					grew = true
				}
			}
		}
		out = append(out, b[pos:lo]...)
		pos = hi
		vs := [2][]string{}
		for k := range sides {
			if in[k] == nil {
				vs[k] = b[lo:hi]
			} else {
				vs[k] = version(b, lo, hi, in[k])
			}
		}
		switch {
		case in[1] == nil:
			out = append(out, vs[0]...)
		case in[0] == nil || slices.Equal(vs[0], vs[1]):
			out = append(out, vs[1]...)
		default:
			conflicts = append(conflicts, MergeHunk{Start: lo + sides[0].delta + 1, Lines: len(vs[0]), Base: lo + 1, BaseLine: hi - lo})
		}
		for k := range sides {
			sides[k].delta += len(vs[k]) - (hi - lo)
		}
	}
	if conflicts != nil {
		for i := range conflicts {
			if conflicts[i].Lines == 0 {
				conflicts[i].Start-- // a place: after the line before it
			}
			if conflicts[i].BaseLine == 0 {
				conflicts[i].Base--
			}
		}
		return "", conflicts
	}
	out = append(out, b[pos:]...)
	return strings.Join(out, ""), nil
}
