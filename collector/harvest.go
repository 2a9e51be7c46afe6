package collector

import (
	"sort"
	"sync"
	"time"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// SlotKind is the kind of a launch-path slot (mirrors ZL_SLOT_* in
// cgo/launch.h).
type SlotKind uint8

const (
	SlotLaunch  SlotKind = 1 // a kernel appended to a command list
	SlotExec    SlotKind = 2 // a regular command list executed on a queue
	SlotReset   SlotKind = 3 // zeCommandListReset
	SlotDestroy SlotKind = 4 // zeCommandListDestroy
	SlotAppTS   SlotKind = 5 // an application timestamp event, read on its thread
	SlotAppGone SlotKind = 6 // an application timestamp event is being destroyed
)

// Slot flags (mirror ZL_FLAG_*).
const (
	SlotFlagOurs      = 1  // the event is zestall's, swapped in
	SlotFlagAppEvent  = 2  // the event is the application's timestamp event
	SlotFlagImmediate = 4  // immediate command list
	SlotFlagNoEvent   = 8  // no timestamp event; Reason says why
	SlotFlagSerial    = 16 // ran alone (ZESTALL_SERIALIZE=1)
	SlotFlagStopped   = 32 // an execution while collection is stopped
)

// Slot is one event of the launch path, recorded in C on an application
// thread and drained by the harvester.
type Slot struct {
	Kind       SlotKind
	HostNs     uint64 // CLOCK_MONOTONIC_RAW at the append or execute
	List       uint64 // command list handle
	Event      uint64 // event carrying the timestamps (0 if none)
	Device     uint64 // device handle of the list
	Context    uint64 // context handle of the list
	Queue      uint64 // SlotExec: queue handle
	KernelID   uint32
	ListID     uint32
	GroupCount [3]uint32
	GroupSize  [3]uint16
	LaunchKind uint8 // pb.LaunchKind
	Flags      uint8
	Reason     uint8           // pb.NoTimestampReason when SlotFlagNoEvent
	TS         KernelTimestamp // SlotAppTS: the event's timestamps
}

// KernelTimestamp is what zeEventQueryKernelTimestamp returned, in device
// ticks masked to kernelTimestampValidBits.
type KernelTimestamp struct {
	Start, End, ContextStart, ContextEnd uint64
}

// TimestampSource is the Level-Zero access the harvester needs; package
// cgo implements it, tests use a fake.
type TimestampSource interface {
	// Enable switches timestamp injection on the launch path on or off.
	Enable(on bool)
	// WakeOnSync makes the application's synchronisation calls call
	// Session.SyncPoint (stall sampling on).
	WakeOnSync(on bool)
	// Serialize makes every launch complete, and the streamers be read,
	// before the next launch of its device proceeds.
	Serialize(on bool)
	// Drain appends the pending slots of every application thread.
	Drain(dst []Slot) []Slot
	// Dropped counts slots lost because a thread's ring was full.
	Dropped() uint64
	// SerializeTimeouts counts serialized launches whose completion was not
	// awaited (a wait that would have blocked the application).
	SerializeTimeouts() uint64
	// KernelTimestamp reads an event's timestamps; ready is false while
	// the event has not signalled.
	KernelTimestamp(event uint64) (ts KernelTimestamp, ready bool, err error)
	// ReleaseEvent resets one of zestall's events and makes it reusable.
	ReleaseEvent(context, event uint64)
	// GlobalTimestamps is zeDeviceGetGlobalTimestamps.
	GlobalTimestamps(device uint64) (hostNs, ticks uint64, err error)
	// DestroyContextPools destroys zestall's events in a context that the
	// application is about to destroy.
	DestroyContextPools(context uint64)
}

// devClock converts one device's ticks to host ns.
type devClock struct {
	id          uint32
	hz          uint64
	kernelMask  uint64
	host0, tick uint64 // a zeDeviceGetGlobalTimestamps pair
	synced      time.Time
}

// toHost converts a masked kernel tick value to host ns: the occurrence
// of k closest after ref - 100 ms (ref: a host time known to precede the
// kernel, e.g. its append), so counter wraps are undone.
func (c *devClock) toHost(k, refNs uint64) (uint64, uint64) {
	refTicks := int64(c.tick) + int64(float64(int64(refNs-c.host0))*float64(c.hz)/1e9)
	base := uint64(refTicks - int64(c.hz/10))
	ticks := base + ((k - base) & c.kernelMask)
	host := int64(c.host0) + int64(float64(int64(ticks-c.tick))*1e9/float64(c.hz))
	return uint64(host), ticks
}

type pendingLaunch struct {
	rec     *pb.Launch
	event   uint64
	context uint64
	ours    bool // release the event after reading (immediate lists)
	app     bool // the application's event: read only on its threads (SlotAppTS)
	ref     uint64
	dev     *devClock
	// stopped: an execution while collection was stopped. It takes its
	// reading of the event like any other (so that no recorded execution
	// gets its times) and is then dropped, not written.
	stopped bool
}

type template struct {
	slot Slot
}

type listState struct {
	templates []*template
	execs     uint32
}

// harvester turns launch slots into Launch records: it reads each
// launch's timestamps once its event signalled, converts them to host ns,
// and recycles zestall's events. It runs on one goroutine; Flush may also
// be called from the exit path (under the same mutex).
type harvester struct {
	mu       sync.Mutex
	src      TimestampSource
	emit     func(*pb.Record)
	clocks   map[uint64]*devClock // device handle
	lists    map[uint32]*listState
	queues   map[uint64]uint64
	pending  map[uint64][]*pendingLaunch // by event
	evOrder  []uint64                    // events with pending launches, oldest first
	npending int
	lastTS   map[uint64]KernelTimestamp // event -> last timestamps harvested
	nextID   uint64
	buf      []Slot
	seen     uint64
	timed    uint64
	noTS     map[pb.NoTimestampReason]uint64
	newClock func(dev uint64) *devClock
	now      func() uint64    // host ns; a reading cannot lie in the future
	onLaunch func(*pb.Launch) // every finished launch record (stall attribution)
	drainNs  uint64           // host ns at the start of the last drain
}

func newHarvester(src TimestampSource, emit func(*pb.Record), newClock func(uint64) *devClock) *harvester {
	return &harvester{
		src: src, emit: emit, newClock: newClock,
		clocks: map[uint64]*devClock{}, lists: map[uint32]*listState{}, queues: map[uint64]uint64{},
		pending: map[uint64][]*pendingLaunch{},
		lastTS:  map[uint64]KernelTimestamp{}, noTS: map[pb.NoTimestampReason]uint64{},
		now: monotonicRawNs,
	}
}

func (h *harvester) clock(dev uint64) *devClock {
	c := h.clocks[dev]
	if c == nil {
		c = h.newClock(dev)
		h.clocks[dev] = c
	}
	if c != nil && time.Since(c.synced) > time.Second {
		if host, ticks, err := h.src.GlobalTimestamps(dev); err == nil {
			c.host0, c.tick, c.synced = host, ticks, time.Now()
		}
	}
	return c
}

// poll drains new slots and harvests what has completed. It returns the
// number of slots drained and of launches still pending.
func (h *harvester) poll() (drained, pending int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	drained = h.drainLocked()
	h.harvestLocked(false)
	return drained, h.npending
}

func (h *harvester) drainLocked() int {
	h.drainNs = h.now()
	h.buf = h.src.Drain(h.buf[:0])
	// Slots of different threads: process in time order, so an execute
	// sees the appends that preceded it.
	sort.SliceStable(h.buf, func(i, j int) bool { return h.buf[i].HostNs < h.buf[j].HostNs })
	for i := range h.buf {
		h.slot(&h.buf[i])
	}
	return len(h.buf)
}

func (h *harvester) slot(s *Slot) {
	switch s.Kind {
	case SlotLaunch:
		if s.Flags&SlotFlagImmediate != 0 {
			h.addPending(s, s.HostNs, 0, s.Queue, false)
			return
		}
		ls := h.lists[s.ListID]
		if ls == nil {
			ls = &listState{}
			h.lists[s.ListID] = ls
		}
		ls.templates = append(ls.templates, &template{slot: *s})
	case SlotExec:
		ls := h.lists[s.ListID]
		if ls == nil {
			return
		}
		if s.Flags&SlotFlagStopped != 0 {
			for _, t := range ls.templates {
				if t.slot.HostNs <= s.HostNs && t.slot.Event != 0 && t.slot.Flags&SlotFlagOurs != 0 {
					h.addPendingLaunch(&pendingLaunch{rec: &pb.Launch{CommandListId: uint64(s.ListID)},
						event: t.slot.Event, context: t.slot.Context, dev: h.clock(t.slot.Device), ref: s.HostNs, stopped: true})
				}
			}
			return
		}
		for _, t := range ls.templates {
			if t.slot.HostNs <= s.HostNs {
				h.addPending(&t.slot, s.HostNs, ls.execs, s.Queue, s.Flags&SlotFlagSerial != 0)
			}
		}
		ls.execs++
	case SlotReset, SlotDestroy:
		h.endList(s.ListID)
	case SlotAppTS:
		h.reading(s.Event, s.TS, nil, false)
	case SlotAppGone:
		h.reading(s.Event, KernelTimestamp{}, nil, true)
	}
}

func (h *harvester) queueID(q uint64) uint64 {
	if q == 0 {
		return 0
	}
	id, ok := h.queues[q]
	if !ok {
		id = uint64(len(h.queues) + 1)
		h.queues[q] = id
	}
	return id
}

// addPending turns a launch slot into a pending Launch record. For a
// regular list, s is the append and ref, exec and execSerial describe the
// execution (its time, index, and whether it ran serialized).
func (h *harvester) addPending(s *Slot, ref uint64, exec uint32, queue uint64, execSerial bool) {
	h.nextID++
	h.seen++
	c := h.clock(s.Device)
	rec := &pb.Launch{
		Id: h.nextID, KernelId: uint64(s.KernelID), CommandListId: uint64(s.ListID),
		QueueId: h.queueID(queue), Kind: pb.LaunchKind(s.LaunchKind),
		GroupCountX: s.GroupCount[0], GroupCountY: s.GroupCount[1], GroupCountZ: s.GroupCount[2],
		GroupSizeX: uint32(s.GroupSize[0]), GroupSizeY: uint32(s.GroupSize[1]), GroupSizeZ: uint32(s.GroupSize[2]),
		HostAppendNs: s.HostNs, ExecutionIndex: exec,
	}
	if c != nil {
		rec.DeviceId = c.id
	}
	if s.Flags&SlotFlagImmediate != 0 {
		rec.Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_IMMEDIATE)
	}
	if s.Flags&SlotFlagOurs != 0 {
		rec.Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_TIMESTAMP_SWAPPED)
	}
	if s.Flags&SlotFlagAppEvent != 0 {
		rec.Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_APP_EVENT)
	}
	if s.Flags&SlotFlagSerial != 0 || execSerial {
		rec.Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_SERIALIZED)
	}
	if s.Flags&SlotFlagNoEvent != 0 || s.Event == 0 || c == nil {
		reason := pb.NoTimestampReason(s.Reason)
		if reason == 0 {
			reason = pb.NoTimestampReason_NO_TIMESTAMP_REASON_UNSUPPORTED
		}
		h.finishNoTS(rec, reason)
		return
	}
	h.addPendingLaunch(&pendingLaunch{
		rec: rec, event: s.Event, context: s.Context, dev: c, ref: ref,
		ours: s.Flags&SlotFlagOurs != 0 && s.Flags&SlotFlagImmediate != 0,
		app:  s.Flags&SlotFlagAppEvent != 0,
	})
}

