package timing

import (
	"fmt"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallwire"
)

// TestListReads: launches of regular lists executed without a snapshot
// wait in their list's reads (reused storage, no heap object per launch).
// Several lists, each with more launches than one drain batch, recorded,
// executed (alternately with and without snapshots), reset or destroyed
// and recorded again, round after round: every launch is written once,
// with the times its execution gave it, and the reads of an ended list
// serve the next list without carrying anything of its launches.
func TestListReads(t *testing.T) {
	const (
		lists    = 3
		launches = DrainBatch + 904 // more than one drain batch
		rounds   = 4
		sec      = uint64(1e9)
	)
	x := newHarness()
	// step: all of them drained (a drain takes at most DrainBatch slots).
	step := func(slots ...Slot) {
		x.step(slots...)
		for len(x.f.slots) > 0 {
			x.h.Poll()
		}
	}
	type want struct {
		start uint64 // device start ns; 0: written without times
		exec  uint32
	}
	wants := map[uint64]want{} // by HostAppendNs (unique)
	now := sec
	for round := 0; round < rounds; round++ {
		var slots []Slot
		for l := uint32(1); l <= lists; l++ {
			list := l + 10*uint32(round) // a new list id each round: storage reused across lists
			for i := 0; i < launches; i++ {
				// Round 0 launches carry every field (rich): a later
				// launch in their reused storage must show none of them.
				var s Slot
				ev := uint64(l)<<32 | uint64(i)
				if round == 0 {
					s = rich(now, ev, SlotFlagOurs, list)
					s.Queue = 0
				} else {
					s = launch(now, ev, SlotFlagOurs, list)
				}
				s.EvIndex = uint32(i + 1)
				slots = append(slots, s)
				now++
			}
		}
		step(slots...)
		// Two executions of each list: the first without a snapshot (its
		// events are read), the second with one. The second is submitted
		// after the first was read.
		for e := uint32(0); e < 2; e++ {
			var execs []Slot
			for l := uint32(1); l <= lists; l++ {
				list := l + 10*uint32(round)
				handle := uint64(list) * 1000
				x.f.submits[handle]++
				s := Slot{Kind: SlotExec, HostNs: now, ListID: list, List: handle, Queue: 1, Device: 7, Context: 9, Seq: x.f.submits[handle]}
				var snap []KernelTimestamp
				if e == 1 {
					s.Snapshot = uint64(list)<<8 | 1
				}
				for i := 0; i < launches; i++ {
					start := now + 10_000 + uint64(i)*100
					ts := tsAt(start, start+50)
					if e == 0 {
						x.f.signaled[uint64(l)<<32|uint64(i)] = ts
					} else {
						snap = append(snap, ts)
					}
					// A launch that never signals: written without times.
					if i == 7 && e == 0 {
						delete(x.f.signaled, uint64(l)<<32|uint64(i))
						start = 0
					}
					wants[uint64(e)<<62|uint64(list)<<40|uint64(i)] = want{start, e}
				}
				if e == 1 {
					x.f.snapshots[s.Snapshot] = snap
				}
				execs = append(execs, s)
				now++
			}
			step(execs...)
			if e == 0 && (len(x.h.pending) != 0 || len(x.h.readLists) != lists) {
				t.Fatalf("round %d: launches on the shared path (%d events) or lists not in readLists (%d)", round, len(x.h.pending), len(x.h.readLists))
			}
			x.step()
			now = x.now
		}
		// Reset, or destroy, every list: the never-signalled launch is
		// written then.
		var ends []Slot
		for l := uint32(1); l <= lists; l++ {
			k := SlotReset
			if l%2 == 0 {
				k = SlotDestroy
			}
			ends = append(ends, Slot{Kind: k, HostNs: now, ListID: l + 10*uint32(round)})
		}
		step(ends...)
		now = x.now
		if x.h.npending != 0 || len(x.h.lists) != 0 {
			t.Fatalf("round %d: %d launches still pending, %d lists kept", round, x.h.npending, len(x.h.lists))
		}
	}
	x.h.Final()
	if n := len(x.recs); n != len(wants) {
		t.Fatalf("%d records, want %d", n, len(wants))
	}
	ids := map[uint64]bool{}
	appendNs := map[uint32]uint64{} // list -> its first launch's append
	for _, r := range x.recs {
		if first, ok := appendNs[uint32(r.CommandListId)]; !ok || r.HostAppendNs < first {
			appendNs[uint32(r.CommandListId)] = r.HostAppendNs
		}
	}
	for _, r := range x.recs {
		if ids[r.Id] {
			t.Fatalf("id %d written twice", r.Id)
		}
		ids[r.Id] = true
		i := r.HostAppendNs - appendNs[uint32(r.CommandListId)]
		key := uint64(r.ExecutionIndex)<<62 | r.CommandListId<<40 | i
		w, ok := wants[key]
		if !ok {
			t.Fatalf("a record of no launch: %+v", r)
		}
		delete(wants, key)
		what := fmt.Sprintf("list %d launch %d execution %d", r.CommandListId, i, r.ExecutionIndex)
		if w.start == 0 {
			if r.NoTimestampReason != pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED {
				t.Errorf("%s: %v, want NOT_COMPLETED", what, r.NoTimestampReason)
			}
			continue
		}
		if r.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 {
			t.Errorf("%s: no times (%v)", what, r.NoTimestampReason)
		} else if d := int64(r.DeviceStartNs - w.start); d < -30 || d > 30 {
			t.Errorf("%s: starts at %d, want %d", what, r.DeviceStartNs, w.start)
		}
		if r.CommandListId > 10 {
			checkPlain(t, what, r)
		}
	}
	if len(x.h.readFree) == 0 {
		t.Errorf("no reads storage kept for reuse")
	}
	var c pb.Counters
	x.h.Counters(&c)
	if c.LaunchesSeen != uint64(len(x.recs)) {
		t.Errorf("seen %d, written %d", c.LaunchesSeen, len(x.recs))
	}
}

