// Package disk is plangit's ground floor: where a project keeps its
// sessions and what a session keeps under its .git (the layout, session
// ids), the session lock, the intent record, and the file operations every
// writer shares — reads and appends that never follow a symbolic link,
// files put in place atomically. Package repo, the hooks' wire package and
// the hook binary all build on it; it imports the standard library only,
// so the hook binary, started on every tool call, stays small.
package disk

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Where a project keeps a session.
const (
	ProjectDir = ".code-agent" // under the project root
	PlansDir   = "plans"       // under ProjectDir: one directory per session
	PrivateDir = "plangit"     // under a session's .git: plangit's own files
	IntentFile = "intent"      // in PrivateDir: a change that may not have landed
	QueueFile  = "queue"       // in PrivateDir: hook events waiting for the lock
	LeasesFile = "leases"      // in PrivateDir: claims' lease renewals not yet committed (package repo's lease.go)
	VoidedFile = "voided"      // in PrivateDir: claims merges voided, until their agents are told (package share's claim.go)
	AskedFile  = "asked"       // in PrivateDir: what the person allowed when the agent's host asked them (package repo's gate.go)
	PendingDir = "pending"     // under ProjectDir: a session's first request, before it has a plan
	AttachDir  = "attached"    // under ProjectDir: host sessions that work on another session's plan (Attached)
	// SpareFile, in PrivateDir, is the file earlier versions put files in
	// place through, written over each time; a change removes it.
	SpareFile = "spare"
)

// PendingPrompt is where a project keeps the person's request to an agent
// session that has no plan yet: the hooks start the plan from it when the
// agent first uses a tool.
func PendingPrompt(root, session string) string {
	return filepath.Join(root, ProjectDir, PendingDir, session)
}

// AttachedPath is where a project records the plan that host session
// works on as one of its agents (plangit attach).
func AttachedPath(root, session string) string {
	return filepath.Join(root, ProjectDir, AttachDir, session)
}

// Attached is the session whose plan host session session is attached
// to; "" for none, or a record that names no session plangit accepts.
func Attached(root, session string) string {
	if !PlainSessionID(session) {
		return ""
	}
	b, err := ReadFile(AttachedPath(root, session))
	id := strings.TrimSpace(string(b))
	if err != nil || !PlainSessionID(id) || id == session {
		return ""
	}
	return id
}

// SessionDir is a session's directory under a project root.
func SessionDir(root, session string) string {
	return filepath.Join(root, ProjectDir, PlansDir, session)
}

// PrivatePath is a file of plangit's own in a session's .git; sessionDir
// is clean (SessionDir's), and name a plain file name.
func PrivatePath(sessionDir, name string) string {
	return under(sessionDir, ".git"+sep+PrivateDir+sep+name)
}

// sep is the path separator, as a string.
const sep = string(filepath.Separator)

// under is the file name in the clean directory dir, without cleaning
// the path anew as filepath.Join does: the hooks build a dozen paths a
// call.
func under(dir, name string) string {
	if strings.HasSuffix(dir, sep) {
		return dir + name // a root
	}
	return dir + sep + name
}

// Info is what Lstat and Stat tell of a file.
type Info struct {
	Size    int64
	Regular bool // a regular file
	Dir     bool // a directory
}

// PlainSessionID reports whether id is a session id plangit accepts:
// 1–128 characters of A-Z a-z 0-9 . _ - not starting with a dot. An id
// names a directory: anything else (a separator, "..", a NUL, an absolute
// path) could name one outside the project.
func PlainSessionID(id string) bool {
	if id == "" || len(id) > 128 || id[0] == '.' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// SameFile reports whether f is the file at path now: a lock taken on a
// directory since replaced is no lock.
func SameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// OutsideLink reports the first of root's ProjectDir and its PlansDir
// that is a symbolic link leading out of root — where sessions would be
// read and written in another directory than the project's — with where
// it leads (as far as it resolves). A link that stays inside root is
// followed, as any directory is; link is "" when there is none that
// leads out.
func OutsideLink(root string) (link, target string) {
	base := ""
	for _, rel := range []string{ProjectDir, ProjectDir + sep + PlansDir} {
		path := under(root, rel)
		fi, err := os.Lstat(path)
		if err != nil {
			return "", "" // nothing there, nor beneath
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			target, _ = os.Readlink(path)
			return path, target // leads nowhere that can be checked
		}
		if base == "" {
			if base, err = filepath.EvalSymlinks(root); err != nil {
				return path, resolved
			}
		}
		if r, err := filepath.Rel(base, resolved); err != nil || r == ".." || strings.HasPrefix(r, ".."+sep) || filepath.IsAbs(r) {
			return path, resolved
		}
	}
	return "", ""
}

// askedFor is how long the person's yes to a host's question stands.
const askedFor = 2 * 60 // seconds

// AskedLine is the asked record's line (AskedFile) for a question the
// agent's host put to the person at now (Unix seconds): what their yes
// allows the agent, "approve" or "start", until its deadline.
func AskedLine(what string, now int64) string {
	return strconv.FormatInt(now+askedFor, 10) + " " + what + "\n"
}

// DirSize is the total size of the regular files under dir: what a
// session or its repository takes on disk. What cannot be read counts
// nothing.
func DirSize(dir string) int64 {
	var total int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	return total
}
