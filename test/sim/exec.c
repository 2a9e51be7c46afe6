/*
 * exec.c — command queues, command lists (regular, immediate, in-order),
 * fences, event pools, events, the virtual-time engines, kernel
 * timestamps and launch ground truth of the simulated device.
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
 *    time; every API call that could observe the engines advances them
 *    first (progress_all).
 *  - Observable state (event status, fences, queue completion) derives
 *    from these times compared with sim_now_ns(), so the host sees a
 *    kernel complete only once its virtual end has passed.
 *
 * Locking: engine locks are never nested; the order is
 *   engine lock -> event lock -> device run_lock / ground-truth lock.
 * Queue and fence state use their own leaf locks or atomics. An event's
 * streamer_lock is held only while calling sim_metrics_notify_state.
 */
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

/* ================================================================== */
/* Objects                                                             */
/* ================================================================== */

typedef struct sim_event_pool {
    sim_obj_t obj;
    sim_context_t *ctx;
    ze_event_pool_flags_t flags;
    uint32_t count;
    sim_device_t *dev;          /* first device given (host-signal timestamps) */
    atomic_uint refs;           /* the application + one per live event */
    pthread_mutex_t lock;       /* protects used[] */
    uint8_t *used;
} sim_event_pool_t;

/* Timestamps of the command that signalled an event: one part per
 * (sub)device it ran on. Host ns; converted to ticks at query time. */
typedef struct ev_parts {
    uint32_t n;
    uint64_t start[SIM_MAX_PARTS], end[SIM_MAX_PARTS];
    sim_device_t *dev[SIM_MAX_PARTS];
} ev_parts_t;

struct sim_event {
    sim_obj_t obj;
    sim_event_pool_t *pool;
    uint32_t index;
    bool timestamps;            /* pool has ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP */
    uint64_t id;                /* global, for ground truth */
    atomic_uint refs;           /* the application + pending commands + streamer */
    /* Serialises the writers of the state below (signals, resets) and the
     * device side's reads (engines deciding whether a wait passes). Host
     * observers (status, timestamps, waits) never take it: they read the
     * state lock-free through the seqlock `seq`, as an application reads
     * an event's host-visible memory on Intel's driver. */
    pthread_mutex_t lock;
    atomic_uint seq;            /* odd while a writer updates the state */
    /* Signalled in [sig_t, reset_t) of host time. T_NEVER = not known. */
    _Atomic uint64_t sig_t, reset_t;
    _Atomic uint32_t nparts;
    _Atomic uint64_t pstart[SIM_MAX_PARTS], pend[SIM_MAX_PARTS];
    _Atomic(sim_device_t *) pdev[SIM_MAX_PARTS];
    /* Metrics notification event (streamer attached). */
    pthread_mutex_t streamer_lock;
    struct sim_streamer *streamer;
    atomic_bool has_streamer;
};

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

typedef struct kparams {
    sim_isa_t *isa;
    uint32_t groups[3];
    uint32_t gsize[3];
    uint32_t simd;
} kparams_t;

typedef struct sim_cmd {
    uint8_t type;
    bool owns;                  /* holds references / heap arrays (persisted) */
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
    if (!c->owns) return (sim_event_t *)c->waits_tmp[i];
    return c->nwait <= INLINE_WAITS ? c->w.inl[i] : c->w.heap[i];
}

/* Recorded commands of a regular list; shared with executing batches. */
typedef struct sim_cmdbuf {
    atomic_uint refs;
    uint32_t n, cap;
    sim_cmd_t *cmds;
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
    sim_run_t *free_runs;       /* recycled runs for this engine's launches */
    cost_slot_t cost[COST_SLOTS];
    /* start times of scheduled commands that had not started yet when
     * scheduled, FIFO (monotonic): the "ring buffer" for backpressure. */
    uint32_t ring_head, ring_count;
    uint64_t ring[ENGINE_MAX_UNSTARTED];
};

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
static _Atomic(sim_engine_t *) g_engines;   /* registry of every engine */
static atomic_uint g_blocked;               /* engines blocked (or checking) on events */
static atomic_uint_fast64_t g_signal_epoch; /* bumped on every event signal */
static atomic_uint_fast64_t g_launch_id;
static atomic_uint_fast64_t g_event_id;
static atomic_uint_fast64_t g_cmdlist_id;

static inline uint64_t umax64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t umin64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static inline uint64_t mask_bits(uint32_t bits) { return bits >= 64 ? UINT64_MAX : ((1ull << bits) - 1); }

/* ================================================================== */
/* Durations                                                           */
/* ================================================================== */

/* ns of one device tick, rounded up: a kernel at least this long always
 * spans at least one tick. */
static uint64_t tick_ns(void) {
    uint64_t hz = sim_cfg.timestamp_hz ? sim_cfg.timestamp_hz : 1;
    return (1000000000ull + hz - 1) / hz;
}

static uint64_t scaled(double ns) {
    double d = ns * sim_cfg.time_scale;
    if (!(d > 0)) return 0;
    if (d > 1e15) return 1000000000000000ull; /* 11.6 days: far enough */
    return (uint64_t)d;
}

/* Cache of sim_kernel_cost() results by kernel id (the cost table is
 * fixed after zeInit and its lookup compares strings). One per engine,
 * protected by the engine lock, since durations are computed there. */

static uint64_t kernel_duration(cost_slot_t *cache, const sim_isa_t *isa, uint64_t items) {
    if (sim_cfg.time_scale == 0) return 0;
    cost_slot_t *s = &cache[isa->kernel_id % COST_SLOTS];
    if (s->kernel_id != isa->kernel_id || s->kernel_id == 0) {
        sim_kernel_cost(isa->kernel_name, &s->ps, &s->ovh);
        s->kernel_id = isa->kernel_id;
    }
    uint64_t d = scaled((double)s->ovh + (double)items * (double)s->ps / 1000.0);
    if (d < tick_ns()) d = tick_ns();
    return d;
}

static uint64_t mem_duration(size_t bytes) {
    /* 100 GB/s = 100 bytes per ns, plus 1 us of overhead. */
    return scaled(1000.0 + (double)bytes / 100.0);
}

/* ================================================================== */
/* Events: state                                                       */
/* ================================================================== */

static void event_ref(sim_event_t *ev) { atomic_fetch_add(&ev->refs, 1); }
static void pool_unref(sim_event_pool_t *p);

static void event_unref(sim_event_t *ev) {
    if (ev == NULL || atomic_fetch_sub(&ev->refs, 1) != 1) return;
    pthread_mutex_destroy(&ev->lock);
    pthread_mutex_destroy(&ev->streamer_lock);
    sim_event_pool_t *p = ev->pool;
    free(ev);
    pool_unref(p);
}

/* ---- event state: writers under ev->lock, lock-free readers ------- */

#define RLX memory_order_relaxed

/* A consistent copy of an event's state (see ev_read). */
typedef struct ev_state {
    uint64_t sig_t, reset_t;
    ev_parts_t parts;
} ev_state_t;

/* ev->lock held. Opens a seqlock write section. */
static void ev_write_begin(sim_event_t *ev) {
    atomic_store_explicit(&ev->seq, atomic_load_explicit(&ev->seq, RLX) + 1, RLX);
    atomic_thread_fence(memory_order_release);
}

static void ev_write_end(sim_event_t *ev) {
    atomic_store_explicit(&ev->seq, atomic_load_explicit(&ev->seq, RLX) + 1, memory_order_release);
}

static void ev_store_parts(sim_event_t *ev, const ev_parts_t *p) {
    uint32_t n = p->n < SIM_MAX_PARTS ? p->n : SIM_MAX_PARTS;
    for (uint32_t i = 0; i < n; i++) {
        atomic_store_explicit(&ev->pstart[i], p->start[i], RLX);
        atomic_store_explicit(&ev->pend[i], p->end[i], RLX);
        atomic_store_explicit(&ev->pdev[i], p->dev[i], RLX);
    }
    atomic_store_explicit(&ev->nparts, n, RLX);
}

/* Lock-free snapshot of the event's state (parts only when asked). A
 * writer's section is a few stores, so the retry loop is short; it yields
 * if a writer was preempted inside one. */
static void ev_read(sim_event_t *ev, ev_state_t *st, bool parts) {
    for (unsigned spins = 0;; spins++) {
        unsigned s1 = atomic_load_explicit(&ev->seq, memory_order_acquire);
        if ((s1 & 1) == 0) {
            st->sig_t = atomic_load_explicit(&ev->sig_t, RLX);
            st->reset_t = atomic_load_explicit(&ev->reset_t, RLX);
            st->parts.n = atomic_load_explicit(&ev->nparts, RLX);
            if (parts) {
                for (uint32_t i = 0; i < st->parts.n && i < SIM_MAX_PARTS; i++) {
                    st->parts.start[i] = atomic_load_explicit(&ev->pstart[i], RLX);
                    st->parts.end[i] = atomic_load_explicit(&ev->pend[i], RLX);
                    st->parts.dev[i] = atomic_load_explicit(&ev->pdev[i], RLX);
                }
            }
            atomic_thread_fence(memory_order_acquire);
            if (atomic_load_explicit(&ev->seq, RLX) == s1) return;
        }
        if (spins > 16) sched_yield();
    }
}

/* Signalled (with timestamps) as seen at host time t. */
static bool ev_state_signalled_at(const ev_state_t *st, uint64_t t) {
    return st->sig_t != T_NEVER && st->sig_t <= t && (st->reset_t == T_NEVER || t < st->reset_t) && st->parts.n > 0;
}

/* ev->lock held: the signal rule. Returns whether the timestamps are taken. */
static bool ev_apply_signal_locked(sim_event_t *ev, uint64_t t) {
    uint64_t sig = atomic_load_explicit(&ev->sig_t, RLX), rst = atomic_load_explicit(&ev->reset_t, RLX);
    if (sig == T_NEVER) {
        atomic_store_explicit(&ev->sig_t, t, RLX);
        atomic_store_explicit(&ev->reset_t, T_NEVER, RLX);
    } else if (rst != T_NEVER) {
        /* Reset (on the device) at reset_t: a later signal starts anew. */
        if (t < rst) return false;
        atomic_store_explicit(&ev->sig_t, t, RLX);
        atomic_store_explicit(&ev->reset_t, T_NEVER, RLX);
    } else if (t < sig) {
        atomic_store_explicit(&ev->sig_t, t, RLX);
    }
    return true;
}

/* Signal at host time t with the given timestamps (engine or host). A
 * host signal always takes effect now, even after a device reset. */
static void event_signal(sim_event_t *ev, uint64_t t, const ev_parts_t *parts, bool host) {
    pthread_mutex_lock(&ev->lock);
    ev_write_begin(ev);
    if (host && atomic_load_explicit(&ev->reset_t, RLX) != T_NEVER) atomic_store_explicit(&ev->sig_t, T_NEVER, RLX);
    /* Like the hardware, the last writer's timestamps are what a query reads. */
    if (ev_apply_signal_locked(ev, t)) ev_store_parts(ev, parts);
    ev_write_end(ev);
    pthread_mutex_unlock(&ev->lock);
    atomic_fetch_add(&g_signal_epoch, 1);
}

/* Device-side reset at time t. */
static void event_reset_at(sim_event_t *ev, uint64_t t) {
    pthread_mutex_lock(&ev->lock);
    uint64_t sig = atomic_load_explicit(&ev->sig_t, RLX);
    if (sig != T_NEVER && sig <= t && atomic_load_explicit(&ev->reset_t, RLX) == T_NEVER) {
        ev_write_begin(ev);
        atomic_store_explicit(&ev->reset_t, t, RLX);
        ev_write_end(ev);
    }
    pthread_mutex_unlock(&ev->lock);
}

