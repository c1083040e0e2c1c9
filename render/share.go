package render

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/share"
)

// SyncResults writes what a push, fetch or prune did, one line per
// session that went well. Failures are the command's error; skip is the
// one the caller reports as the error, the others are written to errOut.
func SyncResults(w, errOut io.Writer, results []share.SyncResult, skip int) {
	for i, r := range results {
		if r.Merge != nil {
			fmt.Fprintln(w, Clean(syncLine(r)))
			mergeLines(w, r.Merge)
		}
		if r.Err() != nil {
			if i != skip {
				fmt.Fprintf(errOut, "plangit: %s [%s]\n", Clean(r.Message), r.Code)
			}
			continue
		}
		if r.Merge == nil {
			fmt.Fprintln(w, Clean(syncLine(r)))
		}
	}
}

// mergeLines writes what a merge did, under its result's line: what each
// side brought (or what was dropped), what was renumbered, kept, and what
// conflicts. Its lines are cleaned (Clean): they quote the remote's
// commits.
func mergeLines(out io.Writer, m *repo.Merged) {
	var b strings.Builder
	defer func() { io.WriteString(out, Clean(b.String())) }()
	w := &b
	for _, side := range m.Sides {
		head := "from"
		if m.DroppedRev != "" {
			if side.Rev != m.DroppedRev {
				continue
			}
			head = "dropped, from"
		}
		who := ""
		if len(side.Who) > 0 {
			who = "; " + strings.Join(side.Who, "; ")
		}
		fmt.Fprintf(w, "  %s %s (%s%s):\n", head, side.Label, short(side.Rev), who)
		if len(side.Changes) == 0 {
			fmt.Fprintln(w, "    nothing")
		}
		for _, c := range side.Changes {
			fmt.Fprintf(w, "    %s\n", c)
		}
	}
	if m.DroppedRev != "" {
		n := 1
		if m.DroppedRev == m.Sides[1].Rev {
			n = 2
		}
		fmt.Fprintf(w, "  the side dropped stays in the history: HEAD^%d (%s), plangit show --rev %s\n", n, short(m.DroppedRev), short(m.DroppedRev))
	}
	for _, r := range m.Renumbered {
		fmt.Fprintf(w, "  renumbered %s\n", r)
	}
	for _, k := range m.Kept {
		fmt.Fprintf(w, "  kept %s\n", k)
	}
	for _, c := range m.Conflicts {
		target := strings.TrimPrefix(c.Target(), "step ")
		fmt.Fprintf(w, "  conflict %s: %s → plangit resolve %s --ours|--theirs\n", c.Target(), c.Display(), target)
	}
}

func syncLine(r share.SyncResult) string {
	moved := ""
	if r.Revisions > 0 {
		moved = Count(r.Revisions, "revision") + ", "
	}
	switch r.Status {
	case "created":
		return fmt.Sprintf("created %s on %s: %s", r.Session, r.Remote, upTo(r))
	case "pushed":
		return fmt.Sprintf("pushed %s to %s: %s%s..%s", r.Session, r.Remote, moved, short(r.From), short(r.To))
	case "new":
		return fmt.Sprintf("fetched %s from %s: a new session, %s", r.Session, r.Remote, upTo(r))
	case "fast-forward":
		return fmt.Sprintf("fetched %s from %s: %s%s..%s", r.Session, r.Remote, moved, short(r.From), short(r.To))
	case "up-to-date":
		return fmt.Sprintf("%s is up to date with %s (%s)", r.Session, r.Remote, short(r.To))
	case "ahead":
		return fmt.Sprintf("%s: %s", r.Session, r.Message)
	case "merged":
		next := "plangit push publishes it"
		if r.Published {
			next = "pushed to " + r.Remote
		}
		return fmt.Sprintf("%s: %s (%s); %s", r.Session, r.Merge.Commit.Change.Summary, short(r.Merge.Commit.Hash), next)
	case "pruned":
		return fmt.Sprintf("pruned %s from %s (%s)", r.Session, r.Remote, short(r.From))
	}
	return fmt.Sprintf("%s %s: %s", r.Status, r.Session, r.Message)
}

// upTo is "12 revisions up to 5d1c2e9".
func upTo(r share.SyncResult) string {
	if r.Revisions == 0 {
		return "up to " + short(r.To)
	}
	return Count(r.Revisions, "revision") + " up to " + short(r.To)
}

