package collector

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zestall/zestall/collector/sampling"
	"github.com/zestall/zestall/collector/timing"
	"github.com/zestall/zestall/collector/window"
	"github.com/zestall/zestall/collector/window/windowtest"
	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
	"github.com/zestall/zestall/ze"
	"golang.org/x/sys/unix"
)

// idleTimestamps is a launch path on which nothing is ever launched.
type idleTimestamps struct{}

func (idleTimestamps) Enable(bool)     {}
func (idleTimestamps) WakeOnSync(bool) {}
func (idleTimestamps) Serialize(bool)  {}
func (idleTimestamps) Drain(dst []timing.Slot) ([]timing.Slot, uint64) {
	return dst, math.MaxUint64
}
func (idleTimestamps) Dropped() (uint64, uint64)          { return 0, 0 }
func (idleTimestamps) SerializeTimeouts() uint64          { return 0 }
func (idleTimestamps) ListsWithoutID() uint64             { return 0 }
func (idleTimestamps) WaitOnFullRing(bool)                {}
func (idleTimestamps) RingWaits() (uint64, time.Duration) { return 0, 0 }
func (idleTimestamps) KernelTimestamps(_ []uint64, dst []timing.EventReading) []timing.EventReading {
	return dst
}
func (idleTimestamps) KernelTimestampsReset(_ []uint64, dst []timing.EventReading) []timing.EventReading {
	return dst
}
func (idleTimestamps) ReleaseEvents([]timing.EventRef)                 {}
func (idleTimestamps) ReturnEvents([]timing.EventRef)                  {}
func (idleTimestamps) GlobalTimestamps(uint64) (uint64, uint64, error) { return 0, 0, nil }
func (idleTimestamps) DestroyContextPools(uint64)                      {}
func (idleTimestamps) SnapshotRelease(uint64)                          {}
func (idleTimestamps) ListSubmits(uint64) uint64                       { return 0 }
func (idleTimestamps) SnapshotResults(_ uint64, dst []timing.KernelTimestamp) ([]timing.KernelTimestamp, bool, error) {
	return dst, false, nil
}

// syncBuffer is a stderr that the session's goroutines may write.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// testSession is a session writing to a file of its own, with a virtual
// clock; env adds to or overrides the settings.
func testSession(t *testing.T, env map[string]string, opts ...Option) (*Session, string, *syncBuffer) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.zst")
	vars := map[string]string{"ZESTALL_OUTPUT": path, "ZESTALL_QUIET": "1", "ZESTALL_TOGGLE_SIGNAL": "none"}
	for k, v := range env {
		vars[k] = v
	}
	var clock uint64
	var mu sync.Mutex
	stderr := &syncBuffer{}
	s := NewSession(func(k string) string { return vars[k] }, stderr, append([]Option{WithClock(func() uint64 {
		mu.Lock()
		defer mu.Unlock()
		clock += 10
		return clock
	})}, opts...)...)
	return s, path, stderr
}

// outputTo makes the session write to f instead of creating its file.
func outputTo(f *os.File) Option {
	return WithOutput(func(string) (*os.File, error) { return f, nil })
}

// readBack reads every record of a closed output file.
func readBack(t *testing.T, path string) []*pb.Record {
	t.Helper()
	recs, err := pbstream.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return recs
}

var testDevices = []Device{
	{Handle: 0x10, Parent: -1, SubIndex: -1, Name: "root", PCIDeviceID: 0x0BD5, TimerHz: 38_400_000, KernelTimestampBits: 32},
	{Handle: 0x11, Parent: 0, SubIndex: 0, Name: "tile 0", PCIDeviceID: 0x0BD5},
}

