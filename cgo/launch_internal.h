/*
 * launch_internal.h — what the launch path's C files share, and nothing
 * else includes: their types, the state more than one of them uses
 * (declared here once, defined in the file named beside it), and the
 * helpers the launch callbacks call on every launch.
 *
 * The files (one concern each; docs/level-zero-loader.md §5.4 "Prologues
 * can replace arguments" for what the launch path does):
 *   launch.c         the tracing-layer callbacks, collection state (on/off,
 *                    start/stop, serialization) and zl_register
 *   launch_maps.c    object maps (kernels, lists, app pools and events,
 *                    contexts), kernel and command-list ids
 *   event_pools.c    zestall's event pools, per context
 *   event_cache.c    a thread's cache of zestall's events (refill, flush)
 *   launch_rings.c   per-thread slot rings: attach, adopt, drain
 *   event_reads.c    zestall's own per-event driver calls for Go, batched
 *   regular_lists.c  regular command lists: zestall's events in them, the
 *                    per-execution copies of their times (snapshots),
 *                    the execute callbacks
 *   host_clock.c     the slots' host clock (CLOCK_MONOTONIC_RAW)
 *   timestamp_copies.c  device-side copies of immediate lists' timestamps
 *                    for Go's harvester (a queue of zestall's own per
 *                    context and device)
 *
 * Why static inline here: cgo compiles each .c on its own and links
 * without LTO, so a helper the prologue or epilogue calls per launch
 * (ring push, the event cache, the one-entry map caches) must be visible
 * in the callbacks' translation unit to be inlined; an out-of-line call
 * per launch is what the split must not add. Their slow paths stay out of
 * line in the owning file. Everything declared here is hidden (not
 * exported from libzestall.so): shared state is then reached
 * PC-relative, as the file-static state it was, not through the GOT.
 */
#ifndef ZESTALL_CGO_LAUNCH_INTERNAL_H
#define ZESTALL_CGO_LAUNCH_INTERNAL_H

#include "launch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zmap.h"

/* Thread-locals in the initial-exec model: a plain %fs-relative access
 * instead of a __tls_get_addr call on every launch. libzestall.so is
 * preloaded (static TLS is reserved for it), and the Go runtime linked
 * into it already uses this model. */
#define ZL_TLS _Thread_local __attribute__((tls_model("initial-exec")))

#pragma GCC visibility push(hidden)

/* ---- collection state (launch.c) ----------------------------------------- */

extern atomic_bool zl_enabled;   /* see zl_set_enabled */
extern _Atomic uint32_t zl_blocked; /* ZL_BLOCK_* conditions now (zl_block) */
extern atomic_bool zl_serialize; /* ZESTALL_SERIALIZE */
extern atomic_uint_fast64_t ser_timeouts;
#define ZL_SER_LOCKS 16
extern pthread_mutex_t ser_locks[ZL_SER_LOCKS];

/* The serialization lock of a device (ZESTALL_SERIALIZE). */
static inline pthread_mutex_t *ser_lock_of(uint64_t device) {
    return &ser_locks[(device >> 6) % ZL_SER_LOCKS];
}

/* Whether executions of regular lists are collected now: while nothing
 * blocks collection. */
static inline bool collect_executions(void) {
    return atomic_load_explicit(&zl_blocked, memory_order_relaxed) == 0;
}

/* ---- object maps (launch_maps.c) ----------------------------------------- */

extern zmap_t kernels; /* kernel -> {id, packed group size} */
extern zmap_t lists;   /* list -> {context, device, id<<2 | immediate | queue group ordinal<<40} */
extern zmap_t pools;   /* app event pool -> {flags} */
extern zmap_t events;  /* app event -> {pool flags} */
extern zmap_t ctxs;    /* context -> {zl_ctxpool_t*} */
extern zmap_t listev;  /* regular list -> {zl_listev_t*}: zestall's events in it */
/* Bumped whenever the lists map changes (list_lookup's cache). */
extern atomic_uint lists_gen;
void maps_init_once(void);
/* The id of a new command list; 0 past 2^32-1 lists (ids.h): such a list
 * is not entered in lists, counted in zl_lists_without_id. */
uint32_t list_id_take(void);

static inline uint64_t pack_size(uint32_t x, uint32_t y, uint32_t z) {
    return (uint64_t)(x & 0x1fffff) | ((uint64_t)(y & 0x1fffff) << 21) | ((uint64_t)(z & 0x1fffff) << 42);
}

