package collector

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/zestall/zestall/collector/timing"
	"github.com/zestall/zestall/collector/window/windowtest"
	pb "github.com/zestall/zestall/proto/zestallpb"
	"github.com/zestall/zestall/ze"
)

// launchingTimestamps is a launch path on which kernels are launched on
// immediate lists, each with one of zestall's events, all signalled: the
// harvester times every launch it drains.
type launchingTimestamps struct {
	idleTimestamps
	mu       sync.Mutex
	pending  []timing.Slot
	appended map[uint64]uint64 // event -> host ns of its launch
}

// The device clock (testDevices[0]): 38.4 MHz, tick hostTick at host ns
// hostZero (GlobalTimestamps).
const hostZero, hostTick = 1_000_000, 2000

// ticks is the device tick at host ns t.
func ticks(t uint64) uint64 { return hostTick + (t-hostZero)*384/10_000 }

// launch publishes n launches of kernel from host ns at on, 1 µs apart.
func (l *launchingTimestamps) launch(n int, kernel uint32, at uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.appended == nil {
		l.appended = map[uint64]uint64{}
	}
	for i := range n {
		ev, ns := uint64(0x10000+len(l.appended)), at+uint64(i)*1000
		l.appended[ev] = ns
		l.pending = append(l.pending, timing.Slot{
			Kind: timing.SlotLaunch, HostNs: ns, List: 0x500, Event: ev,
			Device: 0x10, Context: 0x1, KernelID: kernel, ListID: 1, GroupCount: [3]uint32{1, 1, 1},
			GroupSize: [3]uint16{16, 1, 1}, Flags: timing.SlotFlagOurs | timing.SlotFlagImmediate,
		})
	}
}

func (l *launchingTimestamps) Drain(dst []timing.Slot) ([]timing.Slot, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := min(len(l.pending), timing.DrainBatch)
	dst = append(dst, l.pending[:n]...)
	l.pending = l.pending[n:]
	if len(l.pending) > 0 {
		return dst, l.pending[0].HostNs
	}
	return dst, math.MaxUint64
}

// KernelTimestamps: every event signalled; its kernel ran from 1 µs after
// its append for 10 ticks.
func (l *launchingTimestamps) KernelTimestamps(events []uint64, dst []timing.EventReading) []timing.EventReading {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ev := range events {
		start := ticks(l.appended[ev] + 1000)
		dst = append(dst, timing.EventReading{Ready: true, TS: timing.KernelTimestamp{Start: start, End: start + 10, ContextStart: start, ContextEnd: start + 10}})
	}
	return dst
}

func (l *launchingTimestamps) KernelTimestampsReset(events []uint64, dst []timing.EventReading) []timing.EventReading {
	return l.KernelTimestamps(events, dst)
}

func (l *launchingTimestamps) GlobalTimestamps(uint64) (uint64, uint64, error) {
	return hostZero, hostTick, nil
}

// TestWriterLaunches: the harvester's launch records go through the
// writer, none lost however many are queued (the launch queue waits, it
// never drops), after the kernel they name (records of application threads
// go before those of zestall's goroutines queued after them), with running
// counters at each flush and the final ones last: a flush tick between the
// trailer and the close of its queue wrote running counters after it, in
// 2 of 3 runs of 100 batches before the fix, 1 of 8 runs of 24.
func TestWriterLaunches(t *testing.T) {
	s, path, stderr := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0", "ZESTALL_FLUSH_INTERVAL": "1ms"})
	src := &launchingTimestamps{}
	s.Devices(testDevices)
	s.Timestamps(src)
	s.Status(StateActive, ze.Success)
	s.ModuleCreated(&Module{Handle: 1, Device: 0x10, Native: []byte("module")})
	s.KernelCreated(&Kernel{ID: 7, Handle: 10, Module: 1, Name: "k", Base: 0x1000, ISA: make([]byte, 64)})
	// Many batches (a harvester pass drains one at most).
	const launches = 24 * timing.DrainBatch
	src.launch(launches, 7, 5_000_000)
	s.Shutdown()

	recs := readBack(t, path)
	kernelAt, first, timed, running := -1, -1, 0, 0
	for i, r := range recs {
		switch {
		case r.GetKernel() != nil:
			kernelAt = i
		case r.GetLaunch() != nil:
			l := r.GetLaunch()
			if first < 0 {
				first = i
			}
			if l.KernelId != 7 || l.DeviceId != 1 {
				t.Fatalf("launch %v", l)
			}
			if l.DeviceEndNs > l.DeviceStartNs {
				timed++
			}
		case r.GetCounters() != nil && !r.GetCounters().Final:
			running++
		}
	}
	if kernelAt < 0 || first < kernelAt {
		t.Errorf("kernel record at %d, first launch at %d", kernelAt, first)
	}
	for i, r := range recs[:len(recs)-1] {
		if r.GetCounters().GetFinal() {
			t.Fatalf("the final counters at record %d of %d", i, len(recs))
		}
	}
	c := recs[len(recs)-1].GetCounters()
	if !c.GetFinal() {
		t.Fatalf("last record %v, want the final counters; stderr %q", recs[len(recs)-1], stderr)
	}
	if timed != launches || c.LaunchesSeen != launches || c.LaunchesTimed != launches || len(c.Lost) != 0 {
		t.Errorf("%d launches timed in the file; counters seen %d timed %d lost %v; want %d", timed, c.LaunchesSeen, c.LaunchesTimed, c.Lost, launches)
	}
	if running == 0 {
		t.Errorf("no running counters in the file")
	}
	if out := stderr.String(); out != "" {
		t.Errorf("stderr %q", out)
	}
}