/* Host reset: unsignalled, no timestamps. */
static void event_host_reset(sim_event_t *ev) {
    pthread_mutex_lock(&ev->lock);
    ev_write_begin(ev);
    atomic_store_explicit(&ev->sig_t, T_NEVER, RLX);
    atomic_store_explicit(&ev->reset_t, T_NEVER, RLX);
    atomic_store_explicit(&ev->nparts, 0, RLX);
    ev_write_end(ev);
    pthread_mutex_unlock(&ev->lock);
}

/* Time at which a command that becomes ready at time x may pass a wait on
 * ev, or T_NEVER when that is not known yet (nobody signalled, or the
 * event was reset before x and not signalled again). Device side: under
 * ev->lock, so that the blocked-engine handshake with signallers holds
 * (see progress_after_signal). */
static uint64_t event_wait_time(sim_event_t *ev, uint64_t x) {
    pthread_mutex_lock(&ev->lock);
    uint64_t r = atomic_load_explicit(&ev->sig_t, RLX), rst = atomic_load_explicit(&ev->reset_t, RLX);
    if (r != T_NEVER && rst != T_NEVER && x >= rst) r = T_NEVER;
    pthread_mutex_unlock(&ev->lock);
    return r;
}

/* For host observers, lock-free: the time the event is (or will be)
 * signalled as seen at `now`, or T_NEVER. */
static uint64_t event_host_time(sim_event_t *ev, uint64_t now) {
    ev_state_t st;
    ev_read(ev, &st, false);
    uint64_t r = st.sig_t;
    if (r != T_NEVER && st.reset_t != T_NEVER && now >= st.reset_t) r = T_NEVER;
    return r;
}

/* ================================================================== */
/* Devices and engines                                                 */
/* ================================================================== */

static uint32_t group_engine_offset(uint32_t ordinal) {
    uint32_t off = 0;
    for (uint32_t g = 0; g < ordinal && g < sim_cfg.num_queue_groups; g++) off += sim_cfg.queue_groups[g].num_queues;
    return off;
}

static sim_devstate_t *devstate_of(sim_device_t *dev) {
    return (sim_devstate_t *)((char *)dev->engines - offsetof(sim_devstate_t, engines));
}

/* The exec state of dev, created on first use (under dev->exec_lock). */
static sim_devstate_t *devstate_get(sim_device_t *dev) {
    pthread_mutex_lock(&dev->exec_lock);
    if (dev->engines != NULL) {
        sim_devstate_t *ds = devstate_of(dev);
        pthread_mutex_unlock(&dev->exec_lock);
        return ds;
    }
    /* Sub-devices first: a COMPOSITE root splits launches onto them. */
    sim_devstate_t **subs = NULL;
    if (dev->num_subdevices > 0 && dev->subdevices != NULL) {
        subs = calloc(dev->num_subdevices, sizeof(*subs));
        if (subs == NULL) goto fail;
        for (uint32_t i = 0; i < dev->num_subdevices; i++) {
            subs[i] = devstate_get(dev->subdevices[i]);
            if (subs[i] == NULL) goto fail;
        }
    }
    uint32_t n = group_engine_offset(sim_cfg.num_queue_groups);
    sim_devstate_t *ds = calloc(1, sizeof(*ds) + (size_t)n * sizeof(sim_engine_t));
    if (ds == NULL) goto fail;
    ds->dev = dev;
    ds->nsubs = subs ? dev->num_subdevices : 0;
    ds->subs = subs;
    ds->nengines = n;
    for (uint32_t g = 0, e = 0; g < sim_cfg.num_queue_groups; g++) {
        for (uint32_t i = 0; i < sim_cfg.queue_groups[g].num_queues; i++, e++) {
            sim_engine_t *eng = &ds->engines[e];
            pthread_mutex_init(&eng->lock, NULL);
            eng->dev = dev;
            eng->ds = ds;
            eng->ordinal = g;
            eng->index = i;
            atomic_init(&eng->npending, 0);
            sim_engine_t *h = atomic_load(&g_engines);
            do {
                eng->all_next = h;
            } while (!atomic_compare_exchange_weak(&g_engines, &h, eng));
        }
    }
    dev->num_engines = n;
    dev->engines = ds->engines;
    pthread_mutex_unlock(&dev->exec_lock);
    return ds;
fail:
    free(subs);
    pthread_mutex_unlock(&dev->exec_lock);
    return NULL;
}

static ze_result_t check_ordinal_index(uint32_t ordinal, uint32_t index) {
    if (ordinal >= sim_cfg.num_queue_groups) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (index >= sim_cfg.queue_groups[ordinal].num_queues) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    return ZE_RESULT_SUCCESS;
}

static sim_engine_t *engine_get(sim_device_t *dev, uint32_t ordinal, uint32_t index) {
    sim_devstate_t *ds = devstate_get(dev);
    if (ds == NULL) return NULL;
    uint32_t e = group_engine_offset(ordinal) + index;
    return e < ds->nengines ? &ds->engines[e] : NULL;
}

static bool group_is_compute(uint32_t ordinal) {
    return ordinal < sim_cfg.num_queue_groups &&
           (sim_cfg.queue_groups[ordinal].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) != 0;
}

/* ================================================================== */
/* Runs                                                                */
/* ================================================================== */

static bool sampling_active(const sim_device_t *dev) {
    if (atomic_load_explicit(&dev->sampling_active, memory_order_relaxed)) return true;
    if (dev->parent && atomic_load_explicit(&dev->parent->sampling_active, memory_order_relaxed)) return true;
    for (uint32_t i = 0; i < dev->num_subdevices && dev->subdevices; i++)
        if (atomic_load_explicit(&dev->subdevices[i]->sampling_active, memory_order_relaxed)) return true;
    return false;
}

/* Publication of runs. The launching thread (engine lock held) pushes a
 * run onto dev->runs_incoming with one CAS and takes recycled runs from
 * its engine's cache, refilled by taking all of dev->runs_free at once
 * (no ABA: nothing is ever popped singly from a shared list). It never
 * waits for run_lock, which only sample generation and pruning hold: on
 * Intel's hardware the EU stall unit samples on its own, and nothing the
 * sampler does slows the launching thread. */

#define RUNS_PRUNE_BACKLOG 256 /* launching threads try to prune beyond this */

static void run_push(_Atomic(sim_run_t *) *list, sim_run_t *first, sim_run_t *last) {
    sim_run_t *h = atomic_load_explicit(list, memory_order_relaxed);
    do {
        last->next = h;
    } while (!atomic_compare_exchange_weak_explicit(list, &h, first, memory_order_release, memory_order_relaxed));
}

void sim_runs_collect_locked(sim_device_t *dev) {
    sim_run_t *r = atomic_exchange_explicit(&dev->runs_incoming, NULL, memory_order_acquire);
    if (r == NULL) return;
    /* Newest first: reverse into publication order. */
    sim_run_t *rev = NULL, *last = r;
    uint32_t n = 0;
    while (r) {
        sim_run_t *next = r->next;
        r->next = rev;
        rev = r;
        r = next;
        n++;
    }
    atomic_fetch_sub_explicit(&dev->runs_incoming_n, n, memory_order_relaxed);
    if (dev->runs_tail) dev->runs_tail->next = rev;
    else dev->runs_head = rev;
    dev->runs_tail = last;
}

/* run_lock held. Removes runs with end <= before onto dev->runs_free. */
static void prune_locked(sim_device_t *dev, uint64_t before) {
    sim_run_t **pp = &dev->runs_head, *prev = NULL, *ffirst = NULL, *flast = NULL;
    while (*pp) {
        sim_run_t *r = *pp;
        if (r->end_ns <= before) {
            *pp = r->next;
            sim_isa_unref(r->isa);
            r->isa = NULL;
            r->next = ffirst;
            ffirst = r;
            if (flast == NULL) flast = r;
        } else {
            prev = r;
            pp = &r->next;
        }
    }
    dev->runs_tail = prev;
    if (ffirst) run_push(&dev->runs_free, ffirst, flast);
}

void sim_runs_prune(sim_device_t *dev, uint64_t before_ns) {
    if (dev == NULL) return;
    pthread_mutex_lock(&dev->run_lock);
    sim_runs_collect_locked(dev);
    prune_locked(dev, before_ns);
    pthread_mutex_unlock(&dev->run_lock);
}

/* eng->lock held: a run for a launch of eng, recycled if possible. */
static sim_run_t *run_alloc(sim_engine_t *eng, sim_device_t *dev) {
    sim_run_t *r = eng->free_runs;
    if (r == NULL) r = atomic_exchange_explicit(&dev->runs_free, NULL, memory_order_acquire);
    if (r) {
        eng->free_runs = r->next;
        return r;
    }
    return malloc(sizeof(*r));
}

/* Everything a launch part needs for its run and ground-truth line. */
typedef struct launch_ctx {
    sim_engine_t *eng;
    const sim_cmdlist_t *list;
    bool immediate;
    uint64_t list_id;
    uint64_t signal_id;
    uint64_t now;               /* host time when scheduled */
} launch_ctx_t;

static uint32_t div_up32(uint64_t a, uint64_t b) {
    uint64_t r = b ? (a + b - 1) / b : a;
    return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

/* One part of a launch on one (sub)device: run + ground truth. */
static void launch_part(const launch_ctx_t *lc, sim_devstate_t *ds, int sub, const kparams_t *k,
                        uint64_t groups, uint64_t launch_id, uint64_t start, uint64_t end) {
    sim_device_t *dev = ds->dev;
    uint64_t gitems = (uint64_t)k->gsize[0] * k->gsize[1] * k->gsize[2];
    uint32_t simd = k->simd ? k->simd : 16;
    uint64_t threads = groups * (uint64_t)div_up32(gitems, simd);
    uint64_t cap = (uint64_t)sim_cfg.eus_per_xecore * sim_cfg.threads_per_eu;
    uint32_t num = div_up32(threads, cap ? cap : 1);
    uint32_t xec = dev->xecores ? dev->xecores : 1;
    if (num < 1) num = 1;
    if (num > xec) num = xec;
    bool keep = end > lc->now || sampling_active(dev);
    bool gt = sim_gt_enabled();
    /* Rotates on every launch, kept or not, so placement depends only on
     * the launch sequence. */
    uint32_t first = (uint32_t)(atomic_fetch_add_explicit(&ds->rot, num, memory_order_relaxed) % xec);
    sim_run_t *r = keep ? run_alloc(lc->eng, dev) : NULL;
    if (r) {
        r->launch_id = launch_id;
        r->device = dev;
        r->isa = sim_isa_ref(k->isa);
        r->start_ns = start;
        r->end_ns = end;
        r->first_xecore = first;
        r->num_xecores = num;
        r->seed = sim_mix64(sim_cfg.seed ^ k->isa->kernel_id ^ launch_id);
        run_push(&dev->runs_incoming, r, r);
        /* Without a stream nobody collects: bound the backlog, but only if
         * run_lock is free (a reader holding it prunes anyway). */
        if (atomic_fetch_add_explicit(&dev->runs_incoming_n, 1, memory_order_relaxed) >= RUNS_PRUNE_BACKLOG &&
            !sampling_active(dev) && pthread_mutex_trylock(&dev->run_lock) == 0) {
            sim_runs_collect_locked(dev);
            prune_locked(dev, lc->now);
            pthread_mutex_unlock(&dev->run_lock);
        }
    }
    if (gt) {
        char name[512];
        sim_device_t *root = sim_root(dev);
        sim_gt_printf("{\"type\":\"launch\",\"launch\":%" PRIu64 ",\"kernel\":%" PRIu64 ",\"name\":\"%s\","
                      "\"base\":%" PRIu64 ",\"device\":%u,\"subdevice\":%d,\"engine\":\"%u.%u\","
                      "\"cmdlist\":%" PRIu64 ",\"immediate\":%s,\"groups\":[%u,%u,%u],\"group_size\":[%u,%u,%u],"
                      "\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"start_ticks\":%" PRIu64
                      ",\"end_ticks\":%" PRIu64 ",\"xecores\":[%u,%u],\"signal_event\":%" PRIu64 "}",
                      launch_id, k->isa->kernel_id, sim_json_str(k->isa->kernel_name, name, sizeof(name)),
                      k->isa->gpu_va, root->index, sub, lc->eng->ordinal, lc->eng->index, lc->list_id,
                      lc->immediate ? "true" : "false", k->groups[0], k->groups[1], k->groups[2], k->gsize[0],
                      k->gsize[1], k->gsize[2], start, end, sim_dev_ticks(dev, start), sim_dev_ticks(dev, end),
                      first, num, lc->signal_id);
    }
}

/* Executes one kernel launch starting at t; returns its end and fills
 * the per-(sub)device timestamp parts. */
static uint64_t exec_launch(const launch_ctx_t *lc, const kparams_t *k, uint64_t t, ev_parts_t *parts) {
    sim_devstate_t *ds = lc->eng->ds;
    uint64_t groups = (uint64_t)k->groups[0] * k->groups[1] * k->groups[2];
    uint64_t gitems = (uint64_t)k->gsize[0] * k->gsize[1] * k->gsize[2];
    uint64_t launch_id = atomic_fetch_add(&g_launch_id, 1) + 1;
    uint64_t end = t;
    parts->n = 0;
    if (ds->nsubs > 0) {
        /* Implicit scaling: the groups are split evenly over the tiles. */
        uint32_t n = ds->nsubs;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t g = groups / n + (i < groups % n ? 1 : 0);
            uint64_t e = t + kernel_duration(lc->eng->cost, k->isa, g * gitems);
            launch_part(lc, ds->subs[i], (int)i, k, g, launch_id, t, e);
            if (parts->n < SIM_MAX_PARTS) {
                parts->start[parts->n] = t;
                parts->end[parts->n] = e;
                parts->dev[parts->n] = ds->subs[i]->dev;
                parts->n++;
            }
            end = umax64(end, e);
        }
    } else {
        end = t + kernel_duration(lc->eng->cost, k->isa, groups * gitems);
        launch_part(lc, ds, ds->dev->parent ? (int)ds->dev->index : -1, k, groups, launch_id, t, end);
        parts->n = 1;
        parts->start[0] = t;
        parts->end[0] = end;
        parts->dev[0] = ds->dev;
    }
    return end;
}