func short(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	if h == "" {
		return "none"
	}
	return h
}

// RemoteSessions writes the sessions on a remote.
func RemoteSessions(w io.Writer, remote, url string, rows []share.RemoteSession, skipped int, now time.Time) {
	if len(rows) == 0 {
		fmt.Fprintf(w, "no sessions on %s (%s); plangit push publishes one\n", remote, Clean(url))
	}
	here := map[string]string{"not-fetched": "not here (plangit fetch SESSION)", "in-sync": "in sync here", "ahead": "ahead here (plangit push)",
		"behind": "newer there (plangit fetch SESSION)", "differs": "differs from here (plangit fetch SESSION tells)"}
	for _, r := range rows {
		if r.Problem != "" {
			fmt.Fprintf(w, "  %s  %s  (%s) · %s\n", Clean(r.ID), short(r.Rev), Clean(r.Problem), here[r.Here])
			continue
		}
		fmt.Fprintf(w, "  %s  %s  [%s · %d/%d done]  %s · %s (%s) · %s: %s · %s\n", Clean(r.ID), Clean(r.Title), Clean(string(r.Status)), r.Done, r.Total,
			short(r.Rev), Ago(now, r.LastChange), r.LastChange.UTC().Format(shortTime), Clean(r.Actor), Clean(r.Summary), here[r.Here])
	}
	if skipped > 0 {
		fmt.Fprintf(w, "(%s under refs/plangit/sessions/ on %s name no valid session id; skipped)\n", Count(skipped, "ref"), remote)
	}
}

// shareLine is a session's standing with the remotes, for plangit
// sessions; "" when it was never shared.
func shareLine(s *share.Status, now time.Time) string {
	if s == nil {
		return ""
	}
	var parts []string
	if s.Origin != nil {
		parts = append(parts, "fetched from "+s.Origin.Remote)
	}
	for _, r := range s.Remotes {
		switch r.State {
		case "in-sync":
			parts = append(parts, "in sync with "+r.Remote)
		case "ahead":
			parts = append(parts, fmt.Sprintf("%s not on %s", Count(r.Unpushed, "revision"), r.Remote))
		default:
			parts = append(parts, "differs from "+r.Remote+" (plangit fetch tells)")
		}
	}
	if p := s.LastPush; p != nil && p.Error != "" {
		to := ""
		if p.Remote != "" {
			to = " to " + p.Remote
		}
		parts = append(parts, fmt.Sprintf("push%s failed %s: %s", to, Ago(now, p.Time), p.Error))
	}
	if len(parts) == 0 {
		return ""
	}
	return "    " + strings.Join(parts, " · ")
}

// StaleLine tells a person that the working files they saved held nothing
// the plan does not, and were rewritten; for an older copy, what the plan
// kept that the copy lacked.
func StaleLine(st *repo.Stale) string {
	of := ""
	if st.Base != "" {
		of = " (read as revision " + st.Base + " saved back; kept what came since: " + KeptSince(st.Kept) + ")"
	}
	return st.Files + ": saved outside plangit with nothing the plan does not already hold" + of + "; rewritten in plangit's form, no edit recorded" + findingHint(st)
}

// SinceLine tells a person that the hand edit just adopted was read as an
// edit of an older copy, and what came since that the copy lacked: kept,
// but where the revision's summary says the person's copy won.
func SinceLine(st *repo.Stale) string {
	return "  read as an edit of revision " + st.Base + ", laid over what came since: " + KeptSince(st.Kept) + findingHint(st)
}

// findingHint says how to take a finding out where findings.md was saved
// without one the plan kept: a finding deleted by hand from the current
// file reads as the file's older copy, and the way to remove one is the
// command.
func findingHint(st *repo.Stale) string {
	if strings.Contains(st.Files, "findings.md") && slices.ContainsFunc(st.Kept, func(k string) bool { return strings.HasPrefix(k, "finding ") }) {
		return " (to remove a finding: plangit finding rm ID)"
	}
	return ""
}

// KeptSince names the last three of the summaries of the revisions an
// older copy lacked, and how many more.
func KeptSince(kept []string) string {
	const most = 3
	if len(kept) <= most {
		return strings.Join(kept, "; ")
	}
	return strings.Join(kept[len(kept)-most:], "; ") + fmt.Sprintf("; and %d earlier", len(kept)-most)
}
