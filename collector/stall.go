package collector

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zestall/zestall/collector/eustall"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// rawChecks is how many reads of a stream are decoded both ways before the
// raw decoder, if it agreed every time, replaces the driver's calculation.
const rawChecks = 16

// rawPath is a stream's raw-record decoder and its validation state.
type rawPath struct {
	dec     *eustall.Decoder
	agreed  int  // reads where raw decoding equalled the calculation
	trusted bool // agreed rawChecks times: the calculation is skipped
	failed  bool // disagreed once: the calculation is used for good
}

// StallOff says why EU stall sampling is off on a device (mirrors
// pb.StallSamplingOff).
type StallOff int

const (
	StallOn            StallOff = 0
	StallOffDisabled   StallOff = 1 // ZESTALL_SAMPLING=0
	StallOffNoMetrics  StallOff = 2 // the driver exposes no metric groups
	StallOffNoGroup    StallOff = 3 // no EuStallSampling group on the device
	StallOffOpenFailed StallOff = 4 // activation or zetMetricStreamerOpen failed
)

// StallMetric is one metric of the EuStallSampling group, as the driver
// reports it.
type StallMetric struct {
	Name, Description, Units string
	Type                     uint32 // zet_metric_type_t
}

// StallStream is one streamer, open for the life of the process, on one
// root device.
type StallStream struct {
	Handle        int
	Device        uint64 // device handle
	Off           StallOff
	Result        uint32 // Level-Zero result of the failing call
	Detail        string
	Metrics       []StallMetric // driver order, IP included
	IPIndex       int
	PeriodNs      uint32 // what the driver chose
	NotifyReports uint32
	SubDevices    uint32 // calculation sets (COMPOSITE root: sub-devices)
}

// StallSource is the Level-Zero metrics access the stall reader needs;
// package cgo implements it.
type StallSource interface {
	Open(device uint64, periodNs uint32) *StallStream
	// Read reads raw records; dropped reports ZE_RESULT_WARNING_DROPPED_DATA.
	Read(st *StallStream, buf []byte) (n int, dropped bool, err error)
	Notified(st *StallStream) bool
	// Calculate returns, per set, the calculated values report-major in
	// metric order; dropped reports the calculation's drop warning.
	Calculate(st *StallStream, raw []byte) (sets [][]uint64, dropped bool, err error)
	Close(st *StallStream)
}

// stallState is the sampling side of a session: streams, their
// attributors, and the reader goroutine.
type stallState struct {
	src     StallSource
	streams []*StallStream
	devIDs  []uint32        // device id of each stream
	attr    [][]*Attributor // per stream, per set
	raw     []*rawPath      // per stream; nil when no decoder fits
	prevEnd []uint64        // start of each stream's last read: the next window's start
	mu      sync.Mutex      // attr (fed from application threads)
	wake    chan struct{}   // a launch completed: read now
	// lastDone is the latest host ns by which completed work is known to
	// have ended (a launch's device end, or a return from a wait).
	lastDone atomic.Uint64
	syncReq  chan chan struct{} // read now and say when done
	ctl      chan stallCtl      // collection starts or stops
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
	errs      map[string]uint64 // failed reads/calculations by what
}

func offReason(o StallOff) pb.StallSamplingOff {
	return pb.StallSamplingOff(o)
}

// openStalls opens one streamer per root device (under s.mu, at start).
func (s *Session) openStalls(src StallSource) {
	st := &stallState{src: src, wake: make(chan struct{}, 1), syncReq: make(chan chan struct{}, 16),
		ctl: make(chan stallCtl, 16), collecting: true, latency: s.cfg.StallLatency,
		stop: make(chan struct{}), done: make(chan struct{}), errs: map[string]uint64{}}
	any := false
	for i, d := range s.devices {
		if d.Parent >= 0 {
			continue // sub-devices: sampled through their root (COMPOSITE)
		}
		var stream *StallStream
		if !s.cfg.Sampling {
			stream = &StallStream{Device: uint64(d.Handle), Off: StallOffDisabled}
		} else {
			stream = src.Open(uint64(d.Handle), s.cfg.SamplingPeriodNs)
		}
		s.reportStallOff(i, d, stream)
		if stream.Off != StallOn {
			s.stallInfo = append(s.stallInfo, stallInfo{dev: i, stream: stream})
			continue
		}
		any = true
		sets := int(stream.SubDevices)
		if sets < 1 {
			sets = 1
		}
		cols := len(stream.Metrics) - 1
		var as []*Attributor
		for set := 0; set < sets; set++ {
			var sub *uint32
			if stream.SubDevices > 1 {
				v := uint32(set)
				sub = &v
			}
			a := NewAttributor(uint32(i+1), sub, cols)
			a.SetOptions(AttributorOptions{SlackNs: uint64(s.cfg.StallLatency), LaunchMarginNs: launchMarginNs})
			as = append(as, a)
		}
		st.raw = append(st.raw, newRawPath(d, stream))
		st.streams = append(st.streams, stream)
		st.devIDs = append(st.devIDs, uint32(i+1))
		st.attr = append(st.attr, as)
		st.prevEnd = append(st.prevEnd, s.now())
		s.stallInfo = append(s.stallInfo, stallInfo{dev: i, stream: stream})
	}
	if any {
		s.stall = st
	}
}

