package cmd

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// versionData is what plangit version prints with --json.
type versionData struct {
	Version  string `json:"version"`            // the module version; (devel) for a local build
	Go       string `json:"go"`                 // the Go release it was built with
	Platform string `json:"platform"`           // GOOS/GOARCH
	Commit   string `json:"commit,omitempty"`   // the VCS revision, when the build recorded it
	Modified bool   `json:"modified,omitempty"` // the work tree had changes at build time
}

// buildVersion reads the module version and the Go version from the build
// information the Go toolchain embeds in the binary.
func buildVersion() versionData {
	v := versionData{Version: "(devel)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
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
