package sampling

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
	"github.com/zestall/zestall/ze"
)

// harness is a Reader over a fake source with one fake attributor per set.
type harness struct {
	r     *Reader
	src   *fakeSource
	attr  []*fakeAttributor
	clock atomic.Uint64
	out   strings.Builder // stderr
	mu    sync.Mutex
}

func newHarness(t *testing.T, src *fakeSource, roots []Device, sampling bool) *harness {
	return newHarnessLatency(t, src, roots, sampling, 0)
}

func newHarnessLatency(t *testing.T, src *fakeSource, roots []Device, sampling bool, latency time.Duration) *harness {
	t.Helper()
	h := &harness{src: src}
	var stderr lockedWriter
	stderr.w, stderr.mu = &h.out, &h.mu
	h.r = Open(src, roots, Options{
		Sampling: sampling, PeriodNs: 50000, ReadInterval: time.Millisecond, Latency: latency,
		Now:    func() uint64 { return h.clock.Add(10) },
		Emit:   func(*pb.Record) {},
		Stderr: stderr,
		NewAttributor: func(device uint32, sub *uint32, cols int) Attributor {
			a := &fakeAttributor{cols: cols, kernels: map[uint64]bool{}}
			h.attr = append(h.attr, a)
			return a
		},
	})
	return h
}

func (h *harness) stderr() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.out.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *strings.Builder
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// run starts the reader and stops it at the end of the test.
func (h *harness) run(t *testing.T) {
	go h.r.Run()
	t.Cleanup(func() { h.stop(t) })
}

func (h *harness) stop(t *testing.T) {
	select {
	case <-h.r.stop:
		return // stopped already
	default:
	}
	if !h.r.Stop(5 * time.Second) {
		t.Error("reader did not stop")
	}
}

// read makes the reader read now and waits for it. The bound is loose:
// one read decodes 8 MiB twice in TestReadWindows, slow under -race on a
// loaded machine.
func (h *harness) read(t *testing.T) {
	t.Helper()
	if !h.r.ReadNow(time.Minute) {
		t.Fatal("ReadNow timed out")
	}
}

func (h *harness) counters() *pb.Counters {
	c := &pb.Counters{}
	h.r.Counters(c)
	return c
}

var pvc = []Device{{ID: 1, Handle: 0x100, Name: "fake PVC", Platform: "PVC"}}

// TestOpen: one stream per root, the reasons sampling is off said once on
// stderr and written in the header.
func TestOpen(t *testing.T) {
	roots := []Device{
		{ID: 1, Handle: 0x100, Name: "a", Platform: "PVC"},
		{ID: 3, Handle: 0x300, Name: "b", Platform: "PVC"},
		{ID: 4, Handle: 0x400, Name: "c"},
		{ID: 5, Handle: 0x500, Name: "d"},
	}
	src := &fakeSource{off: map[uint64]Off{0x300: OffNoGroup, 0x400: OffOpenFailed, 0x500: OffOpenFailed}}
	h := newHarness(t, src, roots, true)
	if !h.r.Active() || len(h.r.streams) != 1 || len(h.attr) != 1 || h.attr[0].cols != 9 {
		t.Fatalf("active %v, %d streams, %d attributors", h.r.Active(), len(h.r.streams), len(h.attr))
	}
	if h.r.raw[0] == nil {
		t.Error("PVC stream has no raw decoder")
	}
	out := h.stderr()
	if strings.Count(out, "could not be opened (ZE_RESULT_ERROR_NOT_AVAILABLE (0x70010001)) (fake)") != 1 ||
		!strings.Contains(out, "device 3 (b): it has no EuStallSampling metric group") {
		t.Errorf("stderr:\n%s", out)
	}
	devs := make([]*pb.Device, 5)
	for i := range devs {
		devs[i] = &pb.Device{Id: uint32(i + 1)}
	}
	h.r.Header(devs)
	if s := devs[0].StallSampling; !s.Enabled || s.SamplingPeriodNs != 100000 || s.RequestedPeriodNs != 50000 || len(s.Metrics) != 10 {
		t.Errorf("device 1: %v", s)
	}
	if devs[1].StallSampling != nil {
		t.Errorf("sub-device 2 has its own sampling: %v", devs[1].StallSampling)
	}
	if s := devs[2].StallSampling; s.Enabled || s.OffReason != pb.StallSamplingOff_STALL_SAMPLING_OFF_NO_GROUP {
		t.Errorf("device 3: %v", s)
	}
	if s := devs[3].StallSampling; s.OffReason != pb.StallSamplingOff_STALL_SAMPLING_OFF_OPEN_FAILED || s.Detail != "ZE_RESULT_ERROR_NOT_AVAILABLE (0x70010001)" {
		t.Errorf("device 4: %v", s)
	}

	off := newHarness(t, &fakeSource{}, pvc, false)
	if off.r.Active() || off.stderr() != "" {
		t.Errorf("ZESTALL_SAMPLING=0: active %v, stderr %q", off.r.Active(), off.stderr())
	}
	devs = []*pb.Device{{Id: 1}}
	off.r.Header(devs)
	if s := devs[0].StallSampling; s.Enabled || s.OffReason != pb.StallSamplingOff_STALL_SAMPLING_OFF_DISABLED || s.Detail != "" {
		t.Errorf("disabled: %v", s)
	}
}

