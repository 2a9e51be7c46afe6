/*
 * exec.h — internal interface of the execution files of the simulated
 * device (exec_*.c): command queues, command lists, fences, event pools,
 * events, the virtual-time engines, kernel timestamps and the launch
 * ground truth. Nothing outside exec_*.c includes it; what other areas
 * use is in sim.h.
 *
 * Execution model (see also sim.h and README.md "Execution"):
 *
 *  - Every (device, ordinal, index) is an engine that executes its
 *    commands in FIFO order; different engines run concurrently.
 *  - A command's virtual start = max(engine free-at time, submit time,
 *    signal times of its wait events); its end = start + modelled
 *    duration. Times are host CLOCK_MONOTONIC_RAW nanoseconds.
 *  - Engines advance lazily: a command whose dependencies are known gets
 *    its start/end computed at once (possibly in the future). A command
 *    waiting for an event nobody has signalled yet stays queued and
 *    blocks its engine (head of line) until the event gets a known signal
 *    time; every signal is followed by progress of the blocked engines
 *    (progress_after_signal), so host observers advance engines only when
 *    one is blocked (progress_if_blocked).
 *  - Observable state (event status, fences, queue completion) derives
 *    from these times compared with sim_now_ns(), so the host sees a
 *    kernel complete only once its virtual end has passed. Host observers
 *    read event state lock-free (a seqlock), like an application reading
 *    an event's host-visible memory on Intel's driver.
 *
 * Files, one concern each:
 *   exec_engine.c   durations, devices and engines, command execution,
 *                   progress, backpressure, host waits
 *   exec_run.c      kernel runs: placement on Xe-cores, lock-free
 *                   publication for sample generation, launch ground truth
 *   exec_event.c    event state, event pools and events
 *   exec_cmdlist.c  command construction, command lists and appends
 *   exec_queue.c    command queues and fences
 *
 * Locking: engine locks are never nested; the order is
 *   engine lock -> g_post_lock -> event write section -> ground-truth lock.
 * An event's write section (a seqlock, not a mutex) only serialises its
 * writers; readers never wait for it. g_post_lock serialises the threads
 * that apply posted signals (exec_event.c); an appending thread takes it
 * only when its engine's ring of posted signals is full, and the thread
 * that frees an event takes it to apply the posts that may name the
 * event (event_free: the event's last reference dropped, or a command
 * buffer's release freeing the events it kept; maybe under an engine
 * lock). While g_post_lock is held no mutex is taken (only events' write
 * sections, and malloc's own leaf lock at an event's first re-signal,
 * exec_event.c ev_resignal_locked) and no reference is dropped. An event
 * pool's lock is a leaf too (maybe taken under an engine lock): held
 * only to read or change its used[] slots and kept events, never while
 * freeing an event.
 * run_lock is taken by sample generation and pruning, never waited for
 * by a launch. Queue and fence state use their own leaf locks or atomics.
 * An event's streamer_lock is held only while calling
 * sim_metrics_notify_state.
 */
#ifndef ZESIM_EXEC_H
#define ZESIM_EXEC_H

#include "sim.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define T_NEVER UINT64_MAX
#define SIM_MAX_PARTS 8          /* per-sub-device timestamp results per event */
#define ENGINE_MAX_UNSTARTED 4096 /* backpressure: ring-buffer depth per engine */
#define INLINE_WAITS 4
#define FILL_PATTERN_MAX 128
#define POLL_MIN_NS 10000ull      /* polling for events nobody has signalled */
#define POLL_MAX_NS 1000000ull
#define SLEEP_CAP_NS 50000000ull  /* re-check at least every 50 ms */
#define SPIN_NS 100000ull         /* host waits spin (yield) for the last 100 us */
#define SIM_CACHE_LINE 64
#define POST_RING 4096            /* posted signals per engine: the ring's first depth */
#define POST_RING_MAX 65536       /* ... grown by doubling up to this (exec_event.c "posted signals") */
#define EV_PEND_SLOTS 4           /* an event's writes still to come (re-signalled before its end) */
#define EV_PEND_PARTS 4           /* their timestamp parts, together */
#define EV_NPARTS_MASK 0xffu      /* sim_event.nparts: the parts of part[] ... */
#define EV_NPARTS_RESIGNALLED 0x100u /* ... and: base_t, npend and the pending writes are set */

