package timing

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
	"github.com/zestall/zestall/ze"
)

// SlotKind, the Slot* kinds and flags and EventRef are generated from
// cgo/abi.h (abi_timing.go).

// Slot is one event of the launch path, recorded in C on an application
// thread and drained by the harvester. It has cgo/launch.h's zl_slot_t
// layout, field for field (package cgo asserts every offset and the size
// at compile time): the launch path's drain writes a batch of them
// straight into the harvester's buffer, with no conversion.
type Slot struct {
	HostNs     uint64 // CLOCK_MONOTONIC_RAW at the append or execute
	List       uint64 // command list handle (SlotAppTS: TS().Start)
	Event      uint64 // event carrying the timestamps (0 if none)
	Device     uint64 // device handle of the list (SlotAppTS: TS().End)
	Context    uint64 // context handle of the list (SlotAppTS: TS().ContextStart)
	Queue      uint64 // SlotExec: queue handle (SlotAppTS: TS().ContextEnd)
	KernelID   uint32
	ListID     uint32
	GroupCount [3]uint32
	GroupSize  [3]uint16
	Kind       SlotKind
	LaunchKind uint8 // pb.LaunchKind
	Flags      uint8
	Reason     uint8 // pb.NoTimestampReason when SlotFlagNoEvent
	// SlotLaunch: the code the launch ran, 0 the kernel's own, n the
	// module's copy n (launch separation by copies; pb.Launch.code_copy).
	CodeCopy uint16
	// SlotLaunch on a regular list: 1 + the index of its event among the
	// list's events that a snapshot copies (0: none).
	EvIndex uint32
	// SlotLaunch: the SYCL task open on the appending thread and its
	// source location (0: none), copied into Launch.sycl_task_id and
	// sycl_location_id.
	SyclLocation uint32
	// SlotExec: the snapshot that copies this execution's times (0:
	// none, the events are read instead).
	Snapshot uint64
	// SlotExec: the snapshot that copies the previous execution's
	// times, which had none (0: none).
	SnapshotPrev uint64
	// SlotExec: the list's submission number (see Source.ListSubmits).
	Seq      uint64
	SyclTask uint64 // SlotLaunch: see SyclLocation
}

// TS is a SlotAppTS slot's timestamps, which it carries in the fields
// that name a list's handles (it has no list).
func (s *Slot) TS() KernelTimestamp {
	return KernelTimestamp{Start: s.List, End: s.Device, ContextStart: s.Context, ContextEnd: s.Queue}
}

// KernelTimestamp is what zeEventQueryKernelTimestamp returned, in device
// ticks masked to kernelTimestampValidBits.
type KernelTimestamp struct {
	Start, End, ContextStart, ContextEnd uint64
}

// DrainBatch is the most slots one Source.Drain returns: 4096 amortise
// a pass's calls as well as 8192 did, and the buffer of that many slots
// (the harvester's, which package cgo's drain fills in place) is live
// for the whole run.
const DrainBatch = 4096

// EventReading is one event's state, read in bulk (Source.KernelTimestamps).
// It has cgo/launch.h's zl_event_reading_t layout (package cgo asserts
// it): the launch path's reads are written straight into the harvester's
// batch, with no conversion. The zero value is an event not signalled yet.
type EventReading struct {
	TS    KernelTimestamp
	Ready bool // the event signalled: TS holds its times
	_     [3]byte
	// Failed: the read failed with this result (0: it did not; an event
	// not signalled yet is no failure).
	Failed ze.Result
}

// Err is the read's failure as an error (nil: none).
func (r *EventReading) Err() error {
	if r.Failed == 0 {
		return nil
	}
	return r.Failed
}

// Source is the Level-Zero access the harvester needs; package
// cgo implements it, tests use a fake.
type Source interface {
	// Enable switches timestamp injection on the launch path on or off.
	Enable(on bool)
	// WakeOnSync makes the application's synchronisation calls call
	// Session.SyncPoint (stall sampling on).
	WakeOnSync(on bool)
	// Serialize makes every launch complete, and the streamers be read,
	// before the next launch of its device proceeds.
	Serialize(on bool)
	// Drain appends pending slots of the application threads, at most
	// DrainBatch per call, and says the HostNs of the oldest slot left
	// (math.MaxUint64: none). It may fill only dst's spare capacity
	// (package cgo's drain writes the slots there in place; the
	// harvester's batch has room for DrainBatch).
	Drain(dst []Slot) (slots []Slot, oldestLeft uint64)
	// Dropped counts what was lost because a thread's ring was full:
	// launches (passed untouched) and other slots.
	Dropped() (launches, slots uint64)
	// SerializeTimeouts counts serialized launches whose completion was not
	// awaited (a wait that would have blocked the application).
	SerializeTimeouts() uint64
	// ListsWithoutID counts command lists created after the 2^32-1st,
	// which get no id (an id is never given twice) and are not tracked:
	// their launches have no times (UNSUPPORTED), their executions no
	// records.
	ListsWithoutID() uint64
	// WaitOnFullRing makes a launch whose thread's ring is full wait for
	// the harvester (on, ZESTALL_RING_FULL=wait) instead of passing
	// untouched and being counted lost (off).
	WaitOnFullRing(on bool)
	// RingWaits says how many launches waited for room in their ring,
	// and for how long in all: the time zestall held the application.
	RingWaits() (launches uint64, wait time.Duration)
	// KernelTimestamps reads the timestamps of events, in one call for the
	// batch, and appends one reading per event to dst.
	KernelTimestamps(events []uint64, dst []EventReading) []EventReading
	// KernelTimestampsReset is KernelTimestamps for zestall's events that
	// each carry one launch's times (immediate lists), and resets each
	// event whose reading is final (Ready, or Err) right after its read,
	// while its memory is in the cache: ReturnEvents then makes it
	// reusable without a second visit. A reading the caller judges not
	// to be its launch's is thus reset too: the event signals again when
	// that launch's kernel completes.
	KernelTimestampsReset(events []uint64, dst []EventReading) []EventReading
	// ReleaseEvents resets zestall's events and makes them reusable.
	ReleaseEvents(refs []EventRef)
	// ReturnEvents makes zestall's events that KernelTimestampsReset
	// reset reusable.
	ReturnEvents(refs []EventRef)
	// GlobalTimestamps is zeDeviceGetGlobalTimestamps.
	GlobalTimestamps(device uint64) (hostNs, ticks uint64, err error)
	// DestroyContextPools destroys zestall's events in a context that the
	// application is about to destroy.
	DestroyContextPools(context uint64)
	// SnapshotResults appends the times a snapshot copied for one
	// execution of a regular list (one per event of the list, in order);
	// ready is false while the copy has not completed.
	SnapshotResults(snapshot uint64, dst []KernelTimestamp) (ts []KernelTimestamp, ready bool, err error)
	// SnapshotRelease makes a snapshot reusable once read.
	SnapshotRelease(snapshot uint64)
	// ListSubmits is the number of submissions of a regular list so far,
	// counted before each reaches the driver.
	ListSubmits(list uint64) uint64
}

// TimestampCopier is what a Source offers when the device can copy the
// kernel timestamps of a batch of events into host memory itself
// (package cgo: cgo/timestamp_copies.c, docs/level-zero-loader.md §8.8
// "Copying timestamps on the device"). The harvester then reads the
// events of immediate lists' launches that way, a batch per (context,
// device) and pass, and polls one copy instead of querying each event on
// the host; without it (a Source that does not implement it, or
// UseCopies(false)) every event is queried on the host.
type TimestampCopier interface {
	// CopyTimestamps starts a copy of events (zestall's, of context,
	// appended on device; at most CopyMaxEvents), which waits for them
	// to signal, and returns it (status CopyStarted) or says why not.
	CopyTimestamps(context, device uint64, events []uint64) (copy uint64, status CopyStatus)
	// CopyResults appends the copy's n readings to dst once it completed
	// (ready; the copy is then reusable), waiting for it at most wait. An
	// error: the copy failed, its events are to be read on the host.
	CopyResults(copy uint64, n int, dst []EventReading, wait time.Duration) ([]EventReading, bool, error)
	// CopyAbandon gives up a copy in flight: its results are not wanted.
	CopyAbandon(copy uint64)
}

// Clock converts one device's ticks to host ns.
type Clock struct {
	device     uint64 // its handle (set by Harvester.clock)
	id         uint32
	hz         uint64
	kernelMask uint64
	// nsPerTick and ticksPerNs are 1e9/hz and hz/1e9, computed once: the
	// conversions of every launch's times multiply rather than divide
	// (the divisions' results were the instructions perf annotate found
	// slowest in harvestImmediate).
	nsPerTick, ticksPerNs float64
	host0, tick           uint64 // a zeDeviceGetGlobalTimestamps pair
	synced                time.Time
	checked               uint64 // the Harvester's pass that last looked at synced
}

// toHost converts a masked kernel tick value to host ns: the occurrence
// of k closest after ref - 100 ms (ref: a host time known to precede the
// kernel, e.g. its append), so counter wraps are undone.
func (c *Clock) toHost(k, refNs uint64) (uint64, uint64) {
	refTicks := int64(c.tick) + int64(float64(int64(refNs-c.host0))*c.ticksPerNs)
	base := uint64(refTicks - int64(c.hz/10))
	ticks := base + ((k - base) & c.kernelMask)
	return c.hostNs(ticks), ticks
}

// hostNs converts an unmasked tick value to host ns.
func (c *Clock) hostNs(ticks uint64) uint64 {
	return uint64(int64(c.host0) + int64(float64(int64(ticks-c.tick))*c.nsPerTick))
}

// pendingLaunch is a launch waiting for its times. It is a value: in the
// FIFO of an execution (pendingExec.launches, reused storage) or, for
// events several launches may share, behind a pointer in Harvester.pending.
type pendingLaunch struct {
	index   uint32 // in a pendingExec: its result in the snapshot
	rec     stream.Launch
	event   uint64
	context uint64
	ours    bool       // release the event after reading (immediate lists)
	app     bool       // the application's event: read only on its threads (SlotAppTS)
	ls      *listState // regular list: read its events only when every submission was seen
	until   uint64     // a later execution without a copy of this one began here (0: none)
	ref     uint64
	dev     *Clock
	// stopped: an execution while collection was stopped. It takes its
	// reading of the event like any other (so that no recorded execution
	// gets its times) and is then dropped, not written.
	stopped bool
}

type listState struct {
	templates []template // the list's launches, in append order
	// id, device, context: the list's, which its every launch slot
	// carries (the launch path takes all three from the list's one entry
	// in its map of lists: cgo/launch.c's prologue), held once here.
	id              uint32
	device, context uint64
	execs           uint32
	handle          uint64 // the command list
	seq             uint64 // the submission number of the last execution seen
	inflight        int    // executions whose snapshot is not read yet
	ended           bool   // reset or destroyed: its events go back once inflight is 0
	dead            bool   // its context is gone: nothing to give back
	// reads: per template (same index), the launch of the list's latest
	// execution without a snapshot that waits for its event, read in
	// bulk by harvestReads (the usual record, execute, synchronise,
	// reset): values in storage reused with the list, no heap object and
	// no map entry per launch. nreads of them wait, all of one execution
	// (previousExec moves them out before the next one's wait): readRef
	// is that execution's reference time, readExec its index, readQueue
	// its queue's id, readSerial whether it ran serialized, readDev the
	// clock of the list's device; queued: the list is in
	// Harvester.readLists.
	reads      []listRead
	nreads     int
	readRef    uint64
	readQueue  uint64
	readDev    *Clock
	readExec   uint32
	readSerial bool
	queued     bool
}

