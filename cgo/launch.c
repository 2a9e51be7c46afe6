/*
 * launch.c — timestamp injection on every kernel launch, in C on the
 * application's thread (docs/level-zero-loader.md §5.4 "Prologues can replace
 * arguments", §12 "Prior art: kernel device times and signal-event swapping").
 *
 * Per launch the prologue looks up the command list and the signal event
 * (lock-free maps), and, unless the application's own event already
 * carries kernel timestamps, swaps in an event from zestall's per-context
 * pool. The epilogue signals the application's event after the kernel
 * (so its semantics are unchanged), then publishes one slot into this
 * thread's ring. A Go goroutine drains the rings, reads the timestamps
 * when the events have signalled, and writes the launch records. No Go
 * call, no I/O and no allocation happen per launch in the steady state.
 */
#include "launch.h"
#include "xpti.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <level_zero/layers/zel_tracing_register_cb.h>

#include "_cgo_export.h"
#include "layer.h"
#include "separate.h"
#include "zmap.h"

/* Thread-locals in the initial-exec model: a plain %fs-relative access
 * instead of a __tls_get_addr call on every launch. libzestall.so is
 * preloaded (static TLS is reserved for it), and the Go runtime linked
 * into it already uses this model. */
#define ZL_TLS _Thread_local __attribute__((tls_model("initial-exec")))

/* Off until Go's harvester runs, at exit, and in a forked child: then every
 * callback returns at once, takes no lock and never enters Go (a forked
 * child has only the forking thread;
 * docs/level-zero-loader.md §10 "Hazards", P8). */
static atomic_bool zl_enabled;
void zl_set_enabled(int on) { atomic_store(&zl_enabled, on != 0); }

/* Runtime start/stop (control.c, collector/window): one condition
 * word, the set of ZL_BLOCK_* conditions (cgo/abi.h) that block collection
 * now; collection is on while it is 0. Go sets and clears USER and TIMER
 * through zl_block and writes the Window records; a stopped launch costs
 * one relaxed load over the floor. The launch-count window
 * (ZESTALL_LAUNCHES) is decided here, per launch, from one shared counter,
 * so racing threads cannot blur its edges: the launch numbered `from`
 * clears COUNT, the one numbered `to` sets it, and each tells Go (on its
 * thread, before the append) so the stall streamers are read at the edge.
 * The counter is touched only while such a window is set. */
static _Atomic uint32_t zl_blocked;
uint32_t zl_block(uint32_t set, uint32_t clear) {
    uint32_t old = atomic_load(&zl_blocked), now;
    do {
        now = (old | set) & ~clear;
    } while (now != old && !atomic_compare_exchange_weak(&zl_blocked, &old, now));
    return now;
}
static atomic_bool zl_count_mode;
static uint64_t zl_count_from, zl_count_to;
static atomic_uint_fast64_t zl_launch_index, zl_stopped_launches;
void zl_set_launch_window(uint64_t from, uint64_t to) {
    zl_count_from = from;
    zl_count_to = to;
    if (from > 0) zl_block(ZL_BLOCK_COUNT, 0);
    atomic_store_explicit(&zl_count_mode, true, memory_order_release);
}
uint64_t zl_launches_while_stopped(void) { return atomic_load(&zl_stopped_launches); }

/* Whether this launch is collected. Within a launch-count window the
 * launch's number decides, not COUNT: a thread that took a number inside
 * the window may run before the thread at the edge has changed the bit. */
static bool collect_this_launch(void) {
    uint32_t blocked = atomic_load_explicit(&zl_blocked, memory_order_relaxed);
    if (!atomic_load_explicit(&zl_count_mode, memory_order_acquire)) return blocked == 0;
    uint64_t n = atomic_fetch_add_explicit(&zl_launch_index, 1, memory_order_relaxed);
    if (n == zl_count_from) {
        zl_block(0, ZL_BLOCK_COUNT);
        zestallLaunchEdge(1, n, zl_now_ns());
    }
    if (n == zl_count_to) {
        zl_block(ZL_BLOCK_COUNT, 0);
        zestallLaunchEdge(0, n, zl_now_ns());
    }
    bool on = (blocked & ~(uint32_t)ZL_BLOCK_COUNT) == 0 && n >= zl_count_from && n < zl_count_to;
    if (!on) atomic_fetch_add_explicit(&zl_stopped_launches, 1, memory_order_relaxed);
    return on;
}

/* Whether executions of regular lists are collected now: while nothing
 * blocks collection. */
static bool collect_executions(void) { return atomic_load_explicit(&zl_blocked, memory_order_relaxed) == 0; }

/* ZESTALL_SERIALIZE=1: each launch completes, and the streamers are read,
 * before the next launch of the same device proceeds (exact per-launch
 * stall attribution at the cost of all concurrency). */
static atomic_bool zl_serialize;
void zl_set_serialize(int on) { atomic_store(&zl_serialize, on != 0); }
static atomic_uint_fast64_t ser_timeouts;
uint64_t zl_serialize_timeouts(void) { return atomic_load(&ser_timeouts); }
#define ZL_SER_LOCKS 16
static pthread_mutex_t ser_locks[ZL_SER_LOCKS] = {
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
    PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static pthread_mutex_t *ser_lock_of(uint64_t device) {
    return &ser_locks[(device >> 6) % ZL_SER_LOCKS];
}

/* ---- object maps ---------------------------------------------------------- */

static zmap_t kernels; /* kernel -> {id, packed group size} */
static zmap_t lists;   /* list -> {context, device, id<<2 | in-order<<1 | immediate} */
static zmap_t pools;   /* app event pool -> {flags} */
static zmap_t events;  /* app event -> {pool flags} */
static zmap_t ctxs;    /* context -> {zl_ctxpool_t*} */
static zmap_t listev;  /* regular list -> {zl_listev_t*}: zestall's events in it */
static atomic_uint next_list_id;
/* Kernels created so far: kernel ids are 1..2^32-1, each given once in the
 * run (launch records and the output name kernels by them). */
static atomic_uint_fast64_t kernels_created;
static pthread_once_t maps_once = PTHREAD_ONCE_INIT;

static void maps_init(void) {
    zmap_init(&kernels, 1024);
    zmap_init(&lists, 1024);
    zmap_init(&pools, 256);
    zmap_init(&events, 4096);
    zmap_init(&ctxs, 64);
    zmap_init(&listev, 256);
}

static uint64_t pack_size(uint32_t x, uint32_t y, uint32_t z) {
    return (uint64_t)(x & 0x1fffff) | ((uint64_t)(y & 0x1fffff) << 21) | ((uint64_t)(z & 0x1fffff) << 42);
}

uint64_t zl_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- zestall's event pools, per context ------------------------------------ */

#define ZL_POOL_EVENTS 1024
/* 256k of zestall's events in flight per context at most: each is a
 * driver object (host memory). Bounded, so memory stays flat however long
 * the run; beyond it, launches are recorded without times (POOL_EXHAUSTED).
 * Regular lists hold one event per launch until executed and read. */
#define ZL_MAX_POOLS 256
/* Events a thread keeps for its own launches (see event_get), and how
 * many it takes from the shared free list at a time. */
#define ZL_EV_CACHE 64
#define ZL_EV_BATCH 32

struct zl_harvest;

typedef struct zl_ctxpool {
    ze_context_handle_t ctx;
    pthread_mutex_t lock;
    struct zl_harvest *units; /* the context's harvest units (see below) */
    ze_event_handle_t *free;
    uint32_t nfree, cap;
    ze_event_pool_handle_t pools[ZL_MAX_POOLS];
    uint16_t reserved[ZL_MAX_POOLS]; /* events created (or being created) in each pool */
    uint32_t npools;
    uint32_t fill_at; /* pools before it are full */
    bool failed;      /* pool creation failed once: do not retry per launch */
} zl_ctxpool_t;

static pthread_mutex_t ctxs_create_lock = PTHREAD_MUTEX_INITIALIZER;
/* Bumped whenever the ctxs map changes: a thread's cached context ->
 * pool answer (ctxpool_cached) is valid while it is unchanged (a
 * destroyed context's handle can be reused by a new one). */
static atomic_uint ctxs_gen;

static zl_ctxpool_t *ctxpool_of(ze_context_handle_t ctx, bool create) {
    uint64_t v[ZMAP_WORDS];
    if (zmap_get(&ctxs, (uintptr_t)ctx, v)) return (zl_ctxpool_t *)(uintptr_t)v[0];
    if (!create) return NULL;
    pthread_mutex_lock(&ctxs_create_lock);
    zl_ctxpool_t *p = NULL;
    if (zmap_get(&ctxs, (uintptr_t)ctx, v)) {
        p = (zl_ctxpool_t *)(uintptr_t)v[0];
    } else if ((p = calloc(1, sizeof *p)) != NULL) {
        p->ctx = ctx;
        pthread_mutex_init(&p->lock, NULL);
        uint64_t nv[ZMAP_WORDS] = {(uint64_t)(uintptr_t)p, 0, 0};
        if (!zmap_put(&ctxs, (uintptr_t)ctx, nv)) {
            free(p);
            p = NULL;
        }
        atomic_fetch_add_explicit(&ctxs_gen, 1, memory_order_release);
    }
    pthread_mutex_unlock(&ctxs_create_lock);
    return p;
}

/* ctxpool_of(ctx, true) through a one-entry cache per thread (a thread
 * usually launches into one context): no hash probe per launch. */
static ZL_TLS ze_context_handle_t tl_ctx;
static ZL_TLS zl_ctxpool_t *tl_ctxpool;
static ZL_TLS unsigned tl_ctx_gen;
static zl_ctxpool_t *ctxpool_cached(ze_context_handle_t ctx) {
    unsigned gen = atomic_load_explicit(&ctxs_gen, memory_order_acquire);
    if (ctx == tl_ctx && gen == tl_ctx_gen && tl_ctxpool != NULL) return tl_ctxpool;
    zl_ctxpool_t *p = ctxpool_of(ctx, true);
    tl_ctx = ctx;
    tl_ctx_gen = gen;
    tl_ctxpool = p;
    return p;
}

/* Set while grow_events makes its driver calls. From a launch callback
 * they are not traced; from zestall's goroutine (zl_release_events) they
 * are (docs/level-zero-loader.md §5.5 "Re-entrancy guard": the guard is
 * per thread), and zestall's own pool and events must not be taken for the
 * application's (epi_pool_create, epi_event_create): their resets and
 * queries would then be read as application timestamp events, and the
 * goroutine's thread would own a ring (and be parked at exit). */
static ZL_TLS bool tl_own_calls;

/* Creates up to want more of zestall's timestamp events for p (at least
 * one on success); called WITHOUT p->lock. Events are created in the
 * context's last pool that is not full (a new pool only when all are),
 * their indices reserved under the lock and the driver calls made outside
 * it, so application threads taking events meanwhile do not wait for
 * them. Returns how many it created. A launching thread that finds no
 * event creates only a batch (ZL_EV_BATCH); zestall's goroutine creates
 * the rest ahead of need (zl_release_events). */
static uint32_t grow_events_unmarked(zl_ctxpool_t *p, uint32_t want);
static uint32_t grow_events(zl_ctxpool_t *p, uint32_t want) {
    bool was = tl_own_calls;
    tl_own_calls = true;
    uint32_t n = grow_events_unmarked(p, want);
    tl_own_calls = was;
    return n;
}

static uint32_t grow_events_unmarked(zl_ctxpool_t *p, uint32_t want) {
    if (want == 0) return 0;
    if (want > ZL_POOL_EVENTS) want = ZL_POOL_EVENTS;
    pthread_mutex_lock(&p->lock);
    uint32_t i = p->fill_at;
    while (i < p->npools && p->reserved[i] == ZL_POOL_EVENTS) i++;
    p->fill_at = i;
    bool ok = !p->failed;
    if (ok && i == p->npools) {
        /* Every pool is full: a new one (one driver call, under the lock). */
        ze_event_pool_desc_t pd = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, NULL,
                                   ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | ZE_EVENT_POOL_FLAG_HOST_VISIBLE,
                                   ZL_POOL_EVENTS};
        /* The free list holds every event of the context's pools at once
         * when all are back: sized by the events the pools can hold, not
         * by those free now (a list sized by nfree dropped returned events
         * once the pools had grown while events were out: they leaked, and
         * the pools ran dry with POOL_EXHAUSTED under a sustained launch
         * rate). */
        uint32_t total = (p->npools + 1) * ZL_POOL_EVENTS;
        if (p->npools == ZL_MAX_POOLS) {
            ok = false;
        } else if (p->cap < total) {
            uint32_t cap = p->cap ? p->cap * 2 : ZL_POOL_EVENTS;
            while (cap < total) cap *= 2;
            ze_event_handle_t *f = realloc(p->free, cap * sizeof *f);
            if (f == NULL) ok = false;
            else {
                p->free = f;
                p->cap = cap;
            }
        }
        ze_event_pool_handle_t pool;
        if (ok && zeEventPoolCreate(p->ctx, &pd, 0, NULL, &pool) != ZE_RESULT_SUCCESS) {
            p->failed = true;
            ok = false;
        }
        if (ok) {
            p->reserved[i] = 0;
            p->pools[p->npools++] = pool;
        }
    }
    uint32_t start = 0, k = 0;
    ze_event_pool_handle_t pool = NULL;
    if (ok) {
        start = p->reserved[i];
        k = ZL_POOL_EVENTS - start < want ? ZL_POOL_EVENTS - start : want;
        p->reserved[i] = (uint16_t)(start + k);
        pool = p->pools[i];
    }
    pthread_mutex_unlock(&p->lock);
    if (!ok) return 0;
    /* On the heap: an application thread's stack may be small. */
    ze_event_handle_t *evs = malloc(k * sizeof *evs);
    uint32_t n = 0;
    for (uint32_t j = 0; evs != NULL && j < k; j++) {
        ze_event_desc_t ed = {ZE_STRUCTURE_TYPE_EVENT_DESC, NULL, start + j, ZE_EVENT_SCOPE_FLAG_HOST,
                              ZE_EVENT_SCOPE_FLAG_HOST};
        if (zeEventCreate(pool, &ed, &evs[n]) == ZE_RESULT_SUCCESS) n++;
    }
    pthread_mutex_lock(&p->lock);
    bool keep = !p->failed || p->npools > 0; /* not destroyed meanwhile */
    if (keep)
        for (uint32_t j = 0; j < n && p->nfree < p->cap; j++) p->free[p->nfree++] = evs[j];
    pthread_mutex_unlock(&p->lock);
    if (!keep)
        for (uint32_t j = 0; j < n; j++) zeEventDestroy(evs[j]);
    free(evs);
    return keep ? n : 0;
}

