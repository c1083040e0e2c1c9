package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// goList lists the packages pkg links, standard library included: import
// path → whether it is the standard library's.
func goList(t *testing.T, pkg string) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	deps := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		p, std, _ := strings.Cut(line, " ")
		deps[p] = std == "true"
	}
	return deps
}

// networkPackages are what plangit must never link: it reaches remotes
// through the user's own git (plangit push, fetch), so go-git's transports
// — and the ssh, TLS and HTTP stacks under them, whose initialisation
// every hook start would pay — stay out.
func networkPackage(p string) bool {
	return p == "github.com/go-git/go-git/v5" || // the top package imports every transport
		strings.HasPrefix(p, "github.com/go-git/go-git/v5/plumbing/transport") ||
		strings.HasPrefix(p, "github.com/go-git/go-git/v5/plumbing/protocol") ||
		strings.HasPrefix(p, "golang.org/x/crypto/") ||
		strings.HasPrefix(p, "github.com/skeema/knownhosts") ||
		strings.HasPrefix(p, "github.com/kevinburke/ssh_config") ||
		p == "net/http" || p == "crypto/tls" || p == "crypto/x509"
}

// linked is every package outside the standard library the binary links
// today. A test that fails here means the binary — which every hook starts
// — grew: look at what the new package costs at start-up
// (GODEBUG=inittrace=1) before adding it to this list.
var linked = []string{
	"github.com/cyphar/filepath-securejoin", "github.com/cyphar/filepath-securejoin/internal/consts",
	"github.com/go-git/go-billy/v5", "github.com/go-git/go-billy/v5/helper/chroot", "github.com/go-git/go-billy/v5/helper/polyfill",
	"github.com/go-git/go-billy/v5/osfs", "github.com/go-git/go-git/v5/plumbing", "github.com/go-git/go-git/v5/plumbing/cache",
	"github.com/go-git/go-git/v5/plumbing/filemode", "github.com/go-git/go-git/v5/plumbing/format/idxfile",
	"github.com/go-git/go-git/v5/plumbing/format/index", "github.com/go-git/go-git/v5/plumbing/format/objfile",
	"github.com/go-git/go-git/v5/plumbing/format/packfile", "github.com/go-git/go-git/v5/plumbing/hash",
	"github.com/go-git/go-git/v5/plumbing/storer", "github.com/go-git/go-git/v5/utils/binary", "github.com/go-git/go-git/v5/utils/ioutil",
	"github.com/go-git/go-git/v5/utils/sync", "github.com/gofrs/flock", "github.com/jbenet/go-context/io", "github.com/pjbgf/sha1cd",
	"github.com/pjbgf/sha1cd/internal", "github.com/pjbgf/sha1cd/internal/cpu", "github.com/pjbgf/sha1cd/ubc",
	"github.com/sergi/go-diff/diffmatchpatch", "github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/yuin/goldmark/ast",
	"github.com/yuin/goldmark/extension/ast", "github.com/yuin/goldmark/parser", "github.com/yuin/goldmark/text", "github.com/yuin/goldmark/util",
	"golang.org/x/net/context", "golang.org/x/sys/unix",
	// The settings editor (repo/confedit) reads TOML for Codex's
	// config.toml: its initialisation measured 0.02–0.06 ms.
	"github.com/pelletier/go-toml/v2", "github.com/pelletier/go-toml/v2/internal/parserbridge",
	"github.com/pelletier/go-toml/v2/internal/tracker", "github.com/pelletier/go-toml/v2/unstable",
	// The code snapshots (repo/code) read the project's ignore rules with
	// go-git's gitignore, which brings its config reader: their
	// initialisation measured 0.06–0.12 ms together.
	"github.com/go-git/go-git/v5/plumbing/format/gitignore", "github.com/go-git/go-git/v5/plumbing/format/config",
	"github.com/go-git/go-git/v5/internal/path_util", "github.com/go-git/gcfg", "github.com/go-git/gcfg/scanner",
	"github.com/go-git/gcfg/token", "github.com/go-git/gcfg/types", "gopkg.in/warnings.v0",
}