/* ================================================================== */
/* Objects                                                             */
/* ================================================================== */

typedef struct sim_event_pool {
    sim_obj_t obj;
    sim_context_t *ctx;
    ze_event_pool_flags_t flags;
    uint32_t count;
    sim_device_t *dev;          /* first device given (host-signal timestamps) */
    atomic_uint refs;           /* the application + one per event not freed + one per command buffer naming it */
    pthread_mutex_t lock;       /* protects used[], kept_slot, waiting, draining (a leaf: exec.h "Locking") */
    uint8_t *used;
    /* The pool's events that recorded commands may still name
     * (exec_event.c "a recorded command's events"): a command buffer
     * whose commands name an event of the pool counts itself once in
     * cmd_refs[cur_slot] (the slot it read, kept in its set of pools)
     * until it is released. An event whose last reference is dropped
     * while either slot counts a command buffer is not freed but kept:
     * first on `waiting`, then, once the other slot has drained and
     * cur_slot has flipped to it, on `draining` until slot kept_slot
     * drains too. No command buffer that named it exists then. */
    atomic_uint cmd_refs[2];
    atomic_uint cur_slot;
    uint32_t kept_slot;
    struct sim_event *waiting, *draining;
} sim_event_pool_t;

/* Timestamps of the command that signalled an event: one part per
 * (sub)device it ran on. Host ns; converted to ticks at query time. */
typedef struct ev_parts {
    uint32_t n;
    uint64_t start[SIM_MAX_PARTS], end[SIM_MAX_PARTS];
    sim_device_t *dev[SIM_MAX_PARTS];
} ev_parts_t;

/* An event's writes still to come (exec_event.c "re-signalled events";
 * test/sim/README.md "Re-signalled events"): an event signalled again
 * before its previous signal was reset keeps showing the earlier
 * command's timestamps until the later command's end, as the device's
 * post-sync write lands only then. Meaningful only while the event's
 * nparts has EV_NPARTS_RESIGNALLED set (else base_t = sig_t and none
 * pending), so that a first signal -- the common case -- never touches
 * it. The event's part[] holds the write of time base_t; pend_t[i]
 * (increasing, all above base_t) are the later writes, whose pend_n[i]
 * parts follow one another in pend_part[]. A separate allocation, made
 * at an event's first re-signal: in the event object, its 144 bytes
 * added 3-4 MiB to a profiled run's resident memory (zestall's event
 * pools; e2e TestMemoryFullRate). Written in the event's write section
 * like the rest of its memory. */
struct ev_pending {
    _Atomic uint32_t npend;
    _Atomic uint8_t pend_n[EV_PEND_SLOTS];
    _Atomic uint64_t base_t;
    _Atomic uint64_t pend_t[EV_PEND_SLOTS];
    struct {
        _Atomic uint64_t start, end;
        _Atomic(sim_device_t *) dev;
    } pend_part[EV_PEND_PARTS];
};

/* Two parts, as on Intel's driver: the event object, which an append
 * reads (Intel's driver also writes its kernel and packet counts), and the
 * event's memory, which the device writes (post-sync) and host observers
 * read and reset. An appending thread never writes the memory part (see
 * "posted signals" in exec_event.c). The memory part is not aligned to a
 * cache line of its own: an aligned allocation per zeEventCreate made
 * zestall's launching thread slower (it creates events at the launch rate
 * when its harvester falls behind), and the object part is read-only
 * after creation. */
