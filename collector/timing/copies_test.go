package timing

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// copyingSource is fakeSource with device-side copies (TimestampCopier),
// as cgo/timestamp_copies.c makes them: a copy waits for its events, so
// it completes once every one of them has signalled, and its readings
// are their timestamps; it resets none of them.
type copyingSource struct {
	*fakeSource
	status    CopyStatus          // what CopyTimestamps answers (CopyStarted: it starts a copy)
	failing   bool                // CopyResults fails
	slow      bool                // a copy completes only for a CopyResults that waits
	next      uint64              // the last copy's handle
	running   map[uint64][]uint64 // copy -> its events
	batches   [][]uint64          // the events of every copy started, in order
	abandoned []uint64
	waited    []time.Duration // the waits of CopyResults calls that waited
}

func newCopying() *copyingSource {
	return &copyingSource{fakeSource: newFake(), running: map[uint64][]uint64{}}
}

func (c *copyingSource) CopyTimestamps(context, device uint64, events []uint64) (uint64, CopyStatus) {
	if len(events) == 0 || len(events) > CopyMaxEvents {
		panic("a copy of no events, or of too many")
	}
	if c.status != CopyStarted {
		return 0, c.status
	}
	c.next++
	c.running[c.next] = slices.Clone(events)
	c.batches = append(c.batches, slices.Clone(events))
	return c.next, CopyStarted
}

func (c *copyingSource) CopyResults(copy uint64, n int, dst []EventReading, wait time.Duration) ([]EventReading, bool, error) {
	evs, ok := c.running[copy]
	if !ok || len(evs) != n {
		panic("results of a copy not running, or of another size")
	}
	if wait > 0 {
		c.waited = append(c.waited, wait)
	}
	if c.failing {
		delete(c.running, copy)
		return dst, false, errors.New("copy failed")
	}
	if c.slow && wait == 0 {
		return dst, false, nil
	}
	for _, ev := range evs {
		if _, ok := c.signaled[ev]; !ok {
			return dst, false, nil
		}
	}
	for _, ev := range evs {
		dst = append(dst, EventReading{TS: c.signaled[ev], Ready: true})
	}
	delete(c.running, copy)
	return dst, true, nil
}

func (c *copyingSource) CopyAbandon(copy uint64) {
	delete(c.running, copy)
	c.abandoned = append(c.abandoned, copy)
}

func newCopyHarness() (*harness, *copyingSource) {
	c := newCopying()
	return newHarnessOf(c.fakeSource, c), c
}