/* ================================================================== */
/* Command execution                                                   */
/* ================================================================== */

static void fence_unref(sim_fence_t *f);
static void cmdbuf_unref(sim_cmdbuf_t *b);

static void batch_unref(sim_batch_t *b) {
    if (b == NULL || atomic_fetch_sub(&b->refs, 1) != 1) return;
    for (uint32_t i = 0; i < b->nbufs; i++) cmdbuf_unref(b->bufs[i]);
    if (b->fence) fence_unref(b->fence);
    free(b);
}

static void copy_region(const sim_cmd_t *c) {
    const ze_copy_region_t *dr = &c->u.region.dr, *sr = &c->u.region.sr;
    uint32_t depth = dr->depth ? dr->depth : 1;
    for (uint32_t z = 0; z < depth; z++) {
        for (uint32_t y = 0; y < dr->height; y++) {
            uint8_t *d = c->u.region.dst + (size_t)(dr->originZ + z) * c->u.region.dslice +
                         (size_t)(dr->originY + y) * c->u.region.dpitch + dr->originX;
            const uint8_t *s = c->u.region.src + (size_t)(sr->originZ + z) * c->u.region.sslice +
                               (size_t)(sr->originY + y) * c->u.region.spitch + sr->originX;
            memmove(d, s, dr->width);
        }
    }
}

static void write_kernel_timestamp(const ev_parts_t *p, ze_kernel_timestamp_result_t *out);

/* Executes command c at virtual time t on eng (eng->lock held): performs
 * its side effects, signals its event and returns its end time. */
static uint64_t exec_cmd(sim_engine_t *eng, const sim_cmd_t *c, uint64_t t, const sim_cmdlist_t *list,
                         bool immediate, uint64_t now) {
    ev_parts_t parts;
    uint64_t end = t;
    parts.n = 0;
    launch_ctx_t lc = {eng, list, immediate, list ? list->id : 0, c->signal ? c->signal->id : 0, now};
    switch ((cmd_type_t)c->type) {
    case C_KERNEL:
        end = exec_launch(&lc, &c->u.kern.k, t, &parts);
        break;
    case C_KERNEL_INDIRECT: {
        kparams_t k = c->u.kern.k;
        /* Group counts are read from memory at execution time. */
        memcpy(k.groups, c->u.kern.indirect, sizeof(k.groups));
        end = exec_launch(&lc, &k, t, &parts);
        break;
    }
    case C_KERNELS_MULTI: {
        uint32_t n;
        memcpy(&n, c->u.multi.count, sizeof(n));
        if (n > c->u.multi.max) n = c->u.multi.max;
        ev_parts_t first = {0};
        for (uint32_t i = 0; i < n; i++) {
            kparams_t k = c->u.multi.ks[i];
            memcpy(k.groups, &c->u.multi.args[i], sizeof(k.groups));
            end = exec_launch(&lc, &k, end, &parts);
            if (i == 0) first = parts;
        }
        /* The event covers the whole command: first start, last end. */
        if (n > 1)
            for (uint32_t p = 0; p < parts.n && p < first.n; p++) parts.start[p] = first.start[p];
        break;
    }
    case C_COPY:
        if (c->u.copy.size) memmove(c->u.copy.dst, c->u.copy.src, c->u.copy.size);
        end = t + mem_duration(c->u.copy.size);
        break;
    case C_FILL: {
        uint8_t *d = c->u.fill.dst;
        size_t ps = c->u.fill.psize;
        if (ps == 1) {
            memset(d, c->u.fill.pat[0], c->u.fill.size);
        } else {
            for (size_t o = 0; o < c->u.fill.size; o += ps) {
                size_t n = c->u.fill.size - o < ps ? c->u.fill.size - o : ps;
                memcpy(d + o, c->u.fill.pat, n);
            }
        }
        end = t + mem_duration(c->u.fill.size);
        break;
    }
    case C_COPY_REGION: {
        copy_region(c);
        const ze_copy_region_t *r = &c->u.region.dr;
        end = t + mem_duration((size_t)r->width * r->height * (r->depth ? r->depth : 1));
        break;
    }
    case C_RESET:
        event_reset_at(c->u.reset.ev, t);
        break;
    case C_QUERY_TS:
        for (uint32_t i = 0; i < c->u.qts.n; i++) {
            sim_event_t *ev = c->u.qts.evs[i];
            ze_kernel_timestamp_result_t r;
            /* Signalled at the query's time t: a signal scheduled later
             * (another engine, virtual future) or a reset at or before t
             * means the event is not signalled when the query runs. */
            ev_state_t st;
            ev_read(ev, &st, true);
            bool known = ev_state_signalled_at(&st, t);
            if (known) write_kernel_timestamp(&st.parts, &r);
            /* Values of events not signalled are undefined: leave them. */
            if (!known) continue;
            size_t off = c->u.qts.offs ? c->u.qts.offs[i] : (size_t)i * sizeof(r);
            memcpy(c->u.qts.dst + off, &r, sizeof(r));
        }
        break;
    case C_WRITE_TS: {
        uint64_t v = sim_dev_ticks(eng->dev, t) & mask_bits(sim_cfg.timestamp_valid_bits);
        memcpy(c->u.wts.dst, &v, sizeof(v));
        break;
    }
    case C_BATCH_END: {
        sim_batch_t *b = c->u.bend.batch;
        if (b->fence) atomic_store(&b->fence->done_t, t);
        atomic_store(&b->end_t, t);
        break;
    }
    case C_NOP:
        break;
    }
    if (c->signal) {
        if (parts.n == 0) {
            parts.n = 1;
            parts.start[0] = t;
            parts.end[0] = end;
            parts.dev[0] = eng->dev;
        }
        event_signal(c->signal, end, &parts, false);
    }
    return end;
}

/* Earliest start of c given ready time x, or T_NEVER when a wait event
 * has no known signal time yet. */
static uint64_t cmd_ready_time(const sim_cmd_t *c, uint64_t x) {
    for (uint32_t i = 0; i < c->nwait; i++) {
        uint64_t s = event_wait_time(cmd_wait(c, i), x);
        if (s == T_NEVER) return T_NEVER;
        x = umax64(x, s);
    }
    return x;
}

/* eng->lock held: schedules c, which is ready at t. */
static uint64_t schedule_locked(sim_engine_t *eng, const sim_cmd_t *c, uint64_t t, const sim_cmdlist_t *list,
                                bool immediate, uint64_t now) {
    uint64_t end = exec_cmd(eng, c, t, list, immediate, now);
    eng->free_at = umax64(eng->free_at, end);
    if (t > now && eng->ring_count < ENGINE_MAX_UNSTARTED) {
        eng->ring[(eng->ring_head + eng->ring_count) % ENGINE_MAX_UNSTARTED] = t;
        eng->ring_count++;
    }
    return end;
}

static void cmd_release(sim_cmd_t *c);

static void entry_free_locked(sim_engine_t *eng, sim_entry_t *e) {
    if (e->cmd == &e->own) cmd_release(&e->own);
    e->next = eng->free_entries;
    eng->free_entries = e;
}

static void cmdlist_unref(sim_cmdlist_t *l);

/* eng->lock held: schedules queued commands in FIFO order until the head
 * waits for an event without a known signal time. Returns true if
 * anything was scheduled. (Dropping the last reference of a list or
 * event here is fine: freeing them takes no engine lock.) */
static bool engine_progress_locked(sim_engine_t *eng, uint64_t now) {
    bool did = false;
    while (eng->head) {
        sim_entry_t *e = eng->head;
        const sim_cmd_t *c = e->cmd;
        uint64_t x = umax64(eng->free_at, e->submit_ns);
        if (c->nwait) {
            /* Count ourselves as blocked *before* looking at the events, so
             * that a concurrent signaller sees g_blocked != 0 (see
             * progress_after_signal). */
            if (!eng->blocked) atomic_fetch_add(&g_blocked, 1);
            x = cmd_ready_time(c, x);
            if (x == T_NEVER) {
                eng->blocked = true;
                return did;
            }
            atomic_fetch_sub(&g_blocked, 1);
            eng->blocked = false;
        }
        bool imm = e->list && e->list->immediate;
        uint64_t end = schedule_locked(eng, c, x, e->list, imm, now);
        if (e->list && imm) {
            atomic_store(&e->list->last_end, end);
            atomic_store(&e->list->seq_done, e->seq);
        }
        if (c->type == C_BATCH_END) batch_unref(c->u.bend.batch);
        eng->head = e->next;
        if (eng->head == NULL) eng->tail = NULL;
        atomic_fetch_sub(&eng->npending, 1);
        if (e->list) cmdlist_unref(e->list);
        entry_free_locked(eng, e);
        did = true;
    }
    if (eng->blocked) {
        eng->blocked = false;
        atomic_fetch_sub(&g_blocked, 1);
    }
    return did;
}

/* Advances every engine until none can make progress (blocked heads may
 * be released by commands of other engines). */
static void progress_all(void) {
    bool any;
    do {
        any = false;
        for (sim_engine_t *eng = atomic_load(&g_engines); eng; eng = eng->all_next) {
            if (atomic_load_explicit(&eng->npending, memory_order_acquire) == 0) continue;
            pthread_mutex_lock(&eng->lock);
            any |= engine_progress_locked(eng, sim_now_ns());
            pthread_mutex_unlock(&eng->lock);
        }
    } while (any);
}

/* Engines progress as soon as what they wait for is known (every signal
 * is followed by progress_after_signal), so an engine with queued commands
 * is always blocked on an event nobody has signalled: host observers need
 * to advance engines only when one is blocked. Returns whether it did. */
