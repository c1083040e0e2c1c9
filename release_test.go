package main

// The release: what .ci/release --snapshot writes into dist/ — the
// archives, checksums.txt and the Gemini CLI extension archives — checked
// file by file; the version the programs carry; that two builds of one
// commit are the same bytes; and install.sh installing from it over HTTP.
//
// The release build takes minutes, so these run in the long suites
// (PLANGIT_LONG=1), which build it once (.ci/release --snapshot, into
// dist/); PLANGIT_DIST names a dist/ already built instead, so that
// .ci/run builds it once for every test that reads it.

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// releasePlatforms are the platforms the release builds for.
var releasePlatforms = []struct{ goos, goarch string }{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

var (
	releaseOnce sync.Once
	releaseDir  string
	releaseErr  error
)

// releaseDist is the dist/ of a release build: PLANGIT_DIST's, else, in
// the long suites, one .ci/release --snapshot builds (once, for every test
// of the run). Without either the test is skipped.
func releaseDist(t *testing.T) string {
	t.Helper()
	if os.Getenv("PLANGIT_DIST") == "" && !repotest.Long() {
		t.Skip("the release build runs in the long suites (PLANGIT_LONG=1) or reads PLANGIT_DIST")
	}
	releaseOnce.Do(func() {
		if dir := os.Getenv("PLANGIT_DIST"); dir != "" {
			releaseDir, releaseErr = filepath.Abs(dir)
			return
		}
		c := exec.Command("bash", ".ci/release", "--snapshot")
		if out, err := c.CombinedOutput(); err != nil {
			releaseErr = &releaseError{err, out}
			return
		}
		releaseDir, releaseErr = filepath.Abs("dist")
	})
	if releaseErr != nil {
		t.Fatal(releaseErr)
	}
	return releaseDir
}

type releaseError struct {
	err error
	out []byte
}

func (e *releaseError) Error() string {
	return ".ci/release --snapshot: " + e.err.Error() + "\n" + string(e.out)
}

// releaseVersion is the file VERSION's version.
func releaseVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("VERSION")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// archiveFile is one file of an archive.
type archiveFile struct {
	mode fs.FileMode
	body []byte
}

// readArchive reads a .tar.gz or .zip whole.
func readArchive(t *testing.T, path string) map[string]archiveFile {
	t.Helper()
	files := map[string]archiveFile{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			if f.FileInfo().IsDir() {
				continue
			}
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(r)
			r.Close()
			if err != nil {
				t.Fatalf("%s: %s: %v", path, f.Name, err)
			}
			files[f.Name] = archiveFile{f.Mode(), body}
		}
		return files
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h.Typeflag == tar.TypeDir {
			continue
		}
		if h.Typeflag != tar.TypeReg {
			t.Errorf("%s: %s is not a regular file (type %c)", path, h.Name, h.Typeflag)
			continue
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("%s: %s: %v", path, h.Name, err)
		}
		files[h.Name] = archiveFile{fs.FileMode(h.Mode).Perm(), body}
	}
	return files
}

// checkProgram checks that body is an executable for goos/goarch.
func checkProgram(t *testing.T, where string, body []byte, goos, goarch string) {
	t.Helper()
	r := bytes.NewReader(body)
	var got string
	switch goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			t.Errorf("%s: not an ELF file: %v", where, err)
			return
		}
		got = map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64"}[f.Machine]
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			t.Errorf("%s: not a Mach-O file: %v", where, err)
			return
		}
		got = map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}[f.Cpu]
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			t.Errorf("%s: not a PE file: %v", where, err)
			return
		}
		got = map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64"}[f.Machine]
	}
	if got != goarch {
		t.Errorf("%s: a program for %q, want %s", where, got, goarch)
	}
}

// geminiName is the Gemini CLI extension archive's name for a platform:
// Node's names for the system and processor.
func geminiName(goos, goarch string) string {
	os := map[string]string{"windows": "win32"}[goos]
	if os == "" {
		os = goos
	}
	arch := map[string]string{"amd64": "x64"}[goarch]
	if arch == "" {
		arch = goarch
	}
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return os + "." + arch + ".plangit" + ext
}

