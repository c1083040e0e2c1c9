package plan

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/yuin/goldmark/ast"
)

// FindingsFile is the name of the findings file in a session.
const FindingsFile = "findings.md"

// Category classifies a finding.
type Category string

// Finding categories, in the order findings.md lists them.
const (
	CatCode         Category = "code"
	CatArchitecture Category = "architecture"
	CatDependency   Category = "dependency"
	CatIssue        Category = "issue"
	CatInsight      Category = "insight"
)

// Categories lists every category in file order.
var Categories = []Category{CatCode, CatArchitecture, CatDependency, CatIssue, CatInsight}

// ParseCategory parses a category name, case-insensitively.
func ParseCategory(s string) (Category, error) {
	for _, c := range Categories {
		if strings.EqualFold(string(c), strings.TrimSpace(s)) {
			return c, nil
		}
	}
	names := make([]string, len(Categories))
	for i, c := range Categories {
		names[i] = string(c)
	}
	return "", Errorf(CodeInvalidArgument, "unknown category %q; one of %s", Clip(s), strings.Join(names, ", ")).With("categories", names)
}

// categoryHeading reads a "## Category" heading, singular or plural.
func categoryHeading(text string) (Category, error) {
	t := strings.ToLower(strings.TrimSpace(text))
	for _, cand := range []string{t, strings.TrimSuffix(t, "s"), strings.TrimSuffix(t, "ies") + "y"} {
		if c, err := ParseCategory(cand); err == nil {
			return c, nil
		}
	}
	return ParseCategory(text)
}

func (c Category) heading() string { return strings.ToUpper(string(c[:1])) + string(c[1:]) }

// Finding is one research note.
type Finding struct {
	ID       string    `json:"id"`
	Category Category  `json:"category"`
	Title    string    `json:"title"`
	Content  string    `json:"content,omitempty"`
	Source   string    `json:"source,omitempty"`
	Step     string    `json:"step,omitempty"` // the step it was found during
	Time     time.Time `json:"time,omitzero"`
}

// Findings is a session's findings, in the order they were added.
type Findings []*Finding

// Add records a finding and returns it with its id.
func (fs *Findings) Add(f Finding, now time.Time) (*Finding, error) {
	var err error
	if f.Title, err = CleanLine("finding title", f.Title); err != nil {
		return nil, err
	}
	if f.Title == "" {
		return nil, Errorf(CodeInvalidArgument, "a finding needs a title: --title \"...\"")
	}
	if f.Content, err = CleanBlock("finding content", f.Content); err != nil {
		return nil, err
	}
	if f.Source, err = CleanLine("source", f.Source); err != nil {
		return nil, err
	}
	var ok bool
	if f.Step, ok = stepRef(f.Step); !ok {
		return nil, Errorf(CodeInvalidArgument, "step %q is not a step id", Clip(f.Step))
	}
	f.Time = Stamp(now)
	fs.Insert(&f)
	return &f, nil
}

// Insert gives f the next id and puts it in file order: by category, then as
// added.
func (fs *Findings) Insert(f *Finding) {
	next := 1
	for _, g := range *fs {
		if n, _ := strconv.Atoi(g.ID); n >= next {
			next = n + 1
		}
	}
	f.ID = strconv.Itoa(next)
	at := len(*fs)
	for i, g := range *fs {
		if slices.Index(Categories, g.Category) > slices.Index(Categories, f.Category) {
			at = i
			break
		}
	}
	*fs = slices.Insert(*fs, at, f)
}

