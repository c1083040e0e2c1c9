//go:build windows

package cmd

import (
	"os"

	"golang.org/x/sys/windows"
)

// terminal reports whether f is a console, and its width (0 when it does
// not say). A character device is not enough: NUL is one.
func terminal(f *os.File) (ok bool, width int) {
	h := windows.Handle(f.Fd())
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil {
		return false, 0
	}
	var info windows.ConsoleScreenBufferInfo
	if windows.GetConsoleScreenBufferInfo(h, &info) == nil {
		width = int(info.Window.Right-info.Window.Left) + 1
	}
	return true, width
}

// escapes reports whether the console f draws escape codes (colours),
// switching on their processing where the console can: Windows 10 and
// later can, older consoles print the codes as text.
func escapes(f *os.File) bool {
	h := windows.Handle(f.Fd())
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil {
		return false
	}
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