/* Whether more events can be created for p (under p->lock). */
static bool can_grow_locked(const zl_ctxpool_t *p) {
    return !p->failed && (p->npools < ZL_MAX_POOLS || p->fill_at < p->npools);
}

/* Takes one event from the context's shared free list (growing the
 * pools if it is empty), or NULL with *reason set. */
static ze_event_handle_t event_get_shared(zl_ctxpool_t *p, uint8_t *reason) {
    for (;;) {
        pthread_mutex_lock(&p->lock);
        if (p->nfree > 0) {
            ze_event_handle_t ev = p->free[--p->nfree];
            pthread_mutex_unlock(&p->lock);
            return ev;
        }
        bool more = can_grow_locked(p);
        pthread_mutex_unlock(&p->lock);
        if (!more || !grow_events(p, ZL_EV_BATCH)) {
            pthread_mutex_lock(&p->lock);
            bool failed = p->failed;
            pthread_mutex_unlock(&p->lock);
            *reason = failed ? ZL_REASON_EVENT_ERROR : ZL_REASON_POOL_EXHAUSTED;
            return NULL;
        }
    }
}

static void event_put_shared(zl_ctxpool_t *p, ze_event_handle_t ev) {
    if (p == NULL || ev == NULL) return;
    pthread_mutex_lock(&p->lock);
    if (p->nfree < p->cap) p->free[p->nfree++] = ev;
    pthread_mutex_unlock(&p->lock);
}

/* Keep the shared free list at least this full, plus a quarter of the
 * events created: the harvester grows the pools (zl_release_events)
 * before the application's threads find them empty, so a launch does not
 * pay for a new pool while the harvester keeps up (the margin grows with
 * the events in flight, up to ZL_MAX_POOLS). */
#define ZL_POOL_LOW_WATER (ZL_POOL_EVENTS / 2)

/* Resets n of zestall's events (context, event pairs) and returns them to
 * their pools: one driver-guard section for the batch and one pool lock per
 * run of events of the same context, so the application threads taking
 * events (event_get) meet the harvester on that lock once per batch rather
 * than once per launch. */
/* zestall's own per-event driver calls, made in batches inside one traced
 * call. A call from outside any callback goes through the tracing layer's
 * wrapper, which allocates on every call (docs/level-zero-loader.md §8.2
 * "Allocations per call"); a call made inside a callback of the same
 * thread is forwarded straight to the driver (§5.5 "Re-entrancy guard").
 * So the goroutine makes one traced call on the batch's first event, and
 * zestall's own prologue for that API, seeing this thread's batch, makes
 * the batch's calls from inside the callback. If the prologue did not run
 * (no tracer enabled), the batch is made the ordinary way. */
typedef struct zl_batch {
    const uint64_t *events;     /* kernel timestamps of these events ... */
    zl_event_reading_t *out;    /* ... into out */
    const zl_event_ref_t *refs; /* or host resets of these events */
    uint32_t n;
    bool done;
} zl_batch_t;
static ZL_TLS zl_batch_t *tl_batch;

static void reset_events(const zl_event_ref_t *refs, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (refs[i].event != 0) zeEventHostReset((ze_event_handle_t)(uintptr_t)refs[i].event);
}

/* The batch of this thread's pending call of type want (events or refs),
 * taken: NULL when the call is not zestall's batch trigger. */
static zl_batch_t *batch_take(bool resets) {
    zl_batch_t *b = tl_batch;
    if (b == NULL || b->done || (b->refs != NULL) != resets) return NULL;
    tl_batch = NULL;
    return b;
}

static void zl_release_events_unguarded(const zl_event_ref_t *refs, uint32_t n) {
    uint32_t first = 0;
    while (first < n && refs[first].event == 0) first++;
    if (first < n) {
        zl_batch_t b = {.refs = refs, .n = n};
        tl_batch = &b;
        /* The trigger; pro_event_reset makes the batch (the event is
         * reset once more by this call itself, which changes nothing). */
        zeEventHostReset((ze_event_handle_t)(uintptr_t)refs[first].event);
        tl_batch = NULL;
        if (!b.done) reset_events(refs, n);
    }
    for (uint32_t i = 0; i < n;) {
        zl_ctxpool_t *p = ctxpool_of((ze_context_handle_t)(uintptr_t)refs[i].context, false);
        uint32_t j = i;
        if (p == NULL) {
            while (j < n && refs[j].context == refs[i].context) j++;
            i = j;
            continue;
        }
        pthread_mutex_lock(&p->lock);
        for (; j < n && refs[j].context == refs[i].context; j++)
            if (refs[j].event != 0 && p->nfree < p->cap) p->free[p->nfree++] = (ze_event_handle_t)(uintptr_t)refs[j].event;
        uint32_t created = 0;
        for (uint32_t k = 0; k < p->npools; k++) created += p->reserved[k];
        uint32_t target = ZL_POOL_LOW_WATER + created / 4;
        uint32_t want = p->nfree < target && can_grow_locked(p) ? target - p->nfree : 0;
        pthread_mutex_unlock(&p->lock);
        /* Here, on zestall's goroutine (which also destroys the context's
         * pools, so never concurrently), not on a launching thread. */
        while (want > 0) {
            uint32_t got = grow_events(p, want);
            if (got == 0) break;
            want = got >= want ? 0 : want - got;
        }
        i = j;
    }
}
ZESTALL_GUARDED_VOID(zl_release_events, (const zl_event_ref_t *refs, uint32_t n), (refs, n))

/* ---- per-thread rings ------------------------------------------------------- */

#define ZL_RING 32768
/* Slots kept for everything but launches: a launch is admitted only while
 * this many remain free, so executions, resets and destroys of regular
 * lists (one per thousands of launches) are not lost when launches are:
 * a lost one would leave the harvester's view of the list wrong. */
#define ZL_RING_RESERVE 1024

/* head and tail on cache lines of their own, and the owner's last view of
 * tail on head's: a push reads the drainer's line only when the ring
 * looks full from that view (once per many launches), not per launch (a
 * shared line made every push and every drain miss). */
typedef struct zl_ring {
    _Alignas(64) _Atomic uint64_t head; /* written by the owning thread */
    uint64_t tail_seen;                 /* owner only: a tail value read earlier (<= tail) */
    struct zl_ring *next;
    /* 1 once the owning thread exited (ring_exit): the next thread that
     * launches for the first time adopts the ring instead of mapping one. */
    _Atomic uint32_t orphan;
    _Alignas(64) _Atomic uint64_t tail; /* written by the drainer */
    /* The thread's cache of zestall's events, all of one context's pool
     * ev_pool (NULL: empty). The owner pops without a lock; ev_pool and
     * ev_n change under ev_pool's lock otherwise (refill, flush, and
     * zl_context_destroy, which takes a destroyed context's events back). */
    _Atomic(zl_ctxpool_t *) ev_pool;
    _Alignas(64) _Atomic uint32_t ev_n;
    ze_event_handle_t ev_cache[ZL_EV_CACHE];
    _Alignas(64) zl_slot_t slots[ZL_RING];
} zl_ring_t;

static ZL_TLS zl_ring_t *tl_ring;
static _Atomic(zl_ring_t *) rings;
static atomic_uint_fast64_t ring_dropped, launches_dropped;
static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
static zl_ring_t *drain_next; /* under drain_lock: where the next pass starts (NULL: the list's head) */

static void event_cache_flush(zl_ring_t *r);

/* Rings outlive their threads (a thread's slots may still be pending when
 * it exits), so they are never unmapped; instead, a thread that exits
 * hands its cached events back and leaves its ring to the next thread
 * that launches for the first time. An application that creates a new
 * thread per task then uses as many rings as it has launching threads at
 * once, not one per thread it ever made. The ring's one producer changes
 * from the dead thread to its adopter: the orphan flag's release/acquire
 * pair orders the dead thread's last push before the adopter's first. */