// TestWriter: what the application creates reaches the file, in order,
// with the header first and the final counters last; a module's binaries
// are stored once per content.
func TestWriter(t *testing.T) {
	native, err := os.ReadFile("../format/zebin/testdata/t_XE_HPC_COREpvc.bin")
	if err != nil {
		t.Fatal(err)
	}
	sizes, _ := kernelSizes(native)
	var kernel string
	for k := range sizes {
		kernel = k
	}
	s, path, stderr := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0"})
	s.Devices(testDevices)
	s.Status(StateActive, ze.Success)
	s.ModuleCreated(&Module{Handle: 1, Device: 0x10, Native: native, Debug: []byte("dbg")})
	s.ModuleCreated(&Module{Handle: 2, Device: 0x11, Native: native, Debug: []byte("dbg")})
	s.ModuleCreated(&Module{Handle: 3, Device: 0x10, NativeErr: ze.ErrorUnsupportedFeature,
		DebugErr: &ze.CallError{Call: "zetModuleGetDebugInfo", Result: ze.ErrorUninitialized}})
	s.KernelCreated(&Kernel{ID: 7, Handle: 100, Module: 1, Name: kernel, Base: 0x1000})             // size from the zebin
	s.KernelCreated(&Kernel{ID: 8, Handle: 101, Module: 2, Name: "_Z3fooi", ISA: make([]byte, 64)}) // size from its ISA
	s.KernelDestroyed(100)
	s.KernelDestroyed(999) // unknown: nothing
	s.ModuleDestroyed(1)
	s.ModuleDestroyed(42) // unknown: nothing
	s.Shutdown()
	s.Shutdown() // once

	recs := readBack(t, path)
	var kinds []string
	for _, r := range recs {
		kinds = append(kinds, strings.SplitN(r.String(), ":", 2)[0])
	}
	if len(recs) != 9 {
		t.Fatalf("%d records: %v", len(recs), kinds)
	}
	h := recs[0].GetHeader()
	if h == nil || h.FormatVersion != FormatVersion || len(h.Devices) != 2 || h.Devices[0].Platform != "PVC" ||
		h.Devices[1].ParentId != 1 || h.Devices[1].SubDeviceIndex == nil || len(h.Config) != 21 {
		t.Fatalf("header %v", h)
	}
	if s := h.Devices[0].StallSampling; s != nil {
		t.Errorf("stall sampling described without a stall source: %v", s)
	}
	m1, m2, m3 := recs[1].GetModule(), recs[2].GetModule(), recs[3].GetModule()
	if m1.Id != 1 || len(m1.NativeBinary) != len(native) || m1.DeviceId != 1 || m1.ContentModuleId != 0 {
		t.Errorf("module 1: id %d, %d bytes, device %d, content %d", m1.Id, len(m1.NativeBinary), m1.DeviceId, m1.ContentModuleId)
	}
	if m2.ContentModuleId != 1 || m2.NativeBinary != nil || m2.DeviceId != 2 {
		t.Errorf("module 2 (same content): content %d, %d bytes, device %d", m2.ContentModuleId, len(m2.NativeBinary), m2.DeviceId)
	}
	if want := "zeModuleGetNativeBinary: ZE_RESULT_ERROR_UNSUPPORTED_FEATURE (0x78000003); zetModuleGetDebugInfo: zetModuleGetDebugInfo: ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)"; m3.MissingDetail != want {
		t.Errorf("module 3 missing %q, want %q", m3.MissingDetail, want)
	}
	k1, k2 := recs[4].GetKernel(), recs[5].GetKernel()
	if k1.Id != 7 || k1.ModuleId != 1 || k1.IsaSize != sizes[kernel] || k1.BaseAddress != 0x1000 {
		t.Errorf("kernel 7: %v", k1)
	}
	if k2.Id != 8 || k2.IsaSize != 64 || k2.DemangledName != "foo(int)" {
		t.Errorf("kernel 8: %v", k2)
	}
	if d := recs[6].GetKernelDestroyed(); d.GetId() != 7 || d.ValidUntilHostNs <= k1.ValidFromHostNs {
		t.Errorf("kernel destroyed: %v", d)
	}
	if d := recs[7].GetModuleDestroyed(); d.GetId() != 1 {
		t.Errorf("module destroyed: %v", d)
	}
	if c := recs[8].GetCounters(); c == nil || !c.Final || len(c.Lost) != 0 {
		t.Errorf("trailer %v", recs[8])
	}
	if out := stderr.String(); out != "" {
		t.Errorf("stderr %q", out)
	}
}