// TestReleaseArchives: dist/ holds, for each platform, the archive
// plangit_<VERSION>_<os>_<arch>.tar.gz (.zip on Windows) with exactly
// plangit, plangit-hook and plangit-mcp (.exe on Windows; executables for
// that platform, mode 0755 in a tar) and this tree's LICENSE and README.md
// at its root; and the Gemini CLI extension archive
// <platform>.<arch>.plangit.tar.gz (.zip for win32) with exactly the files
// of plugin/gemini at its root, the skill as skills/plangit/SKILL.md and
// the same three programs in bin/.
func TestReleaseArchives(t *testing.T) {
	dist := releaseDist(t)
	version := releaseVersion(t)
	same := func(where, name string, got []byte) {
		t.Helper()
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s", where, name)
		}
	}
	// The extension's files: plugin/gemini as the tree has it.
	gemini := map[string]string{"skills/plangit/SKILL.md": "hooks/skill/SKILL.md"}
	filepath.WalkDir(filepath.Join("plugin", "gemini"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(filepath.Join("plugin", "gemini"), p)
			gemini[filepath.ToSlash(rel)] = p
		}
		return nil
	})
	if gemini["gemini-extension.json"] == "" {
		t.Errorf("plugin/gemini/gemini-extension.json is missing: the extension archives need it")
	}

	for _, p := range releasePlatforms {
		exe := ""
		ext := ".tar.gz"
		if p.goos == "windows" {
			exe, ext = ".exe", ".zip"
		}
		name := "plangit_" + version + "_" + p.goos + "_" + p.goarch + ext
		files := readArchive(t, filepath.Join(dist, name))
		want := []string{"LICENSE", "README.md"}
		for _, prog := range installPrograms {
			want = append(want, prog+exe)
		}
		if got := slices.Sorted(maps.Keys(files)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("%s holds %q, want %q", name, got, want)
		}
		same(name+": LICENSE", "LICENSE", files["LICENSE"].body)
		same(name+": README.md", "README.md", files["README.md"].body)
		for _, prog := range installPrograms {
			f := files[prog+exe]
			checkProgram(t, name+": "+prog+exe, f.body, p.goos, p.goarch)
			if ext == ".tar.gz" && f.mode != 0o755 {
				t.Errorf("%s: %s has mode %v, want 0755", name, prog, f.mode)
			}
		}

		gname := geminiName(p.goos, p.goarch)
		gfiles := readArchive(t, filepath.Join(dist, gname))
		var gwant []string
		for dst := range gemini {
			gwant = append(gwant, dst)
		}
		for _, prog := range installPrograms {
			gwant = append(gwant, "bin/"+prog+exe)
		}
		if got := slices.Sorted(maps.Keys(gfiles)); !slices.Equal(got, slices.Sorted(slices.Values(gwant))) {
			t.Errorf("%s holds %q, want %q", gname, got, gwant)
		}
		for dst, src := range gemini {
			same(gname+": "+dst, src, gfiles[dst].body)
		}
		for _, prog := range installPrograms {
			if !bytes.Equal(gfiles["bin/"+prog+exe].body, files[prog+exe].body) {
				t.Errorf("%s: bin/%s is not %s's %s", gname, prog+exe, name, prog+exe)
			}
		}
	}
}

