package timing

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// fakeSource is a device whose events signal when the test says so. Its
// clock: 38.4 MHz, tick 0 at host ns 0, kernel timestamps 32 bits.
type fakeSource struct {
	slots    []Slot
	signaled map[uint64]KernelTimestamp
	released map[uint64]int
	failing  map[uint64]bool
	pools    []uint64
	// snapshots: the results of a completed copy
	snapshots        map[uint64][]KernelTimestamp
	snapshotReleased map[uint64]int
	submits          map[uint64]uint64 // list handle -> submissions made
	listsNoID        uint64            // command lists created without an id
	maxBatch         int               // the most events one KernelTimestamps call read
}

// appTSSlot is the SlotAppTS slot of an application's event read at
// hostNs on its thread (the launch path's encoding: Slot.TS).
func appTSSlot(hostNs, event uint64, ts KernelTimestamp) Slot {
	return Slot{Kind: SlotAppTS, HostNs: hostNs, Event: event,
		List: ts.Start, Device: ts.End, Context: ts.ContextStart, Queue: ts.ContextEnd}
}

func newFake() *fakeSource {
	return &fakeSource{signaled: map[uint64]KernelTimestamp{}, released: map[uint64]int{}, failing: map[uint64]bool{},
		snapshots: map[uint64][]KernelTimestamp{}, snapshotReleased: map[uint64]int{}, submits: map[uint64]uint64{}}
}

func (f *fakeSource) Enable(bool)     {}
func (f *fakeSource) Serialize(bool)  {}
func (f *fakeSource) WakeOnSync(bool) {}
func (f *fakeSource) Drain(dst []Slot) ([]Slot, uint64) {
	n := min(len(f.slots), DrainBatch)
	dst = append(dst, f.slots[:n]...)
	f.slots = f.slots[:copy(f.slots, f.slots[n:])]
	oldest := uint64(math.MaxUint64)
	for _, s := range f.slots {
		oldest = min(oldest, s.HostNs)
	}
	return dst, oldest
}
func (f *fakeSource) Dropped() (uint64, uint64)          { return 0, 0 }
func (f *fakeSource) SerializeTimeouts() uint64          { return 0 }
func (f *fakeSource) ListsWithoutID() uint64             { return f.listsNoID }
func (f *fakeSource) WaitOnFullRing(bool)                {}
func (f *fakeSource) RingWaits() (uint64, time.Duration) { return 0, 0 }
func (f *fakeSource) KernelTimestamps(evs []uint64, dst []EventReading) []EventReading {
	f.maxBatch = max(f.maxBatch, len(evs))
	for _, ev := range evs {
		if f.failing[ev] {
			dst = append(dst, EventReading{Failed: 0x78000005})
			continue
		}
		ts, ok := f.signaled[ev]
		dst = append(dst, EventReading{TS: ts, Ready: ok})
	}
	return dst
}

// KernelTimestampsReset is KernelTimestamps, and each event whose
// reading is final is reset (no longer signalled), as the launch path's
// zl_kernel_timestamps_reset does.
func (f *fakeSource) KernelTimestampsReset(evs []uint64, dst []EventReading) []EventReading {
	dst = f.KernelTimestamps(evs, dst)
	for i, ev := range evs {
		if r := dst[len(dst)-len(evs)+i]; r.Ready || r.Failed != 0 {
			delete(f.signaled, ev)
		}
	}
	return dst
}
func (f *fakeSource) ReturnEvents(refs []EventRef) {
	for _, r := range refs {
		if _, ok := f.signaled[r.Event]; ok {
			panic(fmt.Sprintf("event %d returned without a reset", r.Event))
		}
		f.released[r.Event]++
	}
}
func (f *fakeSource) ReleaseEvents(refs []EventRef) {
	for _, r := range refs {
		f.released[r.Event]++
		delete(f.signaled, r.Event)
	}
}
func (f *fakeSource) GlobalTimestamps(uint64) (uint64, uint64, error) { return 0, 0, nil }
func (f *fakeSource) DestroyContextPools(ctx uint64)                  { f.pools = append(f.pools, ctx) }
func (f *fakeSource) SnapshotResults(snapshot uint64, dst []KernelTimestamp) ([]KernelTimestamp, bool, error) {
	ts, ok := f.snapshots[snapshot]
	return append(dst, ts...), ok, nil
}
func (f *fakeSource) SnapshotRelease(snapshot uint64) {
	f.snapshotReleased[snapshot]++
	delete(f.snapshots, snapshot)
}
func (f *fakeSource) ListSubmits(list uint64) uint64 { return f.submits[list] }

