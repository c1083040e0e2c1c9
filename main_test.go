package main

import (
	"os"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestMain makes the tests' commits anonymous and reports the tests
// skipped for want of a program (repotest.Main).
func TestMain(m *testing.M) { os.Exit(repotest.Main(m)) }
