package sampling

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zestall/zestall/internal/offheap"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
	"github.com/zestall/zestall/ze"
)

// Device is a root device to sample.
type Device struct {
	ID       uint32 // device id in the output file
	Handle   uint64
	Name     string
	Platform string // collector's platform name ("PVC", "BMG", ...), "" when unknown
	// AffinityEntry is the ZE_AFFINITY_MASK entry that selected the
	// device ("3", "1.1"; config.AffinityEntries), "" when unknown.
	AffinityEntry string
}

// Options are what the reader needs from its session.
type Options struct {
	Sampling     bool          // ZESTALL_SAMPLING: false opens nothing
	PeriodNs     uint32        // ZESTALL_SAMPLING_PERIOD_NS, asked of the driver
	ReadInterval time.Duration // ZESTALL_STALL_READ_INTERVAL
	Latency      time.Duration // ZESTALL_STALL_LATENCY
	Now          func() uint64 // host ns, CLOCK_MONOTONIC_RAW
	// Emit queues a record for the writer; it may block (it is called on
	// the reader's goroutine only).
	Emit   func(*pb.Record)
	Stderr io.Writer // notices: why sampling is off, internal errors
	// NewAttributor makes the attributor of one stream's set of samples
	// (subDevice nil unless the stream is COMPOSITE) with columns counter
	// columns besides the IP.
	NewAttributor func(device uint32, subDevice *uint32, columns int) Attributor
}

// Timing is what the reader asks of launch timing; both may be nil (no
// launch timing: nothing to wait for).
type Timing struct {
	// SettledBefore: every launch appended before host ns t has its times.
	SettledBefore func(t uint64) bool
	// PendingBefore: the earliest host ns at which a launch whose times
	// are not known yet may have run. Every launch before it has been
	// given to Launches: the harvester hands a pass's finished records
	// over before the pass ends, under the mutex PendingBefore takes
	// (timing.Harvester.OnLaunches), so a launch is never in neither.
	PendingBefore func() uint64
}

// EdgeWait bounds how long a collection edge waits for the streamer read
// that marks it.
const EdgeWait = 200 * time.Millisecond

// Loss reasons (Counters.lost[].what) the reader reports. Reasons that
// carry a Level-Zero result are made by lossReadFailed and
// lossCalculationFailed.
const (
	LossRawDisagreed = "raw stall decoder disagreed with the driver's calculation (the driver's is used)"
)

func lossReadFailed(err error) string {
	return fmt.Sprintf("stall reads failed (%s)", resultName(err))
}

func lossCalculationFailed(err error) string {
	return fmt.Sprintf("stall calculations failed (%s)", resultName(err))
}

// resultName names the Level-Zero result err carries (ZE_RESULT_SUCCESS
// when it carries none, as before results were typed).
func resultName(err error) string {
	r, _ := ze.ResultOf(err)
	return r.Error()
}