// TestReadWindows: each read's samples go to one window, from the start
// of the previous read to the end of this one; a full buffer is read
// again at once (its rest in the next window, which starts where the full
// read's did); a lone drop warning does not start a window.
func TestReadWindows(t *testing.T) {
	src := &fakeSource{}
	h := newHarness(t, src, pvc, true)
	h.run(t)
	h.read(t)
	src.queue(fakeRead{data: records(3, 0x1000)})
	h.read(t)
	src.queue(fakeRead{dropped: true}, fakeRead{data: records(2, 0x2000)})
	h.read(t)
	src.queue(fakeRead{data: records(readBufSize/64+5, 0x3000)}) // more than the reader's buffer
	h.read(t)
	ws := h.attr[0].got()
	if len(ws) != 4 {
		t.Fatalf("windows %v, want 4", ws)
	}
	if ws[0].rows != 3 || ws[1].rows != 2 || ws[2].rows != readBufSize/64 || ws[3].rows != 5 {
		t.Errorf("rows %v", ws)
	}
	// A window starts where the previous read (empty ones too) began,
	// except after a full read: what it left in the device's buffers was
	// taken before it began, so the rest's window starts where the full
	// read's did.
	for i := 1; i < len(ws); i++ {
		if ws[i].start >= ws[i].end {
			t.Errorf("window %d %v is empty", i, ws[i])
		}
		if i == 3 {
			if ws[i].start != ws[i-1].start {
				t.Errorf("the rest of a full read: window %v, want the start of %v", ws[i], ws[i-1])
			}
		} else if ws[i].start < ws[i-1].end-10 {
			t.Errorf("window %d %v does not follow %v", i, ws[i], ws[i-1])
		}
	}
	h.stop(t)
	c := h.counters()
	if want := uint64(3 + 2 + readBufSize/64 + 5); c.StallRecordsRead != want || c.StallDropWarnings != 1 {
		t.Errorf("read %d (want %d), drop warnings %d", c.StallRecordsRead, want, c.StallDropWarnings)
	}
	if c.StallRowsUnattributed != 7 || c.StallRowsAttributed == 0 || len(c.Lost) != 0 {
		t.Errorf("counters %v", c)
	}
	if src.closed != 1 || h.attr[0].resolves.Load() == 0 {
		t.Errorf("closed %d, resolves %d", src.closed, h.attr[0].resolves.Load())
	}
}

// TestRawPath: the raw decoder replaces the driver's calculation after it
// agreed rawChecks times; one disagreement ends it for good, counted.
func TestRawPath(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lie   bool
		calcs int // calculations over rawChecks+5 reads
		lost  []string
	}{
		{"agrees: trusted after the checks", false, rawChecks, nil},
		{"disagrees: the driver's for good", true, rawChecks + 5, []string{LossRawDisagreed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &fakeSource{lie: tc.lie}
			h := newHarness(t, src, pvc, true)
			h.run(t)
			for i := 0; i < rawChecks+5; i++ {
				src.queue(fakeRead{data: records(4, uint64(0x100*(i+1)))})
				h.read(t)
			}
			h.stop(t)
			if got := src.calculations(); got != tc.calcs {
				t.Errorf("%d calculations, want %d", got, tc.calcs)
			}
			if got := lossNames(h.counters()); !slices.Equal(got, tc.lost) {
				t.Errorf("losses %v, want %v", got, tc.lost)
			}
			if n := len(h.attr[0].got()); n != rawChecks+5 {
				t.Errorf("%d windows", n)
			}
		})
	}
}

