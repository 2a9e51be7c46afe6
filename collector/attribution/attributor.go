package attribution

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/zestall/zestall/format/eustall"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallwire"
)

// Default Attributor options.
const (
	DefaultMaxUndecided  = 4096
	DefaultKernelFlushNs = 1_000_000_000
	// DefaultMaxLaunchesHeld caps the timed launches one Attributor holds
	// (28 bytes each: 1.75 MiB at the cap). A launch is held while a
	// sample of it can still arrive: SlackNs plus a read interval plus
	// however long windows wait for launch times (see the package notes,
	// "Memory"). 2^16 holds 65 ms of launches at 10^6 launches/s, more
	// than twice what the default 20 ms latency and 10 ms read interval
	// need at that rate.
	DefaultMaxLaunchesHeld = 1 << 16
	launchStoreMin         = 1 << 10 // the store's first soft limit; it doubles up to the cap
	kernelAccLimit         = 1 << 20 // distinct KERNEL rows held before an early flush
	windowPoolRows         = 1 << 15 // row capacity of window buffers kept for reuse
)

// Sample is one row of the driver's calculation for one read: the IP as the
// driver reports it (the masked raw field, 8-byte units) and the summed
// counters in metric order without the IP metric.
type Sample struct {
	IP       uint64
	Counters []uint64
}

// Options tune an Attributor. Zero values mean the defaults.
type Options struct {
	// SlackNs widens read windows backwards by this much when testing
	// overlap with launches and kernel lifetimes (see the time model).
	// Default 0.
	SlackNs uint64
	// MaxUndecided caps the windows waiting for launch times. Beyond it
	// the oldest windows are decided at once; if launches that could
	// overlap them are still pending, all their rows are attributed at
	// kernel level (never guessed) and counted in WindowsForced.
	// Default DefaultMaxUndecided.
	MaxUndecided int
	// KernelFlushNs is how much window time KERNEL rows are summed over
	// before Resolve emits them. Default DefaultKernelFlushNs.
	KernelFlushNs uint64
	// LaunchMarginNs widens every timed launch by this much on both sides:
	// the error bound of device times converted to host ns. Default 0.
	LaunchMarginNs uint64
	// MaxLaunchesHeld caps the timed launches held at once. A launch
	// that finds the cap reached (after launches no window can meet any
	// more were dropped) is not held: its kernel's windows that it could
	// overlap are attributed at kernel level (never guessed), counted in
	// LaunchesNotHeld and DegradedRows. Default DefaultMaxLaunchesHeld.
	MaxLaunchesHeld int
}

// Totals are running totals of one Attributor.
type Totals struct {
	Windows          uint64 // windows given to AddWindow, empty ones included
	WindowsDecided   uint64 // windows with rows that were decided
	WindowsForced    uint64 // of those, decided early at KERNEL level (MaxUndecided)
	WindowsUndecided uint64 // windows with rows still waiting now

	InputRows           uint64 // rows given to AddWindow
	ZeroIPRows          uint64 // rows skipped: IP 0 with all counters 0
	AttributedRows      uint64 // rows matched to a kernel
	UnattributedRows    uint64 // rows kept in Unattributed records
	LaunchRows          uint64 // attributed rows decided as LAUNCH
	SharedRows          uint64 // ... as SHARED
	KernelRows          uint64 // ... as KERNEL
	AmbiguousKernelRows uint64 // attributed rows whose kernel was a tie (see package notes)
	BadWidthRows        uint64 // rows whose Counters length was not metricCount (missing values taken as 0, extra ones ignored)

	// Per counter column: sums over attributed and unattributed rows.
	AttributedCounters   []uint64
	UnattributedCounters []uint64

	// Rows decided while other processes ran kernels on the device (see
	// SetOtherProcesses): attributed rows flagged possibly foreign, and
	// unattributed rows given UNATTRIBUTED_CAUSE_OTHER_PROCESS.
	PossiblyForeignRows   uint64
	UnattributedOtherRows uint64

	LaunchesTimed         uint64 // LaunchTimed calls
	LaunchesNotHeld       uint64 // of those, not held: MaxLaunchesHeld was reached
	DegradedRows          uint64 // KERNEL rows that a launch not held could belong to (LaunchesNotHeld)
	LaunchesUntimed       uint64 // LaunchUntimed calls
	LaunchesUnknownKernel uint64 // launches of kernels not (or no longer) known: ignored

	// What the attributor holds now (memory bound: see maybePrune).
	KernelsHeld  uint64 // kernels not yet forgotten
	LaunchesHeld uint64 // timed and bounded-untimed launch entries of those kernels
}

// SampleSum returns the sum of every counter column of sums.
func SampleSum(sums []uint64) uint64 {
	var t uint64
	for _, v := range sums {
		t += v
	}
	return t
}

// AddTo adds the totals to c. A row is one (IP, read window) entry of the
// driver's calculation with its summed counters: stall_rows_attributed and
// stall_rows_unattributed are AttributedRows and UnattributedRows (rows skipped as IP-0 padding are in
// neither). Several Attributors (one per device or sub-device set) add to
// one Counters record.
func (t *Totals) AddTo(c *pb.Counters) {
	c.StallRowsAttributed += t.AttributedRows
	c.StallRowsUnattributed += t.UnattributedRows
	c.StallRowsPossiblyForeign += t.PossiblyForeignRows
	c.StallRowsUnattributedOtherProcess += t.UnattributedOtherRows
	c.StallLaunchesNotHeld += t.LaunchesNotHeld
	c.StallRowsDegraded += t.DegradedRows
}