// Reader is the sampling side of a session: streams, their attributors,
// and the reader goroutine.
type Reader struct {
	src      Source
	opts     Options
	now      func() uint64
	emit     func(*pb.Record)
	interval time.Duration
	timing   Timing
	info     []streamInfo // every root device's stream, on or off, for the header
	said     map[Off]bool // off reasons told on stderr

	streams []*Stream
	devIDs  []uint32       // device id of each stream
	attr    [][]Attributor // per stream, per set
	raw     []*rawPath     // per stream; nil when no decoder fits
	prevEnd []uint64       // start of each stream's last read: the next window's start
	// Other processes running kernels on each stream's device, as the
	// driver said at the last read with data (Sysman), and whether it
	// could say at all (the reader goroutine's).
	others      [][]uint32
	othersKnown []bool
	// othersKnownAtOpen: the driver answered for every open stream when
	// it was opened (Header.other_processes_known).
	othersKnownAtOpen bool
	mu                sync.Mutex    // attr, live, the stand-ins, errs (fed from application threads)
	wake              chan struct{} // a launch completed: read now
	// lastDone is the latest host ns by which completed work is known to
	// have ended (a launch's device end, or a return from a wait).
	lastDone atomic.Uint64
	// doneUnknown: some work completed at a time not known (Completed(0):
	// a launch without device times).
	doneUnknown atomic.Bool
	syncReq     chan chan struct{} // read now and say when done
	ctl         chan stallCtl      // collection starts or stops
	// Owned by the reader goroutine once it runs (set before that at
	// start): whether samples read are attributed or discarded, and the
	// host ns of a stop whose launches have not all completed yet.
	collecting bool
	stopAt     uint64
	latency    time.Duration // ZESTALL_STALL_LATENCY
	discarded  atomic.Uint64 // raw records read while stopped
	// Launches appended while collection is stopped are unknown to the
	// attributors: every kernel gets a stand-in untimed launch spanning
	// the stopped period (under mu), so that samples of a read window
	// overlapping it are never given to one recorded launch.
	live      map[uint64]bool // kernels alive
	stoppedAt uint64          // host ns of the current stop edge, 0 while collecting
	standIn   uint64          // id of the current stand-in launch
	standIns  uint64          // stand-ins so far
	stop      chan struct{}
	done      chan struct{}
	read      uint64            // raw records read
	warn      uint64            // reads that returned WARNING_DROPPED_DATA
	flagged   uint64            // calculations that reported drop-flagged records
	errs      map[string]uint64 // losses by what (under mu)
}

type streamInfo struct {
	dev    uint32 // device id
	stream *Stream
}

// Open opens one streamer per root device (sub-devices are sampled
// through their root, COMPOSITE) and says once on stderr why sampling is
// off where it is. The reader does not run until Run.
func Open(src Source, roots []Device, o Options) *Reader {
	st := &Reader{src: src, opts: o, now: o.Now, emit: o.Emit, interval: o.ReadInterval,
		wake: make(chan struct{}, 1), syncReq: make(chan chan struct{}, 16),
		ctl: make(chan stallCtl, 16), collecting: true, latency: o.Latency, said: map[Off]bool{},
		stop: make(chan struct{}), done: make(chan struct{}), errs: map[string]uint64{}, othersKnownAtOpen: true}
	for _, d := range roots {
		var stream *Stream
		if !o.Sampling {
			stream = &Stream{Device: d.Handle, Off: OffDisabled}
		} else {
			stream = src.Open(d.Handle, o.PeriodNs)
		}
		st.reportOff(d, stream)
		st.info = append(st.info, streamInfo{dev: d.ID, stream: stream})
		if stream.Off != On {
			continue
		}
		sets := int(stream.SubDevices)
		if sets < 1 {
			sets = 1
		}
		cols := len(stream.Metrics) - 1
		var as []Attributor
		for set := 0; set < sets; set++ {
			var sub *uint32
			if stream.SubDevices > 1 {
				v := uint32(set)
				sub = &v
			}
			as = append(as, o.NewAttributor(d.ID, sub, cols))
		}
		st.raw = append(st.raw, newRawPath(d, stream))
		st.streams = append(st.streams, stream)
		st.devIDs = append(st.devIDs, d.ID)
		st.attr = append(st.attr, as)
		st.prevEnd = append(st.prevEnd, st.now())
		others, err := src.OtherProcesses(stream)
		st.others = append(st.others, others)
		st.othersKnown = append(st.othersKnown, err == nil)
		st.othersKnownAtOpen = st.othersKnownAtOpen && err == nil
		for _, a := range as {
			a.SetOtherProcesses(others, err == nil)
		}
	}
	return st
}

// OtherProcessesKnown says whether the driver could tell, for every
// stream opened, which other processes use its device (Sysman); false
// also when no stream is open.
func (st *Reader) OtherProcessesKnown() bool { return st.othersKnownAtOpen && len(st.streams) > 0 }

// Active says whether some streamer is open: otherwise the reader has
// nothing to do and is not run.
func (st *Reader) Active() bool { return len(st.streams) > 0 }