// TestWriterFlushes: the header reaches the file as soon as the writer
// has it, and later records within the flush interval, so a killed run
// leaves a readable file.
func TestWriterFlushes(t *testing.T) {
	s, path, _ := testSession(t, map[string]string{"ZESTALL_FLUSH_INTERVAL": "5ms", "ZESTALL_SAMPLING": "0"})
	s.Devices(testDevices)
	s.Status(StateActive, ze.Success)
	defer s.Shutdown()
	readSoFar := func() []*pb.Record {
		recs, _ := pbstream.ReadFile(path) // what was flushed, then the open end
		return recs
	}
	// waitFor polls the file until a record satisfies ok (bounded).
	waitFor := func(what string, ok func(*pb.Record) bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			for _, r := range readSoFar() {
				if ok(r) {
					return
				}
			}
			time.Sleep(time.Millisecond)
		}
		t.Fatalf("%s did not reach the file within 5 s (flush interval 5 ms)", what)
	}
	waitFor("the header", func(r *pb.Record) bool { return r.GetHeader() != nil })
	s.ModuleCreated(&Module{Handle: 1, Device: 0x10, Native: []byte("x")})
	waitFor("the module", func(r *pb.Record) bool { return r.GetModule() != nil })
}

// TestStatus: each problem of the layer is said once on stderr, naming the
// Level-Zero result; nothing is written.
func TestStatus(t *testing.T) {
	s, path, stderr := testSession(t, nil)
	s.Status(StateInitFailed, ze.ErrorUninitialized)
	s.Status(StateInitFailed, ze.ErrorUninitialized)
	s.Status(StateNoTracing, ze.Success)
	s.Status(StateError, ze.ErrorUnsupportedFeature)
	s.ModuleCreated(&Module{Handle: 1}) // nothing to write to
	s.Shutdown()
	out := stderr.String()
	for _, want := range []string{
		"zeInit failed with ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)",
		"set ZE_ENABLE_TRACING_LAYER=1",
		"could not be set up (ZE_RESULT_ERROR_UNSUPPORTED_FEATURE (0x78000003))",
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("stderr lacks %q once:\n%s", want, out)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an output file exists: %v", err)
	}
}

// TestOutputNotCreated: an output file that cannot be created is said on
// stderr, with the setting to change; the session then does nothing.
func TestOutputNotCreated(t *testing.T) {
	// A directory cannot be made where a file is.
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s, path, stderr := testSession(t, map[string]string{"ZESTALL_OUTPUT": filepath.Join(blocker, "out.zst")})
	s.Devices(testDevices)
	s.Status(StateActive, ze.Success)
	s.ModuleCreated(&Module{Handle: 1, Native: []byte("x")})
	s.KernelCreated(&Kernel{Handle: 2, Module: 1, Name: "k"})
	s.Shutdown()
	if out := stderr.String(); !strings.Contains(out, "cannot create the output") || !strings.Contains(out, "set ZESTALL_OUTPUT") {
		t.Errorf("stderr %q", out)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stat %s: %v", path, err)
	}
}

// quietStalls is a stall source whose streamers open and never hold data.
type quietStalls struct{}

// oneSample is a stall source whose streamer holds one sample, read once:
// IP field 0x40 (byte address 0x200), Active 1; its calculation is what
// the driver gives for it (so the raw decoder agrees).
type oneSample struct {
	quietStalls
	read atomic.Bool
}

func (o *oneSample) Read(_ *sampling.Stream, buf []byte) (int, bool, error) {
	if o.read.Swap(true) {
		return 0, false, nil
	}
	rec := make([]byte, 64)
	binary.LittleEndian.PutUint64(rec, 0x40|1<<29) // PVC: IP bits 0..28, Active from bit 29
	return copy(buf, rec), false, nil
}

func (o *oneSample) Calculate(*sampling.Stream, []byte) ([][]uint64, bool, error) {
	return [][]uint64{{0x40, 1, 0}}, false, nil
}