// writerSteps is how many turns the writer goroutine took, once it has
// been idle for a while (a wake-up queued before may still be taken).
func writerSteps(s *Session) int {
	last := -1
	for {
		time.Sleep(30 * time.Millisecond)
		s.wr.mu.Lock()
		n := s.wr.steps
		s.wr.mu.Unlock()
		if n == last {
			return n
		}
		last = n
	}
}

// TestWriterWakeups: at a steady launch rate the harvester encodes its
// launch records itself: its passes do not wake the writer goroutine (a
// wake-up per pass cost about as much CPU as the records, issue 14), and
// a kernel created between two passes still precedes its launches (the
// harvester writes what application threads queued before).
func TestWriterWakeups(t *testing.T) {
	s, path, stderr := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0", "ZESTALL_FLUSH_INTERVAL": "1h"})
	src := &launchingTimestamps{}
	s.Devices(testDevices)
	s.Timestamps(src)
	s.Status(StateActive, ze.Success)
	s.ModuleCreated(&Module{Handle: 1, Device: 0x10, Native: []byte("module")})
	s.KernelCreated(&Kernel{ID: 7, Handle: 10, Module: 1, Name: "k", Base: 0x1000, ISA: make([]byte, 64)})
	s.pollNow(0, false)
	before := writerSteps(s)
	const rounds, perRound = 20, 300 // below a backlog (1024 slots a pass)
	at := uint64(5_000_000)
	for range rounds {
		src.launch(perRound, 7, at)
		at += perRound * 1000
		s.pollNow(0, false) // a pass (or more) that drains them
	}
	if after := writerSteps(s); after != before {
		t.Errorf("%d harvester rounds woke the writer goroutine %d times, want none", rounds, after-before)
	}
	// A kernel created between passes, then launched: the harvester
	// writes the kernel's record (queued for the writer) before them.
	s.KernelCreated(&Kernel{ID: 8, Handle: 11, Module: 1, Name: "k2", Base: 0x2000, ISA: make([]byte, 64)})
	src.launch(perRound, 8, at)
	s.pollNow(0, false)
	s.Shutdown()

	recs := readBack(t, path)
	kernel8, launches := -1, 0
	for i, r := range recs {
		switch {
		case r.GetKernel().GetId() == 8:
			kernel8 = i
		case r.GetLaunch() != nil:
			launches++
			if r.GetLaunch().KernelId == 8 && kernel8 < 0 {
				t.Fatalf("launch of kernel 8 at record %d before the kernel's record", i)
			}
		}
	}
	c := recs[len(recs)-1].GetCounters()
	if want := (rounds + 1) * perRound; launches != want || c.LaunchesSeen != uint64(want) || c.LaunchesTimed != uint64(want) || len(c.Lost) != 0 {
		t.Errorf("%d launches in the file; counters seen %d timed %d lost %v; want %d", launches, c.LaunchesSeen, c.LaunchesTimed, c.Lost, want)
	}
	if out := stderr.String(); out != "" {
		t.Errorf("stderr %q", out)
	}
}