// template is a launch appended to a regular list, as its Slot gave it:
// the fields a record or a wait takes from it, not those of a Slot that a
// launch on a regular list leaves empty or that its list holds (the list's
// handle, id, device and context, the queue, an execution's snapshots and
// submission number). A list holds one per appended launch for as long
// as it lives, and one list per thread may end while the next fills: 64
// bytes rather than a 120-byte Slot was 1.3 MB of the peak live heap with
// 4 threads recording lists of 4096 launches (BENCHMARKS.md, "Issue 14,
// session 12"). set and slot convert.
type template struct {
	HostNs, Event, SyclTask         uint64
	KernelID, EvIndex, SyclLocation uint32
	GroupCount                      [3]uint32
	GroupSize                       [3]uint16
	CodeCopy                        uint16
	LaunchKind, Flags, Reason       uint8
}

// set makes t launch slot s as a template, field by field, every field
// written: a list's templates are reused storage, and appending a
// template value made from s built it on the stack and copied it
// (docs/go-runtime.md §1.3 "A composite literal assigned through a
// pointer is built on the stack"; TestTemplateEveryField).
func (t *template) set(s *Slot) {
	t.HostNs, t.Event, t.SyclTask = s.HostNs, s.Event, s.SyclTask
	t.KernelID, t.EvIndex, t.SyclLocation = s.KernelID, s.EvIndex, s.SyclLocation
	t.GroupCount, t.GroupSize, t.CodeCopy = s.GroupCount, s.GroupSize, s.CodeCopy
	t.LaunchKind, t.Flags, t.Reason = s.LaunchKind, s.Flags, s.Reason
}

// addTemplate appends launch slot s to the list's templates, in storage
// reused when there is room.
func (ls *listState) addTemplate(s *Slot) {
	if n := len(ls.templates); n < cap(ls.templates) {
		ls.templates = ls.templates[:n+1]
	} else {
		ls.templates = append(ls.templates, template{})
	}
	ls.templates[len(ls.templates)-1].set(s)
}

// slot is t, a launch of list ls, as the launch Slot it came from (the
// fields a launch on a regular list leaves empty, empty).
func (t *template) slot(ls *listState) Slot {
	return Slot{HostNs: t.HostNs, Event: t.Event, Device: ls.device, Context: ls.context, SyclTask: t.SyclTask,
		KernelID: t.KernelID, ListID: ls.id, EvIndex: t.EvIndex, SyclLocation: t.SyclLocation,
		GroupCount: t.GroupCount, GroupSize: t.GroupSize, CodeCopy: t.CodeCopy, Kind: SlotLaunch,
		LaunchKind: t.LaunchKind, Flags: t.Flags, Reason: t.Reason}
}

// listRead is one launch of a regular list waiting for its own event
// (zestall's, one per launch of the list: listState.reads, same index as
// its template), and the last reading harvested from that event (what
// Harvester.lastTS holds for shared events). Its record is made when it
// finishes, from its template, straight into the writer's batch
// (listRecord), as an immediate launch's is: a record made here and
// copied into the batch was two writes and a read of 120 bytes more per
// launch.
//
// What is the same for every launch waiting in a list's reads (their
// execution's index, queue, reference time, serialization and device
// clock) is the list's (listState.readExec…), and the event is the
// template's: 48 bytes a launch rather than 96 (BENCHMARKS.md, "Issue 14,
// session 12").
type listRead struct {
	waiting bool
	hasLast bool
	// What newRecord would have taken from the Harvester when the
	// execution was drained: the launch's id.
	id   uint64
	last KernelTimestamp
}

// pendingExec is one execution of a regular list whose times a snapshot
// copies (cgo/regular_lists.c: a zestall-owned list executed right after
// it).
type pendingExec struct {
	snapshot uint64
	context  uint64
	ls       *listState
	launches []pendingLaunch // values: reused with the pendingExec (Harvester.execFree)
}

// Harvester turns launch slots into Launch records: it reads each
// launch's timestamps once its event signalled, converts them to host ns,
// and recycles zestall's events. It runs on one goroutine; Flush may also
// be called from the exit path (under the same mutex).
type Harvester struct {
	mu  sync.Mutex
	src Source
	// emit hands a batch of finished records, in order, to the writer and
	// returns an empty batch to fill next (the writer's spare: batches
	// go round between the two, a bounded number of them).
	emit     func([]stream.Launch) []stream.Launch
	clocks   map[uint64]*Clock // device handle
	lists    map[uint32]*listState
	queues   map[uint64]uint64
	pending  map[uint64][]*pendingLaunch // by event
	evOrder  []uint64                    // events with pending launches, oldest first
	evSpare  []uint64                    // the previous pass's evOrder, reused
	execs    []*pendingExec              // executions with snapshots, oldest first
	execFree []*pendingExec              // read executions, for reuse
	tplFree  [][]template                // templates of lists given back, for reuse
	readFree [][]listRead                // reads of lists given back, for reuse
	// readLists: lists with launches waiting in listState.reads, oldest
	// execution first.
	readLists []*listState
	readBatch []*listState // harvestReads: the lists it reads this pass
	// lastListID, lastList: the list of the last launch slot (a list is
	// appended launch after launch: no map lookup per slot).
	lastListID uint32
	lastList   *listState
	// appList, appNext: where readOf expects the next reading of a list's
	// event taken on an application thread.
	appList  *listState
	appNext  int
	tsBuf    []KernelTimestamp
	npending int
	lastTS   map[uint64]KernelTimestamp // event -> last timestamps harvested
	nextID   uint64
	buf      []Slot // the drained batch; slots from next on not processed yet (passWork)
	next     int
	touched  bool // buf's pages all written (touchRest)
	// Totals, atomic: the writer reads them with every flush while the
	// harvester may hold mu and wait for the writer.
	seen, timed atomic.Uint64
	noTS        [32]atomic.Uint64 // by pb.NoTimestampReason (values < 32)
	newClock    func(dev uint64) *Clock
	now         func() uint64 // host ns; a reading cannot lie in the future
	// pass counts drain passes: clocks are checked for resynchronisation
	// once per pass (see clock), for the device of the last launch
	// (lastDev, lastClock) without a map lookup.
	pass      uint64
	lastDev   uint64
	lastClock *Clock
	// lastQueue, lastQueueID: queueID's last answer (a loop launches on
	// one queue: no map lookup per launch).
	lastQueue, lastQueueID uint64
	// seenPass, timedPass, noTSPass: launches seen, timed and written
	// without timestamp (noTSAny: some) in this pass, added to seen, timed
	// and noTS once per pass (releaseNow), not an atomic operation per
	// launch; seen first, so that Counters never shows more launches
	// finished than seen.
	seenPass, timedPass uint64
	noTSPass            [32]uint64
	noTSAny             bool
	onLaunches          func([]stream.Launch) // the finished records, a batch at a time (stall attribution; nil: none)
	drainNs             uint64                // host ns at the start of the last drain that emptied the rings
	// limit: a reading starting after it is not of anything that ran yet:
	// host ns taken just after the readings it judges (a goroutine may be
	// descheduled for tens of ms between a clock read and a driver read on
	// a loaded machine), plus a margin. One clock read per batch, not per
	// launch (see readNow).
	limit uint64
	// Batches of one pass: events to read, their readings, events to give
	// back (one call to the Source each).
	rdEv  []uint64
	rdOut []EventReading
	rel   []EventRef
	ret   []EventRef // reset by their read already (ReturnEvents)
	// imm: launches on immediate lists with zestall's events, oldest
	// first (see immLaunch), in reused storage.
	imm []immLaunch
	// immEv: the events of the launches in imm, same index (immEv[i] is
	// imm[i].event), the batch harvestImmediate reads: made as launches
	// join the FIFO, not by a pass over the FIFO before the read.
	immEv []uint64
	// immRecs: the records of launches in imm made before they finished
	// (immLaunch.at < 0); immRecsSpare: the previous pass's, reused.
	immRecs, immRecsSpare []stream.Launch
	// Device-side copies of immediate launches' times (TimestampCopier;
	// copier nil: none): the copies, their free entries, and a pass's
	// batch (events and FIFO indices), the (context, device) pairs with a
	// copy in this pass (or none possible), the lists of a batch, and the
	// host reads (FIFO indices); completedPrefix's host query, and how
	// many it made.
	copier       TimestampCopier
	copies       []immCopy
	copyFree     []int32
	cpEv         []uint64
	cpAt, hostAt []int32
	cpSkip       []copyKey
	cpLists      []uint64
	probe        []EventReading
	probes       uint64
	// cpRes: the readings of the copies that completed in this pass
	// (immCopy.res), one buffer: every such copy is read and freed by the
	// pass's end.
	cpRes                []EventReading
	copiedPass, hostPass uint64
	copied, hostRead     atomic.Uint64 // launches whose readings came by copy, by host query

	out []stream.Launch // finished records not handed to emit yet (at most LaunchBatch)
}

// LaunchBatch is the most finished records the harvester hands to emit at
// once: it fills one batch, hands it over and fills the next one emit gave
// back, so the records in flight are bounded by the batches, not by how
// far the harvester is behind. 1024 (120 KiB of records a batch) rather
// than 2048: the batches that go round (collector's launchBatches) are
// live for the whole run, and half of them was 0.5 MB of the profiled
// process's peak heap; a hand-over per 1024 records costs no measurable
// CPU (BENCHMARKS.md, "Issue 14, session 12").
const LaunchBatch = 1024

// New returns a harvester of src's launches. emit receives the finished
// records (see Harvester.emit); newClock describes a device (nil: its
// launches are written without times).
func New(src Source, emit func([]stream.Launch) []stream.Launch, newClock func(uint64) *Clock) *Harvester {
	h := &Harvester{
		src: src, emit: emit, newClock: newClock,
		clocks: map[uint64]*Clock{}, lists: map[uint32]*listState{}, queues: map[uint64]uint64{},
		pending: map[uint64][]*pendingLaunch{},
		lastTS:  map[uint64]KernelTimestamp{},
		now:     HostNs,
	}
	h.copier, _ = src.(TimestampCopier)
	return h
}

// UseCopies says whether immediate launches' events are read by
// device-side copies when src can make them (the default), or each on
// the host (ZESTALL_TIMESTAMP_READS=host). Called before the first pass.
func (h *Harvester) UseCopies(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.copier = nil
	if on {
		h.copier, _ = h.src.(TimestampCopier)
	}
}

// Reads says how many launches of immediate lists had their times read
// by a device-side copy, and how many by a query on the host. Safe at
// any time.
func (h *Harvester) Reads() (copied, host uint64) { return h.copied.Load(), h.hostRead.Load() }

// OnLaunches makes f see every finished launch record (stall
// attribution), on the harvester's goroutine, in order, a batch at a
// time: the batch for the writer, just before it is handed to emit (when
// it is full, and at the end of every pass, under mu). So a launch
// reaches f no later than the end of the pass that finished it, before
// PendingBefore (which takes mu) stops counting it as pending: the stall
// reader never decides a window while a launch it could meet is in
// neither (collector/attribution, "Decisions"). f must not keep ls nor
// change it: it goes to the writer next and its storage is reused. One
// call per batch, not per launch (BENCHMARKS.md, "Issue 14, session 14");
// without f (no stall sampling) the hand-off costs nothing.
func (h *Harvester) OnLaunches(f func(ls []stream.Launch)) { h.onLaunches = f }

// clock returns the clock of a device, resynchronised when its last
// pair is older than a second: looked at once per drain pass (h.pass),
// not per launch (a clock read and a map lookup per launch were a tenth
// of the harvester's time).
func (h *Harvester) clock(dev uint64) *Clock {
	if h.lastClock != nil && h.lastDev == dev && h.lastClock.checked == h.pass {
		return h.lastClock
	}
	c := h.clocks[dev]
	if c == nil {
		c = h.newClock(dev)
		h.clocks[dev] = c
		if c != nil {
			c.device = dev
		}
	}
	if c == nil {
		return nil
	}
	if c.checked != h.pass {
		c.checked = h.pass
		if time.Since(c.synced) > time.Second {
			if host, ticks, err := h.src.GlobalTimestamps(dev); err == nil {
				c.host0, c.tick, c.synced = host, ticks, time.Now()
			}
		}
	}
	h.lastDev, h.lastClock = dev, c
	return c
}