func (quietStalls) Open(device uint64, periodNs uint32) *sampling.Stream {
	st := &sampling.Stream{Device: device, PeriodNs: periodNs, SubDevices: 1}
	for _, n := range []string{"IP", "Active", "ControlStall"} {
		st.Metrics = append(st.Metrics, sampling.Metric{Name: n})
	}
	return st
}
func (quietStalls) Read(*sampling.Stream, []byte) (int, bool, error) { return 0, false, nil }
func (quietStalls) Notified(*sampling.Stream) bool                   { return false }
func (quietStalls) Calculate(*sampling.Stream, []byte) ([][]uint64, bool, error) {
	return nil, false, nil
}
func (quietStalls) Close(*sampling.Stream) {}
func (quietStalls) OtherProcesses(*sampling.Stream) ([]uint32, error) {
	return nil, nil
}

// TestWriterWithSampling: with a stall source, the header describes each
// root device's sampling, the reader runs with launch timing, and the
// session's events reach it.
func TestWriterWithSampling(t *testing.T) {
	s, path, stderr := testSession(t, map[string]string{"ZESTALL_STALL_LATENCY": "1ms"})
	s.Devices(testDevices)
	s.Stalls(quietStalls{})
	s.Timestamps(idleTimestamps{})
	s.Controls(&windowtest.Source{Installed: 1})
	s.Status(StateActive, ze.Success)
	s.ModuleCreated(&Module{Handle: 1, Device: 0x10})
	s.KernelCreated(&Kernel{ID: 1, Handle: 2, Module: 1, Name: "k", Base: 0x1000, ISA: make([]byte, 64)})
	s.SyncPoint()
	s.SerializedRead()
	s.ControlRequest(window.OpStop)
	s.ControlRequest(window.OpStart)
	s.ContextDestroying(9)
	s.KernelDestroyed(2)
	s.ModuleDestroyed(1)
	s.Shutdown()
	recs := readBack(t, path)
	h := recs[0].GetHeader()
	if ss := h.Devices[0].StallSampling; ss == nil || !ss.Enabled || len(ss.Metrics) != 3 {
		t.Errorf("root device sampling %v", ss)
	}
	if ss := h.Devices[1].StallSampling; ss != nil {
		t.Errorf("sub-device sampling %v", ss)
	}
	c := recs[len(recs)-1].GetCounters()
	if c == nil || !c.Final || len(c.Lost) != 0 {
		t.Errorf("trailer %v", recs[len(recs)-1])
	}
	if out := stderr.String(); out != "" {
		t.Errorf("stderr %q", out)
	}
}

// TestKernelWithoutID: kernel ids come from the launch path only; a kernel
// without one is counted, not given an id that could be another's.
func TestKernelWithoutID(t *testing.T) {
	s, path, _ := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0"})
	s.Status(StateActive, ze.Success)
	s.KernelCreated(&Kernel{ID: 1, Handle: 10, Name: "a"})
	s.KernelCreated(&Kernel{Handle: 11, Name: "b"})
	s.KernelDestroyed(11)
	s.Shutdown()
	recs := readBack(t, path)
	var ids []uint64
	for _, r := range recs {
		if k := r.GetKernel(); k != nil {
			ids = append(ids, k.Id)
		}
		if r.GetKernelDestroyed() != nil {
			t.Errorf("a kernel without an id was destroyed: %v", r)
		}
	}
	c := recs[len(recs)-1].GetCounters()
	if len(ids) != 1 || ids[0] != 1 || len(c.GetLost()) != 1 || c.Lost[0].What != LossKernelNoID || c.Lost[0].Count != 1 {
		t.Errorf("kernels %v, losses %v", ids, c.GetLost())
	}
}

