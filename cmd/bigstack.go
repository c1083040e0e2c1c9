package cmd

// Every plangit process grows its stack once, to its full size, before
// anything else runs: see package bigstack.
import _ "github.com/plangit/plangit/cmd/internal/bigstack"
