package timing

import (
	"math"
	"testing"
	"time"

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
	h := New(f, func(ls []stream.Launch) []stream.Launch { return ls[:0] }, func(uint64) *Clock { return NewClock(1, hz, 32) })
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

// benchSource is a Source for the harvester's benchmarks whose own cost is
// next to nothing (fakeSource's maps cost more than the harvester): a
// pass's 4096 immediate launches, drained by a copy, their readings from a
// table, their releases counted. What the benchmarks using it measure is
// the harvester alone (package cgo's calls and the driver's come on top).
type benchSource struct {
	fakeSource
	batch    []Slot            // the next Drain's slots
	ts       []KernelTimestamp // by event - benchEvent0
	released int
}

const benchEvent0 = 1000

func (f *benchSource) Drain(dst []Slot) ([]Slot, uint64) {
	n := min(len(f.batch), DrainBatch)
	dst = append(dst, f.batch[:n]...)
	f.batch = f.batch[:copy(f.batch, f.batch[n:])]
	if len(f.batch) > 0 {
		return dst, f.batch[0].HostNs
	}
	return dst, math.MaxUint64
}

func (f *benchSource) KernelTimestamps(evs []uint64, dst []EventReading) []EventReading {
	for _, ev := range evs {
		dst = append(dst, EventReading{TS: f.ts[ev-benchEvent0], Ready: true})
	}
	return dst
}

func (f *benchSource) KernelTimestampsReset(evs []uint64, dst []EventReading) []EventReading {
	return f.KernelTimestamps(evs, dst)
}

func (f *benchSource) bench() *benchSource { return f }

func (f *benchSource) ReleaseEvents(refs []EventRef) { f.released += len(refs) }
func (f *benchSource) ReturnEvents(refs []EventRef)  { f.released += len(refs) }

// benchCopier is benchSource with device-side copies (TimestampCopier)
// that complete at once, their readings from the same table: what
// BenchmarkHarvestImmediateCopiedAlone measures is the harvester's own
// time on the copy path.
type benchCopier struct {
	benchSource
	evs []uint64
}

func (f *benchCopier) CopyTimestamps(_, _ uint64, events []uint64) (uint64, CopyStatus) {
	f.evs = append(f.evs[:0], events...)
	return 1, CopyStarted
}

func (f *benchCopier) CopyResults(_ uint64, _ int, dst []EventReading, _ time.Duration) ([]EventReading, bool, error) {
	return f.KernelTimestamps(f.evs, dst), true, nil
}

func (f *benchCopier) CopyAbandon(uint64) {}

// BenchmarkHarvestImmediateAlone is BenchmarkHarvestImmediate with
// benchSource: the harvester's own time per launch (drain processing,
// record, conversion, batching; cpu-ns/launch is the process's CPU time,
// GC included), reading each event on the host.
func BenchmarkHarvestImmediateAlone(b *testing.B) {
	benchImmediateAlone(b, &benchSource{fakeSource: *newFake()})
}

// BenchmarkHarvestImmediateCopiedAlone is BenchmarkHarvestImmediateAlone
// with the events read by device-side copies (one per pass, after one
// host query of the batch's last event).
func BenchmarkHarvestImmediateCopiedAlone(b *testing.B) {
	benchImmediateAlone(b, &benchCopier{benchSource: benchSource{fakeSource: *newFake()}})
}

func benchImmediateAlone(b *testing.B, src interface {
	Source
	bench() *benchSource
}) {
	const batch = 4096
	f := src.bench()
	f.ts = make([]KernelTimestamp, batch)
	h := New(src, func(ls []stream.Launch) []stream.Launch { return ls[:0] }, func(uint64) *Clock { return NewClock(1, hz, 32) })
	now := uint64(1e9)
	h.now = func() uint64 { return now }
	imm := uint8(SlotFlagImmediate | SlotFlagOurs)
	b.ReportAllocs()
	cpu0 := processCPUNs()
	b.ResetTimer()
	for done := 0; done < b.N; done += batch {
		for i := uint64(0); i < batch; i++ {
			f.batch = append(f.batch, launch(now+i*200, benchEvent0+i, imm, 1))
			f.ts[i] = tsAt(now+i*200+100, now+i*200+150)
		}
		now += 1e6
		for len(f.batch) > 0 {
			h.Poll()
		}
		h.Poll()
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPUNs()-cpu0)/float64(b.N), "cpu-ns/launch")
	if h.timed.Load() < uint64(b.N) {
		b.Fatalf("timed %d of %d", h.timed.Load(), b.N)
	}
}

