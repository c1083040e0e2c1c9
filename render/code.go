package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/plangit/plangit/history"
)

// The work beside the plan: a code diff (diff --code), its summary
// (--stat, show STEP), each revision's diffstat (log --code) and a file's
// blame (blame --code). A file's name and lines are the project's, and
// may hold anything: each is cleaned (Clean) before it is painted, so
// that a colour code in a file shows as the text it is.

// codeRange names a code diff's endpoints: "step 3: @2 → @5", "@3 → @7".
func codeRange(d *history.CodeDiff) string {
	r := fmt.Sprintf("@%d → @%d", d.From.N, d.To.N)
	if d.Step == "" {
		return r
	}
	r = "step " + d.Step + ": " + r
	if d.Open {
		r += " (in progress: up to the newest snapshot)"
	}
	return r
}

// codeHead is the lines above a code diff: its range and who started the
// step, the steps it shares its time with, and the files left out for
// their size.
func codeHead(w io.Writer, d *history.CodeDiff, s Style) {
	head := codeRange(d)
	if d.Agent != "" {
		head += ", started by " + d.Agent
	}
	fmt.Fprintln(w, s.paint(bold, head))
	if len(d.Shared) > 0 {
		fmt.Fprintf(w, "%s\n", s.paint(yellow, "shared: "+sharedList(d)+" ran at the same time, and the snapshots cannot tell whose hand changed a file"))
	}
	for _, l := range d.Large {
		fmt.Fprintf(w, "left out for its size (code_snapshot_max_file): %s (%s)\n", Clean(l.Path), Bytes(l.Size))
	}
}

