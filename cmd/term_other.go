//go:build !unix && !windows

package cmd

import "os"

// terminal reports whether f is a terminal; its width is unknown here
// (COLUMNS can say it).
func terminal(f *os.File) (ok bool, width int) {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0, 0
}

// escapes reports whether the terminal f draws escape codes (colours).
func escapes(f *os.File) bool { return true }