static bool progress_if_blocked(void) {
    if (atomic_load(&g_blocked) == 0) return false;
    progress_all();
    return true;
}

/* After scheduling something that may have signalled events: release
 * engines blocked on them. */
static void progress_after_signal(uint64_t epoch_before) {
    if (atomic_load(&g_blocked) != 0 && atomic_load(&g_signal_epoch) != epoch_before) progress_all();
}

void sim_exec_progress(sim_device_t *dev, uint64_t now_ns) {
    (void)dev;
    (void)now_ns;
    /* Commands are scheduled as soon as their dependencies are known, so
     * "progress up to now" is progress of the blocked engines (events may
     * link engines of different devices); others have nothing queued. */
    progress_if_blocked();
}

static sim_entry_t *entry_alloc_locked(sim_engine_t *eng) {
    sim_entry_t *e = eng->free_entries;
    if (e) {
        eng->free_entries = e->next;
        return e;
    }
    return malloc(sizeof(*e));
}

static void enqueue_locked(sim_engine_t *eng, sim_entry_t *e) {
    e->next = NULL;
    if (eng->tail) eng->tail->next = e;
    else eng->head = e;
    eng->tail = e;
    atomic_fetch_add_explicit(&eng->npending, 1, memory_order_release);
}

/* eng->lock held: waits (unlocking meanwhile) while the engine already has
 * ENGINE_MAX_UNSTARTED commands that have not started, like a full ring
 * buffer. Returns the current time. */
static uint64_t backpressure_locked(sim_engine_t *eng) {
    uint64_t now = sim_now_ns();
    uint64_t poll = POLL_MIN_NS;
    for (;;) {
        while (eng->ring_count && eng->ring[eng->ring_head] <= now) {
            eng->ring_head = (eng->ring_head + 1) % ENGINE_MAX_UNSTARTED;
            eng->ring_count--;
        }
        uint32_t pending = atomic_load_explicit(&eng->npending, memory_order_relaxed);
        if (eng->ring_count + pending < ENGINE_MAX_UNSTARTED) return now;
        uint64_t wake = eng->ring_count ? eng->ring[eng->ring_head] : now + poll;
        pthread_mutex_unlock(&eng->lock);
        if (!eng->ring_count) {
            progress_all();
            poll = umin64(poll * 2, POLL_MAX_NS);
        }
        sim_sleep_until(wake, SLEEP_CAP_NS);
        pthread_mutex_lock(&eng->lock);
        now = sim_now_ns();
    }
}

/* ================================================================== */
/* Command construction, persistence, release                          */
/* ================================================================== */

/* Copies the caller-owned parts of c into storage owned by the command
 * and takes references, so that it can outlive the API call. c->owns
 * must be false. Returns false when out of memory (c unchanged). */
static bool cmd_persist(sim_cmd_t *c) {
    sim_event_t **heap = NULL;
    kparams_t *ks = NULL;
    sim_event_t **evs = NULL;
    size_t *offs = NULL;
    if (c->nwait > INLINE_WAITS && (heap = malloc(c->nwait * sizeof(*heap))) == NULL) return false;
    if (c->type == C_KERNELS_MULTI && c->u.multi.max) {
        ks = malloc(c->u.multi.max * sizeof(*ks));
        if (ks == NULL) goto oom;
        memcpy(ks, c->u.multi.ks, c->u.multi.max * sizeof(*ks));
    }
    if (c->type == C_QUERY_TS && c->u.qts.n) {
        evs = malloc(c->u.qts.n * sizeof(*evs));
        if (evs == NULL) goto oom;
        memcpy(evs, c->u.qts.evs, c->u.qts.n * sizeof(*evs));
        if (c->u.qts.offs) {
            offs = malloc(c->u.qts.n * sizeof(*offs));
            if (offs == NULL) goto oom;
            memcpy(offs, c->u.qts.offs, c->u.qts.n * sizeof(*offs));
        }
    }
    const sim_event_t *const *tmp = c->waits_tmp;
    for (uint32_t i = 0; i < c->nwait; i++) {
        sim_event_t *ev = (sim_event_t *)tmp[i];
        event_ref(ev);
        if (heap) heap[i] = ev;
        else c->w.inl[i] = ev;
    }
    if (heap) c->w.heap = heap;
    c->waits_tmp = NULL;
    if (c->signal) event_ref(c->signal);
    switch ((cmd_type_t)c->type) {
    case C_KERNEL:
    case C_KERNEL_INDIRECT:
        sim_isa_ref(c->u.kern.k.isa);
        break;
    case C_KERNELS_MULTI:
        c->u.multi.ks = ks;
        for (uint32_t i = 0; i < c->u.multi.max; i++) sim_isa_ref(ks[i].isa);
        break;
    case C_RESET:
        event_ref(c->u.reset.ev);
        break;
    case C_QUERY_TS:
        c->u.qts.evs = evs;
        c->u.qts.offs = offs;
        for (uint32_t i = 0; i < c->u.qts.n; i++) event_ref(evs[i]);
        break;
    default:
        break;
    }
    c->owns = true;
    return true;
oom:
    free(heap);
    free(ks);
    free(evs);
    free(offs);
    return false;
}

static void cmd_release(sim_cmd_t *c) {
    if (!c->owns) return;
    for (uint32_t i = 0; i < c->nwait; i++) event_unref(cmd_wait(c, i));
    if (c->nwait > INLINE_WAITS) free(c->w.heap);
    event_unref(c->signal);
    switch ((cmd_type_t)c->type) {
    case C_KERNEL:
    case C_KERNEL_INDIRECT:
        sim_isa_unref(c->u.kern.k.isa);
        break;
    case C_KERNELS_MULTI:
        for (uint32_t i = 0; i < c->u.multi.max; i++) sim_isa_unref(c->u.multi.ks[i].isa);
        free(c->u.multi.ks);
        break;
    case C_RESET:
        event_unref(c->u.reset.ev);
        break;
    case C_QUERY_TS:
        for (uint32_t i = 0; i < c->u.qts.n; i++) event_unref(c->u.qts.evs[i]);
        free(c->u.qts.evs);
        free(c->u.qts.offs);
        break;
    default:
        break;
    }
    c->owns = false;
}

static void cmdbuf_unref(sim_cmdbuf_t *b) {
    if (b == NULL || atomic_fetch_sub(&b->refs, 1) != 1) return;
    for (uint32_t i = 0; i < b->n; i++) cmd_release(&b->cmds[i]);
    free(b->cmds);
    free(b);
}

static sim_cmdbuf_t *cmdbuf_new(void) {
    sim_cmdbuf_t *b = calloc(1, sizeof(*b));
    if (b) atomic_init(&b->refs, 1);
    return b;
}

/* ================================================================== */
/* Command lists                                                       */
/* ================================================================== */

static void cmdlist_unref(sim_cmdlist_t *l) {
    if (l == NULL || atomic_fetch_sub(&l->refs, 1) != 1) return;
    cmdbuf_unref(l->buf);
    free(l);
}

/* Waits until host time t (known) has passed. */
static void sleep_until_passed(uint64_t t) {
    uint64_t now;
    while ((now = sim_now_ns()) < t) {
        if (t - now <= SPIN_NS) sched_yield();
        else sim_sleep_until(t - SPIN_NS / 2, SLEEP_CAP_NS);
    }
}

