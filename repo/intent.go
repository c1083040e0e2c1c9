package repo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo/disk"
)

// The intent record, .git/plangit/intent, is how plangit tells its own
// interrupted write from a person's edit. A change writes it after its
// objects and before it moves the branch: the new commit, and for each
// working file the blob it held (old) and the blob it is to hold (new).
// Once the branch has moved, the working files are brought to the new
// tree and the record is emptied. It is written in place, in the file an
// earlier change emptied, and it is pending while it holds anything
// (disk.IntentPending): a record cut short by a kill — or read by a reader
// while it is written — never ends in its "end" line, and its change never
// moved the branch. (A reader that meets a whole record acts on it only
// when the branch is at its commit.) A process killed in between leaves the record;
// whoever comes next, reader or writer, finds it with one stat:
//
//   - the branch is not at the record's commit: the change never landed,
//     and the working files were not touched yet; the record goes;
//   - the branch is at it: each file holding its old blob is given its new
//     one; a file holding neither is a person's edit and is left for the
//     next change to adopt; then the index, and the record goes.
//
// A reader that cannot take the lock (a live change holds it) reads each
// file holding its old blob as its new one, so it never sees a torn set.
const intentName = disk.IntentFile

// intent and intentFile are the record's content (disk.Intent): hashes
// are plumbing.Hash's bytes.
type (
	intent     = disk.Intent
	intentFile = disk.FileIntent
)

func decodeIntent(b []byte) (*intent, bool) { return disk.DecodeIntent(b, plan.SessionFiles) }

func (w *workTree) intentPath() string { return filepath.Join(w.private, intentName) }

// readIntent returns the pending intent record, or nil.
func (w *workTree) readIntent() *intent {
	b, err := os.ReadFile(w.intentPath())
	if err != nil {
		return nil
	}
	in, ok := decodeIntent(b)
	if !ok {
		return nil
	}
	return in
}

// intentPending reports whether an intent record is pending.
func (w *workTree) intentPending() bool { return disk.IntentPending(w.intentPath()) }

// writeIntent records in, over the emptied record.
func (w *workTree) writeIntent(in *intent) error {
	_, err := w.recordIntent(in)
	return err
}

