package cmd

// Every plangit process, before anything else runs, grows its stack once
// to its full size (package bigstack) and asks for a huge page under the
// start of its heap (package hugeheap).
import (
	_ "github.com/plangit/plangit/cmd/internal/bigstack"
	_ "github.com/plangit/plangit/cmd/internal/hugeheap"
)