// BenchmarkHarvestRegularReadAlone is BenchmarkHarvestRegularRead with
// benchSource: a regular list of 4096 launches recorded, executed once
// without a snapshot (the harvester reads the list's events), and reset,
// per pass; the harvester's own time.
func BenchmarkHarvestRegularReadAlone(b *testing.B) {
	const batch = 4096
	f := &benchSource{fakeSource: *newFake(), ts: make([]KernelTimestamp, batch)}
	h := New(f, func(ls []stream.Launch) []stream.Launch { return ls[:0] }, func(uint64) *Clock { return NewClock(1, hz, 32) })
	now := uint64(1e9)
	h.now = func() uint64 { return now }
	b.ReportAllocs()
	cpu0 := processCPUNs()
	b.ResetTimer()
	for done := 0; done < b.N; done += batch {
		for i := uint64(0); i < batch; i++ {
			f.batch = append(f.batch, regLaunch(now+i, benchEvent0+i, uint32(i+1), 5))
			f.ts[i] = tsAt(now+batch+i*10+100, now+batch+i*10+105)
		}
		e := exec(now+batch, 5, 0)
		f.submits[e.List]++
		e.Seq = f.submits[e.List]
		f.batch = append(f.batch, e)
		now += 1e6
		for len(f.batch) > 0 {
			h.Poll()
		}
		f.batch = append(f.batch, Slot{Kind: SlotReset, HostNs: now, ListID: 5})
		now += 1e6
		h.Poll()
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPUNs()-cpu0)/float64(b.N), "cpu-ns/launch")
	if h.timed.Load() < uint64(b.N) {
		b.Fatalf("timed %d of %d", h.timed.Load(), b.N)
	}
}

// TestHarvestImmediateNoAllocs: with a source that allocates nothing
// itself (benchSource), a pass of immediate launches allocates nothing at
// all once its storage grew (TestHarvestAllocs allows a few per pass: the
// fake's maps and a list's state per reset).
func TestHarvestImmediateNoAllocs(t *testing.T) {
	const batch = 1024
	f := &benchSource{fakeSource: *newFake(), ts: make([]KernelTimestamp, batch)}
	h := New(f, func(ls []stream.Launch) []stream.Launch { return ls[:0] }, func(uint64) *Clock { return NewClock(1, hz, 32) })
	now := uint64(1e9)
	h.now = func() uint64 { return now }
	imm := uint8(SlotFlagImmediate | SlotFlagOurs)
	pass := func() {
		for i := uint64(0); i < batch; i++ {
			f.batch = append(f.batch, launch(now+i*200, benchEvent0+i, imm, 1))
			f.ts[i] = tsAt(now+i*200+100, now+i*200+150)
		}
		now += 1e6
		h.Poll()
	}
	pass() // warm: storage grows to its size once
	if a := testing.AllocsPerRun(20, pass); a != 0 {
		t.Errorf("%.1f allocations per pass of %d immediate launches, want 0", a, batch)
	}
	if h.timed.Load() != 22*batch {
		t.Errorf("timed %d of %d", h.timed.Load(), 22*batch)
	}
}

// passSource is a Source whose every Drain after a refill returns the
// same batch of DrainBatch slots (a copy, as package cgo's drain writes
// the harvester's buffer) and whose reads copy prepared readings: nothing
// per launch but those two copies, so that what BenchmarkHarvestImmediatePass
// measures is the harvester's own work.
type passSource struct {
	fakeSource
	batch    []Slot
	readings []EventReading // by event - benchEvent0
	full     bool           // the next Drain returns batch
	released int
}