static pthread_key_t ring_key;
static atomic_bool ring_key_ok;
static pthread_once_t ring_key_once = PTHREAD_ONCE_INIT;

/* Thread-exit destructor of ring_key (never for the thread that calls
 * exit, whose ring nobody could adopt anyway). libzestall.so is never
 * unloaded (NODELETE), so the destructor stays mapped. */
static void ring_exit(void *p) {
    zl_ring_t *r = p;
    event_cache_flush(r);
    atomic_store_explicit(&r->orphan, 1, memory_order_release);
}

static void ring_key_init(void) {
    if (pthread_key_create(&ring_key, ring_exit) == 0) atomic_store(&ring_key_ok, true);
}

/* A ring whose thread exited, now this thread's; NULL if none. */
static zl_ring_t *ring_adopt(void) {
    for (zl_ring_t *r = atomic_load(&rings); r != NULL; r = r->next) {
        uint32_t want = 1;
        if (atomic_load_explicit(&r->orphan, memory_order_relaxed) == 1 &&
            atomic_compare_exchange_strong_explicit(&r->orphan, &want, 0, memory_order_acquire,
                                                    memory_order_relaxed))
            return r;
    }
    return NULL;
}

static zl_ring_t *my_ring(void) {
    zl_ring_t *r = tl_ring;
    if (r != NULL) return r;
    pthread_once(&ring_key_once, ring_key_init);
    r = ring_adopt();
    if (r == NULL) {
        /* Mapped, not allocated: zero pages the kernel provides as the
         * ring is first written, page aligned (the cache-line layout
         * above), and no 4 MiB memset on the thread's first launch. */
        void *m = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) return NULL;
        r = m;
        /* Lock-free push onto the list of rings (never removed). */
        zl_ring_t *old = atomic_load(&rings);
        do {
            r->next = old;
        } while (!atomic_compare_exchange_weak(&rings, &old, r));
    }
    /* Without the key (pthread_key_create failed) the ring stays this
     * thread's for the run, as before. */
    if (atomic_load(&ring_key_ok)) pthread_setspecific(ring_key, r);
    tl_ring = r;
    return r;
}

/* Whether this thread has launched kernels under zestall (it owns a
 * ring): an application thread, never one of zestall's own (layer.c parks
 * such threads while the process exits). */
int zl_thread_launched(void) { return tl_ring != NULL; }

/* ---- zestall's events for this thread's launches -----------------------------
 *
 * A launch takes one of zestall's events from its thread's cache: a load,
 * a compare and a store, no lock and no atomic read-modify-write. The
 * cache is refilled ZL_EV_BATCH events at a time from the context's
 * shared free list (one lock per batch), where the harvester returns the
 * events it has read. The cache holds one context's events; a launch into
 * another context hands them back first. At most ZL_EV_CACHE events per
 * thread sit idle in a cache: a context's pools may report POOL_EXHAUSTED
 * while other threads still cache a few (bounded by threads × 64). */

/* Hands r's cached events back to their pool (owner thread). */
static void event_cache_flush(zl_ring_t *r) {
    zl_ctxpool_t *q = atomic_load_explicit(&r->ev_pool, memory_order_relaxed);
    if (q == NULL) return;
    pthread_mutex_lock(&q->lock);
    /* zl_context_destroy may have taken them meanwhile. */
    if (atomic_load_explicit(&r->ev_pool, memory_order_relaxed) == q) {
        uint32_t n = atomic_load_explicit(&r->ev_n, memory_order_relaxed);
        for (uint32_t i = 0; i < n && q->nfree < q->cap; i++) q->free[q->nfree++] = r->ev_cache[i];
        atomic_store_explicit(&r->ev_n, 0, memory_order_relaxed);
        atomic_store_explicit(&r->ev_pool, NULL, memory_order_relaxed);
    }
    pthread_mutex_unlock(&q->lock);
}

/* Slow path of event_get: r's cache is empty or of another context. */
static ze_event_handle_t event_refill(zl_ring_t *r, zl_ctxpool_t *p, uint8_t *reason) {
    if (atomic_load_explicit(&r->ev_pool, memory_order_relaxed) != p) event_cache_flush(r);
    for (;;) {
        pthread_mutex_lock(&p->lock);
        if (p->nfree > 0) {
            uint32_t k = p->nfree < ZL_EV_BATCH ? p->nfree : ZL_EV_BATCH;
            p->nfree -= k;
            memcpy(r->ev_cache, p->free + p->nfree, k * sizeof *r->ev_cache);
            atomic_store_explicit(&r->ev_pool, p, memory_order_relaxed);
            atomic_store_explicit(&r->ev_n, k - 1, memory_order_relaxed);
            ze_event_handle_t ev = r->ev_cache[k - 1];
            pthread_mutex_unlock(&p->lock);
            return ev;
        }
        bool more = can_grow_locked(p);
        pthread_mutex_unlock(&p->lock);
        /* The harvester did not create events in time (or this is the
         * context's first launch): a batch here rather than lose the
         * launch's times. */
        if (!more || !grow_events(p, ZL_EV_BATCH)) {
            pthread_mutex_lock(&p->lock);
            bool failed = p->failed;
            pthread_mutex_unlock(&p->lock);
            *reason = failed ? ZL_REASON_EVENT_ERROR : ZL_REASON_POOL_EXHAUSTED;
            return NULL;
        }
    }
}

static ze_event_handle_t event_get(ze_context_handle_t ctx, uint8_t *reason) {
    zl_ctxpool_t *p = ctxpool_cached(ctx);
    if (p == NULL) {
        *reason = ZL_REASON_EVENT_ERROR;
        return NULL;
    }
    zl_ring_t *r = tl_ring;
    if (r == NULL) return event_get_shared(p, reason);
    uint32_t n = atomic_load_explicit(&r->ev_n, memory_order_relaxed);
    if (n > 0 && atomic_load_explicit(&r->ev_pool, memory_order_relaxed) == p) {
        atomic_store_explicit(&r->ev_n, n - 1, memory_order_relaxed);
        return r->ev_cache[n - 1];
    }
    return event_refill(r, p, reason);
}

/* An event taken by event_get and not used (the append failed). */
static void event_put(ze_context_handle_t ctx, ze_event_handle_t ev) {
    zl_ctxpool_t *p = ctxpool_cached(ctx);
    if (p == NULL || ev == NULL) return;
    zl_ring_t *r = tl_ring;
    uint32_t n = r != NULL ? atomic_load_explicit(&r->ev_n, memory_order_relaxed) : ZL_EV_CACHE;
    if (n < ZL_EV_CACHE && atomic_load_explicit(&r->ev_pool, memory_order_relaxed) == p) {
        r->ev_cache[n] = ev;
        atomic_store_explicit(&r->ev_n, n + 1, memory_order_relaxed);
        return;
    }
    event_put_shared(p, ev);
}

/* Under p->lock, the context being destroyed: the events threads cache
 * for it go back to its free list (to be destroyed with it). No thread
 * launches into a context while it is destroyed (the application's
 * obligation), so no owner pops from such a cache meanwhile. */
static void event_caches_reclaim_locked(zl_ctxpool_t *p) {
    for (zl_ring_t *r = atomic_load(&rings); r != NULL; r = r->next) {
        if (atomic_load_explicit(&r->ev_pool, memory_order_relaxed) != p) continue;
        uint32_t n = atomic_load_explicit(&r->ev_n, memory_order_relaxed);
        for (uint32_t i = 0; i < n && p->nfree < p->cap; i++) p->free[p->nfree++] = r->ev_cache[i];
        atomic_store_explicit(&r->ev_n, 0, memory_order_relaxed);
        atomic_store_explicit(&r->ev_pool, NULL, memory_order_relaxed);
    }
}

/* True when this thread's ring has room: checked before an event is
 * swapped in, so a launch whose slot could not be published never holds
 * one of zestall's events. */
/* Whether fewer than limit slots of r are in use (owner thread): from the
 * last tail seen, re-read only when that view says no. */
static bool ring_below(zl_ring_t *r, uint64_t h, uint64_t limit) {
    if (h - r->tail_seen < limit) return true;
    r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
    return h - r->tail_seen < limit;
}

/* ---- a full ring: the launching thread waits (ZESTALL_RING_FULL) ---------
 *
 * When a thread launches faster than the harvester drains its ring, the
 * launch either waits for room (the default: nothing is lost, the
 * application runs at the rate zestall can record) or passes untouched and
 * is counted lost (ZESTALL_RING_FULL=drop). A wait ends when the ring has
 * room; it does not start when no harvester runs in this process (before
 * it starts, after the final drain at exit, in a forked child), and gives
 * up when the harvester drained nothing for ZL_RING_STALL_NS (stuck): the
 * launch is then lost as with drop, and no launch waits again until a
 * drain happens, so a stuck harvester costs the application that interval
 * once. A harvester that is merely slow (its writer waits for the disk, or
 * the machine is loaded) is waited for: that is the point.
 * Nothing is held while waiting: the check runs in the launch's prologue,
 * before any lock of zestall's is taken (docs/level-zero-loader.md §5.4
 * "Prologues can replace arguments"). */
#define ZL_RING_STALL_NS 2000000000ull /* 2 s: far beyond any poll interval (8 ms) or pass */
static atomic_bool ring_wait_on;
static _Atomic pid_t ring_wait_pid; /* the process whose harvester turned waiting on */
static _Atomic uint64_t drain_passes;                 /* zl_drain calls that saw the rings */
static _Atomic uint64_t ring_stuck_pass = UINT64_MAX; /* drain_passes when a wait gave up */
static atomic_uint_fast64_t ring_waits, ring_wait_ns;