// poll drains new slots and harvests what has completed. It returns the
// number of slots drained and of launches still pending.
func (h *Harvester) Poll() (drained, pending int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	drained = h.drainLocked()
	h.harvestLocked(false)
	h.releaseNow()
	return drained, h.npending
}

// drainAllLocked drains until the rings were empty (context teardown and
// exit: nothing of the past may stay behind).
func (h *Harvester) drainAllLocked() {
	for h.drainLocked() >= DrainBatch {
		h.harvestLocked(false)
		h.releaseNow()
	}
}

// passWork bounds the work of one pass's slots (a slot, plus a record per
// launch it makes): an execution makes one record per launch of its list,
// so a batch of executions of long lists would otherwise be processed in
// one pass of seconds while the application's rings fill. What is left
// of the batch is processed by the next passes, before anything more is
// drained. About 2-4 ms of work.
const passWork = 4 * DrainBatch

// drainLocked drains one batch of slots and processes them, up to
// passWork. It returns the batch's size, or DrainBatch while slots of it
// are left and when it finished a batch an earlier pass had begun (the
// caller polls again at once).
func (h *Harvester) drainLocked() int {
	h.pass++
	if h.next < len(h.buf) {
		// The previous pass stopped inside its batch: finish it first.
		// Then say "full" whatever the batch's size: the rings filled
		// while it was processed, and drainAllLocked (Final, a context's
		// destruction) stops at the first batch smaller than DrainBatch.
		// Returning this batch's size made them stop with the rings
		// unread: those launches were never recorded, and nothing counted
		// them (TestDrainAllAfterLeftover).
		h.readNow()
		h.processSlots()
		return DrainBatch
	}
	start := h.now()
	if h.buf == nil {
		h.buf = make([]Slot, 0, DrainBatch) // fresh pages: not written yet
	}
	h.spillImm() // the launches waiting in the FIFO lose their slots
	var oldest uint64
	h.buf, oldest = h.src.Drain(h.buf[:0])
	if len(h.buf) > 0 && !h.touched {
		h.touched = true
		touchRest(h.buf)
	}
	h.readNow() // endList reads events while the slots are processed
	// Every slot published before start is drained, except those left
	// in the rings (a full batch), which are all from oldest on.
	h.drainNs = min(start, oldest)
	// Slots of different threads: process in time order, so an execute
	// sees the appends that preceded it. (One thread's slots come in
	// order: usually nothing to sort.)
	if !inTimeOrder(h.buf) {
		slices.SortStableFunc(h.buf, func(a, b Slot) int { return cmp.Compare(a.HostNs, b.HostNs) })
	}
	h.next = 0
	return h.processSlots()
}

// inTimeOrder says whether the slots are in HostNs order: a plain loop
// over the batch (slices.IsSortedFunc called its comparison function per
// slot, 5-7 % of the harvester's time per launch).
func inTimeOrder(buf []Slot) bool {
	for i := 1; i < len(buf); i++ {
		if buf[i].HostNs < buf[i-1].HostNs {
			return false
		}
	}
	return true
}

// processSlots processes the drained slots from h.next on, up to passWork.
func (h *Harvester) processSlots() int {
	work := 0
	for h.next < len(h.buf) {
		s := &h.buf[h.next]
		// The slots of a launch-bound loop, as slot would take them but
		// without its calls and repeated tests: a launch on an immediate
		// list, of the device of the last launch whose clock this pass
		// has looked at (h.clock's own shortcut), straight into the FIFO
		// (slot, addPending and toFIFO would put it there); a launch
		// appended to the list of the last one (lastListID is never 0
		// while lastList is set), a template of that list.
		c, ls := h.lastClock, h.lastList
		switch {
		case c != nil && s.Device == h.lastDev && c.checked == h.pass && immediateOurs(s):
			h.immAdd(s, c, s.HostNs, 0, s.Queue, false)
			work += 2 // a slot and a record
		case ls != nil && s.ListID == h.lastListID && s.Kind == SlotLaunch && s.Flags&SlotFlagImmediate == 0:
			ls.addTemplate(s)
			work++
		default:
			seen := h.seenPass
			h.slot(s)
			work += 1 + int(h.seenPass-seen)
		}
		h.next++
		if work >= passWork && h.next < len(h.buf) {
			// Launches of the slots left are not pending yet: nothing
			// from the oldest of them on is final.
			h.drainNs = min(h.drainNs, h.buf[h.next].HostNs)
			return DrainBatch
		}
	}
	return len(h.buf)
}

// touchRest writes every page of the batch Drain fills (DrainBatch
// slots, 480 KiB) beyond the slots it holds, once, at the first pass that
// drained any: on the harvester's goroutine, when the rings are still
// nearly empty. Grown by Drain's appends instead, a burst's first passes
// took 10-60 ms each (allocation and first touch of each larger copy)
// while the application's rings filled. Not before the first slot: a
// process that never launches would pay 120 page faults for nothing
// (about 3 ms on a VM; docs/level-zero-loader.md §8.4 "Start-up cost of
// `LD_PRELOAD`").
func touchRest(buf []Slot) {
	clear(buf[len(buf):cap(buf)])
}

func (h *Harvester) slot(s *Slot) {
	switch s.Kind {
	case SlotLaunch:
		// A launch on a list the launch path does not track (list id 0:
		// created before zestall was active, or past the 2^32-1 list ids)
		// is taken as it comes, like an immediate list's: no execution of
		// such a list is ever published, so as a template it would wait,
		// unrecorded, for the rest of the run.
		if s.Flags&SlotFlagImmediate != 0 || s.ListID == 0 {
			h.addPending(s, s.HostNs, 0, s.Queue, false)
			return
		}
		ls := h.lastList
		if ls == nil || h.lastListID != s.ListID {
			ls = h.lists[s.ListID]
			if ls == nil {
				ls = &listState{id: s.ListID, device: s.Device, context: s.Context}
				if n := len(h.tplFree); n > 0 {
					ls.templates, h.tplFree = h.tplFree[n-1], h.tplFree[:n-1]
				}
				h.lists[s.ListID] = ls
			}
			h.lastListID, h.lastList = s.ListID, ls
		}
		ls.addTemplate(s)
	case SlotExec:
		ls := h.lists[s.ListID]
		if ls == nil {
			h.awaitSnapshot(s.Snapshot, s.Context, nil)
			h.awaitSnapshot(s.SnapshotPrev, s.Context, nil)
			return
		}
		ls.handle = s.List
		if s.Seq > ls.seq {
			ls.seq = s.Seq
		}
		if s.Flags&SlotFlagFailed != 0 {
			return
		}
		h.previousExec(ls, s)
		if s.Flags&SlotFlagStopped != 0 {
			h.awaitSnapshot(s.Snapshot, s.Context, ls) // not recorded
			for i := range ls.templates {
				t := &ls.templates[i]
				if t.HostNs <= s.HostNs && t.Event != 0 && t.Flags&SlotFlagOurs != 0 {
					h.addPendingLaunch(&pendingLaunch{rec: stream.Launch{CommandListId: uint64(s.ListID)},
						event: t.Event, context: ls.context, dev: h.clock(ls.device), ref: s.HostNs, stopped: true})
				}
			}
			return
		}
		serial := s.Flags&SlotFlagSerial != 0
		var pe *pendingExec
		if s.Snapshot != 0 {
			pe = h.newExec(s.Snapshot, s.Context, ls)
		}
		// Without a snapshot the launches wait for their own events in
		// the list's reads, unless launches of an earlier execution still
		// wait on the same events (the shared path sorts out whose a
		// reading is).
		direct := pe == nil && !h.sharedOn(ls)
		if direct {
			h.growReads(ls)
			ls.readRef, ls.readExec, ls.readSerial = s.HostNs, ls.execs, serial
		}
		// The clock of the list's device and the queue's id, looked up at
		// the first launch that needs them rather than once per launch:
		// the same for every launch of the execution (h.clock gives one
		// device the same clock within a pass, queueID one queue the same
		// id).
		var c *Clock
		var queueID uint64
		looked, queued := false, false
		for i := range ls.templates {
			t := &ls.templates[i]
			if t.HostNs > s.HostNs {
				continue
			}
			if direct && t.EvIndex > 0 && t.Flags&SlotFlagOurs != 0 {
				if !looked {
					c, looked = h.clock(ls.device), true
				}
				if c != nil && t.Event != 0 && t.Flags&SlotFlagNoEvent == 0 {
					if !queued {
						queueID, queued = h.queueID(s.Queue), true
					}
					r := &ls.reads[i]
					r.waiting, r.id = true, h.newID()
					ls.readQueue = queueID
					ls.readDev = c
					ls.nreads++
					h.npending++
					continue
				}
				var p pendingLaunch
				ts := t.slot(ls)
				h.newLaunch(&p, &ts, s.HostNs, ls.execs, s.Queue, serial) // written at once, without times
				continue
			}
			if pe != nil && t.EvIndex > 0 && t.Flags&SlotFlagOurs != 0 {
				pe.launches = append(pe.launches, pendingLaunch{})
				ts := t.slot(ls)
				if p := &pe.launches[len(pe.launches)-1]; h.newLaunch(p, &ts, s.HostNs, ls.execs, s.Queue, serial) {
					p.index = t.EvIndex - 1
					h.npending++
				} else {
					pe.launches = pe.launches[:len(pe.launches)-1]
				}
				continue
			}
			var p pendingLaunch
			ts := t.slot(ls)
			if h.newLaunch(&p, &ts, s.HostNs, ls.execs, s.Queue, serial) {
				shared := p
				shared.ls = ls
				h.addPendingLaunch(&shared)
			}
		}
		if pe != nil {
			ls.inflight++
			h.execs = append(h.execs, pe)
		}
		if ls.nreads > 0 && !ls.queued {
			ls.queued = true
			h.readLists = append(h.readLists, ls)
		}
		ls.execs++
	case SlotReset, SlotDestroy:
		h.endList(s.ListID)
	case SlotAppTS:
		if ls, i := h.readOf(s.Event); ls != nil {
			h.listReading(ls, i, &EventReading{TS: s.TS(), Ready: true}, false)
			return
		}
		h.reading(s.Event, s.TS(), nil, false)
	case SlotAppGone:
		if ls, i := h.readOf(s.Event); ls != nil {
			h.listReading(ls, i, &EventReading{}, true)
			return
		}
		h.reading(s.Event, KernelTimestamp{}, nil, true)
	}
}