func (f *passSource) Drain(dst []Slot) ([]Slot, uint64) {
	if !f.full {
		return dst, math.MaxUint64
	}
	f.full = false
	return append(dst, f.batch...), math.MaxUint64
}

// KernelTimestampsReset: the events of a batch are consecutive.
func (f *passSource) KernelTimestampsReset(evs []uint64, dst []EventReading) []EventReading {
	if len(evs) == 0 {
		return dst
	}
	return append(dst, f.readings[evs[0]-benchEvent0:][:len(evs)]...)
}

func (f *passSource) KernelTimestamps(evs []uint64, dst []EventReading) []EventReading {
	return f.KernelTimestampsReset(evs, dst)
}

func (f *passSource) ReturnEvents(refs []EventRef)  { f.released += len(refs) }
func (f *passSource) ReleaseEvents(refs []EventRef) { f.released += len(refs) }
func (f *passSource) ListSubmits(uint64) uint64     { return 1 }

// BenchmarkHarvestImmediatePass is the harvester's own time per launch
// for passes of DrainBatch immediate launches that all completed: one
// launch per op (ns/op is per launch), the Source's work two copies.
func BenchmarkHarvestImmediatePass(b *testing.B) {
	f := &passSource{fakeSource: *newFake()}
	now := uint64(1e9)
	imm := uint8(SlotFlagImmediate | SlotFlagOurs)
	for i := uint64(0); i < DrainBatch; i++ {
		f.batch = append(f.batch, launch(now+i*200, benchEvent0+i, imm, 1))
		f.readings = append(f.readings, EventReading{TS: tsAt(now+i*200+100, now+i*200+150), Ready: true})
	}
	h := New(f, func(ls []stream.Launch) []stream.Launch { return ls[:0] }, func(uint64) *Clock { return NewClock(1, hz, 32) })
	now += 1e6
	h.now = func() uint64 { return now }
	benchPasses(b, h, DrainBatch, func() {
		f.full = true
		h.Poll()
	})
}

// benchPasses runs pass, which harvests perPass launches, until b.N
// launches are harvested, and reports the process's CPU per launch; every
// launch must be timed and none left pending.
func benchPasses(b *testing.B, h *Harvester, perPass int, pass func()) {
	b.ReportAllocs()
	cpu0 := processCPUNs()
	b.ResetTimer()
	for done := 0; done < b.N; done += perPass {
		pass()
	}
	b.StopTimer()
	b.ReportMetric(float64(processCPUNs()-cpu0)/float64(b.N), "cpu-ns/launch")
	if h.timed.Load() < uint64(b.N) || h.npending != 0 {
		b.Fatalf("timed %d of %d, %d pending", h.timed.Load(), b.N, h.npending)
	}
}

// BenchmarkHarvestRegularReadPass is BenchmarkHarvestImmediatePass for
// regular lists read without a snapshot (zestall-bench-launch's regular
// mode: record, execute, synchronise, reset): a pass drains a list's
// DrainBatch-1 launches and its execution and reads their events, the
// next one its reset (the events go back).
func BenchmarkHarvestRegularReadPass(b *testing.B) {
	f := &passSource{fakeSource: *newFake()}
	now := uint64(1e9)
	const n = DrainBatch - 1
	for i := uint64(0); i < n; i++ {
		f.batch = append(f.batch, regLaunch(now+i*10, benchEvent0+i, uint32(i+1), 5))
		f.readings = append(f.readings, EventReading{TS: tsAt(now+n*10+i*10+100, now+n*10+i*10+105), Ready: true})
	}
	f.batch = append(f.batch, execSeq(now+n*10, 5, 1))
	launches := f.batch
	reset := []Slot{{Kind: SlotReset, HostNs: now + n*20 + 1000, ListID: 5}}
	h := New(f, func(ls []stream.Launch) []stream.Launch { return ls[:0] }, func(uint64) *Clock { return NewClock(1, hz, 32) })
	now += 1e6
	h.now = func() uint64 { return now }
	benchPasses(b, h, n, func() {
		f.batch, f.full = launches, true
		h.Poll()
		f.batch, f.full = reset, true
		h.Poll()
	})
}