// SetTiming connects launch timing (before Run).
func (st *Reader) SetTiming(t Timing) { st.timing = t }

// SetCollecting sets the initial collection state (before Run).
func (st *Reader) SetCollecting(on bool) { st.collecting = on }

// reportOff says once, on stderr, why sampling is off.
func (st *Reader) reportOff(d Device, s *Stream) {
	if s.Off == On || s.Off == OffDisabled || st.said[s.Off] {
		return
	}
	st.said[s.Off] = true
	switch s.Off {
	case OffNoMetrics:
		fmt.Fprintln(st.opts.Stderr, "zestall: EU stall sampling is off: the driver exposes no metrics; set ZET_ENABLE_METRICS=1 (default: unset). Kernel timing continues.")
	case OffNoGroup:
		fmt.Fprintf(st.opts.Stderr, "zestall: EU stall sampling is off on device %d (%s): it has no EuStallSampling metric group (the GPU may not support it, e.g. DG2, or access is denied: sysctl dev.i915.perf_stream_paranoid=0 or dev.xe.observation_paranoid=0). Kernel timing continues.\n", d.ID, d.Name)
	default:
		if s.Result == ze.ErrorUnknown {
			// What Intel's driver returns when the kernel driver refuses
			// the stream: one per tile, whichever process holds it
			// (docs/eu-stall-sampling.md §5.1 "Preconditions and results").
			fmt.Fprintf(st.opts.Stderr, "zestall: EU stall sampling is off on device %d (%s%s): its EU stall stream is held by another process (one per tile; the open returned %s). Let one process per tile sample: ZESTALL_SAMPLE_RANKS=<one rank per tile>, or stop the other profiler. Kernel timing continues.\n", d.ID, d.Name, tileLabel(d), s.Result)
			return
		}
		fmt.Fprintf(st.opts.Stderr, "zestall: EU stall sampling is off on device %d (%s%s): the metric streamer could not be opened (%s)%s; another sampling session may be active. Kernel timing continues.\n", d.ID, d.Name, tileLabel(d), s.Result, s.Detail)
	}
}

// tileLabel names where d is on the node, for messages: ", tile <entry>
// of this node (ZE_AFFINITY_MASK)" or "".
func tileLabel(d Device) string {
	if d.AffinityEntry == "" {
		return ""
	}
	return ", ZE_AFFINITY_MASK entry " + d.AffinityEntry + " of this node"
}

// Header fills the header's per-device sampling description (devs[i] has
// id i+1).
func (st *Reader) Header(devs []*pb.Device) {
	for _, si := range st.info {
		i := int(si.dev) - 1
		if i < 0 || i >= len(devs) {
			continue
		}
		s := si.stream
		ss := &pb.StallSampling{
			Enabled:             s.Off == On,
			OffReason:           pb.StallSamplingOff(s.Off),
			SamplingPeriodNs:    uint64(s.PeriodNs),
			RequestedPeriodNs:   uint64(st.opts.PeriodNs),
			NotifyEveryNReports: s.NotifyReports,
			SubDeviceSets:       s.SubDevices,
		}
		if s.Off != On && s.Off != OffDisabled {
			ss.Detail = s.Result.Error()
		}
		for _, m := range s.Metrics {
			ss.Metrics = append(ss.Metrics, &pb.Metric{Name: m.Name, Description: m.Description, Units: m.Units, MetricType: m.Type})
		}
		devs[i].StallSampling = ss
	}
}

// ModuleDestroyed has the streamers read (bounded wait) before a module
// goes: its instruction addresses may go to the next module, and a read
// that ends before the next module exists keeps their samples apart. A
// reader that does not read in time (a loaded machine) loses nothing: the
// next read's window spans the destroy, its samples are matched to the
// kernels live at their address during the window, and should a new
// kernel take the destroyed one's addresses inside that window, the rows
// are counted as ambiguous (AttributionTotals.AmbiguousKernelRows, shown
// by zestall report). It reports whether the read happened.
func (st *Reader) ModuleDestroyed() bool {
	return st.ReadNow(200 * time.Millisecond)
}

