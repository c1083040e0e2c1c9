// Package bigstack grows the main goroutine's stack, once, to the size
// plangit and plangit-hook need, before any other package is initialised.
//
// A goroutine starts with a small stack and doubles it as calls go
// deeper. plangit-hook's go deep enough to double it twice — the first
// time already in the standard library's package initialisation —
// plangit's (cobra, goldmark's parser) four times, and in a process that
// lives a few milliseconds each doubling costs: the runtime
// carves a pool of stacks of the new size, touching every page of it, and
// copies the stack over. A frame as large as this package's makes the
// runtime grow the stack to fit it in one step (a stack this size comes
// whole, with no pool to carve), and the pages the frame reserves are
// never touched, as the branch that declares it is never taken.
//
// Go initialises packages in the order of their import paths, each once
// the packages it imports are (the language specification, "Package
// initialization"). This package imports nothing, and its path sorts
// before every standard package's whose initialisation calls deep
// ("internal/godebug", which os imports): so it runs first. plangit-hook
// and package cmd import it for its initialisation alone; the test of
// plangit-hook holds the order in both programs.
//
// The frame, 120 KB, gives a 128 KB stack. A step change of a 200-step
// plan made a median of 749 page faults with it, 758 with a 32 KB stack
// and 787 without this package (21 runs each).
package bigstack

// depth is never as large as grow's test: the compiler cannot know it.
var depth = 1

func init() { grow(depth) }

//go:noinline
func grow(n int) byte {
	if n > 1<<20 {
		var frame [120 << 10]byte
		frame[n%len(frame)] = 1
		return frame[n/2%len(frame)]
	}
	return 0
}