/* ---- zestall's event pools, per context (event_pools.c) ----------------- */

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

struct zl_snapshot;

typedef struct zl_ctxpool {
    ze_context_handle_t ctx;
    pthread_mutex_t lock;
    struct zl_snapshot *snapshots; /* the context's snapshots (regular_lists.c) */
    ze_event_handle_t *free;
    uint32_t nfree, cap;
    ze_event_pool_handle_t pools[ZL_MAX_POOLS];
    uint16_t reserved[ZL_MAX_POOLS]; /* events created (or being created) in each pool */
    uint32_t npools;
    uint32_t fill_at; /* pools before it are full */
    bool failed;      /* pool creation failed once: do not retry per launch */
    /* Events zestall's goroutine is asked to have created in this
     * context (zl_pools_ahead; under lock): raised by the context's first
     * list and by a launch that finds the free list low. */
    uint32_t ahead;
    struct zl_ctxpool *all_next; /* every context's pool, never removed */
} zl_ctxpool_t;

/* Bumped whenever the ctxs map changes: a thread's cached context ->
 * pool answer (ctxpool_cached) is valid while it is unchanged (a
 * destroyed context's handle can be reused by a new one). */
extern atomic_uint ctxs_gen;
/* Set while zestall makes its own driver calls on this thread (see
 * grow_events): the callbacks then leave them alone. */
extern ZL_TLS bool tl_own_calls;

zl_ctxpool_t *ctxpool_of(ze_context_handle_t ctx, bool create);
uint32_t grow_events(zl_ctxpool_t *p, uint32_t want);
ze_event_handle_t event_get_shared(zl_ctxpool_t *p, uint8_t *reason);
void event_put_shared(zl_ctxpool_t *p, ze_event_handle_t ev);
/* Events back from Go (zl_release_events): into their pools' free lists,
 * and the pools grown ahead of need. */
void pools_take_back(const zl_event_ref_t *refs, uint32_t n);
/* Asks zestall's goroutine to have at least target events created in p
 * (under p->lock); true when the caller should wake it (after unlocking:
 * ring_wake_harvester). */
bool pools_ahead_request_locked(zl_ctxpool_t *p, uint32_t target);
/* The target a new context asks for (pools_ahead_request_locked). */
uint32_t pools_first_request(void);
/* zeEventCreate calls of zestall's: on a launch (the launching thread),
 * with a context's first command list (the creating thread), and ahead of
 * need on zestall's goroutine (zl_events_created). */
extern atomic_uint_fast64_t events_created_launch, events_created_list, events_created_ahead;
/* Creates the events asked for (zestall's goroutine, inside a batch). */
void pools_grow_ahead(zl_ctxpool_t *p);
/* The free list below this: the launch that finds it asks for more. */
#define ZL_POOL_LOW_WATER (ZL_POOL_EVENTS / 2)

/* ctxpool_of(ctx, true) through a one-entry cache per thread (a thread
 * usually launches into one context): no hash probe per launch. */
extern ZL_TLS ze_context_handle_t tl_ctx;
extern ZL_TLS zl_ctxpool_t *tl_ctxpool;
extern ZL_TLS unsigned tl_ctx_gen;
static inline zl_ctxpool_t *ctxpool_cached(ze_context_handle_t ctx) {
    unsigned gen = atomic_load_explicit(&ctxs_gen, memory_order_acquire);
    if (ctx == tl_ctx && gen == tl_ctx_gen && tl_ctxpool != NULL) return tl_ctxpool;
    zl_ctxpool_t *p = ctxpool_of(ctx, true);
    tl_ctx = ctx;
    tl_ctx_gen = gen;
    tl_ctxpool = p;
    return p;
}

/* How many events p's pools hold, created or being created (under
 * p->lock). */
static inline uint32_t created_locked(const zl_ctxpool_t *p) {
    uint32_t created = 0;
    for (uint32_t k = 0; k < p->npools; k++) created += p->reserved[k];
    return created;
}

/* Whether more events can be created for p (under p->lock). */
static inline bool can_grow_locked(const zl_ctxpool_t *p) {
    return !p->failed && (p->npools < ZL_MAX_POOLS || p->fill_at < p->npools);
}