// Attributor assigns EU stall samples of one streamer (one device, or one
// sub-device set of a COMPOSITE-mode root device) to kernels, instruction
// offsets and launches. All methods are safe for concurrent use (one
// mutex guards everything, the launch store included); windows must be
// added in time order.
type Attributor struct {
	mu        sync.Mutex
	device    uint32
	subDevice *uint32
	m         int // counter columns
	opt       Options

	kernels map[uint64]*atKernel // known kernels by id
	seq     uint64

	// Address index over the indexed kernels, rebuilt when the set changes.
	dirty   bool
	idx     *eustall.AddrIndex
	entries []atEntry

	undecided   []*atWindow // oldest first
	outbox      []*pb.Record
	lastEnd     uint64 // end of the last window added
	lastStart   uint64 // start of the last window added (starts never decrease)
	lastPending uint64 // pendingBefore of the last Resolve

	// KERNEL rows held for the next kernel flush.
	accKernels []*atKernel
	accRows    int
	accSince   uint64 // window end at which accumulation began
	accAny     bool

	// Pruning: work since the last prune, size after it, and the horizon
	// it pruned to.
	churn, held int
	prunedTo    uint64
	prunes      uint64 // prunes so far: a kernel looked up before one may be forgotten

	// Timed launches held, every kernel's chained in arrival order.
	launches launchStore

	// Other processes running kernels on the device, as last reported
	// (SetOtherProcesses); every window added takes them.
	others      []uint32
	othersKnown bool

	tot Totals

	// scratch
	perm     []int32
	cands    []uint64
	pool     []*atWindow // windows to reuse
	poolRows int         // their row capacity
	keys     []uint64
}

type atKernel struct {
	id     uint64 // code id (CodeID)
	report uint64 // the kernel id its rows are reported under
	base32 uint32
	size   uint64 // ISA bytes, at most 2^32
	from   uint64
	until  uint64 // math.MaxUint64 while alive
	seq    uint64

	// Timed launches held: a chain through a.launches, oldest first
	// (-1: none). unordered: some launch in the chain starts before the
	// one chained before it; otherwise the chain is in start order, and a
	// walk for the launches starting by some time stops at the first that
	// starts later (launches back to back at a high rate: the chain holds
	// a latency's worth after any window, tens of thousands).
	first, last int32
	unordered   bool
	// Timed launches not held (over MaxLaunchesHeld) lie within
	// [notHeldFrom, notHeldUntil] when notHeld: windows meeting that
	// span stay at kernel level.
	notHeld                   bool
	notHeldFrom, notHeldUntil uint64
	untimed                   []atUntimed
	// A launch of LaunchNeverTimed appended at neverTimedFrom, the
	// earliest such.
	neverTimed     bool
	neverTimedFrom uint64

	// KERNEL rows held, one per offset: offsets, row-major counters, and
	// the row of each offset.
	accOff     []uint32
	accCnt     []uint64
	accIdx     map[uint32]int32
	accForeign bool // some held row came from a possibly foreign window
}

type atUntimed struct{ id, appendNs, endedBy uint64 }

// atEntry is what an index range stands for: one kernel, or a group of
// kernels whose ranges overlap (address reuse), resolved by scanning.
type atEntry struct {
	k     *atKernel
	group []*atKernel
}

type atRow struct {
	k   *atKernel // nil while ambiguous
	off uint32    // offset in k; the address while ambiguous
	amb int32     // index into window.amb, or -1
	ci  int32     // first counter of the row in window.cnt
}

type atWindow struct {
	start, end uint64
	rows       []atRow
	cnt        []uint64 // m counters per attributed row
	amb        [][]*atKernel
	uaAddr     []uint64
	uaCnt      []uint64 // m counters per unattributed row
	others     []uint32 // other processes running kernels on the device (shared, never modified)
	known      bool     // others was asked of the driver
}

// NewAttributor returns an Attributor for the streamer of device (and of
// sub-device set *subDevice in COMPOSITE mode; nil otherwise) whose
// calculation yields metricCount counter columns besides the IP.
func New(device uint32, subDevice *uint32, metricCount int) *Attributor {
	var sub *uint32
	if subDevice != nil {
		s := *subDevice
		sub = &s
	}
	metricCount = max(metricCount, 0)
	a := &Attributor{
		device:    device,
		subDevice: sub,
		m:         metricCount,
		kernels:   make(map[uint64]*atKernel),
		dirty:     true, // the first window builds the index, even with no kernel
		launches:  launchStore{free: -1},
	}
	a.tot.AttributedCounters = make([]uint64, metricCount)
	a.tot.UnattributedCounters = make([]uint64, metricCount)
	a.setOptions(Options{})
	return a
}

// SetOptions changes the options; zero fields take their defaults.
func (a *Attributor) SetOptions(o Options) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.setOptions(o)
}

func (a *Attributor) setOptions(o Options) {
	if o.MaxUndecided <= 0 {
		o.MaxUndecided = DefaultMaxUndecided
	}
	if o.KernelFlushNs == 0 {
		o.KernelFlushNs = DefaultKernelFlushNs
	}
	if o.MaxLaunchesHeld <= 0 {
		o.MaxLaunchesHeld = DefaultMaxLaunchesHeld
	}
	a.opt = o
}

// KernelCreated registers a kernel: its full 64-bit base address (only the
// low 32 bits are compared with samples), its ISA size in bytes and the host
// ns from which the address range is its own. Call it before any launch of
// the kernel is reported. A copy of a kernel's code (launch separation by
// copies) is registered the same way under CodeID(kernel, copy), with the
// copy's base address; its launches are reported under that id too, and
// its rows under the kernel's.
func (a *Attributor) KernelCreated(kernelID uint64, base uint64, isaSize uint64, fromNs uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++
	if old := a.kernels[kernelID]; old != nil {
		a.launches.freeChain(old)
	}
	a.kernels[kernelID] = &atKernel{
		id:     kernelID,
		report: reportedID(kernelID),
		base32: uint32(base),
		size:   min(isaSize, 1<<32),
		from:   fromNs,
		until:  math.MaxUint64,
		seq:    a.seq,
		first:  -1,
		last:   -1,
	}
	a.dirty = true
	a.churn++
}

