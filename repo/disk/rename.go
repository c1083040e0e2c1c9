package disk

import (
	"fmt"
	"os"
	"time"
)

// heldWait is how long a rename waits for another process to let go of
// the file it replaces.
const heldWait = 2 * time.Second

// Rename renames oldpath to newpath as os.Rename does. Where the system
// refuses because another process holds either file open (Windows, when
// an editor, an indexer or an antivirus has it), it tries again for up to
// two seconds, and then says what to do.
func Rename(oldpath, newpath string) error {
	deadline := time.Now().Add(heldWait)
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, 200*time.Millisecond) {
		err := os.Rename(oldpath, newpath)
		if err == nil || !heldOpen(err) {
			return err
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w: another program (an editor, an indexer, an antivirus) holds %s open, or it is read-only; close it or make it writable, and the next plangit command finishes the change", err, newpath)
		}
		time.Sleep(delay)
	}
}