// Stop ends the reader at exit: a last read, every window decided, then
// the streamers closed. It says whether the reader ended within timeout.
func (st *Reader) Stop(timeout time.Duration) bool {
	close(st.stop)
	ok := true
	select {
	case <-st.done:
	case <-time.After(timeout):
		ok = false
	}
	for _, s := range st.streams {
		st.src.Close(s)
	}
	return ok
}

// locked runs f under mu, and unlocks it even when f panics: the panic
// ends the reader (guard), and application threads that take mu next
// must not hang.
func (st *Reader) locked(f func()) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f()
}

// lose counts a loss. The reader and application threads (a module
// destroyed while the reader is busy) both count: under mu.
func (st *Reader) lose(what string) {
	st.mu.Lock()
	st.errs[what]++
	st.mu.Unlock()
}

// guard keeps a panic in the reader from killing the application: it is
// reported once and the reader ends.
func (st *Reader) guard(where string) {
	if r := recover(); r != nil {
		fmt.Fprintf(st.opts.Stderr, "zestall: internal error in %s: %v (this part of zestall stops; the application continues)\n", where, r)
	}
}

// Counters adds the sampling totals to the trailer.
func (st *Reader) Counters(c *pb.Counters) {
	st.mu.Lock()
	defer st.mu.Unlock()
	c.StallRecordsRead = st.read
	c.StallDropWarnings = st.warn
	c.StallDropFlagRecords = st.flagged
	c.StallRecordsDiscardedStopped = st.discarded.Load()
	for _, as := range st.attr {
		for _, a := range as {
			a.AddCounters(c)
		}
	}
	// In a stable order (by what): a map's order differs from run to run.
	for _, what := range slices.Sorted(maps.Keys(st.errs)) {
		c.Lost = append(c.Lost, &pb.Loss{What: what, Count: st.errs[what]})
	}
}

// KernelCreated feeds a kernel to the attributors (any thread).
func (st *Reader) KernelCreated(id, base, size, from uint64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.live == nil {
		st.live = map[uint64]bool{}
	}
	st.live[id] = true
	for _, as := range st.attr {
		for _, a := range as {
			a.KernelCreated(id, base, size, from)
			if st.stoppedAt != 0 {
				a.LaunchUntimed(st.standIn, id, from)
			}
		}
	}
}

// standInIDBase marks stand-in launch ids (never a real launch id).
const standInIDBase = 1 << 63

// CollectionStopped: launches appended from host ns at on are unknown
// until CollectionStarted.
func (st *Reader) CollectionStopped(at uint64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stoppedAt != 0 {
		return
	}
	st.standIns++
	st.standIn = standInIDBase + st.standIns
	st.stoppedAt = at
	for id := range st.live {
		for _, as := range st.attr {
			for _, a := range as {
				a.LaunchUntimed(st.standIn, id, at)
			}
		}
	}
}

// CollectionStarted ends the stand-in launches at host ns at. Launches
// appended before a start but still running after it are not covered: see
// README, Known limits.
func (st *Reader) CollectionStarted(at uint64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.stoppedAt == 0 {
		return
	}
	for id := range st.live {
		for _, as := range st.attr {
			for _, a := range as {
				a.UntimedEndedBy(st.standIn, id, at)
			}
		}
	}
	st.stoppedAt = 0
}

// KernelDestroyed ends a kernel's address range at host ns until (any
// thread).
func (st *Reader) KernelDestroyed(id, until uint64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.live, id)
	for _, as := range st.attr {
		for _, a := range as {
			a.KernelDestroyed(id, until)
		}
	}
}