// recordIntent is writeIntent, returning what it wrote to, for intact to
// check.
func (w *workTree) recordIntent(in *intent) (fs.FileInfo, error) {
	if err := w.ensurePrivate(); err != nil {
		return nil, err
	}
	data := in.Encode()
	var fi fs.FileInfo
	err := w.privately(func(string) (err error) {
		if err = disk.Overwrite(w.intentPath(), data); err == nil {
			fi, err = os.Lstat(w.intentPath())
		}
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errRecordLost // .git/plangit keeps being removed
	}
	if err != nil {
		return nil, plan.WrapError(plan.CodeIOError, err, "cannot write %s", w.intentPath())
	}
	return fi, nil
}

// intact reports whether the record recordIntent wrote (fi) is still in
// its place, whole: a person may remove .git/plangit, record and all,
// while a change runs.
func (w *workTree) intact(fi fs.FileInfo) bool {
	now, err := os.Lstat(w.intentPath())
	return err == nil && os.SameFile(fi, now) && now.Size() == fi.Size()
}

// clearIntent empties the record: the change it names has landed, or
// never will. Something at its place that is no file is removed, if it
// can be.
func (w *workTree) clearIntent() error {
	path := w.intentPath()
	f, err := disk.OpenFile(path, os.O_WRONLY|disk.NonBlock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		if fi, serr := f.Stat(); serr == nil && fi.Mode().IsRegular() {
			err = f.Truncate(0)
			f.Close()
			if err == nil {
				return nil
			}
			return plan.WrapError(plan.CodeIOError, err, "cannot empty %s", path)
		}
		f.Close()
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return plan.WrapError(plan.CodeIOError, err, "cannot remove %s", path)
	}
	return nil
}

// settle completes or discards a change a killed process left unfinished,
// and removes its temporary files. It runs under the session lock.
func (w *workTree) settle() error {
	w.sweepTemps()
	if !w.intentPending() {
		return nil
	}
	in := w.readIntent()
	head, err := w.readRef()
	if in == nil || err != nil || head != in.Commit {
		w.clearIntent() // it never landed (or is no record at all)
		return nil
	}
	if _, err := w.land(in, nil); err != nil {
		return err
	}
	// The revision log and the step-id cache catch up on their own: both
	// are checked against the branch before use.
	return nil
}

// landing is what land found and did.
type landing struct {
	files map[string][]byte // the working files now
	// touched is true when a file held neither its old nor its new blob:
	// a person edited it while the change ran. It was left as it is.
	touched bool
}

// land brings the working files to in's new blobs, writes the index and
// removes the record. The branch is already at in.Commit. content holds
// the new files when the caller has them; otherwise they are read from the
// objects.
func (w *workTree) land(in *intent, content map[string][]byte) (*landing, error) {
	l := &landing{files: map[string][]byte{}}
	verified := map[string]bool{}
	var firstErr error
	for _, f := range in.Files {
		cur, exists, ours, err := w.landFile(in, f, content[f.Name])
		switch {
		case err != nil:
			firstErr = firstOf(firstErr, err)
			continue
		case ours:
			verified[f.Name] = true
		default:
			l.touched = true
		}
		if exists {
			l.files[f.Name] = cur
		}
	}
	if firstErr != nil {
		return l, firstErr // the record stays: the next command finishes
	}
	if err := w.writeIndex(in, verified); err != nil {
		return l, err
	}
	crashPoint("index")
	if err := w.clearIntent(); err != nil {
		return l, err
	}
	return l, nil
}

// landFile brings one working file to its new blob if it holds its old
// one, and returns what it holds after, whether it exists, and whether it
// holds the new blob (if not, a person edited it: it is left alone). The
// new file is written to a temporary file before the old one is checked,
// so that only an exchange separates the check from the replacement.
func (w *workTree) landFile(in *intent, f intentFile, b []byte) (cur []byte, exists, ours bool, err error) {
	if f.Old != f.New && !plumbing.Hash(f.New).IsZero() && b == nil {
		if b, err = w.store.ReadAs(plumbing.BlobObject, f.New); err != nil {
			return nil, false, false, plan.WrapError(plan.CodeIOError, err, "cannot read %s of revision %s", f.Name, short(in.Commit))
		}
	}
	for try := 0; ; try++ {
		cur, exists, ours, gone, err := w.landFileOnce(f, b)
		if !gone || try == 20 {
			return cur, exists, ours, err
		}
		// The temporary file went before the exchange: a person removed
		// .git/plangit. Write it again.
	}
}

// landFileOnce is one try of landFile; gone is true when the temporary
// file holding b vanished before it was put in place.
func (w *workTree) landFileOnce(f intentFile, b []byte) (cur []byte, exists, ours, gone bool, err error) {
	path := filepath.Join(w.dir, f.Name)
	tmp := ""
	if f.Old != f.New && !plumbing.Hash(f.New).IsZero() {
		if tmp, err = w.prepareFile(b, 0o644); err != nil {
			return nil, false, false, false, err
		}
		// After the exchange tmp holds the file displaced, or a person's
		// save put back: either way it goes, never written again.
		defer os.Remove(tmp)
	}
	cur, exists, err = readWorkingFile(path)
	if err != nil {
		return nil, false, false, false, err // unreadable or a link: not ours to replace
	}
	curHash := plumbing.ZeroHash
	if exists {
		curHash = plumbing.ComputeHash(plumbing.BlobObject, cur)
	}
	switch {
	case curHash == f.New:
		return cur, exists, true, false, nil
	case curHash != f.Old:
		return cur, exists, false, false, nil
	case plumbing.Hash(f.New).IsZero():
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, false, false, false, plan.WrapError(plan.CodeIOError, err, "cannot remove %s", f.Name)
		}
		return nil, false, true, false, nil
	}
	if w.landing != nil {
		w.landing("checked", path)
	}
	swapped, err := disk.SwapIn(tmp, path, exists)
	if !swapped {
		if _, lerr := os.Lstat(tmp); errors.Is(lerr, fs.ErrNotExist) {
			return nil, false, false, true, plan.WrapError(plan.CodeIOError, lerr, "cannot write %s", f.Name)
		}
	}
	if err != nil {
		return nil, false, false, false, plan.WrapError(plan.CodeIOError, err, "cannot write %s", f.Name)
	}
	if !swapped {
		cur, exists, _ = readWorkingFile(path)
		return cur, exists, false, false, nil
	}
	if w.landing != nil {
		w.landing("exchanged", path)
	}
	// tmp now holds what was replaced: if a person saved the file since
	// it was checked, their file goes back.
	if displaced, had, err := readWorkingFile(tmp); err == nil && had && plumbing.ComputeHash(plumbing.BlobObject, displaced) != f.Old {
		cur, exists := w.putBack(f, tmp, path, displaced, b)
		return cur, exists, exists && bytes.Equal(cur, b), false, nil
	}
	crashPoint("file")
	return b, true, true, false, nil
}

