//go:build unix

package cmd

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalWidth is the width of the terminal on f, or 0.
func terminalWidth(f *os.File) int {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}

// isTerminal reports whether f is a terminal. (A character device is not
// enough: /dev/null is one.)
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	return err == nil
}
