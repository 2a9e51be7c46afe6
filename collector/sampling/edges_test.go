package sampling

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/zestall/zestall/format/eustall"
)

// TestDropFlagRecords: a calculation that reports drop-flagged records
// (the overflow-drop bit, Xe-HPC) is counted; its samples are still
// attributed.
func TestDropFlagRecords(t *testing.T) {
	src := &fakeSource{}
	h := newHarness(t, src, pvc, true)
	h.run(t)
	flagged := records(3, 0x1000)
	binary.LittleEndian.PutUint16(flagged[64+50:], eustall.DropFlag) // the second record's Flags
	src.queue(fakeRead{data: flagged})
	h.read(t)
	src.queue(fakeRead{data: records(2, 0x2000)})
	h.read(t)
	h.stop(t)
	if ws := h.attr[0].got(); len(ws) != 2 || ws[0].rows != 3 || ws[1].rows != 2 {
		t.Errorf("windows %v, want 3 then 2 rows", ws)
	}
	if c := h.counters(); c.StallDropFlagRecords != 1 || c.StallDropWarnings != 0 || c.StallRecordsRead != 5 {
		t.Errorf("drop-flag calculations %d, drop warnings %d, records %d; want 1, 0, 5", c.StallDropFlagRecords, c.StallDropWarnings, c.StallRecordsRead)
	}
}

// TestRestartWhileDraining: a start while a stop still waits for its
// launches' times cancels the stop: reads go on being attributed after
// the launches settle, and the start's caller does not wait.
func TestRestartWhileDraining(t *testing.T) {
	src := &fakeSource{}
	h, settled := runDraining(t, src)
	h.read(t) // the reader holds the stop
	begin := time.Now()
	h.r.StartEdge(true)
	if d := time.Since(begin); d >= EdgeWait {
		t.Errorf("the start waited %v (the edge's bound: the reader never answered)", d)
	}
	settled.Store(true)
	h.read(t)
	src.queue(fakeRead{data: records(2, 0x1000)})
	h.read(t)
	if ws := h.attr[0].got(); len(ws) != 1 || ws[0].rows != 2 {
		t.Errorf("windows %v after the restart, want one of 2 rows", ws)
	}
	if c := h.counters(); c.StallRecordsDiscardedStopped != 0 {
		t.Errorf("%d records discarded", c.StallRecordsDiscardedStopped)
	}
}

// TestStopBeforeStartTookEffect: a stop that comes while a start waits
// for its first read (latency after it) cancels the start: samples stay
// discarded.
func TestStopBeforeStartTookEffect(t *testing.T) {
	const latency = 20 * time.Millisecond
	src := &fakeSource{}
	h := newHarnessLatency(t, src, pvc, true, latency)
	h.r.SetCollecting(false)
	h.r.CollectionStopped(h.clock.Load())
	h.run(t)
	h.r.StartEdge(false)
	h.r.StopEdge(h.clock.Load(), true, false)
	time.Sleep(2 * latency) // the start would have taken effect by now
	src.queue(fakeRead{data: records(4, 0x1000)})
	h.read(t)
	h.read(t)
	if ws := h.attr[0].got(); len(ws) != 0 {
		t.Errorf("windows %v after a cancelled start", ws)
	}
	if c := h.counters(); c.StallRecordsDiscardedStopped != 4 {
		t.Errorf("%d records discarded, want 4", c.StallRecordsDiscardedStopped)
	}
}
