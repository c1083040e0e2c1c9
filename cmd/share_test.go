package cmd

import (
	"os"
	"regexp"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// waitfile FILE REGEXP: wait, up to 30 seconds, until FILE exists and
// matches REGEXP — for what a background process (a hook's push) writes
// when it is done.
func waitfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfile FILE REGEXP")
	}
	re, err := regexp.Compile(args[1])
	if err != nil {
		ts.Fatalf("waitfile: %v", err)
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && re.Match(b) {
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(path)
			ts.Fatalf("waitfile: %s does not match %q after 30s:\n%s", args[0], args[1], b)
		}
	}
}