// putBack puts back at path the person's save that the exchange of tmp
// and path displaced, and returns what path holds then. Each exchange
// brings into tmp what stood at path, which is the file put there last
// unless the person saved again meanwhile: then the swap back took their
// later save, and it goes back in its turn, as the file they saved last.
// A save of theirs left in tmp, which goes, is never dropped silently: the
// lines it has that neither the file at path nor the revision before the
// change has are named in a warning.
func (w *workTree) putBack(f intentFile, tmp, path string, displaced, ours []byte) ([]byte, bool) {
	put, expect := displaced, ours
	for try := 0; try < 4; try++ {
		if disk.SwapBack(tmp, path) != nil {
			break
		}
		got, had, err := readWorkingFile(tmp)
		if err != nil || !had || bytes.Equal(got, expect) {
			break
		}
		put, expect = got, put
	}
	cur, exists, _ := readWorkingFile(path)
	if left, had, err := readWorkingFile(tmp); err == nil && had && !bytes.Equal(left, ours) && !bytes.Equal(left, cur) {
		old, _ := w.store.ReadAs(plumbing.BlobObject, plumbing.Hash(f.Old))
		if lines := linesMissing(left, old, cur); len(lines) > 0 {
			w.warnf("%s was saved twice while a change wrote it; the later save stays, and these lines of the earlier one are not in it: %s", f.Name, quoteLines(lines, 5))
		}
	}
	return cur, exists
}

// linesMissing are the lines of b that are in none of the others, blank
// ones aside, in b's order, each as often as b has it beyond them.
func linesMissing(b []byte, others ...[]byte) []string {
	have := map[string]int{}
	for _, o := range others {
		for line, n := range countLines(withNewline(o)) {
			have[line] += n
		}
	}
	var out []string
	for line := range bytes.Lines(withNewline(b)) {
		if have[string(line)] > 0 {
			have[string(line)]--
		} else if text := strings.TrimSuffix(string(line), "\n"); strings.TrimSpace(text) != "" {
			out = append(out, text)
		}
	}
	return out
}

// withNewline is b ending in a newline, so that its last line counts as
// the same line elsewhere.
func withNewline(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] == '\n' {
		return b
	}
	return append(b[:len(b):len(b)], '\n')
}

// quoteLines quotes at most n lines, and says how many more there are.
func quoteLines(lines []string, n int) string {
	var b strings.Builder
	for i, l := range lines {
		if i == n {
			fmt.Fprintf(&b, " and %d more", len(lines)-n)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", l)
	}
	return b.String()
}

func firstOf(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// readWorkingFile reads a working file, never through a symbolic link.
// have is false when it does not exist.
func readWorkingFile(path string) (data []byte, have bool, err error) {
	f, err := disk.OpenFile(path, os.O_RDONLY|disk.NonBlock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		if disk.IsLinkErr(err) {
			return nil, false, plan.Errorf(plan.CodeIOError, "%s is a symbolic link; plangit never follows one in a session (plangit repair moves it aside)", path)
		}
		return nil, false, plan.WrapError(plan.CodeIOError, err, "cannot read %s", filepath.Base(path))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, plan.WrapError(plan.CodeIOError, err, "cannot read %s", filepath.Base(path))
	}
	if !fi.Mode().IsRegular() {
		return nil, false, plan.Errorf(plan.CodeIOError, "%s is not a regular file; plangit repair moves it aside", path)
	}
	data = make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, true, nil
		}
		if err != nil {
			return nil, false, plan.WrapError(plan.CodeIOError, err, "cannot read %s", filepath.Base(path))
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// asCommitted is what a reader makes of the working files while an intent
// record is pending, from the record and the branch as m read them around
// the files: if the branch was at the record's commit, each file still
// holding its old blob reads as its new one.
func (w *workTree) asCommitted(files map[string][]byte, m landingMark) {
	in, ok := decodeIntent([]byte(m.intent))
	if !ok {
		return
	}
	head := strings.TrimSpace(m.ref)
	if head == "" { // the ref is packed
		h, err := w.readRef()
		if err != nil {
			return
		}
		head = h.String()
	}
	if head != plumbing.Hash(in.Commit).String() {
		return
	}
	for _, f := range in.Files {
		b, have := files[f.Name]
		cur := plumbing.ZeroHash
		if have {
			cur = plumbing.ComputeHash(plumbing.BlobObject, b)
		}
		if cur != f.Old || cur == f.New {
			continue
		}
		if plumbing.Hash(f.New).IsZero() {
			delete(files, f.Name)
		} else if nb, err := w.store.ReadAs(plumbing.BlobObject, f.New); err == nil {
			files[f.Name] = nb
		}
	}
}

// countLines counts each line of a text.
func countLines(b []byte) map[string]int {
	count := map[string]int{}
	for line := range bytes.Lines(b) {
		count[string(line)]++
	}
	return count
}