// TestNoRawPath: a device without a raw decoder always uses the driver's.
func TestNoRawPath(t *testing.T) {
	src := &fakeSource{}
	h := newHarness(t, src, []Device{{ID: 1, Handle: 0x100, Name: "unknown"}}, true)
	h.run(t)
	for i := 0; i < rawChecks+2; i++ {
		src.queue(fakeRead{data: records(1, 0x40)})
		h.read(t)
	}
	if got := src.calculations(); got != rawChecks+2 {
		t.Errorf("%d calculations, want %d", got, rawChecks+2)
	}
}

// TestReadErrors: failed reads and calculations are counted by result.
func TestReadErrors(t *testing.T) {
	src := &fakeSource{calcErr: ze.Call("zetMetricGroupCalculateMultipleMetricValuesExp", uint32(ze.ErrorInvalidArgument))}
	h := newHarness(t, src, []Device{{ID: 1, Handle: 0x100}}, true)
	h.run(t)
	src.queue(fakeRead{err: ze.Call("zetMetricStreamerReadData", uint32(ze.ErrorDeviceLost))})
	h.read(t)
	src.queue(fakeRead{err: errors.New("not a driver result")})
	h.read(t)
	src.queue(fakeRead{data: records(2, 0x80)})
	h.read(t)
	h.stop(t)
	want := []string{
		"stall calculations failed (ZE_RESULT_ERROR_INVALID_ARGUMENT (0x78000004))",
		"stall reads failed (ZE_RESULT_ERROR_DEVICE_LOST (0x70000001))",
		"stall reads failed (ZE_RESULT_SUCCESS (0x0))",
	}
	if got := lossNames(h.counters()); !slices.Equal(got, want) {
		t.Errorf("losses %v, want %v", got, want)
	}
}

// TestCollectionEdges: samples read while stopped are discarded and
// counted; a start takes effect at the next read; a settled stop ends
// attribution at the next read; kernels get a stand-in launch while
// stopped.
func TestCollectionEdges(t *testing.T) {
	src := &fakeSource{}
	h := newHarness(t, src, pvc, true)
	h.r.KernelCreated(1, 0x1000, 0x100, 5)
	h.r.SetCollecting(false)
	h.r.CollectionStopped(10)
	h.run(t)
	src.queue(fakeRead{data: records(3, 0x1000)})
	h.read(t)
	if n := len(h.attr[0].got()); n != 0 {
		t.Fatalf("%d windows while stopped", n)
	}
	h.r.StartEdge(true)
	h.r.CollectionStarted(h.clock.Load())
	src.queue(fakeRead{data: records(2, 0x1000)})
	h.read(t)
	if ws := h.attr[0].got(); len(ws) != 1 || ws[0].rows != 2 {
		t.Fatalf("after start: %v", ws)
	}
	at := h.clock.Load()
	h.r.CollectionStopped(at)
	h.r.StopEdge(at, true, true)
	src.queue(fakeRead{data: records(4, 0x1000)})
	h.read(t)
	h.stop(t)
	if ws := h.attr[0].got(); len(ws) != 1 {
		t.Errorf("after stop: %v", ws)
	}
	c := h.counters()
	if c.StallRecordsDiscardedStopped != 3+4 || c.StallRecordsRead != 9 {
		t.Errorf("discarded %d, read %d", c.StallRecordsDiscardedStopped, c.StallRecordsRead)
	}
	a := h.attr[0]
	if len(a.untimed) != 2 || len(a.ended) != 1 || a.untimed[0] < standInIDBase || a.untimed[0] == a.untimed[1] {
		t.Errorf("stand-ins: untimed %v, ended %v", a.untimed, a.ended)
	}
}