// TestRanks: the job identity in the header, the job-level output
// directory made on demand, a rank outside ZESTALL_RANKS writing nothing,
// and a rank outside ZESTALL_SAMPLE_RANKS timing without sampling.
func TestRanks(t *testing.T) {
	ompi := map[string]string{"OMPI_COMM_WORLD_RANK": "13", "OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_SIZE": "24",
		"PBS_JOBID": "42.aurora", "ZE_AFFINITY_MASK": "0.1", "ZESTALL_QUIET": "0"}
	tests := []struct {
		name    string
		env     map[string]string
		written bool
		notice  string
	}{
		{"selected", map[string]string{"ZESTALL_RANKS": "0,12-23"}, true, "profiling to"},
		{"not selected", map[string]string{"ZESTALL_RANKS": "0-12"}, false, "rank 13 (OMPI_COMM_WORLD_RANK) is not in ZESTALL_RANKS=0-12: not collecting"},
		{"timing only", map[string]string{"ZESTALL_SAMPLE_RANKS": "0"}, true, "rank 13 is not in ZESTALL_SAMPLE_RANKS=0: kernel timing only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{"ZESTALL_OUTPUT": filepath.Join(dir, "zestall.%j", "%h.%r.%l.zst")}
			maps.Copy(env, ompi)
			maps.Copy(env, tt.env)
			s, _, stderr := testSession(t, env)
			s.Devices(testDevices)
			s.Status(StateActive, ze.Success)
			s.Shutdown()
			if !strings.Contains(stderr.String(), tt.notice) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.notice)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "zestall.42.aurora", "*.13.1.zst"))
			if !tt.written {
				if all, _ := filepath.Glob(filepath.Join(dir, "*")); len(all) != 0 {
					t.Errorf("a rank outside ZESTALL_RANKS wrote %v", all)
				}
				return
			}
			if len(files) != 1 {
				t.Fatalf("output files %v", files)
			}
			h := readBack(t, files[0])[0].GetHeader()
			if h.GetMpiRank() != 13 || h.GetLocalRank() != 1 || h.GetJobSize() != 24 || h.RankVariable != "OMPI_COMM_WORLD_RANK" ||
				h.JobId != "42.aurora" || h.ZeAffinityMask != "0.1" {
				t.Errorf("header identity: %v", h)
			}
		})
	}
}

// TestWriterStallRecords: a sample read by the stall reader reaches the
// file through the writer (the reader's records may wait for the queue),
// and the trailer counts it.
func TestWriterStallRecords(t *testing.T) {
	s, path, stderr := testSession(t, map[string]string{"ZESTALL_STALL_LATENCY": "0s"})
	s.Devices(testDevices)
	s.Stalls(&oneSample{})
	s.Status(StateActive, ze.Success)
	s.ModuleCreated(&Module{Handle: 1, Device: 0x10})
	s.ModuleDestroyed(1) // has the reader read first
	s.Shutdown()
	recs := readBack(t, path)
	n := 0
	for _, r := range recs {
		if r.GetStallRows() != nil || r.GetUnattributed() != nil {
			n++
		}
	}
	c := recs[len(recs)-1].GetCounters()
	for _, l := range c.Lost {
		if l.What == sampling.LossRawDisagreed {
			t.Errorf("loss %v", l)
		}
	}
	if n == 0 || c.StallRecordsRead != 1 || c.StallRowsAttributed+c.StallRowsUnattributed != 1 {
		t.Errorf("%d stall records; counters %v; stderr %q", n, c, stderr)
	}
}

// TestWriterFailure: an output that fails (a pipe nobody reads) is said
// once on stderr; the session goes on without blocking the application
// and exits in time.
func TestWriterFailure(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // writes fail with EPIPE
	s, _, stderr := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0", "ZESTALL_FLUSH_INTERVAL": "1ms"}, outputTo(w))
	s.Status(StateActive, ze.Success)
	for i := range 100 {
		s.ModuleCreated(&Module{Handle: uintptr(i + 1), Native: []byte{byte(i)}})
	}
	done := make(chan struct{})
	go func() { s.Shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Shutdown hangs after the output failed")
	}
	if out := stderr.String(); strings.Count(out, "failed:") != 1 || !strings.Contains(out, "output stops here") {
		t.Errorf("stderr %q", out)
	}
}