// KernelDestroyed ends a kernel's lifetime at untilNs (exclusive).
func (a *Attributor) KernelDestroyed(kernelID uint64, untilNs uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if k := a.kernels[kernelID]; k != nil && k.until == math.MaxUint64 {
		k.until = untilNs
		a.churn++
	}
}

// LaunchTimed reports a launch's device times in host ns.
func (a *Attributor) LaunchTimed(launchID, kernelID uint64, startNs, endNs uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.launchTimed(a.kernels[kernelID], launchID, startNs, endNs)
}

// Launches reports the finished launches of ls that ran on device, in
// order, as the harvester hands them over in a batch (stream.Launch
// records, collector/timing's hand-off): each exactly as LaunchTimed, or
// LaunchNeverTimed when it carries LAUNCH_FLAG_NO_TIMESTAMP (the
// harvester's untimed launches never get an end), under CodeID(kernel,
// code copy). Launches of other devices are skipped, so that a batch of
// several devices goes whole to every attributor. One lock and no
// allocation per batch, not two locked calls per launch: the hand-off
// of a launch to the stall reader took 85–93 ns on zestall's threads,
// 14–18 ns with batches, most of it the launch store's own work
// (BENCHMARKS.md, "Issue 14, session 14"; docs/go-runtime.md §2 "Calls
// per launch").
func (a *Attributor) Launches(device uint32, ls []stream.Launch) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// Consecutive launches mostly run one code: its kernel is looked up
	// once. The lookup stays valid while the map is unchanged: under
	// a.mu only KernelCreated (not during a batch) and prune (counted in
	// a.prunes) change it.
	var (
		code   uint64
		k      *atKernel
		valid  bool
		prunes = a.prunes
	)
	for i := range ls {
		l := &ls[i]
		if l.DeviceId != device {
			continue
		}
		c := CodeID(l.KernelId, l.CodeCopy)
		if !valid || c != code || a.prunes != prunes {
			code, k, valid, prunes = c, a.kernels[c], true, a.prunes
		}
		if l.Flags&uint32(pb.LaunchFlag_LAUNCH_FLAG_NO_TIMESTAMP) != 0 {
			a.launchNeverTimed(k, l.HostAppendNs)
		} else {
			a.launchTimed(k, l.Id, l.DeviceStartNs, l.DeviceEndNs)
		}
	}
}

// launchTimed is LaunchTimed of a launch of kernel k (nil: unknown). a.mu
// is held.
func (a *Attributor) launchTimed(k *atKernel, launchID, startNs, endNs uint64) {
	a.tot.LaunchesTimed++
	if k == nil {
		a.tot.LaunchesUnknownKernel++
		return
	}
	endNs = max(endNs, startNs)
	startNs = sat(startNs, a.opt.LaunchMarginNs)
	endNs = min(endNs, math.MaxUint64-a.opt.LaunchMarginNs) + a.opt.LaunchMarginNs
	a.churn++
	if a.launches.full() {
		prunes := a.prunes
		a.makeRoom()
		if a.prunes != prunes && k.until <= a.prunedTo {
			// The prune forgot k (destroyed before every window still to
			// come): no window can meet the launch, and a launch chained
			// to a kernel no longer in the map would never be freed.
			return
		}
	}
	if a.launches.full() {
		// Over the cap: the launch is not held, and every window it could
		// overlap stays at kernel level.
		a.tot.LaunchesNotHeld++
		if !k.notHeld {
			k.notHeld, k.notHeldFrom, k.notHeldUntil = true, startNs, endNs
		} else {
			k.notHeldFrom = min(k.notHeldFrom, startNs)
			k.notHeldUntil = max(k.notHeldUntil, endNs)
		}
		return
	}
	a.launches.add(k, launchID, startNs, endNs)
}

// makeRoom frees room in the full launch store: it drops the launches no
// window can meet any more when the horizon moved since the last prune
// (at most one such pass per read, not one per launch), and otherwise
// raises the store's soft limit up to the cap. a.mu is held.
func (a *Attributor) makeRoom() {
	if a.horizon() > a.prunedTo {
		a.prune()
	}
	if a.launches.full() {
		a.launches.raise(a, a.opt.MaxLaunchesHeld)
	}
}

// LaunchUntimed reports a launch that will never get device times,
// appended at appendNs. Until UntimedEndedBy bounds it, it keeps the
// kernel's samples at kernel level in every window ending at or after
// appendNs.
func (a *Attributor) LaunchUntimed(launchID, kernelID uint64, appendNs uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	k := a.untimedKernel(a.kernels[kernelID])
	if k == nil {
		return
	}
	k.untimed = append(k.untimed, atUntimed{launchID, appendNs, math.MaxUint64})
	a.churn++
}

// LaunchNeverTimed reports a launch that will never get device times nor
// an end bound (UntimedEndedBy is never called for it), appended at
// appendNs: from then on, as with LaunchUntimed, the kernel's samples stay
// at kernel level. Only the earliest such launch of a kernel matters, so
// one time per kernel is kept, not one entry per launch: memory does not
// grow with the number of untimed launches of a long run.
func (a *Attributor) LaunchNeverTimed(launchID, kernelID uint64, appendNs uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.launchNeverTimed(a.kernels[kernelID], appendNs)
}

// launchNeverTimed is LaunchNeverTimed of a launch of kernel k (nil:
// unknown). a.mu is held.
func (a *Attributor) launchNeverTimed(k *atKernel, appendNs uint64) {
	if k = a.untimedKernel(k); k == nil {
		return
	}
	if !k.neverTimed || appendNs < k.neverTimedFrom {
		k.neverTimed, k.neverTimedFrom = true, appendNs
	}
}