// TestStopWhileDraining: a stop that is not settled keeps attributing until
// launch timing says every launch before it has its times.
func TestStopWhileDraining(t *testing.T) {
	src := &fakeSource{}
	h, settled := runDraining(t, src)
	src.queue(fakeRead{data: records(2, 0x1000)})
	h.read(t)
	if n := len(h.attr[0].got()); n != 1 {
		t.Fatalf("%d windows while draining, want 1", n)
	}
	settled.Store(true)
	h.read(t) // sees the harvest settled: ends the stop
	src.queue(fakeRead{data: records(2, 0x1000)})
	h.read(t)
	if n := len(h.attr[0].got()); n != 1 {
		t.Errorf("%d windows after the stop settled, want 1", n)
	}
}

// runDraining runs a reader that has just been told to stop while launch
// timing does not say yet that the launches before the stop have their
// times (settled, false until the test sets it).
func runDraining(t *testing.T, src *fakeSource) (*harness, *atomic.Bool) {
	h := newHarness(t, src, pvc, true)
	settled := &atomic.Bool{}
	h.r.SetTiming(Timing{SettledBefore: func(uint64) bool { return settled.Load() }, PendingBefore: func() uint64 { return 0 }})
	h.run(t)
	h.r.StopEdge(h.clock.Load(), false, false)
	return h, settled
}

// TestLaunches: a batch of launches goes to every attributor of each
// launch's device, in order, timed or not, in one call per attributor
// (none for a device the batch has no launch of, unless the batch mixes
// devices), and wakes the reader once with the latest end: exactly what
// the same launches handed over one at a time give the attributors, the
// latest completion and the unknown one.
func TestLaunches(t *testing.T) {
	const untimed = uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
	timed := func(id uint64, dev uint32, end uint64) stream.Launch {
		return stream.Launch{Id: id, KernelId: 1, DeviceId: dev, DeviceStartNs: end - 5, DeviceEndNs: end}
	}
	never := func(id uint64, dev uint32) stream.Launch {
		return stream.Launch{Id: id, KernelId: 1, DeviceId: dev, Flags: untimed}
	}
	// Devices 1 (one set) and 3 (two sets); device 2 samples nothing.
	roots := []Device{{ID: 1, Handle: 0x100, Name: "a", Platform: "PVC"}, {ID: 3, Handle: 0x300, Name: "b", Platform: "PVC"}}
	tests := []struct {
		name        string
		batches     [][]stream.Launch
		wantTimed   [3][]uint64 // per attributor: device 1, device 3 set 0, set 1
		wantUntimed [3][]uint64
		wantCalls   [3]int
		lastDone    uint64
		unknown     bool
	}{
		{name: "one device", batches: [][]stream.Launch{{timed(1, 1, 20), timed(2, 1, 40), timed(3, 1, 30)}},
			wantTimed: [3][]uint64{{1, 2, 3}}, wantCalls: [3]int{1, 0, 0}, lastDone: 40},
		{name: "untimed", batches: [][]stream.Launch{{timed(1, 3, 20), never(2, 3), timed(3, 3, 15)}},
			wantTimed: [3][]uint64{nil, {1, 3}, {1, 3}}, wantUntimed: [3][]uint64{nil, {2}, {2}}, wantCalls: [3]int{0, 1, 1}, lastDone: 20, unknown: true},
		{name: "untimed only", batches: [][]stream.Launch{{never(1, 1)}},
			wantUntimed: [3][]uint64{{1}}, wantCalls: [3]int{1, 0, 0}, unknown: true},
		{name: "a timed launch without end", batches: [][]stream.Launch{{timed(1, 1, 20), {Id: 2, KernelId: 1, DeviceId: 1}}},
			wantTimed: [3][]uint64{{1, 2}}, wantCalls: [3]int{1, 0, 0}, lastDone: 20, unknown: true},
		{name: "mixed devices", batches: [][]stream.Launch{{timed(1, 1, 20), timed(2, 3, 50), timed(3, 2, 90), never(4, 1), timed(5, 3, 30), timed(6, 1, 25)}},
			wantTimed: [3][]uint64{{1, 6}, {2, 5}, {2, 5}}, wantUntimed: [3][]uint64{{4}}, wantCalls: [3]int{1, 1, 1}, lastDone: 90, unknown: true},
		{name: "a device without sampling", batches: [][]stream.Launch{{timed(1, 2, 70)}},
			lastDone: 70},
		{name: "several batches", batches: [][]stream.Launch{{timed(1, 1, 20)}, {}, {timed(2, 3, 10), timed(3, 3, 12)}, {timed(4, 1, 30)}},
			wantTimed: [3][]uint64{{1, 4}, {2, 3}, {2, 3}}, wantCalls: [3]int{2, 1, 1}, lastDone: 30},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, batched := range []bool{false, true} {
				h := newHarness(t, &fakeSource{sets: map[uint64]uint32{0x300: 2}}, roots, true)
				if len(h.attr) != 3 {
					t.Fatalf("%d attributors", len(h.attr))
				}
				for _, b := range tc.batches {
					if batched {
						h.r.Launches(b)
						continue
					}
					for i := range b {
						h.r.Launches(b[i : i+1])
					}
				}
				what := map[bool]string{false: "one at a time", true: "batched"}[batched]
				for i, a := range h.attr {
					if !slices.Equal(a.timed, tc.wantTimed[i]) || !slices.Equal(a.untimed, tc.wantUntimed[i]) {
						t.Errorf("%s: attributor %d: timed %v, untimed %v; want %v, %v", what, i, a.timed, a.untimed, tc.wantTimed[i], tc.wantUntimed[i])
					}
					if batched && a.calls != tc.wantCalls[i] {
						t.Errorf("attributor %d: %d calls for %d batches, want %d", i, a.calls, len(tc.batches), tc.wantCalls[i])
					}
				}
				if h.r.lastDone.Load() != tc.lastDone || h.r.doneUnknown.Load() != tc.unknown || len(h.r.wake) != 1 {
					t.Errorf("%s: lastDone %d, unknown %v, wake %d; want %d, %v, 1", what, h.r.lastDone.Load(), h.r.doneUnknown.Load(), len(h.r.wake), tc.lastDone, tc.unknown)
				}
			}
		})
	}
	h := newHarness(t, &fakeSource{}, pvc, true)
	h.r.Launches(nil)
	if len(h.r.wake) != 0 || h.attr[0].calls != 0 {
		t.Errorf("an empty batch woke the reader (%d) or called the attributor (%d)", len(h.r.wake), h.attr[0].calls)
	}
	h.r.KernelCreated(1, 0x1000, 0x100, 0)
	h.r.KernelDestroyed(1, 30)
	if len(h.attr[0].kernels) != 0 || len(h.r.live) != 0 {
		t.Errorf("kernel alive after destroy")
	}
}

