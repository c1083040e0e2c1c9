package hugeheap

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	// chunk is the unit the runtime maps the heap in (its
	// pallocChunkBytes: 512 pages of 8 KB), each aligned to its size.
	chunk = 4 << 20
	// hugePage is the size of a huge page mapped by one page-table entry
	// (PMD) with 4 KB pages: amd64 and arm64 alike. Where it differs, the
	// kernel refuses the ranges below and nothing changes.
	hugePage = 2 << 20
)

// first is this package's first allocation, made in init (where it is a
// heap allocation: a package-level new may be laid out statically): the
// chunk that holds it is the one the heap is filling.
var first *[16]byte

func init() {
	first = new([16]byte)
	start := uintptr(unsafe.Pointer(first)) &^ (chunk - 1)
	// The addresses stay numbers: the calls name memory, not Go values.
	// Errors are expected where huge pages are off; either way the heap
	// works as before.
	unix.Syscall(unix.SYS_MADVISE, start, chunk, unix.MADV_HUGEPAGE)
	for r := start; r < start+chunk; r += hugePage {
		// A region with no page touched yet is refused; the advice above
		// makes its first fault a huge page.
		unix.Syscall(unix.SYS_MADVISE, r, hugePage, unix.MADV_COLLAPSE)
	}
}
