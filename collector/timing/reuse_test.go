package timing

import (
	"testing"
	"time"

	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// rich is a launch slot with every field that reaches the record set, so
// that a reused slot, pending launch or batch that kept any of them would
// show in the next, plain launch.
func rich(ns, ev uint64, flags uint8, list uint32) Slot {
	s := launch(ns, ev, flags|SlotFlagSerial, list)
	s.GroupCount = [3]uint32{7, 8, 9}
	s.GroupSize = [3]uint16{16, 4, 2}
	s.LaunchKind = uint8(pb.LaunchKind_LAUNCH_KIND_COOPERATIVE)
	s.SyclTask, s.SyclLocation, s.CodeCopy = 77, 78, 3
	s.KernelID = 99
	s.Queue = 1234
	return s
}

// plain is what a record of a launch(…) slot holds besides its id, times
// and list: nothing of rich.
func checkPlain(t *testing.T, what string, r stream.Launch) {
	t.Helper()
	if r.GroupCountX|r.GroupCountY|r.GroupCountZ|r.GroupSizeX|r.GroupSizeY|r.GroupSizeZ|r.CodeCopy|r.SyclLocationId != 0 ||
		r.SyclTaskId != 0 || r.Kind != 0 || r.KernelId != 3 || r.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_SERIALIZED) != 0 {
		t.Errorf("%s: a reused slot leaked a previous launch's fields: %+v", what, r)
	}
}

// TestReuseNoAliasing: the harvester's storage (the immediate FIFO, the
// executions' launch slices, the output batches) is reused; no record may
// carry a field of an earlier launch, and no batch handed to emit may
// change afterwards.
func TestReuseNoAliasing(t *testing.T) {
	const sec = uint64(1e9)
	imm := uint8(SlotFlagImmediate | SlotFlagOurs)
	f := newFake()
	// Batches handed over must not change until they come back.
	var batches, copies [][]stream.Launch
	unchanged := func(i int) {
		for j := range batches[i] {
			if batches[i][j] != copies[i][j] {
				t.Fatalf("batch %d record %d changed after it was handed to emit: %+v, was %+v", i, j, batches[i][j], copies[i][j])
			}
		}
	}
	h := New(f, func(ls []stream.Launch) []stream.Launch {
		batches = append(batches, ls)
		copies = append(copies, append([]stream.Launch(nil), ls...))
		if n := len(batches); n%2 == 0 {
			unchanged(n - 2)
			return batches[n-2][:0] // an older batch comes back: storage goes round
		}
		return nil
	}, func(uint64) *Clock { return NewClock(1, hz, 32) })
	now := uint64(0)
	h.now = func() uint64 { return now }
	step := func(slots ...Slot) {
		for _, s := range slots {
			now = max(now, s.HostNs+1e6)
		}
		f.slots = append(f.slots, slots...)
		h.Poll()
	}
	// Immediate lists: a rich launch, then a plain one in the same slot of
	// the FIFO (the first one was harvested).
	step(rich(sec, 100, imm, 1))
	f.signaled[100] = tsAt(sec+100, sec+200)
	step()
	step(launch(2*sec, 101, imm, 1))
	f.signaled[101] = tsAt(2*sec+100, 2*sec+200)
	step()
	// Regular lists with snapshots: a rich execution, then a plain
	// one whose pendingExec is the first one's, reused.
	step(rich(3*sec, 200, SlotFlagOurs, 5), func() Slot { s := regLaunch(3*sec, 200, 1, 5); s.Kind = SlotReset; return s }())
	s := rich(3*sec+1, 201, SlotFlagOurs, 6)
	s.EvIndex = 1
	e := exec(4*sec, 6, 1001)
	e.Flags |= SlotFlagSerial
	f.snapshots[1001] = []KernelTimestamp{tsAt(4*sec+100, 4*sec+200)}
	step(s, e)
	step(regLaunch(5*sec, 300, 1, 7), exec(6*sec, 7, 1002))
	f.snapshots[1002] = []KernelTimestamp{tsAt(6*sec+100, 6*sec+200)}
	step()
	h.Final()

	var recs []stream.Launch
	for i := range batches {
		if i%2 == 1 || i == len(batches)-1 {
			unchanged(i) // not given back
		}
		recs = append(recs, copies[i]...)
	}
	want := []struct {
		plain bool
		start uint64
	}{{false, sec + 100}, {true, 2*sec + 100}, {false, 4*sec + 100}, {true, 6*sec + 100}}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %+v", len(recs), len(want), recs)
	}
	for i, w := range want {
		r := recs[i]
		if r.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 {
			t.Fatalf("record %d: no times (%v)", i, r.NoTimestampReason)
		}
		if d := int64(r.DeviceStartNs - w.start); d < -30 || d > 30 {
			t.Errorf("record %d starts at %d, want %d", i, r.DeviceStartNs, w.start)
		}
		if r.Id != uint64(i+1) {
			t.Errorf("record %d: id %d", i, r.Id)
		}
		if w.plain {
			checkPlain(t, "record", r)
		} else if r.SyclTaskId != 77 || r.GroupSizeX != 16 || r.CodeCopy != 3 || r.QueueId == 0 {
			t.Errorf("record %d lost its fields: %+v", i, r)
		}
	}
}