void zl_set_ring_wait(int on) {
    atomic_store(&ring_wait_pid, getpid());
    atomic_store(&ring_wait_on, on != 0);
}
void zl_ring_waits(uint64_t *launches, uint64_t *ns) {
    *launches = atomic_load(&ring_waits);
    *ns = atomic_load(&ring_wait_ns);
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Slow path of ring_has_room: waits for fewer than limit slots of r in
 * use; false when the wait gave up (or waiting is off). */
static __attribute__((noinline)) bool ring_wait(zl_ring_t *r, uint64_t h, uint64_t limit) {
    if (!atomic_load_explicit(&ring_wait_on, memory_order_relaxed)) return false;
    /* A forked child inherits the flag, not the harvester thread. */
    if (atomic_load_explicit(&ring_wait_pid, memory_order_relaxed) != getpid()) return false;
    uint64_t pass = atomic_load_explicit(&drain_passes, memory_order_acquire);
    if (pass == atomic_load_explicit(&ring_stuck_pass, memory_order_relaxed)) return false;
    uint64_t t0 = zl_now_ns(), progress = t0, now = t0;
    bool room = false;
    for (unsigned i = 0;; i++) {
        /* Spin briefly (a drain pass takes microseconds), then yield the
         * CPU to the harvester, which on a small machine may need it. */
        if (i < 64) {
            cpu_relax();
        } else if (i < 256) {
            sched_yield();
        } else {
            /* 20 us doubling to 1 ms (the harvester's shortest poll):
             * waiting threads must not take the CPU it needs. */
            unsigned sh = i - 256 < 6 ? i - 256 : 6;
            struct timespec ts = {0, 20000l << sh};
            if (ts.tv_nsec > 1000000) ts.tv_nsec = 1000000;
            nanosleep(&ts, NULL);
        }
        if (!atomic_load_explicit(&ring_wait_on, memory_order_relaxed)) break; /* the harvester stopped */
        if (ring_below(r, h, limit)) {
            room = true;
            break;
        }
        if ((i & 15) != 15 && i < 256) continue;
        now = zl_now_ns();
        uint64_t p = atomic_load_explicit(&drain_passes, memory_order_acquire);
        if (p != pass) {
            pass = p;
            progress = now;
        } else if (now - progress > ZL_RING_STALL_NS) {
            atomic_store_explicit(&ring_stuck_pass, pass, memory_order_relaxed);
            break;
        }
    }
    if (room) now = zl_now_ns();
    atomic_fetch_add_explicit(&ring_waits, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&ring_wait_ns, now - t0, memory_order_relaxed);
    return room;
}

static bool ring_has_room(void) {
    zl_ring_t *r = my_ring();
    if (r == NULL) return false;
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (__builtin_expect(ring_below(r, h, ZL_RING - ZL_RING_RESERVE), 1)) return true;
    return ring_wait(r, h, ZL_RING - ZL_RING_RESERVE);
}

/* Publishes s; false (counted in ring_dropped) when the ring is full. */
static bool push(const zl_slot_t *s) {
    zl_ring_t *r = my_ring();
    if (r == NULL) {
        atomic_fetch_add(&ring_dropped, 1);
        return false;
    }
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (!ring_below(r, h, ZL_RING)) {
        atomic_fetch_add_explicit(&ring_dropped, 1, memory_order_relaxed);
        return false;
    }
    r->slots[h % ZL_RING] = *s;
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    /* The ring (4 MiB) does not stay in cache: fetch the next slot's lines
     * for writing now, so that the miss overlaps the application's work
     * until its next launch instead of stalling that launch's push. */
    const char *next = (const char *)&r->slots[(h + 1) % ZL_RING];
    __builtin_prefetch(next, 1, 3);
    __builtin_prefetch(next + sizeof(zl_slot_t) - 1, 1, 3);
    return true;
}

uint32_t zl_drain(zl_slot_t *dst, uint32_t cap, uint64_t *oldest_left) {
    uint32_t n = 0;
    uint64_t oldest = UINT64_MAX;
    pthread_mutex_lock(&drain_lock);
    /* A pass starts at the ring after the last one the previous pass
     * took slots from, around the list: when the batch fills before every
     * ring is empty, each thread's ring gets its turn (the first rings of
     * the list would otherwise be drained first every time, and the
     * others' launches wait or are lost: ZESTALL_RING_FULL). */
    zl_ring_t *first = atomic_load(&rings), *start = drain_next != NULL ? drain_next : first, *last = NULL;
    zl_ring_t *r = start;
    for (bool wrapped = false; r != NULL && !(wrapped && r == start);) {
        uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
        uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
        if (t < h && n < cap) last = r;
        while (t < h && n < cap) dst[n++] = r->slots[t++ % ZL_RING];
        atomic_store_explicit(&r->tail, t, memory_order_release);
        /* A ring's slots are in its thread's order: the first one left
         * is its oldest (host_ns taken before the append). */
        if (t < h && r->slots[t % ZL_RING].host_ns < oldest) oldest = r->slots[t % ZL_RING].host_ns;
        r = r->next;
        if (r == NULL && !wrapped && start != first) {
            r = first;
            wrapped = true;
        }
    }
    drain_next = last != NULL && n == cap ? (last->next != NULL ? last->next : first) : NULL;
    /* The progress a waiting launch watches (ring_wait). */
    atomic_fetch_add_explicit(&drain_passes, 1, memory_order_release);
    pthread_mutex_unlock(&drain_lock);
    *oldest_left = oldest;
    return n;
}

uint64_t zl_dropped(void) { return atomic_load(&ring_dropped); }
uint64_t zl_launches_dropped(void) { return atomic_load(&launches_dropped); }

/* ---- helpers for Go ----------------------------------------------------------- */

/* Reads the kernel timestamps of n events into out (one driver-guard
 * section and one call from Go for the batch). On Intel's driver a read
 * of a host-visible timestamp event is a read of host memory. */
static void read_timestamps(const uint64_t *events, uint32_t n, zl_event_reading_t *out) {
    for (uint32_t i = 0; i < n; i++) {
        ze_kernel_timestamp_result_t ts;
        /* NOT_READY until the event signalled (spec), so one call suffices. */
        ze_result_t r = zeEventQueryKernelTimestamp((ze_event_handle_t)(uintptr_t)events[i], &ts);
        out[i].result = (uint32_t)r;
        if (r != ZE_RESULT_SUCCESS) continue;
        out[i].start = ts.global.kernelStart;
        out[i].end = ts.global.kernelEnd;
        out[i].ctx_start = ts.context.kernelStart;
        out[i].ctx_end = ts.context.kernelEnd;
    }
}
/* In one traced call (see zl_batch_t): pro_event_timestamp reads them. */
static void zl_kernel_timestamps_unguarded(const uint64_t *events, uint32_t n, zl_event_reading_t *out) {
    if (n == 0) return;
    zl_batch_t b = {.events = events, .out = out, .n = n};
    tl_batch = &b;
    ze_kernel_timestamp_result_t ts;
    zeEventQueryKernelTimestamp((ze_event_handle_t)(uintptr_t)events[0], &ts);
    tl_batch = NULL;
    if (!b.done) read_timestamps(events, n, out);
}
ZESTALL_GUARDED_VOID(zl_kernel_timestamps, (const uint64_t *events, uint32_t n, zl_event_reading_t *out), (events, n, out))

static ze_result_t zl_global_timestamps_unguarded(uint64_t device, uint64_t *host, uint64_t *ticks) {
    return zeDeviceGetGlobalTimestamps((ze_device_handle_t)(uintptr_t)device, host, ticks);
}
ZESTALL_GUARDED(ze_result_t, zl_global_timestamps, (uint64_t device, uint64_t *host, uint64_t *ticks), (device, host, ticks))

uint32_t zl_kernel_created(ze_kernel_handle_t k) {
    pthread_once(&maps_once, maps_init);
    /* Past 2^32-1 kernels, 0: no id (Go counts the kernel as created
     * without one and does not record it), never an id given before. */
    uint64_t n = atomic_fetch_add(&kernels_created, 1) + 1;
    uint32_t id = n > UINT32_MAX ? 0 : (uint32_t)n;
    uint64_t v[ZMAP_WORDS] = {id, pack_size(1, 1, 1), 0};
    zmap_put(&kernels, (uintptr_t)k, v);
    return id;
}

void zl_kernel_destroyed(ze_kernel_handle_t k) { zmap_del(&kernels, (uintptr_t)k); }

/* ---- callbacks ------------------------------------------------------------------ */

/* Prologue -> epilogue state of this thread's current launch (the tracing
 * layer never nests callbacks on one thread). */
typedef struct {
    pthread_mutex_t *ser; /* held from prologue to epilogue in serialized mode */
    uint64_t t0;
    ze_event_handle_t app;  /* the application's signal event */
    ze_event_handle_t ours; /* swapped in, or NULL */
    uint8_t flags, reason;
    uint64_t ctx, dev;
    uint32_t list_id;
    uint16_t code_copy; /* separate.c: the code the launch ran (0: its own) */
} zl_pending_t;
static ZL_TLS zl_pending_t tl_p;


/* The lists entry of list (false: not known to zestall). The last
 * answer is cached per thread (a thread usually appends to one list),
 * valid until a list is created or destroyed anywhere (a handle can be
 * reused): no hash probe per launch. */
static atomic_uint lists_gen;
static ZL_TLS ze_command_list_handle_t tl_last_list;
static ZL_TLS unsigned tl_last_gen;
static ZL_TLS bool tl_last_known;
static ZL_TLS uint64_t tl_last_lv[ZMAP_WORDS];
static bool list_lookup(ze_command_list_handle_t list, uint64_t lv[ZMAP_WORDS]) {
    unsigned gen = atomic_load_explicit(&lists_gen, memory_order_acquire);
    if (list != tl_last_list || gen != tl_last_gen || list == NULL) {
        tl_last_known = zmap_get(&lists, (uintptr_t)list, tl_last_lv);
        tl_last_list = list;
        tl_last_gen = gen;
    }
    memcpy(lv, tl_last_lv, sizeof tl_last_lv);
    return tl_last_known;
}

/* Whether list is a regular command list known to zestall. */
static bool regular_list(ze_command_list_handle_t list) {
    uint64_t lv[ZMAP_WORDS];
    return list_lookup(list, lv) && !(lv[2] & 1);
}


/* Common prologue: decide about the signal event. */
static void launch_prologue(ze_command_list_handle_t list, ze_event_handle_t *signal) {
    zl_pending_t *p = &tl_p;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) {
        p->flags = 0x80; /* not collecting: the epilogue does nothing */
        return;
    }
    bool stopped = !collect_this_launch();
    if (stopped && !regular_list(list)) {
        p->flags = 0x80; /* stopped, immediate list: nothing at all */
        return;
    }
    memset(p, 0, sizeof *p);
    if (!ring_has_room()) {
        /* The harvester is behind: this launch is counted as lost and
         * passes untouched. */
        atomic_fetch_add_explicit(&launches_dropped, 1, memory_order_relaxed);
        p->flags = 0x80;
        return;
    }
    p->t0 = zl_now_ns();
    uint64_t lv[ZMAP_WORDS];
    if (!list_lookup(list, lv)) {
        /* A list created before zestall was active: no context known. */
        p->flags = ZL_FLAG_NO_EVENT;
        p->reason = ZL_REASON_UNSUPPORTED;
        return;
    }
    p->ctx = lv[0];
    p->dev = lv[1];
    p->list_id = (uint32_t)(lv[2] >> 2);
    if (lv[2] & 1) p->flags |= ZL_FLAG_IMMEDIATE;
    if ((lv[2] & 1) && atomic_load_explicit(&zl_serialize, memory_order_relaxed)) {
        p->ser = ser_lock_of(p->dev);
        pthread_mutex_lock(p->ser);
        p->t0 = zl_now_ns(); /* the append begins once the device is ours */
    }
    if (stopped) {
        /* Stopped, regular list: nothing is substituted, but the launch
         * is announced, so that an execution in a later window is
         * recorded (without times) and its samples are not given to
         * another launch of the same code. */
        p->flags |= ZL_FLAG_NO_EVENT;
        p->reason = ZL_REASON_APPENDED_WHILE_STOPPED;
        return;
    }
    p->app = *signal;
    uint64_t ev[ZMAP_WORDS];
    if (p->app != NULL && zmap_get(&events, (uintptr_t)p->app, ev) && (ev[0] & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP)) {
        /* The application's event already records kernel timestamps:
         * keep it and read it without changing it. */
        p->flags |= ZL_FLAG_APP_EVENT;
        return;
    }
    p->ours = event_get((ze_context_handle_t)(uintptr_t)p->ctx, &p->reason);
    if (p->ours == NULL) {
        p->flags |= ZL_FLAG_NO_EVENT;
        return;
    }
    p->flags |= ZL_FLAG_OURS;
    *signal = p->ours;
}

/* Serialized mode: wait for the launch, have the streamers read, then let
 * the next launch of the device proceed. */