// TestListReadsAllocs: executions without snapshots of a list recorded
// again and again allocate nothing per launch (its reads are reused).
func TestListReadsAllocs(t *testing.T) {
	run := harvestLoop("regular-read", 2*DrainBatch)
	run() // warm: storage grows to its size once
	if a := testing.AllocsPerRun(10, run); a > 8 {
		t.Errorf("%.0f allocations per round of %d launches", a, 2*DrainBatch)
	}
}

// TestPassWork: a batch of executions of a long list is processed over
// several passes (passWork), none of them making more than about
// passWork records; the launches of executions not processed yet hold
// PendingBefore back, and every launch is written once with its times.
// passWorkLaunches and passWorkExecs: list 5 of passWorkHarness, and its
// executions, more work than one pass does.
const (
	passWorkLaunches = 4096
	passWorkExecs    = 12
)

// passWorkHarness is a harness whose next Poll meets more work than one
// pass does (passWork): list 5 with passWorkLaunches launches, recorded,
// and passWorkExecs executions of it in the rings, each with a snapshot
// whose times are ready (execution e at 2 s + e·10 ms, its launch i from
// 1 µs + 10·i ns after it). The harness's clock is at 3 s.
func passWorkHarness() *harness {
	const sec = uint64(1e9)
	x := newHarness()
	var slots []Slot
	for i := 0; i < passWorkLaunches; i++ {
		slots = append(slots, regLaunch(sec+uint64(i), 1000+uint64(i), uint32(i+1), 5))
	}
	x.step(slots...)
	slots = slots[:0]
	for e := uint64(0); e < passWorkExecs; e++ {
		at := 2*sec + e*sec/100
		s := exec(at, 5, 2000+e)
		var snap []KernelTimestamp
		for i := uint64(0); i < passWorkLaunches; i++ {
			snap = append(snap, tsAt(at+1000+i*10, at+1005+i*10))
		}
		x.f.snapshots[s.Snapshot] = snap
		slots = append(slots, s)
	}
	x.f.slots = append(x.f.slots, slots...)
	x.now = 3 * sec
	return x
}