// TestWriterBusy: while the writer goroutine holds the writer (waiting for
// the compressor, which waits for the file system) the harvester does not
// wait for it: it hands its batches over through the queue and goes on
// draining the application's rings.
func TestWriterBusy(t *testing.T) {
	s, path, stderr := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0", "ZESTALL_FLUSH_INTERVAL": "1h"})
	src := &launchingTimestamps{}
	s.Devices(testDevices)
	s.Timestamps(src)
	s.Status(StateActive, ze.Success)
	s.KernelCreated(&Kernel{ID: 7, Handle: 10, Module: 1, Name: "k", Base: 0x1000, ISA: make([]byte, 64)})
	s.pollNow(0, false)
	writerSteps(s)
	s.wr.mu.Lock() // the writer goroutine, stuck
	const rounds, perRound = 3, 300
	for i := range rounds {
		src.launch(perRound, 7, uint64(5_000_000+i*perRound*1000))
		if !s.pollNow(0, false) {
			s.wr.mu.Unlock()
			t.Fatalf("round %d: the harvester did not finish a pass while the writer was busy", i)
		}
	}
	seen := s.runningCounters().LaunchesSeen
	s.wr.mu.Unlock()
	if seen != rounds*perRound {
		t.Errorf("%d launches seen while the writer was busy, want %d", seen, rounds*perRound)
	}
	s.Shutdown()
	recs := readBack(t, path)
	launches := 0
	for _, r := range recs {
		if r.GetLaunch() != nil {
			launches++
		}
	}
	if c := recs[len(recs)-1].GetCounters(); launches != rounds*perRound || len(c.Lost) != 0 {
		t.Errorf("%d launches in the file, lost %v; want %d", launches, c.Lost, rounds*perRound)
	}
	if out := stderr.String(); out != "" {
		t.Errorf("stderr %q", out)
	}
}

// TestRunningCounters: the counters written with each flush carry the
// losses so far, of the launch path (rings full, command lists without an
// id), the queue and kernels without an id, in a stable order.
func TestRunningCounters(t *testing.T) {
	s, _, _ := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0"})
	s.Timestamps(droppingTimestamps{})
	s.Controls(&windowtest.Source{Installed: 1})
	s.Status(StateActive, ze.Success)
	defer s.Shutdown()
	s.KernelCreated(&Kernel{Handle: 1, Name: "no id"})
	c := s.runningCounters()
	var got []string
	for _, l := range c.Lost {
		got = append(got, l.What)
	}
	want := []string{timing.LossLaunchesRingFull, timing.LossSlotsRingFull, timing.LossListNoID, LossKernelNoID}
	if len(got) != len(want) {
		t.Fatalf("losses %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("losses %q, want %q", got, want)
		}
	}
	if c.HostNs == 0 || c.Final {
		t.Errorf("counters %v", c)
	}
}

// droppingTimestamps is a launch path whose rings overflowed and which
// ran out of command-list ids.
type droppingTimestamps struct{ idleTimestamps }

func (droppingTimestamps) Dropped() (uint64, uint64) { return 3, 2 }
func (droppingTimestamps) ListsWithoutID() uint64    { return 4 }

// TestShutdownIdle: the exit of a session whose goroutines are idle (a
// short program) does not wait for the harvester's goroutine to wake up,
// and wakes the writer goroutine once for all its records (the exit edge
// of the collection, the trailer): each goroutine woken at exit cost the
// process wake-ups and context switches (issue 14). With the writer busy
// at that moment the exit waits for it. Either way the file is complete,
// and the harvester's goroutine ends afterwards.
func TestShutdownIdle(t *testing.T) {
	for _, tc := range []struct {
		name       string
		writerBusy bool
	}{
		{"idle", false},
		{"writer busy", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, path, stderr := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0", "ZESTALL_FLUSH_INTERVAL": "1h"})
			s.Devices(testDevices)
			s.Timestamps(idleTimestamps{})
			s.Controls(&windowtest.Source{Installed: 1})
			s.Status(StateActive, ze.Success)
			s.ModuleCreated(&Module{Handle: 1, Device: 0x10, Native: []byte("module")})
			s.pollNow(0, false)
			before := writerSteps(s)
			if tc.writerBusy {
				s.wr.mu.Lock()
				go func() {
					time.Sleep(50 * time.Millisecond)
					s.wr.mu.Unlock()
				}()
			}
			s.Shutdown()
			s.wr.mu.Lock()
			after := s.wr.steps
			s.wr.mu.Unlock()
			if after-before != 1 {
				t.Errorf("the exit woke the writer goroutine %d times, want once", after-before)
			}
			select {
			case <-s.pollDone:
			case <-time.After(10 * time.Second):
				t.Fatal("the harvester's goroutine did not end after the exit")
			}
			recs := readBack(t, path)
			if len(recs) < 4 || recs[0].GetHeader() == nil {
				t.Fatalf("%d records, want the header, ..., the exit edge, the final counters", len(recs))
			}
			if w := recs[len(recs)-2].GetWindow(); w == nil || w.Edge != pb.WindowEdge_WINDOW_EDGE_STOP {
				t.Errorf("record before the trailer %v, want the exit's stop edge", recs[len(recs)-2])
			}
			if c := recs[len(recs)-1].GetCounters(); !c.GetFinal() || len(c.Lost) != 0 {
				t.Errorf("last record %v, want the final counters, nothing lost", recs[len(recs)-1])
			}
			if out := stderr.String(); out != "" {
				t.Errorf("stderr %q", out)
			}
		})
	}
}
