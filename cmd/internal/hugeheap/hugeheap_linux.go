package hugeheap

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a huge page mapped by one page-table entry
// (PMD) with 4 KB pages: amd64 and arm64 alike. Where it differs, the
// kernel refuses the ranges below and nothing changes.
const hugePage = 2 << 20

// first is the heap's first allocation of this package, whose region
// the heap has been filling since the runtime started.
var first = new([16]byte)

func init() {
	start := uintptr(unsafe.Pointer(first)) &^ (hugePage - 1)
	// Errors are expected where huge pages are off or the next region is
	// not mapped yet; either way the heap works as before.
	// The addresses stay numbers: the calls name memory, not Go values.
	unix.Syscall(unix.SYS_MADVISE, start, 2*hugePage, unix.MADV_HUGEPAGE)
	unix.Syscall(unix.SYS_MADVISE, start, hugePage, unix.MADV_COLLAPSE)
}
