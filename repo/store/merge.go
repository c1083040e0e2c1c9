package store

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// A merge revision's message says, after its summary, what each side
// brought (or what was dropped), what was renumbered, kept and what
// conflicts: sections of a header line each, then "- " items; then, among
// the trailers, the merge's own. Package repo writes it; ParseMergeInfo
// reads it back.
const (
	MergeFrom       = "From "          // a side's header: "From e4f5a6b origin/main (who):"
	MergeDropped    = "Dropped, from " // the side --ours or --theirs dropped
	MergeRenumbered = "Renumbered:"
	MergeKept       = "Kept:"
	MergeConflicts  = "Conflicts (plangit resolve settles them):"
	// TrailerMergeBase names a merge's common ancestor.
	TrailerMergeBase = "Plangit-Merge-Base"
	// TrailerRenumber records a record a merge renumbered: "step 5 7
	// <the side's revision>".
	TrailerRenumber = "Plangit-Renumber"
	// TrailerConflict names a conflict a merge recorded: "step 6 status".
	TrailerConflict = "Plangit-Conflict"
)

// MergeInfo is what a merge revision's message says.
type MergeInfo struct {
	Sides      []MergeInfoSide `json:"sides"`
	Renumbered []string        `json:"renumbered,omitempty"`
	Kept       []string        `json:"kept,omitempty"`
	Conflicts  []string        `json:"conflicts,omitempty"`
	// StepIDs maps, for each parent the merge renumbered steps of, a
	// step's id in the merge to its id on that parent.
	StepIDs map[string]map[string]string `json:"-"`
	// ConflictOn names the records the merge left in conflict: "step 6",
	// "goal".
	ConflictOn []string `json:"-"`
}

// MergeInfoSide is one side as a merge message lists it.
type MergeInfoSide struct {
	Heading string   `json:"heading"` // "From e4f5a6b origin/main (Rita <rita@example.com>, user)"
	Dropped bool     `json:"dropped,omitempty"`
	Changes []string `json:"changes"`
}

// ParseMergeInfo reads what a merge revision's message says of its sides;
// nil for a message that is no merge plangit made.
func ParseMergeInfo(message string) *MergeInfo {
	_, body, _ := strings.Cut(message, "\n\n")
	body, trailers, _ := strings.Cut(body, "\n\n")
	info := &MergeInfo{}
	for _, line := range strings.Split(trailers, "\n") {
		k, v, _ := strings.Cut(line, ": ")
		f := strings.Fields(v)
		switch {
		case k == TrailerRenumber && len(f) == 4 && f[0] == "step" && plumbing.IsHash(f[3]):
			if info.StepIDs == nil {
				info.StepIDs = map[string]map[string]string{}
			}
			if info.StepIDs[f[3]] == nil {
				info.StepIDs[f[3]] = map[string]string{}
			}
			info.StepIDs[f[3]][f[2]] = f[1]
		case k == TrailerConflict && len(f) >= 2:
			target := f[0]
			if target == "step" || target == "phase" || target == "finding" {
				target += " " + f[1]
			}
			info.ConflictOn = append(info.ConflictOn, target)
		}
	}
	var list *[]string
	for _, line := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(line, "- ") && list != nil:
			*list = append(*list, line[2:])
		case strings.HasPrefix(line, MergeFrom) || strings.HasPrefix(line, MergeDropped):
			info.Sides = append(info.Sides, MergeInfoSide{Heading: strings.TrimSuffix(line, ":"), Dropped: strings.HasPrefix(line, MergeDropped)})
			list = &info.Sides[len(info.Sides)-1].Changes
		case line == MergeRenumbered:
			list = &info.Renumbered
		case line == MergeKept:
			list = &info.Kept
		case line == MergeConflicts:
			list = &info.Conflicts
		default:
			list = nil
		}
	}
	if len(info.Sides) == 0 {
		return nil
	}
	return info
}