/* ---- per-thread rings (launch_rings.c) ----------------------------------- */

/* A ring's slots: mapped at ZL_RING (virtual memory), used from
 * ZL_RING_MIN and doubled (ring_grow) when a launch finds it full, while
 * the growth of all rings stays within the process's budget
 * (launch_rings.c, "Ring capacity"): a thread whose launches the
 * harvester keeps up with touches 128 KiB of ring, not 4 MiB. Pages past
 * the capacity are never touched, so not resident. */
#define ZL_RING ZESTALL_RING_MAX_SLOTS     /* 32768 (abi.h) */
#define ZL_RING_MIN ZESTALL_RING_MIN_SLOTS /* 1024 */
/* The default budget on the rings' growth: all rings' slots beyond
 * ZL_RING_MIN each, together (launch_rings.c, "Ring capacity";
 * ZESTALL_RING_SLOTS sets it). One thread's ring reaches 16384 slots; all
 * rings hold at most threads x ZL_RING_MIN + ZL_RING_GROWTH slots, and as
 * many of zestall's events in flight. */
#define ZL_RING_GROWTH (ZESTALL_RING_DEFAULT_SLOTS - ZL_RING_MIN)
/* Slots kept for everything but launches: a launch is admitted only while
 * this many remain free, so executions, resets and destroys of regular
 * lists (one per thousands of launches) are not lost when launches are:
 * a lost one would leave the harvester's view of the list wrong. A
 * quarter of the ring below 4096 slots. */
#define ZL_RING_RESERVE 1024
static inline uint32_t ring_launch_limit(uint32_t cap) {
    return cap - (cap >= 4 * ZL_RING_RESERVE ? ZL_RING_RESERVE : cap / 4);
}

/* head and tail on cache lines of their own, and the owner's last view of
 * tail on head's: a push reads the drainer's line only when the ring
 * looks full from that view (once per many launches), not per launch (a
 * shared line made every push and every drain miss). */