// untimedKernel counts an untimed launch of kernel k and returns k; an
// unknown kernel (nil) is counted too. a.mu is held.
func (a *Attributor) untimedKernel(k *atKernel) *atKernel {
	a.tot.LaunchesUntimed++
	if k == nil {
		a.tot.LaunchesUnknownKernel++
	}
	return k
}

// UntimedEndedBy bounds an untimed launch: it had certainly finished by
// host ns byNs (a later launch of the same in-order command list started
// then, or the list was synchronized or reset). Windows starting after byNs
// (less the slack) are no longer affected by it. Optional.
func (a *Attributor) UntimedEndedBy(launchID, kernelID uint64, byNs uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	k := a.kernels[kernelID]
	if k == nil {
		return
	}
	for i := range k.untimed {
		if k.untimed[i].id == launchID {
			k.untimed[i].endedBy = min(k.untimed[i].endedBy, byNs)
		}
	}
}

// AddWindow records the samples delivered by the read at endNs, produced in
// (startNs, endNs]. Each sample's Counters must hold metricCount values.
// Cost: O(len(samples)) lookups, O(1) each on average.
func (a *Attributor) AddWindow(startNs, endNs uint64, samples []Sample) {
	a.mu.Lock()
	defer a.mu.Unlock()
	w := a.beginWindow(startNs, endNs, len(samples))
	if w == nil {
		return
	}
	lo := sat(startNs, a.opt.SlackNs)
	for i := range samples {
		a.addRow(w, lo, samples[i].IP, samples[i].Counters)
	}
	a.endWindow(w)
}

// AddWindowValues is AddWindow for the driver's flat value array: report r,
// metric j at values[r*(metricCount+1)+j], the IP at metric ipIndex (as
// zetMetricGroupCalculateMultipleMetricValuesExp and eustall's Aggregate
// return them, one set).
func (a *Attributor) AddWindowValues(startNs, endNs uint64, values []uint64, ipIndex int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	stride := a.m + 1
	n := len(values) / stride
	w := a.beginWindow(startNs, endNs, n)
	if w == nil {
		return
	}
	if ipIndex < 0 || ipIndex > a.m {
		ipIndex = 0
	}
	lo := sat(startNs, a.opt.SlackNs)
	var tmp []uint64
	if ipIndex != 0 && ipIndex != a.m {
		tmp = make([]uint64, a.m)
	}
	for r := 0; r < n; r++ {
		rep := values[r*stride : (r+1)*stride]
		ip := rep[ipIndex]
		var cs []uint64
		switch ipIndex {
		case 0:
			cs = rep[1:]
		case a.m:
			cs = rep[:a.m]
		default:
			copy(tmp, rep[:ipIndex])
			copy(tmp[ipIndex:], rep[ipIndex+1:])
			cs = tmp
		}
		a.addRow(w, lo, ip, cs)
	}
	a.endWindow(w)
}

// SetOtherProcesses says which other processes run kernels on the device
// (ascending pids; known: the driver could be asked, Sysman
// zesDeviceProcessesGetState). Windows added from now on take this set:
// the EU stall unit samples the whole tile and the IP is an offset from
// each process's own instruction base, so while another process runs
// kernels its samples can land on our kernels' addresses (those rows are
// flagged possibly foreign) and samples at no address of ours are most
// likely its (UNATTRIBUTED_CAUSE_OTHER_PROCESS); with no other process
// they can only be the driver's own kernels
// (UNATTRIBUTED_CAUSE_DRIVER_INTERNAL).
func (a *Attributor) SetOtherProcesses(pids []uint32, known bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if known == a.othersKnown && slices.Equal(pids, a.others) {
		return
	}
	a.others, a.othersKnown = slices.Clone(pids), known
}

// NoSamplesUntil records that a read found no sample buffered at host ns
// hostNs: no window will start before it. It lets maybePrune drop timed
// launches while the device produces no samples at all (kernels shorter
// than the sampling period, or none running); without it they were held
// for the whole run (issue 14: 726 MiB at 10^7 launches of zero-length
// kernels with sampling on).
func (a *Attributor) NoSamplesUntil(hostNs uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	// The reader starts its next window at hostNs (the empty read's
	// beginning): the prune horizon (maybePrune, lastStart) may move there.
	a.lastEnd = max(a.lastEnd, hostNs)
	a.lastStart = max(a.lastStart, hostNs)
}

func (a *Attributor) beginWindow(startNs, endNs uint64, n int) *atWindow {
	a.tot.Windows++
	a.tot.InputRows += uint64(n)
	a.lastEnd = max(a.lastEnd, endNs)
	a.lastStart = max(a.lastStart, startNs)
	if n == 0 {
		return nil
	}
	if a.dirty {
		a.rebuildIndex()
	}
	var w *atWindow
	if k := len(a.pool); k > 0 {
		w = a.pool[k-1]
		a.pool = a.pool[:k-1]
		a.poolRows -= cap(w.rows)
	} else {
		w = new(atWindow)
	}
	w.start, w.end = startNs, endNs
	w.others, w.known = a.others, a.othersKnown
	if cap(w.rows) < n {
		w.rows = make([]atRow, 0, n)
		w.cnt = make([]uint64, 0, n*a.m)
	}
	return w
}

func (a *Attributor) endWindow(w *atWindow) {
	if len(w.rows) == 0 && len(w.uaAddr) == 0 {
		a.recycle(w)
		return
	}
	a.undecided = append(a.undecided, w)
	for len(a.undecided) > a.opt.MaxUndecided {
		w := a.undecided[0]
		a.undecided = a.undecided[1:]
		a.outbox = a.decide(a.outbox, w, a.lastPending <= w.end)
	}
}

