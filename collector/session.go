package collector

import (
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ianlancetaylor/demangle"

	"github.com/zestall/zestall/abi"
	"github.com/zestall/zestall/collector/attribution"
	"github.com/zestall/zestall/collector/config"
	"github.com/zestall/zestall/collector/sampling"
	"github.com/zestall/zestall/collector/timing"
	"github.com/zestall/zestall/collector/window"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
	"github.com/zestall/zestall/ze"
)

// LayerState is the activation state of the C layer (cgo/abi.h
// ZESTALL_STATE_*).
type LayerState int

const (
	StateIdle       LayerState = abi.StateIdle       // no zeInit seen yet
	StateActive     LayerState = abi.StateActive     // tracer enabled
	StateNoTracing  LayerState = abi.StateNoTracing  // zeInit succeeded, tracing layer not enabled
	StateInitFailed LayerState = abi.StateInitFailed // zeInit failed: no Level-Zero call is made
	StateShutdown   LayerState = abi.StateShutdown   // exit in progress or done
	StateError      LayerState = abi.StateError      // the tracer could not be created or enabled
)

// Module is a module the application created, its binaries copied into Go
// memory by package cgo.
type Module struct {
	Handle    uintptr
	Device    uintptr
	Native    []byte // zeModuleGetNativeBinary: the zebin
	Debug     []byte // zetModuleGetDebugInfo: the debug zebin
	NativeErr error
	DebugErr  error
	// Launch separation by copies: the copies package cgo made of the
	// module (CodeCopies), why none were made (CopyReason, "" when made
	// or the mode is off), their ISA bytes and creation time.
	CodeCopies   int
	CopyReason   string
	CopyISABytes uint64
	CopyNs       uint64
}

// Kernel is a kernel the application created.
type Kernel struct {
	ID      uint64 // assigned by the launch path (C), unique in the run
	Handle  uintptr
	Module  uintptr
	Name    string // raw (possibly mangled) name
	Base    uint64 // zexKernelGetBaseAddress: full GPU virtual address
	ISA     []byte // raw ISA incl. padding (zeIntelKernelGetBinaryExp), nil if unavailable
	BaseErr error
	ISAErr  error
	// Separated: the kernel's launches may run on copies of its module
	// (its code in a copy is registered by CopyKernelCreated when first
	// used).
	Separated bool
}

// Device is a Level-Zero device (root or sub-device) seen at activation.
type Device struct {
	Handle              uintptr
	Parent              int // index of the root device in the list, -1 for a root
	SubIndex            int // sub-device index, -1 for a root
	Name                string
	PCIDeviceID         uint32
	UUID                []byte
	XeCores             uint32
	TimerHz             uint64 // device timestamp frequency
	TimestampBits       uint32
	KernelTimestampBits uint32
}

// Loss reasons (Counters.lost[].what) of the session itself; the stall
// reader's are sampling.Loss*, launch timing's are in harvest.go.
const (
	LossQueueFull  = "record queue full"
	LossKernelNoID = "kernels created without an id (not recorded)"
)

// FormatVersion is the schema revision of proto/zestall.proto this writer
// follows (Header.format_version).
const FormatVersion = stream.SchemaRevision

// Version is the tool version written into every file.
const Version = "0.1.0-dev"

// Session is one profiling run inside the application process. Its event
// methods are called on application threads; they only update the registry
// under a mutex and queue records for the writer goroutine.
type Session struct {
	getenv func(string) string
	create func(path string) (*os.File, error) // the output file
	// noOutput: the writer could not make the output file (outputFailed).
	noOutput atomic.Bool
	cfg      config.Config
	stderr   io.Writer
	now      func() uint64 // host ns, CLOCK_MONOTONIC_RAW

	mu        sync.Mutex
	devices   []Device
	deviceIDs map[uintptr]uint32 // device handle -> id in the file
	started   bool
	reported  map[LayerState]bool
	out       chan *pb.Record      // from application threads (never blocks them)
	bulk      chan *pb.Record      // from zestall's goroutines (stall rows; may wait)
	launches  chan []stream.Launch // from the harvester, a batch at a time (may wait)
	// launchFree: batches the writer wrote, back to the harvester (see
	// emitLaunches); launchBatches of them go round.
	launchFree chan []stream.Launch
	// wake: something was queued for the writer (wakeWriter).
	wake chan struct{}
	wr   output // the writer's state (output.go)
	done chan struct{}
	// exiting: Shutdown began; records queued from then on do not wake
	// the writer goroutine (Shutdown wakes it once, for all of them).
	exiting   bool
	path      string
	nextMod   uint64
	modules   map[uintptr]uint64           // live module handle -> id
	contents  map[[sha256.Size]byte]uint64 // content hash -> first module id
	kernels   map[uintptr]uint64           // live kernel handle -> id
	modSecs   map[uint64]map[string]uint64 // module id -> kernel name -> .text section size
	lost      uint64
	noID      uint64 // kernels created without an id
	closeOnce sync.Once

	profile  *os.File
	said     map[string]bool // stderr notices given once
	stallSrc sampling.Source
	sampler  *sampling.Reader // every root device's stream, for the header
	stall    *sampling.Reader // nil unless some streamer is open
	src      timing.Source
	harvest  *timing.Harvester
	stopPoll chan struct{}
	pollDone chan struct{}
	pollReq  chan chan struct{} // harvest now and say when done
	// passSem is held by the harvester during each pass, and by Shutdown
	// from the harvester's stop on: the exit waits for a pass in
	// progress, not for the harvester's goroutine to wake up and end.
	passSem chan struct{}
	procs   procs // the Go runtime's P count (procs.go), applied by pollLoop
	// handOff: the harvester has a backlog: its launch records go to the
	// writer goroutine (emitLaunches).
	handOff atomic.Bool
	ctlSrc  window.Source
	// Launch separation by copies (separate.go).
	copySrc    CopySource
	codeCopies atomic.Int32            // copies per eligible module, 0: off
	kernCopies map[uint64]kernelCopies // separated kernels by id
	ctl        *window.Control
	sycl       sycl              // SYCL tasks and locations from XPTI (sycl.go)
	syclq      chan []*pb.Record // SYCL records, a drain's batch at a time (may wait)
}