// TestCopies: immediate launches' events are read by device-side copies,
// one per (context, device) and pass, in FIFO order; what no copy can
// read is read on the host; every launch ends in one record, with its
// own times when its kernel ran, and every event goes back once.
func TestCopies(t *testing.T) {
	const sec = uint64(1e9)
	imm := uint8(SlotFlagImmediate | SlotFlagOurs)
	immOn := func(ns, ev, ctx uint64) Slot {
		s := launch(ns, ev, imm, 1)
		s.Context = ctx
		return s
	}
	tests := []struct {
		name         string
		run          func(x *harness, c *copyingSource)
		want         []string // per record, in order: "timed" or the reason
		copied, host uint64   // Harvester.Reads
		batches      [][]uint64
	}{
		{"copied", func(x *harness, c *copyingSource) {
			x.step(launch(sec, 100, imm, 1), launch(sec+10, 101, imm, 1))
			x.f.signaled[100] = tsAt(sec+500, sec+900)
			x.f.signaled[101] = tsAt(sec+1000, sec+1500)
			x.h.probes = 0
			x.step()
			if x.h.probes != 1 {
				panic("a batch whose launches have all completed took more than one host query")
			}
		}, []string{"timed", "timed"}, 2, 0, [][]uint64{{100, 101}}},
		{"signalled later: one copy, polled", func(x *harness, c *copyingSource) {
			x.step(launch(sec, 100, imm, 1))
			x.step()
			x.step()
			x.f.signaled[100] = tsAt(sec+500, sec+900)
			x.step()
		}, []string{"timed"}, 1, 0, [][]uint64{{100}}},
		{"a launch after a copy started goes in the next", func(x *harness, c *copyingSource) {
			c.slow = true
			x.f.signaled[100] = tsAt(sec+500, sec+900)
			x.step(launch(sec, 100, imm, 1))
			x.f.signaled[101] = tsAt(sec+1000, sec+1500)
			x.step(launch(sec+10, 101, imm, 1))
			c.slow = false
			x.step()
		}, []string{"timed", "timed"}, 2, 0, [][]uint64{{100}, {101}}},
		{"two contexts: a copy each", func(x *harness, c *copyingSource) {
			x.step(immOn(sec, 100, 9), immOn(sec+10, 200, 10), immOn(sec+20, 101, 9))
			for ev, at := range map[uint64]uint64{100: sec + 500, 200: sec + 600, 101: sec + 700} {
				x.f.signaled[ev] = tsAt(at, at+100)
			}
			x.step()
		}, []string{"timed", "timed", "timed"}, 3, 0, [][]uint64{{100, 101}, {200}}},
		{"busy: the next pass copies", func(x *harness, c *copyingSource) {
			c.status = CopyBusy
			x.step(launch(sec, 100, imm, 1))
			x.f.signaled[100] = tsAt(sec+500, sec+900)
			x.step()
			c.status = CopyStarted
			x.step()
		}, []string{"timed"}, 1, 0, [][]uint64{{100}}},
		{"unavailable: read on the host", func(x *harness, c *copyingSource) {
			c.status = CopyUnavailable
			x.step(launch(sec, 100, imm, 1))
			x.f.signaled[100] = tsAt(sec+500, sec+900)
			x.step()
		}, []string{"timed"}, 0, 1, nil},
		{"batch failed: read on the host", func(x *harness, c *copyingSource) {
			c.status = CopyFailed
			x.step(launch(sec, 100, imm, 1))
			x.step()
			x.f.signaled[100] = tsAt(sec+500, sec+900)
			x.step()
		}, []string{"timed"}, 0, 1, nil},
		{"copy failed: read on the host", func(x *harness, c *copyingSource) {
			x.step(launch(sec, 100, imm, 1))
			c.failing = true
			x.f.signaled[100] = tsAt(sec+500, sec+900)
			x.step()
			x.step()
		}, []string{"timed"}, 0, 1, [][]uint64{{100}}},
		{"not this launch's reading: read on the host", func(x *harness, c *copyingSource) {
			x.step(launch(sec, 100, imm, 1))
			x.f.signaled[100] = tsAt(sec/2, sec/2+100) // before the append
			x.step()
			x.f.signaled[100] = tsAt(sec+500, sec+900)
			x.step()
		}, []string{"timed"}, 0, 1, [][]uint64{{100}}},
		{"final: a copy still running is given up", func(x *harness, c *copyingSource) {
			x.step(launch(sec, 100, imm, 1), launch(sec+10, 101, imm, 1))
			x.f.signaled[101] = tsAt(sec+500, sec+900)
			x.h.Final()
			if len(c.abandoned) != 1 || len(c.waited) == 0 {
				panic("the copy was not waited for and given up")
			}
		}, []string{"NO_TIMESTAMP_REASON_NOT_COMPLETED", "timed"}, 0, 1, [][]uint64{{100, 101}}},
		{"context destroyed: its copies are waited for", func(x *harness, c *copyingSource) {
			c.slow = true
			x.step(immOn(sec, 100, 9), immOn(sec+10, 200, 10))
			x.f.signaled[100] = tsAt(sec+500, sec+900)
			x.f.signaled[200] = tsAt(sec+600, sec+1000)
			x.step()
			x.h.ContextDestroying(9)
			if len(x.f.pools) != 1 || len(c.running) != 1 || len(x.recs) != 1 {
				panic("the context's copy is still running, or another one stopped")
			}
			c.slow = false
			x.step()
		}, []string{"timed", "timed"}, 2, 0, [][]uint64{{100}, {200}}},
		{"only what completed is copied", func(x *harness, c *copyingSource) {
			x.step(launch(sec, 100, imm, 1), launch(sec+10, 101, imm, 1), launch(sec+20, 102, imm, 1))
			x.f.signaled[100] = tsAt(sec+500, sec+900)
			x.step()
			x.f.signaled[101] = tsAt(sec+1000, sec+1500)
			x.f.signaled[102] = tsAt(sec+1600, sec+1700)
			x.step()
		}, []string{"timed", "timed", "timed"}, 3, 0, [][]uint64{{100}, {101, 102}}},
		{"a list at a time", func(x *harness, c *copyingSource) {
			a, b := launch(sec, 100, imm, 1), launch(sec+10, 200, imm, 2)
			a.List, b.List = 1000, 2000
			x.step(a, b)
			x.f.signaled[200] = tsAt(sec+500, sec+900)
			x.step()
			x.f.signaled[100] = tsAt(sec+600, sec+1000)
			x.step()
		}, []string{"timed", "timed"}, 2, 0, [][]uint64{{200}, {100}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, c := newCopyHarness()
			tt.run(x, c)
			var got []string
			for _, r := range x.recs {
				if r.NoTimestampReason != 0 {
					got = append(got, r.NoTimestampReason.String())
				} else {
					got = append(got, "timed")
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("records %v, want %v", got, tt.want)
			}
			for _, r := range x.recs {
				if r.NoTimestampReason == 0 && (r.DeviceStartNs < r.HostAppendNs || r.DeviceEndNs < r.DeviceStartNs) {
					t.Errorf("launch %d: device %d..%d, appended at %d", r.Id, r.DeviceStartNs, r.DeviceEndNs, r.HostAppendNs)
				}
			}
			if copied, host := x.h.Reads(); copied != tt.copied || host != tt.host {
				t.Errorf("reads: %d copied, %d on the host; want %d, %d", copied, host, tt.copied, tt.host)
			}
			if !slices.EqualFunc(c.batches, tt.batches, slices.Equal) {
				t.Errorf("copies %v, want %v", c.batches, tt.batches)
			}
			for ev, n := range x.f.released {
				if n != 1 {
					t.Errorf("event %d given back %d times", ev, n)
				}
			}
			if len(x.f.released) != len(x.recs) {
				t.Errorf("%d events given back for %d launches", len(x.f.released), len(x.recs))
			}
			if len(x.h.imm) != 0 {
				t.Errorf("%d launches left in the FIFO", len(x.h.imm))
			}
		})
	}
}

// TestCopiesOff: with UseCopies(false) (ZESTALL_TIMESTAMP_READS=host)
// no copy is made.
func TestCopiesOff(t *testing.T) {
	x, c := newCopyHarness()
	x.h.UseCopies(false)
	x.step(launch(1e9, 100, SlotFlagImmediate|SlotFlagOurs, 1))
	x.f.signaled[100] = tsAt(1e9+500, 1e9+900)
	x.step()
	if copied, host := x.h.Reads(); len(c.batches) != 0 || copied != 0 || host != 1 || len(x.recs) != 1 {
		t.Errorf("%d copies, reads %d copied %d on the host, %d records", len(c.batches), copied, host, len(x.recs))
	}
}

// TestCopiesLarge: a pass with more launches than one copy takes starts
// several, each at most CopyMaxEvents, together every launch once in
// FIFO order.
func TestCopiesLarge(t *testing.T) {
	x, c := newCopyHarness()
	n := CopyMaxEvents + 10
	slots := make([]Slot, n)
	for i := range slots {
		slots[i] = launch(1e9+uint64(i), uint64(1000+i), SlotFlagImmediate|SlotFlagOurs, 1)
	}
	x.f.slots = slots // a pass drains DrainBatch of them
	x.now = 2e9
	for len(x.f.slots) > 0 {
		x.h.Poll()
	}
	for i := 0; i < n; i++ {
		x.f.signaled[uint64(1000+i)] = tsAt(1e9+uint64(i)+500, 1e9+uint64(i)+900)
	}
	x.step()
	var all []uint64
	for _, b := range c.batches {
		if len(b) > CopyMaxEvents {
			t.Errorf("a copy of %d events", len(b))
		}
		all = append(all, b...)
	}
	if len(all) != n {
		t.Fatalf("%d events copied, want %d", len(all), n)
	}
	for i, ev := range all {
		if ev != uint64(1000+i) {
			t.Fatalf("copied event %d is %d, want %d", i, ev, 1000+i)
		}
	}
	if copied, _ := x.h.Reads(); copied != uint64(n) || len(x.recs) != n {
		t.Errorf("%d copied, %d records, want %d", copied, len(x.recs), n)
	}
}