func TestPassWork(t *testing.T) {
	const (
		launches = passWorkLaunches
		execs    = passWorkExecs
		sec      = uint64(1e9)
	)
	x := passWorkHarness()
	polls := 0
	for {
		before := len(x.recs)
		drained, _ := x.h.Poll()
		polls++
		if n := len(x.recs) - before; n > passWork+launches {
			t.Fatalf("one pass wrote %d records (passWork %d)", n, passWork)
		}
		if x.h.next < len(x.h.buf) {
			left := x.h.buf[x.h.next].HostNs
			if pend := x.h.PendingBefore(); pend > left {
				t.Fatalf("PendingBefore %d after the execution at %d not processed yet", pend, left)
			}
			if x.h.SettledBefore(left + 1) {
				t.Fatalf("settled before %d with the execution at %d not processed yet", left+1, left)
			}
		}
		if drained < DrainBatch && len(x.f.slots) == 0 {
			break
		}
	}
	if polls < 3 {
		t.Errorf("%d executions of %d launches processed in %d passes", execs, launches, polls)
	}
	if len(x.recs) != execs*launches {
		t.Fatalf("%d records, want %d", len(x.recs), execs*launches)
	}
	for _, r := range x.recs {
		at := 2*sec + uint64(r.ExecutionIndex)*sec/100
		want := at + 1000 + (r.HostAppendNs-sec)*10
		if d := int64(r.DeviceStartNs - want); d < -30 || d > 30 || r.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 {
			t.Fatalf("execution %d launch %d: start %d (%v), want %d", r.ExecutionIndex, r.HostAppendNs-sec, r.DeviceStartNs, r.NoTimestampReason, want)
		}
	}
}

// TestDrainAllAfterLeftover: a batch whose executions need more than one
// pass (passWork) leaves slots behind; the slots published after it must
// still be drained by Final and ContextDestroying, which drain "until the
// rings are empty". They stopped after finishing the left-over batch (a
// short batch, so "empty"), and the launches still in the rings were
// never recorded, without any count (found with zestall-bench-launch
// 25000 4 regular 25000 beside busy loops: the lists' last executions).
func TestDrainAllAfterLeftover(t *testing.T) {
	const (
		later = 100 // launches of a second list, still in the rings
		sec   = uint64(1e9)
	)
	for _, end := range []string{"Final", "ContextDestroying"} {
		t.Run(end, func(t *testing.T) {
			x := passWorkHarness()
			x.h.Poll() // stops inside the batch of executions
			if x.h.next >= len(x.h.buf) {
				t.Fatalf("the first pass processed its whole batch: the test needs a left-over")
			}
			// Published after that batch was drained: a second list's
			// launches and its execution.
			for i := 0; i < later; i++ {
				x.f.slots = append(x.f.slots, regLaunch(3*sec+uint64(i), 9000+uint64(i), uint32(i+1), 6))
			}
			s := exec(3*sec+sec/10, 6, 3000)
			var snap []KernelTimestamp
			for i := uint64(0); i < later; i++ {
				snap = append(snap, tsAt(s.HostNs+1000+i*10, s.HostNs+1005+i*10))
			}
			x.f.snapshots[s.Snapshot] = snap
			x.f.slots = append(x.f.slots, s)
			x.now = 4 * sec
			switch end {
			case "Final":
				x.h.Final()
			default:
				x.h.ContextDestroying(9)
				x.check()
			}
			if want := passWorkExecs*passWorkLaunches + later; len(x.recs) != want {
				t.Fatalf("%d records after %s, want %d (%d slots never drained)", len(x.recs), end, want, len(x.f.slots))
			}
		})
	}
}

// TestListEndReadsReset: a list executed without a snapshot and reset
// before its launches were read (the execution and the reset in one
// drained batch, the usual record, execute, synchronise, reset at full
// rate): its events are read at the reset, each one that signalled is
// reset by its read and only returned (the fake's ReturnEvents fails on
// an event still signalled), the one that never signalled is released
// (reset and returned); every event goes back exactly once, and the
// records are those of zestall's events (TIMESTAMP_SWAPPED), with times.
func TestListEndReadsReset(t *testing.T) {
	const (
		launches = 64
		never    = 5 // the launch whose event never signals
		sec      = uint64(1e9)
	)
	for name, end := range map[string]SlotKind{"reset": SlotReset, "destroy": SlotDestroy} {
		t.Run(name, func(t *testing.T) {
			x := newHarness()
			var slots []Slot
			for i := 0; i < launches; i++ {
				slots = append(slots, regLaunch(sec+uint64(i), 1000+uint64(i), uint32(i+1), 5))
			}
			x.step(slots...)
			for i := uint64(0); i < launches; i++ {
				if i != never {
					x.f.signaled[1000+i] = tsAt(2*sec+1000+i*100, 2*sec+1050+i*100)
				}
			}
			x.f.submits[500] = 1
			x.step(execSeq(2*sec, 5, 1), Slot{Kind: end, HostNs: 2*sec + 1, ListID: 5})
			if len(x.recs) != launches {
				t.Fatalf("%d records at the list's end, want %d", len(x.recs), launches)
			}
			for _, r := range x.recs {
				i := r.HostAppendNs - sec
				if r.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_TIMESTAMP_SWAPPED) == 0 {
					t.Errorf("launch %d: flags %#x without TIMESTAMP_SWAPPED", i, r.Flags)
				}
				switch {
				case i == never:
					if r.NoTimestampReason != pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED {
						t.Errorf("launch %d: %v, want NOT_COMPLETED", i, r.NoTimestampReason)
					}
				case r.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0:
					t.Errorf("launch %d: no times (%v)", i, r.NoTimestampReason)
				case r.DeviceStartNs+30 < 2*sec+1000+i*100 || r.DeviceStartNs > 2*sec+1030+i*100:
					t.Errorf("launch %d: starts at %d, want %d", i, r.DeviceStartNs, 2*sec+1000+i*100)
				}
			}
			for i := uint64(0); i < launches; i++ {
				if n := x.f.released[1000+i]; n != 1 {
					t.Errorf("event of launch %d given back %d times, want 1", i, n)
				}
			}
			if len(x.f.signaled) != 0 {
				t.Errorf("%d events given back still signalled", len(x.f.signaled))
			}
		})
	}
}

