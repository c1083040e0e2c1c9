// Package hugeheap asks Linux to back the start of the heap with a huge
// page, once, as the program starts.
//
// A plangit process lives a few milliseconds, and most of that is spent
// taking page faults: every 4 KB page of heap it touches is a fault, and
// a step change of a 200-step plan touches some 400 of them. Where a fault
// is dear — in a virtual machine whose memory the host hands back on
// demand, such as the microVMs agents often run in — that is most of the
// command's time: on the 2-CPU VM plangit's benchmarks run on, a fault
// took 15–25 µs, and the same step change took 24.5 ms with 4 KB pages and
// 18.4 ms with this package (medians of 21 interleaved runs; 748 page
// faults against 339).
//
// The runtime leaves huge pages to the system's setting, which is
// "madvise" on most distributions: none for the heap unless asked. The
// runtime maps the heap in 4 MB chunks, each aligned to its size; this
// package asks, with madvise(2), for huge pages in the chunk holding the
// heap's first allocations (MADV_HUGEPAGE: the first fault in an untouched
// 2 MB half maps a whole huge page), and collapses the half already in
// use into one at once (MADV_COLLAPSE, Linux 6.1: the pages touched so far
// are copied into it). The heap starts at a random offset in its chunk,
// so a command whose heap outgrows what is left of it takes 4 KB pages
// beyond. Where huge pages are off, the kernel is older, or no huge page
// is free, the calls fail and nothing changes.
//
// The cost is a huge page's worth of memory per process, and the time to
// clear it: over 200 runs here 0.43 ms at the median, 0.75 ms at the
// 90th percentile and 5.9 ms at the 99th (when the host must first supply
// the memory), and about what it saves where page faults are cheap. The
// heap of a long-lived process (plangit-mcp) is otherwise untouched: the
// runtime may return the page to the system as it likes.
package hugeheap
