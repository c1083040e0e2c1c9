package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusals: an archive that differs from its checksum, an archive
// missing, or one without a program is refused, and DIST/npm stays as it
// was. (TestNPM, at the repository's root, packs and installs what a
// good release makes.)
func TestRefusals(t *testing.T) {
	archive := func(files ...string) []byte {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, f := range files {
			tw.WriteHeader(&tar.Header{Name: f, Mode: 0o755, Size: 2, Typeflag: tar.TypeReg})
			tw.Write([]byte("x\n"))
		}
		tw.Close()
		gz.Close()
		return buf.Bytes()
	}
	whole := archive("plangit", "plangit-hook", "plangit-mcp", "LICENSE", "README.md")
	const name = "plangit_0.1.0_linux_amd64.tar.gz"
	for _, c := range []struct {
		name, checksums, want string
		data                  []byte
		args                  []string
	}{
		{"tampered", strings.Repeat("0", 64) + "  " + name + "\n", "does not match its sha256 in checksums.txt", whole, []string{"-platforms", "linux-x64"}},
		{"unlisted", strings.Repeat("0", 64) + "  other.tar.gz\n", "is not in checksums.txt", whole, []string{"-platforms", "linux-x64"}},
		{"missing archive", "", "the archive for linux-arm64", whole, nil},
		{"missing program", "", "holds no plangit-mcp at its root", archive("plangit", "plangit-hook", "LICENSE"), []string{"-platforms", "linux-x64"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dist := t.TempDir()
			os.WriteFile(filepath.Join(dist, name), c.data, 0o644)
			if c.checksums != "" {
				os.WriteFile(filepath.Join(dist, "checksums.txt"), []byte(c.checksums), 0o644)
			}
			os.MkdirAll(filepath.Join(dist, "npm"), 0o755)
			os.WriteFile(filepath.Join(dist, "npm", "earlier.tgz"), []byte("earlier"), 0o644)
			args := append([]string{"-version", "0.1.0"}, c.args...)
			err := run(append(args, dist))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("run: %v, want an error saying %q", err, c.want)
			}
			entries, _ := os.ReadDir(dist)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if b, _ := os.ReadFile(filepath.Join(dist, "npm", "earlier.tgz")); string(b) != "earlier" || len(names) != len(strings.Fields(name+" npm "+map[bool]string{true: "checksums.txt"}[c.checksums != ""])) {
				t.Errorf("a refused run changed DIST: %v", names)
			}
		})
	}
	if err := run([]string{"-version", "1.2", t.TempDir()}); err == nil || !strings.Contains(err.Error(), "not a version npm accepts") {
		t.Errorf("version 1.2: %v", err)
	}
}
