// Package attribution gives EU stall samples to kernels, instruction
// offsets and, where possible, launches (issue 4,
// docs/eu-stall-sampling.md §8 "Mapping an IP to a kernel and an instruction").
//
// Pipeline position:
//
//	cgo ─> collector ─> sampling.Reader ─> attribution.Attributor ─> records ─> proto/stream
//
// One Attributor serves one streamer (one device, or one sub-device set of
// a COMPOSITE-mode root device). Package collector creates them for the
// stall reader (collector/sampling), which feeds them kernels, launches
// with their device times, and read windows, and writes the StallRows and
// Unattributed records Resolve returns. The package holds no I/O and no
// goroutine; it builds with CGO_ENABLED=0 and its tests drive it through
// its exported methods only.
//
// # Time model
//
// The streamer of one device (or one sub-device set) is read repeatedly;
// the samples a read at host time E delivers were produced in the read
// window (S, E], S being the time of the previous read — or, when the
// previous read filled zestall's buffer, that read's own S: what a full
// read left in the device's buffers was taken before it began
// (docs/eu-stall-sampling.md §6 "zetMetricStreamerReadData"). Kernels have a
// lifetime [created, destroyed) during which their address range is theirs;
// launches have device times [start, end] converted to host ns, which arrive
// asynchronously, after the launch completed.
//
// A read does not return every sample taken before it: the kernel driver
// copies only what its last poll of the per-Xe-core write pointers found
// (docs/eu-stall-sampling.md §4.2 "xe (PVC on xe, Xe2 and later)"; the xe KMD
// polls every 5 ms, rounded
// up to scheduler ticks, i915-prelim every POLL_PERIOD, 10 ms as Intel's
// driver sets it). A sample taken at t can therefore arrive in any read that
// begins after t and before t + s, s being the visibility latency bound
// (SlackNs; the session sets it from ZESTALL_STALL_LATENCY, default 20 ms).
// The rule attribution relies on is:
//
//	a sample delivered by the read ending at E, whose predecessor began
//	at S, was taken in (S − s, E].
//
// Every test of "does X overlap the window" uses that widened window: a
// launch overlaps it when [start, end] ∩ (S − s, E] ≠ ∅, a kernel is alive
// in it when [created, destroyed) ∩ (S − s, E] ≠ ∅. Launch times are device
// times converted to host ns; LaunchMarginNs widens them by the conversion's
// error bound. A slack or margin larger than needed never misattributes: it
// only turns LAUNCH rows into SHARED or KERNEL ones more often; a smaller
// one can attribute a late sample to the next launch of its kernel.
//
// Consequently two launches of one kernel are told apart only when a read
// begins at least s after the first ended and ends before the second
// started: the application must leave more than s (plus the reader's
// reaction time) between them, or run long enough kernels for windows to
// fall wholly inside one launch (see README "Known limits").
//
// # Decisions
//
// Kernel: the sampled byte address addr32 = (IP << 3) mod 2^32 is looked up
// among kernels whose [base mod 2^32, +isa size) contains it (a range may
// wrap around 2^32) and that are alive in the window. Several such kernels
// can only happen when an address range was reused inside one (widened)
// window, or when the driver reported overlapping ranges: then the kernels
// with a timed launch overlapping the window are preferred; if that leaves
// none or several, the most recently created one wins and the row is counted
// in AttributionTotals.AmbiguousKernelRows. Kernels with isa size 0 match
// nothing. Rows matching no kernel are kept in Unattributed records.
//
// Launch, per (kernel K, window W), decided only when no launch that could
// overlap W is still waiting for its device times (see Resolve):
//
//   - If an untimed launch of K could have run in W (it was appended at or
//     before E and is not known to have finished before S − s: see
//     UntimedEndedBy), the samples cannot be split: STALL_ATTRIBUTION_KERNEL.
//     This is deliberately conservative: an untimed launch may run at any
//     time after its append, so without an end bound it keeps every later
//     window of K at kernel level until K is destroyed.
//   - Otherwise the candidates are K's timed launches overlapping W:
//     exactly one gives STALL_ATTRIBUTION_LAUNCH, several give
//     STALL_ATTRIBUTION_SHARED with their ids ascending (or, when at least
//     16 whose ids are mostly consecutive, as launches back to back at a
//     high rate are, STALL_ATTRIBUTION_SHARED_RANGES with their runs of
//     ids as ranges), none gives STALL_ATTRIBUTION_KERNEL (launches unknown
//     to the attributor, e.g. samples arriving later than the slack
//     allows).
//
// # Output
//
// LAUNCH and SHARED (and SHARED_RANGES) rows: one StallRows per (kernel, window), with the
// window's times. KERNEL rows: summed per (kernel, offset) over the windows
// decided since the last kernel flush and emitted as one StallRows per
// kernel with window 0/0 (every AttributorOptions.KernelFlushNs of window time, when
// 2^20 distinct rows are held, and at final). Unattributed rows: one
// Unattributed per window, addresses ascending. Rows with equal (kernel,
// offset) or equal address within one record are summed (the driver may
// deliver an IP twice in one read in COMPOSITE mode,
// docs/eu-stall-sampling.md §7.3 "Root group (COMPOSITE)").
//
// Records only name launches given to LaunchTimed and kernels given to
// KernelCreated; the caller writes them after those Launch and Kernel
// records, as the file's order rules require.
//
// # Memory
//
// What an Attributor keeps of past launches is bounded twice, so that its
// memory grows neither with the run's length nor with its launch rate
// (issue 14):
//
//   - By time: a timed launch is held only while a window it overlaps can
//     still come or is still undecided: until its end falls at or before
//     h − s, h being the start of the oldest undecided window, or of the
//     last window added when none waits (the next window starts no
//     earlier, see the time model). That is the slack plus a read
//     interval, plus however long windows wait for launch times
//     (Resolve). Reads that find nothing buffered move h as well
//     (NoSamplesUntil), so a device producing no samples frees launches
//     too.
//   - By count: timed launches live in one store of columns (28 bytes
//     each) of Options.MaxLaunchesHeld entries (default 65536: 1.75 MiB;
//     65 ms of launches at 10^6 launches/s, against about 30 ms the
//     default latency and read interval need), mapped outside the Go heap
//     (internal/offheap) and resident only as far as written. Each
//     kernel's launches are chained in arrival order, freed entries are
//     reused first, and new ones are taken up to a soft limit that
//     doubles from 1024, after a prune, as the run needs. Holding a launch
//     allocates nothing. A launch that finds it
//     full (after the launches past h − s were dropped) is not held: its
//     kernel keeps only the hull [first start, last end] of such launches,
//     and every window of that kernel meeting the hull is decided at kernel
//     level, exactly as for an untimed launch, so a sample is never given
//     to a launch it may not belong to. Totals.LaunchesNotHeld and
//     DegradedRows (Counters.stall_launches_not_held and
//     stall_rows_degraded) count them; the hull is forgotten once h − s
//     passes its end.
//
// Undecided windows are capped by Options.MaxUndecided (then decided at
// kernel level, WindowsForced), KERNEL rows held by a flush every
// KernelFlushNs or at 2^20 distinct rows.
//
// # Concurrency
//
// All methods of an Attributor are safe for concurrent use: one mutex
// guards all of its state, the launch store included. Windows must be
// added in time order (the stall reader's goroutine adds them; the
// harvester's and the application's threads report launches and kernels).
// The harvester's launches come in batches (Launches): one lock per batch
// rather than one per launch, the same state as the launches given one
// call each (docs/go-runtime.md §2 "Calls per launch").
//
// # Accounting
//
// A row is one (IP, window) entry as delivered by the driver's calculation
// (or the raw decoder's aggregation), with its summed counters. Every row
// given to AddWindow ends in exactly one of: attributed (StallRows),
// unattributed (Unattributed), or skipped as IP-0 padding (IP 0 and all
// counters 0; the driver's zero-filled tail,
// docs/eu-stall-sampling.md §7.5 "Edge cases" — a row with IP
// 0 and non-zero counters is treated like any other address). Totals counts
// rows and sums every counter column for each outcome, so that
// attributed + unattributed column sums equal the input's exactly.
//
// # Launch separation by copies
//
// With ZESTALL_SEPARATE_LAUNCHES=copies (issue 15) consecutive launches of
// a kernel run on different copies of its module's code (cgo/separate.c),
// each at its own addresses. Every copy is registered as a kernel of its
// own under CodeID(kernel, copy) with the copy's base, its launches under
// the same id (Launch.code_copy), and its rows are reported under the
// original kernel id at the same offsets: the rules above then separate
// launches of different copies by address, and read windows only decide
// between launches of one copy. A copy's code is registered when a kernel
// is first created in it (cgo/separate.c creates them lazily, at the
// first launch that takes the copy, before that launch is appended), so
// before any of its samples. CopyEligibility decides from the zebin which
// modules may be copied (copies.go).
package attribution