// sharedList names the steps a diff shares: "step 2 (bob), step 4".
func sharedList(d *history.CodeDiff) string {
	var parts []string
	for _, x := range d.Shared {
		p := "step " + x.Step
		if x.Agent != "" {
			p += " (" + x.Agent + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// codeLetter is a file's status as git --name-status says it.
func codeLetter(status string) string {
	switch status {
	case "added":
		return "A"
	case "deleted":
		return "D"
	case "renamed":
		return "R"
	case "mode":
		return "T"
	}
	return "M"
}

// codeName is a file's name in a listing: "old → new" for a rename.
func codeName(f history.CodeFile) string {
	if f.OldPath != "" {
		return Clean(f.OldPath) + " → " + Clean(f.Path)
	}
	return Clean(f.Path)
}

// CodeDiff writes a code diff: its head, then each file as git diff
// prints it, a rename, a mode change and a binary file by a line.
func CodeDiff(w io.Writer, d *history.CodeDiff, s Style) {
	codeHead(w, d, s)
	if len(d.Files) == 0 {
		fmt.Fprintln(w, "no change to the project's files")
		return
	}
	for _, f := range d.Files {
		fmt.Fprintln(w, s.paint(bold, fmt.Sprintf("diff --code %s (%s)", codeName(f), f.Status)))
		if f.OldMode != "" && f.NewMode != "" {
			fmt.Fprintf(w, "mode %s → %s\n", f.OldMode, f.NewMode)
		}
		if f.Binary {
			fmt.Fprintf(w, "binary file, or over 1 MB: no lines shown\n")
			continue
		}
		for _, line := range strings.SplitAfter(f.Unified, "\n") {
			if line == "" {
				continue
			}
			line = strings.TrimSuffix(line, "\n")
			code := ""
			switch {
			case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
				code = bold
			case strings.HasPrefix(line, "+"):
				code = green
			case strings.HasPrefix(line, "-"):
				code = red
			case strings.HasPrefix(line, "@@"):
				code = cyan
			}
			fmt.Fprintln(w, s.paint(code, line))
		}
	}
}

// CodeStat writes a code diff's summary: its head, a line per file with
// its status and lines, and the totals.
func CodeStat(w io.Writer, d *history.CodeDiff, s Style) {
	codeHead(w, d, s)
	codeFiles(w, d.Files, "  ", s)
}

func codeFiles(w io.Writer, files []history.CodeFile, indent string, s Style) {
	if len(files) == 0 {
		fmt.Fprintf(w, "%sno change to the project's files\n", indent)
		return
	}
	width := 0
	for _, f := range files {
		width = max(width, Columns(codeName(f)))
	}
	width = min(width, 48)
	added, deleted := 0, 0
	for _, f := range files {
		name := codeName(f)
		pad := strings.Repeat(" ", max(0, width-Columns(name)))
		fmt.Fprintf(w, "%s%s %s%s | %s\n", indent, codeLetter(f.Status), name, pad, lineCounts(f, s))
		added += f.Added
		deleted += f.Deleted
	}
	fmt.Fprintf(w, "%s%s changed, %s(+), %s(-)\n", indent, Count(len(files), "file"), Count(added, "insertion"), Count(deleted, "deletion"))
}

func lineCounts(f history.CodeFile, s Style) string {
	if f.Binary {
		return "binary"
	}
	return s.paint(green, fmt.Sprintf("+%d", f.Added)) + " " + s.paint(red, fmt.Sprintf("-%d", f.Deleted))
}

// StepCode writes what show STEP says of a step's work: the summary, and
// how to see the diff.
func StepCode(w io.Writer, d *history.CodeDiff, s Style) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s %s\n", s.paint(bold, "Code:"), codeRange(d))
	if d.Agent != "" {
		fmt.Fprintf(w, "  started by %s\n", Clean(d.Agent))
	}
	if len(d.Shared) > 0 {
		fmt.Fprintf(w, "  %s\n", s.paint(yellow, "shared with "+sharedList(d)+": the diff holds their work too"))
	}
	for _, l := range d.Large {
		fmt.Fprintf(w, "  left out for its size: %s (%s)\n", Clean(l.Path), Bytes(l.Size))
	}
	codeFiles(w, d.Files, "  ", s)
	if len(d.Files) > 0 {
		fmt.Fprintf(w, "  plangit diff --code %s prints the diff\n", d.Step)
	}
}

// codeStatLine is a revision's diffstat on one line, for log --code.
func codeStatLine(st *history.CodeStat) string {
	switch {
	case st.Missing:
		return "code: the snapshot is not here (plangit fetch brings it)"
	case st.First:
		return "code: the session's first snapshot"
	case len(st.Files) == 0:
		return "code: no change to the project's files"
	}
	names := make([]string, 0, len(st.Files))
	for i, f := range st.Files {
		if i == 5 {
			names = append(names, fmt.Sprintf("%d more", len(st.Files)-5))
			break
		}
		names = append(names, codeLetter(f.Status)+" "+codeName(f))
	}
	return fmt.Sprintf("code: %s, +%d -%d: %s", Count(len(st.Files), "file"), st.Added, st.Deleted, strings.Join(names, ", "))
}

// CodeBlame writes, for each line of a file, the revision and step that
// last changed it, or that the session's first snapshot held it so.
func CodeBlame(w io.Writer, b *history.CodeBlame, s Style) {
	fmt.Fprintf(w, "%s\n", s.paint(bold, fmt.Sprintf("%s as @%d's snapshot holds it; lines marked @%d are as the session's first snapshot had them", b.Path, b.At.N, b.First.N)))
	heads := make([]string, len(b.Changes))
	width := 0
	for i, c := range b.Changes {
		step := "-"
		switch len(c.Steps) {
		case 0:
		case 1:
			step = "step " + c.Steps[0]
		default:
			step = "steps " + strings.Join(c.Steps, ",")
		}
		heads[i] = fmt.Sprintf("%s %s %s  %s", c.Rev[:7], revNumber(c.N), step, c.Who)
		width = max(width, Columns(heads[i]))
	}
	first := fmt.Sprintf("%-7s %s %s", "", revNumber(b.First.N), "first snapshot")
	width = max(width, Columns(first))
	for _, l := range b.Lines {
		head := first
		if l.Change >= 0 {
			head = heads[l.Change]
		}
		head += strings.Repeat(" ", width-Columns(head))
		if l.Change < 0 {
			head = s.paint(dim, head)
		} else {
			head = s.paint(yellow, head)
		}
		fmt.Fprintf(w, "%s %4d│ %s\n", head, l.Line, Clean(l.Text))
	}
}
