//go:build unix

package disk

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteDocumentKeepsAFilesMode: a report written over one a person
// made private stays private, and its content is the new one.
func TestWriteDocumentKeepsAFilesMode(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteDocument(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" || fi.Mode().Perm() != 0o600 {
		t.Errorf("the report holds %q with mode %o, want %q with 0600", b, fi.Mode().Perm(), "new")
	}
}