// TestWriterQueueFull: while the output is slower than the application,
// records that do not fit the queue are counted, never waited for, and the
// trailer says how many: every record is written or counted.
func TestWriterQueueFull(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// The pipe is full before the session starts, so the writer blocks at
	// its first flush (the header's) and the queue fills, however the
	// scheduler interleaves the writer with this loop.
	size, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, size)); err != nil {
		t.Fatal(err)
	}
	s, _, _ := testSession(t, map[string]string{"ZESTALL_SAMPLING": "0", "ZESTALL_FLUSH_INTERVAL": "1ms"}, outputTo(w))
	s.Status(StateActive, ze.Success)
	const modules = 6000
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range modules {
		bin := make([]byte, 2048)
		for k := range bin {
			bin[k] = byte(rnd.Uint32())
		}
		s.ModuleCreated(&Module{Handle: uintptr(i + 1), Native: bin})
	}
	data := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r) // until the writer closes the file
		data <- b
	}()
	s.Shutdown()
	recs, err := pbstream.ReadAll(bytes.NewReader((<-data)[size:]))
	if err != nil {
		t.Fatal(err)
	}
	written := 0
	for _, rec := range recs {
		if rec.GetModule() != nil {
			written++
		}
	}
	c := recs[len(recs)-1].GetCounters()
	var lost uint64
	for _, l := range c.GetLost() {
		if l.What == LossQueueFull {
			lost = l.Count
		}
	}
	if lost == 0 || uint64(written)+lost != modules {
		t.Errorf("%d modules written, %d counted lost; want some lost and %d in all", written, lost, modules)
	}
}

// TestPollWait: the harvester keeps going on a backlog, polls every
// millisecond while launches wait for the device and stalls are sampled,
// and otherwise sleeps long enough to find about pollTarget slots, within
// [pollMin, pollMax].
func TestPollWait(t *testing.T) {
	for _, tc := range []struct {
		drained, pending int
		sampling         bool
		since, want      time.Duration
	}{
		{timing.DrainBatch, 0, true, time.Millisecond, 0},
		{5000, 7, true, time.Millisecond, 0},
		{5000, 7, false, time.Millisecond, 0},
		{10, 3, true, time.Millisecond, pollMin},
		{0, 1, true, 10 * time.Millisecond, pollMin},
		{0, 1, false, 10 * time.Millisecond, pollIdle},  // timing only: pending launches wait for the next pass
		{800, 40, false, 8 * time.Millisecond, pollMax}, // 10^5/s, timing only
		{0, 0, true, 10 * time.Millisecond, pollIdle},
		{100, 0, true, time.Millisecond, pollMax},                        // 10^5/s: 20 ms would find 2048, capped
		{2000, 0, false, 5 * time.Millisecond, 5120 * time.Microsecond},  // 4·10^5/s: not a backlog
		{4000, 0, false, 10 * time.Millisecond, 5120 * time.Microsecond}, // the same, polled late
		{1000, 0, true, 100 * time.Microsecond, pollMin},                 // 10^7/s: at least pollMin
		{1, 0, false, time.Second, pollMax},                              // a trickle
		{1023, 0, false, 2 * time.Millisecond, 4003910},                  // 2 ms × 2048/1023, in ns
	} {
		if got := pollWait(tc.drained, tc.pending, tc.since, tc.sampling); got != tc.want {
			t.Errorf("pollWait(%d, %d, %v, %v) = %v, want %v", tc.drained, tc.pending, tc.since, tc.sampling, got, tc.want)
		}
	}
}

// TestPollPacer: a pass that finds the rings empty in a burst does not
// make the harvester sleep as if idle; the burst's rate is forgotten
// (halved every rateHalfLife) once the application stops, and steady
// rates keep pollWait's intervals.
func TestPollPacer(t *testing.T) {
	type pass struct {
		drained int
		since   time.Duration
		want    time.Duration
	}
	for _, tc := range []struct {
		name   string
		passes []pass
	}{
		{"lull in a burst", []pass{
			{timing.DrainBatch, time.Millisecond, 0},
			{1400, time.Millisecond, pollMin}, // 1.4·10^6/s
			{0, time.Millisecond, pollMin},    // a lull: not idle
			{0, 2 * time.Millisecond, pollMin},
		}},
		{"stopped", []pass{
			{1400, time.Millisecond, 1463 * time.Microsecond},   // 2048 slots at 1.4·10^6/s
			{0, 40 * time.Millisecond, 5851 * time.Microsecond}, // two half-lives: 3.5·10^5/s
			{0, 100 * time.Millisecond, pollIdle},
		}},
		{"steady 10^5/s", []pass{
			{1600, 16 * time.Millisecond, pollMax},
			{1600, 16 * time.Millisecond, pollMax},
			{0, 16 * time.Millisecond, pollIdle},
		}},
		{"steady 4·10^5/s", []pass{
			{2000, 5 * time.Millisecond, 5120 * time.Microsecond},
			{2000, 5 * time.Millisecond, 5120 * time.Microsecond},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p pollPacer
			for i, ps := range tc.passes {
				got := p.wait(ps.drained, 0, ps.since, false)
				if d := got - ps.want; d < -50*time.Microsecond || d > 50*time.Microsecond {
					t.Errorf("pass %d: wait(%d, %v) = %v, want %v", i, ps.drained, ps.since, got, ps.want)
				}
			}
		})
	}
}