// addRow attributes one row to a kernel or keeps it unattributed.
func (a *Attributor) addRow(w *atWindow, lo uint64, ip uint64, cs []uint64) {
	m := a.m
	if len(cs) != m {
		a.tot.BadWidthRows++
		if len(cs) > m {
			cs = cs[:m]
		}
	}
	if ip == 0 && allZero(cs) {
		a.tot.ZeroIPRows++
		return
	}
	addr := uint32(ip << 3)
	if ki, _, ok := a.idx.Lookup(addr); ok {
		e := &a.entries[ki]
		if k := e.k; k != nil {
			if alive(k, lo, w.end) {
				w.rows = append(w.rows, atRow{k: k, off: addr - k.base32, amb: -1, ci: int32(len(w.cnt))})
				w.cnt = appendCounters(w.cnt, cs, m)
				addSums(a.tot.AttributedCounters, cs)
				a.tot.AttributedRows++
				return
			}
		} else if a.addGroupRow(w, lo, e.group, addr, cs) {
			return
		}
	}
	w.uaAddr = append(w.uaAddr, ip<<3)
	w.uaCnt = appendCounters(w.uaCnt, cs, m)
	addSums(a.tot.UnattributedCounters, cs)
	a.tot.UnattributedRows++
}

// addGroupRow handles an address in a range shared by several kernels.
func (a *Attributor) addGroupRow(w *atWindow, lo uint64, group []*atKernel, addr uint32, cs []uint64) bool {
	var found *atKernel
	var many []*atKernel
	for _, k := range group {
		if uint64(addr-k.base32) < k.size && alive(k, lo, w.end) {
			if found == nil {
				found = k
			} else {
				if many == nil {
					many = []*atKernel{found}
				}
				many = append(many, k)
			}
		}
	}
	if found == nil {
		return false
	}
	row := atRow{k: found, off: addr - found.base32, amb: -1, ci: int32(len(w.cnt))}
	if many != nil {
		// Decided with the launches, when the window is decided.
		row = atRow{off: addr, amb: int32(len(w.amb)), ci: int32(len(w.cnt))}
		w.amb = append(w.amb, many)
	}
	w.rows = append(w.rows, row)
	w.cnt = appendCounters(w.cnt, cs, a.m)
	addSums(a.tot.AttributedCounters, cs)
	a.tot.AttributedRows++
	return true
}

// alive reports whether k's lifetime [from, until) meets (lo, end].
func alive(k *atKernel, lo, end uint64) bool {
	return k.from <= end && k.until > lo+1
}

func appendCounters(dst, cs []uint64, m int) []uint64 {
	dst = append(dst, cs...)
	for i := len(cs); i < m; i++ {
		dst = append(dst, 0)
	}
	return dst
}

func addSums(sums, cs []uint64) {
	for j, v := range cs {
		sums[j] += v
	}
}

func allZero(cs []uint64) bool {
	for _, v := range cs {
		if v != 0 {
			return false
		}
	}
	return true
}

func sat(x, y uint64) uint64 {
	if x < y {
		return 0
	}
	return x - y
}

// rebuildIndex indexes every known kernel with a non-empty range. Ranges
// that overlap (a reused address range while the old kernel may still
// matter, or overlapping sizes) are merged into one group entry.
func (a *Attributor) rebuildIndex() {
	a.dirty = false
	type piece struct {
		start, end uint64 // [start, end) within [0, 2^32)
		k          *atKernel
	}
	ps := make([]piece, 0, len(a.kernels))
	for _, k := range a.kernels {
		if k.size == 0 {
			continue
		}
		end := uint64(k.base32) + k.size
		ps = append(ps, piece{uint64(k.base32), min(end, 1<<32), k})
		if end > 1<<32 {
			ps = append(ps, piece{0, end - 1<<32, k})
		}
	}
	slices.SortFunc(ps, func(x, y piece) int {
		return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.k.seq, y.k.seq))
	})
	ranges := make([]eustall.KernelRange, 0, len(ps))
	a.entries = a.entries[:0]
	for i := 0; i < len(ps); {
		j, end := i+1, ps[i].end
		for j < len(ps) && ps[j].start < end {
			end = max(end, ps[j].end)
			j++
		}
		size := min(end-ps[i].start, math.MaxUint32)
		ranges = append(ranges, eustall.KernelRange{Base32: uint32(ps[i].start), Size: uint32(size)})
		var e atEntry
		if j == i+1 {
			e.k = ps[i].k
		} else {
			for _, p := range ps[i:j] {
				if !slices.Contains(e.group, p.k) {
					e.group = append(e.group, p.k)
				}
			}
			if len(e.group) == 1 {
				e.k, e.group = e.group[0], nil
			}
		}
		a.entries = append(a.entries, e)
		i = j
	}
	a.idx, _ = eustall.NewAddrIndex(ranges) // fails only beyond 2^30 ranges
	if a.idx == nil {
		a.idx, _ = eustall.NewAddrIndex(nil)
	}
}

// Resolve decides the windows that can be decided and returns their
// records. pendingBefore is the smallest host append time of any launch
// whose device times are still awaited, or math.MaxUint64 when there is
// none: every launch appended before it has been given to LaunchTimed,
// LaunchNeverTimed, Launches or LaunchUntimed. (The caller must also account for launches appended but
// not yet seen by it, e.g. by passing at most the time up to which the
// launch-path slots were drained.) A window (S, E] is decided when
// pendingBefore > E; final decides every window and flushes KERNEL rows.
func (a *Attributor) Resolve(pendingBefore uint64, final bool) []*pb.Record {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lastPending = pendingBefore
	out := a.outbox
	a.outbox = nil
	n := 0
	for _, w := range a.undecided {
		if !final && pendingBefore <= w.end {
			break
		}
		out = a.decide(out, w, false)
		n++
	}
	clear(a.undecided[:n])
	a.undecided = a.undecided[n:]
	if a.accAny && (final || a.accRows >= kernelAccLimit || sat(a.lastEnd, a.accSince) >= a.opt.KernelFlushNs) {
		out = a.flushKernelRows(out)
	}
	a.maybePrune()
	return out
}

