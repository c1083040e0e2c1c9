package cmd

import (
	"os"
	"testing"
)

// TestTerminal: /dev/null (NUL on Windows) is a character device but no
// terminal, so output sent there is treated as piped (plain, buffered,
// actor agent).
func TestTerminal(t *testing.T) {
	t.Parallel()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for name, f := range map[string]*os.File{os.DevNull: null, "a pipe": w} {
		if tty, width := terminal(f); tty || width != 0 {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
}