// previousExec: execution s of list ls begins. The launches of earlier
// executions still waiting for their events are either handed to the
// snapshot that copies the previous execution (s.SnapshotPrev), or
// marked: a reading from after s began is not theirs.
func (h *Harvester) previousExec(ls *listState, s *Slot) {
	var pe *pendingExec
	if s.SnapshotPrev != 0 && ls.execs > 0 {
		pe = h.newExec(s.SnapshotPrev, s.Context, ls)
	}
	if ls.nreads > 0 {
		// The previous execution's launches waiting in reads (it had no
		// snapshot): to the snapshot that copies it, or, without one, to
		// the shared path, marked: a reading from after s began is not
		// theirs.
		for i := range ls.reads {
			r := &ls.reads[i]
			if !r.waiting {
				continue
			}
			r.waiting = false
			h.npending--
			if pe != nil && ls.readExec == ls.execs-1 {
				pe.launches = append(pe.launches, pendingLaunch{})
				h.pendingOf(&pe.launches[len(pe.launches)-1], ls, i) // counted below
			} else {
				shared := &pendingLaunch{}
				h.pendingOf(shared, ls, i)
				shared.ls, shared.until = ls, s.HostNs
				if r.hasLast {
					h.lastTS[shared.event] = r.last
				}
				h.addPendingLaunch(shared)
			}
			*r = listRead{hasLast: r.hasLast, last: r.last}
		}
		ls.nreads = 0
	}
	// With nothing waiting on a shared event (the usual case with
	// snapshots) there is nothing to look up per launch of the list.
	shared := ls.templates
	if len(h.pending) == 0 {
		shared = nil
	}
	for i := range shared {
		t := &ls.templates[i]
		ev := t.Event
		ps := h.pending[ev]
		if len(ps) == 0 || ps[0].app || t.EvIndex == 0 {
			continue
		}
		var keep []*pendingLaunch
		for _, p := range ps {
			switch {
			case p.ls != ls:
				keep = append(keep, p)
			case pe != nil && p.rec.ExecutionIndex == ls.execs-1 && p.until == 0:
				p.index = t.EvIndex - 1
				pe.launches = append(pe.launches, *p)
			default:
				if p.until == 0 {
					p.until = s.HostNs
				}
				keep = append(keep, p)
			}
		}
		if len(keep) != len(ps) {
			h.setPending(ev, keep) // the others go to pe, counted below
		}
	}
	if pe == nil {
		h.awaitSnapshot(s.SnapshotPrev, s.Context, ls)
		return
	}
	// With no launch left (the previous execution was read already) the
	// snapshot is still given back only once its copy completed.
	h.npending += len(pe.launches)
	ls.inflight++
	h.execs = append(h.execs, pe)
}

// awaitSnapshot: a snapshot whose copy nobody needs is made reusable once
// the copy completed (reusing it earlier would let the old copy's marker
// and values pass for the new one's). While it may read the list's
// events, they are not given back.
func (h *Harvester) awaitSnapshot(snapshot, context uint64, ls *listState) {
	if snapshot == 0 {
		return
	}
	if ls != nil {
		ls.inflight++
	}
	h.execs = append(h.execs, h.newExec(snapshot, context, ls))
}

// sharedOn says whether launches wait on the shared path (Harvester.pending)
// for one of the events of ls that its reads would wait on: nothing to look up while nothing waits there (the
// usual case).
func (h *Harvester) sharedOn(ls *listState) bool {
	if len(h.pending) == 0 {
		return false
	}
	for i := range ls.templates {
		// Only the events a launch of ls would wait on in its reads
		// (an application event's launch waits on the shared path).
		if t := &ls.templates[i]; t.EvIndex > 0 && t.Flags&SlotFlagOurs != 0 && len(h.pending[t.Event]) > 0 {
			return true
		}
	}
	return false
}

// readOf finds the launch waiting in a list's reads for event ev (its
// list and index; nil: none), when no
// launch waits on the shared path for it: a reading the launch path took
// on the application's thread (a list executed again on another queue
// without a copy of the previous execution: cgo/regular_lists.c reads the
// list's events, in order, before that execution). The readings of a
// list come one event after the other: found next to the last one, not by
// a lookup per event.
func (h *Harvester) readOf(ev uint64) (*listState, int) {
	if len(h.readLists) == 0 || len(h.pending[ev]) > 0 {
		return nil, 0
	}
	if ls := h.appList; ls != nil && ls.nreads > 0 {
		for i := h.appNext; i < len(ls.reads) && i < h.appNext+8; i++ {
			if r := &ls.reads[i]; r.waiting && ls.templates[i].Event == ev {
				h.appNext = i + 1
				return ls, i
			}
		}
	}
	for _, ls := range h.readLists {
		if ls.nreads == 0 {
			continue
		}
		for i := range ls.reads {
			if r := &ls.reads[i]; r.waiting && ls.templates[i].Event == ev {
				h.appList, h.appNext = ls, i+1
				return ls, i
			}
		}
	}
	return nil, 0
}

// growReads makes ls.reads as long as its templates, in storage reused
// from an ended list when there is some; the last readings of the
// templates it had are kept.
func (h *Harvester) growReads(ls *listState) {
	n := len(ls.templates)
	if len(ls.reads) >= n {
		return
	}
	if ls.reads == nil {
		if k := len(h.readFree); k > 0 {
			ls.reads, h.readFree = h.readFree[k-1], h.readFree[:k-1]
		}
	}
	if cap(ls.reads) >= n {
		ls.reads = ls.reads[:n]
		return
	}
	ls.reads = append(ls.reads, make([]listRead, n-len(ls.reads))...)
}

// harvestReads reads, in one batch, the events of the launches waiting in
// the reads of lists whose every submission was seen, and finishes those
// whose reading is theirs; with final, the others too (without times).
func (h *Harvester) harvestReads(final bool) {
	if len(h.readLists) == 0 {
		return
	}
	h.readBatch = h.readBatch[:0]
	keep := h.readLists[:0]
	for _, ls := range h.readLists {
		if ls.nreads == 0 {
			ls.queued = false
			continue
		}
		keep = append(keep, ls)
		// One submission count per list, not per launch: a list
		// submitted again whose slot is not drained yet may hold the new
		// execution's times in its events.
		if final || h.src.ListSubmits(ls.handle) == ls.seq {
			h.readBatch = append(h.readBatch, ls)
		}
	}
	clear(h.readLists[len(keep):])
	h.readLists = keep
	h.readWaiting(h.readBatch, final, false)
	clear(h.readBatch)
}

// readWaiting reads, in batches of at most readChunk, the events of the
// launches waiting in the reads of lists, and applies each reading to its
// launch (listReading; with final, a launch the reading is not of is
// written without times). With reset (final only: the lists ended, and
// nothing else reads their events), each event whose reading is final is
// reset by its read (Source.KernelTimestampsReset) and given back now;
// the list's release (releaseListEvents) leaves it out.
func (h *Harvester) readWaiting(lists []*listState, final, reset bool) {
	for _, ls := range lists {
		for from := 0; from < len(ls.reads); {
			h.rdEv = h.rdEv[:0]
			to := from
			for ; to < len(ls.reads) && len(h.rdEv) < readChunk; to++ {
				if ls.reads[to].waiting {
					h.rdEv = append(h.rdEv, ls.templates[to].Event)
				}
			}
			if len(h.rdEv) > 0 {
				h.readRange(ls, from, to, final, reset)
			}
			from = to
		}
	}
}

// readChunk is the most events readWaiting reads at once: the batch and
// its readings (48 bytes an event) are kept for the next pass, and one
// batch of every launch waiting in every list was 0.8 MB of the peak live
// heap with 4 threads recording lists of 4096 launches (BENCHMARKS.md,
// "Issue 14, session 12"); a driver call per 4096 events costs nothing
// measurable.
const readChunk = DrainBatch

// readRange reads h.rdEv, the events of the launches waiting in
// ls.reads[from:to], and applies each reading to its launch (readWaiting).
func (h *Harvester) readRange(ls *listState, from, to int, final, reset bool) {
	if reset {
		h.rdOut = h.src.KernelTimestampsReset(h.rdEv, h.rdOut[:0])
	} else {
		h.rdOut = h.src.KernelTimestamps(h.rdEv, h.rdOut[:0])
	}
	h.readNow()
	j := 0
	for i := from; i < to; i++ {
		r := &ls.reads[i]
		if !r.waiting {
			continue
		}
		rd := &h.rdOut[j]
		j++
		ev, ctx := ls.templates[i].Event, ls.context
		h.listReading(ls, i, rd, final) // (its record from the template as it was)
		if reset && (rd.Ready || rd.Failed != 0) {
			// Reset by its read: returned only, and not released again.
			if len(h.lastTS) > 0 {
				delete(h.lastTS, ev)
			}
			h.ret = append(h.ret, EventRef{Context: ctx, Event: ev})
			ls.templates[i].Flags &^= SlotFlagOurs
		}
	}
}

// listReading applies a reading of its event to a launch waiting in a
// list's reads: as reading does for one launch on a shared event. With
// final, a launch the reading is not of is written without times.
func (h *Harvester) listReading(ls *listState, i int, rd *EventReading, final bool) {
	r := &ls.reads[i]
	switch {
	case rd.Failed != 0:
		h.readDone(ls, r)
		h.listNoTS(ls, i, pb.NoTimestampReason_NO_TIMESTAMP_REASON_QUERY_FAILED)
		return
	case rd.Ready && !(r.hasLast && r.last == rd.TS):
		if len(h.lastTS) > 0 {
			if last, seen := h.lastTS[ls.templates[i].Event]; seen && last == rd.TS {
				break // a reading the shared path harvested already
			}
		}
		// A start in the future: the reading is older than the launch
		// (the masked counter placed it one wrap later); before the
		// execution: an earlier execution's.
		if startNs, startTicks := ls.readDev.toHost(rd.TS.Start, ls.readRef); startNs <= h.limit && startNs+1000 >= ls.readRef {
			h.readDone(ls, r)
			r.hasLast, r.last = true, rd.TS
			out := h.listRecord(ls, i)
			h.setTimes(out, ls.readDev, rd.TS, startNs, startTicks)
			h.sent(out)
			return
		}
	}
	if final {
		h.readDone(ls, r)
		h.listNoTS(ls, i, pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED)
	}
}

// listRecord makes the record of launch i of ls (waiting in its reads) in
// the writer's batch, from its template, and returns it (to be handed on
// by sent).
func (h *Harvester) listRecord(ls *listState, i int) *stream.Launch {
	r := &ls.reads[i]
	out := h.outNext()
	fillRecordOf(out, &ls.templates[i], ls.id, r.id, ls.readQueue, ls.readExec, ls.readSerial, ls.readDev)
	return out
}

// listNoTS writes launch i of ls (waiting in its reads) without times.
func (h *Harvester) listNoTS(ls *listState, i int, reason pb.NoTimestampReason) {
	out := h.listRecord(ls, i)
	h.markNoTS(out, reason)
	h.sent(out)
}

// pendingOf makes launch i of ls, waiting in its reads, a pendingLaunch
// in p (which it overwrites entirely), its record made from its template.
func (h *Harvester) pendingOf(p *pendingLaunch, ls *listState, i int) {
	r := &ls.reads[i]
	t := &ls.templates[i]
	*p = pendingLaunch{index: t.EvIndex - 1, event: t.Event, context: ls.context, ref: ls.readRef, dev: ls.readDev}
	fillRecordOf(&p.rec, t, ls.id, r.id, ls.readQueue, ls.readExec, ls.readSerial, ls.readDev)
}

// readDone: launch r of ls waits no more (it is written, or about to be).
func (h *Harvester) readDone(ls *listState, r *listRead) {
	r.waiting = false
	ls.nreads--
	h.npending--
}

// endReads: list ls was reset or destroyed. The launches waiting in its
// reads get their events read (the application synchronised: they
// completed) or are written without times; the storage goes back for
// the next list.
func (h *Harvester) endReads(ls *listState) {
	if ls.nreads > 0 {
		// With no execution's snapshot left to copy them, the list's
		// events are given back in this pass (releaseListEvents): each
		// one read now is reset by its read, while its memory is in the
		// cache, rather than visited again by the release.
		h.readWaiting([]*listState{ls}, true, ls.inflight == 0)
	}
	if ls.reads == nil {
		return
	}
	// Nothing reads an ended list's reads: the next list reuses them (a
	// few of them kept).
	if len(h.readFree) < 16 && cap(ls.reads) <= 1<<16 {
		clear(ls.reads)
		h.readFree = append(h.readFree, ls.reads[:0])
	}
	ls.reads = nil
}