// Totals returns a copy of the running totals.
func (a *Attributor) Totals() Totals {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.tot
	t.AttributedCounters = slices.Clone(a.tot.AttributedCounters)
	t.UnattributedCounters = slices.Clone(a.tot.UnattributedCounters)
	t.WindowsUndecided = uint64(len(a.undecided))
	t.KernelsHeld = uint64(len(a.kernels))
	t.LaunchesHeld = uint64(a.launches.n)
	for _, k := range a.kernels {
		t.LaunchesHeld += uint64(len(k.untimed))
	}
	return t
}

// decide attributes the rows of w and appends its records to out. forced:
// launches that could overlap w may still be pending, so every row is
// attributed at kernel level.
func (a *Attributor) decide(out []*pb.Record, w *atWindow, forced bool) []*pb.Record {
	a.tot.WindowsDecided++
	if forced {
		a.tot.WindowsForced++
	}
	lo := sat(w.start, a.opt.SlackNs)
	m := a.m
	foreign := len(w.others) > 0

	// Ambiguous kernels: prefer those with a timed launch in the window,
	// then the most recently created.
	var launched map[*atKernel]bool
	if len(w.amb) > 0 {
		launched = make(map[*atKernel]bool)
		for _, cands := range w.amb {
			for _, k := range cands {
				if _, ok := launched[k]; !ok {
					launched[k] = !forced && a.hasTimedIn(k, lo, w.end)
				}
			}
		}
	}
	// Kernels that shared an address with the picked kernel in this
	// window: several kernel objects created from one module share its
	// code, and re-created modules may reuse addresses. Their launches are
	// all candidates for the picked kernel's rows.
	var sharers map[*atKernel][]*atKernel
	for i := range w.rows {
		r := &w.rows[i]
		if r.amb < 0 {
			continue
		}
		cands := w.amb[r.amb]
		var withLaunch *atKernel
		nl := 0
		for _, k := range cands {
			if launched[k] {
				withLaunch = k
				nl++
			}
		}
		var pick *atKernel
		if nl == 1 {
			pick = withLaunch
		} else {
			a.tot.AmbiguousKernelRows++
			for _, k := range cands {
				if nl > 1 && !launched[k] {
					continue
				}
				if pick == nil || k.from > pick.from || (k.from == pick.from && k.seq > pick.seq) {
					pick = k
				}
			}
		}
		r.k, r.off, r.amb = pick, r.off-pick.base32, -1
		if sharers == nil {
			sharers = make(map[*atKernel][]*atKernel)
		}
		for _, k := range cands {
			if k != pick && !slices.Contains(sharers[pick], k) {
				sharers[pick] = append(sharers[pick], k)
			}
		}
	}

	// Group by kernel (creation order), offsets ascending. The driver
	// delivers rows by ascending IP, so this is often sorted already.
	byKernel := func(x, y atRow) int {
		return cmp.Or(cmp.Compare(x.k.seq, y.k.seq), cmp.Compare(x.off, y.off))
	}
	if !slices.IsSortedFunc(w.rows, byKernel) {
		slices.SortFunc(w.rows, byKernel)
	}
	for i := 0; i < len(w.rows); {
		k := w.rows[i].k
		j := i + 1
		for j < len(w.rows) && w.rows[j].k == k {
			j++
		}
		rows := w.rows[i:j]
		i = j

		att := pb.StallAttribution_STALL_ATTRIBUTION_KERNEL
		var ids []uint64
		degraded := false
		if !forced {
			ids, degraded = a.candidates(k, a.cands[:0], lo, w.end)
			for _, o := range sharers[k] {
				if ids == nil {
					break
				}
				more, d := a.candidates(o, nil, lo, w.end)
				if more == nil {
					// An untimed launch of a sharer, or one not held,
					// could overlap.
					ids, degraded = nil, d
					break
				}
				ids = append(ids, more...)
				slices.Sort(ids)
				ids = slices.Compact(ids)
			}
			if ids != nil {
				a.cands = ids[:0]
			}
			switch {
			case ids == nil: // untimed launch could overlap
			case len(ids) == 1:
				att = pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH
			case len(ids) >= minRangedCandidates && 2*idRuns(ids) < len(ids):
				att = pb.StallAttribution_STALL_ATTRIBUTION_SHARED_RANGES
			case len(ids) > 1:
				att = pb.StallAttribution_STALL_ATTRIBUTION_SHARED
			}
		}
		switch att {
		case pb.StallAttribution_STALL_ATTRIBUTION_KERNEL:
			a.tot.KernelRows += uint64(len(rows))
			if degraded {
				a.tot.DegradedRows += uint64(len(rows))
			}
			if foreign {
				a.tot.PossiblyForeignRows += uint64(len(rows))
				k.accForeign = true
			}
			if !a.accAny {
				a.accAny, a.accSince = true, w.end
			}
			if len(k.accOff) == 0 {
				a.accKernels = append(a.accKernels, k)
			}
			if k.accIdx == nil {
				k.accIdx = make(map[uint32]int32)
			}
			for _, r := range rows {
				x, ok := k.accIdx[r.off]
				if !ok {
					x = int32(len(k.accOff))
					k.accIdx[r.off] = x
					k.accOff = append(k.accOff, r.off)
					k.accCnt = append(k.accCnt, w.cnt[r.ci:int(r.ci)+m]...)
					a.accRows++
					continue
				}
				acc := k.accCnt[int(x)*m : int(x)*m+m]
				for c, v := range w.cnt[r.ci : int(r.ci)+m] {
					acc[c] += v
				}
			}
			continue
		case pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH:
			a.tot.LaunchRows += uint64(len(rows))
		default:
			a.tot.SharedRows += uint64(len(rows))
		}
		if foreign {
			a.tot.PossiblyForeignRows += uint64(len(rows))
		}
		// Rows are sorted by offset: merge equal offsets, store by column.
		deltas, counters := packColumns(len(rows), m,
			func(x int) uint64 { return uint64(rows[x].off) },
			func(x int) []uint64 { return w.cnt[rows[x].ci : int(rows[x].ci)+m] })
		s := &pb.StallRows{
			KernelId:          k.report,
			DeviceId:          a.device,
			SubDeviceIndex:    a.subDevice,
			Attribution:       att,
			WindowStartHostNs: w.start,
			WindowEndHostNs:   w.end,
			ColumnCount:       uint32(m),
			OffsetDeltas:      deltas,
			Counters:          counters,
			PossiblyForeign:   foreign,
		}
		if att == pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH {
			s.LaunchId = ids[0]
		} else if att == pb.StallAttribution_STALL_ATTRIBUTION_SHARED_RANGES {
			s.CandidateLaunchIdRanges = idRanges(ids)
		} else {
			s.CandidateLaunchIds = slices.Clone(ids)
		}
		out = append(out, &pb.Record{Kind: &pb.Record_StallRows{StallRows: s}})
	}

	if len(w.uaAddr) > 0 {
		out = append(out, &pb.Record{Kind: &pb.Record_Unattributed{Unattributed: a.unattributed(w)}})
	}
	a.recycle(w)
	return out
}