// Launches feeds a batch of finished launches, with their times or
// without, to the attributors of their devices (the harvester's
// goroutine, at the latest at the end of the harvester pass that
// finished them: see collector/timing's Harvester.OnLaunches). ls is not
// kept. One lock of mu and one call per attributor for the whole batch,
// not per launch: each attributor gets the whole batch and takes the
// launches of its device, in order (attribution.Attributor.Launches);
// the streams of devices the batch has no launch of are skipped when it
// has one device only (the common case). The reader is woken once, with
// the latest end of the batch: the settling read that holds every sample
// of the batch's launches is due latency after that end (see Run), and
// the wake channel holds one wake anyway.
func (st *Reader) Launches(ls []stream.Launch) {
	if len(ls) == 0 {
		return
	}
	dev, mixed := ls[0].DeviceId, false
	var latest uint64
	unknown := false
	for i := range ls {
		l := &ls[i]
		mixed = mixed || l.DeviceId != dev
		if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 || l.DeviceEndNs == 0 {
			unknown = true // Completed(0): ended at a time not known
		} else {
			latest = max(latest, l.DeviceEndNs)
		}
	}
	st.feed(ls, dev, mixed)
	if unknown {
		st.doneUnknown.Store(true)
	}
	st.Completed(latest)
}

// feed gives ls to the attributors of the streams of its devices (of
// dev only, unless mixed), under mu; it unlocks mu even when an
// attributor panics (see locked), without a closure per batch.
func (st *Reader) feed(ls []stream.Launch, dev uint32, mixed bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for i, as := range st.attr {
		if !mixed && st.devIDs[i] != dev {
			continue
		}
		for _, a := range as {
			a.Launches(st.devIDs[i], ls)
		}
	}
}