// Stalls attaches the EU stall sampling source (before Status(StateActive)).
func (s *Session) Stalls(src sampling.Source) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stallSrc = src
}

// SyncPoint: the application just waited for the device; the stall
// reader reads now and once more ZESTALL_STALL_LATENCY later (it never
// blocks the application thread).
func (s *Session) SyncPoint() {
	if st := s.stall; st != nil {
		st.Completed(s.now())
	}
}

// SerializedRead runs on the application thread in ZESTALL_SERIALIZE mode
// after each launch completed: the streamers are read before the next
// launch of the device may start.
func (s *Session) SerializedRead() {
	s.mu.Lock()
	st := s.stall
	s.mu.Unlock()
	if st != nil {
		st.SerializedRead()
	}
}

// Timestamps attaches the launch path's source (before Status(StateActive)).
func (s *Session) Timestamps(src timing.Source) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.src = src
}

// ContextDestroying is called (on the application thread, in the
// zeContextDestroy prologue) before a context goes away: its launches are
// harvested and zestall's events in it destroyed.
func (s *Session) ContextDestroying(ctx uint64) {
	s.mu.Lock()
	h := s.harvest
	s.mu.Unlock()
	if h != nil {
		h.ContextDestroying(ctx)
	}
}

// emitBlocking queues a record from zestall's own goroutines; it may wait
// for the writer (never on an application thread). After the exit path
// closed the queue (a goroutine that missed its stop deadline), the record
// is counted as lost instead.
func (s *Session) emitBlocking(r *pb.Record) {
	sendOrLose(s, func() chan *pb.Record { return s.bulk }, r, 1)
}

// sendOrLose sends v on the queue that queue names (read under s.mu),
// waiting for the writer; n records are counted as lost when the exit
// path closed the queue meanwhile, and nothing is sent after it did.
// It says whether v was sent.
func sendOrLose[T any](s *Session, queue func() chan T, v T, n uint64) (sent bool) {
	s.mu.Lock()
	out := queue()
	if s.out == nil {
		out = nil // closed at exit
	}
	s.mu.Unlock()
	if out == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			s.mu.Lock()
			s.lost += n
			s.mu.Unlock()
			sent = false
		}
	}()
	select {
	case out <- v:
	default:
		// Full: the writer empties the queue once woken.
		s.wakeWriter()
		out <- v
	}
	s.wakeWriter()
	return true
}

// launchBatches is how many batches of timing.LaunchBatch records go round
// between the harvester and the writer (120 KiB each): they bound the
// finished records in memory. A harvester with no free batch waits for
// the writer, as it waited for the queue before.
const launchBatches = 4

// emitLaunches writes a batch of the harvester's Launch records, on the
// harvester's goroutine (writeDirect), or, while the harvester has a
// backlog (handOff) or the writer is not ready, queues it and returns a
// written one to fill next; it may wait for the writer (the harvester's
// goroutine, never an application thread). After the exit path closed the
// queue the records count as lost.
//
// At a rate the harvester keeps up with, writing its own records spares
// the writer goroutine a wake-up per pass; at full rate the hand-off pays:
// the writer encodes one batch on a second P while the harvester reads
// the next (1 thread unpaced, 10^6 launches: the application waited for
// its rings 108-116 ms when the writer encoded, 173-223 ms when the
// harvester did).
func (s *Session) emitLaunches(ls []stream.Launch) []stream.Launch {
	s.syclLocations() // before the launches that name them
	if !s.handOff.Load() && s.writeDirect(ls) {
		return ls[:0]
	}
	if !sendOrLose(s, func() chan []stream.Launch { return s.launches }, ls, uint64(len(ls))) {
		return ls[:0]
	}
	select {
	case b := <-s.launchFree:
		return b
	case <-s.done:
		return nil // the writer is gone (exit): the harvester makes a new batch
	}
}