// InsertAll adds findings as Insert adds them one by one, in one pass: an
// import adds thousands.
func (fs *Findings) InsertAll(add []*Finding) {
	if len(add) == 0 {
		return
	}
	next := 1
	for _, g := range *fs {
		if n, _ := strconv.Atoi(g.ID); n >= next {
			next = n + 1
		}
	}
	rank := func(c Category) int { return slices.Index(Categories, c) }
	// Insert puts a finding before the first of a later category, after the
	// findings added before it there.
	at := map[Category]int{}
	for _, f := range add {
		if _, ok := at[f.Category]; !ok {
			at[f.Category] = len(*fs)
			for i, g := range *fs {
				if rank(g.Category) > rank(f.Category) {
					at[f.Category] = i
					break
				}
			}
		}
	}
	sorted := slices.Clone(add)
	for _, f := range sorted {
		f.ID = strconv.Itoa(next)
		next++
	}
	slices.SortStableFunc(sorted, func(a, b *Finding) int {
		if at[a.Category] != at[b.Category] {
			return at[a.Category] - at[b.Category]
		}
		return rank(a.Category) - rank(b.Category)
	})
	out := make(Findings, 0, len(*fs)+len(add))
	j := 0
	for i, g := range *fs {
		for ; j < len(sorted) && at[sorted[j].Category] == i; j++ {
			out = append(out, sorted[j])
		}
		out = append(out, g)
	}
	*fs = append(out, sorted[j:]...)
}

// ByCategory returns the findings of one category.
func (fs Findings) ByCategory(c Category) []*Finding {
	var out []*Finding
	for _, f := range fs {
		if f.Category == c {
			out = append(out, f)
		}
	}
	return out
}

// WriteFindings writes findings.md: findings grouped by category.
func WriteFindings(fs Findings) []byte {
	var b strings.Builder
	b.WriteString("# Findings\n")
	for _, c := range Categories {
		group := fs.ByCategory(c)
		if len(group) == 0 {
			continue
		}
		b.WriteString("\n## " + c.heading() + "\n")
		for _, f := range group {
			b.WriteString("\n### " + f.Title + " `#" + f.ID + "`\n")
			meta := [][2]string{{"source", f.Source}, {"step", f.Step}, {"time", formatTime(f.Time)}}
			wrote := false
			for _, m := range meta {
				if m[1] != "" {
					if !wrote {
						b.WriteByte('\n')
						wrote = true
					}
					b.WriteString("- " + m[0] + ": " + m[1] + "\n")
				}
			}
			if f.Content != "" {
				b.WriteByte('\n')
				writeQuote(&b, f.Content)
			}
		}
	}
	return sealed(&b)
}

// manusFindingsNote is the line a Manus-style findings.md (seed 004's
// FindingsManager) writes under its "# Findings & Notes" title.
const manusFindingsNote = "Research findings and important discoveries."

// manusSource reads a Manus-style "*Source: PATH*" line.
func manusSource(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "*Source:") && strings.HasSuffix(t, "*") && !strings.HasSuffix(t, "**") {
		return strings.TrimSpace(t[len("*Source:") : len(t)-1]), true
	}
	return "", false
}

// findingKeys are the keys of a finding's "- key: value" lines.
var findingKeys = []string{"source", "step", "time"}

// rawContent adds block n, as its source reads, to a finding's content: a
// Manus-style findings.md (seed 004's FindingsManager writes
// "${item.content}" as it is) holds code blocks and lists there.
func (d *Doc) rawContent(n ast.Node, content Gathered, field *string) error {
	raw := strings.TrimRight(string(d.Src[d.Start(n):d.End(n)]), "\n")
	text, err := d.clean(d.Start(n), "finding content", raw, CleanBlock)
	if err != nil {
		return err
	}
	content.Add(field, text)
	return nil
}

