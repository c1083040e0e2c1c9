// Command npmdist writes plangit's npm packages from the release archives
// (.ci/npm runs it; .ci/release runs .ci/npm at its end):
//
//	npmdist -version VERSION [-platforms linux-x64,...] DIST
//
// From DIST/plangit_<VERSION>_<goos>_<goarch>.tar.gz (.zip for Windows),
// checked against DIST/checksums.txt where there is one, it writes
// DIST/npm/<os>-<cpu>/, the package @plangit/<os>-<cpu> holding the three
// native programs in bin/, for each platform; DIST/npm/plangit/, the
// package plangit, whose bin entries are Node launchers that its
// postinstall replaces with the native programs and whose optional
// dependencies are the six platform packages at exactly VERSION; and
// each package's tarball, packed by npm, in DIST/npm/, which they replace
// only once all are written. -platforms builds
// only the platform packages named (the main package names all six still);
// without it every archive must be there.
//
// The pattern is the one Claude Code, Codex and Copilot CLI ship with,
// and esbuild before them: npm installs only the platform package whose
// os and cpu match the machine, and nothing is downloaded at install time
// beyond the packages themselves.
package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

//go:embed js
var jsFiles embed.FS

// programs are the native programs each archive and platform package hold.
var programs = []string{"plangit", "plangit-hook", "plangit-mcp"}

// platform is one target: Go's names for it, npm's, and its archive's form.
type platform struct {
	goos, goarch string // as GoReleaser names the archive
	os, cpu      string // as npm (process.platform, process.arch) names them
}

var platforms = []platform{
	{"linux", "amd64", "linux", "x64"},
	{"linux", "arm64", "linux", "arm64"},
	{"darwin", "amd64", "darwin", "x64"},
	{"darwin", "arm64", "darwin", "arm64"},
	{"windows", "amd64", "win32", "x64"},
	{"windows", "arm64", "win32", "arm64"},
}

func (p platform) key() string         { return p.os + "-" + p.cpu }
func (p platform) packageName() string { return scope + "/" + p.key() }

func (p platform) exe(program string) string {
	if p.goos == "windows" {
		return program + ".exe"
	}
	return program
}

func (p platform) archive(version string) string {
	ext := ".tar.gz"
	if p.goos == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("plangit_%s_%s_%s%s", version, p.goos, p.goarch, ext)
}

const (
	// scope is the npm scope of the platform packages: the one place that
	// names it (the launcher reads the names from package.json).
	scope       = "@plangit"
	description = "A persistent, versioned plan for AI coding agents: every change to the plan is a git commit"
	homepage    = "https://github.com/plangit/plangit"
	license     = "MIT"
)

var repository = map[string]string{"type": "git", "url": "git+https://github.com/plangit/plangit.git"}

// manifest is a package.json, its fields in the order npm writes them.
type manifest struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	License              string            `json:"license"`
	Homepage             string            `json:"homepage"`
	Repository           map[string]string `json:"repository"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	Bin                  map[string]string `json:"bin,omitempty"`
	Scripts              map[string]string `json:"scripts,omitempty"`
	Files                []string          `json:"files"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
}

