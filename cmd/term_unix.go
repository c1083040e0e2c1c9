//go:build unix

package cmd

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminal reports whether f is a terminal, and its width (0 when it does
// not say). One ioctl answers both; a character device is not enough, since
// /dev/null is one.
func terminal(f *os.File) (ok bool, width int) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return false, 0
	}
	return true, int(ws.Col)
}

// escapes reports whether the terminal f draws escape codes (colours):
// every Unix terminal does.
func escapes(f *os.File) bool { return true }