static void serialize_wait(ze_event_handle_t ev) {
    /* Bounded: the launch may wait for something this very thread (or one
     * blocked behind it) signals later; then the application must go on. */
    if (ev != NULL && zeEventHostSynchronize(ev, 2000000000ull) != ZE_RESULT_SUCCESS)
        atomic_fetch_add(&ser_timeouts, 1);
}

static void serialize_end(zl_pending_t *p) {
    if (p->ser == NULL) return;
    zestallSerializedRead();
    pthread_mutex_unlock(p->ser);
    p->ser = NULL;
}

/* zestall's events appended to one regular command list. A list is used
 * by one thread at a time (Level Zero's rule), so no lock. */
#define ZL_MAX_UNITS 1024 /* executions of one list in flight with their own harvest */

typedef struct zl_listev {
    uint32_t n, cap;
    bool executed;  /* since the last reset: only then do the events hold times */
    bool last_unit; /* the previous execution had a harvest unit */
    bool no_units;  /* recording a harvest list failed: do not retry per execution */
    uint32_t gen;   /* bumped when the events change (reset, destroy) */
    uint32_t nexec; /* executions since the last reset */
    ze_command_queue_handle_t last_queue; /* of the previous execution */
    _Atomic uint64_t submits;             /* submissions ever (never reset; see exec_add_harvests) */
    uint32_t nunits, ucap, rr;
    uint32_t appended;         /* launch slots published since the last reset */
    struct zl_harvest **units; /* grows; never shrinks (the record is kept) */
    ze_event_handle_t *ev;
} zl_listev_t;

static zl_listev_t *listev_of(ze_command_list_handle_t l, bool create) {
    uint64_t v[ZMAP_WORDS];
    if (zmap_get(&listev, (uintptr_t)l, v)) return (zl_listev_t *)(uintptr_t)v[0];
    if (!create) return NULL;
    zl_listev_t *x = calloc(1, sizeof *x);
    if (x == NULL) return NULL;
    uint64_t nv[ZMAP_WORDS] = {(uint64_t)(uintptr_t)x, 0, 0};
    if (!zmap_put(&listev, (uintptr_t)l, nv)) {
        free(x);
        return NULL;
    }
    return x;
}

/* listev_of(l, true) through a one-entry cache per thread: a list's
 * record is never removed (listev_clear keeps it), so a handle maps to
 * the same record for the whole run. */
static ZL_TLS ze_command_list_handle_t tl_xl;
static ZL_TLS zl_listev_t *tl_x_of;
static zl_listev_t *listev_cached(ze_command_list_handle_t l) {
    if (l == tl_xl && tl_x_of != NULL) return tl_x_of;
    zl_listev_t *x = listev_of(l, true);
    tl_xl = l;
    tl_x_of = x;
    return x;
}

/* Returns 1 + the event's index in the list (0: not recorded). */
static uint32_t listev_add(zl_listev_t *x, ze_event_handle_t ev) {
    if (x == NULL) return 0;
    if (x->n == x->cap) {
        uint32_t cap = x->cap ? x->cap * 2 : 16;
        ze_event_handle_t *e = realloc(x->ev, cap * sizeof *e);
        if (e == NULL) return 0;
        x->ev = e;
        x->cap = cap;
    }
    x->ev[x->n++] = ev;
    return x->n;
}

/* Reset/destroy: the harvester recycles the events; forget them here. The
 * record stays allocated (a zmap value may still be read). */
static void listev_clear(ze_command_list_handle_t l) {
    zl_listev_t *x = listev_of(l, false);
    if (x != NULL) {
        x->n = 0;
        x->appended = 0;
        x->executed = false;
        x->last_unit = false;
        x->no_units = false;
        x->nexec = 0;
        x->gen++;
    }
}

/* ---- harvest units: per-execution copies of a regular list's times ---------
 *
 * A regular list may be executed again before its previous execution ran
 * (several submissions queued before the application waits): the new
 * execution overwrites the times its kernels leave in zestall's events.
 * So an execution after the first one (see exec_add_harvests) is followed,
 * in the same zeCommandQueueExecuteCommandLists call (the prologue adds
 * it to the application's lists: same queue, same fence), by a
 * zestall-owned "harvest" list:
 *
 *     barrier                        all previous commands on the queue
 *                                    completed (spec: numWaitEvents == 0)
 *     QueryKernelTimestamps(events -> host memory of this unit, signal marker)
 *     barrier                        nothing after starts before the copy
 *                                    (the same list also serves as a
 *                                    leading copy of the previous execution)
 *
 * A unit (list + host memory + marker event) serves one execution at a
 * time: FREE -> INFLIGHT when submitted, back to FREE once the goroutine
 * read its results (marker signalled) and host-reset the marker. The
 * events are not reset: each execution's kernels overwrite them, and the
 * barriers order the query after this execution's kernels and before
 * the next one's. */

enum { ZL_H_FREE = 0, ZL_H_INFLIGHT = 1, ZL_H_ORPHAN = 2, ZL_H_DEAD = 3 };

typedef struct zl_harvest {
    _Atomic uint32_t state; /* ZL_H_*; ORPHAN: its list is gone, the goroutine destroys it */
    uint32_t gen, n, cap;   /* recorded for listev generation gen: n events; ts holds cap */
    bool recorded, valid;
    ze_context_handle_t ctx;
    zl_ctxpool_t *pool;
    ze_command_list_handle_t cl;
    ze_event_handle_t marker;
    ze_kernel_timestamp_result_t *ts; /* zeMemAllocHost */
    struct zl_harvest *prev, *next;   /* pool->units, under pool->lock */
} zl_harvest_t;


/* A new unit for a list of (ctx, dev, ordinal): the harvest list must be
 * created with the queue's ordinal, which is the application list's. */
static zl_harvest_t *unit_new(ze_context_handle_t ctx, ze_device_handle_t dev, uint32_t ordinal) {
    zl_ctxpool_t *p = ctxpool_of(ctx, true);
    if (p == NULL) return NULL;
    zl_harvest_t *u = calloc(1, sizeof *u);
    if (u == NULL) return NULL;
    uint8_t reason;
    u->marker = event_get_shared(p, &reason);
    ze_command_list_desc_t d = {ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, NULL, ordinal, 0};
    if (u->marker == NULL || zeCommandListCreate(ctx, dev, &d, &u->cl) != ZE_RESULT_SUCCESS) {
        event_put_shared(p, u->marker);
        free(u);
        return NULL;
    }
    u->ctx = ctx;
    u->pool = p;
    atomic_init(&u->state, ZL_H_INFLIGHT);
    pthread_mutex_lock(&p->lock);
    bool gone = p->failed && p->npools == 0; /* the context is being destroyed */
    if (!gone) {
        u->next = p->units;
        if (p->units) p->units->prev = u;
        p->units = u;
    }
    pthread_mutex_unlock(&p->lock);
    if (gone) {
        zeCommandListDestroy(u->cl);
        free(u);
        return NULL;
    }
    return u;
}

/* Records u's harvest list for the list's current events. */
static bool unit_record(zl_harvest_t *u, zl_listev_t *x) {
    u->valid = false;
    if (u->cap < x->n) {
        if (u->ts != NULL) zeMemFree(u->ctx, u->ts);
        u->ts = NULL;
        u->cap = 0;
        ze_host_mem_alloc_desc_t hd = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, NULL, 0};
        void *m = NULL;
        if (zeMemAllocHost(u->ctx, &hd, (size_t)x->n * sizeof *u->ts, 64, &m) != ZE_RESULT_SUCCESS) return false;
        u->ts = m;
        u->cap = x->n;
    }
    if (u->recorded && zeCommandListReset(u->cl) != ZE_RESULT_SUCCESS) return false;
    u->recorded = true;
    /* barrier: after everything submitted before on the queue; query;
     * barrier: before anything submitted after (a leading copy) */
    if (zeCommandListAppendBarrier(u->cl, NULL, 0, NULL) != ZE_RESULT_SUCCESS ||
        zeCommandListAppendQueryKernelTimestamps(u->cl, x->n, x->ev, u->ts, NULL, u->marker, 0, NULL) !=
            ZE_RESULT_SUCCESS ||
        zeCommandListAppendBarrier(u->cl, NULL, 0, NULL) != ZE_RESULT_SUCCESS ||
        zeCommandListClose(u->cl) != ZE_RESULT_SUCCESS)
        return false;
    u->gen = x->gen;
    u->n = x->n;
    u->valid = true;
    return true;
}

/* Frees u (claimed by the caller, not in flight). After its context was
 * destroyed (DEAD) its resources are gone and the record is kept: a
 * list's record may still point at it. */
static void unit_destroy(zl_harvest_t *u) {
    zl_ctxpool_t *p = u->pool;
    pthread_mutex_lock(&p->lock);
    bool dead = atomic_load(&u->state) == ZL_H_DEAD;
    if (!dead) {
        if (u->prev) u->prev->next = u->next;
        else p->units = u->next;
        if (u->next) u->next->prev = u->prev;
    }
    pthread_mutex_unlock(&p->lock);
    if (dead) return;
    zeCommandListDestroy(u->cl);
    if (u->ts != NULL) zeMemFree(u->ctx, u->ts);
    zeEventHostReset(u->marker);
    event_put_shared(p, u->marker);
    free(u);
}

/* A FREE unit of the list, now INFLIGHT and recorded for its events, or
 * NULL (then this execution is read the old way). lv: the lists entry. */
static zl_harvest_t *unit_acquire(zl_listev_t *x, const uint64_t *lv) {
    if (x->no_units) return NULL;
    /* Units come back about in submission order: the oldest is at rr.
     * A few probes, then a new unit (the application thread never scans
     * hundreds of units in flight). */
    for (uint32_t probes = 0; probes < 16 && x->nunits > 0;) {
        uint32_t i = x->rr % x->nunits;
        zl_harvest_t *u = x->units[i];
        uint32_t want = ZL_H_FREE;
        if (!atomic_compare_exchange_strong(&u->state, &want, ZL_H_INFLIGHT)) {
            if (want == ZL_H_DEAD) { /* its context was destroyed: forget it */
                x->units[i] = x->units[--x->nunits];
                continue;
            }
            x->rr = i + 1;
            probes++;
            continue;
        }
        x->rr = i + 1;
        if ((u->gen != x->gen || !u->valid) && !unit_record(u, x)) {
            x->no_units = true;
            atomic_store(&u->state, ZL_H_FREE);
            return NULL;
        }
        return u;
    }
    /* at most ZL_MAX_UNITS, and 16 MiB of results per list (at least 2) */
    uint32_t max = (uint32_t)((16u << 20) / ((size_t)x->n * sizeof(ze_kernel_timestamp_result_t)));
    if (max < 2) max = 2;
    if (max > ZL_MAX_UNITS) max = ZL_MAX_UNITS;
    if (x->nunits >= max) return NULL;
    if (x->nunits == x->ucap) {
        uint32_t cap = x->ucap ? x->ucap * 2 : 8;
        zl_harvest_t **nu = realloc(x->units, cap * sizeof *nu);
        if (nu == NULL) return NULL;
        x->units = nu;
        x->ucap = cap;
    }
    zl_harvest_t *u = unit_new((ze_context_handle_t)(uintptr_t)lv[0], (ze_device_handle_t)(uintptr_t)lv[1],
                               (uint32_t)((lv[2] >> 40) & 0xffff));
    if (u == NULL) {
        x->no_units = true;
        return NULL;
    }
    x->units[x->nunits++] = u;
    if (!unit_record(u, x)) {
        x->no_units = true;
        atomic_store(&u->state, ZL_H_FREE);
        return NULL;
    }
    return u;
}

