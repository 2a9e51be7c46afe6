package timing

import (
	"testing"

	"github.com/zestall/zestall/proto/stream"
)

// BenchmarkHarvestImmediate is the harvester's cost per launch of an
// immediate list whose event (zestall's) signalled before the drain:
// drain, one batched read, conversion, record, one batched release. The
// launch path's ceiling is the inverse of this (what the Source's driver
// calls and the writer cost comes on top).
func BenchmarkHarvestImmediate(b *testing.B) {
	const batch = 4096
	f := newFake()
	h := New(f, func(ls []stream.Launch) []stream.Launch { return ls[:0] }, func(uint64) *Clock { return &Clock{id: 1, hz: hz, kernelMask: 0xffffffff} })
	now := uint64(1e9)
	h.now = func() uint64 { return now }
	imm := uint8(SlotFlagImmediate | SlotFlagOurs)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += batch {
		for i := uint64(0); i < batch; i++ {
			ev := 1000 + i
			f.slots = append(f.slots, launch(now+i, ev, imm, 1))
			f.signaled[ev] = tsAt(now+i+100, now+i+200)
		}
		now += 1e6
		h.Poll()
	}
	b.StopTimer()
	if h.timed.Load() < uint64(b.N) {
		b.Fatalf("timed %d of %d", h.timed.Load(), b.N)
	}
}

// BenchmarkHarvestRegular is BenchmarkHarvestImmediate for a regular list
// of 4096 launches executed once with a snapshot, then reset.
func BenchmarkHarvestRegular(b *testing.B) {
	const batch = 4096
	run := harvestLoop("regular", batch)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += batch {
		run()
	}
}

// BenchmarkHarvestRegularRead is BenchmarkHarvestRegular for the first
// execution of a recording, which has no snapshot: the harvester reads the
// list's 4096 events (record, execute, synchronise, reset: what
// zestall-bench-launch's regular mode does).
func BenchmarkHarvestRegularRead(b *testing.B) {
	const batch = 4096
	run := harvestLoop("regular-read", batch)
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += batch {
		run()
	}
}
