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
