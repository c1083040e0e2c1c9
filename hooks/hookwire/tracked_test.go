package hookwire

import (
	"path/filepath"
	"testing"
)

// TestTrackedRecord: a record reads back as written, a path with a tab
// included; a record that is not one line of six fields, or names a path
// that is relative, not clean or holds a line break, does not read.
func TestTrackedRecord(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "specs", "a\tb", "tasks.md")
	want := Tracked{Path: path, Format: "spec-kit", Size: 812, MTime: 1795687200000000000, Sum: "ab12"}
	if got, ok := DecodeTracked(want.Encode()); !ok || got != want {
		t.Errorf("round trip: %+v, %v", got, ok)
	}
	for _, bad := range []string{"", "v1\tspec-kit\t1\t2\tab\n", "v2\tspec-kit\t1\t2\tab\t" + path + "\n",
		"v1\tspec-kit\t1\t2\tab\tspecs/tasks.md\n", "v1\tspec-kit\t1\t2\tab\t" + path + "/../x.md\n",
		"v1\tspec-kit\tone\t2\tab\t" + path + "\n", "v1\tspec-kit\t1\t2\tab\t" + path + "\nmore\n", "v1\tspec-kit\t1\t2\tab\t" + path} {
		if got, ok := DecodeTracked([]byte(bad)); ok {
			t.Errorf("%q reads as %+v", bad, got)
		}
	}
	if TrackablePath(path+"\nx") || TrackablePath("tasks.md") || !TrackablePath(path) {
		t.Error("TrackablePath")
	}
	dir := filepath.Join(t.TempDir(), "specs")
	tr := Tracked{Path: filepath.Join(dir, "tasks.md")}
	for _, c := range []struct {
		tool, input string
		want        bool
	}{
		{"Edit", `{"file_path":"tasks.md"}`, true},
		{"MultiEdit", `{"FILE_PATH":"./tasks.md"}`, true},
		{"Read", `{"file_path":"tasks.md"}`, false},
		{"Edit", `{"file_path":"other.md"}`, false},
		{"Write", `{}`, false},
	} {
		if got := tr.Writes(c.tool, []byte(c.input), dir); got != c.want {
			t.Errorf("%s %s: Writes %v", c.tool, c.input, got)
		}
	}
}