struct sim_event {
    sim_obj_t obj;
    sim_event_pool_t *pool;
    uint32_t index;
    bool timestamps;            /* pool has ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP or ..._KERNEL_MAPPED_TIMESTAMP */
    bool mapped;                /* pool has ..._KERNEL_MAPPED_TIMESTAMP (spec 1.6) */
    atomic_bool has_streamer;   /* a metrics notification event */
    uint64_t id;                /* global, for ground truth */
    atomic_uint refs;           /* the application + queued immediate commands + streamer (recorded commands and posts hold none) */
    /* Signals posted for this event and not written yet (exec_event.c,
     * "posted signals"): raised by the submitting thread, lowered by the
     * applier. An observer applies the posted signals only when its event
     * has one outstanding. In the object, not the memory: on Intel's driver
     * the append updates the event object too (its kernel and packet
     * counts), never the event's memory. */
    _Atomic uint32_t posts_out;
    /* The memory part starts 64 bytes in (SIM_EVENT_MEMORY_OFFSET): with
     * calloc's 16-byte alignment its first 48 bytes lie in one cache line
     * for half of the events and two for the others. */
    char pad_memory_[64 - 40];
    /* The event's memory. A seqlock over the state below: odd while a
     * writer (a signal, a reset) updates it, which also excludes other
     * writers (exec_event.c ev_write_begin; no mutex). Readers -- host
     * observers (status, timestamps, waits) and engines deciding whether
     * a wait passes -- never write it: they read the state lock-free, as
     * an application reads an event's host-visible memory on Intel's
     * driver. */
    /* Laid out like a timestamp packet: what a signal writes and a query
     * reads of a one-part event (seq, nparts, the times, part 0) is 48
     * contiguous bytes, one or two cache lines (three when the parts were
     * separate arrays), which the observer that applies posted signals
     * meets cold (README.md "Cost"). */
    atomic_uint seq;
    _Atomic uint32_t nparts;
    /* Signalled in [sig_t, reset_t) of host time. T_NEVER = not known. */
    _Atomic uint64_t sig_t, reset_t;
    struct {
        _Atomic uint64_t start, end;
        _Atomic(sim_device_t *) dev;
    } part[SIM_MAX_PARTS];
    /* Writes still to come (struct ev_pending), allocated at the event's
     * first re-signal, freed with the event; read only while nparts has
     * EV_NPARTS_RESIGNALLED set. */
    _Atomic(struct ev_pending *) pend;
    /* Metrics notification event (streamer attached). */
    pthread_mutex_t streamer_lock;
    struct sim_streamer *streamer;
    /* Intel's per-kernel completion data (SIM_EVENT_COMPLETION_BYTES,
     * written at create, freed with the event): host memory as Intel's
     * event costs it (README.md "Cost", "An event's host memory"). */
    void *completion;
    /* Its pool's waiting or draining list, once its last reference is
     * dropped while recorded commands may name it (pool->lock). */
    struct sim_event *kept_next;
};
_Static_assert(offsetof(struct sim_event, seq) == 64, "sim_event: the memory part starts 64 bytes in");

/* An event's host memory on Intel's driver (README.md "Cost", "An
 * event's host memory"): zeEventCreate allocates the event object (712
 * bytes) and an array of per-kernel completion data (one element of 260
 * bytes), both written at create; the pool's 256-byte slot per event
 * lives in device memory, outside the process's resident set. The
 * simulator allocates and writes the same: its event object padded to
 * SIM_EVENT_OBJECT_BYTES, and a block of SIM_EVENT_COMPLETION_BYTES. */
#define SIM_EVENT_OBJECT_BYTES 712
#define SIM_EVENT_COMPLETION_BYTES 260
_Static_assert(sizeof(struct sim_event) <= SIM_EVENT_OBJECT_BYTES, "sim_event: larger than Intel's event object");

/* ------------------------------------------------------------------ */
/* Commands                                                            */
/* ------------------------------------------------------------------ */
typedef enum cmd_type {
    C_NOP = 0,        /* barrier, wait-on-events, signal-event, ranges barrier */
    C_KERNEL,
    C_KERNEL_INDIRECT,
    C_KERNELS_MULTI,  /* AppendLaunchMultipleKernelsIndirect */
    C_COPY,
    C_FILL,
    C_COPY_REGION,
    C_RESET,
    C_QUERY_TS,
    C_WRITE_TS,
    C_BATCH_END,      /* end of an ExecuteCommandLists batch */
} cmd_type_t;

#define KPARAMS_ARGS 8 /* argument values recorded in the ground truth */
typedef struct kparams {
    sim_isa_t *isa;
    uint32_t groups[3];
    uint32_t gsize[3];
    uint32_t simd;
    /* The kernel state the launch ran with, captured at append (ground
     * truth "state": lets a test prove what the device was given). */
    uint32_t nargs;
    uint64_t args[KPARAMS_ARGS]; /* first 8 bytes of each value; SLM arguments: the size */
    uint32_t slm;
    uint32_t indirect, cache;
    uint32_t offset[3];
} kparams_t;

/* What a command holds (sim_cmd_t.owns), so that cmd_release knows what
 * to drop (exec_cmdlist.c "a recorded command's events"). */