func (h *harvester) addPendingLaunch(p *pendingLaunch) {
	if len(h.pending[p.event]) == 0 {
		h.evOrder = append(h.evOrder, p.event)
	}
	h.pending[p.event] = append(h.pending[p.event], p)
	h.npending++
}

// setPending replaces the launches pending on ev.
func (h *harvester) setPending(ev uint64, ps []*pendingLaunch) {
	h.npending += len(ps) - len(h.pending[ev])
	if len(ps) == 0 {
		delete(h.pending, ev)
		return
	}
	h.pending[ev] = ps
}

func (h *harvester) finishNoTS(rec *pb.Launch, reason pb.NoTimestampReason) {
	if rec.Id == 0 {
		return // an execution while stopped (ids start at 1)
	}
	rec.Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
	rec.NoTimestampReason = reason
	h.noTS[reason]++
	if h.onLaunch != nil {
		h.onLaunch(rec)
	}
	h.emit(&pb.Record{Kind: &pb.Record_Launch{Launch: rec}})
}

// harvestLocked reads the events of pending launches. Several pending
// launches may share an event (a regular list executed again, or an
// application event reused): a new reading belongs to the latest launch
// that began before it; earlier ones were overwritten. With final, launches
// whose event never signalled are written without timestamps.
func (h *harvester) harvestLocked(final bool) {
	if h.npending == 0 {
		h.evOrder = h.evOrder[:0]
		return
	}
	events := h.evOrder
	h.evOrder = nil
	for _, ev := range events {
		ps := h.pending[ev]
		if len(ps) == 0 {
			continue
		}
		if ps[0].app {
			// Never query an application event from here: it may be gone.
			if final {
				h.reading(ev, KernelTimestamp{}, nil, true)
			}
		} else if ts, ready, err := h.src.KernelTimestamp(ev); ready || err != nil {
			h.reading(ev, ts, err, false)
		} else if final {
			h.reading(ev, KernelTimestamp{}, nil, true)
		}
		if len(h.pending[ev]) > 0 {
			h.evOrder = append(h.evOrder, ev)
		}
	}
}