/* The list is being destroyed: free units are destroyed now, units in
 * flight by the goroutine once read. */
static void listev_destroy_units(ze_command_list_handle_t l) {
    zl_listev_t *x = listev_of(l, false);
    if (x == NULL) return;
    for (uint32_t i = 0; i < x->nunits; i++) {
        zl_harvest_t *u = x->units[i];
        for (;;) {
            uint32_t st = atomic_load(&u->state);
            if (st == ZL_H_FREE) {
                if (atomic_compare_exchange_strong(&u->state, &st, ZL_H_INFLIGHT)) {
                    unit_destroy(u);
                    break;
                }
            } else if (st == ZL_H_INFLIGHT) {
                if (atomic_compare_exchange_strong(&u->state, &st, ZL_H_ORPHAN)) break;
            } else {
                break;
            }
        }
    }
    x->nunits = 0;
    x->rr = 0;
}

static ze_result_t zl_harvest_results_unguarded(uint64_t unit, uint64_t *dst, uint32_t cap, uint32_t *n) {
    zl_harvest_t *u = (zl_harvest_t *)(uintptr_t)unit;
    if (atomic_load(&u->state) == ZL_H_DEAD) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    ze_result_t r = zeEventQueryStatus(u->marker);
    if (r != ZE_RESULT_SUCCESS) return r;
    *n = u->n;
    for (uint32_t i = 0; i < u->n && i < cap; i++) {
        dst[4 * i] = u->ts[i].global.kernelStart;
        dst[4 * i + 1] = u->ts[i].global.kernelEnd;
        dst[4 * i + 2] = u->ts[i].context.kernelStart;
        dst[4 * i + 3] = u->ts[i].context.kernelEnd;
    }
    return ZE_RESULT_SUCCESS;
}
ZESTALL_GUARDED(ze_result_t, zl_harvest_results, (uint64_t unit, uint64_t *dst, uint32_t cap, uint32_t *n), (unit, dst, cap, n))

uint64_t zl_list_submits(uint64_t list) {
    zl_listev_t *x = listev_of((ze_command_list_handle_t)(uintptr_t)list, false);
    return x == NULL ? 0 : atomic_load(&x->submits);
}

static void zl_harvest_release_unguarded(uint64_t unit) {
    zl_harvest_t *u = (zl_harvest_t *)(uintptr_t)unit;
    uint32_t want = ZL_H_INFLIGHT;
    if (atomic_load(&u->state) == ZL_H_DEAD) return;
    zeEventHostReset(u->marker);
    if (atomic_compare_exchange_strong(&u->state, &want, ZL_H_FREE)) return;
    if (want == ZL_H_ORPHAN) unit_destroy(u);
}
ZESTALL_GUARDED_VOID(zl_harvest_release, (uint64_t unit), (unit))

/* Before a regular list runs again, the timestamps its previous execution
 * left in zestall's events are read here, on the application's thread:
 * the new execution will overwrite them, and zestall's goroutine may not
 * have read them yet (a replay loop synchronised by the application). */
static void listev_harvest(ze_command_list_handle_t l) {
    zl_listev_t *x = listev_of(l, false);
    if (x == NULL) return;
    if (!x->executed) {
        x->executed = true; /* the first execution: nothing to read yet */
        return;
    }
    for (uint32_t i = 0; i < x->n; i++) {
        ze_kernel_timestamp_result_t ts;
        if (zeEventQueryKernelTimestamp(x->ev[i], &ts) != ZE_RESULT_SUCCESS) continue;
        zl_slot_t s;
        memset(&s, 0, sizeof s);
        s.kind = ZL_SLOT_APP_TS; /* a reading of an event, as for the app's */
        s.host_ns = zl_now_ns();
        s.event = (uint64_t)(uintptr_t)x->ev[i];
        s.list = ts.global.kernelStart;
        s.device = ts.global.kernelEnd;
        s.context = ts.context.kernelStart;
        s.queue = ts.context.kernelEnd;
        push(&s);
    }
}

/* Common epilogue: restore the app's semantics and publish the slot. */
static void launch_epilogue(ze_result_t result, ze_command_list_handle_t list, ze_event_handle_t *signal,
                            ze_kernel_handle_t kernel, const ze_group_count_t *groups, uint8_t launch_kind) {
    zl_pending_t *p = &tl_p;
    if (p->flags & 0x80) return;
    if (p->flags & ZL_FLAG_OURS) {
        if (result != ZE_RESULT_SUCCESS) {
            event_put((ze_context_handle_t)(uintptr_t)p->ctx, p->ours);
            *signal = p->app;
            serialize_end(p);
            return;
        }
        /* Signal the application's event after the kernel, on the same
         * list: verified to keep its semantics
         * (docs/level-zero-loader.md §5.4 "Prologues can replace arguments"). */
        if (p->app != NULL && zeCommandListAppendSignalEvent(list, p->app) != ZE_RESULT_SUCCESS) {
            p->flags |= ZL_FLAG_NO_EVENT;
            p->reason = ZL_REASON_EVENT_ERROR;
        }
    } else if (result != ZE_RESULT_SUCCESS) {
        serialize_end(p);
        return;
    }
    zl_slot_t s;
    memset(&s, 0, sizeof s);
    s.kind = ZL_SLOT_LAUNCH;
    s.host_ns = p->t0;
    s.list = (uint64_t)(uintptr_t)list;
    s.event = (uint64_t)(uintptr_t)((p->flags & ZL_FLAG_OURS) ? p->ours : (p->flags & ZL_FLAG_APP_EVENT) ? p->app : NULL);
    s.device = p->dev;
    s.context = p->ctx;
    s.list_id = p->list_id;
    s.flags = p->flags;
    s.reason = p->reason;
    s.launch_kind = launch_kind;
    /* The SYCL task open on this thread, if any (docs/xpti.md §9
     * "Correlating a SYCL task with its Level-Zero launch"). */
    s.sycl_task = zx_tag.task;
    s.sycl_location = zx_tag.location;
    s.code_copy = p->code_copy;
    uint64_t kv[ZMAP_WORDS];
    if (zmap_get(&kernels, (uintptr_t)kernel, kv)) {
        s.kernel_id = (uint32_t)kv[0];
        s.group_size[0] = (uint16_t)(kv[1] & 0x1fffff);
        s.group_size[1] = (uint16_t)((kv[1] >> 21) & 0x1fffff);
        s.group_size[2] = (uint16_t)((kv[1] >> 42) & 0x1fffff);
    }
    if (groups != NULL) {
        s.group_count[0] = groups->groupCountX;
        s.group_count[1] = groups->groupCountY;
        s.group_count[2] = groups->groupCountZ;
    }
    /* A regular list: its launches are counted per execution (a lost
     * execution slot counts them as lost, see epi_execute). */
    zl_listev_t *x = (p->flags & ZL_FLAG_IMMEDIATE) ? NULL : listev_cached(list);
    if (x != NULL && (p->flags & ZL_FLAG_OURS)) s.ev_index = listev_add(x, p->ours);
    if (p->ser != NULL) {
        /* Wait before the slot is published: once the harvester sees it,
         * it may read and recycle the event. */
        s.flags |= ZL_FLAG_SERIALIZED;
        serialize_wait((ze_event_handle_t)(uintptr_t)s.event);
    }
    if (push(&s) && x != NULL) x->appended++;
    serialize_end(p);
}

static void ZE_APICALL pro_launch(ze_command_list_append_launch_kernel_params_t *p, ze_result_t r, void *u, void **i) {
    (void)r, (void)u, (void)i;
    launch_prologue(*p->phCommandList, p->phSignalEvent);
    zsep_prologue(p->phKernel, !(tl_p.flags & 0x80));
}
static void ZE_APICALL epi_launch(ze_command_list_append_launch_kernel_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    tl_p.code_copy = zsep_epilogue(p->phKernel);
    launch_epilogue(r, *p->phCommandList, p->phSignalEvent, *p->phKernel, *p->ppLaunchFuncArgs, 0);
}
static void ZE_APICALL pro_coop(ze_command_list_append_launch_cooperative_kernel_params_t *p, ze_result_t r, void *u,
                                void **i) {
    (void)r, (void)u, (void)i;
    launch_prologue(*p->phCommandList, p->phSignalEvent);
    zsep_prologue(p->phKernel, !(tl_p.flags & 0x80));
}
static void ZE_APICALL epi_coop(ze_command_list_append_launch_cooperative_kernel_params_t *p, ze_result_t r, void *u,
                                void **i) {
    (void)u, (void)i;
    tl_p.code_copy = zsep_epilogue(p->phKernel);
    launch_epilogue(r, *p->phCommandList, p->phSignalEvent, *p->phKernel, *p->ppLaunchFuncArgs, 1);
}
static void ZE_APICALL pro_indirect(ze_command_list_append_launch_kernel_indirect_params_t *p, ze_result_t r, void *u,
                                    void **i) {
    (void)r, (void)u, (void)i;
    launch_prologue(*p->phCommandList, p->phSignalEvent);
    zsep_prologue(p->phKernel, !(tl_p.flags & 0x80));
}
static void ZE_APICALL epi_indirect(ze_command_list_append_launch_kernel_indirect_params_t *p, ze_result_t r, void *u,
                                    void **i) {
    (void)u, (void)i;
    /* Group counts live in device memory, read when the kernel runs. */
    tl_p.code_copy = zsep_epilogue(p->phKernel);
    launch_epilogue(r, *p->phCommandList, p->phSignalEvent, *p->phKernel, NULL, 2);
}
static void ZE_APICALL pro_multi(ze_command_list_append_launch_multiple_kernels_indirect_params_t *p, ze_result_t r,
                                 void *u, void **i) {
    (void)r, (void)u, (void)i;
    launch_prologue(*p->phCommandList, p->phSignalEvent);
    zsep_prologue(NULL, false); /* several kernels in one call: never substituted */
}
static void ZE_APICALL epi_multi(ze_command_list_append_launch_multiple_kernels_indirect_params_t *p, ze_result_t r,
                                 void *u, void **i) {
    (void)u, (void)i;
    /* One signal event covers every kernel of the call: recorded as one
     * launch of the first kernel whose times span the whole batch. */
    ze_kernel_handle_t k = (*p->pnumKernels > 0 && *p->pphKernels != NULL) ? (*p->pphKernels)[0] : NULL;
    tl_p.code_copy = zsep_epilogue(NULL);
    launch_epilogue(r, *p->phCommandList, p->phSignalEvent, k, NULL, 3);
}

static void ZE_APICALL epi_set_group_size(ze_kernel_set_group_size_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    if (r != ZE_RESULT_SUCCESS) return;
    zsep_group_size(*p->phKernel, *p->pgroupSizeX, *p->pgroupSizeY, *p->pgroupSizeZ);
    uint64_t v[ZMAP_WORDS];
    if (!zmap_get(&kernels, (uintptr_t)*p->phKernel, v)) return;
    v[1] = pack_size(*p->pgroupSizeX, *p->pgroupSizeY, *p->pgroupSizeZ);
    zmap_put(&kernels, (uintptr_t)*p->phKernel, v);
}

