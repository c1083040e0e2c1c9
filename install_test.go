package main

// install.sh, run by a POSIX sh (dash where it is installed) against an
// HTTP server on 127.0.0.1, with a PATH that holds only the programs it
// may use. Here the server serves a small release the test makes itself —
// archives of tiny scripts named plangit, plangit-hook and plangit-mcp,
// and their checksums.txt — so that go test ./... covers the script in
// about a second; release_test.go runs it against the real release.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// installPrograms are the programs every archive holds and install.sh
// installs.
var installPrograms = []string{"plangit", "plangit-hook", "plangit-mcp"}

// installShell is the shell install.sh is run with: dash, the POSIX sh of
// Debian, where it is installed, so that a bash-ism fails; else sh.
func installShell(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"dash", "sh"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("needs sh")
	return ""
}

// installPlatform is this machine's platform in the archives' names.
func installPlatform(t *testing.T) (goos, goarch string) {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" || runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("install.sh installs on Linux and macOS, amd64 and arm64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return runtime.GOOS, runtime.GOARCH
}

// installTools makes a directory of links to the programs install.sh may
// run — the fetcher given (curl, wget or none) among them — to be its
// whole PATH.
func installTools(t *testing.T, fetcher string) string {
	t.Helper()
	dir := t.TempDir()
	names := []string{"sh", "uname", "mktemp", "rm", "sed", "cut", "head", "sha256sum", "shasum", "tar", "gzip", "mkdir", "cp", "chmod", "mv", "cat", "sysctl"}
	if fetcher != "" {
		names = append(names, fetcher)
	}
	for _, name := range names {
		p, err := exec.LookPath(name)
		if err != nil {
			if name == "sysctl" || name == "shasum" {
				continue // macOS's, or the second of two
			}
			t.Fatalf("install.sh needs %s: %v", name, err)
		}
		if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// installFetcher is a fetcher install.sh can use here: curl, else wget.
func installFetcher(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"curl", "wget"} {
		if _, err := exec.LookPath(name); err == nil {
			return name
		}
	}
	t.Skip("needs curl or wget")
	return ""
}

// installRun is one run of install.sh.
type installRun struct {
	out  string // standard output and error
	err  error
	dir  string // PLANGIT_INSTALL_DIR
	tmp  string // TMPDIR, which the script must leave empty
	home string
}

// runInstall runs install.sh with the environment given and nothing else
// of the test's (no proxy, no HOME of the machine's): PATH the tools
// directory, TMPDIR and HOME directories of their own, PLANGIT_INSTALL_DIR
// a directory not yet made, unless env sets them.
func runInstall(t *testing.T, tools string, env ...string) installRun {
	t.Helper()
	base := t.TempDir()
	r := installRun{dir: filepath.Join(base, "install", "bin"), tmp: filepath.Join(base, "tmp"), home: filepath.Join(base, "home")}
	for _, d := range []string{r.tmp, r.home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script, err := filepath.Abs("install.sh")
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(installShell(t), script)
	c.Dir = base
	c.Env = append([]string{"PATH=" + tools, "HOME=" + r.home, "TMPDIR=" + r.tmp, "PLANGIT_INSTALL_DIR=" + r.dir}, env...)
	for _, kv := range env {
		if dir, ok := strings.CutPrefix(kv, "PLANGIT_INSTALL_DIR="); ok {
			r.dir = dir
		}
	}
	out, err := c.CombinedOutput()
	r.out, r.err = string(out), err
	if left, _ := os.ReadDir(r.tmp); len(left) > 0 {
		t.Errorf("install.sh left %d files in TMPDIR (%s):\n%s", len(left), left[0].Name(), r.out)
	}
	return r
}

// installed lists the files in the install directory (nil when it does
// not exist).
func (r installRun) installed(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(r.dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// refused checks that a run failed, saying want, with nothing installed.
func (r installRun) refused(t *testing.T, want string) {
	t.Helper()
	if r.err == nil {
		t.Errorf("install.sh succeeded; want a refusal saying %q:\n%s", want, r.out)
	} else if !strings.Contains(r.out, want) {
		t.Errorf("install.sh failed (%v) without saying %q:\n%s", r.err, want, r.out)
	}
	if names := r.installed(t); len(names) > 0 {
		t.Errorf("install.sh failed and installed %q", names)
	}
}

// fakeRelease writes, into dir, the archive for goos/goarch of each
// version — scripts that print "<program> <version>" — and a
// checksums.txt over them, and returns the archives' names.
func fakeRelease(t *testing.T, dir, goos, goarch string, versions ...string) []string {
	t.Helper()
	var sums bytes.Buffer
	var names []string
	for _, v := range versions {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		for _, p := range append(slices.Clone(installPrograms), "LICENSE", "README.md") {
			body := []byte("#!/bin/sh\necho \"" + p + " " + v + " $*\"\n")
			if err := tw.WriteHeader(&tar.Header{Name: p, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
				t.Fatal(err)
			}
			tw.Write(body)
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("plangit_%s_%s_%s.tar.gz", v, goos, goarch)
		if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(buf.Bytes())
		// Another platform's line, which install.sh must pass over.
		fmt.Fprintf(&sums, "%s  plangit_%s_windows_%s.zip\n", strings.Repeat("0", 64), v, goarch)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
		names = append(names, name)
	}
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), sums.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return names
}

// serve serves dir over HTTP on 127.0.0.1 for the test's length.
func serve(t *testing.T, dir string) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestInstallScript: install.sh, with curl and with wget, downloads this
// machine's archive and checksums.txt from PLANGIT_INSTALL_BASE, checks
// the archive's sha256, installs the three programs into
// PLANGIT_INSTALL_DIR (made when missing; an older installation is
// replaced, no temporary file left beside it), says how to put that
// directory on PATH when it is not there, and prints the installed
// version. PLANGIT_VERSION picks one of several versions; without it,
// several are an error. A tampered archive, a version the release does
// not have, an archive or checksums.txt the server does not have (404)
// are refused with nothing installed, and no run leaves a file in TMPDIR.
func TestInstallScript(t *testing.T) {
	t.Parallel()
	goos, goarch := installPlatform(t)
	one, two := t.TempDir(), t.TempDir()
	fakeRelease(t, one, goos, goarch, "1.2.3")
	fakeRelease(t, two, goos, goarch, "1.2.3", "1.3.0-rc.1")
	oneURL, twoURL := serve(t, one), serve(t, two)
	// A release whose archive was changed by one byte after checksums.txt.
	tampered := t.TempDir()
	archive := fakeRelease(t, tampered, goos, goarch, "1.2.3")[0]
	b, err := os.ReadFile(filepath.Join(tampered, archive))
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(filepath.Join(tampered, archive), b, 0o644); err != nil {
		t.Fatal(err)
	}
	tamperedURL := serve(t, tampered)
	// A release whose checksums.txt names an archive the server lacks.
	missing := t.TempDir()
	archive = fakeRelease(t, missing, goos, goarch, "1.2.3")[0]
	os.Remove(filepath.Join(missing, archive))
	missingURL := serve(t, missing)

	for _, fetcher := range []string{"curl", "wget"} {
		t.Run(fetcher, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath(fetcher); err != nil {
				t.Skipf("needs %s", fetcher)
			}
			tools := installTools(t, fetcher)

			r := runInstall(t, tools, "PLANGIT_INSTALL_BASE="+oneURL+"/")
			if r.err != nil {
				t.Fatalf("install.sh: %v\n%s", r.err, r.out)
			}
			if got := r.installed(t); !slices.Equal(got, installPrograms) {
				t.Errorf("installed %q, want %q", got, installPrograms)
			}
			for _, p := range installPrograms {
				if fi, err := os.Stat(filepath.Join(r.dir, p)); err != nil || fi.Mode().Perm() != 0o755 {
					t.Errorf("%s: %v, %v; want mode 0755", p, fi.Mode(), err)
				}
			}
			for _, want := range []string{
				"installed plangit 1.2.3 (plangit plangit-hook plangit-mcp) into " + r.dir + "\n",
				"plangit 1.2.3 version\n", // what the installed plangit version printed
				r.dir + " is not on your PATH",
				"export PATH=\"" + r.dir + ":$PATH\"",
			} {
				if !strings.Contains(r.out, want) {
					t.Errorf("install.sh did not say %q:\n%s", want, r.out)
				}
			}

			// Several versions: PLANGIT_VERSION picks one, its v optional;
			// without it install.sh asks for it. The directory is on PATH
			// this time and holds an older installation.
			r = runInstall(t, tools, "PLANGIT_INSTALL_BASE="+twoURL)
			r.refused(t, "names several versions for "+goos+"/"+goarch+": set PLANGIT_VERSION")
			onPath := filepath.Join(t.TempDir(), "bin")
			r = runInstall(t, tools, "PATH="+tools+":"+onPath, "PLANGIT_INSTALL_DIR="+onPath, "PLANGIT_INSTALL_BASE="+twoURL, "PLANGIT_VERSION=v1.3.0-rc.1")
			if r.err != nil {
				t.Fatalf("install.sh: %v\n%s", r.err, r.out)
			}
			if !strings.Contains(r.out, "plangit 1.3.0-rc.1 version\n") || strings.Contains(r.out, "not on your PATH") {
				t.Errorf("install.sh of 1.3.0-rc.1, its directory on PATH:\n%s", r.out)
			}

			// Over an older installation: every program replaced, nothing
			// else left in the directory.
			dir := t.TempDir()
			for _, p := range append(slices.Clone(installPrograms), "other") {
				if err := os.WriteFile(filepath.Join(dir, p), []byte("#!/bin/sh\necho old\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			r = runInstall(t, tools, "PLANGIT_INSTALL_BASE="+oneURL, "PLANGIT_INSTALL_DIR="+dir)
			if r.err != nil {
				t.Fatalf("install.sh over an older installation: %v\n%s", r.err, r.out)
			}
			if got, want := r.installed(t), append([]string{"other"}, installPrograms...); !slices.Equal(got, want) {
				t.Errorf("after installing over an older installation the directory holds %q, want %q", got, want)
			}
			for _, p := range installPrograms {
				if b, _ := os.ReadFile(filepath.Join(dir, p)); !strings.Contains(string(b), p+" 1.2.3") {
					t.Errorf("%s is still the old one: %q", p, b)
				}
			}

			runInstall(t, tools, "PLANGIT_INSTALL_BASE="+tamperedURL).refused(t, archive+" does not match checksums.txt")
			runInstall(t, tools, "PLANGIT_INSTALL_BASE="+oneURL, "PLANGIT_VERSION=9.9.9").refused(t, "checksums.txt names no plangit_9.9.9_"+goos+"_"+goarch+".tar.gz")
			runInstall(t, tools, "PLANGIT_INSTALL_BASE="+missingURL).refused(t, "could not download "+missingURL+"/"+archive)
			runInstall(t, tools, "PLANGIT_INSTALL_BASE="+oneURL+"/nowhere").refused(t, "could not download "+oneURL+"/nowhere/checksums.txt")
		})
	}
}

// TestInstallScriptRefusals: install.sh says clearly what is wrong and
// installs nothing on a platform there is no archive for, without curl or
// wget, without sha256sum or shasum, and when given arguments.
func TestInstallScriptRefusals(t *testing.T) {
	t.Parallel()
	goos, goarch := installPlatform(t)
	rel := t.TempDir()
	fakeRelease(t, rel, goos, goarch, "1.2.3")
	url := serve(t, rel)

	// A uname that names another system or processor.
	uname := func(s, m string) string {
		tools := installTools(t, installFetcher(t))
		os.Remove(filepath.Join(tools, "uname"))
		script := "#!/bin/sh\ncase $1 in -s) echo " + s + " ;; -m) echo " + m + " ;; esac\n"
		if err := os.WriteFile(filepath.Join(tools, "uname"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return tools
	}
	runInstall(t, uname("SunOS", "x86_64"), "PLANGIT_INSTALL_BASE="+url).refused(t, "unsupported operating system: SunOS")
	runInstall(t, uname("Linux", "riscv64"), "PLANGIT_INSTALL_BASE="+url).refused(t, "unsupported processor: riscv64")
	runInstall(t, uname("MINGW64_NT-10.0", "x86_64"), "PLANGIT_INSTALL_BASE="+url).refused(t, "Windows is not supported by install.sh")

	runInstall(t, installTools(t, ""), "PLANGIT_INSTALL_BASE="+url).refused(t, "neither curl nor wget is installed")

	noSum := installTools(t, installFetcher(t))
	os.Remove(filepath.Join(noSum, "sha256sum"))
	os.Remove(filepath.Join(noSum, "shasum"))
	runInstall(t, noSum, "PLANGIT_INSTALL_BASE="+url).refused(t, "neither sha256sum nor shasum is installed")

	script, err := filepath.Abs("install.sh")
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(installShell(t), script, "--help")
	c.Env = []string{"PATH=" + installTools(t, installFetcher(t)), "HOME=" + t.TempDir()}
	if out, err := c.CombinedOutput(); err == nil || !strings.Contains(string(out), "takes no arguments") {
		t.Errorf("install.sh --help: %v\n%s", err, out)
	}
}