// reading applies one reading of event ev to the launches pending on it.
// gone: the event will not signal for them any more (destroyed, or exit).
func (h *harvester) reading(ev uint64, ts KernelTimestamp, err error, gone bool) {
	ps := h.pending[ev]
	if len(ps) == 0 {
		return
	}
	var keep []*pendingLaunch
	finishAll := func(reason pb.NoTimestampReason) {
		h.setPending(ev, nil)
		for _, p := range ps {
			h.release(p)
			h.finishNoTS(p.rec, reason)
		}
	}
	switch {
	case err != nil:
		finishAll(pb.NoTimestampReason_NO_TIMESTAMP_REASON_QUERY_FAILED)
		return
	case gone:
		finishAll(pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED)
		return
	}
	if last, seen := h.lastTS[ev]; seen && last == ts {
		return // the reading of a launch already harvested
	}
	// The reading belongs to the latest launch whose reference time
	// precedes the kernel's start; earlier ones were overwritten. A start
	// in the future means the reading is older than the launch (the
	// masked counter placed it one wrap later).
	var owner *pendingLaunch
	var startNs uint64
	limit := h.now() + 10_000_000
	for _, p := range ps {
		s, _ := p.dev.toHost(ts.Start, p.ref)
		if s+1000 >= p.ref && s <= limit && (owner == nil || p.ref >= owner.ref) {
			owner, startNs = p, s
		}
	}
	if owner == nil {
		return // an older reading: the pending launches have not run yet
	}
	h.lastTS[ev] = ts
	for _, p := range ps {
		if p != owner && p.ref >= owner.ref {
			keep = append(keep, p)
		}
	}
	h.setPending(ev, keep)
	for _, p := range ps {
		switch {
		case p == owner:
			h.finishTimed(p, ts, startNs)
		case p.ref < owner.ref:
			h.release(p)
			h.finishNoTS(p.rec, pb.NoTimestampReason_NO_TIMESTAMP_REASON_OVERWRITTEN)
		}
	}
}

