package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/plan/redact"
	"github.com/plangit/plangit/repo/disk"
)

// PrivatePath is where plangit keeps a file of its own for the session,
// inside .git/plangit/: never committed, never seen by git status.
func (s *Session) PrivatePath(name string) string {
	return filepath.Join(s.gitDir, privateDir, name)
}

// Locked runs fn holding the session's lock, for work on private files
// that must not interleave with other processes. fn must not call Update.
func (s *Session) Locked(wait time.Duration, fn func() error) error {
	unlock, err := s.lk.take(wait, nil)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// AppendPrivate appends data to .git/plangit/NAME, a file of plangit's
// own, in one write to the file opened for appending (created if missing):
// appends of other processes never interleave with it, and no lock is
// taken. It never appends through a symbolic link.
func (s *Session) AppendPrivate(name string, data []byte) error {
	if err := s.EnsurePrivate(); err != nil {
		return err
	}
	return AppendFile(s.PrivatePath(name), data, true)
}

// AppendFile appends data to path in one write, creating the file (mode
// 0644) only when create is set. It never appends through a symbolic link:
// a link at path is an IO_ERROR.
func AppendFile(path string, data []byte, create bool) error {
	flags := os.O_WRONLY | os.O_APPEND
	if create {
		flags |= os.O_CREATE
	}
	f, err := disk.OpenFile(path, flags, 0o644)
	if err != nil {
		if disk.IsLinkErr(err) {
			return plan.Errorf(plan.CodeIOError, "%s is a symbolic link; plangit never appends through one", path)
		}
		return plan.WrapError(plan.CodeIOError, err, "cannot append to %s", path)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot append to %s", path)
	}
	return nil
}

// maxLogLine bounds one line of the log: what a payload names (a session
// id, a tool's error) cannot grow it by megabytes a call.
const maxLogLine = 2000

// logLine is line as the log keeps it: one line, its whitespace runs one
// space, its control characters and invalid UTF-8 U+FFFD (a payload's
// escape sequences reach no terminal that shows the log), at most
// maxLogLine bytes.
func logLine(line string) string {
	line = strings.Join(strings.Fields(line), " ")
	line = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return utf8.RuneError
		}
		return r
	}, strings.ToValidUTF8(line, string(utf8.RuneError)))
	return plan.TruncateText(line, maxLogLine)
}

// AppendLog adds a line to .code-agent/plangit.log, where hooks record the
// failures they swallow so as never to break the agent (logLine). A
// failure may quote a tool's text: credentials in the line are redacted
// (the table of package redact and the project's redact_extra; the table
// alone when config.json cannot be read). It does nothing when the project
// has no .code-agent directory, and never appends through a symbolic link.
func (p Project) AppendLog(now time.Time, line string) error {
	if fi, err := os.Stat(p.Dir()); err != nil || !fi.IsDir() {
		return nil
	}
	if err := p.Check(); err != nil {
		return err
	}
	var r *redact.Redactor
	if c, err := p.Config(); err == nil {
		r = c.Redactor()
	}
	line = r.String(plan.TruncateText(line, maxLogLine+plan.RedactMargin))
	f, err := disk.OpenFile(filepath.Join(p.Dir(), LogFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s %s\n", now.UTC().Format(time.RFC3339), logLine(line))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Adopt continues session from's plan as session to: the repository moves
// to the new id, history and all, and a revision records the move. It is
// how a new agent session takes up a plan an earlier one left unfinished.
func (p Project) Adopt(from, to string, opts Options) (*Session, *Result, error) {
	src, err := p.Open(from)
	if err != nil {
		return nil, nil, err
	}
	if err := ValidateNewSessionID(to); err != nil {
		return nil, nil, err
	}
	dst, err := newSession(p, to)
	if err != nil {
		return nil, nil, err
	}
	if from == to {
		return nil, nil, plan.Errorf(plan.CodeInvalidArgument, "session %s is already this session", from)
	}
	if _, err := os.Lstat(dst.Dir); err == nil {
		return nil, nil, plan.Errorf(plan.CodeInvalidArgument, "session %s already exists; adopt into a new session id", to).With("session", to)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, plan.WrapError(plan.CodeIOError, err, "cannot check %s", dst.Dir)
	}
	err = src.Locked(opts.LockWait, func() error {
		if err := os.Rename(src.Dir, dst.Dir); err != nil {
			return plan.WrapError(plan.CodeIOError, err, "cannot move session %s to %s", from, to)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// What this machine pushed or fetched was session from's: the new id
	// has never been on a remote, so neither the record of the sharing nor
	// the remotes' tips of from stay.
	if err := os.Remove(dst.PrivatePath(shareFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, plan.WrapError(plan.CodeIOError, err, "cannot clear what session %s shared", to)
	}
	if err := forgetRemoteTips(dst); err != nil {
		return nil, nil, plan.WrapError(plan.CodeIOError, err, "cannot clear the remotes' tips of session %s", from)
	}
	if active, _ := p.Active(); active == from {
		if err := p.SetActive(to); err != nil {
			return nil, nil, err
		}
	}
	res, err := dst.Update(opts, func(st *plan.State) (plan.Change, error) {
		st.Plan.Updated = opts.Time()
		return plan.Change{Op: "adopt", Summary: fmt.Sprintf("adopt: session %s continues in session %s", from, to), Marker: true}, nil
	})
	return dst, res, err
}