typedef struct zl_ring {
    _Alignas(64) _Atomic uint64_t head; /* written by the owning thread */
    uint64_t tail_seen;                 /* owner only: a tail value read earlier (<= tail) */
    /* Owner only: the head at which a launch next looks at the ring's
     * fill (ring_check): at most tail_seen + launch_limit, earlier when
     * the harvester is to be woken before the ring fills (launch_rings.c,
     * "Waking the harvester"). 0 on a new ring: its first launch looks. */
    uint64_t check_at;
    /* Slots in use for the ring (a power of two, ZL_RING_MIN..ZL_RING):
     * slot x is at slots[x & (cap - 1)]. Written only by the owning
     * thread under the drain lock (ring_grow), read by the drainer under
     * that lock. */
    uint32_t cap;
    uint32_t launch_limit; /* ring_launch_limit(cap): owner only */
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

extern ZL_TLS zl_ring_t *tl_ring;
extern _Atomic(zl_ring_t *) rings; /* every ring, newest first (never removed) */
/* slots other than launches lost to full rings; launches passed untouched */
extern atomic_uint_fast64_t ring_dropped, launches_dropped;

/* This thread's ring, adopted or mapped on its first launch (NULL: none). */
zl_ring_t *ring_attach(void);

static inline zl_ring_t *my_ring(void) {
    zl_ring_t *r = tl_ring;
    return r != NULL ? r : ring_attach();
}

/* Whether fewer than limit slots of r are in use (owner thread): from the
 * last tail seen, re-read only when that view says no. */
static inline bool ring_below(zl_ring_t *r, uint64_t h, uint64_t limit) {
    if (h - r->tail_seen < limit) return true;
    r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
    return h - r->tail_seen < limit;
}

/* What ring_has_room found: no room (the launch is lost), room, or room
 * after waiting for the harvester (the caller's earlier decisions, such
 * as whether collection is on, may be stale by then). */
enum { ZL_ROOM_NONE = 0, ZL_ROOM = 1, ZL_ROOM_AFTER_WAIT = 2 };
/* Slow path of ring_has_room (launch_rings.c): a launch reached the
 * ring's check_at. Wakes a sleeping harvester when the ring fills
 * ("Waking the harvester"), grows a ring full for launches within the
 * budget, or else waits for room (ZESTALL_RING_FULL), and sets the next
 * check_at. */
int ring_check(zl_ring_t *r, uint64_t h);
/* Doubles r's capacity (owner thread); false at ZL_RING, and, unless
 * over_budget, when the rings' growth budget has no room for it. */
bool ring_grow(zl_ring_t *r, bool over_budget);

/* Whether this thread's ring has room for a launch (ZL_ROOM*): checked
 * before an event is swapped in, so a launch whose slot could not be
 * published never holds one of zestall's events. */
static inline int ring_has_room(void) {
    zl_ring_t *r = my_ring();
    if (r == NULL) return ZL_ROOM_NONE;
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    /* check_at <= tail_seen + launch_limit: what passes here has room. */
    if (__builtin_expect(h < r->check_at, 1)) return ZL_ROOM;
    return ring_check(r, h);
}

/* Publishes s; false (counted in ring_dropped) when the ring is full and
 * cannot grow. Launches reach this only after ring_has_room, so a ring
 * full here is full of other slots (executions, resets, destroys: a
 * handful per thousands of launches, which the reserve holds): the ring
 * then grows past the budget rather than lose one (still at most ZL_RING). */
static inline bool push(const zl_slot_t *s) {
    zl_ring_t *r = my_ring();
    if (r == NULL) {
        atomic_fetch_add(&ring_dropped, 1);
        return false;
    }
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (__builtin_expect(!ring_below(r, h, r->cap), 0) && !ring_grow(r, true)) {
        atomic_fetch_add_explicit(&ring_dropped, 1, memory_order_relaxed);
        return false;
    }
    uint64_t mask = r->cap - 1;
    r->slots[h & mask] = *s;
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    /* The ring does not stay in cache: fetch the next slot's lines for
     * writing now, so that the miss overlaps the application's work
     * until its next launch instead of stalling that launch's push. */
    const char *next = (const char *)&r->slots[(h + 1) & mask];
    __builtin_prefetch(next, 1, 3);
    __builtin_prefetch(next + sizeof(zl_slot_t) - 1, 1, 3);
    return true;
}

/* The most slots one thread's ring can hold (ZL_RING_MIN and the whole
 * growth budget): as many of zestall's events can be in flight. */
uint32_t ring_one_thread_most(void);
/* Slots not yet drained from one ring that make ring_backlog true: a
 * launch burst under way (a quarter of the smallest ring). */
#define ZL_BACKLOG_SLOTS (ZL_RING_MIN / 4)
bool ring_backlog(void);
/* Wakes the harvester if it sleeps with a wake-up armed (one eventfd
 * write; nothing otherwise). */
void ring_wake_harvester(void);

/* ---- a thread's cache of zestall's events (event_cache.c) ---------------- */

void event_cache_flush(zl_ring_t *r);
ze_event_handle_t event_refill(zl_ring_t *r, zl_ctxpool_t *p, uint8_t *reason);
void event_caches_reclaim_locked(zl_ctxpool_t *p);

/* One of zestall's events for a launch into ctx, from this thread's cache
 * (a load, a compare and a store), else from the slow path; NULL with
 * *reason set when there is none. */
static inline ze_event_handle_t event_get(ze_context_handle_t ctx, uint8_t *reason) {
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
static inline void event_put(ze_context_handle_t ctx, ze_event_handle_t ev) {
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

/* ---- zestall's own per-event driver calls (event_reads.c) ---------------- */

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
    bool reset_final;           /* ... each final one reset right after its read */
    const zl_event_ref_t *refs; /* or host resets of these events */
    bool reset_done;            /* ... done already: only their return to the pools */
    uint32_t n;
    /* resets: the index of the trigger event (the first nonzero one); the
     * prologue takes every other event back to its pool (growing the
     * pools there, untraced), the trigger only once its own reset ran */
    uint32_t first;
    zl_ctxpool_t *grow; /* or: the events asked for in this context (zl_pools_ahead) */
    /* or: run(arg), any of zestall's own driver calls (run_in_batch) */
    void (*run)(void *arg);
    void *arg;
    bool done;
} zl_batch_t;
extern ZL_TLS zl_batch_t *tl_batch;
/* The batch of this thread's pending call (resets or timestamp reads),
 * taken: NULL when the call is not zestall's batch trigger. */
zl_batch_t *batch_take(bool resets);
void reset_events(const zl_event_ref_t *refs, uint32_t n);
void read_timestamps(const uint64_t *events, uint32_t n, zl_event_reading_t *out, bool reset_final);
/* A kernel timestamp as Go's reading of a signalled event (ready). */
static inline zl_event_reading_t reading_of(const ze_kernel_timestamp_result_t *t) {
    return (zl_event_reading_t){.start = t->global.kernelStart, .end = t->global.kernelEnd,
                                .ctx_start = t->context.kernelStart, .ctx_end = t->context.kernelEnd, .ready = 1};
}
/* Runs run(arg), which makes zestall's own driver calls, inside one
 * traced call on zestall's event ev (a timestamp query, whose result is
 * not used), so that the tracing layer forwards them straight to the
 * driver: neither zestall's callbacks nor the layer's per-call cost see
 * them. Directly, marked as zestall's own (tl_own_calls), when the layer
 * did not call the prologue. */
void run_in_batch(uint64_t ev, void (*run)(void *arg), void *arg);

/* ---- regular command lists (regular_lists.c) ----------------------------- */

/* zestall's events appended to one regular command list. A list is used
 * by one thread at a time (Level Zero's rule), so no lock. */
#define ZL_MAX_SNAPSHOTS 1024 /* executions of one list in flight with their own snapshot */

typedef struct zl_listev {
    uint32_t n, cap;
    bool executed;  /* since the last reset: only then do the events hold times */
    bool last_snapshot; /* the previous execution had a snapshot */
    bool no_snapshots;  /* recording a snapshot list failed: do not retry per execution */
    uint32_t gen;   /* bumped when the events change (reset, destroy) */
    uint32_t nexec; /* executions since the last reset */
    ze_command_queue_handle_t last_queue; /* of the previous execution */
    _Atomic uint64_t submits;             /* submissions ever (never reset; see exec_add_snapshots) */
    uint32_t nsnaps, scap, rr;
    uint32_t appended;         /* launch slots published since the last reset */
    struct zl_snapshot **snapshots; /* grows; never shrinks (the record is kept) */
    ze_event_handle_t *ev;
} zl_listev_t;

zl_listev_t *listev_of(ze_command_list_handle_t l, bool create);
void listev_clear(ze_command_list_handle_t l);
void listev_destroy_snapshots(ze_command_list_handle_t l);
/* The list was destroyed: its record is freed (memory bounded by the
 * regular lists alive, not by those ever made). */
void listev_free(ze_command_list_handle_t l);
/* Under p->lock, the context being destroyed: its snapshots' resources go. */
void snapshots_context_destroyed_locked(zl_ctxpool_t *p);

/* ---- device-side timestamp copies (timestamp_copies.c) ------------------ */

/* Destroys the copiers of a context (before its pools go). */
void copiers_context_destroyed(uint64_t ctx);

/* Bumped whenever a record is freed (listev_free): a thread's cached
 * handle -> record answer is valid while it is unchanged (a destroyed
 * list's handle can be reused by a new list, with a new record). */
extern atomic_uint listev_gen;

/* listev_of(l, true) through a one-entry cache per thread. A list is
 * used by one thread at a time and not destroyed while in use (Level
 * Zero's rules), so a record found valid here is not freed before this
 * launch is done with it. */
extern ZL_TLS ze_command_list_handle_t tl_xl;
extern ZL_TLS zl_listev_t *tl_x_of;
extern ZL_TLS unsigned tl_x_gen;
static inline zl_listev_t *listev_cached(ze_command_list_handle_t l) {
    unsigned gen = atomic_load_explicit(&listev_gen, memory_order_acquire);
    if (l == tl_xl && gen == tl_x_gen && tl_x_of != NULL) return tl_x_of;
    zl_listev_t *x = listev_of(l, true);
    tl_xl = l;
    tl_x_gen = gen;
    tl_x_of = x;
    return x;
}

/* Returns 1 + the event's index in the list (0: not recorded). */
static inline uint32_t listev_add(zl_listev_t *x, ze_event_handle_t ev) {
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

/* The execute callbacks (registered by zl_register). */
void ZE_APICALL pro_execute(ze_command_queue_execute_command_lists_params_t *p, ze_result_t r, void *u, void **i);
void ZE_APICALL epi_execute(ze_command_queue_execute_command_lists_params_t *p, ze_result_t r, void *u, void **i);

#pragma GCC visibility pop

#endif
