package cmd

import (
	"runtime/debug"
	"testing"
)

// TestVersionFrom: the version the release build stamps wins over the
// build information, with the stamped commit; a build without a stamp
// (go build, go install) takes the module version and the VCS settings,
// and a build that recorded nothing is (devel).
func TestVersionFrom(t *testing.T) {
	t.Parallel()
	devel := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "1111111111111111111111111111111111111111"},
		{Key: "vcs.modified", Value: "true"},
	}}
	installed := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.1.0"}}
	for _, c := range []struct {
		name             string
		version, commit  string
		modified         bool
		bi               *debug.BuildInfo
		want, wantCommit string
		wantModified     bool
	}{
		{"stamped", "0.1.0", "2222222222222222222222222222222222222222", false, devel, "0.1.0", "2222222222222222222222222222222222222222", false},
		{"stamped from a modified tree", "0.1.0", "2222222222222222222222222222222222222222", true, devel, "0.1.0", "2222222222222222222222222222222222222222", true},
		{"stamped without build information", "0.1.0", "", false, nil, "0.1.0", "", false},
		{"go build", "", "", false, devel, "(devel)", "1111111111111111111111111111111111111111", true},
		{"go install", "", "", false, installed, "v0.1.0", "", false},
		{"no build information", "", "", false, nil, "(devel)", "", false},
	} {
		v := versionFrom(c.version, c.commit, c.modified, c.bi)
		if v.Version != c.want || v.Commit != c.wantCommit || v.Modified != c.wantModified {
			t.Errorf("%s: version %q, commit %q, modified %v; want %q, %q, %v", c.name, v.Version, v.Commit, v.Modified, c.want, c.wantCommit, c.wantModified)
		}
		if c.bi != nil && v.Go != c.bi.GoVersion {
			t.Errorf("%s: go %q, want %q", c.name, v.Go, c.bi.GoVersion)
		}
	}
}
