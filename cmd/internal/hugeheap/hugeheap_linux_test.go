package hugeheap

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestHeapRegionAdvised: after the package's initialisation, the mapping
// holding the heap's first region carries the huge-page advice ("hg" in
// /proc/self/smaps' VmFlags) wherever the kernel offers transparent huge
// pages at all; how much of it is a huge page (AnonHugePages) depends on
// free memory, so it is reported, not required.
func TestHeapRegionAdvised(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages are off here (%q, %v): the advice is refused and nothing changes", strings.TrimSpace(string(mode)), err)
	}
	addr := uintptr(unsafe.Pointer(first))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, found := false, false
	var anonHuge string
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= addr && addr < hi
			continue
		}
		if !in {
			continue
		}
		if v, ok := strings.CutPrefix(line, "AnonHugePages:"); ok {
			anonHuge = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "VmFlags:"); ok {
			found = true
			if !strings.Contains(" "+v+" ", " hg ") {
				t.Errorf("the heap's first mapping has VmFlags %q: no huge-page advice", strings.TrimSpace(v))
			}
		}
	}
	if !found {
		t.Fatalf("no mapping in /proc/self/smaps holds %#x", addr)
	}
	t.Logf("the heap's first mapping: AnonHugePages %s", anonHuge)
}
