package hooks

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/plangit/plangit/repo"
)

// maxEnvFile bounds how much of a host's env file is read to see what it
// holds already.
const maxEnvFile = 1 << 20

// writeEnvFile gives the agent's shell its session and project: it
// appends "export PLANGIT_SESSION='ID'" and "export PLANGIT_ROOT='ROOT'" to
// the file the host runs before each of the agent's shell commands
// (Input.EnvFile), unless the file's last assignments of both say so
// already. Other hooks' lines stay: the file is only appended to, with a
// newline first if it lacks its last, and ends with one. It never writes
// through a symbolic link, nor to anything but a regular file; a file that
// is missing is created.
func writeEnvFile(path, session, root string) error {
	want := []string{"export PLANGIT_SESSION=" + shellQuote(session), "export PLANGIT_ROOT=" + shellQuote(root)}
	var have []byte
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file (a symbolic link?); plangit never writes through one", path)
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		have, err = io.ReadAll(io.LimitReader(f, maxEnvFile))
		f.Close()
		if err != nil {
			return err
		}
	}
	if lastAssignment(have, "PLANGIT_SESSION") == want[0] && lastAssignment(have, "PLANGIT_ROOT") == want[1] {
		return nil
	}
	text := strings.Join(want, "\n") + "\n"
	if len(have) > 0 && !bytes.HasSuffix(have, []byte("\n")) {
		text = "\n" + text
	}
	return repo.AppendFile(path, []byte(text), true)
}

// lastAssignment is the last line of a shell script that sets name, as
// written ("export NAME=…" or "NAME=…"), trimmed; "" when none does.
func lastAssignment(script []byte, name string) string {
	last := ""
	for _, line := range strings.Split(string(script), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(strings.TrimPrefix(l, "export "), name+"=") {
			last = l
		}
	}
	return last
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
