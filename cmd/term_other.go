//go:build !unix

package cmd

import "os"

// terminalWidth is unknown here; COLUMNS can say it.
func terminalWidth(*os.File) int { return 0 }

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