// semver is the form npm accepts as a version.
var semver = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "npm:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fl := flag.NewFlagSet("npmdist", flag.ContinueOnError)
	version := fl.String("version", "", "the release's version (the VERSION file)")
	only := fl.String("platforms", "", "build only these platform packages (comma-separated, as linux-x64)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		return errors.New("usage: npmdist -version VERSION [-platforms LIST] DIST")
	}
	if !semver.MatchString(*version) {
		return fmt.Errorf("version %q is not a version npm accepts (MAJOR.MINOR.PATCH)", *version)
	}
	dist, err := filepath.Abs(fl.Arg(0))
	if err != nil {
		return err
	}
	build := platforms
	if *only != "" {
		build = nil
		for _, k := range strings.Split(*only, ",") {
			i := slices.IndexFunc(platforms, func(p platform) bool { return p.key() == k })
			if i < 0 {
				return fmt.Errorf("-platforms: %q is none of plangit's platforms", k)
			}
			build = append(build, platforms[i])
		}
	}
	sums, err := readChecksums(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		return err
	}

	// Everything is written into a new directory beside DIST/npm, which
	// takes its place only once every package is packed: a failure
	// leaves DIST/npm as it was.
	tmp, err := os.MkdirTemp(dist, ".npm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var lic []byte
	var dirs []string
	for _, p := range build {
		dir := filepath.Join(tmp, p.key())
		l, err := platformPackage(dir, dist, p, *version, sums)
		if err != nil {
			return err
		}
		lic = l
		dirs = append(dirs, dir)
	}
	dir := filepath.Join(tmp, "plangit")
	if err := mainPackage(dir, *version, lic); err != nil {
		return err
	}
	dirs = append(dirs, dir)
	for _, d := range dirs {
		if err := pack(d, tmp); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	out := filepath.Join(dist, "npm")
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// readChecksums reads checksums.txt (sha256, "<hash>  <file>" lines), or
// returns nil where the file is absent.
func readChecksums(name string) (map[string]string, error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		hash, file, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(hash) != 64 {
			return nil, fmt.Errorf("%s: %q is not a \"<sha256>  <file>\" line", name, sc.Text())
		}
		sums[file] = hash
	}
	return sums, sc.Err()
}

// platformPackage writes the package @plangit/<os>-<cpu> into dir from its
// release archive, and returns the archive's LICENSE.
func platformPackage(dir, dist string, p platform, version string, sums map[string]string) ([]byte, error) {
	name := p.archive(version)
	b, err := os.ReadFile(filepath.Join(dist, name))
	if err != nil {
		return nil, fmt.Errorf("the archive for %s: %w", p.key(), err)
	}
	if sums != nil {
		want, ok := sums[name]
		got := sha256.Sum256(b)
		if !ok {
			return nil, fmt.Errorf("%s is not in checksums.txt", name)
		}
		if hex.EncodeToString(got[:]) != want {
			return nil, fmt.Errorf("%s does not match its sha256 in checksums.txt", name)
		}
	}
	files, err := unpack(name, b)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return nil, err
	}
	for _, prog := range programs {
		exe := p.exe(prog)
		data, ok := files[exe]
		if !ok {
			return nil, fmt.Errorf("%s holds no %s at its root", name, exe)
		}
		if err := os.WriteFile(filepath.Join(dir, "bin", exe), data, 0o755); err != nil {
			return nil, err
		}
	}
	lic, ok := files["LICENSE"]
	if !ok {
		return nil, fmt.Errorf("%s holds no LICENSE at its root", name)
	}
	manifest := manifest{
		Name:            p.packageName(),
		Version:         version,
		Description:     fmt.Sprintf("plangit's native programs (plangit, plangit-hook, plangit-mcp) for %s; install the package plangit, which uses this one", p.key()),
		License:         license,
		Homepage:        homepage,
		Repository:      repository,
		OS:              []string{p.os},
		CPU:             []string{p.cpu},
		Files:           []string{"bin/"},
		PreferUnplugged: true,
	}
	readme := fmt.Sprintf("# %s\n\nThe native programs of [plangit](%s) for %s: `bin/plangit`, `bin/plangit-hook` and\n`bin/plangit-mcp`. Install the package `plangit` (`npm install -g plangit`), which\ndepends on this one where the machine is %s.\n", p.packageName(), homepage, p.key(), p.key())
	return lic, writePackage(dir, manifest, readme, lic)
}

// unpack returns the regular files at the root of a release archive.
func unpack(name string, b []byte) (map[string][]byte, error) {
	files := map[string][]byte{}
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, f := range zr.File {
			if !f.Mode().IsRegular() || strings.Contains(path.Clean(f.Name), "/") {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", name, f.Name, err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", name, f.Name, err)
			}
			files[path.Clean(f.Name)] = data
		}
		return files, nil
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if h.Typeflag != tar.TypeReg || strings.Contains(path.Clean(h.Name), "/") {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", name, h.Name, err)
		}
		files[path.Clean(h.Name)] = data
	}
}

// mainPackage writes the package plangit into dir: the launchers as its
// bin entries, their shared code in lib/, the postinstall, and the six
// platform packages as optional dependencies.
func mainPackage(dir, version string, lic []byte) error {
	bin := map[string]string{}
	for _, prog := range programs {
		bin[prog] = "bin/" + prog
		launcher := fmt.Sprintf("#!/usr/bin/env node\n// %s through Node, until plangit's postinstall (install.js) puts the\n// native program here: see lib/launch.js.\nrequire('../lib/launch.js')('%s')\n", prog, prog)
		if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "bin", prog), []byte(launcher), 0o755); err != nil {
			return err
		}
	}
	optional := map[string]string{}
	for _, p := range platforms {
		optional[p.packageName()] = version
	}
	err := fs.WalkDir(jsFiles, "js", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := jsFiles.ReadFile(name)
		if err != nil {
			return err
		}
		dest := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(name, "js/")))
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dest, b, 0o644)
	})
	if err != nil {
		return err
	}
	manifest := manifest{
		Name:                 "plangit",
		Version:              version,
		Description:          description,
		License:              license,
		Homepage:             homepage,
		Repository:           repository,
		Bin:                  bin,
		Scripts:              map[string]string{"postinstall": "node install.js"},
		Files:                []string{"bin/", "lib/", "install.js"},
		OptionalDependencies: optional,
	}
	readme := fmt.Sprintf("# plangit\n\n%s.\n\n```sh\nnpm install -g plangit\nplangit setup            # in your project: hooks, MCP and the skill for each agent host it finds\n```\n\nThis package installs `plangit`, `plangit-hook` and `plangit-mcp` as native programs,\nfrom the package `@plangit/<os>-<cpu>` for your machine (an optional dependency;\nits postinstall puts the programs where npm links them, and downloads nothing).\nWhere npm runs no install scripts they start through a small Node launcher,\nwhich says so once. See %s for the documentation.\n", description, homepage)
	return writePackage(dir, manifest, readme, lic)
}

// writePackage writes a package's package.json, README.md and LICENSE.
func writePackage(dir string, m manifest, readme string, lic []byte) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "LICENSE"), lic, 0o644)
}

// pack packs the package in dir with npm into out.
func pack(dir, out string) error {
	cmd := exec.Command("npm", "pack", "--silent", "--ignore-scripts", "--pack-destination", out)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm pack %s: %v\n%s", dir, err, stderr.Bytes())
	}
	return nil
}