// TestReleaseChecksums: checksums.txt has one "<sha256>  <file>" line for
// every archive in dist/ — and for nothing else — each the archive's own.
func TestReleaseChecksums(t *testing.T) {
	dist := releaseDist(t)
	b, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^([0-9a-f]{64})  (\S+)$`)
	listed := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Errorf("checksums.txt: %q is not a \"<sha256>  <file>\" line", sc.Text())
			continue
		}
		listed[m[2]] = m[1]
	}
	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	var archives []string
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && (strings.HasSuffix(n, ".tar.gz") || strings.HasSuffix(n, ".zip")) {
			archives = append(archives, n)
		}
	}
	if want := 2 * len(releasePlatforms); len(archives) != want {
		t.Errorf("dist/ holds %d archives, want %d: %q", len(archives), want, archives)
	}
	if got := slices.Sorted(maps.Keys(listed)); !slices.Equal(got, archives) {
		t.Errorf("checksums.txt lists %q, dist/ holds %q", got, archives)
	}
	for _, a := range archives {
		body, err := os.ReadFile(filepath.Join(dist, a))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(body)
		if got := hex.EncodeToString(sum[:]); listed[a] != "" && listed[a] != got {
			t.Errorf("%s: sha256 %s, checksums.txt says %s", a, got, listed[a])
		}
	}
}

// extractProgram writes the program name of this machine's release
// archive into a new directory and returns its path.
func extractProgram(t *testing.T, dist, name string) string {
	t.Helper()
	goos, goarch := installPlatform(t)
	archive := "plangit_" + releaseVersion(t) + "_" + goos + "_" + goarch + ".tar.gz"
	f, ok := readArchive(t, filepath.Join(dist, archive))[name]
	if !ok {
		t.Fatalf("%s holds no %s", archive, name)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, f.body, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// headCommit is the commit the work tree is at, or "" without git.
func headCommit(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// TestReleaseVersion: the plangit of this machine's archive prints the
// version of the file VERSION, then the commit it was built from, never
// (devel) nor another version; --json gives both.
func TestReleaseVersion(t *testing.T) {
	dist := releaseDist(t)
	version := releaseVersion(t)
	plangit := extractProgram(t, dist, "plangit")
	out, err := exec.Command(plangit, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("plangit version: %v\n%s", err, out)
	}
	re := regexp.MustCompile(`^plangit ` + regexp.QuoteMeta(version) + ` \(([0-9a-f]{12})(, modified)?\) go1\.\S+ ` + runtime.GOOS + `/` + runtime.GOARCH + "\n$")
	m := re.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("plangit version printed %q, want plangit %s (<commit>) go… %s/%s", out, version, runtime.GOOS, runtime.GOARCH)
	}
	out, err = exec.Command(plangit, "version", "--json").Output()
	if err != nil {
		t.Fatalf("plangit version --json: %v\n%s", err, out)
	}
	var v struct {
		Data struct{ Version, Commit string }
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("plangit version --json: %v\n%s", err, out)
	}
	if v.Data.Version != version || !strings.HasPrefix(v.Data.Commit, m[1]) || len(v.Data.Commit) != 40 {
		t.Errorf("plangit version --json: version %q, commit %q; want %q and the commit %s…", v.Data.Version, v.Data.Commit, version, m[1])
	}
	if head := headCommit(t); head != "" && v.Data.Commit != head {
		t.Errorf("the snapshot says commit %s, the work tree is at %s", v.Data.Commit, head)
	}
}

// TestReleaseInstall: install.sh, run by dash against dist/ served on
// 127.0.0.1, installs the programs of this machine's archive into an empty
// directory, and the installed plangit prints VERSION; the same archive
// with one byte changed, checksums.txt as it was, is refused with nothing
// installed.
func TestReleaseInstall(t *testing.T) {
	dist := releaseDist(t)
	version := releaseVersion(t)
	goos, goarch := installPlatform(t)
	tools := installTools(t, installFetcher(t))

	r := runInstall(t, tools, "PLANGIT_INSTALL_BASE="+serve(t, dist))
	if r.err != nil {
		t.Fatalf("install.sh: %v\n%s", r.err, r.out)
	}
	if got := r.installed(t); !slices.Equal(got, installPrograms) {
		t.Errorf("installed %q, want %q", got, installPrograms)
	}
	out, err := exec.Command(filepath.Join(r.dir, "plangit"), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "plangit "+version+" (") {
		t.Errorf("the installed plangit version: %v, %q; want plangit %s (<commit>) …", err, out, version)
	}
	if !strings.Contains(r.out, "installed plangit "+version+" ") || !strings.Contains(r.out, string(out)) {
		t.Errorf("install.sh did not say it installed %s and what plangit version prints:\n%s", version, r.out)
	}

	tampered := t.TempDir()
	archive := "plangit_" + version + "_" + goos + "_" + goarch + ".tar.gz"
	for _, name := range []string{"checksums.txt", archive} {
		b, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == archive {
			b[len(b)/2] ^= 0x20
		}
		if err := os.WriteFile(filepath.Join(tampered, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runInstall(t, tools, "PLANGIT_INSTALL_BASE="+serve(t, tampered)).refused(t, archive+" does not match checksums.txt")
}

// TestReleaseReproducible: two snapshot builds of one commit, each from a
// clone of its own at another path, give byte-identical programs. To stay
// fast it builds the programs for linux/amd64 only (GoReleaser's build
// --single-target), with the configuration and the GoReleaser that
// .ci/release uses, sharing the go command's build cache.
func TestReleaseReproducible(t *testing.T) {
	if !repotest.Long() {
		t.Skip("the release build runs in the long suites (PLANGIT_LONG=1)")
	}
	script, err := os.ReadFile(filepath.Join(".ci", "release"))
	if err != nil {
		t.Fatal(err)
	}
	pin := regexp.MustCompile(`github\.com/goreleaser/goreleaser/v2@v[0-9.]+`).Find(script)
	if pin == nil {
		t.Fatal(".ci/release names no github.com/goreleaser/goreleaser/v2@<version>")
	}
	version := releaseVersion(t)
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	build := func(dir string) map[string]string {
		t.Helper()
		if out, err := exec.Command("git", "clone", "-q", root, dir).CombinedOutput(); err != nil {
			t.Fatalf("git clone: %v\n%s", err, out)
		}
		c := exec.Command("go", "run", string(pin), "build", "--snapshot", "--clean", "--single-target")
		c.Dir = dir
		c.Env = append(os.Environ(), "GOOS=linux", "GOARCH=amd64", "GORELEASER_CURRENT_TAG=v"+version)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("goreleaser build: %v\n%s", err, out)
		}
		sums := map[string]string{}
		filepath.WalkDir(filepath.Join(dir, "dist"), func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && filepath.Base(filepath.Dir(p)) == "bin" {
				b, _ := os.ReadFile(p)
				sum := sha256.Sum256(b)
				rel, _ := filepath.Rel(dir, p)
				sums[rel] = hex.EncodeToString(sum[:])
			}
			return nil
		})
		return sums
	}
	base := t.TempDir()
	one := build(filepath.Join(base, "one"))
	two := build(filepath.Join(base, "second", "clone"))
	if len(one) != len(installPrograms) {
		t.Fatalf("the build made %d programs, want %d: %v", len(one), len(installPrograms), one)
	}
	for name, sum := range one {
		if two[name] != sum {
			t.Errorf("%s: sha256 %s in one build, %s in the other", name, sum, two[name])
		}
	}
}

// TestReleaseStampsVersion: the -X flags .goreleaser.yaml links the
// programs with name variables plangit version prints — the version, the
// commit, a modified tree — so that a rename of one fails here, in go test
// ./..., rather than in a release that prints (devel). It builds plangit
// with those flags, the templates given values, and runs plangit version.
func TestReleaseStampsVersion(t *testing.T) {
	t.Parallel()
	config, err := os.ReadFile(".goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{
		"{{ .Version }}":                        "9.8.7-rc.1",
		"{{ .FullCommit }}":                     "0123456789abcdef0123456789abcdef01234567",
		"{{ if .IsGitDirty }}modified{{ end }}": "modified",
	}
	var ldflags []string
	for _, m := range regexp.MustCompile(`(?m)^\s*- -X (\S+)=(.+)$`).FindAllStringSubmatch(string(config), -1) {
		v, ok := values[m[2]]
		if !ok {
			t.Fatalf(".goreleaser.yaml stamps %s with %q, which this test gives no value", m[1], m[2])
		}
		ldflags = append(ldflags, "-X", m[1]+"="+v)
	}
	if len(ldflags) != 2*len(values) {
		t.Fatalf(".goreleaser.yaml stamps %q, want the version, the commit and a modified tree", ldflags)
	}
	bin := filepath.Join(t.TempDir(), "plangit")
	if out, err := exec.Command("go", "build", "-ldflags", strings.Join(ldflags, " "), "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	want := "plangit 9.8.7-rc.1 (0123456789ab, modified) "
	if err != nil || !strings.HasPrefix(string(out), want) {
		t.Errorf("plangit version: %v, %q; want %q…", err, out, want)
	}
}
