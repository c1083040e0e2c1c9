//go:build unix

package disk

import (
	"os"
	"os/exec"
	"sync"
	"testing"
)

// TestReleaseWhileProgramsStart: a lock released while other goroutines
// of the process start programs is free at once. Closing the descriptor
// alone left it held, in about half the tries here, by the copy a program
// holds from its fork until its exec.
func TestReleaseWhileProgramsStart(t *testing.T) {
	t.Parallel()
	prog, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true program to start")
	}
	dir := t.TempDir()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					exec.Command(prog).Run()
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	lock := func() *os.File {
		f, err := os.OpenFile(dir, os.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	for i := range 300 {
		f := lock()
		if ok, err := TryLock(f, true); !ok || err != nil {
			t.Fatalf("try %d: the lock released before is still held (%v)", i, err)
		}
		if err := Release(f); err != nil {
			t.Fatal(err)
		}
		g := lock()
		if ok, err := TryLock(g, true); !ok || err != nil {
			t.Fatalf("try %d: the lock just released is still held (%v)", i, err)
		}
		Release(g)
	}
}