func (a *Attributor) unattributed(w *atWindow) *pb.Unattributed {
	m := a.m
	perm := a.perm[:0]
	for i := range w.uaAddr {
		perm = append(perm, int32(i))
	}
	a.perm = perm
	if !slices.IsSorted(w.uaAddr) { // the driver delivers ascending IPs
		slices.SortFunc(perm, func(x, y int32) int { return cmp.Compare(w.uaAddr[x], w.uaAddr[y]) })
	}
	deltas, counters := packColumns(len(perm), m,
		func(x int) uint64 { return w.uaAddr[perm[x]] },
		func(x int) []uint64 { return w.uaCnt[int(perm[x])*m : int(perm[x])*m+m] })
	u := &pb.Unattributed{
		DeviceId:          a.device,
		SubDeviceIndex:    a.subDevice,
		WindowStartHostNs: w.start,
		WindowEndHostNs:   w.end,
		ColumnCount:       uint32(m),
		AddressDeltas:     deltas,
		Counters:          counters,
	}
	switch {
	case !w.known:
		u.Cause = pb.UnattributedCause_UNATTRIBUTED_CAUSE_UNKNOWN
	case len(w.others) > 0:
		u.Cause = pb.UnattributedCause_UNATTRIBUTED_CAUSE_OTHER_PROCESS
		u.OtherPids = slices.Clone(w.others)
		a.tot.UnattributedOtherRows += uint64(len(w.uaAddr))
	default:
		u.Cause = pb.UnattributedCause_UNATTRIBUTED_CAUSE_DRIVER_INTERNAL
	}
	return u
}

func (a *Attributor) recycle(w *atWindow) {
	clear(w.rows) // drop kernel pointers
	w.rows, w.cnt, w.uaAddr, w.uaCnt = w.rows[:0], w.cnt[:0], w.uaAddr[:0], w.uaCnt[:0]
	w.others, w.known = nil, false
	w.amb = nil
	if a.poolRows+cap(w.rows) <= windowPoolRows {
		a.pool = append(a.pool, w)
		a.poolRows += cap(w.rows)
	}
}

// flushKernelRows emits the KERNEL rows held, one record per kernel.
func (a *Attributor) flushKernelRows(out []*pb.Record) []*pb.Record {
	m := a.m
	slices.SortFunc(a.accKernels, func(x, y *atKernel) int {
		return cmp.Or(cmp.Compare(x.id, y.id), cmp.Compare(x.seq, y.seq))
	})
	for _, k := range a.accKernels {
		// Sort (offset, row) pairs packed in one word.
		keys := a.keys[:0]
		for i, off := range k.accOff {
			keys = append(keys, uint64(off)<<32|uint64(i))
		}
		a.keys = keys
		slices.Sort(keys)
		deltas, counters := packColumns(len(keys), m,
			func(x int) uint64 { return keys[x] >> 32 },
			func(x int) []uint64 { p := int(uint32(keys[x])); return k.accCnt[p*m : p*m+m] })
		s := &pb.StallRows{
			KernelId:       k.report,
			DeviceId:       a.device,
			SubDeviceIndex: a.subDevice,
			Attribution:    pb.StallAttribution_STALL_ATTRIBUTION_KERNEL,
			ColumnCount:    uint32(m),
			OffsetDeltas:   deltas,
			Counters:       counters,
			// Summed over windows: possibly foreign if any of them was.
			PossiblyForeign: k.accForeign,
		}
		k.accForeign = false
		out = append(out, &pb.Record{Kind: &pb.Record_StallRows{StallRows: s}})
		if len(k.accOff) <= 1024 {
			// Reuse: the same kernels recur.
			k.accOff, k.accCnt = k.accOff[:0], k.accCnt[:0]
			clear(k.accIdx)
		} else {
			k.accOff, k.accCnt, k.accIdx = nil, nil, nil
		}
	}
	clear(a.accKernels)
	a.accKernels = a.accKernels[:0]
	a.accRows, a.accAny = 0, false
	return out
}

