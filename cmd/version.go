package cmd

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// The release build stamps these with -ldflags -X (.goreleaser.yaml):
// the version from the file VERSION, the commit it was built from, and
// "modified" when the work tree had changes. A build without them (go
// build, go install) falls back on the build information.
var (
	stampedVersion  string
	stampedCommit   string
	stampedModified string
)

// versionData is what plangit version prints with --json.
type versionData struct {
	Version  string `json:"version"`            // the release's version, else the module version; (devel) for a local build
	Go       string `json:"go"`                 // the Go release it was built with
	Platform string `json:"platform"`           // GOOS/GOARCH
	Commit   string `json:"commit,omitempty"`   // the VCS revision, when the build recorded it
	Modified bool   `json:"modified,omitempty"` // the work tree had changes at build time
}

// Version is plangit's version: the release's, as the release build
// stamped it, else the module version go install recorded, else (devel).
func Version() string { return buildVersion().Version }

// buildVersion reads the version from what the release build stamped,
// else from the build information the Go toolchain embeds in the binary.
func buildVersion() versionData {
	bi, _ := debug.ReadBuildInfo()
	return versionFrom(stampedVersion, stampedCommit, stampedModified == "modified", bi)
}

// versionFrom is buildVersion's rule: a stamped version wins, with the
// stamped commit; else the module version and the VCS settings of bi (nil
// when the binary carries none).
func versionFrom(version, commit string, modified bool, bi *debug.BuildInfo) versionData {
	v := versionData{Version: "(devel)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil && bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	if version != "" {
		v.Version, v.Commit, v.Modified = version, commit, modified
		return v
	}
	if bi == nil {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// NewCmdVersion builds `plangit version`.
func NewCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print plangit's version and the Go version it was built with (also --version, -v)",
		Args:  exactArgs(0, "no arguments"),
		RunE:  func(cmd *cobra.Command, args []string) error { return versionRun(f) },
	}
}

func versionRun(f *Factory) error {
	v := buildVersion()
	return f.print(v, func(w io.Writer) {
		line := "plangit " + v.Version
		if short := v.Commit[:min(12, len(v.Commit))]; short != "" && (v.Modified || !strings.Contains(v.Version, short)) {
			line += " (" + short
			if v.Modified {
				line += ", modified"
			}
			line += ")"
		}
		fmt.Fprintf(w, "%s %s %s\n", line, v.Go, v.Platform)
	})
}