// newExec returns an execution record, reused when one is free.
func (h *Harvester) newExec(snapshot, context uint64, ls *listState) *pendingExec {
	var pe *pendingExec
	if n := len(h.execFree); n > 0 {
		pe = h.execFree[n-1]
		h.execFree[n-1] = nil
		h.execFree = h.execFree[:n-1]
	} else {
		pe = &pendingExec{}
	}
	pe.snapshot, pe.context, pe.ls = snapshot, context, ls
	return pe
}

// freeExec makes pe reusable once its launches were written.
func (h *Harvester) freeExec(pe *pendingExec) {
	clear(pe.launches) // no list or clock kept alive, nothing to alias
	*pe = pendingExec{launches: pe.launches[:0]}
	h.execFree = append(h.execFree, pe)
}

func (h *Harvester) queueID(q uint64) uint64 {
	if q == 0 {
		return 0
	}
	if q == h.lastQueue {
		return h.lastQueueID
	}
	id, ok := h.queues[q]
	if !ok {
		id = uint64(len(h.queues) + 1)
		h.queues[q] = id
	}
	h.lastQueue, h.lastQueueID = q, id
	return id
}

// addPending turns a launch slot into a pending Launch record. For a
// regular list, s is the append and ref, exec and execSerial describe the
// execution (its time, index, and whether it ran serialized).
func (h *Harvester) addPending(s *Slot, ref uint64, exec uint32, queue uint64, execSerial bool) {
	// Into the immediate FIFO without a pendingLaunch (about 200 bytes
	// the compiler would clear per launch).
	if c := h.clock(s.Device); h.toFIFO(s, c) {
		h.immAdd(s, c, ref, exec, queue, execSerial)
		return
	}
	var p pendingLaunch
	if h.newLaunch(&p, s, ref, exec, queue, execSerial) {
		shared := p // on the heap only when it waits in h.pending
		h.addPendingLaunch(&shared)
	}
}

// newLaunch makes the Launch record of a slot in p (which it overwrites
// entirely); it returns false when p need not wait: the record is written
// already (no timestamp to wait for), or waits in the immediate FIFO.
func (h *Harvester) newLaunch(p *pendingLaunch, s *Slot, ref uint64, exec uint32, queue uint64, execSerial bool) bool {
	c := h.clock(s.Device)
	if h.toFIFO(s, c) {
		h.immAdd(s, c, ref, exec, queue, execSerial)
		return false
	}
	*p = pendingLaunch{}
	rec := &p.rec
	h.newRecord(rec, s, exec, queue, execSerial, c)
	if s.Flags&SlotFlagNoEvent != 0 || s.Event == 0 || c == nil {
		reason := pb.NoTimestampReason(s.Reason)
		if reason == 0 {
			reason = pb.NoTimestampReason_NO_TIMESTAMP_REASON_UNSUPPORTED
		}
		h.finishNoTS(rec, reason)
		return false
	}
	p.event, p.context, p.dev, p.ref = s.Event, s.Context, c, ref
	p.ours = s.Flags&SlotFlagOurs != 0 && s.Flags&SlotFlagImmediate != 0
	p.app = s.Flags&SlotFlagAppEvent != 0
	return true
}

// toFIFO says whether launch s, of device clock c, waits in the immediate
// FIFO: zestall's event on an immediate list, which carries this launch's
// times only (no map, no object).
func (h *Harvester) toFIFO(s *Slot, c *Clock) bool { return c != nil && immediateOurs(s) }

// immediateOurs says whether s is a launch that slot takes to the
// immediate FIFO when its device has a clock (toFIFO): a launch slot on an
// immediate list with zestall's event. processSlots' shortcut tests it
// without toFIFO's clock, which it has already.
func immediateOurs(s *Slot) bool {
	return s.Kind == SlotLaunch && s.Event != 0 &&
		s.Flags&(SlotFlagOurs|SlotFlagImmediate|SlotFlagAppEvent|SlotFlagNoEvent) == SlotFlagOurs|SlotFlagImmediate
}

// immAdd puts launch s in the immediate FIFO (see toFIFO). Its record is
// made when it finishes, from its slot in the drained batch, straight into
// the writer's batch (see immLaunch).
func (h *Harvester) immAdd(s *Slot, c *Clock, ref uint64, exec uint32, queue uint64, execSerial bool) {
	// Made in place, field by field: every field is written (a composite
	// literal was made on the stack and copied, 64 bytes more per launch).
	n := len(h.imm)
	if n < cap(h.imm) {
		h.imm = h.imm[:n+1]
	} else {
		h.imm = append(h.imm, immLaunch{})
	}
	h.immEv = append(h.immEv, s.Event)
	l := &h.imm[n]
	l.id, l.queue, l.exec, l.serial = h.newID(), h.queueID(queue), exec, execSerial
	l.event, l.context, l.ref, l.dev = s.Event, s.Context, ref, c
	l.list, l.copy, l.pos = s.List, 0, 0
	if h.next < len(h.buf) && s == &h.buf[h.next] {
		l.at = int32(h.next)
	} else {
		l.at = h.spill(s, l) // not a drained slot (never, as launches come): its record now
	}
	h.npending++
}

// newRecord makes the Launch record of a slot in rec (which it overwrites
// entirely), of device clock c (nil: unknown).
func (h *Harvester) newRecord(rec *stream.Launch, s *Slot, exec uint32, queue uint64, execSerial bool, c *Clock) {
	fillRecord(rec, s, h.newID(), h.queueID(queue), exec, execSerial, c)
}

// newID is the id of a launch seen now (ids from 1, in the order
// launches are seen), counted in seenPass.
func (h *Harvester) newID() uint64 {
	h.nextID++
	h.seenPass++
	return h.nextID
}

// fillRecord makes the Launch record id of slot s in rec (which it
// overwrites entirely), on the queue of id queueID, of device clock c
// (nil: unknown).
func fillRecord(rec *stream.Launch, s *Slot, id, queueID uint64, exec uint32, execSerial bool, c *Clock) {
	// Field by field, in rec's order, every field written: `*rec =
	// stream.Launch{...}` built the 120-byte value on the stack and
	// copied it (docs/go-runtime.md §1.3 "A composite literal assigned
	// through a pointer is built on the stack").
	rec.Id, rec.KernelId = id, uint64(s.KernelID)
	rec.QueueId, rec.CommandListId = queueID, uint64(s.ListID)
	rec.HostAppendNs, rec.DeviceStartNs, rec.DeviceEndNs = s.HostNs, 0, 0
	rec.SyclTaskId = s.SyclTask
	rec.DeviceId = deviceID(c)
	rec.Kind, rec.Flags, rec.NoTimestampReason = pb.LaunchKind(s.LaunchKind), recordFlags(s.Flags, execSerial), 0
	rec.GroupCountX, rec.GroupCountY, rec.GroupCountZ = s.GroupCount[0], s.GroupCount[1], s.GroupCount[2]
	rec.GroupSizeX, rec.GroupSizeY, rec.GroupSizeZ = uint32(s.GroupSize[0]), uint32(s.GroupSize[1]), uint32(s.GroupSize[2])
	rec.ExecutionIndex, rec.SyclLocationId, rec.CodeCopy = exec, s.SyclLocation, uint32(s.CodeCopy)
}

// deviceID is the record's device id of clock c (nil: unknown, 0).
func deviceID(c *Clock) uint32 {
	if c != nil {
		return c.id
	}
	return 0
}

// fillRecordOf is fillRecord of template t of list listID: the record
// fillRecord makes of the slot t came from (TestFillRecordOf), without
// making that slot. The two stay apart, field for field: either one made
// through the other would copy a 64- or 120-byte value per launch on the
// harvester's hot path (template.set, template.slot).
func fillRecordOf(rec *stream.Launch, t *template, listID uint32, id, queueID uint64, exec uint32, execSerial bool, c *Clock) {
	// Field by field, as fillRecord.
	rec.Id, rec.KernelId = id, uint64(t.KernelID)
	rec.QueueId, rec.CommandListId = queueID, uint64(listID)
	rec.HostAppendNs, rec.DeviceStartNs, rec.DeviceEndNs = t.HostNs, 0, 0
	rec.SyclTaskId = t.SyclTask
	rec.DeviceId = deviceID(c)
	rec.Kind, rec.Flags, rec.NoTimestampReason = pb.LaunchKind(t.LaunchKind), recordFlags(t.Flags, execSerial), 0
	rec.GroupCountX, rec.GroupCountY, rec.GroupCountZ = t.GroupCount[0], t.GroupCount[1], t.GroupCount[2]
	rec.GroupSizeX, rec.GroupSizeY, rec.GroupSizeZ = uint32(t.GroupSize[0]), uint32(t.GroupSize[1]), uint32(t.GroupSize[2])
	rec.ExecutionIndex, rec.SyclLocationId, rec.CodeCopy = exec, t.SyclLocation, uint32(t.CodeCopy)
}

// recordFlags are a launch record's flags for a slot's flags.
func recordFlags(f uint8, execSerial bool) uint32 {
	var r uint32
	if f&SlotFlagImmediate != 0 {
		r |= uint32(pb.LaunchFlag_LAUNCH_FLAG_IMMEDIATE)
	}
	if f&SlotFlagOurs != 0 {
		r |= uint32(pb.LaunchFlag_LAUNCH_FLAG_TIMESTAMP_SWAPPED)
	}
	if f&SlotFlagAppEvent != 0 {
		r |= uint32(pb.LaunchFlag_LAUNCH_FLAG_APP_EVENT)
	}
	if f&SlotFlagSerial != 0 || execSerial {
		r |= uint32(pb.LaunchFlag_LAUNCH_FLAG_SERIALIZED)
	}
	return r
}

// immLaunch is a launch on an immediate list whose event is zestall's,
// waiting for its times (Harvester.imm). Its record is not made when it is
// drained but when it finishes, from its slot, in the writer's batch
// (immRecord): at full rate nearly every launch finishes in the pass that
// drained it, and a 120-byte record made in the FIFO and copied into the
// batch was a third of the harvester's time per launch (two stores and a
// load of lines the cache no longer held). A launch still waiting when the
// next drain overwrites the batch has its record made then (spillImm).
type immLaunch struct {
	// at: the launch's slot in h.buf (0 or more), or -1-n once its record
	// is h.immRecs[n].
	at     int32
	exec   uint32
	serial bool
	// What newRecord would have taken from the Harvester when the launch
	// was drained: its id and its queue's.
	id, queue           uint64
	event, context, ref uint64
	list                uint64 // the immediate list's handle
	dev                 *Clock
	// copy: the device-side copy that reads its event (1 + its index in
	// Harvester.copies, pos its place in the copy's batch), 0 while it
	// is in none, immHost when its event is read on the host.
	copy, pos int32
}

// immHost: an immediate launch whose event is read on the host
// (immLaunch.copy).
const immHost = -1

// immCopy is a device-side copy of the events of immediate launches
// (TimestampCopier), in reused storage (Harvester.copies).
type immCopy struct {
	handle, context uint64
	n               int
	state           uint8 // copyFree, copyRunning, copyDone, copyFailed
	res             int   // copyDone: its readings are Harvester.cpRes[res:res+n]
}

const (
	copyFree = iota
	copyRunning
	copyDone
	copyFailed
)

// copyKey is what one copy's launches share.
type copyKey struct{ context, device uint64 }

// immRecord makes l's record in rec.
func (h *Harvester) immRecord(l *immLaunch, rec *stream.Launch) {
	if l.at >= 0 {
		fillRecord(rec, &h.buf[l.at], l.id, l.queue, l.exec, l.serial, l.dev)
		return
	}
	*rec = h.immRecs[-1-l.at]
}

// spill makes the record of l (whose slot is s) in h.immRecs and returns
// l.at for it.
func (h *Harvester) spill(s *Slot, l *immLaunch) int32 {
	h.immRecs = append(h.immRecs, stream.Launch{})
	fillRecord(&h.immRecs[len(h.immRecs)-1], s, l.id, l.queue, l.exec, l.serial, l.dev)
	return -int32(len(h.immRecs))
}