// Completed notes that work of the device completed by host ns at (0:
// unknown, the wake time is used) and wakes the reader, so that read
// windows fall between launches as often as possible (see Run).
// Any thread; never blocks.
func (st *Reader) Completed(at uint64) {
	if at == 0 {
		st.doneUnknown.Store(true)
	}
	for {
		old := st.lastDone.Load()
		if at <= old || st.lastDone.CompareAndSwap(old, at) {
			break
		}
	}
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// Run is the streamer-reader goroutine: it drains every streamer on
// a timer, on its notification event and after launches complete, and
// never blocks an application thread.
//
// A completion (a launch's times arrived, or the application returned
// from a wait for the device) wakes it twice: at once (or, when a read
// began less than a quarter of latency before, at that quarter's end),
// and latency later —
// the first read that can hold every sample of the launches completed by
// then (see collector/attribution). When the device stays idle for longer than
// that, the second read's window closes between those launches and the
// next ones, which per-launch attribution needs. Settling reads add at
// most one read per read interval (addSettle).
// readBufSize is one read's worth: readStream reads again while a read
// fills it, and the rest's window keeps the full read's start (readFull).
// It is live for the whole run, outside the Go heap: only the pages reads
// have filled are resident. It was 8 MiB while the rest of a full read got a window that
// began too late: reading an overflowed device in 1 MiB parts then left
// 309 sample counts Unattributed in 1 run of 4 (e2e
// TestStallSampling/overflow); with readFull, 0 in 6.
const readBufSize = 1 << 20

func (st *Reader) Run() {
	defer close(st.done)
	defer st.guard("the stall reader")
	interval := st.interval
	// Outside the Go heap: resident only as far as reads fill it, and
	// nothing towards the heap's goal (internal/offheap).
	buf, mapped := offheap.Make[byte](readBufSize)
	if mapped {
		defer offheap.Free(buf)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	latency := st.latency
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	var due []settleRead // ascending
	final := false
	var acks []chan struct{}
	// Collection edges. A start waits until a read beginning latency
	// after the request: it discards every sample taken before the start,
	// then collection begins. A stop keeps attributing until every launch
	// before it has completed, and then for latency more (samples become
	// visible that late), and ends with a read beginning after that.
	var edgeAcks []chan struct{}
	var startAfter, stopAfter time.Time // zero: no such edge pending
	edgeT := time.NewTimer(time.Hour)
	edgeT.Stop()
	defer edgeT.Stop()
	// A completion's immediate read is held back to minWakeGap after the
	// read before it (read at the end of the gap instead): at a high launch
	// rate completions come every harvester pass, and a read and its
	// window per pass cost a wake-up and a decision over every launch
	// within the window's latency-widened span, tens of thousands, for no
	// better attribution (launches closer than the latency share their
	// windows' samples anyway; issue 14, BENCHMARKS.md session 17).
	minWakeGap := latency / 4
	gapT := time.NewTimer(time.Hour)
	gapT.Stop()
	defer gapT.Stop()
	for {
		begin := time.Now()
		gapT.Stop() // this read is the one it was armed for
		if st.stopAt != 0 && stopAfter.IsZero() && st.settledBefore(st.stopAt) {
			stopAfter = begin.Add(latency)
			edgeT.Reset(latency)
		}
		for i := range st.streams {
			st.readStream(i, buf, !st.collecting)
		}
		edgeDone := false
		if !startAfter.IsZero() && !begin.Before(startAfter) {
			// The samples read above were taken while stopped.
			st.collecting, startAfter, edgeDone = true, time.Time{}, true
		}
		if !stopAfter.IsZero() && !begin.Before(stopAfter) {
			st.collecting, st.stopAt, stopAfter, edgeDone = false, 0, time.Time{}, true
		}
		if edgeDone {
			for _, a := range edgeAcks {
				close(a)
			}
			edgeAcks = edgeAcks[:0]
		}
		for _, a := range acks {
			close(a)
		}
		acks = acks[:0]
		st.resolve(final)
		if final {
			for _, a := range edgeAcks {
				close(a)
			}
			return
		}
		// This read settles every completion up to begin − latency.
		n := 0
		for n < len(due) && !due[n].at.After(begin) {
			n++
		}
		if n > 0 {
			due = append(due[:0], due[n:]...)
			settle.Stop()
			if len(due) > 0 {
				settle.Reset(time.Until(due[0].at))
			}
		}
	wait:
		select {
		case <-st.stop:
			final = true
			if st.collecting && latency > 0 {
				// The last samples become visible to a read up to latency
				// after they were taken; the streamer's close would lose
				// them. Exit waits that long, once.
				time.Sleep(st.exitWait(latency))
			}
		case <-st.wake:
			if latency > 0 {
				// Settle from when the work ended, not from now: the
				// reader may take the wake late.
				now := st.now()
				done := min(st.lastDone.Load(), now)
				if done == 0 {
					done = now
				}
				at := time.Now().Add(latency - time.Duration(now-done))
				due = addSettle(due, at, interval)
				settle.Stop()
				settle.Reset(time.Until(due[0].at))
			}
			if since := time.Since(begin); since < minWakeGap {
				gapT.Reset(minWakeGap - since) // always to begin + minWakeGap
				goto wait
			}
		case a := <-st.syncReq:
			acks = append(acks, a)
		case c := <-st.ctl:
			switch {
			case c.start && st.stopAt != 0:
				// Restarted while draining: the reads go on.
				st.stopAt, stopAfter = 0, time.Time{}
				acks = append(acks, edgeAcks...)
				edgeAcks = edgeAcks[:0]
			case c.start && !st.collecting:
				startAfter = time.Now().Add(latency)
				edgeT.Reset(latency)
			case !c.start && !startAfter.IsZero():
				// Stopped again before the start took effect.
				startAfter = time.Time{}
				acks = append(acks, edgeAcks...)
				edgeAcks = edgeAcks[:0]
			case !c.start && st.collecting:
				st.stopAt = c.stopAt
				if c.settled {
					// Every launch of the window completed: only the
					// samples' visibility is left to wait for.
					stopAfter = time.Now().Add(latency)
					edgeT.Reset(latency)
				}
			}
			if c.ack != nil {
				if st.stopAt != 0 || !startAfter.IsZero() {
					edgeAcks = append(edgeAcks, c.ack)
				} else {
					acks = append(acks, c.ack)
				}
			}
		case <-t.C:
		case <-settle.C:
		case <-edgeT.C:
		case <-gapT.C:
		}
	}
}

// stallCtl is a collection edge for the reader goroutine.
type stallCtl struct {
	start   bool
	stopAt  uint64 // stop: host ns of the edge
	settled bool   // stop: every launch before the edge has its times
	ack     chan struct{}
}

// StartEdge: collection starts. The reader reads and discards what the
// streamers hold (taken while stopped) from latency after now on; with
// wait, the caller waits (bounded) for that read.
func (st *Reader) StartEdge(wait bool) { st.edge(stallCtl{start: true}, wait) }

// StopEdge: collection stopped at host ns at. The reader attributes until
// every launch before at has completed (settled: they all have), then
// latency more; with wait, the caller waits (bounded) for the read that
// ends it.
func (st *Reader) StopEdge(at uint64, settled, wait bool) {
	st.edge(stallCtl{stopAt: at, settled: settled}, wait)
}

// edge hands an edge to the reader and, if wait, waits (bounded) for the
// read that marks it.
func (st *Reader) edge(c stallCtl, wait bool) {
	if wait {
		c.ack = make(chan struct{})
	}
	select {
	case st.ctl <- c:
	case <-st.done:
		return
	case <-time.After(EdgeWait):
		return
	}
	if wait {
		select {
		case <-c.ack:
		case <-st.done:
		case <-time.After(EdgeWait + st.latency):
		}
	}
}

// settledBefore: every launch appended before t has its device times
// (no launch timing: nothing to wait for).
func (st *Reader) settledBefore(t uint64) bool {
	if st.timing.SettledBefore != nil {
		return st.timing.SettledBefore(t)
	}
	return true
}

// settleRead is a settling read to do: at at, for completions whose
// settling time is in [first, at]; at − first < merge.
type settleRead struct{ first, at time.Time }

// addSettle adds a completion to settle at d to due (ascending). One read
// serves completions whose settling times lie within merge of the first
// (it happens at the latest of them), so that a steady stream of
// completions adds at most one read per merge interval.
func addSettle(due []settleRead, d time.Time, merge time.Duration) []settleRead {
	for i := range due {
		if !d.Before(due[i].first) && d.Sub(due[i].first) < merge {
			if d.After(due[i].at) {
				due[i].at = d
			}
			return due
		}
	}
	due = append(due, settleRead{d, d})
	slices.SortFunc(due, func(x, y settleRead) int { return x.at.Compare(y.at) })
	return due
}

// exitWait is how long the last read waits at exit (Run, after the
// harvester's final pass fed every launch to Launch): until latency after
// the last completed work, whose samples may not be visible yet; nothing
// when no work of the application completed (a run without launches, the
// start-up benchmark's trivial program, waited 20 ms for samples that
// cannot exist) or when it ended longer than latency ago. The whole
// latency when some work's end is not known.
func (st *Reader) exitWait(latency time.Duration) time.Duration {
	if st.doneUnknown.Load() {
		return latency
	}
	done := st.lastDone.Load()
	if done == 0 {
		return 0
	}
	now := st.now()
	if now < done {
		return latency
	}
	return max(0, latency-time.Duration(now-done))
}

// SerializedRead reads after a serialized launch completed: once the
// samples it produced can all be visible (latency after its completion),
// so that the window closing now holds all of them and the next one none.
func (st *Reader) SerializedRead() {
	time.Sleep(st.latency)
	st.ReadNow(10 * time.Second)
}

// ReadNow makes the reader read every streamer and waits (bounded) until
// it has. Called when a module is destroyed: its instruction addresses may
// be given to the next module, and samples taken before must be read
// while the address still means the old kernel.
func (st *Reader) ReadNow(timeout time.Duration) bool {
	ack := make(chan struct{})
	select {
	case st.syncReq <- ack:
	default:
		return false
	}
	select {
	case <-ack:
		return true
	case <-st.done:
		return false
	case <-time.After(timeout):
		return false
	}
}

// readStream reads one streamer until it is empty; discard drops the
// samples (collection is stopped), counting them.
func (st *Reader) readStream(i int, buf []byte, discard bool) {
	stream := st.streams[i]
	for {
		// The samples a read delivers were taken after the previous read
		// began and before this read returned: the window runs from the
		// previous read's start to this read's end (a preempted reader
		// widens windows, it never misplaces samples).
		begin := st.now()
		n, dropped, err := st.src.Read(stream, buf)
		end := st.now()
		if dropped {
			st.warn++
		}
		if err != nil {
			st.lose(lossReadFailed(err))
			return
		}
		if n == 0 {
			if dropped {
				// The drop warning comes alone, once; the data
				// buffered before it follow in the next read, so the
				// window must not start here.
				continue
			}
			// Nothing was buffered when this read began: the next
			// read's samples were all taken after that, and the
			// attributors may drop launches that ended long before.
			st.prevEnd[i] = begin
			st.locked(func() {
				for _, a := range st.attr[i] {
					a.NoSamplesUntil(begin)
				}
			})
			return
		}
		st.read += uint64(n / 64)
		// A read that filled the buffer may have left records in the
		// device's buffers, and those were taken before this read began
		// too: the next read's window keeps this one's start
		// (docs/eu-stall-sampling.md §6 "zetMetricStreamerReadData").
		full := readFull(n, len(buf), stream.SubDevices)
		if !discard {
			st.refreshOthers(i)
		}
		if discard {
			st.discarded.Add(uint64(n / 64))
			if !full {
				st.prevEnd[i] = begin
				return
			}
			continue
		}
		sets, flagged, err := st.decode(i, buf[:n])
		if flagged {
			st.flagged++
		}
		if err != nil {
			st.lose(lossCalculationFailed(err))
		}
		mc := len(stream.Metrics)
		st.locked(func() {
			for set, vals := range sets {
				if set < len(st.attr[i]) && mc > 0 {
					// IP 0 rows (driver padding) are skipped by the attributor.
					st.attr[i][set].AddWindowValues(st.prevEnd[i], end, vals, stream.IPIndex)
				}
			}
		})
		if !full {
			st.prevEnd[i] = begin
			return
		}
	}
}

// readFull says whether a read of n bytes into a buffer of size may have
// left records behind. A root device with sub-devices stops filling when
// less than one record's space is left and then writes no 16-byte header
// for the sub-devices it did not reach (docs/eu-stall-sampling.md §6.2), so
// the slack is one record plus a header per sub-device.
func readFull(n, size int, subDevices uint32) bool {
	slack := 64 + 16*int(max(subDevices, 1))
	return n+slack > size
}

// refreshOthers asks the driver which other processes run kernels on
// stream i's device, before a window of its samples is added. The window
// began at the previous read: the processes seen then count too, so that
// one that ended in between is not missed.
func (st *Reader) refreshOthers(i int) {
	now, err := st.src.OtherProcesses(st.streams[i])
	known := err == nil
	set := now
	if known && st.othersKnown[i] && len(st.others[i]) > 0 {
		set = slices.Clone(now)
		for _, p := range st.others[i] {
			if _, found := slices.BinarySearch(set, p); !found {
				set = append(set, p)
			}
		}
		slices.Sort(set)
	}
	st.others[i], st.othersKnown[i] = now, known
	st.locked(func() {
		for _, a := range st.attr[i] {
			a.SetOtherProcesses(set, known)
		}
	})
}

// resolve writes the windows whose launches are all known.
func (st *Reader) resolve(final bool) {
	pendingBefore := ^uint64(0)
	if st.timing.PendingBefore != nil {
		pendingBefore = st.timing.PendingBefore()
	}
	var recs []*pb.Record
	st.locked(func() {
		for _, as := range st.attr {
			for _, a := range as {
				recs = append(recs, a.Resolve(pendingBefore, final)...)
			}
		}
	})
	for _, r := range recs {
		st.emit(r)
	}
}