// TestLaunchesAllocs: handing a batch over allocates nothing.
func TestLaunchesAllocs(t *testing.T) {
	h := newHarness(t, &fakeSource{}, pvc, true)
	h.attr[0].timed = make([]uint64, 0, 1<<20)
	ls := make([]stream.Launch, 1024)
	for i := range ls {
		ls[i] = stream.Launch{Id: uint64(i + 1), KernelId: 1, DeviceId: 1, DeviceStartNs: 10, DeviceEndNs: 20}
	}
	if n := testing.AllocsPerRun(100, func() { h.r.Launches(ls) }); n != 0 {
		t.Errorf("%v allocations per batch", n)
	}
}

// TestModuleDestroyedReaderBusy: a read that does not happen in time is
// said to the caller and is no loss (the next window spans the destroy).
func TestModuleDestroyedReaderBusy(t *testing.T) {
	h := newHarness(t, &fakeSource{}, pvc, true) // not running: nobody reads
	if h.r.ModuleDestroyed() {
		t.Errorf("ModuleDestroyed says it read; nobody reads")
	}
	if got := lossNames(h.counters()); len(got) != 0 {
		t.Errorf("losses %v", got)
	}
}

// TestReaderPanic: a panic in the reader is reported, the reader ends, and
// the application's calls still return.
func TestReaderPanic(t *testing.T) {
	src := &fakeSource{}
	h := newHarness(t, src, pvc, true)
	h.attr[0].panicAt = 1
	h.run(t)
	src.queue(fakeRead{data: records(1, 0x40)})
	select {
	case <-h.r.done:
	case <-time.After(5 * time.Second):
		t.Fatal("reader still running after a panic")
	}
	if !strings.Contains(h.stderr(), "internal error in the stall reader: fake attributor") {
		t.Errorf("stderr %q", h.stderr())
	}
	if h.r.ReadNow(10 * time.Millisecond) {
		t.Error("ReadNow succeeded on an ended reader")
	}
	h.r.StartEdge(true) // returns: the reader is done
	// The application's calls that take the reader's lock still return.
	returned := make(chan struct{})
	go func() {
		h.r.KernelCreated(2, 0x2000, 0x100, h.clock.Load())
		h.r.Launches([]stream.Launch{{Id: 5, KernelId: 2, DeviceId: 1}})
		h.r.ModuleDestroyed()
		close(returned)
	}()
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("the application's calls hang after a panic in the reader")
	}
}

