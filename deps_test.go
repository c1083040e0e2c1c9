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
}

// TestLinkedPackages: the binary links no network stack of its own, and
// nothing beyond what it links today; the hooks package, the logic every
// hook runs, links neither cobra nor the network.
func TestLinkedPackages(t *testing.T) {
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
// hookwire and its own bigstack, nothing else of plangit or of anyone —
// however plangit grows. So does hookwire itself; bigstack imports
// nothing at all, as its place in the order of initialisation needs.
func TestHookBinaryLinksTheStandardLibraryAlone(t *testing.T) {
	const (
		hookBinary = "github.com/plangit/plangit/cmd/plangit-hook"
		hookwire   = "github.com/plangit/plangit/hooks/hookwire"
		bigstack   = hookBinary + "/internal/bigstack"
	)
	for _, pkg := range []string{hookBinary, hookwire} {
		for p, std := range goList(t, pkg) {
			if !std && p != pkg && p != hookwire && p != bigstack {
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