// stopHarvester stops the harvester at exit: it waits for a pass in
// progress (at most 5 s; false if it did not end) and keeps the next from
// starting. The harvester's goroutine ends when it next wakes, which the
// exit does not wait for: an idle harvester is not woken.
func (s *Session) stopHarvester() bool {
	defer close(s.stopPoll)
	select {
	case s.passSem <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(5 * time.Second)
	defer t.Stop()
	select {
	case s.passSem <- struct{}{}:
		return true
	case <-t.C:
		return false
	}
}

// waitDone waits for done to close, at most d.
func waitDone(done <-chan struct{}, d time.Duration) bool {
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// guard keeps a panic in one of zestall's goroutines from killing the
// application: it is reported once and the goroutine ends.
func (s *Session) guard(where string) {
	if r := recover(); r != nil {
		fmt.Fprintf(s.stderr, "zestall: internal error in %s: %v (this part of zestall stops; the application continues)\n", where, r)
	}
}

// newClock describes a device for timestamp conversion.
func (s *Session) newClock(dev uint64) *timing.Clock {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, d := range s.devices {
		if uint64(d.Handle) == dev {
			return timing.NewClock(uint32(i+1), d.TimerHz, d.KernelTimestampBits)
		}
	}
	return nil
}

// pollLoop harvests launch timestamps until stopped.
func (s *Session) pollLoop(h *timing.Harvester, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	defer s.guard("the launch harvester")
	t := time.NewTimer(time.Millisecond)
	defer t.Stop()
	var acks []chan struct{}
	last := time.Now()
	s.mu.Lock()
	sampling := s.stall != nil
	s.mu.Unlock()
	var ctl *window.Control // set after this loop started (startControl)
	var pace pollPacer
	// A launch whose ring fills while this loop sleeps wakes it
	// (ringSource): a burst right after an idle poll would otherwise
	// fill its ring before the sleep ends, and wait.
	s.mu.Lock()
	rs, _ := s.src.(ringSource)
	s.mu.Unlock()
	var fills <-chan struct{}
	if rs != nil {
		fills = rs.RingFills()
	}
	for {
		select {
		case s.passSem <- struct{}{}: // a pass (Shutdown holds it from the stop on)
		case <-stop:
			return
		}
		drained, pending := h.Poll()
		drained += s.syclRecords()
		if ctl == nil {
			s.mu.Lock()
			ctl = s.ctl
			s.mu.Unlock()
		}
		ctl.CheckSignals() // the toggle signal's goroutine has no timer of its own
		for _, a := range acks {
			close(a)
		}
		acks = acks[:0]
		now := time.Now()
		wait := pace.wait(drained, pending, now.Sub(last), sampling)
		last = now
		s.procs.pass(wait == 0, sampling, drained > 0, now)
		s.handOff.Store(wait == 0)
		<-s.passSem
		if wait == 0 {
			select {
			case <-stop:
				return
			default:
			}
			// A backlog keeps this loop from blocking: let the
			// goroutines waiting for a P run first, among them the
			// application threads' calls into Go (a kernel's or
			// module's create), which would otherwise wait for the
			// scheduler's 10 ms time slice.
			runtime.Gosched()
			continue
		}
		t.Reset(wait)
		if fills != nil {
			select {
			case <-fills: // from before this pass, which drained that ring
			default:
			}
			rs.ArmRingFill()
		}
		select {
		case <-stop:
			return
		case a := <-s.pollReq:
			acks = append(acks, a)
		case <-t.C:
		case <-fills:
		}
		// Woken by the timer, this goroutine runs in the time slice of
		// the P's last one (the runtime's runnext), which sysmon, asleep
		// while the P was idle, may judge 10 ms old at its first look and
		// preempt with a signal: about one SIGURG per pass. A yield
		// starts a slice of its own.
		runtime.Gosched()
	}
}

// Harvester poll intervals (pollWait).
//
// Every pass costs the process wake-ups beyond its own: the timer's, and
// the Go runtime's sysmon thread, asleep while no goroutine runs, is woken
// by the pass's first cgo call and then ticks every 20 µs while the pass
// runs (about 5 wake-ups a pass; at 125 passes a second, 650 of the
// process's 1700 added context switches at 10^5 launches/s on 2 vCPUs,
// issue 14). Fewer, larger passes cost less per launch.
const (
	pollIdle = 16 * time.Millisecond // nothing drained
	pollMin  = time.Millisecond      // launches pending on the device while sampling, or a high rate
	pollMax  = 16 * time.Millisecond // a steady low rate
	// pollTarget is how many slots a poll should find at the rate seen:
	// half a drain batch (a pass that fills its batch is a backlog), an
	// eighth of the most slots one thread's ring reaches within the
	// rings' growth budget (16384; cgo/launch_rings.c, "Ring capacity"),
	// so a thread may speed up eightfold between two polls before its
	// ring fills (then it waits: ZESTALL_RING_FULL). pollMax and pollIdle
	// bound the sleep; a thread that starts a burst at 1.4·10^6
	// launches/s, the profiled launch rate of one thread here, right
	// after an idle poll fills its ring in about 11.7 ms, before a poll
	// 16 ms later: its launches wake the harvester instead, once the ring
	// is half full (cgo/launch_rings.c, "Waking the harvester").
	pollTarget = timing.DrainBatch / 2
)

// pollWait is how long the harvester sleeps after a poll that drained
// slots (launches and other events), with pending launches still waiting
// for their times, since the previous poll: at once on a backlog (the
// pass filled its drain batch: the rings hold more, or the batch is not
// processed yet; a steady rate's pass finds about pollTarget); pollMin
// while launches wait for the device and stall sampling is on (their
// completion wakes the stall reader, whose windows should close between
// launches: see collector/attribution); otherwise long enough to find
// about pollTarget slots at the rate seen. Without sampling a pending
// launch only needs its times read some time: the next pass reads them.
func pollWait(drained, pending int, since time.Duration, sampling bool) time.Duration {
	switch {
	case drained >= timing.DrainBatch:
		return 0 // a backlog: keep going
	case pending > 0 && sampling:
		return pollMin
	case drained == 0:
		return pollIdle
	}
	w := time.Duration(float64(since) * pollTarget / float64(drained))
	return min(max(w, pollMin), pollMax)
}

// rateHalfLife is how fast pollPacer forgets a rate: a lull of a few
// passes in a burst keeps the burst's poll interval, a stopped
// application is seen as idle after about 100 ms.
const rateHalfLife = 20 * time.Millisecond

// pollPacer is pollWait with a memory of the recent rate. pollWait sees
// one pass: in a burst at 1.4·10^6 launches/s a pass that found the rings
// empty (the launching thread descheduled for a millisecond, or the
// previous passes emptied them) made the harvester sleep pollIdle, 16 ms,
// two thirds of a 32768-slot ring at that rate (the rings' size before
// their growth budget); the next pass then
// came late whenever the machine delayed it a few ms more, and the
// application waited (18 of the 21 sleeps of 10 ms or more in an unpaced
// run of 10^6 launches were such lulls, each followed by a full batch:
// BENCHMARKS.md, "Issue 14, session 9"). The pacer keeps the highest rate
// seen, halved every rateHalfLife, and sleeps no longer than it takes
// that rate to bring pollTarget slots.
type pollPacer struct {
	peak float64 // slots per second, decaying
}

// wait is pollWait's interval, shortened to what the recent rate allows.
func (p *pollPacer) wait(drained, pending int, since time.Duration, sampling bool) time.Duration {
	w := pollWait(drained, pending, since, sampling)
	if since <= 0 {
		return w
	}
	p.peak *= math.Exp2(-float64(since) / float64(rateHalfLife))
	p.peak = max(p.peak, float64(drained)/since.Seconds())
	if w == 0 || p.peak < 1 {
		return w
	}
	return min(w, max(pollMin, time.Duration(pollTarget/p.peak*float64(time.Second))))
}

// Devices records the devices seen at activation (before Status(StateActive)).
func (s *Session) Devices(devs []Device) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.devices = devs
	for i, d := range devs {
		s.deviceIDs[d.Handle] = uint32(i + 1)
	}
}

// affinityEntries maps root devices (by index in s.devices) to the
// ZE_AFFINITY_MASK entry that selected each (config.AffinityEntries).
func (s *Session) affinityEntries() map[int]string {
	var roots []int
	for i, d := range s.devices {
		if d.Parent < 0 {
			roots = append(roots, i)
		}
	}
	// Intel's driver reads the mask as card indices only in COMPOSITE
	// mode; FLAT and COMBINED index tiles (docs/mpi.md §5).
	composite := s.getenv("ZE_FLAT_DEVICE_HIERARCHY") == "COMPOSITE"
	entries := config.AffinityEntries(s.getenv("ZE_AFFINITY_MASK"), composite, len(roots))
	out := map[int]string{}
	for k, e := range entries {
		out[roots[k]] = e
	}
	return out
}

// headerDevices describes the devices for the header.
func (s *Session) headerDevices() []*pb.Device {
	var out []*pb.Device
	entries := s.affinityEntries()
	for i, d := range s.devices {
		pd := &pb.Device{
			Id:                       uint32(i + 1),
			Name:                     d.Name,
			PciDeviceId:              d.PCIDeviceID,
			Platform:                 platformName(d.PCIDeviceID),
			XeCoreCount:              d.XeCores,
			TimerFrequencyHz:         d.TimerHz,
			TimestampValidBits:       d.TimestampBits,
			KernelTimestampValidBits: d.KernelTimestampBits,
			Uuid:                     d.UUID,
			AffinityEntry:            entries[i],
		}
		if d.Parent >= 0 {
			pd.ParentId = uint32(d.Parent + 1)
			idx := uint32(d.SubIndex)
			pd.SubDeviceIndex = &idx
		}
		out = append(out, pd)
	}
	return out
}

// Status is called when the layer's state changes. Each problem is
// reported once, naming the setting to change and its default.
func (s *Session) Status(st LayerState, result ze.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reported[st] {
		return
	}
	s.reported[st] = true
	switch st {
	case StateNoTracing:
		fmt.Fprintln(s.stderr, "zestall: profiling is off: the Level-Zero tracing layer is not enabled; set ZE_ENABLE_TRACING_LAYER=1 (default: unset). The application runs untouched.")
	case StateInitFailed:
		fmt.Fprintf(s.stderr, "zestall: profiling is off: zeInit failed with %s; zestall makes no Level-Zero call. Check the GPU driver installation and ZE_ENABLE_ALT_DRIVERS (default: unset).\n", result)
	case StateError:
		fmt.Fprintf(s.stderr, "zestall: profiling is off: the Level-Zero tracer could not be set up (%s). The application runs untouched.\n", result)
	case StateActive:
		s.startLocked()
	}
}

// startLocked starts the session: the writer goroutine (which makes the
// output file), the harvester and the stall reader.
func (s *Session) startLocked() {
	if s.started {
		return
	}
	s.started = true
	s.cfg = config.FromEnv(s.getenv, s.stderr)
	s.startProfile()
	host := config.Hostname()
	id := config.ReadIdentity(s.getenv)
	if !s.cfg.Ranks.Has(id.Rank) {
		// Outside the chosen ranks: no file, no timing, no sampling; the
		// launch path stays in its passing state (the source is never
		// enabled). Said only when notices are on: with thousands of
		// ranks, one line each would bury the application's output.
		if !s.cfg.Quiet {
			fmt.Fprintf(s.stderr, "zestall: rank %d (%s) is not in ZESTALL_RANKS=%s: not collecting\n", id.Rank, id.RankVar, s.cfg.Ranks)
		}
		return
	}
	if (!s.cfg.Ranks.All() || !s.cfg.SampleRanks.All()) && id.Rank < 0 {
		fmt.Fprintln(s.stderr, "zestall: ZESTALL_RANKS or ZESTALL_SAMPLE_RANKS is set but no launcher variable gives this process a rank (docs/mpi.md lists them): collecting as if selected")
	}
	if s.cfg.Sampling && !s.cfg.SampleRanks.Has(id.Rank) {
		s.cfg.Sampling = false
		if !s.cfg.Quiet {
			fmt.Fprintf(s.stderr, "zestall: rank %d is not in ZESTALL_SAMPLE_RANKS=%s: kernel timing only, no EU stall sampling\n", id.Rank, s.cfg.SampleRanks)
		}
	}
	s.path = config.ExpandOutput(s.cfg.Output, os.Getpid(), host, id)
	// The output file is made by the writer goroutine (openOutput), not
	// here: this runs inside the application's zeInit, which must not wait
	// for a file system (on a parallel file system, thousands of ranks
	// creating files at once can take seconds). Records queue meanwhile.
	// The writer starts before the header is built, so that the file is
	// made while this thread builds it and starts the harvester: a short
	// program's exit otherwise waits for the file's creation (the writer
	// rarely ran before it; docs/level-zero-loader.md §8.4 "Start-up cost
	// of `LD_PRELOAD`"). Nothing is queued before the header: s.mu is held
	// until it is, and the harvester and stall reader start after it.
	s.out = make(chan *pb.Record, 4096)
	s.bulk = make(chan *pb.Record, 4096)
	s.launches = make(chan []stream.Launch, launchBatches)
	s.launchFree = make(chan []stream.Launch, launchBatches)
	for range launchBatches - 1 { // the harvester has one: made as they are needed
		s.launchFree <- nil
	}
	s.syclq = make(chan []*pb.Record, 64)
	s.done = make(chan struct{})
	s.wake = make(chan struct{}, 1)
	s.wr.in, s.wr.bulk, s.wr.launches, s.wr.syclq = s.out, s.bulk, s.launches, s.syclq
	go s.writeLoop()
	hdr := &pb.Header{
		FormatVersion: FormatVersion,
		ToolVersion:   Version,
		Pid:           uint32(os.Getpid()),
		HostName:      host,
		Argv:          os.Args,
		StartHostNs:   s.now(),
		StartUnixNs:   time.Now().UnixNano(),
		Config:        s.cfg.Entries(),
	}
	if s.stallSrc != nil {
		s.openStalls(s.stallSrc)
	}
	hdr.Devices = s.headerDevices()
	s.stallHeader(hdr.Devices)
	hdr.OtherProcessesKnown = s.sampler != nil && s.sampler.OtherProcessesKnown()
	s.startCopies(hdr)
	if id.Rank >= 0 {
		r := uint32(id.Rank)
		hdr.MpiRank = &r
	}
	if id.LocalRank >= 0 {
		r := uint32(id.LocalRank)
		hdr.LocalRank = &r
	}
	if id.Size > 0 {
		n := uint32(id.Size)
		hdr.JobSize = &n
	}
	hdr.RankVariable, hdr.JobId, hdr.ZeAffinityMask = id.RankVar, id.JobID, s.getenv("ZE_AFFINITY_MASK")
	hdr.Sycl = syclHeader(s.sycl.source())
	s.out <- &pb.Record{Kind: &pb.Record_Header{Header: hdr}}
	s.wakeWriter()
	if s.src != nil {
		s.harvest = timing.New(s.src, s.emitLaunches, s.newClock)
		s.harvest.UseCopies(!s.cfg.HostReads)
		if st := s.stall; st != nil {
			s.harvest.OnLaunches(s.onLaunches(st.Launches))
		}
		s.stopPoll = make(chan struct{})
		s.pollDone = make(chan struct{})
		s.pollReq = make(chan chan struct{}, 16)
		s.passSem = make(chan struct{}, 1)
		go s.pollLoop(s.harvest, s.stopPoll, s.pollDone)
		s.src.Serialize(s.cfg.Serialize)
		s.src.WaitOnFullRing(!s.cfg.RingFullDrop)
		if rs, ok := s.src.(ringSource); ok {
			rs.SetRingSlots(s.cfg.RingSlots)
		}
		s.src.WakeOnSync(s.stall != nil)
		s.startControl()
		s.src.Enable(true)
		if s.noOutput.Load() {
			// The writer could not make the file before the source was
			// enabled; it disabled it already or does now (outputFailed).
			s.src.Enable(false)
		}
	}
	if st := s.stall; st != nil {
		s.runStalls(st)
	}
}

// emitLocked queues a record without blocking the application thread; a
// full queue is counted as a loss and reported in the trailer.
func (s *Session) emitLocked(r *pb.Record) {
	if s.out == nil {
		return
	}
	select {
	case s.out <- r:
		if !s.exiting {
			s.wakeWriter()
		}
	default:
		s.lost++
	}
}

// runningCounters are the totals so far, written with every flush so that
// a killed run's file has them up to its last flush. Never waits for the
// harvester or the stall reader (they may be waiting for the writer).
func (s *Session) runningCounters() *pb.Counters {
	s.mu.Lock()
	h, st, lost, noID := s.harvest, s.stall, s.lost, s.noID
	s.mu.Unlock()
	c := &pb.Counters{HostNs: s.now()}
	if cs := s.ctlSrc; cs != nil {
		c.LaunchesWhileStopped = cs.LaunchesWhileStopped()
	}
	if h != nil {
		h.Counters(c)
	}
	if st != nil {
		st.Counters(c)
	}
	s.syclCounters(c)
	s.copyCounters(c)
	if noID > 0 {
		c.Lost = append(c.Lost, &pb.Loss{What: LossKernelNoID, Count: noID})
	}
	if lost > 0 {
		c.Lost = append(c.Lost, &pb.Loss{What: LossQueueFull, Count: lost})
	}
	return c
}

// openOutput makes the output file (and its directory) and its writer, on
// the writer goroutine; nil, nil if it cannot, said on stderr.
func (s *Session) openOutput() (*os.File, *stream.Writer) {
	if dir := filepath.Dir(s.path); dir != "." {
		// A job-level directory (e.g. zestall.%j/) is made by whichever
		// rank comes first; the others find it there.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Fprintf(s.stderr, "zestall: cannot create the output directory %s: %v; set ZESTALL_OUTPUT (default: %s). Profiling output is off; the application runs untouched.\n", dir, err, config.DefaultOutput)
			return nil, nil
		}
	}
	f, err := s.create(s.path)
	if err != nil {
		fmt.Fprintf(s.stderr, "zestall: cannot create the output file %s: %v; set ZESTALL_OUTPUT (default: %s). Profiling output is off; the application runs untouched.\n", s.path, err, config.DefaultOutput)
		return nil, nil
	}
	w, err := stream.NewWriter(f, nil)
	if err != nil {
		f.Close()
		fmt.Fprintf(s.stderr, "zestall: cannot write %s: %v. Profiling output is off.\n", s.path, err)
		return nil, nil
	}
	if !s.cfg.Quiet {
		// Said once the file exists (not before a failure to make it).
		fmt.Fprintf(s.stderr, "zestall: profiling to %s\n", s.path)
	}
	return f, w
}