// TestLinkedPackages: the binary links no network stack of its own, and
// nothing beyond what it links today; the hooks package, the logic every
// hook runs, links neither cobra nor the network.
func TestLinkedPackages(t *testing.T) {
	t.Parallel()
	for p, std := range goList(t, ".") {
		if networkPackage(p) {
			t.Errorf("plangit links %s; remotes are reached through the user's git, never a transport of plangit's own", p)
		}
		if !std && !strings.HasPrefix(p, "github.com/plangit/plangit") && !slices.Contains(linked, p) {
			t.Errorf("plangit links a new package, %s: every hook start pays its initialisation", p)
		}
	}
	for p := range goList(t, "./hooks") {
		if networkPackage(p) || p == "net" || strings.HasPrefix(p, "github.com/spf13/") || p == "text/template" {
			t.Errorf("the hooks package links %s", p)
		}
	}
}

// TestMCPServerApart: the MCP SDK — which links net/http, TLS, a JSON
// Schema validator and a JSON library whose initialisation every start
// would pay — is linked by plangit-mcp alone; plangit runs it for
// `plangit mcp`.
func TestMCPServerApart(t *testing.T) {
	t.Parallel()
	for p := range goList(t, ".") {
		if strings.HasPrefix(p, "github.com/modelcontextprotocol/") || p == "github.com/plangit/plangit/cmd/mcpserver" {
			t.Errorf("plangit links %s; only plangit-mcp may", p)
		}
	}
	if _, ok := goList(t, "./cmd/plangit-mcp")["github.com/modelcontextprotocol/go-sdk/mcp"]; !ok {
		t.Errorf("plangit-mcp does not link the MCP SDK")
	}
}

// TestHookBinaryLinksTheStandardLibraryAlone: the hook binary, which runs
// on every tool call and every prompt, links the standard library,
// hookwire, the ground floor it shares with plangit (disk, brief) and its
// bigstack, nothing else of plangit or of anyone — however plangit
// grows. So does hookwire itself; disk and brief link the standard
// library alone; bigstack imports nothing at all, as its place in the
// order of initialisation needs.
func TestHookBinaryLinksTheStandardLibraryAlone(t *testing.T) {
	t.Parallel()
	const (
		module     = "github.com/plangit/plangit/"
		hookBinary = module + "cmd/plangit-hook"
		hookwire   = module + "hooks/hookwire"
		disk       = module + "repo/disk"
		brief      = module + "render/brief"
		bigstack   = module + "cmd/internal/bigstack"
	)
	allowed := map[string][]string{
		hookBinary: {hookwire, disk, brief, bigstack},
		hookwire:   {disk, brief},
		disk:       nil,
		brief:      nil,
	}
	for pkg, may := range allowed {
		for p, std := range goList(t, pkg) {
			if !std && p != pkg && !slices.Contains(may, p) {
				t.Errorf("%s links %s", pkg, p)
			}
		}
	}
	for p := range goList(t, bigstack) {
		if p != bigstack {
			t.Errorf("bigstack imports %s", p)
		}
	}
}

// floors is DESIGN.md §1's table, bottom up: a package may import those
// on its own floor or below, never one above. The ground floor — the
// model, and the packages every program shares (the session layout, lock
// and atomic files; the settings editor; the texts the hook binary shares
// with render; the tests' helpers) — imports no package of plangit's at
// all.
// A package is on the floor of the longest prefix that names it.
var floors = []struct {
	path  string
	floor int
}{
	{"plan", 0}, {"repo/disk", 0}, {"repo/confedit", 0}, {"render/brief", 0}, {"repo/repotest", 0},
	{"repo", 1},
	{"history", 2},
	{"render", 3},
	{"hooks", 4},
	{"cmd", 5}, {"", 5},
}

func floorOf(rel string) int {
	best, floor := -1, 5
	for _, f := range floors {
		if (rel == f.path || f.path == "" || strings.HasPrefix(rel, f.path+"/")) && len(f.path) > best {
			best, floor = len(f.path), f.floor
		}
	}
	return floor
}

// TestImportDirection: no package of plangit's imports one above it, and
// the ground floor imports none, in its code or its tests.
func TestImportDirection(t *testing.T) {
	t.Parallel()
	const module = "github.com/plangit/plangit"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}} {{join .TestImports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, "|")
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
		floor := floorOf(rel)
		for _, imp := range strings.Fields(imports) {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			irel := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			switch {
			case irel == rel:
			case floor == 0 && !strings.HasPrefix(rel, "plan"):
				t.Errorf("%s is on the ground floor and imports %s", rel, irel)
			case floorOf(irel) > floor:
				t.Errorf("%s (floor %d) imports %s (floor %d), a package above it", rel, floor, irel, floorOf(irel))
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("only %d imports checked: go list found too little", checked)
	}
}