// ParseFindings parses findings.md: plangit's, or a Manus-style one (seed
// 004: "### Title", the content, "*Source: …*" under "## Category"),
// which the next change writes back in plangit's form. An empty file holds
// no findings.
func ParseFindings(src []byte) (Findings, error) {
	if len(strings.TrimSpace(string(src))) == 0 {
		return nil, nil
	}
	d, err := ParseDoc(FindingsFile, src)
	if err != nil {
		return nil, err
	}
	var (
		out     Findings
		cat     Category
		cur     *Finding
		titled  bool
		pending []*Finding // findings written without an id
		seen    = map[string]bool{}
		content = Gathered{}
	)
	for n := d.Root.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			text := d.HeadingText(n)
			switch {
			case n.Level == 1 && !titled && cat == "":
				titled = true
			case n.Level == 2:
				c, err := categoryHeading(text)
				if err != nil {
					return nil, d.errAtNode(n, "%s", err.Error())
				}
				cat, cur = c, nil
			case n.Level == 3 && cat != "":
				title, machine := cutMachine(text)
				cur = &Finding{Category: cat}
				if machine != "" {
					id := strings.TrimPrefix(machine, "#")
					if !IsStepID(id) {
						return nil, d.errAtNode(n, "finding id %q is not a number", Clip(machine))
					}
					if seen[id] {
						return nil, d.errAtNode(n, "two findings have id %s; remove the id from the copy", id)
					}
					cur.ID, seen[id] = id, true
				} else {
					pending = append(pending, cur)
				}
				if cur.Title, err = CleanLine("finding title", title); err != nil || cur.Title == "" {
					return nil, d.errAtNode(n, "a finding heading needs a title")
				}
				out = append(out, cur)
			default:
				return nil, d.errAtNode(n, "findings.md holds \"## Category\" headings with \"### Title\" findings under them")
			}
		case *ast.List:
			if cur == nil {
				return nil, d.errAtNode(n, "a list here belongs to no finding")
			}
			fields, err := d.detailFields(n)
			if err != nil || !slices.ContainsFunc(fields, func(f field) bool { return slices.Contains(findingKeys, f.key) }) {
				// Not plangit's "- key: value" lines: the content
				// itself, written raw as a Manus-style file does.
				if err := d.rawContent(n, content, &cur.Content); err != nil {
					return nil, err
				}
				continue
			}
			for _, f := range fields {
				switch f.key {
				case "source":
					if cur.Source, err = d.clean(f.off, "source", f.value, CleanLine); err != nil {
						return nil, err
					}
				case "step":
					var ok bool
					if cur.Step, ok = stepRef(f.value); !ok {
						return nil, d.ErrAt(f.off, "step %q is not a step id", Clip(f.value))
					}
				case "time":
					t, ok := parseTime(f.value)
					if !ok {
						return nil, d.ErrAt(f.off, "the time %q is not an RFC 3339 time", Clip(f.value))
					}
					cur.Time = t
				default:
					return nil, d.ErrAt(f.off, "unknown finding field %q; known: source, step, time", Clip(f.key))
				}
			}
		case *ast.Blockquote:
			text, err := d.quoteText(n, "finding content")
			if err != nil {
				return nil, err
			}
			if cur == nil && cat == "" && strings.TrimSpace(text) == manusFindingsNote {
				continue // the Manus-style file's own line under its title
			}
			if cur == nil {
				return nil, d.errAtNode(n, "a quote here belongs to no finding")
			}
			content.Add(&cur.Content, text)
		case *ast.Paragraph:
			if cur == nil {
				return nil, d.errAtNode(n, "text here belongs to no finding; put it under a \"### Title\"")
			}
			raw := d.JoinedLines(n, "\n")
			if src, ok := manusSource(raw); ok {
				// the Manus-style "*Source: …*"
				if cur.Source, err = d.clean(d.Start(n), "source", src, CleanLine); err != nil {
					return nil, err
				}
				continue
			}
			text, err := d.clean(d.Start(n), "finding content", raw, CleanBlock)
			if err != nil {
				return nil, err
			}
			content.Add(&cur.Content, text)
		case *ast.ThematicBreak:
		default:
			if cur == nil {
				return nil, d.errAtNode(n, "plangit does not understand this %s in findings.md; put it under a \"### Title\"", KindName(n))
			}
			// A code block, an HTML block: content written raw.
			if err := d.rawContent(n, content, &cur.Content); err != nil {
				return nil, err
			}
		}
	}
	content.Join()
	next := 1
	for _, f := range out {
		if n, _ := strconv.Atoi(f.ID); n >= next {
			next = n + 1
		}
	}
	for _, f := range pending {
		f.ID = strconv.Itoa(next)
		next++
	}
	return out, nil
}