// TestReadWaitingChunks: the launches waiting in a list's reads are read
// readChunk events at a time at most (the batch and its readings stay
// allocated), and every launch still gets its own reading, whether read
// while the list lives or at its reset, whatever the list's length against
// the chunk.
func TestReadWaitingChunks(t *testing.T) {
	const sec = uint64(1e9)
	for _, c := range []struct {
		launches int
		reset    bool // read at the list's reset rather than while it lives
	}{
		{10, false}, {readChunk, false}, {readChunk + 1, false}, {2*readChunk + 7, false},
		{10, true}, {readChunk + 1, true}, {2*readChunk + 7, true},
	} {
		x := newHarness()
		never := c.launches - 1 // its event never signals
		var slots []Slot
		for i := 0; i < c.launches; i++ {
			slots = append(slots, regLaunch(sec+uint64(i), 1000+uint64(i), uint32(i+1), 5))
		}
		x.f.slots = append(x.f.slots, slots...)
		for len(x.f.slots) > 0 {
			x.h.Poll()
		}
		for i := 0; i < c.launches; i++ {
			if i != never {
				x.f.signaled[1000+uint64(i)] = tsAt(2*sec+1000+uint64(i)*100, 2*sec+1050+uint64(i)*100)
			}
		}
		x.f.submits[500] = 1
		if c.reset {
			x.step(execSeq(2*sec, 5, 1), Slot{Kind: SlotReset, HostNs: 2*sec + 1, ListID: 5})
		} else {
			x.step(execSeq(2*sec, 5, 1))
		}
		want := c.launches - 1 // the one never signalled waits while the list lives
		if c.reset {
			want = c.launches
		}
		if len(x.recs) != want {
			t.Errorf("%d launches, reset %v: %d records, want %d", c.launches, c.reset, len(x.recs), want)
		}
		for _, r := range x.recs {
			i := int(r.HostAppendNs - sec)
			switch {
			case i == never:
				if r.NoTimestampReason != pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED {
					t.Errorf("%d launches, reset %v: launch %d: %v, want NOT_COMPLETED", c.launches, c.reset, i, r.NoTimestampReason)
				}
			case r.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0:
				t.Errorf("%d launches, reset %v: launch %d: no times (%v)", c.launches, c.reset, i, r.NoTimestampReason)
			case r.DeviceStartNs+30 < 2*sec+1000+uint64(i)*100 || r.DeviceStartNs > 2*sec+1030+uint64(i)*100:
				t.Errorf("%d launches, reset %v: launch %d starts at %d, want %d", c.launches, c.reset, i, r.DeviceStartNs, 2*sec+1000+uint64(i)*100)
			}
		}
		if x.f.maxBatch > readChunk {
			t.Errorf("%d launches, reset %v: %d events read at once, want at most %d", c.launches, c.reset, x.f.maxBatch, readChunk)
		}
		if c.launches > readChunk && x.f.maxBatch != readChunk {
			t.Errorf("%d launches, reset %v: at most %d events read at once, want full chunks of %d", c.launches, c.reset, x.f.maxBatch, readChunk)
		}
	}
}