// lossNames lists the trailer's losses in their order.
func lossNames(c *pb.Counters) []string {
	var s []string
	for _, l := range c.Lost {
		s = append(s, l.What)
	}
	return s
}

// TestLatency: with a stall latency, a completion is followed by a
// settling read latency after the work ended, a serialized launch's read
// comes latency after it, a start takes effect latency after it was asked,
// and the exit waits latency for the last samples.
func TestLatency(t *testing.T) {
	const latency = 20 * time.Millisecond
	src := &fakeSource{}
	h := newHarnessLatency(t, src, pvc, true, latency)
	h.r.interval = time.Hour // no timer reads: only wakes, settles and asks
	h.run(t)
	h.read(t)
	src.queue(fakeRead{data: records(1, 0x40)})
	h.r.Completed(h.clock.Load())
	deadline := time.Now().Add(5 * time.Second)
	for len(h.attr[0].got()) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := len(h.attr[0].got()); n != 1 {
		t.Fatalf("%d windows after a completion", n)
	}
	src.queue(fakeRead{data: records(2, 0x40)})
	start := time.Now()
	h.r.SerializedRead()
	if d := time.Since(start); d < latency {
		t.Errorf("serialized read after %v, want at least %v", d, latency)
	}
	if ws := h.attr[0].got(); len(ws) != 2 || ws[1].rows != 2 {
		t.Errorf("windows %v", ws)
	}
	h.r.StopEdge(h.clock.Load(), true, true)
	start = time.Now()
	h.r.StartEdge(true)
	if d := time.Since(start); d < latency {
		t.Errorf("start took effect after %v, want at least %v", d, latency)
	}
	start = time.Now()
	h.stop(t)
	if d := time.Since(start); d < latency {
		t.Errorf("exit after %v, want at least %v (the last samples' latency)", d, latency)
	}
}

// TestLossesWhileBusy: a module destroyed while the reader is busy in a
// failing read: the failed read is counted, the late module read is no
// loss (run with -race: the reader and the application thread meet).
func TestLossesWhileBusy(t *testing.T) {
	src := &fakeSource{readDelay: 300 * time.Millisecond}
	h := newHarness(t, src, pvc, true)
	src.queue(fakeRead{err: ze.ErrorDeviceLost})
	h.run(t)
	time.Sleep(10 * time.Millisecond) // the reader is in its first read
	h.r.ModuleDestroyed()
	h.stop(t)
	want := []string{"stall reads failed (ZE_RESULT_ERROR_DEVICE_LOST (0x70000001))"}
	if got := lossNames(h.counters()); !slices.Equal(got, want) {
		t.Errorf("losses %v, want %v", got, want)
	}
}

// TestTileBusy: a tile whose stream another process holds (Intel's driver
// returns ZE_RESULT_ERROR_UNKNOWN) is said in one line naming the device,
// its ZE_AFFINITY_MASK entry and what to do; timing is not affected.
func TestTileBusy(t *testing.T) {
	roots := []Device{{ID: 1, Handle: 0x100, Name: "fake PVC", Platform: "PVC", AffinityEntry: "3"}}
	h := newHarness(t, &fakeSource{busy: map[uint64]bool{0x100: true}}, roots, true)
	out := h.stderr()
	want := "zestall: EU stall sampling is off on device 1 (fake PVC, ZE_AFFINITY_MASK entry 3 of this node): its EU stall stream is held by another process (one per tile; the open returned ZE_RESULT_ERROR_UNKNOWN (0x7ffffffe)). Let one process per tile sample: ZESTALL_SAMPLE_RANKS=<one rank per tile>, or stop the other profiler. Kernel timing continues.\n"
	if out != want {
		t.Errorf("stderr:\n%q\nwant\n%q", out, want)
	}
	if h.r.Active() || h.r.OtherProcessesKnown() {
		t.Errorf("active %v, other processes known %v", h.r.Active(), h.r.OtherProcessesKnown())
	}
}

