package share_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/plangit/plangit/plan"
	"github.com/plangit/plangit/repo"
	"github.com/plangit/plangit/repo/repotest"
	"github.com/plangit/plangit/repo/share"
)

// TestPushStaleRemoteLock: a ref lock a killed receive-pack left in the
// remote makes a push fail with a message naming the lock file and how to
// remove it, and records nothing as pushed; once it is removed the push
// goes through.
func TestPushStaleRemoteLock(t *testing.T) {
	if !repotest.Long() {
		repotest.Short(t, "a sharing case beyond the fast suite's")
	}
	t.Parallel()
	w := newWorld(t, fileRemote)
	s, ra, _ := w.shared("s1")
	w.addStep(s, "after the lock")
	lock := filepath.Join(w.bare, "refs", "plangit", "sessions", "s1.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	before := strings.TrimSpace(gitIn(t, w.bare, "rev-parse", share.RemoteRef("s1")))
	res := ra.Push([]string{"s1"}, w.opts())
	statuses(t, res, "s1:failed")
	t.Log(res[0].Message)
	if !plan.HasCode(res[0].Err(), plan.CodeIOError) || !strings.Contains(res[0].Message, lock) ||
		!strings.Contains(res[0].Message, "remove that file") || !strings.Contains(res[0].Message, "rm '"+lock+"'") {
		t.Errorf("stale lock: %v", res[0].Err())
	}
	if st, _ := share.StatusOf(s); st.LastPush == nil || !strings.Contains(st.LastPush.Error, lock) {
		t.Errorf("the failure was not recorded: %+v", st)
	}
	if after := strings.TrimSpace(gitIn(t, w.bare, "rev-parse", share.RemoteRef("s1"))); after != before {
		t.Errorf("the remote moved to %s", after)
	}
	os.Remove(lock)
	statuses(t, ra.Push([]string{"s1"}, w.opts()), "s1:pushed")
	fsckAll(t, w)
}

// TestConcurrentPushesInProcess: pushes of one session from many
// goroutines of one process take turns too (the lock is on an open file,
// not on the process): all succeed, and the remote ends on the head.
func TestConcurrentPushesInProcess(t *testing.T) {
	if !repotest.Long() {
		repotest.Short(t, "a sharing case beyond the fast suite's")
	}
	t.Parallel()
	w := newWorld(t, fileRemote)
	s, _, _ := w.shared("s1")
	w.addStep(s, "pushed by many")
	var wg sync.WaitGroup
	results := make([][]share.SyncResult, 8)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := share.NewRemote(w.agent, share.RemoteOptions{What: "test"})
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = r.Push([]string{"s1"}, share.SyncOptions{Options: repo.Options{Now: t0, LockWait: 5e9}})
		}()
	}
	wg.Wait()
	pushed := 0
	for _, res := range results {
		for _, r := range res {
			if r.Err() != nil {
				t.Errorf("push: %v", r.Err())
			}
			if r.Status == "pushed" {
				pushed++
			}
		}
	}
	if pushed != 1 {
		t.Errorf("%d pushes moved the remote, want 1: %+v", pushed, results)
	}
	if got := strings.TrimSpace(gitIn(t, w.bare, "rev-parse", share.RemoteRef("s1"))); got != head(t, s) {
		t.Errorf("the remote holds %s, the session %s", got, head(t, s))
	}
	fsckAll(t, w)
}

// TestPushLostRaceToSameRevision: the remote says it could not update the
// ref ([remote rejected] (failed to update ref)) because something else
// moved it meanwhile — here a pre-receive hook that sets the ref itself,
// as a concurrent push of the same revision from another machine does.
// The remote holds the very revision pushed, so the push succeeded.
func TestPushLostRaceToSameRevision(t *testing.T) {
	if !repotest.Long() {
		repotest.Short(t, "a sharing case beyond the fast suite's")
	}
	t.Parallel()
	w := newWorld(t, fileRemote)
	s, ra, _ := w.shared("s1")
	hook := filepath.Join(w.bare, "hooks", "pre-receive")
	os.WriteFile(hook, []byte("#!/bin/sh\nwhile read old new ref; do env -u GIT_QUARANTINE_PATH git update-ref \"$ref\" \"$new\"; done\n"), 0o755)
	tip := w.addStep(s, "raced")
	res := ra.Push([]string{"s1"}, w.opts())
	statuses(t, res, "s1:up-to-date")
	if got := strings.TrimSpace(gitIn(t, w.bare, "rev-parse", share.RemoteRef("s1"))); got != tip {
		t.Errorf("the remote holds %s, want %s", got, tip)
	}
	if st, _ := share.StatusOf(s); st.LastPush == nil || st.LastPush.Error != "" || st.Remotes[0].State != "in-sync" {
		t.Errorf("share status: %+v %+v", st.LastPush, st.Remotes)
	}
	os.Remove(hook)
	fsckAll(t, w)
}