typedef enum cmd_owns {
    CMD_BORROWED = 0, /* an append's argument, not persisted: waits_tmp is the caller's array; holds nothing */
    CMD_RECORDED,     /* in a regular list's command buffer: its arrays and ISA references; no
                       * reference to any event (the command buffer counts itself on the events' pools) */
    CMD_QUEUED,       /* an immediate list's command queued on an engine: its arrays, ISA references
                       * and one reference per event it names */
} cmd_owns_t;

typedef struct sim_cmd {
    uint8_t type;
    uint8_t owns;               /* cmd_owns_t */
    uint32_t nwait;
    sim_event_t *signal;
    union {
        sim_event_t *inl[INLINE_WAITS];
        sim_event_t **heap;
    } w;
    const sim_event_t *const *waits_tmp; /* non-persisted: points at the caller's array */
    union {
        struct {
            kparams_t k;
            const ze_group_count_t *indirect;
        } kern;
        struct {
            uint32_t max;
            kparams_t *ks;
            const uint32_t *count;
            const ze_group_count_t *args;
        } multi;
        struct {
            void *dst;
            const void *src;
            size_t size;
        } copy;
        struct {
            void *dst;
            size_t size, psize;
            uint8_t pat[FILL_PATTERN_MAX];
        } fill;
        struct {
            uint8_t *dst;
            const uint8_t *src;
            ze_copy_region_t dr, sr;
            uint32_t dpitch, dslice, spitch, sslice;
        } region;
        struct {
            sim_event_t *ev;
        } reset;
        struct {
            uint32_t n;
            bool waits_are_evs; /* persisted with its wait list = evs: w.heap is evs (CMD_QUEUED: one reference each) */
            sim_event_t **evs;
            uint8_t *dst;
            size_t *offs;
        } qts;
        struct {
            uint64_t *dst;
        } wts;
        struct {
            struct sim_batch *batch;
        } bend;
    } u;
} sim_cmd_t;

static inline sim_event_t *cmd_wait(const sim_cmd_t *c, uint32_t i) {
    if (c->owns == CMD_BORROWED) return (sim_event_t *)c->waits_tmp[i];
    return c->nwait <= INLINE_WAITS ? c->w.inl[i] : c->w.heap[i];
}

/* An event pool a command buffer's commands name, and the slot of the
 * pool's cmd_refs it counts itself in. */
typedef struct cmdbuf_pool {
    sim_event_pool_t *pool;
    uint32_t slot;
} cmdbuf_pool_t;

/* Recorded commands of a regular list; shared with executing batches.
 * The pools its commands' events belong to (exec_cmdlist.c "a recorded
 * command's events") are an open-addressed set of pools_cap entries (a
 * power of two; pool NULL = empty), written only by the thread appending
 * to the list, and read at the release; last_pool is the pool named
 * last, which most appends name again. */
typedef struct sim_cmdbuf {
    atomic_uint refs;
    uint32_t n, cap;
    sim_cmd_t *cmds;
    sim_event_pool_t *last_pool;
    uint32_t npools, pools_cap;
    cmdbuf_pool_t *pools;
} sim_cmdbuf_t;

typedef struct sim_fence sim_fence_t;

typedef struct sim_batch {
    atomic_uint refs;
    sim_fence_t *fence;         /* reference held, or NULL */
    _Atomic uint64_t end_t;     /* completion time once known */
    uint32_t nbufs;
    sim_cmdbuf_t *bufs[];
} sim_batch_t;

typedef struct sim_engine sim_engine_t;

typedef struct sim_cmdlist {
    sim_obj_t obj;
    sim_context_t *ctx;
    sim_device_t *dev;
    uint32_t ordinal;
    bool immediate;
    bool compute;
    bool synchronous;
    bool closed;
    uint64_t id;
    sim_engine_t *eng;          /* immediate lists */
    sim_cmdbuf_t *buf;          /* regular lists */
    atomic_uint refs;           /* the application + queued entries (immediate) */
    _Atomic uint64_t seq_submitted, seq_done, last_end;
} sim_cmdlist_t;

/* zeCommandListAppendQueryKernelTimestamps on Intel's driver: every append
 * writes each event's address and packet count into a driver allocation
 * of 64 KiB or more in the device's memory (README.md "Command queues and
 * command lists"); the simulator makes the same writes into a per-thread
 * staging buffer (exec_cmdlist.c qts_stage) of at least 64 KiB. */