// TestOtherProcesses: before each window the reader asks which other
// processes run kernels on the device; a window takes those seen at its
// start (the previous read) and at its end, so a process that ended in
// between still counts; a driver that cannot say makes them unknown.
func TestOtherProcesses(t *testing.T) {
	src := &fakeSource{others: [][]uint32{nil, {5}, nil, nil}}
	h := newHarness(t, src, pvc, true)
	if !h.r.OtherProcessesKnown() {
		t.Error("other processes not known after a successful query")
	}
	h.run(t)
	for i := 0; i < 3; i++ {
		src.queue(fakeRead{data: records(1, 0x1000)})
		h.read(t)
	}
	h.stop(t)
	a := h.attr[0]
	a.mu.Lock()
	got := a.windowOther
	a.mu.Unlock()
	if want := [][]uint32{{5}, {5}, nil}; len(got) != 3 || !slices.Equal(got[0], want[0]) || !slices.Equal(got[1], want[1]) || len(got[2]) != 0 {
		t.Errorf("others per window %v, want %v", got, want)
	}

	unknown := newHarness(t, &fakeSource{othersErr: ze.ErrorUnsupportedFeature}, pvc, true)
	if unknown.r.OtherProcessesKnown() || unknown.attr[0].othersKnown {
		t.Error("other processes known although the driver could not say")
	}
}

// TestReadFull: a read may have left records behind when less than a
// record plus one header per sub-device was left free.
func TestReadFull(t *testing.T) {
	for _, tc := range []struct {
		n, size int
		sub     uint32
		want    bool
	}{
		{0, 1024, 1, false},
		{1024 - 128, 1024, 1, false},
		{1024 - 64, 1024, 1, true}, // FLAT: one more record did not fit
		{1024, 1024, 1, true},
		{1024 - 112, 1024, 4, true},  // COMPOSITE, 4 sub-devices: 64 + 4 headers did not fit
		{1024 - 192, 1024, 4, false}, // 64 + 4×16 = 128 < 192 left
		{1024 - 64, 1024, 0, true},   // 0 sub-devices counts as 1
	} {
		if got := readFull(tc.n, tc.size, tc.sub); got != tc.want {
			t.Errorf("readFull(%d, %d, %d) = %v, want %v", tc.n, tc.size, tc.sub, got, tc.want)
		}
	}
}

// TestExitWait: at exit the reader waits for the last samples only as
// long as they can still become visible: latency after the last work
// completed, the whole latency when some work's end is unknown, and not
// at all when no work completed.
func TestExitWait(t *testing.T) {
	const latency = 400 * time.Millisecond
	const sec = uint64(time.Second)
	tests := []struct {
		name      string
		completed []uint64 // Completed(at), at in ns before the clock's "now" (0: unknown)
		long      bool     // the exit waits about latency
	}{
		{"no work", nil, false},
		{"work ended long ago", []uint64{sec}, false},
		{"work just ended", []uint64{1}, true},
		{"an end unknown", []uint64{sec, 0}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &fakeSource{}
			h := newHarnessLatency(t, src, pvc, true, latency)
			h.r.interval = time.Hour
			h.clock.Store(10 * sec)
			h.run(t)
			for _, ago := range tt.completed {
				if ago == 0 {
					h.r.Completed(0)
				} else {
					h.r.Completed(h.clock.Load() - ago)
				}
			}
			start := time.Now()
			h.stop(t)
			d := time.Since(start)
			if tt.long && d < latency-time.Millisecond {
				t.Errorf("exit after %v, want about %v", d, latency)
			}
			if !tt.long && d >= latency/2 {
				t.Errorf("exit after %v, want no wait (latency %v)", d, latency)
			}
		})
	}
}
