//go:build !unix

package cmd

import "os"

// terminalWidth is unknown here; COLUMNS can say it.
func terminalWidth(*os.File) int { return 0 }
