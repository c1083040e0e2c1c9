package main

// The npm packages (.ci/npm), installed by the real npm with no registry
// reachable: PLANGIT_DIST names a release's dist/ (.ci/release
// --snapshot); without it the test builds one for this machine's platform
// alone, from this tree, in the layout the release writes.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// npmPrograms are the programs each archive and npm package carry.
var npmPrograms = []string{"plangit", "plangit-hook", "plangit-mcp"}

// npmPlatforms are npm's names of the platforms plangit ships for, each
// with Go's.
var npmPlatforms = map[string]string{
	"linux-x64": "linux/amd64", "linux-arm64": "linux/arm64",
	"darwin-x64": "darwin/amd64", "darwin-arm64": "darwin/arm64",
	"win32-x64": "windows/amd64", "win32-arm64": "windows/arm64",
}

// npmKey is this machine's platform as npm names it.
func npmKey() string {
	for k, g := range npmPlatforms {
		if g == runtime.GOOS+"/"+runtime.GOARCH {
			return k
		}
	}
	return ""
}

func npmExe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// npmVersion is the file VERSION's version.
func npmVersion(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("VERSION")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// npmRelease is a release's dist/ and the programs of this machine's
// archive, unpacked into a directory of their own: PLANGIT_DIST's, or one
// built here for this machine's platform. full says it is a whole release.
type npmRelease struct {
	dist, programs string
	full           bool
}

// npmRequire fails or skips the test where npm or node is missing.
func npmRequire(t testing.TB) {
	t.Helper()
	repotest.RequireTool(t, "npm")
	repotest.RequireTool(t, "node")
	if npmKey() == "" {
		t.Fatalf("plangit ships no npm package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
}

// newNPMRelease returns PLANGIT_DIST's release, or builds a small one in
// work: this platform's archive, its three programs built as the release
// builds them (stamped with VERSION where this tree takes the stamp), with
// LICENSE and README.md, and checksums.txt.
func newNPMRelease(t testing.TB, work string) npmRelease {
	t.Helper()
	version := npmVersion(t)
	goos, goarch := runtime.GOOS, runtime.GOARCH
	archive := fmt.Sprintf("plangit_%s_%s_%s.tar.gz", version, goos, goarch)
	if goos == "windows" {
		t.Fatal("the npm tests unpack tar.gz archives: they run where npm installs native programs, not on Windows")
	}
	r := npmRelease{dist: os.Getenv("PLANGIT_DIST"), programs: filepath.Join(work, "programs"), full: true}
	if err := os.MkdirAll(r.programs, 0o755); err != nil {
		t.Fatal(err)
	}
	if r.dist == "" {
		r.full = false
		r.dist = filepath.Join(work, "dist")
		os.MkdirAll(r.dist, 0o755)
		for _, p := range npmPrograms {
			pkg := "./cmd/" + p
			if p == "plangit" {
				pkg = "."
			}
			build := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -X github.com/plangit/plangit/cmd.stampedVersion="+version, "-o", filepath.Join(r.programs, p), pkg)
			build.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build %s: %v\n%s", pkg, err, out)
			}
		}
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, f := range append(append([]string{}, npmPrograms...), "LICENSE", "README.md") {
			src := filepath.Join(r.programs, f)
			mode := int64(0o755)
			if f == "LICENSE" || f == "README.md" {
				src, mode = f, 0o644
			}
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			tw.WriteHeader(&tar.Header{Name: f, Mode: mode, Size: int64(len(b)), Typeflag: tar.TypeReg})
			tw.Write(b)
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		gz.Close()
		sum := sha256.Sum256(buf.Bytes())
		os.WriteFile(filepath.Join(r.dist, archive), buf.Bytes(), 0o644)
		os.WriteFile(filepath.Join(r.dist, "checksums.txt"), []byte(hex.EncodeToString(sum[:])+"  "+archive+"\n"), 0o644)
		return r
	}
	f, err := os.Open(filepath.Join(r.dist, archive))
	if err != nil {
		t.Fatalf("PLANGIT_DIST: %v", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(r.programs, filepath.Base(h.Name)), b, 0o755)
	}
	return r
}

// pack runs .ci/npm on a copy of the release's dist/ (links to its
// archives and checksums.txt) in work and returns the copy's npm/.
func (r npmRelease) pack(t testing.TB, work string) string {
	t.Helper()
	dist := filepath.Join(work, "npmdist")
	os.MkdirAll(dist, 0o755)
	entries, err := os.ReadDir(r.dist)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, "plangit_") || n == "checksums.txt" {
			abs, _ := filepath.Abs(filepath.Join(r.dist, n))
			if err := os.Symlink(abs, filepath.Join(dist, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	args := []string{dist}
	if !r.full {
		args = []string{"-platforms", npmKey(), dist}
	}
	cmd := exec.Command(filepath.Join(".ci", "npm"), args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf(".ci/npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return filepath.Join(dist, "npm")
}

// npmEnv is the environment npm runs in: its own HOME and cache, no
// registry it can reach (127.0.0.1:9, offline), none of the caller's npm
// settings.
func npmEnv(work string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(strings.ToLower(k), "npm_config_") && k != "HOME" {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+filepath.Join(work, "home"), "npm_config_cache="+filepath.Join(work, "npm-cache"),
		"npm_config_registry=http://127.0.0.1:9/", "npm_config_offline=true", "npm_config_audit=false",
		"npm_config_fund=false", "npm_config_update_notifier=false", "npm_config_userconfig="+filepath.Join(work, "npmrc"))
}

// npmRun runs an npm command (npm or npx) in dir and returns its output.
func npmRun(t testing.TB, env []string, dir, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// npmTarballs are the main package's tarball and this platform's.
func npmTarballs(npmDir, version string) []string {
	return []string{filepath.Join(npmDir, "plangit-"+version+".tgz"), filepath.Join(npmDir, "plangit-"+npmKey()+"-"+version+".tgz")}
}

// npmInstall installs the tarballs globally into prefix with the real npm,
// with no registry reachable: the platform package's tarball is given
// beside the main one, so that npm resolves plangit's optional dependency
// from it.
func npmInstall(t testing.TB, env []string, npmDir, prefix string, extra ...string) {
	t.Helper()
	args := append([]string{"install", "-g", "--prefix", prefix}, extra...)
	npmRun(t, env, filepath.Dir(prefix), "npm", append(args, npmTarballs(npmDir, npmVersion(t))...)...)
}

// isNative reports whether the file is an executable of this platform's
// (ELF on Linux, Mach-O on macOS), not a script.
func isNative(t testing.TB, name string) bool {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "darwin" {
		return bytes.HasPrefix(b, []byte{0xcf, 0xfa, 0xed, 0xfe})
	}
	return bytes.HasPrefix(b, []byte("\x7fELF"))
}

// hookProject is a project holding a running plan, session npm-s1, made by
// the direct plangit.
func hookProject(t testing.TB, plangit, dir string, env []string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	for _, args := range [][]string{
		{"init", "Add caching to UserService", "--goal", "cache user lookups", "--phase", "Build", "--session", "npm-s1"},
		{"step", "add", "Implement the cache layer", "--phase", "Build", "--session", "npm-s1"},
		{"next", "--session", "npm-s1"},
	} {
		cmd := exec.Command(plangit, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("plangit %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// hookPayload is a Claude Code payload from testdata/hooks/real/claude for
// the session npm-s1 of the project at dir.
func hookPayload(t testing.TB, file, dir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hooks", "real", "claude", file))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.NewReplacer("{{SESSION}}", "npm-s1", "{{CWD}}", dir, "{{RUN}}", dir).Replace(string(b)))
}

// answer is what one process said.
type answer struct {
	code        int
	out, errOut string
}

func runProgram(t testing.TB, env []string, dir string, stdin []byte, prog string, args ...string) answer {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	a := answer{out: out.String(), errOut: errOut.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		a.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", prog, err)
	}
	return a
}

// npmCalls are the calls compared between the direct programs and the
// installed ones: Claude Code's hook payloads, a command that fails, and
// version.
var npmCalls = []struct {
	name, payload string
	args          []string
}{
	{"plangit-hook", "47-UserPromptSubmit.json", []string{"UserPromptSubmit"}},
	{"plangit-hook", "12-PreToolUse-Bash.json", []string{"PreToolUse"}},
	{"plangit-hook", "25-PreToolUse-Read.json", []string{"PreToolUse"}},
	{"plangit", "", []string{"step", "done", "99", "--session", "npm-s1"}},
	{"plangit", "", []string{"version"}},
}

// compareCalls runs npmCalls with the direct programs in one copy of a
// project and with the programs in bin in another, and fails where their
// exit status or standard output differ. It returns the installed
// programs' standard error, call by call.
func compareCalls(t *testing.T, r npmRelease, env []string, work, bin string) []string {
	t.Helper()
	direct, installed := filepath.Join(work, "direct"), filepath.Join(work, "installed")
	hookProject(t, filepath.Join(r.programs, "plangit"), direct, env)
	hookProject(t, filepath.Join(r.programs, "plangit"), installed, env)
	var stderrs []string
	said := false
	for _, c := range npmCalls {
		var inA, inB []byte
		if c.payload != "" {
			inA, inB = hookPayload(t, c.payload, direct), hookPayload(t, c.payload, installed)
		}
		a := runProgram(t, env, direct, inA, filepath.Join(r.programs, c.name), c.args...)
		b := runProgram(t, env, installed, inB, filepath.Join(bin, c.name), c.args...)
		a.out = strings.ReplaceAll(a.out, direct, installed)
		if a.code != b.code || a.out != b.out {
			t.Errorf("%s %s: the direct program said (exit %d)\n%s\nthe installed one (exit %d)\n%s\n%s", c.name, strings.Join(c.args, " "), a.code, a.out, b.code, b.out, b.errOut)
		}
		said = said || a.out != ""
		stderrs = append(stderrs, b.errOut)
	}
	if !said {
		t.Fatal("the direct programs answered nothing: the comparison compared nothing")
	}
	return stderrs
}

// TestNPM: .ci/npm's packages, installed by the real npm into an empty
// prefix with no registry reachable. With install scripts, the plangit,
// plangit-hook and plangit-mcp npm puts on PATH are the native programs
// themselves (the postinstall linked them over the launchers), from the
// platform package npm resolved plangit's optional dependency to; they
// answer Claude Code's hook payloads as the direct programs do, and
// version says VERSION. With --ignore-scripts they are the Node
// launcher, which answers the same, says once that it runs through Node,
// and npm rebuild, as its note says, puts the native programs in place.
// Without the platform package (--omit=optional) plangit says which
// package is missing. npx runs plangit from the tarballs, natively.
func TestNPM(t *testing.T) {
	if os.Getenv("PLANGIT_LONG") == "" {
		repotest.Short(t, "packs and installs the npm packages with npm: PLANGIT_LONG=1")
	}
	npmRequire(t)
	t.Parallel()
	work := t.TempDir()
	version := npmVersion(t)
	r := newNPMRelease(t, work)
	npmDir := r.pack(t, work)
	checkNPMPackages(t, r, npmDir, version)

	env := npmEnv(work)
	runEnv := append(env, "PLANGIT_NOW=2026-11-20T10:00:00Z")
	key := npmKey()

	t.Run("scripts", func(t *testing.T) {
		prefix := filepath.Join(work, "global")
		npmInstall(t, env, npmDir, prefix)
		bin := filepath.Join(prefix, "bin")
		lib := filepath.Join(prefix, "lib", "node_modules")
		for _, p := range npmPrograms {
			target, err := filepath.EvalSymlinks(filepath.Join(bin, p))
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(lib, "plangit", "bin", p); target != want {
				t.Errorf("%s on PATH is %s, not the package's bin entry %s", p, target, want)
			}
			if !isNative(t, target) {
				t.Errorf("%s on PATH (%s) is not a native executable", p, target)
			}
			fi, _ := os.Stat(target)
			native, err := os.Stat(filepath.Join(lib, "@plangit", key, "bin", p))
			if err != nil {
				t.Fatalf("npm did not install the platform package from its tarball: %v", err)
			}
			if !os.SameFile(fi, native) {
				t.Errorf("%s is not the platform package's program, linked", target)
			}
			if fi.Mode().Perm() != 0o755 {
				t.Errorf("%s has mode %v", target, fi.Mode().Perm())
			}
			want, _ := os.ReadFile(filepath.Join(r.programs, p))
			if got, _ := os.ReadFile(target); !bytes.Equal(got, want) {
				t.Errorf("%s is not the archive's %s", target, p)
			}
		}
		// npm resolved plangit's optional dependency to the platform
		// package it installed from the tarball.
		var tree struct {
			Dependencies map[string]struct {
				Version      string
				Dependencies map[string]struct{ Version string }
			}
		}
		out := npmRun(t, env, work, "npm", "ls", "-g", "--prefix", prefix, "--all", "--json")
		if err := json.Unmarshal([]byte(out), &tree); err != nil {
			t.Fatalf("npm ls: %v\n%s", err, out)
		}
		if got := tree.Dependencies["plangit"].Dependencies["@plangit/"+key].Version; got != version {
			t.Errorf("npm ls: plangit's dependency @plangit/%s is at %q, not %s\n%s", key, got, version, out)
		}
		for i, e := range compareCalls(t, r, runEnv, filepath.Join(work, "scripts"), bin) {
			if e != "" && npmCalls[i].name == "plangit-hook" {
				t.Errorf("the installed plangit-hook wrote to standard error: %s", e)
			}
		}
		checkVersion(t, runEnv, work, filepath.Join(bin, "plangit"), version, r)
	})

	t.Run("ignore-scripts", func(t *testing.T) {
		prefix := filepath.Join(work, "noscripts")
		npmInstall(t, env, npmDir, prefix, "--ignore-scripts")
		bin := filepath.Join(prefix, "bin")
		for _, p := range npmPrograms {
			if b, err := os.ReadFile(filepath.Join(bin, p)); err != nil || !bytes.HasPrefix(b, []byte("#!/usr/bin/env node\n")) {
				t.Fatalf("with --ignore-scripts, %s on PATH is not the Node launcher (%v):\n%.200s", p, err, b)
			}
		}
		stderrs := compareCalls(t, r, runEnv, filepath.Join(work, "launcher"), bin)
		const note = "runs through Node here"
		if !strings.Contains(stderrs[0], note) || !strings.Contains(stderrs[0], "npm rebuild -g plangit") {
			t.Errorf("the launcher's first call did not say that it runs through Node and how to fix it: %q", stderrs[0])
		}
		for i, e := range stderrs[1:] {
			if strings.Contains(e, note) {
				t.Errorf("call %d said the launcher's note again: %q", i+2, e)
			}
		}
		// As the note says: npm rebuild puts the native programs in place.
		npmRun(t, env, work, "npm", "rebuild", "-g", "--prefix", prefix, "plangit")
		for _, p := range npmPrograms {
			if !isNative(t, filepath.Join(bin, p)) {
				t.Errorf("after npm rebuild, %s on PATH is not native", p)
			}
		}
	})

	t.Run("omit-optional", func(t *testing.T) {
		// Without the platform package the install succeeds (the
		// postinstall places nothing) and plangit says what is missing.
		prefix := filepath.Join(work, "nooptional")
		npmRun(t, env, work, "npm", "install", "-g", "--prefix", prefix, "--omit=optional", npmTarballs(npmDir, version)[0])
		a := runProgram(t, runEnv, work, nil, filepath.Join(prefix, "bin", "plangit"), "version")
		if a.code != 1 || a.out != "" || !strings.Contains(a.errOut, "@plangit/"+key+", the package that holds plangit's native programs") || !strings.Contains(a.errOut, "--omit=optional") {
			t.Errorf("plangit without its platform package: exit %d, %q, %q", a.code, a.out, a.errOut)
		}
	})

	t.Run("npx", func(t *testing.T) {
		dir := filepath.Join(work, "npx")
		os.MkdirAll(dir, 0o755)
		tgz := npmTarballs(npmDir, version)
		// npx is npm exec; where npm comes without its npx link (.ci/hosts'
		// own build of node), npm exec it is.
		npx := []string{"npx"}
		if _, err := exec.LookPath("npx"); err != nil {
			npx = []string{"npm", "exec"}
		}
		cmd := exec.Command(npx[0], append(npx[1:], "--yes", "--package", tgz[0], "--package", tgz[1], "--", "plangit", "version")...)
		cmd.Dir, cmd.Env = dir, env
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("npx plangit version: %v\n%s%s", err, out.Bytes(), errOut.Bytes())
		}
		direct := runProgram(t, runEnv, dir, nil, filepath.Join(r.programs, "plangit"), "version")
		if out.String() != direct.out {
			t.Errorf("npx plangit version said %q, the direct plangit %q", out.String(), direct.out)
		}
		if strings.Contains(errOut.String(), "runs through Node") {
			t.Errorf("npx ran plangit through the Node launcher: %s", errOut.Bytes())
		}
		links, _ := filepath.Glob(filepath.Join(work, "npm-cache", "_npx", "*", "node_modules", "plangit", "bin", "plangit-hook"))
		if len(links) != 1 || !isNative(t, links[0]) {
			t.Errorf("npx's plangit-hook is not one native program: %v", links)
		}
	})
}

// checkVersion checks that plangit version, run as prog, says VERSION —
// where the programs are stamped with it, as the release's are.
func checkVersion(t *testing.T, env []string, dir, prog, version string, r npmRelease) {
	t.Helper()
	got := runProgram(t, env, dir, nil, prog, "version").out
	if !strings.HasPrefix(got, "plangit "+version+" ") && !strings.HasPrefix(got, "plangit "+version+"-") {
		if !r.full && strings.HasPrefix(got, "plangit (devel) ") {
			t.Logf("this tree's plangit takes no stamped version (%q): the version is checked on a release's programs", got)
			return
		}
		t.Errorf("plangit version through npm said %q, not version %s", got, version)
	}
}

// checkNPMPackages checks the packages .ci/npm wrote: plangit at VERSION
// with its three bin entries, its postinstall and the six platform
// packages as optional dependencies at exactly VERSION; each platform
// package built with its os, cpu and three programs in bin/, mode 0755
// in its tarball too. With a whole release, every platform's package is
// there, and where .ci/release wrote dist/npm the tarballs are the same.
func checkNPMPackages(t *testing.T, r npmRelease, npmDir, version string) {
	t.Helper()
	var main struct {
		Name, Version        string
		Bin                  map[string]string
		Scripts              map[string]string
		OptionalDependencies map[string]string
	}
	readJSON(t, filepath.Join(npmDir, "plangit", "package.json"), &main)
	if main.Name != "plangit" || main.Version != version {
		t.Errorf("the main package is %s@%s", main.Name, main.Version)
	}
	for _, p := range npmPrograms {
		if main.Bin[p] != "bin/"+p {
			t.Errorf("the main package's bin %s is %q", p, main.Bin[p])
		}
	}
	if main.Scripts["postinstall"] != "node install.js" {
		t.Errorf("the main package's postinstall is %q", main.Scripts["postinstall"])
	}
	if len(main.OptionalDependencies) != len(npmPlatforms) {
		t.Errorf("the main package's optional dependencies: %v", main.OptionalDependencies)
	}
	built := 0
	for key, goPlatform := range npmPlatforms {
		if v := main.OptionalDependencies["@plangit/"+key]; v != version {
			t.Errorf("the optional dependency @plangit/%s is at %q, not exactly %s", key, v, version)
		}
		dir := filepath.Join(npmDir, key)
		if _, err := os.Stat(dir); err != nil {
			if r.full || key == npmKey() {
				t.Errorf("no package for %s: %v", key, err)
			}
			continue
		}
		built++
		var m struct {
			Name, Version string
			OS, CPU       []string
			Files         []string
		}
		readJSON(t, filepath.Join(dir, "package.json"), &m)
		goos, _, _ := strings.Cut(goPlatform, "/")
		os_, cpu, _ := strings.Cut(key, "-")
		if m.Name != "@plangit/"+key || m.Version != version || len(m.OS) != 1 || m.OS[0] != os_ || len(m.CPU) != 1 || m.CPU[0] != cpu {
			t.Errorf("%s: package.json %+v", key, m)
		}
		modes := tarModes(t, filepath.Join(npmDir, "plangit-"+key+"-"+version+".tgz"))
		for _, p := range npmPrograms {
			if goos == "windows" {
				p += ".exe"
			}
			if fi, err := os.Stat(filepath.Join(dir, "bin", p)); err != nil || fi.Mode().Perm() != 0o755 {
				t.Errorf("%s: bin/%s: %v %v", key, p, err, fi)
			}
			if mode := modes["package/bin/"+p]; mode != 0o755 {
				t.Errorf("%s's tarball: bin/%s has mode %o", key, p, mode)
			}
		}
	}
	if r.full && built != len(npmPlatforms) {
		t.Errorf("%d platform packages of %d", built, len(npmPlatforms))
	}
	release := filepath.Join(r.dist, "npm")
	if _, err := os.Stat(release); !r.full || err != nil {
		return
	}
	tarballs, _ := filepath.Glob(filepath.Join(npmDir, "*.tgz"))
	for _, tb := range tarballs {
		ours, _ := os.ReadFile(tb)
		theirs, err := os.ReadFile(filepath.Join(release, filepath.Base(tb)))
		if err != nil || !bytes.Equal(ours, theirs) {
			t.Errorf("the release's %s is not what .ci/npm makes of its archives (%v)", filepath.Base(tb), err)
		}
	}
}

func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// tarModes returns the mode of each file in a .tgz.
func tarModes(t testing.TB, name string) map[string]int64 {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	modes := map[string]int64{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return modes
		} else if err != nil {
			t.Fatal(err)
		}
		modes[h.Name] = h.Mode & 0o777
	}
}