const hz = 38_400_000

func ticks(ns uint64) uint64 { return ns/1e9*hz + ns%1e9*hz/1e9 }
func tsAt(startNs, endNs uint64) KernelTimestamp {
	s, e := ticks(startNs)&0xffffffff, ticks(endNs)&0xffffffff
	return KernelTimestamp{Start: s, End: e, ContextStart: s, ContextEnd: e}
}

type harness struct {
	f    *fakeSource
	h    *Harvester
	recs []stream.Launch
	now  uint64 // virtual host time: the latest slot's time + 1 ms
}

func newHarness() *harness { return newHarnessOf(newFake(), nil) }

// newHarnessOf is newHarness of the fake f, seen through src when it is
// not nil (a Source built on f).
func newHarnessOf(f *fakeSource, src Source) *harness {
	x := &harness{f: f}
	if src == nil {
		src = f
	}
	x.h = New(src, func(ls []stream.Launch) []stream.Launch {
		x.recs = append(x.recs, ls...)
		return ls[:0]
	}, func(uint64) *Clock { return NewClock(1, hz, 32) })
	x.h.now = func() uint64 { return x.now }
	return x
}

func (x *harness) step(slots ...Slot) {
	for _, s := range slots {
		if s.HostNs+1e6 > x.now {
			x.now = s.HostNs + 1e6
		}
	}
	x.f.slots = append(x.f.slots, slots...)
	x.h.Poll()
	x.check()
}

// check holds the harvester to its invariants between passes: the
// immediate FIFO's events batch (immEv) is its events, in order.
func (x *harness) check() {
	h := x.h
	if len(h.immEv) != len(h.imm) {
		panic(fmt.Sprintf("%d launches in the immediate FIFO, %d events", len(h.imm), len(h.immEv)))
	}
	for i := range h.imm {
		if h.immEv[i] != h.imm[i].event {
			panic(fmt.Sprintf("immediate FIFO launch %d: event %#x, immEv %#x", i, h.imm[i].event, h.immEv[i]))
		}
	}
}

func launch(ns, ev uint64, flags uint8, list uint32) Slot {
	return Slot{Kind: SlotLaunch, HostNs: ns, Event: ev, Device: 7, Context: 9, KernelID: 3, ListID: list, Flags: flags}
}

// regLaunch: a launch on regular list `list` whose event is zestall's and
// the index-th (1-based) its snapshot copies.
func regLaunch(ns, ev uint64, index uint32, list uint32) Slot {
	s := launch(ns, ev, SlotFlagOurs, list)
	s.EvIndex = index
	return s
}

// exec: an execution of a regular list with a snapshot.
func exec(ns uint64, list uint32, snapshot uint64) Slot {
	return Slot{Kind: SlotExec, HostNs: ns, ListID: list, List: 500, Queue: 1, Device: 7, Context: 9, Snapshot: snapshot}
}

// execSeq: an execution of a regular list without a snapshot, its
// submission number seq.
func execSeq(ns uint64, list uint32, seq uint64) Slot {
	s := exec(ns, list, 0)
	s.Seq = seq
	return s
}

// TestUntrackedList: a launch on a regular list the launch path does not
// track (list id 0: created before zestall was active, or past the
// 2^32-1 list ids, cgo/ids.h) arrives without an event and is recorded
// at once without times (UNSUPPORTED): no execution of such a list is
// ever published to wait for.
func TestUntrackedList(t *testing.T) {
	x := newHarness()
	s := launch(1e9, 0, SlotFlagNoEvent, 0)
	s.Reason = uint8(pb.NoTimestampReason_NO_TIMESTAMP_REASON_UNSUPPORTED)
	x.step(s)
	if len(x.recs) != 1 || x.recs[0].NoTimestampReason != pb.NoTimestampReason_NO_TIMESTAMP_REASON_UNSUPPORTED {
		t.Fatalf("records %+v", x.recs)
	}
	if len(x.h.lists) != 0 {
		t.Errorf("%d lists tracked", len(x.h.lists))
	}
}

