package repo

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// Crash points, for tests only. PLANGIT_CRASH_AT=NAME[:N] makes the process
// kill itself with SIGKILL the N-th time (default: the first) it reaches
// the point NAME, so a test can stop a real plangit at a chosen moment of
// a change and check what the next command makes of it. The points:
//
//	objects  a commit's objects are written; nothing else is
//	intent   the intent record is written; the branch has not moved
//	ref      the branch has moved; no working file is written
//	file     one working file is written (with :N, the N-th)
//	index    the working files and the index are written; the record stays
//	revlog   the change is complete but for the revision log
//	pack     a new pack is in place; loose objects and old packs remain
//	queue    a batch of queued hook events is committed; the queue's progress is not saved
//
// Unset, a crash point costs a comparison with an empty string.
var crashAt, crashAfter = parseCrashAt(os.Getenv("PLANGIT_CRASH_AT"))

func parseCrashAt(v string) (string, int) {
	name, n, ok := strings.Cut(v, ":")
	if !ok {
		return name, 1
	}
	count, err := strconv.Atoi(n)
	if err != nil || count < 1 {
		return "", 0
	}
	return name, count
}

func crashPoint(name string) {
	if crashAt == "" || crashAt != name {
		return
	}
	if crashAfter--; crashAfter > 0 {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill()
		time.Sleep(time.Minute) // the signal is on its way
	}
}
