// Command emptyhook reads a hook's payload and answers nothing: the
// floor for any hook written in Go, which the whole-process benchmark
// (bench_test.go) times beside plangit-hook.
package main

import (
	"io"
	"os"
)

func main() {
	io.Copy(io.Discard, os.Stdin)
}