// hasTimedIn reports whether k has a timed launch overlapping (lo, end],
// one not held included.
func (a *Attributor) hasTimedIn(k *atKernel, lo, end uint64) bool {
	if k.notHeld && k.notHeldFrom <= end && k.notHeldUntil > lo {
		return true
	}
	ls := &a.launches
	for i := k.first; i >= 0; i = ls.next[i] {
		if ls.start[i] > end {
			if !k.unordered {
				break // the rest start later still
			}
			continue
		}
		if ls.end[i] > lo {
			return true
		}
	}
	return false
}

// minRangedCandidates is the fewest launches a SHARED row names as ranges
// of ids (STALL_ATTRIBUTION_SHARED_RANGES) rather than one by one: launches
// back to back at a high rate overlap a read window, widened by the
// delivery latency, by the tens of thousands, mostly with consecutive ids;
// a handful of overlapping launches stays a list.
const minRangedCandidates = 16

// idRuns is how many runs of consecutive ids the ascending ids hold.
func idRuns(ids []uint64) int {
	n := 1
	for i := 1; i < len(ids); i++ {
		if ids[i] != ids[i-1]+1 {
			n++
		}
	}
	return n
}

// idRanges is the ascending ids as pairs (first, last) of their runs of
// consecutive ids (StallRows.candidate_launch_id_ranges).
func idRanges(ids []uint64) []uint64 {
	var out []uint64
	first := ids[0]
	for i := 1; i <= len(ids); i++ {
		if i == len(ids) || ids[i] != ids[i-1]+1 {
			out = append(out, first, ids[i-1])
			if i < len(ids) {
				first = ids[i]
			}
		}
	}
	return out
}

// candidates appends to dst the ids, ascending, of k's timed launches that
// overlap (lo, end]. It returns nil when an untimed launch of k, or a
// timed one not held, could overlap the window (attribution must stay at
// kernel level); degraded says it was one not held.
func (a *Attributor) candidates(k *atKernel, dst []uint64, lo, end uint64) (ids []uint64, degraded bool) {
	if k.neverTimed && k.neverTimedFrom <= end {
		return nil, false
	}
	for _, u := range k.untimed {
		if u.appendNs <= end && u.endedBy > lo {
			return nil, false
		}
	}
	if k.notHeld && k.notHeldFrom <= end && k.notHeldUntil > lo {
		return nil, true
	}
	// The chain holds only launches ending after the last prune's
	// horizon: about a latency plus a read's worth of k's launches, most
	// of which overlap the windows still to decide.
	ls := &a.launches
	n0, ascending := len(dst), true
	for i := k.first; i >= 0; i = ls.next[i] {
		if ls.start[i] > end {
			if !k.unordered {
				break // the rest start later still
			}
			continue
		}
		if ls.end[i] > lo {
			id := ls.id[i]
			if len(dst) > n0 && id <= dst[len(dst)-1] {
				ascending = false
			}
			dst = append(dst, id)
		}
	}
	if !ascending { // else sorted and distinct already (one thread's launches, in order)
		slices.Sort(dst)
		dst = slices.Compact(dst) // a launch reported twice
	}
	if dst == nil {
		dst = []uint64{}
	}
	return dst, false
}

// horizon is the widened start of the oldest window still to decide or to
// come: launches ending at or before it can meet no window any more.
func (a *Attributor) horizon() uint64 {
	// Consecutive read windows overlap: a window starts where the
	// previous read began, before that read ended. So the next window may
	// start before the last one's end, never before its start.
	h := a.lastStart
	if len(a.undecided) > 0 {
		h = a.undecided[0].start
	}
	// Every window still to decide or to come is (S, E] with S >= h, and
	// its widened start S − slack >= lo.
	return sat(h, a.opt.SlackNs)
}

// maybePrune forgets launches and kernels that no undecided or future
// window can meet, once enough has changed since the last prune (amortized
// O(1) per call of the other methods).
func (a *Attributor) maybePrune() {
	// A quarter of what is held: a candidates walk (decide) passes over
	// the launches a prune would free, and at a high launch rate the
	// chains hold tens of thousands.
	if a.churn < max(256, a.held/4) {
		return
	}
	a.prune()
}

func (a *Attributor) prune() {
	a.churn = 0
	a.prunes++
	lo := a.horizon()
	a.prunedTo = lo
	held := 0
	for id, k := range a.kernels {
		if k.until <= lo {
			a.launches.freeChain(k)
			delete(a.kernels, id)
			a.dirty = true
			continue
		}
		held += 1 + a.launches.prune(k, lo)
		if k.notHeld && k.notHeldUntil <= lo {
			k.notHeld = false
		}
		k.untimed = slices.DeleteFunc(k.untimed, func(u atUntimed) bool { return u.endedBy <= lo })
		held += len(k.untimed)
	}
	a.held = held
}

// packColumns stores n rows, sorted by key, the way StallRows and
// Unattributed hold them: keys delta-encoded, rows with equal keys summed,
// counters column by column (counters[j*rows+i]). counts(i) has m values.
func packColumns(n, m int, key func(i int) uint64, counts func(i int) []uint64) (deltas, counters []uint64) {
	nu := 0
	for x := 0; x < n; x++ {
		if x == 0 || key(x) != key(x-1) {
			nu++
		}
	}
	deltas = make([]uint64, 0, nu)
	counters = make([]uint64, m*nu)
	row, prev := -1, uint64(0)
	for x := 0; x < n; x++ {
		if k := key(x); x == 0 || k != prev {
			row++
			deltas = append(deltas, k-prev)
			prev = k
		}
		for c, v := range counts(x)[:m] {
			counters[c*nu+row] += v
		}
	}
	return deltas, counters
}