// TestHarvestAllocs: the harvest path makes no heap object per launch, on
// immediate lists, on regular lists with snapshots and on regular lists
// whose events are read (an execution without a snapshot).
func TestHarvestAllocs(t *testing.T) {
	for _, mode := range []string{"immediate", "immediate-copied", "regular", "regular-read"} {
		t.Run(mode, func(t *testing.T) {
			run := harvestLoop(mode, 1024)
			run() // warm: storage grows to its size once
			if a := testing.AllocsPerRun(20, run); a > 8 {
				// A pass may allocate a handful of times (a list's
				// state and templates per reset), never per launch.
				t.Errorf("%.0f allocations per pass of 1024 launches", a)
			}
		})
	}
}

// harvestLoop returns a function that makes n launches whose times are
// ready and harvests them: immediate lists, or one regular list appended,
// executed once with a snapshot, and reset.
func harvestLoop(mode string, n int) func() {
	f := newFake()
	var src Source = f
	if mode == "immediate-copied" {
		src = &reusingCopier{fakeSource: f}
		mode = "immediate"
	}
	h := New(src, func(ls []stream.Launch) []stream.Launch { return ls[:0] },
		func(uint64) *Clock { return NewClock(1, hz, 32) })
	now := uint64(1e9)
	h.now = func() uint64 { return now }
	imm := uint8(SlotFlagImmediate | SlotFlagOurs)
	snapshotTS := make([]KernelTimestamp, n)
	snapshot := uint64(1)
	return func() {
		switch mode {
		case "immediate":
			for i := uint64(0); i < uint64(n); i++ {
				ev := 1000 + i
				f.slots = append(f.slots, launch(now+i, ev, imm, 1))
				f.signaled[ev] = tsAt(now+i+100, now+i+200)
			}
		case "regular-read":
			// The first execution of a recording has no snapshot: the
			// harvester reads the list's events.
			for i := uint64(0); i < uint64(n); i++ {
				ev := 1000 + i
				f.slots = append(f.slots, regLaunch(now+i, ev, uint32(i+1), 5))
				f.signaled[ev] = tsAt(now+uint64(n)+i*10+100, now+uint64(n)+i*10+105)
			}
			e := exec(now+uint64(n), 5, 0)
			f.submits[e.List]++
			e.Seq = f.submits[e.List]
			f.slots = append(f.slots, e)
		default:
			for i := uint64(0); i < uint64(n); i++ {
				f.slots = append(f.slots, regLaunch(now+i, 1000+i, uint32(i+1), 5))
				snapshotTS[i] = tsAt(now+uint64(n)+i*10+100, now+uint64(n)+i*10+105)
			}
			snapshot++
			f.snapshots[snapshot] = snapshotTS
			e := exec(now+uint64(n), 5, snapshot)
			f.slots = append(f.slots, e)
		}
		now += 1e6
		h.Poll()
		if mode != "immediate" {
			f.slots = append(f.slots, Slot{Kind: SlotReset, HostNs: now, ListID: 5})
			now += 1e6
			h.Poll()
		}
	}
}

// reusingCopier is a TimestampCopier in reused storage, so that
// TestHarvestAllocs counts the harvester's allocations only: one copy at
// a time, which completes at once.
type reusingCopier struct {
	*fakeSource
	evs []uint64
}