#define QTS_ENTRY_BYTES 16u /* an event's address and packet count */
#define QTS_MIN_ENTRIES (65536u / QTS_ENTRY_BYTES)

/* A queued, not yet scheduled command on an engine. */
typedef struct sim_entry {
    struct sim_entry *next;
    const sim_cmd_t *cmd;       /* recorded command, or &own */
    sim_cmdlist_t *list;        /* reference held */
    uint64_t submit_ns;
    uint64_t seq;               /* immediate lists: sequence number */
    sim_cmd_t own;
} sim_entry_t;

typedef struct sim_devstate sim_devstate_t;

/* sim_kernel_cost() result cache entry (see kernel_duration). */
#define COST_SLOTS 16
typedef struct cost_slot {
    uint64_t kernel_id;
    uint64_t ps, ovh;
} cost_slot_t;

struct sim_engine {
    pthread_mutex_t lock;
    sim_engine_t *all_next;     /* global registry (immutable once pushed) */
    sim_device_t *dev;
    sim_devstate_t *ds;
    uint32_t ordinal, index;
    uint64_t free_at;           /* end of the last scheduled command */
    sim_entry_t *head, *tail;
    atomic_uint npending;
    sim_entry_t *free_entries;
    bool blocked;
    sim_run_t *free_runs;       /* recycled runs for this engine's launches (overflow path) */
    struct sim_runq *runqs;     /* this engine's run queues, one per (sub)device it launched on */
    cost_slot_t cost[COST_SLOTS];
    /* start times of scheduled commands that had not started yet when
     * scheduled, FIFO (monotonic): the "ring buffer" for backpressure. */
    uint32_t ring_head, ring_count;
    uint64_t ring[ENGINE_MAX_UNSTARTED];
    /* Posted signals (exec_event.c): the post-sync writes of this
     * engine's commands that no observer has applied yet. The ring is
     * written under the engine lock, post_tail on a line of its own (the
     * observers' check reads it), post_head by the observers that apply
     * them (under g_post_lock). */
    struct ev_post *posts;      /* post_cap entries, allocated at the first post */
    uint32_t post_cap;          /* a power of two; changed with posts, under g_post_lock */
    sim_engine_t *post_next;    /* registry of engines that posted (immutable once pushed) */
    uint32_t post_head_seen;    /* the producer's copy of post_head: read only when it says full */
    char pad_tail_[SIM_CACHE_LINE];
    _Atomic uint32_t post_tail;
    char pad_head_[SIM_CACHE_LINE];
    _Atomic uint32_t post_head;
    char pad_end_[SIM_CACHE_LINE];
};

/* The runs of one engine's launches on one (sub)device, as the simulator
 * remembers what ran where for the EU stall sampler (exec_run.c; see
 * test/sim/README.md, "Cost"): a single-producer queue of compact records
 * in chunks. The producer is the launching thread (engine lock held): it
 * writes a record and publishes it with one release store to a counter
 * only this queue uses. The consumer is the holder of the device's
 * run_lock (sample generation, pruning): it reads records up to the
 * published count and frees whole chunks back through `free`. No
 * per-run reference on the ISA: a record holds one only when its ISA
 * differs from the previous record's (both sides know which), released
 * when the next such record is pruned, so an ISA lives while a record
 * names it. */
#ifndef RUNQ_CHUNK
#define RUNQ_CHUNK 256u /* a build may set a small one to exercise chunk changes (sanitizers) */
#endif
typedef struct sim_runrec {
    uint64_t launch_id;
    sim_isa_t *isa;
    uint64_t start_ns, end_ns;
    uint32_t first_xecore, num_xecores;
} sim_runrec_t;
typedef struct sim_runchunk {
    struct sim_runchunk *next;          /* written by the producer before the chunk's first record is published */
    sim_runrec_t rec[RUNQ_CHUNK];
} sim_runchunk_t;
typedef struct sim_runq {
    sim_device_t *dev;
    struct sim_runq *dev_next;          /* dev->runqs (immutable once pushed) */
    struct sim_runq *eng_next;          /* engine->runqs (engine lock) */
    /* producer (engine lock held) */
    sim_runchunk_t *ptail;              /* chunk being written */
    uint32_t pn;                        /* records in ptail */
    uint64_t pcount;                    /* records written */
    sim_isa_t *pprev_isa;               /* ISA of the last record written */
    sim_runchunk_t *pfree;              /* chunks taken from free */
    char pad_pub_[SIM_CACHE_LINE];
    _Atomic uint64_t published;         /* records readable (release) */
    _Atomic(sim_runchunk_t *) free;     /* chunks the consumer gave back */
    char pad_cons_[SIM_CACHE_LINE];
    /* consumer (dev->run_lock held) */
    sim_runchunk_t *chead;              /* chunk holding record `consumed` */
    uint64_t chead_base;                /* index of chead's first record */
    uint64_t consumed;                  /* records pruned */
    sim_isa_t *held;                    /* ISA referenced for the records from the last holder on */
} sim_runq_t;

