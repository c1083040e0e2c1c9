// Command plangit gives an AI coding agent a persistent, versioned plan.
package main

import (
	"os"

	"github.com/plangit/plangit/cmd"
)

func main() { os.Exit(cmd.Main()) }