func (c *reusingCopier) CopyTimestamps(_, _ uint64, events []uint64) (uint64, CopyStatus) {
	if len(c.evs) > 0 {
		return 0, CopyBusy
	}
	c.evs = append(c.evs[:0], events...)
	return 1, CopyStarted
}

func (c *reusingCopier) CopyResults(_ uint64, n int, dst []EventReading, _ time.Duration) ([]EventReading, bool, error) {
	for _, ev := range c.evs {
		dst = append(dst, EventReading{TS: c.signaled[ev], Ready: true})
	}
	c.evs = c.evs[:0]
	return dst, true, nil
}

func (c *reusingCopier) CopyAbandon(uint64) { c.evs = c.evs[:0] }

// TestImmediateAcrossDrains: an immediate launch's record is made from its
// drained slot when it finishes in the pass that drained it, and from a
// copy made before the next drain overwrites the batch otherwise
// (immLaunch); either way it holds its own slot's fields, and its id is
// the one it was drained with. Launches finish out of order, across
// passes that drain new slots, and in a context destroyed while they wait.
func TestImmediateAcrossDrains(t *testing.T) {
	const sec = uint64(1e9)
	imm := uint8(SlotFlagImmediate | SlotFlagOurs)
	x := newHarness()
	mk := func(i uint64, ctx uint64) Slot {
		s := launch(i*sec, 1000+i, imm, 1)
		s.KernelID = uint32(10 + i)
		s.GroupCount = [3]uint32{uint32(i), uint32(i + 1), 1}
		s.SyclTask = 100 + i
		s.Queue = 50 + i%2
		s.Context = ctx
		if i%3 == 0 {
			s.Flags |= SlotFlagSerial
		}
		return s
	}
	ready := func(i uint64) { x.f.signaled[1000+i] = tsAt(i*sec+100, i*sec+200+i) }
	// Pass 1: launches 1-4 drained; 2 and 4 signalled (finish in-pass).
	ready(2)
	ready(4)
	x.step(mk(1, 9), mk(2, 9), mk(3, 9), mk(4, 9))
	// Pass 2: new slots 5-6 overwrite the batch; 1 finishes now, 3 still waits.
	ready(1)
	ready(6)
	x.step(mk(5, 9), mk(6, 9))
	// Pass 3: 7 in another context; 3 and 5 finish, 7 waits.
	ready(3)
	ready(5)
	x.step(mk(7, 8))
	// The context of 7 goes away while it waits (no times), after one more
	// drain of a launch that waits too (8, in the same context).
	x.step(mk(8, 8))
	x.h.ContextDestroying(8)
	x.check()
	x.h.Final()
	if len(x.recs) != 8 {
		t.Fatalf("%d records, want 8", len(x.recs))
	}
	seen := map[uint64]bool{}
	var queues [2][]uint64
	for _, r := range x.recs {
		i := r.SyclTaskId - 100
		if i < 1 || i > 8 || seen[i] {
			t.Fatalf("record %+v: not one of the launches, or twice", r)
		}
		seen[i] = true
		s := mk(i, 0)
		if r.Id != i || r.KernelId != uint64(s.KernelID) || r.GroupCountX != s.GroupCount[0] || r.GroupCountY != s.GroupCount[1] ||
			r.HostAppendNs != s.HostNs || r.QueueId == 0 {
			t.Errorf("launch %d: record %+v does not hold its slot's fields", i, r)
		}
		if serial := r.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_SERIALIZED) != 0; serial != (i%3 == 0) {
			t.Errorf("launch %d: serialized %v", i, serial)
		}
		timed := r.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0
		if want := i <= 6; timed != want {
			t.Errorf("launch %d: timed %v, want %v (%v)", i, timed, want, r.NoTimestampReason)
		}
		// Ticks of 26 ns (hz): times within a tick of the slot's.
		if d, e := int64(r.DeviceStartNs-(i*sec+100)), int64(r.DeviceEndNs-(i*sec+200+i)); timed && (d < -30 || d > 30 || e < -30 || e > 30) {
			t.Errorf("launch %d: times %d-%d", i, r.DeviceStartNs, r.DeviceEndNs)
		}
		queues[i%2] = append(queues[i%2], r.QueueId)
	}
	for p, qs := range queues {
		for _, q := range qs {
			if q != qs[0] || q == queues[1-p][0] {
				t.Errorf("queue ids %v: one per queue handle, two handles", queues)
			}
		}
	}
}