struct sim_devstate {
    sim_device_t *dev;
    atomic_uint_fast64_t rot;   /* first_xecore rotation, in Xe-cores allocated */
    uint32_t nsubs;
    sim_devstate_t **subs;      /* COMPOSITE root: sub-device states */
    uint32_t nengines;
    sim_engine_t engines[];
};

typedef struct sim_queue {
    sim_obj_t obj;
    sim_context_t *ctx;
    sim_device_t *dev;
    uint32_t ordinal, index;
    bool synchronous;
    sim_engine_t *eng;
    pthread_mutex_t lock;       /* protects last */
    sim_batch_t *last;
} sim_queue_t;

struct sim_fence {
    sim_obj_t obj;
    sim_queue_t *queue;
    atomic_uint refs;
    _Atomic uint64_t done_t;    /* T_NEVER = not signalled (yet) */
};

/* ================================================================== */
/* Globals                                                             */
/* ================================================================== */
SIM_HIDDEN extern _Atomic(sim_engine_t *) g_engines;   /* registry of every engine */
SIM_HIDDEN extern atomic_uint g_blocked;               /* engines blocked (or checking) on events */
SIM_HIDDEN extern atomic_uint_fast64_t g_signal_epoch; /* bumped on every event signal while an engine is blocked */
SIM_HIDDEN extern atomic_uint_fast64_t g_launch_id;
SIM_HIDDEN extern atomic_uint_fast64_t g_event_id;
SIM_HIDDEN extern atomic_uint_fast64_t g_cmdlist_id;

static inline uint64_t umax64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t umin64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static inline uint64_t mask_bits(uint32_t bits) { return bits >= 64 ? UINT64_MAX : ((1ull << bits) - 1); }

#define RLX memory_order_relaxed

/* A consistent copy of an event's state (see ev_read). */
typedef struct ev_state {
    uint64_t sig_t, reset_t;
    ev_parts_t parts;
    /* Set only with the parts (ev_read): the writes still to come, if any
     * (sim_event.pend_t); ev_state_settle picks the one visible at a
     * time into parts. base_t: the time of parts' write. */
    uint64_t base_t;
    uint32_t npend;
    uint8_t pend_n[EV_PEND_SLOTS];
    uint64_t pend_t[EV_PEND_SLOTS];
    uint64_t pend_start[EV_PEND_PARTS], pend_end[EV_PEND_PARTS];
    sim_device_t *pend_dev[EV_PEND_PARTS];
} ev_state_t;

/* Everything a launch part needs for its run and ground-truth line. */
typedef struct launch_ctx {
    sim_engine_t *eng;
    const sim_cmdlist_t *list;
    bool immediate;
    uint64_t list_id;
    uint64_t signal_id;
    uint64_t now;               /* host time when scheduled */
} launch_ctx_t;

/* Waits (progressing the engines) until the completion time reported by
 * probe is known and has passed, or the timeout expires. */
typedef uint64_t (*probe_fn)(void *arg, uint64_t now);

/* ================================================================== */
/* Functions shared by the exec_*.c files                              */
/* ================================================================== */
/* exec_cmdlist.c */
SIM_HIDDEN void cmd_release(sim_cmd_t *c);
SIM_HIDDEN void cmdbuf_unref(sim_cmdbuf_t *b);
SIM_HIDDEN void cmdlist_unref(sim_cmdlist_t *l);
SIM_HIDDEN ze_result_t check_queue_desc(const ze_command_queue_desc_t *d);