// spillImm makes the records of the launches in the FIFO that still refer
// to their slots: the drained batch is about to be overwritten.
func (h *Harvester) spillImm() {
	for i := range h.imm {
		if l := &h.imm[i]; l.at >= 0 {
			l.at = h.spill(&h.buf[l.at], l)
		}
	}
}

// harvestImmediate reads the events of the launches in the FIFO and
// finishes those that signalled; with final, the others too (without
// times). With a TimestampCopier the device copies them (submitCopies,
// collectCopies) and only launches no copy could take are queried on the
// host; without one, every event is queried on the host, in one batch.
// The FIFO's storage is reused.
func (h *Harvester) harvestImmediate(final bool) {
	if len(h.imm) == 0 {
		return
	}
	imm, immEv := h.imm, h.immEv[:len(h.imm)]
	var rd []EventReading
	if h.copier == nil {
		// A final reading resets its event at once (see the case r.Ready).
		h.rdOut = h.src.KernelTimestampsReset(immEv, h.rdOut[:0])
		rd = h.rdOut[:len(imm)] // one bounds check for the loop
	} else {
		h.submitCopies(final)
		var wait time.Duration
		if final {
			wait = finalCopyWait
		}
		h.collectCopies(0, wait)
		h.readHost(final)
		rd = h.rdOut
	}
	h.readNow()
	limit := h.limit // a local: sent's calls would make the loop reload h.limit
	keep, host := 0, 0
	// Records of launches still waiting move to the spare (in FIFO order,
	// so the storage is bounded by what waits).
	recs := h.immRecsSpare[:0]
	for i := range imm {
		l := &imm[i]
		var r *EventReading
		reset := true // a host read resets a final reading's event itself
		switch {
		case h.copier == nil:
			r = &rd[i]
		case l.copy == immHost:
			if host < len(h.hostAt) && h.hostAt[host] == int32(i) {
				r = &rd[host]
				host++
			}
		case l.copy > 0:
			if c := &h.copies[l.copy-1]; c.state == copyDone {
				r, reset = &h.cpRes[c.res+int(l.pos)], false
			}
		}
		switch {
		case r == nil:
		case r.Failed != 0:
			h.immNoTS(l, reset, pb.NoTimestampReason_NO_TIMESTAMP_REASON_QUERY_FAILED)
			continue
		case r.Ready:
			// The event was reset before this launch took it: a reading
			// is this launch's, unless the clock places it in the future
			// (not run yet) or before the append (as the shared path,
			// which waits for a plausible reading). A host read reset the
			// event: a reading that is not this launch's (an event whose
			// reset failed) is gone, and the launch's own comes when its
			// kernel completes. A copy's reading is final too (the copy
			// waited for the event), so such a launch is read on the
			// host from then on.
			if startNs, startTicks := l.dev.toHost(r.TS.Start, l.ref); startNs <= limit && startNs+1000 >= l.ref {
				h.immDone(l, reset)
				if reset {
					h.hostPass++
				} else {
					h.copiedPass++
				}
				out := h.outNext()
				h.immRecord(l, out)
				h.setTimes(out, l.dev, r.TS, startNs, startTicks)
				h.sent(out)
				continue
			}
		}
		if r != nil && !reset {
			// A copy's reading that is not this launch's: no copy reads
			// it again (every copy that completed is freed by the pass's
			// end).
			l.copy = immHost
		}
		if final {
			h.immNoTS(l, false, pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED)
			continue
		}
		if l.at < 0 {
			recs = append(recs, h.immRecs[-1-l.at])
			l.at = -int32(len(recs))
		}
		if keep != i {
			imm[keep] = *l // keep < i: l is not overwritten before it is read
			immEv[keep] = immEv[i]
		}
		keep++
	}
	clear(imm[keep:]) // drop the clocks' pointers
	h.imm, h.immEv = imm[:keep], immEv[:keep]
	h.immRecs, h.immRecsSpare = recs, h.immRecs[:0]
	if h.copier != nil {
		h.freeCopies()
		h.cpRes = h.cpRes[:0]
	}
}

// submitCopies starts device-side copies of the events of the launches
// in the FIFO that are in none yet: one copy per (context, device) and
// pass, of those launches in FIFO order, at most CopyMaxEvents, and of
// each application list's launches only up to the last one whose kernel
// has completed (completedPrefix). A copy thus waits for kernels that
// have (nearly always) completed already: queued on the device behind
// kernels still to run, it would hold an engine for them
// (docs/level-zero-loader.md §8.8 "Copying timestamps on the device"). A
// (context, device) whose copies are all in flight waits for the next
// pass, as does a list none of whose launches has completed; launches no
// copy can take are read on the host. With final, every launch is copied
// or read on the host.
func (h *Harvester) submitCopies(final bool) {
	skip := h.cpSkip[:0]
	for i := range h.imm {
		l := &h.imm[i]
		if l.copy != 0 {
			continue
		}
		key := copyKey{l.context, l.dev.device}
		if slices.Contains(skip, key) {
			if final {
				l.copy = immHost
			}
			continue
		}
		// The batch: this launch and every later one of its (context,
		// device) in no copy yet, of each list as far as its launches
		// have completed.
		at, ev := h.cpAt[:0], h.cpEv[:0]
		oneList := true
		for j := i; j < len(h.imm); j++ {
			if m := &h.imm[j]; m.copy == 0 && m.context == key.context && m.dev == l.dev {
				at, ev = append(at, int32(j)), append(ev, m.event)
				oneList = oneList && m.list == l.list
			}
		}
		switch {
		case final:
		case oneList: // the usual case: one list per context and device
			n := h.completedPrefix(ev)
			at, ev = at[:n], ev[:n]
		default:
			at = h.completedOnly(at)
			ev = ev[:0]
			for _, j := range at {
				ev = append(ev, h.imm[j].event)
			}
		}
		// One copy per pass, and more while a copy cannot take them all.
		if len(at) <= CopyMaxEvents {
			skip = append(skip, key)
		} else {
			at, ev = at[:CopyMaxEvents], ev[:CopyMaxEvents]
		}
		h.cpEv, h.cpAt = ev, at
		if len(ev) == 0 {
			continue
		}
		handle, status := h.copier.CopyTimestamps(key.context, key.device, ev)
		switch {
		case status == CopyStarted:
			k := h.newCopy(handle, key.context, len(ev))
			for p, j := range at {
				h.imm[j].copy, h.imm[j].pos = k, int32(p)
			}
		case status == CopyBusy && !final:
			if !slices.Contains(skip, key) {
				skip = append(skip, key)
			}
		default:
			for _, j := range at {
				h.imm[j].copy = immHost
			}
		}
	}
	h.cpSkip = skip[:0]
}

// completedOnly keeps of the launches at (FIFO indices, in order) those
// of each list up to the last one whose kernel has completed
// (completedPrefix), in order.
func (h *Harvester) completedOnly(at []int32) []int32 {
	lists := h.cpLists[:0]
	for _, j := range at {
		if ls := h.imm[j].list; !slices.Contains(lists, ls) {
			lists = append(lists, ls)
		}
	}
	h.cpLists = lists
	keep := at[:0]
	// A prefix each, then the kept launches in FIFO order (a launch's
	// mark: pos = 1 while it is kept). The caller's events batch is free
	// to use, as is the host reads' (made after this).
	for _, ls := range lists {
		ev, of := h.cpEv[:0], h.hostAt[:0]
		for _, j := range at {
			if h.imm[j].list == ls {
				ev, of = append(ev, h.imm[j].event), append(of, j)
			}
		}
		for _, j := range of[:h.completedPrefix(ev)] {
			h.imm[j].pos = 1
		}
		h.cpEv, h.hostAt = ev, of
	}
	for _, j := range at {
		if h.imm[j].pos == 1 {
			h.imm[j].pos = 0
			keep = append(keep, j)
		}
	}
	return keep
}

// completedPrefix says how many of events, launches of one list in
// append order, to copy now: up to the last one whose event has
// signalled, found with host queries of single events (one when all
// have, as at a launch-bound rate; a binary search otherwise, taking
// completion to follow append order, as on an in-order list: a launch
// before it that has not completed yet only makes the copy wait for it).
func (h *Harvester) completedPrefix(events []uint64) int {
	done := func(i int) bool {
		h.probe = h.src.KernelTimestamps(events[i:i+1], h.probe[:0])
		h.probes++
		return h.probe[0].Ready || h.probe[0].Failed != 0
	}
	n := len(events)
	if n == 0 || done(n-1) {
		return n
	}
	lo, hi := -1, n-1 // events[lo] has signalled (-1: none known), events[hi] has not
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; done(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1
}

// newCopy records a copy started for n launches and returns its
// immLaunch.copy.
func (h *Harvester) newCopy(handle, context uint64, n int) int32 {
	var k int32
	if f := len(h.copyFree); f > 0 {
		k = h.copyFree[f-1]
		h.copyFree = h.copyFree[:f-1]
	} else {
		h.copies = append(h.copies, immCopy{})
		k = int32(len(h.copies))
	}
	c := &h.copies[k-1]
	c.handle, c.context, c.n, c.state = handle, context, n, copyRunning
	return k
}

// finalCopyWait bounds how long the last pass (Final, ContextDestroying)
// waits for each copy still running: a copy waits for its kernels, which
// the application has normally waited for already.
const finalCopyWait = 100 * time.Millisecond

// collectCopies collects the results of the running copies that
// completed (of context ctx only; 0, no context handle: of all), waiting
// for each at most wait. A copy that failed, or one still running after
// a wait, is given up and its launches are read on the host.
func (h *Harvester) collectCopies(ctx uint64, wait time.Duration) {
	failed := false
	for k := range h.copies {
		c := &h.copies[k]
		if c.state != copyRunning || (ctx != 0 && c.context != ctx) {
			continue
		}
		at := len(h.cpRes)
		res, ready, err := h.copier.CopyResults(c.handle, c.n, h.cpRes, wait)
		h.cpRes = res
		switch {
		case ready:
			c.state, c.res = copyDone, at
		case err == nil && wait == 0:
		case err == nil:
			h.copier.CopyAbandon(c.handle)
			fallthrough
		default:
			c.state, failed = copyFailed, true
		}
	}
	if failed {
		for i := range h.imm {
			if l := &h.imm[i]; l.copy > 0 && h.copies[l.copy-1].state == copyFailed {
				l.copy = immHost
			}
		}
	}
}

// readHost queries on the host, in one batch, the events of the launches
// in the FIFO that no copy reads (h.hostAt: their FIFO indices, h.rdOut:
// their readings, same order).
func (h *Harvester) readHost(final bool) {
	ev, at := h.cpEv[:0], h.hostAt[:0]
	for i := range h.imm {
		if l := &h.imm[i]; l.copy == immHost || (final && l.copy == 0) {
			l.copy = immHost
			ev, at = append(ev, l.event), append(at, int32(i))
		}
	}
	h.cpEv, h.hostAt = ev, at
	h.rdOut = h.src.KernelTimestampsReset(ev, h.rdOut[:0])
}

// freeCopies makes reusable the copies that completed or failed: no
// launch of the FIFO reads them any more (harvestImmediate took every
// completed copy's readings, or moved their launches to host reads, as
// collectCopies did for failed copies' launches).
func (h *Harvester) freeCopies() {
	for k := range h.copies {
		if c := &h.copies[k]; c.state == copyDone || c.state == copyFailed {
			h.freeCopy(k)
		}
	}
}

// freeCopy makes copy k (its index in h.copies) reusable.
func (h *Harvester) freeCopy(k int) {
	h.copies[k].state = copyFree
	h.copyFree = append(h.copyFree, int32(k+1))
}

// immNoTS writes launch l of the FIFO without times, for reason; reset:
// its event was reset by its read (see immDone). Apart from
// harvestImmediate's loop, so that the record it makes on the stack is
// not cleared for every launch the loop finishes with times
// (docs/go-runtime.md §1.5 "A variable whose address goes to a call is
// cleared where it is declared").
func (h *Harvester) immNoTS(l *immLaunch, reset bool, reason pb.NoTimestampReason) {
	h.immDone(l, reset)
	h.immWriteNoTS(l, reason)
}

// immWriteNoTS writes launch l of the FIFO without times, for reason
// (what leaving the FIFO does with its event is the caller's).
func (h *Harvester) immWriteNoTS(l *immLaunch, reason pb.NoTimestampReason) {
	var rec stream.Launch
	h.immRecord(l, &rec)
	h.finishNoTS(&rec, reason)
}

// immDone: the launch leaves the FIFO; its event goes back (reset by its
// read already: only returned).
func (h *Harvester) immDone(l *immLaunch, reset bool) {
	h.npending--
	if reset {
		h.ret = append(h.ret, EventRef{Context: l.context, Event: l.event})
		return
	}
	h.rel = append(h.rel, EventRef{Context: l.context, Event: l.event})
}

func (h *Harvester) addPendingLaunch(p *pendingLaunch) {
	if len(h.pending[p.event]) == 0 {
		h.evOrder = append(h.evOrder, p.event)
	}
	h.pending[p.event] = append(h.pending[p.event], p)
	h.npending++
}

// setPending replaces the launches pending on ev.
func (h *Harvester) setPending(ev uint64, ps []*pendingLaunch) {
	h.npending += len(ps) - len(h.pending[ev])
	if len(ps) == 0 {
		delete(h.pending, ev)
		return
	}
	h.pending[ev] = ps
}

func (h *Harvester) finishNoTS(rec *stream.Launch, reason pb.NoTimestampReason) {
	if rec.Id == 0 {
		return // an execution while stopped (ids start at 1)
	}
	h.markNoTS(rec, reason)
	h.write(rec)
}

// markNoTS makes rec a record without times, for reason.
func (h *Harvester) markNoTS(rec *stream.Launch, reason pb.NoTimestampReason) {
	rec.Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP)
	rec.NoTimestampReason = reason
	h.noTSPass[int(reason)%len(h.noTS)]++
	h.noTSAny = true
}

