package render

import (
	"os"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

// TestMain reports the tests skipped for want of dot, Chromium or
// mermaid.js, which go test would otherwise hide behind "ok".
func TestMain(m *testing.M) { os.Exit(repotest.Main(m)) }