// TestListsWithoutID: command lists created past the 2^32-1 list ids
// (cgo/ids.h) are counted as a loss, and only when there are any.
func TestListsWithoutID(t *testing.T) {
	for _, n := range []uint64{0, 5} {
		x := newHarness()
		x.f.listsNoID = n
		var c pb.Counters
		x.h.Counters(&c)
		var lost []*pb.Loss
		for _, l := range c.Lost {
			if l.What == LossListNoID {
				lost = append(lost, l)
			}
		}
		if n == 0 && len(lost) != 0 || n > 0 && (len(lost) != 1 || lost[0].Count != n) {
			t.Errorf("%d lists without an id: losses %v", n, c.Lost)
		}
	}
}

func TestHarvester(t *testing.T) {
	const sec = uint64(1e9)
	imm := uint8(SlotFlagImmediate | SlotFlagOurs)
	tests := []struct {
		name   string
		run    func(x *harness)
		want   []string // per record: "timed" or the reason
		starts []uint64 // expected device start ns of timed records (±30 ns)
	}{
		{"immediate", func(x *harness) {
			x.step(launch(10*sec, 100, imm, 1))
			x.f.signaled[100] = tsAt(10*sec+500, 10*sec+9000)
			x.step()
		}, []string{"timed"}, []uint64{10*sec + 500}},
		{"not yet signalled then final", func(x *harness) {
			x.step(launch(sec, 100, imm, 1))
			x.h.Final()
		}, []string{"NO_TIMESTAMP_REASON_NOT_COMPLETED"}, nil},
		{"kernel timestamps wrap (112 s at 38.4 MHz)", func(x *harness) {
			at := uint64(500) * sec // several wraps after tick 0
			x.step(launch(at, 100, imm, 1))
			x.f.signaled[100] = tsAt(at+1000, at+2000)
			x.step()
		}, []string{"timed"}, []uint64{500*sec + 1000}},
		{"regular list executed twice, read between", func(x *harness) {
			x.step(launch(sec, 100, SlotFlagOurs, 5), Slot{Kind: SlotExec, HostNs: 2 * sec, ListID: 5, Queue: 1, Device: 7})
			x.f.signaled[100] = tsAt(2*sec+100, 2*sec+200)
			x.step(Slot{Kind: SlotExec, HostNs: 3 * sec, ListID: 5, Queue: 1, Device: 7})
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+200)
			x.step()
		}, []string{"timed", "timed"}, []uint64{2*sec + 100, 3*sec + 100}},
		{"regular list executed twice, read after both", func(x *harness) {
			x.step(launch(sec, 100, SlotFlagOurs, 5),
				Slot{Kind: SlotExec, HostNs: 2 * sec, ListID: 5, Device: 7},
				Slot{Kind: SlotExec, HostNs: 3 * sec, ListID: 5, Device: 7})
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+200)
			x.step()
		}, []string{"NO_TIMESTAMP_REASON_OVERWRITTEN", "timed"}, []uint64{3*sec + 100}},
		{"stale reading before execution is ignored", func(x *harness) {
			x.f.signaled[100] = tsAt(sec/2, sec/2+10)
			x.step(launch(sec, 100, imm, 1))
			x.f.signaled[100] = tsAt(sec+100, sec+200)
			x.step()
		}, []string{"timed"}, []uint64{sec + 100}},
		{"application event read on its thread", func(x *harness) {
			x.step(launch(sec, 200, SlotFlagImmediate|SlotFlagAppEvent, 1))
			x.f.signaled[200] = tsAt(sec+10, sec+20) // never queried by the harvester
			x.step()
			x.step(appTSSlot(sec+50, 200, tsAt(sec+100, sec+200)))
		}, []string{"timed"}, []uint64{sec + 100}},
		{"application event destroyed unread", func(x *harness) {
			x.step(launch(sec, 200, SlotFlagImmediate|SlotFlagAppEvent, 1), Slot{Kind: SlotAppGone, HostNs: sec + 1, Event: 200})
		}, []string{"NO_TIMESTAMP_REASON_NOT_COMPLETED"}, nil},
		{"query error", func(x *harness) {
			x.f.failing[100] = true
			x.step(launch(sec, 100, imm, 1))
		}, []string{"NO_TIMESTAMP_REASON_QUERY_FAILED"}, nil},
		{"no event", func(x *harness) {
			s := launch(sec, 0, SlotFlagImmediate|SlotFlagNoEvent, 1)
			s.Reason = uint8(pb.NoTimestampReason_NO_TIMESTAMP_REASON_POOL_EXHAUSTED)
			x.step(s)
		}, []string{"NO_TIMESTAMP_REASON_POOL_EXHAUSTED"}, nil},
		{"list reset before completion", func(x *harness) {
			x.step(launch(sec, 100, SlotFlagOurs, 5), Slot{Kind: SlotExec, HostNs: 2 * sec, ListID: 5, Device: 7},
				Slot{Kind: SlotReset, HostNs: 3 * sec, ListID: 5})
		}, []string{"NO_TIMESTAMP_REASON_NOT_COMPLETED"}, nil},
		{"snapshots: three executions queued, read after all", func(x *harness) {
			x.step(regLaunch(sec, 100, 1, 5), regLaunch(sec+1, 101, 2, 5),
				exec(2*sec, 5, 1001), exec(3*sec, 5, 1002), exec(4*sec, 5, 1003))
			for i, u := range []uint64{1001, 1002, 1003} {
				at := uint64(i+2) * sec
				x.f.snapshots[u] = []KernelTimestamp{tsAt(at+100, at+200), tsAt(at+300, at+400)}
			}
			x.f.signaled[100] = tsAt(4*sec+100, 4*sec+200) // the events: never read
			x.step()
			if x.f.snapshotReleased[1001] != 1 || x.f.snapshotReleased[1003] != 1 || len(x.h.execs) != 0 {
				panic("snapshots not released once each")
			}
		}, []string{"timed", "timed", "timed", "timed", "timed", "timed"},
			[]uint64{2*sec + 100, 2*sec + 300, 3*sec + 100, 3*sec + 300, 4*sec + 100, 4*sec + 300}},
		{"snapshot: list reset before the copy completed", func(x *harness) {
			x.step(regLaunch(sec, 100, 1, 5), exec(2*sec, 5, 1001), Slot{Kind: SlotReset, HostNs: 3 * sec, ListID: 5})
			if x.f.released[100] != 0 {
				panic("event released while its snapshot list may still read it")
			}
			x.f.snapshots[1001] = []KernelTimestamp{tsAt(2*sec+100, 2*sec+200)}
			x.step()
			if x.f.released[100] != 1 {
				panic("event not released after the harvest")
			}
		}, []string{"timed"}, []uint64{2*sec + 100}},
		{"snapshot: stale copy", func(x *harness) {
			x.step(regLaunch(sec, 100, 1, 5), exec(2*sec, 5, 1001))
			x.f.snapshots[1001] = []KernelTimestamp{tsAt(sec/2, sec/2+100)}
			x.step()
		}, []string{"NO_TIMESTAMP_REASON_NOT_COMPLETED"}, nil},
		{"snapshot: never completed", func(x *harness) {
			x.step(regLaunch(sec, 100, 1, 5), exec(2*sec, 5, 1001))
			x.h.Final()
			if x.f.snapshotReleased[1001] != 0 {
				panic("a snapshot the device may still write was released")
			}
		}, []string{"NO_TIMESTAMP_REASON_NOT_COMPLETED"}, nil},
		{"snapshot: context destroyed", func(x *harness) {
			x.step(regLaunch(sec, 100, 1, 5), exec(2*sec, 5, 1001), Slot{Kind: SlotReset, HostNs: 3 * sec, ListID: 5})
			x.h.ContextDestroying(9)
			x.check()
			if x.f.released[100] != 0 || x.f.snapshotReleased[1001] != 0 || len(x.h.execs) != 0 {
				panic("an event or snapshot of a dead context touched, or the execution kept")
			}
		}, []string{"NO_TIMESTAMP_REASON_NOT_COMPLETED"}, nil},
		{"first execution unitless, copied by the next one's leading snapshot", func(x *harness) {
			e1 := exec(2*sec, 5, 0)
			e1.Seq = 1
			e2 := exec(3*sec, 5, 1002)
			e2.Seq, e2.SnapshotPrev = 2, 1001
			x.f.submits[500] = 2
			x.step(regLaunch(sec, 100, 1, 5), e1, e2)
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+200) // exec 2's times, in the event
			x.f.snapshots[1001] = []KernelTimestamp{tsAt(2*sec+100, 2*sec+200)}
			x.f.snapshots[1002] = []KernelTimestamp{tsAt(3*sec+100, 3*sec+200)}
			x.step()
		}, []string{"timed", "timed"}, []uint64{2*sec + 100, 3*sec + 100}},
		{"a submission not drained yet: its event is not read", func(x *harness) {
			e1 := exec(2*sec, 5, 0)
			e1.Seq = 1
			x.f.submits[500] = 2 // the second submission reached the driver, its slot not drained
			x.step(regLaunch(sec, 100, 1, 5), e1)
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+200)
			x.step()
			if len(x.recs) != 0 {
				panic("the second execution's times were given to the first")
			}
			e2 := exec(3*sec, 5, 1002)
			e2.Seq, e2.SnapshotPrev = 2, 1001
			x.f.snapshots[1001] = []KernelTimestamp{tsAt(2*sec+100, 2*sec+200)}
			x.f.snapshots[1002] = []KernelTimestamp{tsAt(3*sec+100, 3*sec+200)}
			x.step(e2)
		}, []string{"timed", "timed"}, []uint64{2*sec + 100, 3*sec + 100}},
		{"next execution on another queue, no copy of the first: overwritten", func(x *harness) {
			e1 := exec(2*sec, 5, 0)
			e1.Seq = 1
			e2 := exec(3*sec, 5, 1002)
			e2.Seq = 2
			x.f.submits[500] = 2
			x.step(regLaunch(sec, 100, 1, 5), e1, e2)
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+200)
			x.f.snapshots[1002] = []KernelTimestamp{tsAt(3*sec+100, 3*sec+200)}
			x.step()
		}, []string{"timed", "NO_TIMESTAMP_REASON_OVERWRITTEN"}, []uint64{3*sec + 100}},
		// Launches with their own event of the list (EvIndex > 0) on an
		// execution without a snapshot wait in the list's reads.
		{"reads: executed twice, read between", func(x *harness) {
			x.f.submits[500] = 1
			x.step(regLaunch(sec, 100, 1, 5), execSeq(2*sec, 5, 1))
			x.f.signaled[100] = tsAt(2*sec+100, 2*sec+200)
			x.step()
			x.f.submits[500] = 2
			x.step(execSeq(3*sec, 5, 2))
			x.step() // the event still holds the first execution's times
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+200)
			x.step()
		}, []string{"timed", "timed"}, []uint64{2*sec + 100, 3*sec + 100}},
		{"reads: executed twice, read after both", func(x *harness) {
			x.f.submits[500] = 2
			x.step(regLaunch(sec, 100, 1, 5), execSeq(2*sec, 5, 1), execSeq(3*sec, 5, 2))
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+200)
			x.step()
		}, []string{"NO_TIMESTAMP_REASON_OVERWRITTEN", "timed"}, []uint64{3*sec + 100}},
		{"reads: a reading harvested already is not the next execution's", func(x *harness) {
			// The second execution's reference time precedes the first
			// one's kernel (submitted while it was queued): only the
			// reading remembered tells the old times from new ones.
			x.f.submits[500] = 1
			x.step(regLaunch(sec, 100, 1, 5), execSeq(2*sec, 5, 1))
			x.f.signaled[100] = tsAt(2*sec+500_000, 2*sec+600_000)
			x.step()
			x.f.submits[500] = 2
			x.step(execSeq(2*sec+100_000, 5, 2))
			x.step()
			x.h.Final()
		}, []string{"timed", "NO_TIMESTAMP_REASON_NOT_COMPLETED"}, []uint64{2*sec + 500_000}},
		{"shared event: a reading harvested already, then exit", func(x *harness) {
			// As above for a launch without an index among the list's
			// events (the shared path): written at exit, not left out.
			x.f.submits[500] = 1
			x.step(launch(sec, 100, SlotFlagOurs, 5), execSeq(2*sec, 5, 1))
			x.f.signaled[100] = tsAt(2*sec+500_000, 2*sec+600_000)
			x.step()
			x.f.submits[500] = 2
			x.step(execSeq(2*sec+100_000, 5, 2))
			x.step()
			x.h.Final()
		}, []string{"timed", "NO_TIMESTAMP_REASON_NOT_COMPLETED"}, []uint64{2*sec + 500_000}},
		{"reads: next execution on another queue, the previous one read on the application's thread", func(x *harness) {
			x.f.submits[500] = 2
			x.step(regLaunch(sec, 100, 1, 5), regLaunch(sec+1, 101, 2, 5), regLaunch(sec+2, 102, 3, 5), execSeq(2*sec, 5, 1))
			// The launch path read the events before the second execution
			// (cgo/regular_lists.c listev_read_previous), in order.
			app := func(ev, at uint64) Slot {
				return appTSSlot(3*sec-10+ev-100, ev, tsAt(at, at+50))
			}
			x.step(app(100, 2*sec+100), app(101, 2*sec+200), app(102, 2*sec+300), execSeq(3*sec, 5, 2))
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+150)
			x.f.signaled[101] = tsAt(3*sec+200, 3*sec+250)
			x.f.signaled[102] = tsAt(3*sec+300, 3*sec+350)
			x.step()
		}, []string{"timed", "timed", "timed", "timed", "timed", "timed"},
			[]uint64{2*sec + 100, 2*sec + 200, 2*sec + 300, 3*sec + 100, 3*sec + 200, 3*sec + 300}},
		{"reads: an application event's launch waiting on the same list", func(x *harness) {
			// The application's event is read on its own threads (here
			// only after the second execution); the launches with
			// zestall's event still wait in the list's reads.
			x.f.submits[500] = 1
			x.step(launch(sec, 200, SlotFlagAppEvent, 5), regLaunch(sec+1, 100, 1, 5), execSeq(2*sec, 5, 1))
			x.f.signaled[100] = tsAt(2*sec+300, 2*sec+400)
			x.step()
			x.f.submits[500] = 2
			x.step(execSeq(3*sec, 5, 2))
			if len(x.h.pending) != 1 || len(x.h.pending[200]) != 2 {
				panic("the launch with zestall's event waits on the shared path")
			}
			x.f.signaled[100] = tsAt(3*sec+300, 3*sec+400)
			x.step()
			x.step(appTSSlot(4*sec, 200, tsAt(3*sec+100, 3*sec+200)))
		}, []string{"timed", "timed", "NO_TIMESTAMP_REASON_OVERWRITTEN", "timed"}, []uint64{2*sec + 300, 3*sec + 300, 3*sec + 100}},
		{"reads: reset before completion", func(x *harness) {
			x.f.submits[500] = 1
			x.step(regLaunch(sec, 100, 1, 5), regLaunch(sec+1, 101, 2, 5), execSeq(2*sec, 5, 1))
			x.f.signaled[101] = tsAt(2*sec+100, 2*sec+200)
			x.step(Slot{Kind: SlotReset, HostNs: 3 * sec, ListID: 5})
			if x.f.released[100] != 1 || x.f.released[101] != 1 || x.h.npending != 0 {
				panic("the list's events not given back once each at its reset")
			}
		}, []string{"NO_TIMESTAMP_REASON_NOT_COMPLETED", "timed"}, []uint64{2*sec + 100}},
		{"reads: destroyed in the drain that saw the execution", func(x *harness) {
			x.f.submits[500] = 1
			x.f.signaled[100] = tsAt(2*sec+100, 2*sec+200)
			x.step(regLaunch(sec, 100, 1, 5), execSeq(2*sec, 5, 1), Slot{Kind: SlotDestroy, HostNs: 3 * sec, ListID: 5})
		}, []string{"timed"}, []uint64{2*sec + 100}},
		{"reads: context destroyed", func(x *harness) {
			x.f.submits[500] = 1
			x.step(regLaunch(sec, 100, 1, 5), execSeq(2*sec, 5, 1))
			x.h.ContextDestroying(9)
			x.check()
			if x.f.released[100] != 0 || x.h.npending != 0 {
				panic("an event of a dead context released, or a launch left waiting")
			}
		}, []string{"NO_TIMESTAMP_REASON_NOT_COMPLETED"}, nil},
		{"reads: stopped execution after one waiting", func(x *harness) {
			x.f.submits[500] = 2
			stopped := execSeq(3*sec, 5, 2)
			stopped.Flags |= SlotFlagStopped
			x.step(regLaunch(sec, 100, 1, 5), execSeq(2*sec, 5, 1), stopped)
			x.f.signaled[100] = tsAt(3*sec+100, 3*sec+200) // the stopped execution's
			x.step()
		}, []string{"NO_TIMESTAMP_REASON_OVERWRITTEN"}, nil},
		{"context destroyed", func(x *harness) {
			x.step(launch(sec, 100, imm, 1))
			x.h.ContextDestroying(9)
			x.check()
			if len(x.f.pools) != 1 || x.f.released[100] != 0 {
				panic("pools not destroyed, or an event of a dead context released")
			}
		}, []string{"NO_TIMESTAMP_REASON_NOT_COMPLETED"}, nil},
		{"context destroyed, another context's launches waiting", func(x *harness) {
			other := launch(sec+10, 101, imm, 1)
			other.Context = 8
			x.step(launch(sec, 100, imm, 1), other, launch(sec+20, 102, imm, 1), launch(sec+30, 103, imm, 1))
			x.h.ContextDestroying(9)
			x.check()
			if len(x.h.imm) != 1 || x.h.imm[0].event != 101 {
				panic("the other context's launch not kept alone in the FIFO")
			}
			x.f.signaled[101] = tsAt(sec+100, sec+200)
			x.step()
		}, []string{"NO_TIMESTAMP_REASON_NOT_COMPLETED", "NO_TIMESTAMP_REASON_NOT_COMPLETED", "NO_TIMESTAMP_REASON_NOT_COMPLETED", "timed"}, []uint64{sec + 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newHarness()
			tt.run(x)
			if len(x.recs) != len(tt.want) {
				t.Fatalf("%d records, want %d: %v", len(x.recs), len(tt.want), x.recs)
			}
			si := 0
			for i, r := range x.recs {
				got := "timed"
				if r.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 {
					got = r.NoTimestampReason.String()
				}
				if got != tt.want[i] {
					t.Errorf("record %d: %s, want %s", i, got, tt.want[i])
				}
				if got == "timed" {
					want := tt.starts[si]
					si++
					if d := int64(r.DeviceStartNs - want); d < -30 || d > 30 {
						t.Errorf("record %d starts at %d, want %d", i, r.DeviceStartNs, want)
					}
					if r.DeviceEndNs <= r.DeviceStartNs {
						t.Errorf("record %d ends at %d, before its start %d", i, r.DeviceEndNs, r.DeviceStartNs)
					}
				}
			}
			var c pb.Counters
			x.h.Counters(&c)
			if c.LaunchesSeen != uint64(len(tt.want)) {
				t.Errorf("launches seen %d, want %d", c.LaunchesSeen, len(tt.want))
			}
		})
	}
}