// write hands a finished record to attribution and to the batch for the
// writer (a copy each: rec's storage is reused); a full batch goes at once.
func (h *Harvester) write(rec *stream.Launch) {
	out := h.outNext()
	*out = *rec
	h.sent(out)
}

// outNext returns the next record of the batch for the writer, to be made
// in place (entirely: it may hold an earlier batch's record) and handed
// on by sent.
func (h *Harvester) outNext() *stream.Launch {
	if cap(h.out) == 0 {
		h.out = make([]stream.Launch, 0, LaunchBatch)
	}
	if len(h.out) < cap(h.out) {
		h.out = h.out[:len(h.out)+1]
	} else {
		h.out = append(h.out, stream.Launch{})
	}
	return &h.out[len(h.out)-1]
}

// sent: the record outNext returned is finished; a full batch goes to
// attribution and the writer at once (handOut), the rest at the end of
// the pass (releaseNow).
func (h *Harvester) sent(rec *stream.Launch) {
	if len(h.out) >= LaunchBatch {
		h.handOut()
	}
}

// handOut hands the batch of finished records to attribution (OnLaunches)
// and then to the writer, and starts the next batch in the one emit gave
// back. Every record of h.out is finished when it is called.
func (h *Harvester) handOut() {
	if h.onLaunches != nil {
		h.onLaunches(h.out)
	}
	h.out = h.emit(h.out)[:0]
}

// harvestLocked reads the events of pending launches. Several pending
// launches may share an event (a regular list executed again, or an
// application event reused): a new reading belongs to the latest launch
// that began before it; earlier ones were overwritten. With final, launches
// whose event never signalled are written without timestamps.
// readNow sets limit after readings: every kernel they show started
// before now.
func (h *Harvester) readNow() { h.limit = h.now() + 10_000_000 }

func (h *Harvester) harvestLocked(final bool) {
	h.harvestExecs(final)
	h.harvestImmediate(final)
	h.harvestReads(final)
	if h.npending == 0 {
		h.evOrder = h.evOrder[:0]
		return
	}
	events := h.evOrder
	h.evOrder = h.evSpare[:0]
	// The events to read, read in one batch.
	h.rdEv = h.rdEv[:0]
	for _, ev := range events {
		ps := h.pending[ev]
		switch {
		case len(ps) == 0:
			continue
		case ps[0].app:
			// Never query an application event from here: it may be gone.
			if final {
				h.reading(ev, KernelTimestamp{}, nil, true)
			}
		default:
			if ls := listOf(ps); ls == nil || final || h.src.ListSubmits(ls.handle) == ls.seq {
				h.rdEv = append(h.rdEv, ev)
				continue
			}
			// The list was submitted again and that slot is not drained
			// yet: the event may hold the new execution's times.
		}
		if len(h.pending[ev]) > 0 {
			h.evOrder = append(h.evOrder, ev)
		}
	}
	h.rdOut = h.src.KernelTimestamps(h.rdEv, h.rdOut[:0])
	h.readNow()
	for i, ev := range h.rdEv {
		r := h.rdOut[i]
		if r.Ready || r.Failed != 0 {
			if ls := listOf(h.pending[ev]); ls == nil || final || h.src.ListSubmits(ls.handle) == ls.seq {
				h.reading(ev, r.TS, r.Err(), false)
			}
		}
		if final {
			// Not signalled, or a reading that is none of theirs (one
			// harvested already): written without times, not left out.
			h.reading(ev, KernelTimestamp{}, nil, true)
		}
		if len(h.pending[ev]) > 0 {
			h.evOrder = append(h.evOrder, ev)
		}
	}
	h.evSpare = events[:0]
}

// listOf is the regular list whose launches wait on one event (nil for
// immediate lists).
func listOf(ps []*pendingLaunch) *listState {
	for _, p := range ps {
		if p.ls != nil {
			return p.ls
		}
	}
	return nil
}

// harvestExecs reads the snapshots of completed executions. With
// final, executions not completed are written without timestamps.
func (h *Harvester) harvestExecs(final bool) {
	if len(h.execs) == 0 {
		return
	}
	keep := h.execs[:0]
	for _, pe := range h.execs {
		ts, ready, err := h.src.SnapshotResults(pe.snapshot, h.tsBuf[:0])
		h.tsBuf = ts
		if ready {
			h.readNow()
		}
		if !ready && err == nil && !final {
			keep = append(keep, pe)
			continue
		}
		h.finishExec(pe, ts, ready, err)
		h.freeExec(pe)
	}
	for i := len(keep); i < len(h.execs); i++ {
		h.execs[i] = nil
	}
	h.execs = keep
}

// finishExec writes the launches of one execution: from ts when ready,
// else without timestamps. A snapshot that was read goes back to its list.
func (h *Harvester) finishExec(pe *pendingExec, ts []KernelTimestamp, ready bool, err error) {
	h.npending -= len(pe.launches)
	limit := h.limit
	for i := range pe.launches {
		p := &pe.launches[i]
		switch {
		case err != nil:
			h.finishNoTS(&p.rec, pb.NoTimestampReason_NO_TIMESTAMP_REASON_QUERY_FAILED)
		case !ready || int(p.index) >= len(ts):
			h.finishNoTS(&p.rec, pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED)
		default:
			startNs, startTicks := p.dev.toHost(ts[p.index].Start, p.ref)
			if startNs+1000 < p.ref || startNs > limit {
				// Not this execution's times (the event did not signal
				// in it): the copy's values are undefined.
				h.finishNoTS(&p.rec, pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED)
				continue
			}
			h.finishTimed(p, ts[p.index], startNs, startTicks)
		}
	}
	if ready {
		h.src.SnapshotRelease(pe.snapshot)
	}
	if pe.ls == nil {
		return
	}
	pe.ls.inflight--
	if pe.ls.ended && pe.ls.inflight == 0 {
		h.releaseListEvents(pe.ls)
	}
}

