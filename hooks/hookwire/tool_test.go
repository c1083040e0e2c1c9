package hookwire

import "testing"

// TestProgram: the program a command runs, past what runs it as it is.
func TestProgram(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{
		"plangit step done 9":                        "plangit",
		"/usr/local/bin/plangit next":                "plangit",
		"PLANGIT_SESSION=s1 plangit show":            "plangit",
		`FOO="a b" plangit show`:                     "plangit",
		`FOO='a b' BAR=1 plangit show`:               "plangit",
		"timeout 30 plangit step done 99":            "plangit",
		"timeout -k 5 -s KILL 30s plangit show":      "plangit",
		"env FOO=1 plangit show":                     "plangit",
		"sudo -u dev plangit show":                   "plangit",
		"nice -n 5 plangit show":                     "plangit",
		"time plangit show":                          "plangit",
		"command plangit show":                       "plangit",
		"command -v plangit":                         "command",
		"env":                                        "",
		"! plangit show":                             "plangit",
		"exec plangit show":                          "plangit",
		"2>/dev/null plangit show":                   "plangit",
		"> out.txt plangit show":                     "plangit",
		`"plangit" show`:                             "plangit",
		"go test ./...":                              "go",
		"FOO=1":                                      "",
		"":                                           "",
		"timeout 30":                                 "",
		"echo plangit":                               "echo",
		"bash -c 'plangit show'":                     "plangit",
		`sh -lc "PLANGIT_SESSION=s1 plangit next"`:   "plangit",
		"bash -c 'go test ./...'":                    "go",
		"bash script.sh":                             "bash",
		"bash --norc":                                "bash",
		"nohup ./plangit-hook PreToolUse < in.json ": "plangit-hook",
	} {
		if got := Program(cmd); got != want {
			t.Errorf("Program(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestRunsPlangit: wrapped or prefixed, plangit is still plangit.
func TestRunsPlangit(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]bool{
		"timeout 30 plangit step done 99":      true,
		`FOO="a b" plangit show`:               true,
		"cd app && sudo plangit show":          true,
		"go test ./... | tee plangit.txt":      false,
		"echo plangit":                         false,
		"grep -rn plangit . && ls":             false,
		"git log --format=%s | plangit import": true,
	} {
		if got := RunsPlangit(cmd); got != want {
			t.Errorf("RunsPlangit(%q) = %v, want %v", cmd, got, want)
		}
	}
}
