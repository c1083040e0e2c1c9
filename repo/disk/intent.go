package disk

import (
	"encoding/hex"
	"errors"
	"io/fs"
	"slices"
	"strings"
)

// The intent record, IntentFile in a session's PrivateDir, is how plangit
// tells its own interrupted write from a person's edit: a change writes it
// after its objects and before it moves the branch, naming the new commit
// and, for each working file, the blob it held and the blob it is to hold;
// once the working files are brought to the new tree it is emptied (package
// repo tells the whole protocol). It is written in place (Overwrite) and a
// record cut short by a kill never ends in its "end" line.

// Hash is a git object's name.
type Hash = [20]byte

// Intent is a change that may not have landed: the commit it makes, and
// what it does to each working file.
type Intent struct {
	Commit Hash
	Files  []FileIntent
}

// FileIntent is one working file's blobs before and after; the zero hash
// means the file is absent.
type FileIntent struct {
	Name     string
	Old, New Hash
}

const intentHeader = "plangit intent 1"

// Encode is the record's text.
func (in *Intent) Encode() []byte {
	var b strings.Builder
	b.WriteString(intentHeader + "\ncommit " + hex.EncodeToString(in.Commit[:]) + "\n")
	for _, f := range in.Files {
		b.WriteString("file " + f.Name + " " + blobName(f.Old) + " " + blobName(f.New) + "\n")
	}
	b.WriteString("end\n")
	return []byte(b.String())
}

func blobName(h Hash) string {
	if h == (Hash{}) {
		return "-"
	}
	return hex.EncodeToString(h[:])
}

func parseHash(s string) (h Hash, ok bool) {
	if len(s) != 2*len(h) {
		return h, false
	}
	_, err := hex.Decode(h[:], []byte(s))
	return h, err == nil
}

func parseBlobName(s string) (Hash, bool) {
	if s == "-" {
		return Hash{}, true
	}
	return parseHash(s)
}

// DecodeIntent reads a whole record whose files are among names; ok is
// false for anything else (an empty record, one cut short, a stranger's
// text).
func DecodeIntent(b []byte, names []string) (in *Intent, ok bool) {
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 || lines[0] != intentHeader || lines[len(lines)-2] != "end" || lines[len(lines)-1] != "" {
		return nil, false
	}
	c, ok := strings.CutPrefix(lines[1], "commit ")
	commit, ok2 := parseHash(c)
	if !ok || !ok2 {
		return nil, false
	}
	in = &Intent{Commit: commit}
	for _, l := range lines[2 : len(lines)-2] {
		f := strings.Fields(l)
		if len(f) != 4 || f[0] != "file" || !slices.Contains(names, f[1]) {
			return nil, false
		}
		old, ok1 := parseBlobName(f[2])
		neu, ok2 := parseBlobName(f[3])
		if !ok1 || !ok2 {
			return nil, false
		}
		in.Files = append(in.Files, FileIntent{Name: f[1], Old: old, New: neu})
	}
	return in, true
}

// IntentPending reports whether the intent record at path is pending: a
// change that may not have landed. plangit empties the record when its
// change lands, so a file with anything in it is pending — as is anything
// at its place that is no regular file, which plangit must look at.
func IntentPending(path string) bool {
	fi, err := Lstat(path)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist) // cannot tell: look
	}
	return fi.Size > 0 || !fi.Regular
}
