package attribution_test

import (
	"testing"

	"github.com/zestall/zestall/collector/attribution"
)

// TestAttributorWindowBeforeKernels: samples read before the attributor
// knows any kernel (every kernel lacked a base address, or none was
// created yet) are unattributed; the reader used to crash on its nil
// address index.
func TestAttributorWindowBeforeKernels(t *testing.T) {
	a := attribution.New(1, nil, 2)
	a.AddWindowValues(10, 20, []uint64{0x200, 1, 0}, 0)
	a.Resolve(^uint64(0), true)
	if tot := a.Totals(); tot.UnattributedRows != 1 || tot.AttributedRows != 0 {
		t.Errorf("totals %+v", tot)
	}
}

// TestAttributorPruneOverlappingWindows: a read window starts where the
// previous read began, before that read ended, so consecutive windows
// overlap. Pruning used to forget kernels destroyed before the last
// window's end although the next window, starting earlier, still covered
// part of their lifetime: their samples came out unattributed (seen with
// slow reads and many kernels, 4 threads with module copies).
func TestAttributorPruneOverlappingWindows(t *testing.T) {
	const base = 0x10000
	a := attribution.New(1, nil, 1)
	for i := uint64(0); i < 300; i++ { // enough churn for a prune at the next Resolve
		a.KernelCreated(i+1, base+i*0x100, 0x100, 0)
	}
	a.KernelDestroyed(1, 150)
	a.AddWindow(100, 200, []attribution.Sample{{IP: (base + 0x100) >> 3, Counters: []uint64{1}}})
	a.Resolve(^uint64(0), false)
	// The read that began at 100 ended at 200; the next window starts at
	// 100 and holds a sample of kernel 1, taken before it was destroyed.
	a.AddWindow(100, 300, []attribution.Sample{{IP: base >> 3, Counters: []uint64{1}}})
	a.Resolve(^uint64(0), true)
	if tot := a.Totals(); tot.UnattributedRows != 0 || tot.AttributedRows != 2 {
		t.Errorf("attributed %d, unattributed %d rows; want 2 and 0", tot.AttributedRows, tot.UnattributedRows)
	}
}