type stallInfo struct {
	dev    int
	stream *StallStream
}

// reportStallOff says once, on stderr, why sampling is off.
func (s *Session) reportStallOff(i int, d Device, st *StallStream) {
	key := fmt.Sprint("stall", st.Off)
	if st.Off == StallOn || st.Off == StallOffDisabled || s.said[key] {
		return
	}
	s.said[key] = true
	switch st.Off {
	case StallOffNoMetrics:
		fmt.Fprintln(s.stderr, "zestall: EU stall sampling is off: the driver exposes no metrics; set ZET_ENABLE_METRICS=1 (default: unset). Kernel timing continues.")
	case StallOffNoGroup:
		fmt.Fprintf(s.stderr, "zestall: EU stall sampling is off on device %d (%s): it has no EuStallSampling metric group (the GPU may not support it, e.g. DG2, or access is denied: sysctl dev.i915.perf_stream_paranoid=0 or dev.xe.observation_paranoid=0). Kernel timing continues.\n", i+1, d.Name)
	default:
		fmt.Fprintf(s.stderr, "zestall: EU stall sampling is off on device %d (%s): the metric streamer could not be opened (%s)%s; another sampling session may be active. Kernel timing continues.\n", i+1, d.Name, ResultName(st.Result), st.Detail)
	}
}

// stallHeader fills the header's per-device sampling description.
func (s *Session) stallHeader(devs []*pb.Device) {
	for _, si := range s.stallInfo {
		if si.dev >= len(devs) {
			continue
		}
		st := si.stream
		ss := &pb.StallSampling{
			Enabled:             st.Off == StallOn,
			OffReason:           offReason(st.Off),
			SamplingPeriodNs:    uint64(st.PeriodNs),
			RequestedPeriodNs:   uint64(s.cfg.SamplingPeriodNs),
			NotifyEveryNReports: st.NotifyReports,
			SubDeviceSets:       st.SubDevices,
		}
		if st.Off != StallOn && st.Off != StallOffDisabled {
			ss.Detail = ResultName(st.Result)
		}
		for _, m := range st.Metrics {
			ss.Metrics = append(ss.Metrics, &pb.Metric{Name: m.Name, Description: m.Description, Units: m.Units, MetricType: m.Type})
		}
		devs[si.dev].StallSampling = ss
	}
}

