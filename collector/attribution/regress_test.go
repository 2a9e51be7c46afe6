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