static void list_created(ze_command_list_handle_t l, ze_context_handle_t ctx, ze_device_handle_t dev, bool imm,
                         uint32_t ordinal) {
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    uint32_t id = atomic_fetch_add(&next_list_id, 1) + 1;
    /* word 2: id << 2 | immediate, queue group ordinal at bits 40..55 */
    uint64_t v[ZMAP_WORDS] = {(uint64_t)(uintptr_t)ctx, (uint64_t)(uintptr_t)dev,
                              ((uint64_t)id << 2) | (imm ? 1 : 0) | ((uint64_t)(ordinal & 0xffff) << 40)};
    zmap_put(&lists, (uintptr_t)l, v);
    atomic_fetch_add_explicit(&lists_gen, 1, memory_order_release);
    /* The context's first pool of events is created with its first
     * command list, not by its first launches (each of which would
     * otherwise stop for a batch while the harvester has none to give). */
    zl_ctxpool_t *p = ctxpool_of(ctx, true);
    if (p == NULL) return;
    pthread_mutex_lock(&p->lock);
    bool first = p->npools == 0 && !p->failed;
    pthread_mutex_unlock(&p->lock);
    if (first) grow_events(p, ZL_POOL_EVENTS);
}
static void ZE_APICALL epi_list_create(ze_command_list_create_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (r == ZE_RESULT_SUCCESS)
        list_created(**p->pphCommandList, *p->phContext, *p->phDevice, false,
                     *p->pdesc ? (*p->pdesc)->commandQueueGroupOrdinal : 0);
}
static void ZE_APICALL epi_list_create_imm(ze_command_list_create_immediate_params_t *p, ze_result_t r, void *u,
                                           void **i) {
    (void)u, (void)i;
    if (r == ZE_RESULT_SUCCESS)
        list_created(**p->pphCommandList, *p->phContext, *p->phDevice, true, *p->paltdesc ? (*p->paltdesc)->ordinal : 0);
}
static void list_event(ze_command_list_handle_t l, uint8_t kind) {
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    uint64_t v[ZMAP_WORDS];
    if (!zmap_get(&lists, (uintptr_t)l, v)) return;
    zl_slot_t s;
    memset(&s, 0, sizeof s);
    s.kind = kind;
    s.host_ns = zl_now_ns();
    s.list = (uint64_t)(uintptr_t)l;
    s.list_id = (uint32_t)(v[2] >> 2);
    s.context = v[0];
    s.device = v[1];
    push(&s);
}
static void ZE_APICALL epi_list_reset(ze_command_list_reset_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (r != ZE_RESULT_SUCCESS) return;
    listev_clear(*p->phCommandList);
    list_event(*p->phCommandList, ZL_SLOT_RESET);
}
static void ZE_APICALL pro_list_destroy(ze_command_list_destroy_params_t *p, ze_result_t r, void *u, void **i) {
    (void)r, (void)u, (void)i;
    listev_clear(*p->phCommandList);
    listev_destroy_units(*p->phCommandList);
    list_event(*p->phCommandList, ZL_SLOT_DESTROY);
}
static void ZE_APICALL epi_list_destroy(ze_command_list_destroy_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    if (r == ZE_RESULT_SUCCESS) {
        zmap_del(&lists, (uintptr_t)*p->phCommandList);
        atomic_fetch_add_explicit(&lists_gen, 1, memory_order_release);
    }
}
/* The execution's reference time is taken before the driver call: the
 * kernels may start inside it. */
static ZL_TLS struct {
    bool active;   /* exec_add_harvests ran for the current call */
    bool replaced; /* the arguments were replaced */
    ze_command_list_handle_t *orig; /* the application's arguments, restored in the epilogue */
    uint32_t norig;
    uint32_t cap;
    ze_command_list_handle_t *lists; /* lead harvests, the application's lists, trailing harvests */
    zl_harvest_t **trail, **lead;    /* per application list: its units, or NULL */
    uint64_t *seq;                   /* per application list: its submission number (0: none) */
} tl_x;

/* Executions of a regular list holding zestall's events, in the prologue
 * of zeCommandQueueExecuteCommandLists (argument replacement,
 * docs/level-zero-loader.md §5.4 "Prologues can replace arguments"):
 *   - the first execution after (re)recording gets no harvest list: if
 *     it is the only one (record, execute, wait, reset), the goroutine
 *     reads the events, at no cost to the submission;
 *   - a later execution gets a trailing harvest list (its own times);
 *   - if the previous execution had none, a leading harvest list on the
 *     same queue first copies the previous execution's times (it runs
 *     after everything submitted before, and before this execution's
 *     kernels); on another queue, they are read here if complete.
 * The list's submission counter is bumped before the driver call: the
 * goroutine reads events only when it has seen every submission. */
static void exec_add_harvests(ze_command_queue_execute_command_lists_params_t *p) {
    uint32_t n = *p->pnumCommandLists;
    ze_command_list_handle_t *ls = *p->pphCommandLists;
    ze_command_queue_handle_t q = *p->phCommandQueue;
    tl_x.active = false;
    tl_x.replaced = false;
    tl_x.orig = ls;
    tl_x.norig = n;
    if (ls == NULL || n == 0) return;
    if (tl_x.cap < n) {
        uint32_t cap = n < 16 ? 16 : n;
        ze_command_list_handle_t *nl = realloc(tl_x.lists, 3 * (size_t)cap * sizeof *nl);
        if (nl != NULL) tl_x.lists = nl;
        zl_harvest_t **nt = realloc(tl_x.trail, (size_t)cap * sizeof *nt);
        if (nt != NULL) tl_x.trail = nt;
        zl_harvest_t **nd = realloc(tl_x.lead, (size_t)cap * sizeof *nd);
        if (nd != NULL) tl_x.lead = nd;
        uint64_t *ns = realloc(tl_x.seq, (size_t)cap * sizeof *ns);
        if (ns != NULL) tl_x.seq = ns;
        if (nl == NULL || nt == NULL || nd == NULL || ns == NULL) return;
        tl_x.cap = cap;
    }
    tl_x.active = true;
    /* Stopped (runtime control): this execution is not recorded, so it
     * needs no copy of its own; the previous one may still need one. */
    bool stopped = !collect_executions();
    uint32_t nlead = 0, ntrail = 0;
    for (uint32_t k = 0; k < n; k++) {
        tl_x.trail[k] = tl_x.lead[k] = NULL;
        tl_x.seq[k] = 0;
        zl_listev_t *x = listev_of(ls[k], false);
        if (x == NULL || x->n == 0) continue;
        tl_x.seq[k] = atomic_fetch_add(&x->submits, 1) + 1;
        if (x->nexec++ == 0) {
            x->executed = true;
            x->last_unit = false;
            x->last_queue = q;
            continue;
        }
        uint64_t lv[ZMAP_WORDS];
        bool known = zmap_get(&lists, (uintptr_t)ls[k], lv);
        if (!x->last_unit) {
            if (known && x->last_queue == q) tl_x.lead[k] = unit_acquire(x, lv);
            if (tl_x.lead[k] == NULL) listev_harvest(ls[k]);
            else nlead++;
        }
        tl_x.trail[k] = known && !stopped ? unit_acquire(x, lv) : NULL;
        if (tl_x.trail[k] != NULL) ntrail++;
        x->last_unit = tl_x.trail[k] != NULL;
        x->last_queue = q;
    }
    if (nlead + ntrail == 0) return;
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++)
        if (tl_x.lead[k] != NULL) tl_x.lists[m++] = tl_x.lead[k]->cl;
    memcpy(tl_x.lists + m, ls, n * sizeof *ls);
    m += n;
    for (uint32_t k = 0; k < n; k++)
        if (tl_x.trail[k] != NULL) tl_x.lists[m++] = tl_x.trail[k]->cl;
    *p->pphCommandLists = tl_x.lists;
    *p->pnumCommandLists = m;
    tl_x.replaced = true;
}

static void unit_unsubmitted(zl_harvest_t *u) {
    uint32_t want = ZL_H_INFLIGHT;
    if (u != NULL) atomic_compare_exchange_strong(&u->state, &want, ZL_H_FREE);
}

/* Epilogue: restores the arguments; if the call failed, the units are
 * free again. */
static void exec_restore(ze_command_queue_execute_command_lists_params_t *p, bool ok) {
    if (!tl_x.replaced) return;
    tl_x.replaced = false;
    *p->pphCommandLists = tl_x.orig;
    *p->pnumCommandLists = tl_x.norig;
    if (ok) return;
    for (uint32_t k = 0; k < tl_x.norig; k++) {
        unit_unsubmitted(tl_x.lead[k]);
        unit_unsubmitted(tl_x.trail[k]);
        tl_x.lead[k] = tl_x.trail[k] = NULL;
    }
}
static ZL_TLS uint64_t tl_exec_t0;
static ZL_TLS pthread_mutex_t *tl_exec_ser;
static void ZE_APICALL pro_execute(ze_command_queue_execute_command_lists_params_t *p, ze_result_t r, void *u,
                                   void **i) {
    (void)r, (void)u, (void)i;
    tl_exec_ser = NULL;
    if (atomic_load_explicit(&zl_enabled, memory_order_relaxed) &&
        atomic_load_explicit(&zl_serialize, memory_order_relaxed) && *p->pnumCommandLists > 0 &&
        *p->pphCommandLists != NULL) {
        uint64_t v[ZMAP_WORDS];
        if (zmap_get(&lists, (uintptr_t)(*p->pphCommandLists)[0], v)) {
            tl_exec_ser = ser_lock_of(v[1]);
            pthread_mutex_lock(tl_exec_ser);
        }
    }
    if (atomic_load_explicit(&zl_enabled, memory_order_relaxed)) exec_add_harvests(p);
    tl_exec_t0 = zl_now_ns();
}

/* Serialized mode, regular lists: the execution completes (queue
 * synchronised) and the streamers are read before the device is released;
 * kernels inside one list still run back to back. */
