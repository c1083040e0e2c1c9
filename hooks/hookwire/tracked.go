package hookwire

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/plangit/plangit/repo/disk"
)

// TrackedFile, in a session's .git/plangit/, names the tasks file the
// session tracks — the spec-kit or OpenSpec tasks.md plangit import last
// brought into its plan — and how that file stood when plangit last read
// it. The hooks apply the file again when the agent's edit tool writes it,
// and at a stop when it changed since (Tracked.Moved); the hook binary
// hands those events to plangit. One line:
//
//	v1 TAB format TAB size TAB mtime-ns TAB sha256 TAB path
//
// the path absolute and clean, last, so that it may hold a tab; no path
// with a line break or a NUL is recorded.
const TrackedFile = "tracked"

// Tracked is the tasks file a session tracks (TrackedFile).
type Tracked struct {
	Path   string // absolute and clean
	Format string // the format it was imported as (spec-kit, openspec)
	Size   int64  // its size as last read
	MTime  int64  // its modification time as last read, in nanoseconds
	Sum    string // the SHA-256 of its content as last read, in hex
}

// TrackablePath reports whether path can be recorded: absolute, clean,
// and free of line breaks and NULs.
func TrackablePath(path string) bool {
	return filepath.IsAbs(path) && filepath.Clean(path) == path && !strings.ContainsAny(path, "\n\r\x00")
}

// Encode is the record's line.
func (t Tracked) Encode() []byte {
	return []byte("v1\t" + t.Format + "\t" + strconv.FormatInt(t.Size, 10) + "\t" + strconv.FormatInt(t.MTime, 10) + "\t" + t.Sum + "\t" + t.Path + "\n")
}

// ReadTracked reads the record at path; ok is false when there is none,
// or it does not read as one.
func ReadTracked(path string) (t Tracked, ok bool) {
	b, err := disk.ReadFile(path)
	if err != nil || len(b) > 1<<16 {
		return t, false
	}
	return DecodeTracked(b)
}

// DecodeTracked reads a record's line (Encode).
func DecodeTracked(b []byte) (t Tracked, ok bool) {
	line, rest, found := strings.Cut(string(b), "\n")
	if !found || rest != "" {
		return t, false
	}
	f := strings.SplitN(line, "\t", 6)
	if len(f) != 6 || f[0] != "v1" || f[1] == "" || strings.ContainsAny(f[1], " \t") {
		return t, false
	}
	var err1, err2 error
	t = Tracked{Format: f[1], Sum: f[4], Path: f[5]}
	t.Size, err1 = strconv.ParseInt(f[2], 10, 64)
	t.MTime, err2 = strconv.ParseInt(f[3], 10, 64)
	if err1 != nil || err2 != nil || !TrackablePath(t.Path) {
		return Tracked{}, false
	}
	return t, true
}

// Moved reports whether the file no longer stands as the record last saw
// it: its size or its modification time differ. A file that cannot be
// looked at now (removed, say) has not moved: there is nothing to apply.
func (t Tracked) Moved() bool {
	fi, err := os.Stat(t.Path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return fi.Size() != t.Size || fi.ModTime().UnixNano() != t.MTime
}

// EditTool reports whether an engine's tool writes the one file its
// file_path names: Write, Edit, MultiEdit, NotebookEdit (the other hosts'
// edit tools read as these; CodexTool, GeminiTool, CopilotTool,
// CursorTool).
func EditTool(tool string) bool {
	return tool == "Write" || tool == "Edit" || tool == "MultiEdit" || tool == "NotebookEdit"
}

// Writes reports whether a tool call of an edit tool (EditTool) writes
// the tracked file: its input's file_path (in any case), a relative one
// taken from cwd, is the record's path.
func (t Tracked) Writes(tool string, input []byte, cwd string) bool {
	if !EditTool(tool) || t.Path == "" {
		return false
	}
	path := FilePath(input)
	if path == "" {
		return false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	return filepath.Clean(path) == t.Path
}

// FilePath is the file_path member of a tool's input (in any case, the
// last of a repeated name, as encoding/json reads it); "" for none.
func FilePath(input []byte) string {
	var path string
	members(input, func(key, value []byte) error {
		if strings.EqualFold(string(memberName(key)), "file_path") {
			path, _ = String(value)
		}
		return nil
	})
	return path
}
