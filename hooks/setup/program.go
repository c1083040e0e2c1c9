package setup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ProgramReport says which plangit the installed hooks run, whether it is
// the one PATH finds, and whether that one is the running plangit's
// version.
type ProgramReport struct {
	Hooks   string `json:"hooks,omitempty"`   // the plangit the hooks run, as they name it ("" when none)
	OnPath  string `json:"on_path,omitempty"` // the plangit PATH finds ("" when none)
	HooksOn bool   `json:"hooks_on_path"`     // the hooks run the plangit PATH finds
	// Version is what `plangit version` prints for the running plangit;
	// PathVersion the same of the plangit PATH finds.
	Version     string `json:"version"`
	PathVersion string `json:"path_version,omitempty"`
	SameVersion bool   `json:"same_version"`
}

// CheckProgram compares the plangit the hooks run (hooksRun) with the
// plangit PATH finds (lookPath), and that one's version with the running
// plangit's (running, its path).
func CheckProgram(hooksRun string, lookPath func(string) (string, error), running string) ProgramReport {
	r := ProgramReport{Hooks: hooksRun}
	if p, err := lookPath("plangit"); err == nil {
		r.OnPath = p
	}
	if r.OnPath != "" && hooksRun != "" {
		named := hooksRun
		if !strings.ContainsAny(named, `/\`) {
			named, _ = lookPath(named)
		}
		r.HooksOn = sameFile(named, r.OnPath)
	}
	r.Version = version(running)
	if r.OnPath != "" {
		r.PathVersion = version(r.OnPath)
		r.SameVersion = r.PathVersion != "" && r.PathVersion == r.Version
	}
	return r
}

func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(fa, fb)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// version is what `program version` prints, "" when it does not run.
func version(program string) string {
	if program == "" {
		return ""
	}
	c := exec.Command(program, "version")
	c.WaitDelay = 5 * time.Second
	out, err := c.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