static void exec_serialize_end(ze_command_queue_handle_t q, bool ok) {
    pthread_mutex_t *m = tl_exec_ser;
    if (m == NULL) return;
    tl_exec_ser = NULL;
    if (ok) {
        if (zeCommandQueueSynchronize(q, 2000000000ull) != ZE_RESULT_SUCCESS) atomic_fetch_add(&ser_timeouts, 1);
        zestallSerializedRead();
    }
    pthread_mutex_unlock(m);
}
static void ZE_APICALL epi_execute(ze_command_queue_execute_command_lists_params_t *p, ze_result_t r, void *u,
                                   void **i) {
    (void)u, (void)i;
    bool active = tl_x.active;
    tl_x.active = false;
    exec_restore(p, r == ZE_RESULT_SUCCESS);
    if (*p->pphCommandLists == NULL || !atomic_load_explicit(&zl_enabled, memory_order_relaxed) ||
        (r != ZE_RESULT_SUCCESS && !active)) {
        exec_serialize_end(*p->phCommandQueue, false);
        return;
    }
    uint64_t now = tl_exec_t0;
    /* Stopped: the execution is not recorded, but an execution of a list
     * holding zestall's events (appended while collecting) is still
     * announced: it overwrites their timestamps, and the harvester must
     * not take them for a recorded execution's. */
    bool stopped = !collect_executions();
    for (uint32_t k = 0; k < *p->pnumCommandLists; k++) {
        ze_command_list_handle_t l = (*p->pphCommandLists)[k];
        uint64_t v[ZMAP_WORDS];
        if (stopped) {
            zl_listev_t *x = listev_of(l, false);
            if (x == NULL || x->n == 0) continue;
        }
        if (!zmap_get(&lists, (uintptr_t)l, v)) continue;
        zl_slot_t s;
        memset(&s, 0, sizeof s);
        s.kind = ZL_SLOT_EXEC;
        s.host_ns = now;
        s.list = (uint64_t)(uintptr_t)l;
        s.list_id = (uint32_t)(v[2] >> 2);
        s.context = v[0];
        s.device = v[1];
        s.queue = (uint64_t)(uintptr_t)*p->phCommandQueue;
        if (active) {
            s.seq = tl_x.seq[k];
            s.harvest = (uint64_t)(uintptr_t)tl_x.trail[k];
            s.harvest_prev = (uint64_t)(uintptr_t)tl_x.lead[k];
        }
        if (r != ZE_RESULT_SUCCESS) {
            /* Nothing ran; the goroutine still learns the submission number. */
            if (s.seq == 0) continue;
            s.flags |= ZL_FLAG_FAILED;
            s.harvest = s.harvest_prev = 0;
        }
        if (tl_exec_ser != NULL) s.flags |= ZL_FLAG_SERIALIZED;
        if (stopped) s.flags |= ZL_FLAG_STOPPED;
        if (!push(&s) && !stopped && r == ZE_RESULT_SUCCESS) {
            /* The execution's launches will never be seen: they are lost,
             * and counted as such (every launch in one counter). */
            zl_listev_t *x = listev_of(l, false);
            if (x != NULL) atomic_fetch_add_explicit(&launches_dropped, x->appended, memory_order_relaxed);
        }
    }
    exec_serialize_end(*p->phCommandQueue, r == ZE_RESULT_SUCCESS);
}
static void ZE_APICALL epi_pool_create(ze_event_pool_create_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed) || tl_own_calls) return;
    if (r != ZE_RESULT_SUCCESS || *p->pdesc == NULL) return;
    uint64_t v[ZMAP_WORDS] = {(*p->pdesc)->flags, 0, 0};
    zmap_put(&pools, (uintptr_t)**p->pphEventPool, v);
}
static void ZE_APICALL epi_pool_destroy(ze_event_pool_destroy_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    if (r == ZE_RESULT_SUCCESS) zmap_del(&pools, (uintptr_t)*p->phEventPool);
}
static void ZE_APICALL epi_event_create(ze_event_create_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed) || tl_own_calls) return;
    uint64_t v[ZMAP_WORDS];
    if (r != ZE_RESULT_SUCCESS || !zmap_get(&pools, (uintptr_t)*p->phEventPool, v)) return;
    zmap_put(&events, (uintptr_t)**p->pphEvent, v);
}
/* Application timestamp events are read only on the application's own
 * thread, at its synchronisation points and just before it resets or
 * destroys them: zestall's goroutine never touches an event the
 * application may have destroyed. */
static ZL_TLS uint64_t tl_last_ev, tl_last_ts;
static void app_event_read(ze_event_handle_t ev, bool gone) {
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    uint64_t v[ZMAP_WORDS];
    if (!zmap_get(&events, (uintptr_t)ev, v) || !(v[0] & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP)) return;
    zl_slot_t s;
    memset(&s, 0, sizeof s);
    s.host_ns = zl_now_ns();
    s.event = (uint64_t)(uintptr_t)ev;
    ze_kernel_timestamp_result_t ts;
    if (zeEventQueryStatus(ev) == ZE_RESULT_SUCCESS && zeEventQueryKernelTimestamp(ev, &ts) == ZE_RESULT_SUCCESS) {
        s.kind = ZL_SLOT_APP_TS;
        s.list = ts.global.kernelStart; /* APP_TS reuses these fields */
        s.device = ts.global.kernelEnd;
        s.context = ts.context.kernelStart;
        s.queue = ts.context.kernelEnd;
        /* Spinning on zeEventQueryStatus must not flood the ring. */
        if (!gone && tl_last_ev == s.event && tl_last_ts == (s.list ^ (s.device << 1))) return;
        tl_last_ev = s.event;
        tl_last_ts = s.list ^ (s.device << 1);
        push(&s);
    }
    if (gone) {
        s.kind = ZL_SLOT_APP_GONE;
        push(&s);
    }
}
static void sync_point(ze_result_t r);
static void ZE_APICALL epi_event_sync(ze_event_host_synchronize_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (r == ZE_RESULT_SUCCESS) app_event_read(*p->phEvent, false);
    sync_point(r);
}
static void ZE_APICALL epi_event_query(ze_event_query_status_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (r == ZE_RESULT_SUCCESS) app_event_read(*p->phEvent, false);
}
static void ZE_APICALL pro_event_reset(ze_event_host_reset_params_t *p, ze_result_t r, void *u, void **i) {
    (void)r, (void)u, (void)i;
    zl_batch_t *b = batch_take(true);
    if (b != NULL) { /* zestall's own resets (zl_release_events) */
        reset_events(b->refs, b->n);
        b->done = true;
        return;
    }
    app_event_read(*p->phEvent, false);
}
/* zestall's own timestamp reads (zl_kernel_timestamps); nothing for the
 * application's calls. */
static void ZE_APICALL pro_event_timestamp(ze_event_query_kernel_timestamp_params_t *p, ze_result_t r, void *u,
                                           void **i) {
    (void)p, (void)r, (void)u, (void)i;
    zl_batch_t *b = batch_take(false);
    if (b == NULL) return;
    read_timestamps(b->events, b->n, b->out);
    b->done = true;
}
static void ZE_APICALL pro_event_destroy(ze_event_destroy_params_t *p, ze_result_t r, void *u, void **i) {
    (void)r, (void)u, (void)i;
    app_event_read(*p->phEvent, true);
}

static void ZE_APICALL epi_event_destroy(ze_event_destroy_params_t *p, ze_result_t r, void *u, void **i) {
    (void)u, (void)i;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    if (r == ZE_RESULT_SUCCESS) zmap_del(&events, (uintptr_t)*p->phEvent);
}

/* Context teardown: everything pending for it is harvested first (Go),
 * then zestall's pools in it are destroyed, before the application's
 * zeContextDestroy runs. */
void zl_context_destroy(uint64_t context) {
    zl_ctxpool_t *p = ctxpool_of((ze_context_handle_t)(uintptr_t)context, false);
    if (p == NULL) return;
    zmap_del(&ctxs, (uintptr_t)context);
    atomic_fetch_add_explicit(&ctxs_gen, 1, memory_order_release);
    pthread_mutex_lock(&p->lock);
    /* Harvest units: the goroutine finished their executions already. */
    for (zl_harvest_t *u = p->units; u != NULL; u = u->next) {
        zeCommandListDestroy(u->cl);
        if (u->ts != NULL) zeMemFree(p->ctx, u->ts);
        zeEventDestroy(u->marker);
        atomic_store(&u->state, ZL_H_DEAD); /* the record stays: a list may point at it */
    }
    p->units = NULL;
    event_caches_reclaim_locked(p);
    for (uint32_t i = 0; i < p->nfree; i++) zeEventDestroy(p->free[i]);
    for (uint32_t i = 0; i < p->npools; i++) zeEventPoolDestroy(p->pools[i]);
    p->nfree = p->npools = p->fill_at = 0;
    p->failed = true; /* late users get no event rather than a dead one */
    pthread_mutex_unlock(&p->lock);
    /* p itself is kept: an application thread may still hold it. */
}

static void ZE_APICALL pro_context_destroy(ze_context_destroy_params_t *p, ze_result_t r, void *u, void **i) {
    (void)r, (void)u, (void)i;
    if (!atomic_load_explicit(&zl_enabled, memory_order_relaxed)) return;
    if (ctxpool_of(*p->phContext, false) == NULL) return;
    zestallContextDestroying((uint64_t)(uintptr_t)*p->phContext);
}

/* The application's synchronisation points: the device has just finished
 * work this thread waited for — a good moment for a streamer read, so read
 * windows fall between launches. Only when sampling is on (Go sets it). */
static atomic_bool zl_sync_wake;
void zl_set_sync_wake(int on) { atomic_store(&zl_sync_wake, on != 0); }
static void sync_point(ze_result_t r) {
    if (r == ZE_RESULT_SUCCESS && atomic_load_explicit(&zl_sync_wake, memory_order_relaxed) &&
        atomic_load_explicit(&zl_enabled, memory_order_relaxed))
        zestallSyncPoint();
}
static void ZE_APICALL epi_queue_sync(ze_command_queue_synchronize_params_t *p, ze_result_t r, void *u, void **i) {
    (void)p, (void)u, (void)i;
    sync_point(r);
}
static void ZE_APICALL epi_fence_sync(ze_fence_host_synchronize_params_t *p, ze_result_t r, void *u, void **i) {
    (void)p, (void)u, (void)i;
    sync_point(r);
}

void zl_register(zel_tracer_handle_t t) {
    pthread_once(&maps_once, maps_init);
    zelTracerCommandListAppendLaunchKernelRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_launch);
    zelTracerCommandListAppendLaunchKernelRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_launch);
    zelTracerCommandListAppendLaunchCooperativeKernelRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_coop);
    zelTracerCommandListAppendLaunchCooperativeKernelRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_coop);
    zelTracerCommandListAppendLaunchKernelIndirectRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_indirect);
    zelTracerCommandListAppendLaunchKernelIndirectRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_indirect);
    zelTracerCommandListAppendLaunchMultipleKernelsIndirectRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_multi);
    zelTracerCommandListAppendLaunchMultipleKernelsIndirectRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_multi);
    zelTracerKernelSetGroupSizeRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_set_group_size);
    zsep_register(t);
    zelTracerCommandListCreateRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_list_create);
    zelTracerCommandListCreateImmediateRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_list_create_imm);
    zelTracerCommandListResetRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_list_reset);
    zelTracerCommandListDestroyRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_list_destroy);
    zelTracerCommandListDestroyRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_list_destroy);
    zelTracerCommandQueueExecuteCommandListsRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_execute);
    zelTracerCommandQueueExecuteCommandListsRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_execute);
    zelTracerEventPoolCreateRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_pool_create);
    zelTracerEventPoolDestroyRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_pool_destroy);
    zelTracerEventCreateRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_event_create);
    zelTracerEventDestroyRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_event_destroy);
    zelTracerEventDestroyRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_event_destroy);
    zelTracerEventHostSynchronizeRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_event_sync);
    zelTracerEventQueryStatusRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_event_query);
    zelTracerEventHostResetRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_event_reset);
    zelTracerEventQueryKernelTimestampRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_event_timestamp);
    zelTracerContextDestroyRegisterCallback(t, ZEL_REGISTER_PROLOGUE, pro_context_destroy);
    zelTracerCommandQueueSynchronizeRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_queue_sync);
    zelTracerFenceHostSynchronizeRegisterCallback(t, ZEL_REGISTER_EPILOGUE, epi_fence_sync);
}
