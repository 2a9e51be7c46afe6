/*
 * launch.h — the per-launch path, in C on the application's threads:
 * timestamp-event injection and launch slots handed to Go through
 * per-thread rings. Declarations only (see layer.h for why).
 */
#ifndef ZESTALL_CGO_LAUNCH_H
#define ZESTALL_CGO_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>
#include <level_zero/ze_api.h>
#include <level_zero/layers/zel_tracing_api.h>

#include "abi.h" /* everything shared with Go: states, reasons, the slot contract */

/* Go's timing.Slot mirrors this field for field (cgo/timestamps.go
 * asserts every offset and size): change both together. */
typedef struct zl_slot {
    uint64_t host_ns;      /* CLOCK_MONOTONIC_RAW ns at the append / execute (host_clock.c) */
    uint64_t list;         /* command list handle (APP_TS: global start) */
    uint64_t event;        /* event that carries the launch's timestamps */
    uint64_t device;       /* device of the command list (APP_TS: global end) */
    uint64_t context;      /* context of the command list (APP_TS: context start) */
    uint64_t queue;        /* EXEC: the queue (APP_TS: context end) */
    uint32_t kernel_id;
    uint32_t list_id;
    uint32_t group_count[3];
    uint16_t group_size[3];
    uint8_t kind;          /* ZL_SLOT_* */
    uint8_t launch_kind;   /* proto LaunchKind */
    uint8_t flags;         /* ZL_FLAG_* */
    uint8_t reason;        /* ZL_REASON_* when ZL_FLAG_NO_EVENT */
    uint16_t code_copy;    /* LAUNCH: the code it ran, 0 its own, n copy n (separate.c) */
    uint32_t ev_index;     /* LAUNCH, regular list: 1 + index of its event among the list's events a snapshot copies (0: none) */
    uint32_t sycl_location; /* LAUNCH: the enclosing SYCL task's source location (xpti.c; 0: none) */
    uint64_t snapshot;      /* EXEC: the snapshot that copies this execution's times (0: none) */
    uint64_t snapshot_prev; /* EXEC: the snapshot that copies the previous execution's times (0: none) */
    uint64_t seq;          /* EXEC: the list's submission number (0: none) */
    uint64_t sycl_task;    /* LAUNCH: the enclosing SYCL task on the appending thread (xpti.c; 0: none) */
} zl_slot_t;

/* Registers the launch-path callbacks on tracer (before it is enabled). */
void zl_register(zel_tracer_handle_t tracer);

/* Called from Go (the harvester goroutine). */
/* Copies up to cap pending slots to dst; *oldest_left is the host_ns of
 * the oldest slot left in the rings (UINT64_MAX: none). dst is the
 * harvester's batch, Go memory (timing.Slot has this struct's layout,
 * asserted in cgo/timestamps.go): used for the call only, never kept. */
uint32_t zl_drain(zl_slot_t *dst, uint32_t cap, uint64_t *oldest_left);
uint64_t zl_dropped(void);          /* slots other than launches lost to full rings */
uint64_t zl_launches_dropped(void); /* launches passed untouched: their ring was full */
/* One event's reading (zl_kernel_timestamps): ready when
 * zeEventQueryKernelTimestamp succeeded (the times are valid), failed its
 * result when it failed otherwise than with NOT_READY (0: it did not).
 * timing.EventReading has this layout (asserted in cgo/timestamps.go): the
 * reads are written straight into the harvester's batch. */
typedef struct zl_event_reading {
    uint64_t start, end, ctx_start, ctx_end;
    uint8_t ready;
    uint8_t pad_[3];
    uint32_t failed;
} zl_event_reading_t;
void zl_kernel_timestamps(const uint64_t *events, uint32_t n, zl_event_reading_t *out);
/* zl_kernel_timestamps, and each event whose reading is final (signalled,
 * or the read failed) is host-reset right after its read, while its
 * memory is in the cache; zl_return_events makes them reusable. */
void zl_kernel_timestamps_reset(const uint64_t *events, uint32_t n, zl_event_reading_t *out);
void zl_release_events(const zl_event_ref_t *refs, uint32_t n); /* host reset + reuse */
void zl_return_events(const zl_event_ref_t *refs, uint32_t n); /* reuse of events reset already */
ze_result_t zl_global_timestamps(uint64_t device, uint64_t *host, uint64_t *ticks);
/* Assigns the kernel id for a new kernel (called in the create epilogue). */
uint32_t zl_kernel_created(ze_kernel_handle_t k);
void zl_kernel_destroyed(ze_kernel_handle_t k);
/* Command lists created without an id (past 2^32-1; cgo/ids.h). */
uint64_t zl_lists_without_id(void);
uint64_t zl_now_ns(void);
void zl_context_destroy(uint64_t context);
/* Creates the events the launch path asked to have ahead of need
 * (cgo/event_pools.c), on the calling goroutine's thread; nothing when
 * none was asked for (one atomic load). Called by the harvester's
 * drain, under its lock (never with zl_context_destroy); idle: the drain
 * found nothing, so it may take longer. */