// outputFailed turns collection off when the output file cannot be made:
// the launch path goes back to passing launches untouched (startLocked
// checks noOutput after enabling the source, so whichever comes second
// disables it), and the exit line is not written.
func (s *Session) outputFailed() {
	s.noOutput.Store(true)
	if s.src != nil {
		s.src.Enable(false)
	}
}

// ModuleCreated registers a module and queues its record; the binaries
// are stored once per content hash.
func (s *Session) ModuleCreated(m *Module) {
	now := s.now()
	h := sha256.New()
	h.Write(m.Native)
	h.Write(m.Debug)
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))

	secs, _ := kernelSizes(m.Native)

	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextMod++
	id := s.nextMod
	s.modules[m.Handle] = id
	s.modSecs[id] = secs
	rec := &pb.Module{Id: id, DeviceId: s.deviceIDs[m.Device], ContentHash: sum[:], CreatedHostNs: now,
		CodeCopies: uint32(m.CodeCopies), CopyIneligibleReason: m.CopyReason, CopyIsaBytes: m.CopyISABytes, CopyCreateNs: m.CopyNs}
	if m.CodeCopies > 0 {
		rec.CopyIsaBytesEach = m.CopyISABytes / uint64(m.CodeCopies)
	}
	if first, ok := s.contents[sum]; ok {
		rec.ContentModuleId = first
	} else {
		s.contents[sum] = id
		rec.NativeBinary = m.Native
		rec.DebugInfo = m.Debug
		var missing []string
		if m.NativeErr != nil {
			missing = append(missing, "zeModuleGetNativeBinary: "+m.NativeErr.Error())
		}
		if m.DebugErr != nil {
			missing = append(missing, "zetModuleGetDebugInfo: "+m.DebugErr.Error())
		}
		rec.MissingDetail = strings.Join(missing, "; ")
	}
	s.emitLocked(&pb.Record{Kind: &pb.Record_Module{Module: rec}})
}

