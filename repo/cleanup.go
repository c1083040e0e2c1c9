package repo

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
)

// CleanupOptions say which sessions cleanup removes.
type CleanupOptions struct {
	OlderThan         time.Duration // remove sessions whose last commit is older
	IncludeUnfinished bool          // remove unfinished plans too
	DryRun            bool          // list, remove nothing
	KeepUnpushed      bool          // keep sessions with revisions no remote holds (push_on is set)
	Force             bool          // remove them anyway
	Keep              string        // a session that stays whatever its age (the hook's own)
	Now               time.Time
	LockWait          time.Duration
}

// CleanupEntry is what cleanup did with one entry of plans/.
type CleanupEntry struct {
	Session    string          `json:"session"`
	Title      string          `json:"title,omitempty"`
	Status     plan.PlanStatus `json:"status,omitempty"`
	LastChange time.Time       `json:"last_change,omitzero"`
	Size       int64           `json:"size"`
	Removed    bool            `json:"removed"` // removed, or would be with --dry-run
	Reason     string          `json:"reason"`
}

// CleanupReport is everything cleanup looked at.
type CleanupReport struct {
	DryRun  bool           `json:"dry_run"`
	Entries []CleanupEntry `json:"sessions"`
	Removed int            `json:"removed"`
	Freed   int64          `json:"freed"` // bytes freed, or that would be
}

// Cleanup removes sessions whose last commit is older than o.OlderThan.
// Unfinished plans stay unless o.IncludeUnfinished; the active session
// always stays; entries that are symlinks are never followed; a session
// whose history cannot be read stays; with o.KeepUnpushed, a session with
// revisions no remote holds stays unless o.Force.
func (p Project) Cleanup(o CleanupOptions) (*CleanupReport, error) {
	rep := &CleanupReport{DryRun: o.DryRun, Entries: []CleanupEntry{}}
	plans := p.PlansDir()
	fi, err := os.Lstat(plans)
	if os.IsNotExist(err) {
		return rep, nil
	}
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read %s", plans)
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return nil, plan.Errorf(plan.CodeIOError, "%s is not a directory (a symlink?); cleanup never follows one", plans)
	}
	realPlans, err := filepath.EvalSymlinks(plans)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot resolve %s", plans)
	}
	entries, err := os.ReadDir(plans)
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot list %s", plans)
	}
	active, _ := p.Active()
	for _, de := range entries {
		e := CleanupEntry{Session: de.Name()}
		switch {
		case de.Type()&os.ModeSymlink != 0:
			e.Reason = "a symlink; cleanup never follows one"
			rep.Entries = append(rep.Entries, e)
			continue
		case !de.IsDir() || ValidateSessionID(de.Name()) != nil:
			continue
		}
		p.judge(&e, o, active)
		if e.Removed {
			dir := filepath.Join(plans, e.Session)
			real, err := filepath.EvalSymlinks(dir)
			if err != nil || !strings.HasPrefix(real, realPlans+string(filepath.Separator)) {
				e.Removed, e.Reason = false, "resolves outside plans/; not followed"
			} else if !o.DryRun {
				if err := p.removeSession(e.Session, o.LockWait, o.Now); err != nil {
					e.Removed, e.Reason = false, "could not remove: "+err.Error()
				}
			}
		}
		if e.Removed {
			rep.Removed++
			rep.Freed += e.Size
		}
		rep.Entries = append(rep.Entries, e)
	}
	return rep, nil
}

// judge decides whether one session goes, and says why.
func (p Project) judge(e *CleanupEntry, o CleanupOptions, active string) {
	s, err := p.Open(e.Session)
	if err != nil {
		e.Reason = "not a readable session: " + err.Error()
		return
	}
	e.Size = s.Size()
	last, err := s.Last()
	if err != nil {
		e.Reason = "its history cannot be read: " + err.Error()
		return
	}
	e.LastChange = last.Time
	unfinished := true
	if st, err := s.State(); err == nil {
		e.Title, e.Status = st.Plan.Title, st.Plan.Status
		unfinished = st.Plan.Status.Unfinished()
	}
	age := o.Now.Sub(last.Time)
	switch {
	case e.Session == active:
		e.Reason = "the active session"
	case e.Session == o.Keep:
		e.Reason = "the session asking"
	case age < o.OlderThan:
		e.Reason = "changed " + plan.FormatDuration(age) + " ago"
	case unfinished && !o.IncludeUnfinished:
		e.Reason = "unfinished; --include-unfinished removes it"
	case o.KeepUnpushed && !o.Force && unpushed(s):
		e.Reason = "not pushed (push_on is set); plangit push publishes it, --force removes it anyway"
	default:
		e.Removed = true
		e.Reason = "last changed " + plan.FormatDuration(age) + " ago"
	}
}

// removeSession deletes a session directory under its lock, so no change is
// cut off halfway. A session this machine pushed goes on the prune list
// first (plangit push --prune). Everything but the lock goes while it is
// held; the lock itself, and the directories that hold it, once it is
// released, for Windows deletes no file another handle holds open.
// Removal is disk.RemoveAll's, file by file: git's read-only objects
// included, symlinks inside removed, never their targets, and the same on
// Windows and under Wine as elsewhere.
func (p Project) removeSession(id string, wait time.Duration, now time.Time) error {
	s, err := p.Open(id)
	if err != nil {
		return err
	}
	unlock, err := s.lk.take(wait, nil)
	if err != nil {
		return err
	}
	if err := p.notePushed(s, now); err != nil {
		unlock()
		return err
	}
	err = removeAllBut(filepath.Clean(s.Dir), filepath.Clean(s.lk.target))
	unlock()
	if err == nil {
		err = disk.RemoveAll(s.Dir)
	}
	if err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot remove %s", s.Dir)
	}
	return nil
}

// removeAllBut removes what dir holds but the file or directory keep
// beneath it and the directories on the way to it; a directory kept is
// emptied.
func removeAllBut(dir, keep string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case path == keep && !e.IsDir():
		case path == keep || e.IsDir() && strings.HasPrefix(keep, path+string(filepath.Separator)):
			if err := removeAllBut(path, keep); err != nil {
				return err
			}
		default:
			if err := disk.RemoveAll(path); err != nil {
				return err
			}
		}
	}
	return nil
}

// cleanedFile notes when hooks last ran cleanup (cleanup_on): they run it
// at most once an hour.
const cleanedFile = "cleaned"

// AutoCleanup is cleanup as a hook runs it (cleanup_on): sessions older
// than retention_days, unfinished plans and the hook's own session kept,
// at most once an hour for the project; nil when it did not run.
func (p Project) AutoCleanup(cfg Config, keep string, now time.Time) (*CleanupReport, error) {
	stamp := filepath.Join(p.Dir(), cleanedFile)
	if fi, err := os.Stat(stamp); err == nil && now.Sub(fi.ModTime()) < time.Hour && !fi.ModTime().After(now) {
		return nil, nil
	}
	if err := WriteFileAtomic(stamp, []byte(now.UTC().Format(time.RFC3339)+"\n"), 0o644, false); err != nil {
		return nil, err
	}
	os.Chtimes(stamp, now, now)
	return p.Cleanup(CleanupOptions{OlderThan: time.Duration(cfg.RetentionDays) * 24 * time.Hour, KeepUnpushed: cfg.PushOn != "off",
		Keep: keep, Now: now, LockWait: 200 * time.Millisecond})
}