/* Submits c (not persisted) to the immediate list l. */
static ze_result_t submit_immediate(sim_cmdlist_t *l, sim_cmd_t *c) {
    sim_engine_t *eng = l->eng;
    uint64_t epoch = atomic_load_explicit(&g_signal_epoch, memory_order_relaxed);
    uint64_t end = T_NEVER, seq = 0;
    pthread_mutex_lock(&eng->lock);
    uint64_t now = backpressure_locked(eng);
    uint64_t x = T_NEVER;
    if (eng->head == NULL) x = cmd_ready_time(c, umax64(eng->free_at, now));
    if (x != T_NEVER) {
        /* Fast path: nothing queued and every dependency known. */
        end = schedule_locked(eng, c, x, l, true, now);
    } else {
        sim_entry_t *e = entry_alloc_locked(eng);
        if (e == NULL) {
            pthread_mutex_unlock(&eng->lock);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        e->own = *c;
        if (!cmd_persist(&e->own)) {
            e->next = eng->free_entries;
            eng->free_entries = e;
            pthread_mutex_unlock(&eng->lock);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        e->cmd = &e->own;
        e->list = l;
        atomic_fetch_add(&l->refs, 1);
        e->submit_ns = now;
        seq = e->seq = atomic_fetch_add(&l->seq_submitted, 1) + 1;
        enqueue_locked(eng, e);
        engine_progress_locked(eng, now);
    }
    pthread_mutex_unlock(&eng->lock);
    progress_after_signal(epoch);
    if (l->synchronous) {
        /* Synchronous immediate list: the append returns after completion. */
        if (end == T_NEVER) {
            uint64_t poll = POLL_MIN_NS;
            while (atomic_load(&l->seq_done) < seq) {
                progress_all();
                if (atomic_load(&l->seq_done) >= seq) break;
                sim_sleep_until(sim_now_ns() + poll, poll);
                poll = umin64(poll * 2, POLL_MAX_NS);
            }
            end = atomic_load(&l->last_end);
        }
        sleep_until_passed(end);
    }
    return ZE_RESULT_SUCCESS;
}

/* Records c (not persisted) into the regular list l. */
static ze_result_t record(sim_cmdlist_t *l, sim_cmd_t *c) {
    sim_cmdbuf_t *b = l->buf;
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 16;
        sim_cmd_t *n = realloc(b->cmds, (size_t)cap * sizeof(*n));
        if (n == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        b->cmds = n;
        b->cap = cap;
    }
    sim_cmd_t *dst = &b->cmds[b->n];
    *dst = *c;
    if (!cmd_persist(dst)) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    b->n++;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t submit(sim_cmdlist_t *l, sim_cmd_t *c) {
    return l->immediate ? submit_immediate(l, c) : record(l, c);
}

/* Validates the common (signal, wait list) arguments and fills them into c. */
static ze_result_t cmd_init(sim_cmd_t *c, cmd_type_t type, ze_event_handle_t hSignal, uint32_t numWait,
                            ze_event_handle_t *phWait) {
    c->type = (uint8_t)type;
    c->owns = false;
    c->signal = NULL;
    c->nwait = 0;
    c->waits_tmp = NULL;
    if (hSignal) {
        c->signal = SIM_OBJ(sim_event_t, hSignal, SIM_K_EVENT);
        if (c->signal == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (numWait) {
        if (phWait == NULL) return ZE_RESULT_ERROR_INVALID_SIZE;
        for (uint32_t i = 0; i < numWait; i++)
            if (SIM_OBJ(sim_event_t, phWait[i], SIM_K_EVENT) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        /* Handles are the sim_event_t pointers themselves. */
        c->waits_tmp = (const sim_event_t *const *)phWait;
        c->nwait = numWait;
    }
    return ZE_RESULT_SUCCESS;
}

static sim_cmdlist_t *list_for_append(ze_command_list_handle_t h, ze_result_t *res) {
    sim_cmdlist_t *l = SIM_OBJ(sim_cmdlist_t, h, SIM_K_CMDLIST);
    if (l == NULL) {
        *res = ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        return NULL;
    }
    if (!l->immediate && l->closed) {
        /* Recorded commands may be executing; the list must be reset first. */
        *res = ZE_RESULT_ERROR_INVALID_ARGUMENT;
        return NULL;
    }
    *res = ZE_RESULT_SUCCESS;
    return l;
}

static ze_result_t cmdlist_new(sim_context_t *ctx, sim_device_t *dev, uint32_t ordinal, bool immediate,
                               sim_cmdlist_t **out) {
    sim_cmdlist_t *l = calloc(1, sizeof(*l));
    if (l == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_obj_init(&l->obj, SIM_K_CMDLIST);
    l->ctx = ctx;
    l->dev = dev;
    l->ordinal = ordinal;
    l->immediate = immediate;
    l->compute = group_is_compute(ordinal);
    l->id = atomic_fetch_add(&g_cmdlist_id, 1) + 1;
    atomic_init(&l->refs, 1);
    if (!immediate && (l->buf = cmdbuf_new()) == NULL) {
        free(l);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *out = l;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandListCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                      const ze_command_list_desc_t *desc,
                                                      ze_command_list_handle_t *phCommandList) {
    sim_context_t *ctx = SIM_OBJ(sim_context_t, hContext, SIM_K_CONTEXT);
    sim_device_t *dev = SIM_OBJ(sim_device_t, hDevice, SIM_K_DEVICE);
    if (ctx == NULL || dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phCommandList == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* 0x7 in spec 1.4, plus IN_ORDER (bit 3, spec 1.9). */
    if (desc->flags > (0x7u | SIM_COMMAND_LIST_FLAG_IN_ORDER)) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->commandQueueGroupOrdinal >= sim_cfg.num_queue_groups) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    sim_cmdlist_t *l;
    ze_result_t r = cmdlist_new(ctx, dev, desc->commandQueueGroupOrdinal, false, &l);
    if (r != ZE_RESULT_SUCCESS) return r;
    *phCommandList = (ze_command_list_handle_t)l;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t check_queue_desc(const ze_command_queue_desc_t *d) {
    /* flags: EXPLICIT_ONLY, plus IN_ORDER (bit 1, spec 1.7). */
    if (d->flags > 0x3u) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if ((uint32_t)d->mode > (uint32_t)ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if ((uint32_t)d->priority > (uint32_t)ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return check_ordinal_index(d->ordinal, d->index);
}

static ze_result_t ZE_APICALL sim_zeCommandListCreateImmediate(ze_context_handle_t hContext,
                                                               ze_device_handle_t hDevice,
                                                               const ze_command_queue_desc_t *altdesc,
                                                               ze_command_list_handle_t *phCommandList) {
    sim_context_t *ctx = SIM_OBJ(sim_context_t, hContext, SIM_K_CONTEXT);
    sim_device_t *dev = SIM_OBJ(sim_device_t, hDevice, SIM_K_DEVICE);
    if (ctx == NULL || dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (altdesc == NULL || phCommandList == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_result_t r = check_queue_desc(altdesc);
    if (r != ZE_RESULT_SUCCESS) return r;
    sim_engine_t *eng = engine_get(dev, altdesc->ordinal, altdesc->index);
    if (eng == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_cmdlist_t *l;
    r = cmdlist_new(ctx, dev, altdesc->ordinal, true, &l);
    if (r != ZE_RESULT_SUCCESS) return r;
    l->eng = eng;
    l->synchronous = altdesc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    *phCommandList = (ze_command_list_handle_t)l;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandListDestroy(ze_command_list_handle_t hCommandList) {
    sim_cmdlist_t *l = SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST);
    if (l == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_obj_kill(&l->obj);
    /* Queued commands keep the list (and executing batches its
     * recorded commands) alive until they are processed. */
    cmdlist_unref(l);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandListClose(ze_command_list_handle_t hCommandList) {
    sim_cmdlist_t *l = SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST);
    if (l == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!l->immediate) l->closed = true;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandListReset(ze_command_list_handle_t hCommandList) {
    sim_cmdlist_t *l = SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST);
    if (l == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (l->immediate) return ZE_RESULT_SUCCESS;
    sim_cmdbuf_t *b = cmdbuf_new();
    if (b == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    cmdbuf_unref(l->buf);
    l->buf = b;
    l->closed = false;
    return ZE_RESULT_SUCCESS;
}

/* ---- appends ----------------------------------------------------- */

static ze_result_t append_simple(ze_command_list_handle_t h, cmd_type_t type, ze_event_handle_t hSignal,
                                 uint32_t numWait, ze_event_handle_t *phWait) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(h, &r);
    if (l == NULL) return r;
    sim_cmd_t c;
    if ((r = cmd_init(&c, type, hSignal, numWait, phWait)) != ZE_RESULT_SUCCESS) return r;
    return submit(l, &c);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendBarrier(ze_command_list_handle_t hCommandList,
                                                             ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
                                                             ze_event_handle_t *phWaitEvents) {
    /* An engine executes in order, so a barrier only orders against the
     * given events: a zero-duration command. */
    return append_simple(hCommandList, C_NOP, hSignalEvent, numWaitEvents, phWaitEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemoryRangesBarrier(
    ze_command_list_handle_t hCommandList, uint32_t numRanges, const size_t *pRangeSizes, const void **pRanges,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    if (SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (numRanges && (pRangeSizes == NULL || pRanges == NULL)) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return append_simple(hCommandList, C_NOP, hSignalEvent, numWaitEvents, phWaitEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendSignalEvent(ze_command_list_handle_t hCommandList,
                                                                 ze_event_handle_t hEvent) {
    if (SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST) == NULL || hEvent == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return append_simple(hCommandList, C_NOP, hEvent, 0, NULL);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendWaitOnEvents(ze_command_list_handle_t hCommandList,
                                                                  uint32_t numEvents, ze_event_handle_t *phEvents) {
    if (SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phEvents == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return append_simple(hCommandList, C_NOP, NULL, numEvents, phEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendEventReset(ze_command_list_handle_t hCommandList,
                                                                ze_event_handle_t hEvent) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_cmd_t c;
    cmd_init(&c, C_RESET, NULL, 0, NULL);
    c.u.reset.ev = ev;
    return submit(l, &c);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemoryCopy(ze_command_list_handle_t hCommandList,
                                                                void *dstptr, const void *srcptr, size_t size,
                                                                ze_event_handle_t hSignalEvent,
                                                                uint32_t numWaitEvents,
                                                                ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    if (dstptr == NULL || srcptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_cmd_t c;
    if ((r = cmd_init(&c, C_COPY, hSignalEvent, numWaitEvents, phWaitEvents)) != ZE_RESULT_SUCCESS) return r;
    c.u.copy.dst = dstptr;
    c.u.copy.src = srcptr;
    c.u.copy.size = size;
    return submit(l, &c);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemoryCopyFromContext(
    ze_command_list_handle_t hCommandList, void *dstptr, ze_context_handle_t hContextSrc, const void *srcptr,
    size_t size, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    if (SIM_OBJ(sim_context_t, hContextSrc, SIM_K_CONTEXT) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return sim_zeCommandListAppendMemoryCopy(hCommandList, dstptr, srcptr, size, hSignalEvent, numWaitEvents,
                                             phWaitEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemoryFill(ze_command_list_handle_t hCommandList, void *ptr,
                                                                const void *pattern, size_t pattern_size,
                                                                size_t size, ze_event_handle_t hSignalEvent,
                                                                uint32_t numWaitEvents,
                                                                ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    if (ptr == NULL || pattern == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* Power of two, at most the group's maxMemoryFillPatternSize (128
     * on compute groups, 4 on copy-only ones, like Intel's driver). */
    size_t maxp = l->compute ? FILL_PATTERN_MAX : 4;
    if (pattern_size == 0 || (pattern_size & (pattern_size - 1)) != 0 || pattern_size > maxp)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    sim_cmd_t c;
    if ((r = cmd_init(&c, C_FILL, hSignalEvent, numWaitEvents, phWaitEvents)) != ZE_RESULT_SUCCESS) return r;
    c.u.fill.dst = ptr;
    c.u.fill.size = size;
    c.u.fill.psize = pattern_size;
    memcpy(c.u.fill.pat, pattern, pattern_size);
    return submit(l, &c);
}

static bool regions_overlap(const uint8_t *dst, const ze_copy_region_t *d, uint32_t dp, uint32_t ds,
                            const uint8_t *src, const ze_copy_region_t *s, uint32_t sp, uint32_t ss) {
    /* Conservative: compare the byte extents the two regions span. */
    uint32_t depth = d->depth ? d->depth : 1;
    uint64_t d0 = (uint64_t)d->originZ * ds + (uint64_t)d->originY * dp + d->originX;
    uint64_t d1 = (uint64_t)(d->originZ + depth - 1) * ds + (uint64_t)(d->originY + d->height - 1) * dp +
                  d->originX + d->width;
    uint64_t s0 = (uint64_t)s->originZ * ss + (uint64_t)s->originY * sp + s->originX;
    uint64_t s1 = (uint64_t)(s->originZ + depth - 1) * ss + (uint64_t)(s->originY + d->height - 1) * sp +
                  s->originX + d->width;
    uintptr_t a0 = (uintptr_t)dst + d0, a1 = (uintptr_t)dst + d1, b0 = (uintptr_t)src + s0, b1 = (uintptr_t)src + s1;
    return a0 < b1 && b0 < a1;
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemoryCopyRegion(
    ze_command_list_handle_t hCommandList, void *dstptr, const ze_copy_region_t *dstRegion, uint32_t dstPitch,
    uint32_t dstSlicePitch, const void *srcptr, const ze_copy_region_t *srcRegion, uint32_t srcPitch,
    uint32_t srcSlicePitch, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
    ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    if (dstptr == NULL || dstRegion == NULL || srcptr == NULL || srcRegion == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (dstRegion->width != srcRegion->width || dstRegion->height != srcRegion->height ||
        dstRegion->depth != srcRegion->depth)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (dstRegion->width > dstPitch || srcRegion->width > srcPitch) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (dstRegion->width && dstRegion->height &&
        regions_overlap(dstptr, dstRegion, dstPitch, dstSlicePitch, srcptr, srcRegion, srcPitch, srcSlicePitch))
        return ZE_RESULT_ERROR_OVERLAPPING_REGIONS;
    sim_cmd_t c;
    if ((r = cmd_init(&c, C_COPY_REGION, hSignalEvent, numWaitEvents, phWaitEvents)) != ZE_RESULT_SUCCESS) return r;
    c.u.region.dst = dstptr;
    c.u.region.src = srcptr;
    c.u.region.dr = *dstRegion;
    c.u.region.sr = *srcRegion;
    c.u.region.dpitch = dstPitch;
    c.u.region.dslice = dstSlicePitch;
    c.u.region.spitch = srcPitch;
    c.u.region.sslice = srcSlicePitch;
    return submit(l, &c);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemoryPrefetch(ze_command_list_handle_t hCommandList,
                                                                    const void *ptr, size_t size) {
    (void)size;
    if (SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return ZE_RESULT_SUCCESS; /* a hint: host memory is already "resident" */
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendMemAdvise(ze_command_list_handle_t hCommandList,
                                                               ze_device_handle_t hDevice, const void *ptr,
                                                               size_t size, ze_memory_advice_t advice) {
    (void)size;
    if (SIM_OBJ(sim_cmdlist_t, hCommandList, SIM_K_CMDLIST) == NULL ||
        SIM_OBJ(sim_device_t, hDevice, SIM_K_DEVICE) == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (ptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if ((uint32_t)advice > (uint32_t)ZE_MEMORY_ADVICE_BIAS_UNCACHED) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t hCommandList,
                                                                          uint64_t *dstptr,
                                                                          ze_event_handle_t hSignalEvent,
                                                                          uint32_t numWaitEvents,
                                                                          ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    if (dstptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    sim_cmd_t c;
    if ((r = cmd_init(&c, C_WRITE_TS, hSignalEvent, numWaitEvents, phWaitEvents)) != ZE_RESULT_SUCCESS) return r;
    c.u.wts.dst = dstptr;
    return submit(l, &c);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendQueryKernelTimestamps(
    ze_command_list_handle_t hCommandList, uint32_t numEvents, ze_event_handle_t *phEvents, void *dstptr,
    const size_t *pOffsets, ze_event_handle_t hSignalEvent, uint32_t numWaitEvents,
    ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    if (phEvents == NULL || dstptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < numEvents; i++)
        if (SIM_OBJ(sim_event_t, phEvents[i], SIM_K_EVENT) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_cmd_t c;
    if ((r = cmd_init(&c, C_QUERY_TS, hSignalEvent, numWaitEvents, phWaitEvents)) != ZE_RESULT_SUCCESS) return r;
    c.u.qts.n = numEvents;
    c.u.qts.evs = (sim_event_t **)phEvents;
    c.u.qts.dst = dstptr;
    c.u.qts.offs = (size_t *)pOffsets;
    return submit(l, &c);
}

/* Captures a kernel's launch parameters (the group size is the one set
 * at append time, as on hardware). */
static ze_result_t kernel_params(ze_kernel_handle_t hKernel, kparams_t *k) {
    sim_kernel_t *kn = SIM_OBJ(sim_kernel_t, hKernel, SIM_K_KERNEL);
    if (kn == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&kn->lock);
    k->isa = kn->isa;
    memcpy(k->gsize, kn->group_size, sizeof(k->gsize));
    k->simd = kn->simd_size;
    pthread_mutex_unlock(&kn->lock);
    if (k->isa == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t append_launch(ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel,
                                 const ze_group_count_t *groups, bool indirect, ze_event_handle_t hSignalEvent,
                                 uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    sim_cmd_t c;
    if ((r = kernel_params(hKernel, &c.u.kern.k)) != ZE_RESULT_SUCCESS) return r;
    if (groups == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!l->compute) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if ((r = cmd_init(&c, indirect ? C_KERNEL_INDIRECT : C_KERNEL, hSignalEvent, numWaitEvents, phWaitEvents)) !=
        ZE_RESULT_SUCCESS)
        return r;
    if (indirect) {
        c.u.kern.indirect = groups;
        memset(c.u.kern.k.groups, 0, sizeof(c.u.kern.k.groups));
    } else {
        c.u.kern.k.groups[0] = groups->groupCountX;
        c.u.kern.k.groups[1] = groups->groupCountY;
        c.u.kern.k.groups[2] = groups->groupCountZ;
    }
    return submit(l, &c);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendLaunchKernel(ze_command_list_handle_t hCommandList,
                                                                  ze_kernel_handle_t hKernel,
                                                                  const ze_group_count_t *pLaunchFuncArgs,
                                                                  ze_event_handle_t hSignalEvent,
                                                                  uint32_t numWaitEvents,
                                                                  ze_event_handle_t *phWaitEvents) {
    return append_launch(hCommandList, hKernel, pLaunchFuncArgs, false, hSignalEvent, numWaitEvents, phWaitEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendLaunchCooperativeKernel(
    ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel, const ze_group_count_t *pLaunchFuncArgs,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    return append_launch(hCommandList, hKernel, pLaunchFuncArgs, false, hSignalEvent, numWaitEvents, phWaitEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendLaunchKernelIndirect(
    ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel, const ze_group_count_t *pLaunchArgumentsBuffer,
    ze_event_handle_t hSignalEvent, uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    return append_launch(hCommandList, hKernel, pLaunchArgumentsBuffer, true, hSignalEvent, numWaitEvents,
                         phWaitEvents);
}

static ze_result_t ZE_APICALL sim_zeCommandListAppendLaunchMultipleKernelsIndirect(
    ze_command_list_handle_t hCommandList, uint32_t numKernels, ze_kernel_handle_t *phKernels,
    const uint32_t *pCountBuffer, const ze_group_count_t *pLaunchArgumentsBuffer, ze_event_handle_t hSignalEvent,
    uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
    ze_result_t r;
    sim_cmdlist_t *l = list_for_append(hCommandList, &r);
    if (l == NULL) return r;
    if (phKernels == NULL || pCountBuffer == NULL || pLaunchArgumentsBuffer == NULL)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!l->compute) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    kparams_t stackks[8];
    kparams_t *ks = numKernels <= 8 ? stackks : malloc((size_t)numKernels * sizeof(*ks));
    if (ks == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < numKernels && r == ZE_RESULT_SUCCESS; i++) r = kernel_params(phKernels[i], &ks[i]);
    sim_cmd_t c;
    if (r == ZE_RESULT_SUCCESS) r = cmd_init(&c, C_KERNELS_MULTI, hSignalEvent, numWaitEvents, phWaitEvents);
    if (r == ZE_RESULT_SUCCESS) {
        c.u.multi.max = numKernels;
        c.u.multi.ks = ks;
        c.u.multi.count = pCountBuffer;
        c.u.multi.args = pLaunchArgumentsBuffer;
        r = submit(l, &c);
    }
    if (ks != stackks) free(ks);
    return r;
}

static ze_result_t ZE_APICALL sim_zeImageUnsupported(void) { return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; }

static ze_result_t ZE_APICALL sim_zeCommandListAppendImageCopy(ze_command_list_handle_t a, ze_image_handle_t b,
                                                               ze_image_handle_t c, ze_event_handle_t d, uint32_t e,
                                                               ze_event_handle_t *f) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
    return sim_zeImageUnsupported();
}
static ze_result_t ZE_APICALL sim_zeCommandListAppendImageCopyRegion(ze_command_list_handle_t a,
                                                                     ze_image_handle_t b, ze_image_handle_t c,
                                                                     const ze_image_region_t *d,
                                                                     const ze_image_region_t *e, ze_event_handle_t f,
                                                                     uint32_t g, ze_event_handle_t *h) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h;
    return sim_zeImageUnsupported();
}
static ze_result_t ZE_APICALL sim_zeCommandListAppendImageCopyToMemory(ze_command_list_handle_t a, void *b,
                                                                       ze_image_handle_t c,
                                                                       const ze_image_region_t *d,
                                                                       ze_event_handle_t e, uint32_t f,
                                                                       ze_event_handle_t *g) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g;
    return sim_zeImageUnsupported();
}
static ze_result_t ZE_APICALL sim_zeCommandListAppendImageCopyFromMemory(ze_command_list_handle_t a,
                                                                         ze_image_handle_t b, const void *c,
                                                                         const ze_image_region_t *d,
                                                                         ze_event_handle_t e, uint32_t f,
                                                                         ze_event_handle_t *g) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g;
    return sim_zeImageUnsupported();
}
static ze_result_t ZE_APICALL sim_zeCommandListAppendImageCopyToMemoryExt(
    ze_command_list_handle_t a, void *b, ze_image_handle_t c, const ze_image_region_t *d, uint32_t e, uint32_t f,
    ze_event_handle_t g, uint32_t h, ze_event_handle_t *i) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)i;
    return sim_zeImageUnsupported();
}
static ze_result_t ZE_APICALL sim_zeCommandListAppendImageCopyFromMemoryExt(
    ze_command_list_handle_t a, ze_image_handle_t b, const void *c, const ze_image_region_t *d, uint32_t e,
    uint32_t f, ze_event_handle_t g, uint32_t h, ze_event_handle_t *i) {
    (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h, (void)i;
    return sim_zeImageUnsupported();
}

/* ================================================================== */
/* Command queues                                                      */
/* ================================================================== */

static ze_result_t ZE_APICALL sim_zeCommandQueueCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
                                                       const ze_command_queue_desc_t *desc,
                                                       ze_command_queue_handle_t *phCommandQueue) {
    sim_context_t *ctx = SIM_OBJ(sim_context_t, hContext, SIM_K_CONTEXT);
    sim_device_t *dev = SIM_OBJ(sim_device_t, hDevice, SIM_K_DEVICE);
    if (ctx == NULL || dev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phCommandQueue == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    ze_result_t r = check_queue_desc(desc);
    if (r != ZE_RESULT_SUCCESS) return r;
    sim_engine_t *eng = engine_get(dev, desc->ordinal, desc->index);
    if (eng == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_queue_t *q = calloc(1, sizeof(*q));
    if (q == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_obj_init(&q->obj, SIM_K_CMDQUEUE);
    q->ctx = ctx;
    q->dev = dev;
    q->ordinal = desc->ordinal;
    q->index = desc->index;
    q->synchronous = desc->mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    q->eng = eng;
    pthread_mutex_init(&q->lock, NULL);
    *phCommandQueue = (ze_command_queue_handle_t)q;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeCommandQueueDestroy(ze_command_queue_handle_t hCommandQueue) {
    sim_queue_t *q = SIM_OBJ(sim_queue_t, hCommandQueue, SIM_K_CMDQUEUE);
    if (q == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_obj_kill(&q->obj);
    batch_unref(q->last);
    pthread_mutex_destroy(&q->lock);
    free(q);
    return ZE_RESULT_SUCCESS;
}

/* Waits (progressing the engines) until the completion time reported by
 * probe is known and has passed, or the timeout expires. */
typedef uint64_t (*probe_fn)(void *arg, uint64_t now);

static ze_result_t wait_for(probe_fn probe, void *arg, uint64_t timeout) {
    uint64_t start = sim_now_ns();
    uint64_t deadline = timeout == UINT64_MAX ? T_NEVER : sat_add(start, timeout);
    uint64_t poll = POLL_MIN_NS;
    for (;;) {
        /* Probe first: waiting on something that has completed is a read
         * of host-visible state, without any lock (Intel's driver reads
         * the event's memory). */
        uint64_t now = sim_now_ns();
        uint64_t t = probe(arg, now);
        if (t == T_NEVER && progress_if_blocked()) {
            now = sim_now_ns();
            t = probe(arg, now);
        }
        if (t != T_NEVER && t <= now) return ZE_RESULT_SUCCESS;
        if (timeout == 0 || now >= deadline) return ZE_RESULT_NOT_READY;
        uint64_t wake;
        if (t != T_NEVER) {
            if (t - now <= SPIN_NS) {
                /* nanosleep overshoots by tens of us: yield-spin the tail
                 * (Intel's driver busy-polls the whole wait). */
                sched_yield();
                continue;
            }
            wake = t - SPIN_NS / 2;
        } else {
            /* Nobody has signalled it yet: poll with growing sleeps. */
            wake = now + poll;
            poll = umin64(poll * 2, POLL_MAX_NS);
        }
        sim_sleep_until(umin64(wake, deadline), SLEEP_CAP_NS);
    }
}

static uint64_t probe_batch(void *arg, uint64_t now) {
    (void)now;
    return atomic_load(&((sim_batch_t *)arg)->end_t);
}

static ze_result_t ZE_APICALL sim_zeCommandQueueExecuteCommandLists(ze_command_queue_handle_t hCommandQueue,
                                                                    uint32_t numCommandLists,
                                                                    ze_command_list_handle_t *phCommandLists,
                                                                    ze_fence_handle_t hFence) {
    sim_queue_t *q = SIM_OBJ(sim_queue_t, hCommandQueue, SIM_K_CMDQUEUE);
    if (q == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phCommandLists == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (numCommandLists == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    sim_fence_t *fence = NULL;
    if (hFence) {
        fence = SIM_OBJ(sim_fence_t, hFence, SIM_K_FENCE);
        if (fence == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        if (fence->queue != q) return ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT;
    }
    for (uint32_t i = 0; i < numCommandLists; i++) {
        sim_cmdlist_t *l = SIM_OBJ(sim_cmdlist_t, phCommandLists[i], SIM_K_CMDLIST);
        if (l == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        if (l->immediate) return ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE;
        /* Lists must be built for the queue's group (Intel checks copy vs compute). */
        if (l->ordinal != q->ordinal) return ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE;
        if (!l->closed) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    sim_batch_t *b = calloc(1, sizeof(*b) + numCommandLists * sizeof(b->bufs[0]));
    if (b == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    atomic_init(&b->refs, 2); /* the engine (until the batch end) + the queue */
    atomic_init(&b->end_t, T_NEVER);
    b->nbufs = numCommandLists;
    for (uint32_t i = 0; i < numCommandLists; i++) {
        sim_cmdlist_t *l = (sim_cmdlist_t *)phCommandLists[i];
        b->bufs[i] = l->buf;
        atomic_fetch_add(&l->buf->refs, 1);
    }
    if (fence) {
        atomic_fetch_add(&fence->refs, 1);
        atomic_store(&fence->done_t, T_NEVER);
        b->fence = fence;
    }
    sim_cmd_t bend;
    memset(&bend, 0, sizeof(bend));
    bend.type = C_BATCH_END;
    bend.owns = true;
    bend.u.bend.batch = b;

    sim_engine_t *eng = q->eng;
    uint64_t epoch = atomic_load_explicit(&g_signal_epoch, memory_order_relaxed);
    ze_result_t res = ZE_RESULT_SUCCESS;
    pthread_mutex_lock(&eng->lock);
    /* A batch takes one ring slot (a batch-buffer start on hardware): the
     * backpressure check is done once, not per recorded command. */
    uint64_t now = backpressure_locked(eng);
    for (uint32_t i = 0; i <= numCommandLists; i++) {
        sim_cmdlist_t *l = i < numCommandLists ? (sim_cmdlist_t *)phCommandLists[i] : NULL;
        uint32_t n = l ? l->buf->n : 1;
        for (uint32_t j = 0; j < n; j++) {
            const sim_cmd_t *c = l ? &l->buf->cmds[j] : &bend;
            uint64_t x = T_NEVER;
            if (eng->head == NULL) x = cmd_ready_time(c, umax64(eng->free_at, now));
            if (x != T_NEVER) {
                schedule_locked(eng, c, x, l, false, now);
                if (!l) batch_unref(b);
                continue;
            }
            sim_entry_t *e = entry_alloc_locked(eng);
            if (e == NULL) {
                /* Out of memory mid-batch: finish the batch so waiters do not hang. */
                res = ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
                break;
            }
            if (l) {
                e->cmd = c;
            } else {
                e->own = bend;
                e->own.owns = false; /* nothing to release: the batch is unref'd at execution */
                e->cmd = &e->own;
            }
            e->list = l;
            if (l) atomic_fetch_add(&l->refs, 1);
            e->submit_ns = now;
            e->seq = 0;
            enqueue_locked(eng, e);
        }
        if (res != ZE_RESULT_SUCCESS) break;
    }
    if (res != ZE_RESULT_SUCCESS) {
        /* Complete the batch right away. */
        exec_cmd(eng, &bend, umax64(eng->free_at, sim_now_ns()), NULL, false, sim_now_ns());
        batch_unref(b);
    }
    engine_progress_locked(eng, sim_now_ns());
    pthread_mutex_unlock(&eng->lock);
    progress_after_signal(epoch);

    pthread_mutex_lock(&q->lock);
    sim_batch_t *old = q->last;
    q->last = b;
    atomic_fetch_add(&b->refs, 1); /* for the synchronous wait below */
    pthread_mutex_unlock(&q->lock);
    batch_unref(old);
    if (q->synchronous && res == ZE_RESULT_SUCCESS) wait_for(probe_batch, b, UINT64_MAX);
    batch_unref(b);
    return res;
}

static ze_result_t ZE_APICALL sim_zeCommandQueueSynchronize(ze_command_queue_handle_t hCommandQueue,
                                                            uint64_t timeout) {
    sim_queue_t *q = SIM_OBJ(sim_queue_t, hCommandQueue, SIM_K_CMDQUEUE);
    if (q == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&q->lock);
    sim_batch_t *b = q->last;
    if (b) atomic_fetch_add(&b->refs, 1);
    pthread_mutex_unlock(&q->lock);
    if (b == NULL) return ZE_RESULT_SUCCESS;
    /* Batches of one queue run in order on one engine: the last one
     * completing means all of them did. */
    ze_result_t r = wait_for(probe_batch, b, timeout);
    batch_unref(b);
    return r;
}

/* ================================================================== */
/* Fences                                                              */
/* ================================================================== */

static void fence_unref(sim_fence_t *f) {
    if (f && atomic_fetch_sub(&f->refs, 1) == 1) free(f);
}

static ze_result_t ZE_APICALL sim_zeFenceCreate(ze_command_queue_handle_t hCommandQueue, const ze_fence_desc_t *desc,
                                                ze_fence_handle_t *phFence) {
    sim_queue_t *q = SIM_OBJ(sim_queue_t, hCommandQueue, SIM_K_CMDQUEUE);
    if (q == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phFence == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->flags > ZE_FENCE_FLAG_SIGNALED) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    sim_fence_t *f = calloc(1, sizeof(*f));
    if (f == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    sim_obj_init(&f->obj, SIM_K_FENCE);
    f->queue = q;
    atomic_init(&f->refs, 1);
    atomic_init(&f->done_t, (desc->flags & ZE_FENCE_FLAG_SIGNALED) ? 0 : T_NEVER);
    *phFence = (ze_fence_handle_t)f;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeFenceDestroy(ze_fence_handle_t hFence) {
    sim_fence_t *f = SIM_OBJ(sim_fence_t, hFence, SIM_K_FENCE);
    if (f == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_obj_kill(&f->obj);
    fence_unref(f);
    return ZE_RESULT_SUCCESS;
}

static uint64_t probe_fence(void *arg, uint64_t now) {
    (void)now;
    return atomic_load(&((sim_fence_t *)arg)->done_t);
}

static ze_result_t ZE_APICALL sim_zeFenceHostSynchronize(ze_fence_handle_t hFence, uint64_t timeout) {
    sim_fence_t *f = SIM_OBJ(sim_fence_t, hFence, SIM_K_FENCE);
    if (f == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return wait_for(probe_fence, f, timeout);
}

static ze_result_t ZE_APICALL sim_zeFenceQueryStatus(ze_fence_handle_t hFence) {
    return sim_zeFenceHostSynchronize(hFence, 0);
}

static ze_result_t ZE_APICALL sim_zeFenceReset(ze_fence_handle_t hFence) {
    sim_fence_t *f = SIM_OBJ(sim_fence_t, hFence, SIM_K_FENCE);
    if (f == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    atomic_store(&f->done_t, T_NEVER);
    return ZE_RESULT_SUCCESS;
}

/* ================================================================== */
/* Event pools and events                                              */
/* ================================================================== */

static void pool_unref(sim_event_pool_t *p) {
    if (p == NULL || atomic_fetch_sub(&p->refs, 1) != 1) return;
    pthread_mutex_destroy(&p->lock);
    free(p->used);
    free(p);
}

static ze_result_t ZE_APICALL sim_zeEventPoolCreate(ze_context_handle_t hContext, const ze_event_pool_desc_t *desc,
                                                    uint32_t numDevices, ze_device_handle_t *phDevices,
                                                    ze_event_pool_handle_t *phEventPool) {
    sim_context_t *ctx = SIM_OBJ(sim_context_t, hContext, SIM_K_CONTEXT);
    if (ctx == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phEventPool == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->flags > 0x7u) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->count == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    if (numDevices && phDevices == NULL) return ZE_RESULT_ERROR_INVALID_SIZE;
    sim_device_t *dev = NULL;
    for (uint32_t i = 0; i < numDevices; i++) {
        sim_device_t *d = SIM_OBJ(sim_device_t, phDevices[i], SIM_K_DEVICE);
        if (d == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        if (dev == NULL) dev = d;
    }
    if (dev == NULL && sim_driver && sim_driver->num_devices) dev = sim_driver->devices[0];
    sim_event_pool_t *p = calloc(1, sizeof(*p));
    uint8_t *used = calloc(desc->count, 1);
    if (p == NULL || used == NULL) {
        free(p);
        free(used);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    sim_obj_init(&p->obj, SIM_K_EVENTPOOL);
    p->ctx = ctx;
    p->flags = desc->flags;
    p->count = desc->count;
    p->dev = dev;
    p->used = used;
    atomic_init(&p->refs, 1);
    pthread_mutex_init(&p->lock, NULL);
    *phEventPool = (ze_event_pool_handle_t)p;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeEventPoolDestroy(ze_event_pool_handle_t hEventPool) {
    sim_event_pool_t *p = SIM_OBJ(sim_event_pool_t, hEventPool, SIM_K_EVENTPOOL);
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* Events still alive keep the pool's memory (Intel's driver does not
     * check either; the application must destroy them first). */
    sim_obj_kill(&p->obj);
    pool_unref(p);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeEventPoolGetIpcHandle(ze_event_pool_handle_t hEventPool,
                                                          ze_ipc_event_pool_handle_t *phIpc) {
    if (SIM_OBJ(sim_event_pool_t, hEventPool, SIM_K_EVENTPOOL) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phIpc == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

static ze_result_t ZE_APICALL sim_zeEventPoolOpenIpcHandle(ze_context_handle_t hContext,
                                                           ze_ipc_event_pool_handle_t hIpc,
                                                           ze_event_pool_handle_t *phEventPool) {
    (void)hIpc;
    if (SIM_OBJ(sim_context_t, hContext, SIM_K_CONTEXT) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (phEventPool == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

static ze_result_t ZE_APICALL sim_zeEventPoolCloseIpcHandle(ze_event_pool_handle_t hEventPool) {
    if (SIM_OBJ(sim_event_pool_t, hEventPool, SIM_K_EVENTPOOL) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

static ze_result_t ZE_APICALL sim_zeEventCreate(ze_event_pool_handle_t hEventPool, const ze_event_desc_t *desc,
                                                ze_event_handle_t *phEvent) {
    sim_event_pool_t *p = SIM_OBJ(sim_event_pool_t, hEventPool, SIM_K_EVENTPOOL);
    if (p == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == NULL || phEvent == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->signal > 0x7u || desc->wait > 0x7u) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->index >= p->count) return ZE_RESULT_ERROR_INVALID_ARGUMENT; /* as Intel's driver */
    sim_event_t *ev = calloc(1, sizeof(*ev));
    if (ev == NULL) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    pthread_mutex_lock(&p->lock);
    bool taken = p->used[desc->index] != 0;
    if (!taken) p->used[desc->index] = 1;
    pthread_mutex_unlock(&p->lock);
    if (taken) {
        /* The spec makes this the application's error; Intel's driver
         * silently aliases the two events. Refuse, to make it visible. */
        free(ev);
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    sim_obj_init(&ev->obj, SIM_K_EVENT);
    ev->pool = p;
    atomic_fetch_add(&p->refs, 1);
    ev->index = desc->index;
    ev->timestamps = (p->flags & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP) != 0;
    ev->id = atomic_fetch_add(&g_event_id, 1) + 1;
    atomic_init(&ev->refs, 1);
    pthread_mutex_init(&ev->lock, NULL);
    pthread_mutex_init(&ev->streamer_lock, NULL);
    atomic_init(&ev->seq, 0);
    atomic_init(&ev->sig_t, T_NEVER);
    atomic_init(&ev->reset_t, T_NEVER);
    atomic_init(&ev->nparts, 0);
    atomic_init(&ev->has_streamer, false);
    *phEvent = (ze_event_handle_t)ev;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeEventDestroy(ze_event_handle_t hEvent) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    sim_obj_kill(&ev->obj);
    pthread_mutex_lock(&ev->pool->lock);
    ev->pool->used[ev->index] = 0;
    pthread_mutex_unlock(&ev->pool->lock);
    /* Commands still referencing it keep the memory alive. */
    event_unref(ev);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeEventHostSignal(ze_event_handle_t hEvent) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    uint64_t epoch = atomic_load(&g_signal_epoch);
    uint64_t now = sim_now_ns();
    ev_parts_t parts;
    parts.n = 1;
    parts.start[0] = parts.end[0] = now;
    parts.dev[0] = ev->pool->dev;
    event_signal(ev, now, &parts, true);
    progress_after_signal(epoch);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeEventHostReset(ze_event_handle_t hEvent) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    /* Settle the engines first, so a command that was due to signal the
     * event before this reset does not signal it afterwards. */
    progress_if_blocked();
    event_host_reset(ev);
    return ZE_RESULT_SUCCESS;
}

static uint64_t probe_event(void *arg, uint64_t now) { return event_host_time((sim_event_t *)arg, now); }

/* Metrics notification event: state re-evaluated on every query. */
static int notify_state(sim_event_t *ev) {
    if (!atomic_load(&ev->has_streamer)) return -1;
    int r = -1;
    pthread_mutex_lock(&ev->streamer_lock);
    if (ev->streamer) r = sim_metrics_notify_state(ev->streamer) ? 1 : 0;
    pthread_mutex_unlock(&ev->streamer_lock);
    return r;
}

static ze_result_t ZE_APICALL sim_zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (atomic_load(&ev->has_streamer)) {
        uint64_t deadline = timeout == UINT64_MAX ? T_NEVER : sat_add(sim_now_ns(), timeout);
        uint64_t poll = POLL_MIN_NS;
        for (;;) {
            int s = notify_state(ev);
            if (s < 0) break; /* detached meanwhile: an ordinary event again */
            if (s > 0) return ZE_RESULT_SUCCESS;
            uint64_t now = sim_now_ns();
            if (timeout == 0 || now >= deadline) return ZE_RESULT_NOT_READY;
            sim_sleep_until(umin64(now + poll, deadline), poll);
            poll = umin64(poll * 2, POLL_MAX_NS);
        }
    }
    return wait_for(probe_event, ev, timeout);
}

static ze_result_t ZE_APICALL sim_zeEventQueryStatus(ze_event_handle_t hEvent) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    int s = notify_state(ev);
    if (s >= 0) return s ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
    return wait_for(probe_event, ev, 0);
}

/* Global = earliest start / latest end of the parts, in device ticks
 * masked to kernelTimestampValidBits (a kernel crossing the wrap has
 * end < start, as on hardware). Context = global. */
static void write_kernel_timestamp(const ev_parts_t *p, ze_kernel_timestamp_result_t *out) {
    uint64_t mask = mask_bits(sim_cfg.kernel_timestamp_valid_bits);
    uint64_t s = T_NEVER, e = 0;
    sim_device_t *sd = p->dev[0], *ed = p->dev[0];
    for (uint32_t i = 0; i < p->n; i++) {
        if (p->start[i] < s) s = p->start[i], sd = p->dev[i];
        if (p->end[i] >= e) e = p->end[i], ed = p->dev[i];
    }
    out->global.kernelStart = sd ? sim_dev_ticks(sd, s) & mask : 0;
    out->global.kernelEnd = ed ? sim_dev_ticks(ed, e) & mask : 0;
    out->context = out->global;
}

static ze_result_t ZE_APICALL sim_zeEventQueryKernelTimestamp(ze_event_handle_t hEvent,
                                                              ze_kernel_timestamp_result_t *dstptr) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (dstptr == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    /* Undefined by the spec for other pools (Intel returns whatever the
     * event memory holds); refuse to make the mistake visible. */
    if (!ev->timestamps) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    /* A read of the event's memory: no engine or event lock (see "Cost"
     * in README.md). Engines are advanced only when one is blocked. */
    ev_state_t st;
    ev_read(ev, &st, true);
    uint64_t now = sim_now_ns();
    if (!ev_state_signalled_at(&st, now) && progress_if_blocked()) {
        ev_read(ev, &st, true);
        now = sim_now_ns();
    }
    if (!ev_state_signalled_at(&st, now)) return ZE_RESULT_NOT_READY;
    write_kernel_timestamp(&st.parts, dstptr);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t ZE_APICALL sim_zeEventQueryTimestampsExp(ze_event_handle_t hEvent, ze_device_handle_t hDevice,
                                                            uint32_t *pCount,
                                                            ze_kernel_timestamp_result_t *pTimestamps) {
    sim_event_t *ev = SIM_OBJ(sim_event_t, hEvent, SIM_K_EVENT);
    if (ev == NULL || SIM_OBJ(sim_device_t, hDevice, SIM_K_DEVICE) == NULL) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pCount == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!ev->timestamps) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    ev_state_t st;
    ev_read(ev, &st, true);
    uint64_t now = sim_now_ns();
    if (!ev_state_signalled_at(&st, now) && progress_if_blocked()) {
        ev_read(ev, &st, true);
        now = sim_now_ns();
    }
    /* One result per (sub)device the signalling command ran on (Intel:
     * one per timestamp packet in use, at least 1). */
    uint32_t avail = st.parts.n ? st.parts.n : 1;
    if (*pCount == 0 || *pCount > avail) {
        *pCount = avail;
        if (pTimestamps == NULL) return ZE_RESULT_SUCCESS;
    }
    if (pTimestamps == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!ev_state_signalled_at(&st, now)) return ZE_RESULT_NOT_READY;
    uint64_t mask = mask_bits(sim_cfg.kernel_timestamp_valid_bits);
    for (uint32_t i = 0; i < *pCount; i++) {
        sim_device_t *d = st.parts.dev[i];
        pTimestamps[i].global.kernelStart = d ? sim_dev_ticks(d, st.parts.start[i]) & mask : 0;
        pTimestamps[i].global.kernelEnd = d ? sim_dev_ticks(d, st.parts.end[i]) & mask : 0;
        pTimestamps[i].context = pTimestamps[i].global;
    }
    return ZE_RESULT_SUCCESS;
}

/* ---- metrics integration ---------------------------------------- */

sim_event_t *sim_event_from_handle(ze_event_handle_t h) { return SIM_OBJ(sim_event_t, h, SIM_K_EVENT); }

void sim_event_attach_streamer(sim_event_t *ev, struct sim_streamer *s) {
    if (ev == NULL) return;
    pthread_mutex_lock(&ev->streamer_lock);
    struct sim_streamer *old = ev->streamer;
    ev->streamer = s;
    atomic_store(&ev->has_streamer, s != NULL);
    pthread_mutex_unlock(&ev->streamer_lock);
    /* The streamer holds a reference while attached, so that detaching
     * after zeEventDestroy is safe. */
    if (s && !old) event_ref(ev);
    if (!s && old) event_unref(ev);
}

/* ================================================================== */
/* DDI getters                                                         */
/* ================================================================== */

SIM_EXPORT ze_result_t ZE_APICALL zeGetCommandQueueProcAddrTable(ze_api_version_t version,
                                                                 ze_command_queue_dditable_t *t) {
    (void)version;
    if (t == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    t->pfnCreate = sim_zeCommandQueueCreate;
    t->pfnDestroy = sim_zeCommandQueueDestroy;
    t->pfnExecuteCommandLists = sim_zeCommandQueueExecuteCommandLists;
    t->pfnSynchronize = sim_zeCommandQueueSynchronize;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetCommandListProcAddrTable(ze_api_version_t version,
                                                                ze_command_list_dditable_t *t) {
    (void)version;
    if (t == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    t->pfnCreate = sim_zeCommandListCreate;
    t->pfnCreateImmediate = sim_zeCommandListCreateImmediate;
    t->pfnDestroy = sim_zeCommandListDestroy;
    t->pfnClose = sim_zeCommandListClose;
    t->pfnReset = sim_zeCommandListReset;
    t->pfnAppendWriteGlobalTimestamp = sim_zeCommandListAppendWriteGlobalTimestamp;
    t->pfnAppendBarrier = sim_zeCommandListAppendBarrier;
    t->pfnAppendMemoryRangesBarrier = sim_zeCommandListAppendMemoryRangesBarrier;
    t->pfnAppendMemoryCopy = sim_zeCommandListAppendMemoryCopy;
    t->pfnAppendMemoryFill = sim_zeCommandListAppendMemoryFill;
    t->pfnAppendMemoryCopyRegion = sim_zeCommandListAppendMemoryCopyRegion;
    t->pfnAppendMemoryCopyFromContext = sim_zeCommandListAppendMemoryCopyFromContext;
    t->pfnAppendImageCopy = sim_zeCommandListAppendImageCopy;
    t->pfnAppendImageCopyRegion = sim_zeCommandListAppendImageCopyRegion;
    t->pfnAppendImageCopyToMemory = sim_zeCommandListAppendImageCopyToMemory;
    t->pfnAppendImageCopyFromMemory = sim_zeCommandListAppendImageCopyFromMemory;
    t->pfnAppendMemoryPrefetch = sim_zeCommandListAppendMemoryPrefetch;
    t->pfnAppendMemAdvise = sim_zeCommandListAppendMemAdvise;
    t->pfnAppendSignalEvent = sim_zeCommandListAppendSignalEvent;
    t->pfnAppendWaitOnEvents = sim_zeCommandListAppendWaitOnEvents;
    t->pfnAppendEventReset = sim_zeCommandListAppendEventReset;
    t->pfnAppendQueryKernelTimestamps = sim_zeCommandListAppendQueryKernelTimestamps;
    t->pfnAppendLaunchKernel = sim_zeCommandListAppendLaunchKernel;
    t->pfnAppendLaunchCooperativeKernel = sim_zeCommandListAppendLaunchCooperativeKernel;
    t->pfnAppendLaunchKernelIndirect = sim_zeCommandListAppendLaunchKernelIndirect;
    t->pfnAppendLaunchMultipleKernelsIndirect = sim_zeCommandListAppendLaunchMultipleKernelsIndirect;
    t->pfnAppendImageCopyToMemoryExt = sim_zeCommandListAppendImageCopyToMemoryExt;
    t->pfnAppendImageCopyFromMemoryExt = sim_zeCommandListAppendImageCopyFromMemoryExt;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetEventPoolProcAddrTable(ze_api_version_t version, ze_event_pool_dditable_t *t) {
    (void)version;
    if (t == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    t->pfnCreate = sim_zeEventPoolCreate;
    t->pfnDestroy = sim_zeEventPoolDestroy;
    t->pfnGetIpcHandle = sim_zeEventPoolGetIpcHandle;
    t->pfnOpenIpcHandle = sim_zeEventPoolOpenIpcHandle;
    t->pfnCloseIpcHandle = sim_zeEventPoolCloseIpcHandle;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetEventProcAddrTable(ze_api_version_t version, ze_event_dditable_t *t) {
    (void)version;
    if (t == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    t->pfnCreate = sim_zeEventCreate;
    t->pfnDestroy = sim_zeEventDestroy;
    t->pfnHostSignal = sim_zeEventHostSignal;
    t->pfnHostSynchronize = sim_zeEventHostSynchronize;
    t->pfnQueryStatus = sim_zeEventQueryStatus;
    t->pfnHostReset = sim_zeEventHostReset;
    t->pfnQueryKernelTimestamp = sim_zeEventQueryKernelTimestamp;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetEventExpProcAddrTable(ze_api_version_t version, ze_event_exp_dditable_t *t) {
    (void)version;
    if (t == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    t->pfnQueryTimestampsExp = sim_zeEventQueryTimestampsExp;
    return ZE_RESULT_SUCCESS;
}

SIM_EXPORT ze_result_t ZE_APICALL zeGetFenceProcAddrTable(ze_api_version_t version, ze_fence_dditable_t *t) {
    (void)version;
    if (t == NULL) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    t->pfnCreate = sim_zeFenceCreate;
    t->pfnDestroy = sim_zeFenceDestroy;
    t->pfnHostSynchronize = sim_zeFenceHostSynchronize;
    t->pfnQueryStatus = sim_zeFenceQueryStatus;
    t->pfnReset = sim_zeFenceReset;
    return ZE_RESULT_SUCCESS;
}