// ModuleDestroyed ends a module's life. With stall sampling on, it first
// has the streamers read (bounded wait): the module's instruction addresses
// may go to the next module, and a read window spanning both could not
// tell their samples apart.
func (s *Session) ModuleDestroyed(handle uintptr) {
	s.mu.Lock()
	st := s.stall
	s.mu.Unlock()
	if st != nil {
		st.ModuleDestroyed()
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.modules[handle]
	if !ok {
		return
	}
	delete(s.modules, handle)
	s.emitLocked(&pb.Record{Kind: &pb.Record_ModuleDestroyed{ModuleDestroyed: &pb.ModuleDestroyed{Id: id, HostNs: now}}})
}

// KernelCreated registers a kernel: names (raw and demangled), base
// address and exact ISA size.
func (s *Session) KernelCreated(k *Kernel) {
	now := s.now()
	dem := ""
	if d, err := demangle.ToString(k.Name, demangle.NoClones); err == nil && d != k.Name {
		dem = d
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// The launch path (C) is the only owner of kernel ids: its launch
	// records name kernels by them. Without one (2^32-1 kernels came
	// before it) the kernel is not recorded: an id made here could be one
	// of C's.
	id := k.ID
	if id == 0 {
		s.noID++
		return
	}
	s.kernels[k.Handle] = id
	mod := s.modules[k.Module]
	size := uint64(len(k.ISA))
	if size == 0 {
		size = s.modSecs[mod][k.Name]
	}
	rec := &pb.Kernel{
		Id: id, ModuleId: mod, Name: k.Name, DemangledName: dem,
		BaseAddress: k.Base, IsaSize: size, ValidFromHostNs: now,
	}
	if s.stall != nil && k.BaseErr == nil {
		s.stall.KernelCreated(id, k.Base, size, now)
		// Copies of its code, the same size at their own addresses, are
		// registered when first used (CopyKernelCreated).
		if k.Separated {
			if s.kernCopies == nil {
				s.kernCopies = map[uint64]kernelCopies{}
			}
			s.kernCopies[id] = kernelCopies{size: size}
		}
	}
	s.emitLocked(&pb.Record{Kind: &pb.Record_Kernel{Kernel: rec}})
}

// KernelDestroyed ends a kernel's life: its address range may be reused.
func (s *Session) KernelDestroyed(handle uintptr) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.kernels[handle]
	if !ok {
		return
	}
	delete(s.kernels, handle)
	if s.stall != nil {
		s.stall.KernelDestroyed(id, now)
		for c := uint32(1); c <= 64; c++ {
			if s.kernCopies[id].codes&(1<<(c-1)) != 0 {
				s.stall.KernelDestroyed(attribution.CodeID(id, c), now)
			}
		}
		delete(s.kernCopies, id)
	}
	s.emitLocked(&pb.Record{Kind: &pb.Record_KernelDestroyed{KernelDestroyed: &pb.KernelDestroyed{Id: id, ValidUntilHostNs: now}}})
}

// Shutdown writes the final counters and closes the file. It runs from the
// library destructor at exit and waits for the writer (bounded). When
// zestall's goroutines are idle, as in a short program, it wakes only the
// writer goroutine, once, for all the exit's records: it waits only for a
// harvester pass in progress (stopHarvester), and records queued from its
// start on (the collection's exit edge) do not wake the writer on their
// own. Each goroutine woken at exit cost the process a futex wake-up, two
// context switches and the runtime's sysmon ticks while it ran
// (BENCHMARKS.md, "Issue 14, session 9"). The file's last frames are
// written by the writer goroutine, never on the exit's thread: a file
// system that hangs holds up the exit 10 s at most.
func (s *Session) Shutdown() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		h := s.harvest
		if s.out == nil {
			s.mu.Unlock()
			return
		}
		s.exiting = true
		s.mu.Unlock()
		s.stopControl()
		c := &pb.Counters{Final: true}
		if cs := s.ctlSrc; cs != nil {
			c.LaunchesWhileStopped = cs.LaunchesWhileStopped()
		}
		if h != nil {
			s.src.WakeOnSync(false)
			s.src.Enable(false)
			// A launch waiting for ring room would wait for a harvester
			// that is about to stop: it passes and is counted lost.
			s.src.WaitOnFullRing(false)
			if !s.stopHarvester() {
				fmt.Fprintln(s.stderr, "zestall: the launch harvester did not stop within 5 s at exit; launches still pending are not written.")
			}
			h.Final()
			h.Counters(c)
			s.syclRecords()
			s.syclCounters(c)
		}
		if st := s.stall; st != nil {
			// A last read, then every window decided.
			if !st.Stop(5 * time.Second) {
				fmt.Fprintln(s.stderr, "zestall: the stall reader did not stop within 5 s at exit; its last samples are not written.")
			}
			st.Counters(c)
		}
		s.stopCopies(c)
		s.mu.Lock()
		c.HostNs = s.now()
		if s.noID > 0 {
			c.Lost = append(c.Lost, &pb.Loss{What: LossKernelNoID, Count: s.noID})
		}
		if s.lost > 0 {
			c.Lost = append(c.Lost, &pb.Loss{What: LossQueueFull, Count: s.lost})
		}
		// The trailer must not be dropped: block on the queue here (exit).
		// It goes last, after the records of zestall's goroutines.
		out, bulk, launches, syclq := s.out, s.bulk, s.launches, s.syclq
		s.out = nil
		s.mu.Unlock()
		close(out)
		close(launches) // the harvester is done: its last records are queued
		close(syclq)    // and the last SYCL records
		trailer := &pb.Record{Kind: &pb.Record_Counters{Counters: c}}
		select {
		case bulk <- trailer:
		default:
			s.wakeWriter() // full: the writer empties it
			bulk <- trailer
		}
		close(bulk)
		s.wakeWriter()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			fmt.Fprintf(s.stderr, "zestall: timed out writing %s at exit; the file holds what was flushed.\n", s.path)
			if os.Getenv("ZESTALL_DEBUG_STACKS") == "1" {
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				s.stderr.Write(buf[:n])
			}
			return
		}
		s.stopProfile()
		if s.noOutput.Load() {
			return // said when the file could not be made
		}
		loss := timing.LossSummary(c)
		switch {
		case loss != "":
			// Not hidden by ZESTALL_QUIET: the results miss part of the run.
			fmt.Fprintf(s.stderr, "zestall: wrote %s (%d kernel launches, %d with device times); WARNING: LOST %s: zestall could not keep up with this application's launch rate (see `zestall report`)\n",
				s.path, c.LaunchesSeen, c.LaunchesTimed, loss)
		case !s.cfg.Quiet:
			fmt.Fprintf(s.stderr, "zestall: wrote %s (%d kernel launches, %d with device times)\n", s.path, c.LaunchesSeen, c.LaunchesTimed)
		}
		if c.LaunchesWaited > 0 && !s.cfg.Quiet {
			// Nothing lost, but the application was slowed: its launch
			// rate exceeded what zestall records (ZESTALL_RING_FULL).
			fmt.Fprintf(s.stderr, "zestall: %d kernel launches waited %v in all for zestall to record earlier ones (ZESTALL_RING_FULL=wait; =drop passes them untouched instead)\n",
				c.LaunchesWaited, time.Duration(c.LaunchWaitNs).Round(time.Microsecond))
		}
	})
}