func (h *harvester) finishTimed(p *pendingLaunch, ts KernelTimestamp, startNs uint64) {
	if p.stopped {
		h.release(p)
		return
	}
	c := p.dev
	_, startTicks := c.toHost(ts.Start, p.ref)
	dur := (ts.End - ts.Start) & c.kernelMask
	if ts.End < ts.Start {
		p.rec.Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_WRAPPED)
	}
	endTicks := startTicks + dur
	p.rec.DeviceStartNs = startNs
	p.rec.DeviceEndNs = uint64(int64(c.host0) + int64(float64(int64(endTicks-c.tick))*1e9/float64(c.hz)))
	h.timed++
	h.release(p)
	if h.onLaunch != nil {
		h.onLaunch(p.rec)
	}
	h.emit(&pb.Record{Kind: &pb.Record_Launch{Launch: p.rec}})
}

func (h *harvester) release(p *pendingLaunch) {
	if p.ours {
		delete(h.lastTS, p.event)
		h.src.ReleaseEvent(p.context, p.event)
		p.ours = false
	}
}

// endList: a regular list was reset or destroyed. Its pending executions
// must have completed (the application synchronised); read them now, then
// recycle the list's events.
func (h *harvester) endList(id uint32) {
	ls := h.lists[id]
	if ls == nil {
		return
	}
	// The list's events may still hold unread executions.
	for _, t := range ls.templates {
		if ps := h.pending[t.slot.Event]; len(ps) > 0 && !ps[0].app {
			if ts, ready, err := h.src.KernelTimestamp(t.slot.Event); ready || err != nil {
				h.reading(t.slot.Event, ts, err, false)
			}
		}
	}
	for _, t := range ls.templates {
		ev := t.slot.Event
		ps := h.pending[ev]
		if len(ps) == 0 || ps[0].app {
			// Launches signalling an application event stay pending:
			// their reading comes from the application's own threads.
			continue
		}
		var keep []*pendingLaunch
		for _, p := range ps {
			if p.rec.CommandListId == uint64(id) {
				h.finishNoTS(p.rec, pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED)
			} else {
				keep = append(keep, p)
			}
		}
		h.setPending(ev, keep)
	}
	for _, t := range ls.templates {
		if t.slot.Flags&SlotFlagOurs != 0 {
			delete(h.lastTS, t.slot.Event)
			h.src.ReleaseEvent(t.slot.Context, t.slot.Event)
		}
	}
	delete(h.lists, id)
}