// reading applies one reading of event ev to the launches pending on it.
// gone: the event will not signal for them any more (destroyed, or exit).
func (h *Harvester) reading(ev uint64, ts KernelTimestamp, err error, gone bool) {
	ps := h.pending[ev]
	if len(ps) == 0 {
		return
	}
	var keep []*pendingLaunch
	finishAll := func(reason pb.NoTimestampReason) {
		h.setPending(ev, nil)
		for _, p := range ps {
			h.release(p)
			h.finishNoTS(&p.rec, reason)
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
	var startNs, startTicks uint64
	limit := h.limit
	later := false // the reading is of an execution after some launch's `until`
	for _, p := range ps {
		s, sTicks := p.dev.toHost(ts.Start, p.ref)
		if s > limit {
			continue // not a reading of anything that ran yet
		}
		if p.until != 0 && s+1000 >= p.until {
			later = true
			continue
		}
		if s+1000 >= p.ref && (owner == nil || p.ref >= owner.ref) {
			owner, startNs, startTicks = p, s, sTicks
		}
	}
	if owner == nil {
		if later {
			// A later execution without a copy of these overwrote them.
			// (Not remembered in lastTS: the reading may still be the
			// later execution's own, once its slot is drained.)
			for _, p := range ps {
				if s, _ := p.dev.toHost(ts.Start, p.ref); p.until != 0 && s+1000 >= p.until && s <= limit {
					h.release(p)
					h.finishNoTS(&p.rec, pb.NoTimestampReason_NO_TIMESTAMP_REASON_OVERWRITTEN)
				} else {
					keep = append(keep, p)
				}
			}
			h.setPending(ev, keep)
		}
		return // or an older reading: the pending launches have not run yet
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
			h.finishTimed(p, ts, startNs, startTicks)
		case p.ref < owner.ref:
			h.release(p)
			h.finishNoTS(&p.rec, pb.NoTimestampReason_NO_TIMESTAMP_REASON_OVERWRITTEN)
		}
	}
}

func (h *Harvester) finishTimed(p *pendingLaunch, ts KernelTimestamp, startNs, startTicks uint64) {
	h.release(p)
	if p.stopped {
		return
	}
	h.finishTimedRec(&p.rec, p.dev, ts, startNs, startTicks)
}

// finishTimedRec writes rec with the times ts (see setTimes).
func (h *Harvester) finishTimedRec(rec *stream.Launch, c *Clock, ts KernelTimestamp, startNs, startTicks uint64) {
	h.setTimes(rec, c, ts, startNs, startTicks)
	h.write(rec)
}

// setTimes gives rec the times ts (startNs, startTicks: its start in host
// ns and unmasked ticks, as c.toHost converted it from a reference before
// the kernel when the caller judged the reading: not converted twice).
func (h *Harvester) setTimes(rec *stream.Launch, c *Clock, ts KernelTimestamp, startNs, startTicks uint64) {
	dur := (ts.End - ts.Start) & c.kernelMask
	if ts.End < ts.Start {
		rec.Flags |= uint32(pb.LaunchFlag_LAUNCH_FLAG_WRAPPED)
	}
	endTicks := startTicks + dur
	rec.DeviceStartNs = startNs
	rec.DeviceEndNs = c.hostNs(endTicks)
	h.timedPass++
}

func (h *Harvester) release(p *pendingLaunch) {
	if p.ours {
		if len(h.lastTS) > 0 {
			delete(h.lastTS, p.event)
		}
		h.rel = append(h.rel, EventRef{Context: p.context, Event: p.event})
		p.ours = false
	}
}

// releaseNow gives the events released in this pass back, in one batch,
// and hands the pass's records to attribution and the writer, in one
// batch too (one call and one channel operation per pass, not per
// launch: see OnLaunches).
func (h *Harvester) releaseNow() {
	h.seen.Add(h.seenPass)
	h.timed.Add(h.timedPass)
	h.seenPass, h.timedPass = 0, 0
	if h.copiedPass|h.hostPass != 0 {
		h.copied.Add(h.copiedPass)
		h.hostRead.Add(h.hostPass)
		h.copiedPass, h.hostPass = 0, 0
	}
	if h.noTSAny {
		for r, n := range h.noTSPass {
			if n > 0 {
				h.noTS[r].Add(n)
			}
		}
		h.noTSPass, h.noTSAny = [32]uint64{}, false
	}
	if len(h.rel) > 0 {
		h.src.ReleaseEvents(h.rel)
		h.rel = h.rel[:0]
	}
	if len(h.ret) > 0 {
		h.src.ReturnEvents(h.ret)
		h.ret = h.ret[:0]
	}
	if len(h.out) > 0 {
		h.handOut()
	}
}

// endList: a regular list was reset or destroyed. Its pending executions
// must have completed (the application synchronised); read them now, then
// recycle the list's events.
func (h *Harvester) endList(id uint32) {
	ls := h.lists[id]
	if ls == nil {
		return
	}
	// The list's events may still hold unread executions. (Nothing waits
	// on a shared event, the usual case with snapshots: no lookup
	// per launch of the list.)
	shared := ls.templates
	if len(h.pending) == 0 {
		shared = nil
	}
	h.rdEv = h.rdEv[:0]
	for i := range shared {
		if ev := ls.templates[i].Event; len(h.pending[ev]) > 0 && !h.pending[ev][0].app {
			h.rdEv = append(h.rdEv, ev)
		}
	}
	h.rdOut = h.src.KernelTimestamps(h.rdEv, h.rdOut[:0])
	h.readNow()
	for i, ev := range h.rdEv {
		if r := &h.rdOut[i]; r.Ready || r.Failed != 0 {
			h.reading(ev, r.TS, r.Err(), false)
		}
	}
	for i := range shared {
		ev := ls.templates[i].Event
		ps := h.pending[ev]
		if len(ps) == 0 || ps[0].app {
			// Launches signalling an application event stay pending:
			// their reading comes from the application's own threads.
			continue
		}
		var keep []*pendingLaunch
		for _, p := range ps {
			if p.rec.CommandListId == uint64(id) {
				h.finishNoTS(&p.rec, pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED)
			} else {
				keep = append(keep, p)
			}
		}
		h.setPending(ev, keep)
	}
	h.endReads(ls)
	delete(h.lists, id)
	if h.lastList == ls {
		h.lastList = nil
	}
	if h.appList == ls {
		h.appList = nil
	}
	ls.ended = true
	// Executions still in flight have their snapshot list read the events:
	// they go back to the pool after the last one was read.
	if ls.inflight == 0 {
		h.releaseListEvents(ls)
	}
}

func (h *Harvester) releaseListEvents(ls *listState) {
	if ls.dead {
		return
	}
	ls.dead = true // once
	// Usually no reading is kept in lastTS: then no map operation per launch.
	shared := len(h.lastTS) > 0
	for i := range ls.templates {
		if t := &ls.templates[i]; t.Flags&SlotFlagOurs != 0 {
			if shared {
				delete(h.lastTS, t.Event)
			}
			h.rel = append(h.rel, EventRef{Context: ls.context, Event: t.Event})
		}
	}
	// Nothing reads an ended list's templates once its executions were
	// read: the next list's appends reuse them (a few of them kept). Not
	// cleared: a template is made by template.set, which writes every
	// field (TestTemplateEveryField), and holds no pointer; clearing them
	// was 64 bytes written per launch more.
	if len(h.tplFree) < 16 && cap(ls.templates) <= 1<<16 {
		h.tplFree = append(h.tplFree, ls.templates[:0])
	}
	ls.templates = nil
}

// contextDestroying harvests everything of a context the application is
// about to destroy, then destroys zestall's events in it.
func (h *Harvester) ContextDestroying(ctx uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drainAllLocked()
	h.harvestLocked(false)
	// Its copies still running complete now, normally: the application
	// waited for its kernels before destroying the context. Its launches
	// in no copy are read on the host, once.
	if h.copier != nil {
		h.collectCopies(ctx, finalCopyWait)
		for i := range h.imm {
			if l := &h.imm[i]; l.context == ctx && l.copy == 0 {
				l.copy = immHost
			}
		}
		h.harvestImmediate(false)
	}
	// Executions of the context not read yet: their snapshots die with it.
	for _, pe := range h.execs {
		if pe.context == ctx && pe.ls != nil {
			pe.ls.dead = true
		}
	}
	keep := h.execs[:0]
	for _, pe := range h.execs {
		if pe.context == ctx {
			h.finishExec(pe, nil, false, nil)
			h.freeExec(pe)
		} else {
			keep = append(keep, pe)
		}
	}
	clear(h.execs[len(keep):])
	h.execs = keep
	for ev, ps := range h.pending {
		var keep []*pendingLaunch
		for _, p := range ps {
			if p.context == ctx {
				p.ours = false // the pools go away with the context
				h.finishNoTS(&p.rec, pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED)
			} else {
				keep = append(keep, p)
			}
		}
		h.setPending(ev, keep)
	}
	keepImm, keepEv := h.imm[:0], h.immEv[:0]
	for i := range h.imm {
		if l := &h.imm[i]; l.context == ctx {
			h.npending-- // its event goes away with the pools
			h.immWriteNoTS(l, pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED)
		} else {
			keepImm, keepEv = append(keepImm, *l), append(keepEv, l.event)
		}
	}
	clear(h.imm[len(keepImm):])
	h.imm, h.immEv = keepImm, keepEv
	// Its copies go with the context (cgo destroys them): none of the
	// FIFO's launches reads them any more.
	for k := range h.copies {
		if c := &h.copies[k]; c.context == ctx && c.state != copyFree {
			h.freeCopy(k)
		}
	}
	for _, ls := range h.readLists {
		for i := range ls.reads {
			if r := &ls.reads[i]; r.waiting && ls.context == ctx {
				h.readDone(ls, r) // its event goes away with the pools
				h.listNoTS(ls, i, pb.NoTimestampReason_NO_TIMESTAMP_REASON_NOT_COMPLETED)
			}
		}
	}
	for id, ls := range h.lists {
		if len(ls.templates) > 0 && ls.context == ctx {
			ls.dead = true
			delete(h.lists, id)
			if h.lastList == ls {
				h.lastList = nil
			}
		}
	}
	for ev := range h.lastTS {
		delete(h.lastTS, ev) // event handles of the context become invalid
	}
	h.releaseNow() // before its pools are destroyed
	h.src.DestroyContextPools(ctx)
}

// pendingBefore is a host time before which every launch is final: the
// earliest reference time of a pending launch, and at most the last drain
// minus a margin for slots published after it (a launch's slot is
// published at the end of its append call).
func (h *Harvester) PendingBefore() uint64 {
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
	for _, pe := range h.execs {
		if len(pe.launches) > 0 && pe.launches[0].ref < t {
			t = pe.launches[0].ref
		}
	}
	for i := range h.imm {
		t = min(t, h.imm[i].ref)
	}
	for _, ls := range h.readLists {
		if ls.nreads > 0 {
			t = min(t, ls.readRef)
		}
	}
	return t
}

// settledBefore says whether every launch appended before t has been
// drained and harvested (a stop edge then needs no drain of the stall
// streamers).
func (h *Harvester) SettledBefore(t uint64) bool {
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
	for _, pe := range h.execs {
		if len(pe.launches) > 0 && pe.launches[0].ref < t {
			return false
		}
	}
	for i := range h.imm {
		if h.imm[i].ref < t {
			return false
		}
	}
	for _, ls := range h.readLists {
		if ls.nreads > 0 && ls.readRef < t {
			return false
		}
	}
	return true
}

// final harvests everything at exit.
func (h *Harvester) Final() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drainAllLocked()
	h.harvestLocked(false)
	h.harvestLocked(true)
	h.releaseNow()
}

// Loss names of the launch path (Counters.lost), stable: tools group by
// them. Every launch the application made while collecting is in exactly
// one of launches_seen (then timed, or without timestamp by reason) or
// LossLaunchesRingFull.
const (
	// Launches that passed untouched because their thread's ring was full
	// (the harvester was behind): not recorded at all.
	LossLaunchesRingFull = "kernel launches (per-thread ring full)"
	// Other launch-path events dropped on a full ring: executions of
	// regular lists (their launches are then not recorded), resets,
	// readings of application events.
	LossSlotsRingFull = "launch-path events (per-thread ring full)"
	// ZESTALL_SERIALIZE waits that timed out.
	LossSerializeTimeouts = "serialized launches not awaited (2 s timeout)"
	// Command lists created past the 2^32-1 list ids (Source.ListsWithoutID).
	LossListNoID = "command lists created without an id (launches without times)"
)

// Counters fills the launch counters. Safe at any time from any goroutine
// (the writer takes them with every flush); it never waits for a pass.
func (h *Harvester) Counters(c *pb.Counters) {
	c.LaunchesSeen = h.seen.Load()
	c.LaunchesTimed = h.timed.Load()
	c.LaunchesTimedByCopy, c.LaunchesTimedByHostQuery = h.Reads()
	for r := range h.noTS {
		if n := h.noTS[r].Load(); n > 0 {
			c.LaunchesWithoutTimestamp = append(c.LaunchesWithoutTimestamp, &pb.ReasonCount{Reason: pb.NoTimestampReason(r), Count: n})
		}
	}
	if n := h.src.SerializeTimeouts(); n > 0 {
		c.Lost = append(c.Lost, &pb.Loss{What: LossSerializeTimeouts, Count: n})
	}
	if n, d := h.src.RingWaits(); n > 0 {
		c.LaunchesWaited, c.LaunchWaitNs = n, uint64(d)
	}
	launches, slots := h.src.Dropped()
	if launches > 0 {
		c.Lost = append(c.Lost, &pb.Loss{What: LossLaunchesRingFull, Count: launches})
	}
	if slots > 0 {
		c.Lost = append(c.Lost, &pb.Loss{What: LossSlotsRingFull, Count: slots})
	}
	if n := h.src.ListsWithoutID(); n > 0 {
		c.Lost = append(c.Lost, &pb.Loss{What: LossListNoID, Count: n})
	}
}

// LossSummary says what of the launch path's work c records as lost or
// untimed for want of capacity (the machine could not keep up, or an event
// failed), for the exit line and the warning ZESTALL_QUIET does not hide;
// "" when nothing was. Reasons that are the application's doing
// (OVERWRITTEN, APPENDED_WHILE_STOPPED, UNSUPPORTED, NOT_COMPLETED at exit)
// are reported by `zestall report`, not here.
func LossSummary(c *pb.Counters) string {
	var parts []string
	for _, l := range c.Lost {
		switch l.What {
		case LossLaunchesRingFull, LossSlotsRingFull, LossSerializeTimeouts:
			parts = append(parts, fmt.Sprintf("%d %s", l.Count, l.What))
		}
	}
	for _, r := range c.LaunchesWithoutTimestamp {
		switch r.Reason {
		case pb.NoTimestampReason_NO_TIMESTAMP_REASON_POOL_EXHAUSTED, pb.NoTimestampReason_NO_TIMESTAMP_REASON_EVENT_ERROR,
			pb.NoTimestampReason_NO_TIMESTAMP_REASON_QUERY_FAILED:
			parts = append(parts, fmt.Sprintf("%d kernel launches without device times (%s)", r.Count,
				strings.TrimPrefix(r.Reason.String(), "NO_TIMESTAMP_REASON_")))
		}
	}
	return strings.Join(parts, ", ")
}
