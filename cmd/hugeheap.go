package cmd

// Every plangit process asks for a huge page under the start of its heap:
// see package hugeheap.
import _ "github.com/plangit/plangit/cmd/internal/hugeheap"