// enableRecorder is a launch path that records its Enable calls.
type enableRecorder struct {
	idleTimestamps
	mu      sync.Mutex
	enabled []bool
}

func (e *enableRecorder) Enable(on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.enabled = append(e.enabled, on)
}

func (e *enableRecorder) last() (bool, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.enabled) == 0 {
		return false, 0
	}
	return e.enabled[len(e.enabled)-1], len(e.enabled)
}

// TestStartDoesNotWaitForTheFile: the session starts inside the
// application's zeInit, which must not wait for a file system. Status
// returns while the output file's creation is still blocked; the records
// queued meanwhile (module, kernel) and the trailer are all in the file.
func TestStartDoesNotWaitForTheFile(t *testing.T) {
	release := make(chan struct{})
	create := WithOutput(func(p string) (*os.File, error) {
		<-release
		return stream.CreateExclusive(p)
	})
	s, path, _ := testSession(t, nil, create)
	s.Devices(testDevices)
	s.Timestamps(idleTimestamps{})
	started := make(chan struct{})
	go func() {
		s.Status(StateActive, ze.Success)
		s.ModuleCreated(&Module{Handle: 1, Device: 0x10, Native: []byte("x")})
		s.KernelCreated(&Kernel{ID: 1, Handle: 2, Module: 1, Name: "k"})
		close(started)
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("Status waited for the output file's creation")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the file exists before its creation was released: %v", err)
	}
	close(release)
	s.Shutdown()
	var modules, kernels, final int
	for _, r := range readBack(t, path) {
		switch {
		case r.GetModule() != nil:
			modules++
		case r.GetKernel() != nil:
			kernels++
		case r.GetCounters().GetFinal():
			final++
		}
	}
	if modules != 1 || kernels != 1 || final != 1 {
		t.Errorf("file holds %d modules, %d kernels, %d final counters; want 1 each", modules, kernels, final)
	}
}

// TestOutputNotCreatedTurnsTimingOff: when the writer cannot make the file
// (after Status returned), the launch path is disabled again, whichever
// of the two comes second, and the exit line does not claim a file.
func TestOutputNotCreatedTurnsTimingOff(t *testing.T) {
	for _, early := range []bool{true, false} {
		t.Run(map[bool]string{true: "fails before the enable", false: "fails after the enable"}[early], func(t *testing.T) {
			release := make(chan struct{})
			if early {
				close(release)
			}
			create := WithOutput(func(string) (*os.File, error) {
				<-release
				return nil, os.ErrPermission
			})
			s, path, stderr := testSession(t, map[string]string{"ZESTALL_QUIET": ""}, create)
			src := &enableRecorder{}
			s.Devices(testDevices)
			s.Timestamps(src)
			s.Status(StateActive, ze.Success)
			if !early {
				close(release)
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				on, n := src.last()
				if n > 0 && !on {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the launch path was not disabled: Enable calls %v", src.enabled)
				}
				time.Sleep(time.Millisecond)
			}
			s.Shutdown()
			out := stderr.String()
			if !strings.Contains(out, "cannot create the output file") || strings.Contains(out, "wrote") {
				t.Errorf("stderr %q", out)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("stat %s: %v", path, err)
			}
		})
	}
}