void zl_pools_ahead(int idle);
/* Marks this thread's next driver calls as zestall's own (true) or not,
 * returning the previous mark: the launch path's callbacks then leave
 * them alone (e.g. zestall's own context, cgo/stall.c). */
bool zl_own_call(bool on);
/* zestall's zeEventCreate calls so far: [0] on launching threads (their
 * events ran out), [1] with a context's first command list, [2] ahead of
 * need on zestall's goroutine. Exported for tests and benchmarks
 * (test/apps/bench_launch.c finds it with dlsym). */
void zl_events_created(uint64_t out[3]);
void zl_set_enabled(int on);               /* launch path on/off */
int zl_thread_launched(void);              /* this thread owns a launch ring */
void zl_set_serialize(int on);             /* ZESTALL_SERIALIZE */
void zl_set_ring_wait(int on);             /* ZESTALL_RING_FULL=wait (1) or drop (0) */
void zl_ring_waits(uint64_t *launches, uint64_t *ns); /* launches that waited for ring room, and the time */
/* The rings' growth budget (cgo/launch_rings.c, "Ring capacity"; the
 * default ZL_RING_GROWTH, changed by tests), the slots all rings have
 * grown by, and all their slots. */
void zl_set_ring_budget(uint32_t slots);
uint32_t zl_ring_grown(void);
uint32_t zl_ring_slots(void);
/* Waking the harvester when a ring fills while it sleeps
 * (cgo/launch_rings.c, "Waking the harvester"): the eventfd a launch
 * writes (-1: none), the arming before a sleep (a pass disarms), and how
 * many wake-ups the launch path made. */
int zl_ring_wake_fd(void);
void zl_ring_wake_arm(void);
uint64_t zl_ring_wakes(void);
/* Sets and clears ZL_BLOCK_* conditions (cgo/abi.h) in one atomic step and
 * returns the conditions that block collection after it (zl_block(0, 0)
 * reads them). */
uint32_t zl_block(uint32_t set, uint32_t clear);
void zl_set_launch_window(uint64_t from, uint64_t to); /* ZESTALL_LAUNCHES */
uint64_t zl_launches_while_stopped(void);  /* counted only with a launch window */
void zl_set_sync_wake(int on);             /* wake the stall reader at sync points */
uint64_t zl_serialize_timeouts(void);      /* serialized waits that timed out */
/* Snapshots (the copy of one execution's times of a regular list,
 * cgo/regular_lists.c): the marker's status;
 * on success copies min(*n, cap) results (4 words each: global start, end,
 * context start, end) and sets *n to their number. */
ze_result_t zl_snapshot_results(uint64_t snapshot, uint64_t *dst, uint32_t cap, uint32_t *n);
void zl_snapshot_release(uint64_t snapshot); /* the snapshot may be used again */
uint64_t zl_list_submits(uint64_t list);   /* submissions of a regular list so far */
/* Device-side copies of immediate lists' timestamps
 * (cgo/timestamp_copies.c), from the harvester under its lock: starts a
 * copy of n events of context ctx appended on device dev (events is used
 * for the call only) and returns it (0: none; *status says why, ZL_COPY_*);
 * then the copy's state: NOT_READY while it runs, SUCCESS with its n
 * readings in out (the copy may be used again), another result when it
 * failed (read the events on the host). wait_ns: how long to wait for it
 * (0: not at all). zl_copy_abandon: its results are not wanted. */
uint64_t zl_copy_start(uint64_t ctx, uint64_t dev, const uint64_t *events, uint32_t n, uint32_t *status);
ze_result_t zl_copy_results(uint64_t copy, zl_event_reading_t *out, uint32_t n, uint64_t wait_ns);
void zl_copy_abandon(uint64_t copy);
/* Copies made, events they copied, and batches read on the host instead
 * (a copy could not be made). Exported for tests and benchmarks
 * (test/apps/bench_launch.c finds it with dlsym). */
void zl_copies(uint64_t out[3]);

#endif