// contextDestroying harvests everything of a context the application is
// about to destroy, then destroys zestall's events in it.
func (h *harvester) contextDestroying(ctx uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drainLocked()
	h.harvestLocked(false)
	for ev, ps := range h.pending {
		var keep []*pendingLaunch
		for _, p := range ps {
			if p.context == ctx {
				p.ours = false // the pools go away with the context
				h.finishNoTS(p.rec, pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED)
			} else {
				keep = append(keep, p)
			}
		}
		h.setPending(ev, keep)
	}
	for id, ls := range h.lists {
		if len(ls.templates) > 0 && ls.templates[0].slot.Context == ctx {
			delete(h.lists, id)
		}
	}
	for ev := range h.lastTS {
		delete(h.lastTS, ev) // event handles of the context become invalid
	}
	h.src.DestroyContextPools(ctx)
}

// pendingBefore is a host time before which every launch is final: the
// earliest reference time of a pending launch, and at most the last drain
// minus a margin for slots published after it (a launch's slot is
// published at the end of its append call).
func (h *harvester) pendingBefore() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	t := h.drainNs
	if t > 10_000_000 {
		t -= 10_000_000
	} else {
		t = 0
	}
	for _, ps := range h.pending {
		for _, p := range ps {
			if p.ref < t {
				t = p.ref
			}
		}
	}
	return t
}

// settledBefore says whether every launch appended before t has been
// drained and harvested (a stop edge then needs no drain of the stall
// streamers).
func (h *harvester) settledBefore(t uint64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.drainNs < t {
		return false
	}
	for _, ps := range h.pending {
		for _, p := range ps {
			if p.ref < t {
				return false
			}
		}
	}
	return true
}

// final harvests everything at exit.
func (h *harvester) final() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drainLocked()
	h.harvestLocked(false)
	h.harvestLocked(true)
}

// counters fills the launch counters of the trailer.
func (h *harvester) counters(c *pb.Counters) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c.LaunchesSeen = h.seen
	c.LaunchesTimed = h.timed
	var reasons []pb.NoTimestampReason
	for r := range h.noTS {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool { return reasons[i] < reasons[j] })
	for _, r := range reasons {
		c.LaunchesWithoutTimestamp = append(c.LaunchesWithoutTimestamp, &pb.ReasonCount{Reason: r, Count: h.noTS[r]})
	}
	if n := h.src.SerializeTimeouts(); n > 0 {
		c.Lost = append(c.Lost, &pb.Loss{What: "serialized launches not awaited (2 s timeout)", Count: n})
	}
	if d := h.src.Dropped(); d > 0 {
		c.Lost = append(c.Lost, &pb.Loss{What: "launch slots (per-thread ring full)", Count: d})
	}
}