// stallKernel and stallLaunch feed the attributors (any thread).
func (st *stallState) kernelCreated(id, base, size, from uint64) {
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

// collectionStopped: launches appended from host ns at on are unknown
// until collectionStarted.
func (st *stallState) collectionStopped(at uint64) {
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

// collectionStarted ends the stand-in launches at host ns at. Launches
// appended before a start but still running after it are not covered: see
// README, Known limits.
func (st *stallState) collectionStarted(at uint64) {
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

func (st *stallState) kernelDestroyed(id, until uint64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.live, id)
	for _, as := range st.attr {
		for _, a := range as {
			a.KernelDestroyed(id, until)
		}
	}
}

func (st *stallState) launch(l *pb.Launch) {
	st.mu.Lock()
	for i, as := range st.attr {
		if st.devIDs[i] != l.DeviceId {
			continue
		}
		for _, a := range as {
			if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 {
				// The harvester's untimed launches are never bounded.
				a.LaunchNeverTimed(l.Id, l.KernelId, l.HostAppendNs)
			} else {
				a.LaunchTimed(l.Id, l.KernelId, l.DeviceStartNs, l.DeviceEndNs)
			}
		}
	}
	st.mu.Unlock()
	if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) == 0 {
		st.completed(l.DeviceEndNs)
	} else {
		st.completed(0)
	}
}

// completed notes that work of the device completed by host ns at (0:
// unknown, the wake time is used) and wakes the reader, so that read
// windows fall between launches as often as possible (see stallLoop).
// Any thread; never blocks.
func (st *stallState) completed(at uint64) {
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

// stallLoop is the streamer-reader goroutine: it drains every streamer on
// a timer, on its notification event and after launches complete, and
// never blocks an application thread.
//
// A completion (a launch's times arrived, or the application returned
// from a wait for the device) wakes it twice: at once, and latency later —
// the first read that can hold every sample of the launches completed by
// then (see attribute.go). When the device stays idle for longer than
// that, the second read's window closes between those launches and the
// next ones, which per-launch attribution needs. Settling reads add at
// most one read per read interval (addSettle).
func (s *Session) stallLoop(st *stallState, interval time.Duration) {
	defer close(st.done)
	defer s.guard("the stall reader")
	buf := make([]byte, 8<<20)
	t := time.NewTicker(interval)
	defer t.Stop()
	latency := s.cfg.StallLatency
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
	for {
		begin := time.Now()
		if st.stopAt != 0 && stopAfter.IsZero() && s.harvestSettledBefore(st.stopAt) {
			stopAfter = begin.Add(latency)
			edgeT.Reset(latency)
		}
		for i := range st.streams {
			s.readStream(st, i, buf, !st.collecting)
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
		s.resolveStalls(st, final)
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
		select {
		case <-st.stop:
			final = true
			if st.collecting && latency > 0 {
				// The last samples become visible to a read up to latency
				// after they were taken; the streamer's close would lose
				// them. Exit waits that long, once.
				time.Sleep(latency)
			}
		case <-st.wake:
			if latency > 0 {
				// Settle from when the work ended, not from now: the
				// reader may take the wake late.
				now := s.now()
				done := min(st.lastDone.Load(), now)
				if done == 0 {
					done = now
				}
				at := time.Now().Add(latency - time.Duration(now-done))
				due = addSettle(due, at, interval)
				settle.Stop()
				settle.Reset(time.Until(due[0].at))
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

// control hands an edge to the reader and, if wait, waits (bounded) for
// the read that marks it.
func (st *stallState) control(c stallCtl, wait bool) {
	if wait {
		c.ack = make(chan struct{})
	}
	select {
	case st.ctl <- c:
	case <-st.done:
		return
	case <-time.After(edgeWait):
		return
	}
	if wait {
		select {
		case <-c.ack:
		case <-st.done:
		case <-time.After(edgeWait + st.latency):
		}
	}
}

// harvestSettledBefore: every launch appended before t has its device
// times (no harvester: nothing to wait for).
func (s *Session) harvestSettledBefore(t uint64) bool {
	if h := s.harvest; h != nil {
		return h.SettledBefore(t)
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

// launchMarginNs bounds the error of a launch's device times converted to
// host ns (timestamp tick plus the host/device correlation's uncertainty).
const launchMarginNs = 10_000

// serializedRead reads after a serialized launch completed: once the
// samples it produced can all be visible (latency after its completion),
// so that the window closing now holds all of them and the next one none.
func (st *stallState) serializedRead(latency time.Duration) {
	time.Sleep(latency)
	st.readNow(10 * time.Second)
}

// readNow makes the reader read every streamer and waits (bounded) until
// it has. Called when a module is destroyed: its instruction addresses may
// be given to the next module, and samples taken before must be read
// while the address still means the old kernel.
func (st *stallState) readNow(timeout time.Duration) bool {
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
func (s *Session) readStream(st *stallState, i int, buf []byte, discard bool) {
	stream := st.streams[i]
	for {
		// The samples a read delivers were taken after the previous read
		// began and before this read returned: the window runs from the
		// previous read's start to this read's end (a preempted reader
		// widens windows, it never misplaces samples).
		begin := s.now()
		n, dropped, err := st.src.Read(stream, buf)
		end := s.now()
		if dropped {
			st.warn++
		}
		if err != nil {
			st.errs[fmt.Sprintf("stall reads failed (%s)", ResultName(uint32(resultOf(err))))]++
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
			// read's samples were all taken after that.
			st.prevEnd[i] = begin
			return
		}
		st.read += uint64(n / 64)
		if discard {
			st.discarded.Add(uint64(n / 64))
			st.prevEnd[i] = begin
			if n < len(buf) {
				return
			}
			continue
		}
		sets, flagged, err := st.decode(i, buf[:n])
		if flagged {
			st.flagged++
		}
		if err != nil {
			st.errs[fmt.Sprintf("stall calculations failed (%s)", ResultName(uint32(resultOf(err))))]++
		}
		mc := len(stream.Metrics)
		st.mu.Lock()
		for set, vals := range sets {
			if set < len(st.attr[i]) && mc > 0 {
				// IP 0 rows (driver padding) are skipped by the attributor.
				st.attr[i][set].AddWindowValues(st.prevEnd[i], end, vals, stream.IPIndex)
			}
		}
		st.mu.Unlock()
		st.prevEnd[i] = begin
		if n < len(buf) {
			return
		}
	}
}

// resolveStalls writes the windows whose launches are all known.
func (s *Session) resolveStalls(st *stallState, final bool) {
	pendingBefore := ^uint64(0)
	if h := s.harvest; h != nil {
		pendingBefore = h.PendingBefore()
	}
	var recs []*pb.Record
	st.mu.Lock()
	for _, as := range st.attr {
		for _, a := range as {
			recs = append(recs, a.Resolve(pendingBefore, final)...)
		}
	}
	st.mu.Unlock()
	for _, r := range recs {
		s.emitBlocking(r)
	}
}

// counters adds the sampling totals to the trailer.
func (st *stallState) counters(c *pb.Counters) {
	st.mu.Lock()
	defer st.mu.Unlock()
	c.StallRecordsRead = st.read
	c.StallDropWarnings = st.warn
	c.StallDropFlagRecords = st.flagged
	c.StallRecordsDiscardedStopped = st.discarded.Load()
	for _, as := range st.attr {
		for _, a := range as {
			t := a.Totals()
			c.StallSamplesAttributed += t.AttributedRows
			c.StallSamplesUnattributed += t.UnattributedRows
		}
	}
	for what, n := range st.errs {
		c.Lost = append(c.Lost, &pb.Loss{What: what, Count: n})
	}
}

// resultOf extracts a Level-Zero result code from an error, if it has one.
func resultOf(err error) uint32 {
	if r, ok := err.(interface{ Code() uint32 }); ok {
		return r.Code()
	}
	return 0
}

// newRawPath picks the raw decoder for a stream's device, from its PCI id
// and the metric names the driver reported; nil when none fits.
func newRawPath(d Device, st *StallStream) *rawPath {
	var p eustall.Platform
	switch platformName(d.PCIDeviceID) {
	case "PVC":
		p = eustall.XeHPC
	case "BMG", "LNL":
		p = eustall.Xe2
	default:
		return nil
	}
	names := make([]string, len(st.Metrics))
	for i, m := range st.Metrics {
		names[i] = m.Name
	}
	dec, err := eustall.NewDecoder(p, names)
	if err != nil {
		return nil
	}
	return &rawPath{dec: dec}
}

// decode turns one read into per-set values: with the driver's calculation
// (zetMetricGroupCalculateMultipleMetricValuesExp, the documented path),
// checked against zestall's own raw decoder for the first reads; once they
// agreed rawChecks times, with the raw decoder alone (no copy into C, no
// driver call). A disagreement is counted and ends the raw path.
func (st *stallState) decode(i int, raw []byte) ([][]uint64, bool, error) {
	stream := st.streams[i]
	rp := st.raw[i]
	if rp != nil && rp.trusted {
		return rp.aggregate(raw, int(stream.SubDevices))
	}
	sets, flagged, err := st.src.Calculate(stream, raw)
	if rp == nil || rp.failed || err != nil {
		return sets, flagged, err
	}
	mine, mflag, merr := rp.aggregate(raw, int(stream.SubDevices))
	if merr != nil || mflag != flagged || !sameSets(mine, sets) {
		rp.failed = true
		st.errs["raw stall decoder disagreed with the driver's calculation (the driver's is used)"]++
		return sets, flagged, err
	}
	if rp.agreed++; rp.agreed >= rawChecks {
		rp.trusted = true
	}
	return sets, flagged, err
}

func (rp *rawPath) aggregate(raw []byte, subDevices int) ([][]uint64, bool, error) {
	if subDevices > 1 || eustall.IsComposite(raw) {
		return rp.dec.AggregateComposite(raw, subDevices)
	}
	v, dropped, err := rp.dec.Aggregate(raw)
	if err != nil {
		return nil, false, err
	}
	return [][]uint64{v}, dropped, nil
}

// sameSets compares per-set values; empty sets equal missing ones (the
// driver reports every set, even those without data).
func sameSets(a, b [][]uint64) bool {
	n := max(len(a), len(b))
	for s := 0; s < n; s++ {
		var x, y []uint64
		if s < len(a) {
			x = a[s]
		}
		if s < len(b) {
			y = b[s]
		}
		if len(x) != len(y) {
			return false
		}
		for k := range x {
			if x[k] != y[k] {
				return false
			}
		}
	}
	return true
}