// TestImmediateSpilled: a launch in the immediate FIFO whose slot is no
// longer in the drained batch (its record made before it finished: the
// next drain came first) keeps its event, context, append time and queue
// id (64 bits) for the read, the release, PendingBefore and
// SettledBefore.
func TestImmediateSpilled(t *testing.T) {
	const sec = uint64(1e9)
	imm := uint8(SlotFlagImmediate | SlotFlagOurs)
	for _, tc := range []struct {
		name    string
		queueID uint64
		drains  int // passes between the launch and its signal
	}{
		{"waits one drain", 1, 1},
		{"waits three drains", 1, 3},
		{"queue id past 32 bits", 1 << 33, 0},
		{"queue id past 32 bits, waits", 1 << 33, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := newHarness()
			s := launch(sec, 100, imm, 1)
			s.Queue, s.Context = 77, 8
			x.h.lastQueue, x.h.lastQueueID = 77, tc.queueID
			x.step(s)
			for i := 0; i < tc.drains; i++ {
				if got := x.h.PendingBefore(); got > sec {
					t.Fatalf("PendingBefore %d, after the waiting launch's %d", got, sec)
				}
				if x.h.SettledBefore(sec + 1) {
					t.Fatalf("settled before %d with a launch of %d waiting", sec+1, sec)
				}
				x.step(launch(2*sec+uint64(i), 0, 0, 1)) // a launch without event: another drain
			}
			x.f.signaled[100] = tsAt(sec+100, sec+200)
			x.step()
			var got *stream.Launch
			for i := range x.recs {
				if x.recs[i].HostAppendNs == sec {
					got = &x.recs[i]
				}
			}
			switch {
			case got == nil:
				t.Fatalf("no record of the launch: %v", x.recs)
			case got.QueueId != tc.queueID || got.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0:
				t.Errorf("record %+v, want queue %d, timed", got, tc.queueID)
			case x.f.released[100] != 1:
				t.Errorf("event given back %d times, want once", x.f.released[100])
			case len(x.h.imm) != 0 || len(x.h.immRecs) != 0:
				t.Errorf("FIFO left %d launches, %d records", len(x.h.imm), len(x.h.immRecs))
			}
		})
	}
}