/* exec_engine.c */
SIM_HIDDEN bool engine_progress_locked(sim_engine_t *eng, uint64_t now);
SIM_HIDDEN bool group_is_compute(uint32_t ordinal);
SIM_HIDDEN bool progress_if_blocked(void);
SIM_HIDDEN sim_engine_t *engine_get(sim_device_t *dev, uint32_t ordinal, uint32_t index);
SIM_HIDDEN sim_entry_t *entry_alloc_locked(sim_engine_t *eng);
SIM_HIDDEN uint64_t backpressure_locked(sim_engine_t *eng);
SIM_HIDDEN uint64_t cmd_ready_time(const sim_cmd_t *c, uint64_t x);
SIM_HIDDEN uint64_t exec_cmd(sim_engine_t *eng, const sim_cmd_t *c, uint64_t t, const sim_cmdlist_t *list, bool immediate, uint64_t now);
SIM_HIDDEN uint64_t kernel_duration(cost_slot_t *cache, const sim_isa_t *isa, uint64_t items);
SIM_HIDDEN uint64_t schedule_locked(sim_engine_t *eng, const sim_cmd_t *c, uint64_t t, const sim_cmdlist_t *list, bool immediate, uint64_t now);
SIM_HIDDEN void batch_unref(sim_batch_t *b);
SIM_HIDDEN void enqueue_locked(sim_engine_t *eng, sim_entry_t *e);
SIM_HIDDEN void progress_after_signal(uint64_t epoch_before);
SIM_HIDDEN void progress_all(void);
SIM_HIDDEN ze_result_t check_ordinal_index(uint32_t ordinal, uint32_t index);
SIM_HIDDEN ze_result_t wait_for(probe_fn probe, void *arg, uint64_t timeout);

/* exec_event.c */
/* The device's work done by a host thread, counted with ZESIM_STATS
 * (exec_event.c "the device's cost, counted"). Not nested: a count begun
 * while the thread already counts is a no-op (the outer one includes it). */
typedef struct dev_cost {
    uint64_t t0; /* 0: not counting */
    bool cpu;    /* t0 is the thread's CPU clock */
} dev_cost_t;
/* Starts counting a batch of about n items (signals written, timestamps copied). */
SIM_HIDDEN dev_cost_t dev_cost_begin(uint64_t n);
/* Ends it: `signals` signals written and `queried` timestamps copied by
 * device-side queries (C_QUERY_TS). */
SIM_HIDDEN void dev_cost_end(dev_cost_t c, uint64_t signals, uint64_t queried);
SIM_HIDDEN bool ev_state_signalled_at(ev_state_t *st, uint64_t t);
SIM_HIDDEN uint64_t event_wait_time(sim_event_t *ev, uint64_t x);
SIM_HIDDEN void ev_read(sim_event_t *ev, ev_state_t *st, bool parts);
SIM_HIDDEN void event_ref(sim_event_t *ev);
SIM_HIDDEN void event_reset_at(sim_event_t *ev, uint64_t t);
SIM_HIDDEN void event_signal(sim_event_t *ev, uint64_t t, const ev_parts_t *parts, bool host);
SIM_HIDDEN void event_signal_device(sim_engine_t *eng, sim_event_t *ev, uint64_t t, const ev_parts_t *parts,
                                   uint64_t submitted);
SIM_HIDDEN void posts_apply(void);
/* A lower bound of the host clock (exec_event.c "the clock floor"). */
SIM_HIDDEN uint64_t clock_floor(void);
SIM_HIDDEN void clock_floor_raise(uint64_t now);
SIM_HIDDEN void event_unref(sim_event_t *ev);
/* A command buffer names pool p (its first command naming an event of
 * p): counts itself in p's cmd_refs and holds p; returns the slot. */
SIM_HIDDEN uint32_t pool_cmd_ref(sim_event_pool_t *p);
/* The command buffer that counted itself in p's slot is released: frees
 * the kept events no command buffer may name any more. */
SIM_HIDDEN void pool_cmd_unref(sim_event_pool_t *p, uint32_t slot);
SIM_HIDDEN void write_kernel_timestamp(const ev_parts_t *p, ze_kernel_timestamp_result_t *out);

/* exec_queue.c */
SIM_HIDDEN void fence_unref(sim_fence_t *f);

/* exec_run.c */
SIM_HIDDEN uint64_t exec_launch(const launch_ctx_t *lc, const kparams_t *k, uint64_t t, ev_parts_t *parts);

SIM_HIDDEN void exec_builtin(const launch_ctx_t *lc, sim_builtin_t which, uint64_t bytes, uint64_t start, uint64_t end);

#endif
