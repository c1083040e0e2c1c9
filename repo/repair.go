package repo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
)

// rejectedSuffix names the copy repair keeps of a file it restores. The
// session's .git/info/exclude hides such copies from git status.
const rejectedSuffix = ".rejected"

// RepairReport says what Repair did.
type RepairReport struct {
	RefRecovered string         `json:"ref_recovered,omitempty"` // the revision a damaged branch was pointed back at
	Restored     []RestoredFile `json:"restored"`
	Adopted      *Commit        `json:"adopted,omitempty"` // valid hand edits, committed
}

// RestoredFile is a working file Repair put back as the last revision has it.
type RestoredFile struct {
	File    string `json:"file"`
	Problem string `json:"problem"`
	KeptAt  string `json:"kept_at,omitempty"` // where its rejected text is
}

// Repair brings a damaged session back to a working state without losing
// anything: a damaged branch ref is recovered from the revision log; a
// working file that does not parse is restored from HEAD, its rejected text
// kept beside it as NAME.rejected; valid hand edits are adopted; the index
// and revision log are rewritten.
func (s *Session) Repair(opts Options) (*RepairReport, error) {
	rep := &RepairReport{Restored: []RestoredFile{}}
	unlock, err := s.lock(opts.LockWait)
	if err != nil {
		return nil, err
	}
	head, err := s.readRef()
	if err != nil || head.IsZero() {
		recovered, rerr := s.recoverRef()
		if rerr != nil {
			unlock()
			if err == nil {
				return nil, plan.Errorf(plan.CodePlanNotFound, "session %s has no revision to repair from", s.ID)
			}
			return nil, rerr
		}
		head = recovered
		rep.RefRecovered = head.String()
	}
	files, err := s.ReadFiles()
	if err != nil {
		unlock()
		return nil, err
	}
	committed, err := s.objs.readFilesAt(head)
	if err != nil {
		unlock()
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot read revision %s", short(head))
	}
	restore := map[string][]byte{}
	for name, b := range files {
		restore[name] = b
	}
	for _, name := range plan.SessionFiles {
		b, have := files[name]
		want, committedHas := committed[name]
		if have == committedHas && bytes.Equal(b, want) {
			continue
		}
		problem := fileProblem(name, b, have)
		if problem == "" {
			continue // a valid hand edit: adopted below
		}
		r := RestoredFile{File: name, Problem: problem}
		if have {
			r.KeptAt = filepath.Join(s.Dir, name+rejectedSuffix)
			if err := WriteFileAtomic(r.KeptAt, b, 0o644, false); err != nil {
				unlock()
				return nil, err
			}
		}
		if committedHas {
			restore[name] = want
		} else {
			delete(restore, name)
		}
		rep.Restored = append(rep.Restored, r)
	}
	if err := s.excludeRejected(); err != nil {
		unlock()
		return nil, err
	}
	if err := s.writeWorking(restore, files); err != nil {
		unlock()
		return nil, err
	}
	if err := s.writeIndex(committed); err != nil {
		unlock()
		return nil, err
	}
	if _, err := s.rebuildRevlog(head); err != nil {
		unlock()
		return nil, err
	}
	unlock()

	res, err := s.Update(opts, func(*plan.State) (plan.Change, error) { return plan.Change{}, nil })
	if err != nil {
		return rep, err
	}
	rep.Adopted = res.Adopted
	return rep, nil
}

// fileProblem says why a working file cannot be adopted, or "" if it can.
func fileProblem(name string, b []byte, have bool) string {
	if !have {
		if name == plan.PlanFile {
			return name + " was missing"
		}
		return ""
	}
	var err error
	switch name {
	case plan.PlanFile:
		_, err = plan.ParsePlan(b)
	case plan.FindingsFile:
		_, err = plan.ParseFindings(b)
	case plan.ErrorsFile:
		_, err = plan.ParseErrors(b)
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// recoverRef points the branch at the newest revision the revision log
// names whose commit is readable.
func (s *Session) recoverRef() (plumbing.Hash, error) {
	b, _ := os.ReadFile(s.revlogPath())
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		e, ok := parseRevLine(lines[i])
		if !ok {
			continue
		}
		if _, err := s.objs.readCommit(e.Hash); err == nil {
			path := filepath.Join(s.gitDir, branchRef)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return plumbing.ZeroHash, plan.WrapError(plan.CodeIOError, err, "cannot write %s", branchRef)
			}
			return e.Hash, WriteFileAtomic(path, []byte(e.Hash.String()+"\n"), 0o644, false)
		}
	}
	return plumbing.ZeroHash, plan.Errorf(plan.CodeIOError, "the branch ref of session %s is damaged and no revision could be recovered from %s", s.ID, s.revlogPath())
}

// excludeRejected makes git ignore the copies repair keeps.
func (s *Session) excludeRejected() error {
	path := filepath.Join(s.gitDir, "info", "exclude")
	b, _ := os.ReadFile(path)
	pattern := "*" + rejectedSuffix
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == pattern {
			return nil
		}
	}
	if len(b) > 0 && !bytes.HasSuffix(b, []byte("\n")) {
		b = append(b, '\n')
	}
	b = append(b, []byte("# copies of files plangit repair replaced\n"+pattern+"\n")...)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return plan.WrapError(plan.CodeIOError, err, "cannot write %s", path)
	}
	return WriteFileAtomic(path, b, 0o644, false)
}
